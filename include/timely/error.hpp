/// \file
/// `timely::Error`: the base of every exception timely throws, in every one of its libraries
/// (container, logging, communication, observe, the dataflow runtime, streaming, durable). It
/// sits below them all and includes nothing of timely's, so each library's own errors derive
/// from it and a program catches everything timely throws with one handler. Each library's
/// errors are in its own room: communication/error.hpp (configuration, workers, the network),
/// progress/error.hpp (building, the progress protocol), dataflow/error.hpp (capabilities,
/// pacts, inputs), logging/file.hpp, durable/error.hpp, and so on.
///
/// Every user contract violation or bad input throws a subclass whose message names the values
/// involved; the library never exits or prints on its own (the one exception is `timely::run`,
/// which is asked to). Source: the reference panics in these places (SEMANTICS.md §4.4,
/// §7.6-§7.7); we throw instead, so that an embedding application can recover.
/// Thread-safety: all error types are safe to throw and copy from any thread.
#pragma once

#include <stdexcept>
#include <string>

namespace timely {

/// Base of every error timely throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace timely
