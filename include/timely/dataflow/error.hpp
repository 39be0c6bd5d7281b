/// \file
/// The errors of a dataflow's operators and inputs: `CapabilityError` (a capability used
/// wrongly), `PactError` (a pact that lost or invented records) and `InputError` (an input
/// handle misused). All derive from `timely::Error`; building errors are progress/error.hpp's.
///
/// Source: the reference panics in these places (SEMANTICS.md §4.4); we throw instead, so an
/// embedding application can recover. Thread-safety: safe to throw and copy from any thread.
#pragma once

#include <timely/error.hpp>

namespace timely {

/// A capability was used wrongly: delayed or downgraded to a time not beyond its own, used for
/// an output it was not minted for, or minted from an input along a path that does not allow it.
class CapabilityError : public Error {
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

}  // namespace timely
