/// \file
/// The exception types of the lowest library that throws (communication), which every higher
/// one shares: `timely::Error` (base of everything timely throws), `ConfigError` (bad
/// configuration or arguments), `WorkerAborted` (this worker stopped because another failed),
/// `DataflowError` (workers built different dataflows) and `NetworkError` (a connection between
/// processes failed). Errors of the dataflow layer
/// (capabilities, building, inputs) are in timely/error.hpp.
///
/// Every user contract violation or bad input throws a subclass of `timely::Error` whose message
/// names the values involved; the library never exits or prints on its own.
///
/// Source: the reference panics in these places (SEMANTICS.md §7.6-§7.7); we throw instead so an
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

/// Bad configuration or command-line arguments (`-w 0`, unknown flags, a malformed hostfile, a
/// type without a codec on a channel that crosses processes, ...).
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// Another worker failed; this worker stopped. `communication::initialize` (and so `execute`)
/// rethrows the original error instead.
class WorkerAborted : public Error {
 public:
  using Error::Error;
};

/// Workers built different dataflows: the core found their shapes differ (`DataflowShape`), or
/// the workers of a process allocated one channel with different types. The dataflow layer
/// also throws it for a `Worker::drop_dataflow` of a dataflow that is not installed.
class DataflowError : public Error {
 public:
  using Error::Error;
};

namespace communication {

/// A connection between processes could not be made, was lost, carried bad bytes, or the
/// peer's computation failed; the message names the peer process and its address.
class NetworkError : public timely::Error {
 public:
  using timely::Error::Error;
};

}  // namespace communication
}  // namespace timely
