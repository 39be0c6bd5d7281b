#!/usr/bin/env bash
# Checks the one direction of dependency between timely's libraries (ARCHITECTURE.md §1):
#   container <- logging <- communication <- core
# A public header of a lower library may include only headers of its own or lower libraries,
# and Boost.Asio may appear only in src/communication/.
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
check container 'container/'
check logging 'container/|logging/'
check communication 'container/|logging/|communication/|error\.hpp'
if grep -rln 'boost/asio' "$root/include" >/dev/null 2>&1; then
  echo "layering: a public header includes Boost.Asio" >&2
  status=1
fi
[ $status -eq 0 ] && echo "layering: ok"
exit $status
