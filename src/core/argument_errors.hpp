/// \file
/// The worker options' argument checks and errors, shared by `execute.cpp` and `timely-run`
/// (`src/tools/run`). Internal: not installed.
///
/// `whole_number`: a CLI11 validator of a decimal whole number in a range, in our words (CLI11's
/// `Range` says "Value 2.5 not in range" of what is not a number, and accepts "0x2" and " 2").
///
/// `describe_parse_error`: a CLI11 parse error in our words.
/// CLI11 says `--workers: 1 required UINT:N missing` for an option without its value,
/// `At Most 1 required but received 2` for one given twice, and lists unknown options in the
/// order it was handed them. These become `--workers needs a value (UINT:N) after it`,
/// `--workers is given 2 times; give it once` and `unknown options --a --b` (`reversed`: the
/// caller handed CLI11 its arguments back to front, so the order given is restored). Any other
/// message is returned as CLI11 wrote it, and so would these be, should a CLI11 release word
/// them differently. Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace timely::detail {

/// Accepts decimal digits only, `least` to `most` (`most` below 10^9); else says
/// "expected WHAT from LEAST to MOST, got 'TEXT'".
inline CLI::Validator whole_number(const char* what, unsigned long least, unsigned long most) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(text) < least || std::stoul(text) > most)
          return std::string("expected ") + what + " from " + std::to_string(least) + " to " +
                 std::to_string(most) + ", got '" + text + "'";
        return {};
      },
      "N");
}

inline std::string describe_parse_error(const CLI::ParseError& error, bool reversed) {
  const std::string_view what = error.what();
  for (const std::string_view head : {std::string_view("The following argument was not expected: "),
                                      std::string_view("The following arguments were not expected: ")}) {
    if (!what.starts_with(head)) continue;
    std::vector<std::string_view> names;
    for (std::string_view rest = what.substr(head.size()); !rest.empty();) {
      const auto space = rest.find(' ');
      names.push_back(rest.substr(0, space));
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
    }
    std::string out = names.size() == 1 ? "unknown option" : "unknown options";
    if (reversed)
      for (auto it = names.rbegin(); it != names.rend(); ++it) out += " " + std::string(*it);
    else
      for (const auto name : names) out += " " + std::string(name);
    return out;
  }
  const auto colon = what.find(": ");
  if (colon == std::string_view::npos) return std::string(what);
  const std::string_view name = what.substr(0, colon), rest = what.substr(colon + 2);
  constexpr std::string_view missing_head = "1 required ", missing_tail = " missing";
  if (rest.starts_with(missing_head) && rest.ends_with(missing_tail) &&
      rest.size() > missing_head.size() + missing_tail.size()) {
    const auto type =
        rest.substr(missing_head.size(), rest.size() - missing_head.size() - missing_tail.size());
    return std::string(name) + " needs a value (" + std::string(type) + ") after it";
  }
  constexpr std::string_view twice_head = "At Most 1 required but received ";
  if (rest.starts_with(twice_head))
    return std::string(name) + " is given " + std::string(rest.substr(twice_head.size())) +
           " times; give it once";
  return std::string(what);
}

}  // namespace timely::detail
