/// \file
/// The exception types of the dataflow layer: `CapabilityError`, `BuildError`, `PactError`,
/// `InputError`, `ProgressError` and `HelpRequested`, with the shared ones (`timely::Error`,
/// `ConfigError`, `WorkerAborted`, `DataflowError`, `communication::NetworkError`) from the
/// communication library below it (timely/communication/error.hpp). Every user contract violation
/// or bad input throws a subclass of `timely::Error` whose message names the values involved; the
/// library never exits or prints on its own.
///
/// Source: the reference panics in these places (SEMANTICS.md §4.4, §7.7); we throw instead so an
/// embedding application can recover. All types are thread-safe to throw and copy.
#pragma once

#include <timely/communication/error.hpp>

namespace timely {

/// A capability was used wrongly: delayed or downgraded to a time not beyond its own, used for
/// an output it was not minted for, or minted from an input along a path that does not allow it.
class CapabilityError : public Error {
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

/// A pact broke its contract: it did not pass on exactly the records it was given.
class PactError : public Error {
 public:
  using Error::Error;
};

/// An input handle was misused (time moved backwards, data sent after close).
class InputError : public Error {
 public:
  using Error::Error;
};

/// An operator broke the progress protocol: it reported a capability or records at a time it
/// could not justify, dropped a capability more often than it held it, or received frontier
/// changes after it was shut down. Thrown by the progress validator (progress/validate.hpp,
/// debug builds) and, for the last case, always.
class ProgressError : public Error {
 public:
  using Error::Error;
};

}  // namespace timely
