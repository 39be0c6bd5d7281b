/// \file
/// The errors of progress tracking: `BuildError` (a dataflow graph that cannot be tracked) and
/// `ProgressError` (an operator broke the progress protocol). Both derive from `timely::Error`.
///
/// Source: the reference panics in these places (SEMANTICS.md §3, §4.4); we throw instead.
/// Thread-safety: safe to throw and copy from any thread.
#pragma once

#include <timely/error.hpp>

namespace timely {

/// A dataflow could not be built (a non-advancing cycle, a stream used in a foreign scope, ...).
class BuildError : public Error {
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
