/// \file
/// `Worker`: one thread of a timely computation. It builds dataflows (`dataflow<T>(builder)`)
/// and drives them (`step`, `step_or_park`, `step_while`); every worker of a computation runs
/// the same program and must build the same dataflows in the same order.
///
/// Dataflows are numbered in the order they are built (`next_dataflow_index()` is the number the
/// next one gets); `drop_dataflow(index)` tears one down before it completes, as the reference's
/// `Worker::drop_dataflow` does. Every worker of the computation must drop the same dataflows.
///
/// Source: Naiad §3.1 (workers) and the reference's `worker::Worker` (SEMANTICS.md §5.1, §5.9).
/// Thread-safety: a worker and everything it builds belong to the thread that runs it.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/communication/allocator.hpp>
#include <timely/communication/codec.hpp>
#include <timely/communication/error.hpp>
#include <timely/communication_log.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/subgraph.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker_state.hpp>

namespace timely {

/// One worker of a computation: `index()` among `peers()` workers.
class Worker {
 public:
  /// A worker over `allocator` (which fixes its index and the number of peers).
  explicit Worker(communication::Allocator allocator, WorkerConfig config = {})
      : state_(std::make_unique<WorkerState>(std::move(allocator), config)) {}
  Worker(Worker&&) noexcept = default;
  Worker& operator=(Worker&&) noexcept = default;
  ~Worker() {
    // Dataflows go first: their operators hold channels into the allocator.
    dataflows_.clear();
  }

  [[nodiscard]] std::size_t index() const noexcept { return state_->index(); }
  [[nodiscard]] std::size_t peers() const noexcept { return state_->peers(); }
  [[nodiscard]] WorkerState& state() noexcept { return *state_; }
  /// This worker's log streams (see `timely/logging/timely_events.hpp` for the streams and
  /// their events). Register actions before building the dataflows they should observe. Actions
  /// run on this thread until the worker is destroyed (after an `execute` closure returns, the
  /// worker still steps its remaining dataflows): what they capture by reference must live as
  /// long, or the binding must be removed first.
  [[nodiscard]] logging::Registry& log_register() noexcept { return state_->log_registry(); }

  /// Builds a top-level dataflow with timestamps of type `T`: calls `builder(scope)` with a
  /// `dataflow::Scope<T>&`, then installs what it built. Returns what `builder` returns.
  /// \throws BuildError if the dataflow is malformed (e.g. a non-advancing cycle);
  /// DataflowError if another worker already said it built this dataflow with other
  /// identifiers or channels (`DataflowShape`; a later report of that fails a later `step`).
  template <class T, class F>
  decltype(auto) dataflow(F&& builder) {
    if constexpr (!Timestamp<T>) {
      static_assert(Timestamp<T>,
                    "timely: the timestamp type of a dataflow must be a timely::Timestamp: partially ordered "
                    "(timely::PartialOrderTraits), copyable, with timely::TimestampTraits naming its Summary "
                    "type and minimum() (see timely/progress/timestamp.hpp)");
    } else {
      return dataflow_named<T>("Dataflow", std::forward<F>(builder));
    }
  }

  /// `dataflow` with a name used in error messages.
  template <Timestamp T, class F>
  decltype(auto) dataflow_named(std::string name, F&& builder) {
    const std::size_t index = next_dataflow_++;
    scheduling::Path path;
    path.push_back(index);
    const std::size_t id = state_->new_identifier();
    log_dataflow(id, index, name);
    progress::SubgraphBuilder<T> sub(*state_, path, std::move(name), id);
    dataflow::Scope<T> scope(sub);
    using R = std::invoke_result_t<F&, dataflow::Scope<T>&>;
    if constexpr (std::is_void_v<R>) {
      builder(scope);
      install(index, id, progress::build_dataflow<T>(std::move(sub)), communication::Codec<T>::name());
    } else {
      R result = builder(scope);
      install(index, id, progress::build_dataflow<T>(std::move(sub)), communication::Codec<T>::name());
      return result;
    }
  }

