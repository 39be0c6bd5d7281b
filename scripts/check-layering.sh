#!/usr/bin/env bash
# Checks the one direction of dependency between timely's libraries (ARCHITECTURE.md §1):
# error.hpp is the bottom, which every library may include; container and logging each include
# only their own headers (and error.hpp), communication its own and container's,
# observe its own and logging's; core uses them all; streaming sits on top and no other includes it.
# durable (the log) includes only its own headers but for its dataflow operators, and nothing
# outside it includes it.
# Boost.Asio may appear only in src/communication/, the wire format only in its own header
# (the dataflow layer sees the allocator facade, not frames), and of Boost.PFR only its core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/include/timely"
status=0
check() {  # check DIR ALLOWED_PREFIX_REGEX
  local dir=$1 allowed=$2
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include <timely\/([^>]+)>.*/\1/' <<<"$line")
    if ! grep -Eq "^($allowed)" <<<"$inc"; then
      echo "layering: $dir/${file#"$dir"/} includes timely/$inc" >&2
      status=1
    fi
  done < <(grep -rn '#include <timely/' "$dir" || true)
}
# timely/error.hpp (the base of every library's errors) is the bottom: it includes nothing of
# timely's, and every library may include it.
if grep -n '#include <timely/' error.hpp; then
  echo "layering: error.hpp (the bottom) includes a timely header" >&2
  status=1
fi
check container 'container/|error\.hpp$'
check logging 'logging/|error\.hpp$'
check communication 'communication/|container/|error\.hpp$'  # communication sits above container
check observe 'observe/|logging/|error\.hpp$'  # the observation model sits on logging alone
# The capture format (event, format, frames, readers, writer) sits below the dataflow layer that
# captures and replays with it: it never includes dataflow/.
check capture 'capture/|container/|communication/|progress/|error\.hpp$'

# Stream processing sits on top of everything: no other library includes it.
if grep -rn '#include <timely/streaming/' . | grep -v '^\./streaming/'; then
  echo "layering: a header outside streaming/ includes timely/streaming/" >&2
  status=1
fi
# The durable log sits beside the dataflow runtime: its headers include only its own, and only
# its dataflow operators (durable/operators/) may include the runtime; nothing else includes it.
while IFS= read -r line; do
  file=${line%%:*}
  case $file in ./durable/operators/*) continue ;; esac
  inc=$(sed -E 's/.*#include <timely\/([^>]+)>.*/\1/' <<<"$line")
  if ! grep -Eq '^(durable/|error\.hpp$)' <<<"$inc"; then
    echo "layering: ${file#./} includes timely/$inc (durable/ outside operators/ includes only durable/ and error.hpp)" >&2
    status=1
  fi
done < <(grep -rn '#include <timely/' ./durable 2>/dev/null || true)
if grep -rn '#include <timely/durable/' . | grep -v '^\./durable/'; then
  echo "layering: a header outside durable/ includes timely/durable/" >&2
  status=1
fi
# Progress tracking sits below the dataflow layer: Scope uses progress/, never the reverse.
if grep -rn '#include <timely/dataflow/' progress; then
  echo "layering: a header under progress/ includes timely/dataflow/" >&2
  status=1
fi
if grep -rn '#include <timely/communication/wire.hpp>' . | grep -v '^\./communication/wire\.hpp:'; then
  echo "layering: a public header other than communication/wire.hpp includes the wire format" >&2
  status=1
fi
if grep -rn '#include <boost/pfr.hpp>' .; then
  echo "layering: a public header includes all of Boost.PFR (include boost/pfr/core.hpp)" >&2
  status=1
fi
if grep -rln 'boost/asio' "$root/include" >/dev/null 2>&1; then
  echo "layering: a public header includes Boost.Asio" >&2
  status=1
fi
[ $status -eq 0 ] && echo "layering: ok"
exit $status
