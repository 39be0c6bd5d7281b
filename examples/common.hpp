// What every example binary shares: turning timely's errors into a message and an exit status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/execute.hpp>

namespace examples {

/// Runs `body()`; prints usage for --help (exit 0), a bad-argument message (exit 2) or any
/// other error (exit 1) on stderr. `options` describes the example's own arguments for --help,
/// a line each ("  --name VALUE   what it does"), printed before the worker options; empty for
/// an example with none.
template <class F>
int guarded_main(const char* name, const char* usage, const char* options, F&& body) {
  try {
    body();
    return 0;
  } catch (const timely::HelpRequested& help) {
    // The text opens with CLI11's own usage line and a generic positional; ours replaces both.
    std::string_view worker = help.what();
    if (const auto at = worker.find("Options:"); at != std::string_view::npos) worker.remove_prefix(at);
    std::printf("usage: %s %s\n\n", name, usage);
    if (*options != '\0') std::printf("Arguments:\n%s\n", options);
    std::printf("Worker %.*s", static_cast<int>(worker.size()), worker.data());
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

/// `guarded_main` for an example with no arguments of its own to describe (its positional
/// ones, if any, are in `usage`).
template <class F>
int guarded_main(const char* name, const char* usage, F&& body) {
  return guarded_main(name, usage, "", std::forward<F>(body));
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

/// The worker arguments of an example that takes no positional arguments.
/// \throws timely::ConfigError if any is given, or as `timely::Config::from_args`.
inline timely::Config config_without_positionals(int argc, char** argv) {
  auto config = timely::Config::from_args(argc, argv);
  if (!config.positional.empty()) throw positional_error(config.positional, "takes no positional arguments");
  return config;
}

/// Parses a positional argument as an unsigned number. \throws timely::ConfigError naming it.
inline std::uint64_t parse_count(const std::string& text, const char* what) {
  std::size_t used = 0;
  unsigned long long value = 0;
  bool too_large = false;
  try {
    value = std::stoull(text, &used);
  } catch (const std::out_of_range&) {
    too_large = true;
  } catch (const std::exception&) {
    used = 0;
  }
  // Digits only: stoull alone would take leading blanks, a sign (wrapping "-5") and "+5".
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && too_large)
    throw timely::ConfigError(std::string(what) + " is too large: '" + text + "' (at most " +
                              std::to_string(std::numeric_limits<unsigned long long>::max()) + ")");
  if (!digits || used != text.size())
    throw timely::ConfigError(std::string("expected a non-negative whole number for ") + what + ", got '" +
                              text + "'");
  return value;
}

/// Takes `name` (a switch without a value, such as `--columnar`) out of `args` (up to a `--`)
/// and says whether it was there; the rest goes on to `timely::Config::from_args`.
/// \throws timely::ConfigError if it is given twice (as the worker options are).
inline bool take_switch(std::vector<char*>& args, const char* name) {
  bool found = false;
  for (std::size_t i = 1; i < args.size() && std::string_view(args[i]) != "--";) {
    if (std::string_view(args[i]) != name) {
      ++i;
      continue;
    }
    if (found) throw timely::ConfigError(std::string(name) + " given twice");
    found = true;
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return found;
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