  /// An activator for the operator at `path` (use on this worker's thread).
  [[nodiscard]] scheduling::Activator activator_for(scheduling::Path path) const {
    return scheduling::Activator(state_->activations(), std::move(path));
  }
  /// An activator for the operator at `path` usable from any thread; it wakes this worker.
  [[nodiscard]] scheduling::SyncActivator sync_activator_for(scheduling::Path path) const {
    return scheduling::SyncActivator(state_->activations()->sync(), std::move(path));
  }

  /// Runs one round: receives, then schedules every activated dataflow. Never parks.
  /// \returns whether any dataflow remains. \throws WorkerAborted if another worker failed, or
  /// whatever an operator throws.
  bool step() { return step_or_park(std::chrono::nanoseconds::zero()); }

  /// Like `step`, but if nothing is activated, parks the thread until a message arrives or
  /// `timeout` passes (`std::nullopt`: no limit) and schedules nothing this round.
  bool step_or_park(std::optional<std::chrono::nanoseconds> timeout);

  /// Steps while `pred()` holds.
  template <class P>
  void step_while(P&& pred) {
    while (pred()) step();
  }

  /// Whether any dataflow is still running.
  [[nodiscard]] bool has_dataflows() const noexcept { return !dataflows_.empty(); }
  /// The indices of the dataflows still running, in increasing order.
  [[nodiscard]] std::vector<std::size_t> installed_dataflows() const;
  /// The index the next dataflow built by this worker will have (0, 1, ... in build order; the
  /// same on every worker). Read it before `dataflow(...)` to be able to drop that dataflow.
  [[nodiscard]] std::size_t next_dataflow_index() const noexcept { return next_dataflow_; }

  /// Tears down the running dataflow `index` (one that will not finish, say): its operators are
  /// destroyed, with every capability they hold (those simply vanish: nothing reports them,
  /// SEMANTICS.md §4.4), and its channels are forgotten, so records and progress updates that
  /// other workers still send on them are discarded. Afterwards `step()` and new dataflows work
  /// as before. Input handles and probes attached to it stay usable but no longer affect or
  /// observe anything. Every worker of the computation must drop the same dataflow (its other
  /// instances would wait for this one's progress for ever); call it between steps, not from an
  /// operator. Source: the reference's `Worker::drop_dataflow`.
  /// \throws DataflowError naming `index` if no dataflow `index` is installed (never built, already
  /// complete or already dropped), or if it is the dataflow being scheduled.
  void drop_dataflow(std::size_t index);

  /// The "communication" stream's poller, if this worker logs it (local worker 0 of a process
  /// of a cluster, with the stream registered when a dataflow was built); `execute` finishes it
  /// after the connections closed.
  [[nodiscard]] std::shared_ptr<CommunicationLog> communication_log() const noexcept { return comm_log_; }

 private:
  struct Installed {
    std::unique_ptr<progress::Schedulable> root;
    std::vector<std::size_t> channels;
    std::size_t id = 0;  // its operator id in the "timely" log stream
  };
  // Keeps the dataflow and tells the other workers its shape (WorkerState::built_dataflow).
  void install(std::size_t index, std::size_t id, progress::BuiltDataflow built, std::string timestamp) {
    auto& installed =
        dataflows_.emplace(index, Installed{std::move(built.root), std::move(built.channels), id})
            .first->second;
    state_->built_dataflow(index, id, installed.channels, std::move(timestamp));
  }
  // The dataflow's own Operates event, and the logger its schedulings and shutdown go to.
  void log_dataflow(std::size_t id, std::size_t index, const std::string& name);
  // Publishes the step's events (and the communication counters, if this worker logs them).
  void flush_logs();

  std::unique_ptr<WorkerState> state_;
  std::map<std::size_t, Installed> dataflows_;
  std::size_t next_dataflow_ = 0;
  std::vector<std::size_t> active_;
  std::optional<std::size_t> scheduling_;  // the dataflow being scheduled, if any
  std::optional<logging::Logger<logging::TimelyEvent>> logger_;
  std::shared_ptr<CommunicationLog> comm_log_;
};

}  // namespace timely
