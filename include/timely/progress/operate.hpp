/// \file
/// The raw operator interface a scope schedules: `Operate<T>`, the `SharedProgress<T>` arrays
/// through which an operator and its scope exchange progress information, `FrontierInterest`,
/// and `Schedulable`, what a worker schedules (a built dataflow).
///
/// Source: the reference's `progress::operate` and `SharedProgress`, and `scheduling::Schedule`
/// (SEMANTICS.md §3.7, §5.8).
/// Thread-safety: none; operators live on their worker thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <timely/progress/change_batch.hpp>
#include <timely/progress/connectivity.hpp>
#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::progress {

/// When frontier changes at an input should schedule the operator. Ordered so that the largest
/// interest among several operators is the one a scope must honour.
enum class FrontierInterest {
  /// Never: the operator runs only on data or explicit activation.
  Never = 0,
  /// Only while the operator holds a capability.
  IfCapability = 1,
  /// On every frontier change.
  Always = 2,
};

/// The four progress arrays an operator shares with its scope. Every scheduling's contents form
/// one atomic batch (SEMANTICS.md §3.2): the scope drains all four after each `schedule()`.
///
/// \tparam T the scope's timestamp type.
template <Timestamp T>
struct SharedProgress {
  SharedProgress(std::size_t inputs, std::size_t outputs)
      : frontiers(inputs), consumeds(inputs), internals(outputs), produceds(outputs) {}
  /// Per input, scope -> operator: changes to the input frontier.
  std::vector<ChangeBatch<T>> frontiers;
  /// Per input, operator -> scope: records consumed per time.
  std::vector<ChangeBatch<T>> consumeds;
  /// Per output, operator -> scope: changes to capabilities held per time.
  std::vector<ChangeBatch<T>> internals;
  /// Per output, operator -> scope: records produced per time.
  std::vector<ChangeBatch<T>> produceds;
};

/// Something a worker can schedule: a built dataflow.
class Schedulable {
 public:
  virtual ~Schedulable() = default;
  /// Runs once. \returns whether work remains (false: the dataflow is complete).
  virtual bool schedule() = 0;
};

/// An operator as its scope sees it: a shape, a connectivity, frontier interests, shared progress
/// and a `schedule()` method.
///
/// After construction, `progress().internals[o]` must hold `(minimum, peers)` for every output:
/// the scope treats every output as holding one capability at the minimum time per worker, as
/// common knowledge, without communicating it (SEMANTICS.md §3.2).
template <Timestamp T>
class Operate {
 public:
  virtual ~Operate() = default;
  /// A human-readable name for errors and logs.
  [[nodiscard]] virtual const std::string& name() const = 0;
  [[nodiscard]] virtual std::size_t inputs() const = 0;
  [[nodiscard]] virtual std::size_t outputs() const = 0;
  /// Per input, the outputs it reaches and the path summaries along which it does (a missing
  /// output: not connected).
  [[nodiscard]] virtual Connectivity<SummaryOf<T>> connectivity() const = 0;
  /// Per input: when frontier changes schedule this operator.
  [[nodiscard]] virtual std::vector<FrontierInterest> notify_me() const = 0;
  /// Whether progress reports are this worker's own (true) or already global aggregates
  /// (false: nested scopes).
  [[nodiscard]] virtual bool local() const { return true; }
  /// The progress arrays shared with the scope.
  [[nodiscard]] virtual SharedProgress<T>& progress() = 0;
  /// Runs the operator once. \returns whether it has outstanding work that should keep the
  /// computation alive even when it holds no capabilities.
  virtual bool schedule() = 0;
};

}  // namespace timely::progress
