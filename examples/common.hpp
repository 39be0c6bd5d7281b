// What every example binary shares: turning timely's errors into a message and an exit status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/error.hpp>

namespace examples {

/// Runs `body()`; prints usage for --help (exit 0), a bad-argument message (exit 2) or any
/// other error (exit 1) on stderr.
template <class F>
int guarded_main(const char* name, const char* usage, F&& body) {
  try {
    body();
    return 0;
  } catch (const timely::HelpRequested& help) {
    std::printf("usage: %s %s\n\n%s", name, usage, help.what());
    return 0;
  } catch (const timely::ConfigError& e) {
    std::fprintf(stderr, "%s: %s\nusage: %s %s\n", name, e.what(), name, usage);
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory (a graph or input too large for this machine?)\n", name);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 1;
  }
}

/// The error for positional arguments that do not fit the usage: `expected` (what the usage
/// asks for) and the arguments given, quoted.
inline timely::ConfigError positional_error(const std::vector<std::string>& given,
                                            const std::string& expected) {
  std::string got = given.empty() ? std::string("none") : std::string();
  for (const auto& arg : given) got += (got.empty() ? "'" : " '") + arg + "'";
  return timely::ConfigError(expected + "; got " + std::to_string(given.size()) + " positional argument" +
                             (given.size() == 1 ? "" : "s") + ": " + got);
}

/// Parses a positional argument as an unsigned number. \throws timely::ConfigError naming it.
inline std::uint64_t parse_count(const std::string& text, const char* what) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // Digits only: stoull alone would take leading blanks, a sign (wrapping "-5") and "+5".
  if (used != text.size() || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw timely::ConfigError(std::string("expected a non-negative whole number for ") + what + ", got '" +
                              text + "'");
  return value;
}

/// Removes every `name` (a switch without a value, such as `--columnar`) from `args` and says
/// whether there was one; the rest goes on to `timely::Config::from_args`.
inline bool take_switch(std::vector<char*>& args, const char* name) {
  const auto before = args.size();
  std::erase_if(args, [&](const char* arg) { return std::string(arg) == name; });
  return args.size() != before;
}

/// Takes every `name VALUE` (or `name=VALUE`) out of `args` (up to a `--`) and returns VALUE;
/// the rest goes on to `timely::Config::from_args`. \throws timely::ConfigError if `name` has
/// no value or is given twice.
inline std::optional<std::string> take_text(std::vector<char*>& args, const std::string& name) {
  std::optional<std::string> value;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string arg = args[i];
    if (arg == "--") break;
    std::size_t used = 0;
    std::string text;
    if (arg == name) {
      if (i + 1 >= args.size()) throw timely::ConfigError(name + " needs a value");
      text = args[i + 1];
      used = 2;
    } else if (arg.rfind(name + "=", 0) == 0) {
      text = arg.substr(name.size() + 1);
      used = 1;
    } else {
      continue;
    }
    if (value) throw timely::ConfigError(name + " given twice");
    value = std::move(text);
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + used));
    --i;
  }
  return value;
}

/// `take_text` parsed as a count (`parse_count`).
inline std::optional<std::uint64_t> take_count(std::vector<char*>& args, const std::string& name) {
  const auto text = take_text(args, name);
  if (!text) return std::nullopt;
  return parse_count(*text, name.c_str());
}

}  // namespace examples
