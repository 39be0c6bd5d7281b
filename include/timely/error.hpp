/// \file
/// The exception types timely throws. Every user contract violation or bad input throws a
/// subclass of `timely::Error` whose message names the values involved; the library never exits
/// or prints on its own.
///
/// Source: the reference panics in these places (SEMANTICS.md §4.4, §7.7); we throw instead so an
/// embedding application can recover. All types are thread-safe to throw and copy.
#pragma once

#include <stdexcept>
#include <string>

namespace timely {

/// Base of every error timely throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A capability was used wrongly: delayed or downgraded to a time not beyond its own, used for
/// an output it was not minted for, or minted from an input along a path that does not allow it.
class CapabilityError : public Error {
 public:
  using Error::Error;
};

/// Bad configuration or command-line arguments (`-w 0`, unknown flags, ...).
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// `--help` was given: `what()` is the usage text. Not a failure; callers print it and stop.
class HelpRequested : public Error {
 public:
  using Error::Error;
};

/// A dataflow could not be built (a non-advancing cycle, a stream used in a foreign scope, ...).
class BuildError : public Error {
 public:
  using Error::Error;
};

/// An input handle was misused (time moved backwards, data sent after close).
class InputError : public Error {
 public:
  using Error::Error;
};

/// Another worker failed; this worker stopped. `execute` rethrows the original error instead.
class WorkerAborted : public Error {
 public:
  using Error::Error;
};

}  // namespace timely
