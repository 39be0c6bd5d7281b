/// \file
/// The errors of the communication library, which the libraries above it share:
/// `ConfigError` (bad configuration or arguments), `HelpRequested` (`--help` was given),
/// `WorkerAborted` (this worker stopped because another failed), `DataflowError` (workers built
/// different dataflows) and `NetworkError` (a connection between processes failed). All derive
/// from `timely::Error` (timely/error.hpp).
///
/// Source: the reference panics in these places (SEMANTICS.md §7.6-§7.7); we throw instead so an
/// embedding application can recover. All types are thread-safe to throw and copy.
#pragma once

#include <timely/error.hpp>

namespace timely {

/// Bad configuration or command-line arguments (`-w 0`, unknown flags, a malformed hostfile, a
/// type without a codec on a channel that crosses processes, ...).
class ConfigError : public Error {
 public:
  using Error::Error;
};

/// `--help` was given: `what()` is the usage text. Not a failure; callers print it and stop
/// (`timely::run` does both).
class HelpRequested : public Error {
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
