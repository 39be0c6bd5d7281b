/// \file
/// The subgraph: `SubgraphBuilder<T>` (what a scope records while it is built),
/// `Subgraph<TOuter, TInner>` (the built scope: it schedules its operators, collects their
/// progress, exchanges it with the other workers through its `Progcaster`, and propagates
/// frontiers with its reachability tracker) and `Dataflow<T>` (a top-level subgraph as the
/// worker schedules it). The user's handle on a scope, `dataflow::Scope<T>`, is in
/// dataflow/scope.hpp.
///
/// A scope's operators are numbered 1..n in creation order; index 0 is the scope boundary. A
/// nested scope presents itself to its parent as one operator whose inputs and outputs are the
/// streams that enter and leave it, with path summaries computed from its inside. A top-level
/// dataflow is a scope inside the `Unit` timestamp whose boundary has no ports.
///
/// Source: Naiad §3.3 (distributed progress tracking) and the reference's `progress::subgraph`
/// (SEMANTICS.md §3.6-§3.9, §5.3). Thread-safety: none; a subgraph belongs to its worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/broadcast.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/location.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/progress/type_name.hpp>
#include <timely/progress/validate.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker_state.hpp>

namespace timely::progress {

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
class Subgraph;

/// What a scope records while the user builds it: operators by index, edges, and the scope's
/// own inputs and outputs (streams entering and leaving it).
template <Timestamp T>
class SubgraphBuilder {
 public:
  /// A builder for the scope at `address` whose operator id (in its parent, or as a dataflow)
  /// is `identifier`. `parent` identifies the enclosing scope's builder (null for a top-level
  /// dataflow).
  SubgraphBuilder(WorkerState& worker, scheduling::Path address, std::string name, std::size_t identifier,
                  const void* parent = nullptr)
      : worker_(worker),
        address_(std::move(address)),
        name_(std::move(name)),
        identifier_(identifier),
        parent_(parent) {}

  [[nodiscard]] WorkerState& worker() noexcept { return worker_; }
  [[nodiscard]] const scheduling::Path& address() const noexcept { return address_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The enclosing scope's builder (null at the top level).
  [[nodiscard]] const void* parent() const noexcept { return parent_; }

  /// Reserves the next operator index (1, 2, ...).
  std::size_t reserve_operator() {
    children_.emplace_back();
    return children_.size();
  }
  /// Installs the operator for a reserved index; `global` is its worker-wide identifier.
  /// \throws BuildError on a bad or reused index.
  void add_operator(std::size_t index, std::size_t global, std::unique_ptr<Operate<T>> op) {
    if (index == 0 || index > children_.size() || children_[index - 1].op)
      throw BuildError("scope '" + name_ + "': operator slot " + std::to_string(index) +
                       " was not reserved or is already filled");
    children_[index - 1] = Slot{std::move(op), global};
  }
  /// Records an edge from an operator output to an operator input (node 0: the boundary).
  void add_edge(Source source, Target target) { edges_.emplace_back(source, target); }
  /// Records that activity on `channel` activates operator `index` of this scope.
  void register_channel(std::size_t channel, std::size_t index) {
    auto path = address_;
    path.push_back(index);
    worker_.register_channel(channel, std::move(path));
    channels_.push_back(channel);
  }

  /// Adds a scope input; returns its index and the counter of records entering through it
  /// (at inner times), which the scope turns into progress updates.
  std::pair<std::size_t, std::shared_ptr<ChangeBatch<T>>> new_input() {
    inputs_.push_back(std::make_shared<ChangeBatch<T>>());
    return {inputs_.size() - 1, inputs_.back()};
  }
  /// Adds a scope output; returns its index.
  std::size_t new_output() { return outputs_++; }

 private:
  template <Timestamp TOuter, Timestamp TInner>
  requires RefinesTo<TInner, TOuter>
  friend class Subgraph;

  struct Slot {
    std::unique_ptr<Operate<T>> op;
    std::size_t global = 0;
  };
  WorkerState& worker_;
  scheduling::Path address_;
  std::string name_;
  std::size_t identifier_;
  const void* parent_;
  std::vector<Slot> children_;  // index i is children_[i - 1]
  std::vector<std::pair<Source, Target>> edges_;
  std::vector<std::size_t> channels_;
  std::vector<std::shared_ptr<ChangeBatch<T>>> inputs_;
  std::size_t outputs_ = 0;
};

/// A built scope with timestamps `TInner` inside a parent with timestamps `TOuter`: schedules
/// its operators in index order and tracks progress among them and with the other workers'
/// instances of the same scope. It is an `Operate<TOuter>` of its parent.
template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
class Subgraph final : public Operate<TOuter> {
 public:
  using R = Refines<TInner, TOuter>;

  /// Builds the scope from what `builder` recorded. Allocates the progcaster's channel.
  /// \throws BuildError if an operator slot was left empty or the graph has a cycle along which
  /// times do not strictly advance.
  explicit Subgraph(SubgraphBuilder<TInner>&& builder);
  Subgraph(const Subgraph&) = delete;
  Subgraph& operator=(const Subgraph&) = delete;
  /// Logs the shutdown of every operator still running and retracts the tracker's counts (a
  /// dropped dataflow), when those streams are logged.
  ~Subgraph() override;

  const std::string& name() const override { return name_; }
  std::size_t inputs() const override { return inputs_.size(); }
  std::size_t outputs() const override { return output_capabilities_.size(); }
  Connectivity<SummaryOf<TOuter>> connectivity() const override { return connectivity_; }
  std::vector<FrontierInterest> notify_me() const override {
    return std::vector<FrontierInterest>(inputs_.size(), FrontierInterest::Always);
  }
  bool local() const override { return false; }
  SharedProgress<TOuter>& progress() override { return progress_; }
  bool schedule() override;

  /// The channel identifiers this scope registered (to forget them when it completes).
  [[nodiscard]] const std::vector<std::size_t>& channels() const noexcept { return channels_; }

 private:
  struct Child {
    std::unique_ptr<Operate<TInner>> op;
    SharedProgress<TInner>* progress = nullptr;
    std::vector<FrontierInterest> notify;
    std::vector<std::vector<Target>> edges;
    bool local = true;
    bool incomplete = true;
    std::size_t global = 0;
  };

  void accept_frontier();
  void harvest_inputs();
  // Applies one globally visible pointstamp update: at the boundary, to the parent-facing
  // counts; elsewhere, to the tracker (SEMANTICS.md §3.6, step 4).
  void route_pointstamp(const Pointstamp<TInner>& key, std::int64_t diff);
  void propagate_pointstamps();
  void run_child(std::size_t index);
  void extract_progress(std::size_t index);
  void send_progress();
  void log_summary(std::size_t global, const Connectivity<SummaryOf<TInner>>& connectivity);

  WorkerState& worker_;
  scheduling::Path address_;
  std::string name_;
  std::size_t identifier_;
  std::vector<Child> children_;  // children_[0] is the scope boundary
  Tracker<TInner> tracker_;
  ChangeBatch<Pointstamp<TInner>> local_pointstamp_;
  ChangeBatch<Pointstamp<TInner>> final_pointstamp_;
  // Engaged at the end of construction, so that a scope that fails to build allocates no channel.
  std::optional<Progcaster<TInner>> progcaster_;
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> temp_active_;
  std::vector<std::size_t> touched_;
  std::size_t incomplete_count_ = 0;
  std::vector<std::size_t> channels_;
  std::optional<logging::Logger<logging::TimelyEvent>> logger_;
  std::optional<logging::Logger<logging::FrontierEvent<TInner>>> frontier_logger_;
  // A frontier event to fill, its vector's capacity reused (Logger::recycled).
  logging::FrontierEvent<TInner> recycled_frontier_event(std::size_t id, std::size_t port, bool is_input) {
    auto event = frontier_logger_->recycled();
    event.id = id;
    event.port = port;
    event.is_input = is_input;
    event.updates.clear();
    return event;
  }
  std::optional<logging::Logger<logging::OperatesSummaryEvent<SummaryOf<TInner>>>> summary_logger_;
  // The parent-facing side.
  std::vector<std::shared_ptr<ChangeBatch<TInner>>> inputs_;
  std::vector<MutableAntichain<TOuter>> output_capabilities_;
  Connectivity<SummaryOf<TOuter>> connectivity_;
  SharedProgress<TOuter> progress_;
  // Operator names for errors; the checks run only when `validate_progress` (validate.hpp).
  ProgressValidator<TInner> validator_;
};

/// Adapts a top-level scope to the worker's `Schedulable`.
template <Timestamp T>
class Dataflow final : public Schedulable {
 public:
  explicit Dataflow(SubgraphBuilder<T>&& builder) : subgraph_(std::move(builder)) {}
  bool schedule() override { return subgraph_.schedule(); }
  [[nodiscard]] const std::vector<std::size_t>& channels() const noexcept { return subgraph_.channels(); }

 private:
  Subgraph<Unit, T> subgraph_;
};

/// A built top-level dataflow, as the worker keeps it: its root and the channels it allocated.
struct BuiltDataflow {
  std::unique_ptr<Schedulable> root;
  std::vector<std::size_t> channels;
};

/// Builds the top-level dataflow `builder` recorded (`Dataflow<T>`).
/// \throws BuildError as `Subgraph`'s constructor does.
template <Timestamp T>
BuiltDataflow build_dataflow(SubgraphBuilder<T>&& builder) {
  auto dataflow = std::make_unique<Dataflow<T>>(std::move(builder));
  auto channels = dataflow->channels();
  return BuiltDataflow{std::move(dataflow), std::move(channels)};
}

/// Builds the nested scope `builder` recorded as an operator of its parent
/// (`Subgraph<TOuter, TInner>`). \throws BuildError as `Subgraph`'s constructor does.
template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter> std::unique_ptr<Operate<TOuter>> build_subgraph(
    SubgraphBuilder<TInner>&& builder) {
  return std::make_unique<Subgraph<TOuter, TInner>>(std::move(builder));
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter> Subgraph<TOuter, TInner>::Subgraph(SubgraphBuilder<TInner>&& builder)
    : worker_(builder.worker_),
      address_(builder.address_),
      name_(std::move(builder.name_)),
      identifier_(builder.identifier_),
      channels_(std::move(builder.channels_)),
      inputs_(std::move(builder.inputs_)),
      output_capabilities_(builder.outputs_),
      progress_(inputs_.size(), builder.outputs_),
      validator_(name_, address_) {
  const std::size_t n = builder.children_.size() + 1;
  const std::size_t scope_inputs = inputs_.size();
  const std::size_t scope_outputs = output_capabilities_.size();
  children_.resize(n);
  children_[0].edges.resize(scope_inputs);
  children_[0].incomplete = false;
  Builder<TInner> graph;
  graph.add_node(0, scope_outputs, scope_inputs, {});
  auto& registry = worker_.log_registry();
  logger_ = registry.template get<logging::TimelyEvent>("timely");
  frontier_logger_ =
      registry.template get<logging::FrontierEvent<TInner>>("timely/frontier/" + type_name<TInner>());
  summary_logger_ = registry.template get<logging::OperatesSummaryEvent<SummaryOf<TInner>>>(
      "timely/summary/" + type_name<SummaryOf<TInner>>());
  for (std::size_t i = 1; i < n; ++i) {
    auto& op = builder.children_[i - 1].op;
    if (!op)
      throw BuildError("scope '" + name_ + "': operator slot " + std::to_string(i) +
                       " was reserved but never filled (a feedback edge never connected?)");
    auto& child = children_[i];
    child.progress = &op->progress();
    child.notify = op->notify_me();
    child.local = op->local();
    child.edges.resize(op->outputs());
    child.global = builder.children_[i - 1].global;
    graph.add_node(i, op->inputs(), op->outputs(), op->connectivity());
    validator_.add_operator(i, op->name(),
                            validate_progress ? op->connectivity() : Connectivity<SummaryOf<TInner>>{});
    if (logger_) {
      auto path = address_;
      path.push_back(i);
      logger_->log(logging::OperatesEvent{child.global, std::move(path), op->name()});
    }
    if (summary_logger_) log_summary(child.global, op->connectivity());
    child.op = std::move(op);
  }
  for (const auto& [source, target] : builder.edges_) {
    graph.add_edge(source, target);
    children_[source.node].edges[source.port].push_back(target);
  }
  if (auto cycle = graph.non_advancing_cycle())
    throw BuildError("scope '" + name_ + "': " + *cycle +
                     "; a loop must advance timestamps (use a feedback edge with a non-zero summary)");
  auto [tracker, summary] = graph.build();
  tracker_ = std::move(tracker);
  if (auto reachability =
          registry.template get<logging::TrackerEvent<TInner>>("timely/reachability/" + type_name<TInner>()))
    tracker_.set_logger(identifier_, std::move(*reachability));
  connectivity_.assign(scope_inputs, PortConnectivity<SummaryOf<TOuter>>{});
  for (std::size_t i = 0; i < scope_inputs; ++i)
    for (const auto& [j, summaries] : summary[i])
      for (const auto& s : summaries) connectivity_[i].insert(j, R::summarize(s));

  // Initial capabilities are common knowledge (every worker seeds peers() per output at the
  // minimum): they go straight into the tracker and are never exchanged.
  for (std::size_t i = 1; i < n; ++i) {
    auto& internals = children_[i].progress->internals;
    for (std::size_t o = 0; o < internals.size(); ++o) {
      std::optional<logging::FrontierEvent<TInner>> held;
      if (frontier_logger_ && children_[i].local)
        held.emplace(logging::FrontierEvent<TInner>{children_[i].global, o, false, {}});
      internals[o].drain([&](const TInner& t, std::int64_t d) {
        tracker_.update_source(Source{i, o}, t, d);
        if constexpr (validate_progress) validator_.fold_source(Source{i, o}, t, d);
        // Every worker's instance holds one of these (the count is theirs together).
        if (held) held->updates.emplace_back(t, d / static_cast<std::int64_t>(worker_.peers()));
      });
      if (held && !held->updates.empty()) frontier_logger_->log(std::move(*held));
    }
  }
  // What the contents imply at the scope outputs are the scope's own initial capabilities.
  tracker_.propagate_all();
  for (std::size_t j = 0; j < scope_outputs; ++j)
    tracker_.output_changes(j).drain([&](const TInner& t, std::int64_t d) {
      output_capabilities_[j].update(
          R::to_outer(t), d, [&](const TOuter& o, std::int64_t c) { progress_.internals[j].update(o, c); });
    });

  progcaster_.emplace(worker_, address_, identifier_);
  channels_.push_back(progcaster_->channel());

  incomplete_count_ = n - 1;
  worker_.activations()->activate(address_);
  // Every operator runs at least once.
  for (std::size_t i = 1; i < n; ++i) {
    auto path = address_;
    path.push_back(i);
    worker_.activations()->activate(path);
  }
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter> Subgraph<TOuter, TInner>::~Subgraph() {
  if (logger_)
    for (std::size_t i = 1; i < children_.size(); ++i)
      if (children_[i].op) logger_->log(logging::ShutdownEvent{children_[i].global});
  tracker_.log_retractions();
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::log_summary(std::size_t global,
                                           const Connectivity<SummaryOf<TInner>>& connectivity) {
  logging::OperatesSummaryEvent<SummaryOf<TInner>> event{global, {}};
  event.summary.resize(connectivity.size());
  for (std::size_t i = 0; i < connectivity.size(); ++i)
    for (const auto& [output, summaries] : connectivity[i])
      event.summary[i].emplace_back(output,
                                    std::vector<SummaryOf<TInner>>(summaries.begin(), summaries.end()));
  summary_logger_->log(std::move(event));
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
bool Subgraph<TOuter, TInner>::schedule() {
  accept_frontier();
  harvest_inputs();
  // Receive every available progress batch, our own included: a worker's updates reach its
  // tracker only through the broadcast, so every worker sees prefixes of the same sequences.
  // Each update is routed as it is read (no staging batch): the tracker buffers and merges
  // updates per location itself, and the boundary counts are change batches.
  progcaster_->recv([&](const Pointstamp<TInner>& key, std::int64_t diff) { route_pointstamp(key, diff); });
  propagate_pointstamps();

  worker_.activations()->for_extensions(address_, [&](std::size_t i) { temp_active_.push(i); });
  while (!temp_active_.empty()) {
    const std::size_t index = temp_active_.top();
    temp_active_.pop();
    while (!temp_active_.empty() && temp_active_.top() == index) temp_active_.pop();
    if (index > 0 && index < children_.size()) run_child(index);
  }

  send_progress();
  // Nested scopes report straight into final_pointstamp_: apply their reports next time.
  if (!final_pointstamp_.empty()) worker_.activations()->activate(address_);
  return incomplete_count_ > 0 || tracker_.tracking_anything() || !local_pointstamp_.empty() ||
         !final_pointstamp_.empty();
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::accept_frontier() {
  // The parent's frontier at a scope input is a pointstamp at that input seen from inside. It
  // is already a global view, so it goes straight into the tracker.
  for (std::size_t i = 0; i < progress_.frontiers.size(); ++i)
    progress_.frontiers[i].drain([&](const TOuter& t, std::int64_t d) {
      tracker_.update_source(Source{0, i}, R::to_inner(t), d);
    });
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::harvest_inputs() {
  // Records that entered: +n at every consumer inside, -n at the scope input (acknowledged to
  // the parent once the whole batch is globally visible).
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    inputs_[i]->drain([&](const TInner& t, std::int64_t n) {
      for (const auto& target : children_[0].edges[i])
        local_pointstamp_.update(Pointstamp<TInner>{Location::of(target), t}, n);
      local_pointstamp_.update(Pointstamp<TInner>{Location::of(Source{0, i}), t}, -n);
    });
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::route_pointstamp(const Pointstamp<TInner>& key, std::int64_t diff) {
  const auto& [loc, time] = key;
  if (loc.node == 0) {
    // Updates come from other workers too: a port this scope lacks (a worker that built another
    // dataflow) must not index past the end.
    if (loc.port >= (loc.is_source ? progress_.consumeds.size() : progress_.produceds.size()))
      throw std::out_of_range("reachability: no port " + std::to_string(loc.port) + " at the boundary of " +
                              name_);
    if (loc.is_source)
      progress_.consumeds[loc.port].update(R::to_outer(time), -diff);  // records taken in
    else
      progress_.produceds[loc.port].update(R::to_outer(time), diff);  // records sent out
  } else if (loc.is_source) {
    tracker_.update_source(Source{loc.node, loc.port}, time, diff);
    if constexpr (validate_progress) validator_.fold_source(Source{loc.node, loc.port}, time, diff);
  } else {
    tracker_.update_target(Target{loc.node, loc.port}, time, diff);
  }
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::propagate_pointstamps() {
  final_pointstamp_.drain(
      [&](const Pointstamp<TInner>& key, std::int64_t diff) { route_pointstamp(key, diff); });
  // Everything received this scheduling is folded in: no output may hold fewer than nothing.
  if constexpr (validate_progress) validator_.check_counts();
  tracker_.propagate_all();

  touched_.clear();
  std::size_t last_activated = 0;  // node 0 is never activated here
  // Net changes per input, none cancelling (see Tracker::pushed_changes): no need to compact.
  std::optional<logging::FrontierEvent<TInner>> event;  // the (node, port) being logged
  tracker_.pushed_changes().drain_raw([&](const auto& key, std::int64_t diff) {
    const auto& [node, port, time] = key;
    if (node == 0) return;  // a scope output: reported through output_changes below
    auto& child = children_[node];
    if (frontier_logger_) {
      if (event && (event->id != child.global || event->port != port)) {
        frontier_logger_->log(std::move(*event));
        event.reset();
      }
      if (!event) event.emplace(recycled_frontier_event(child.global, port, true));
      event->updates.emplace_back(time, diff);
    }
    if (!child.op)
      throw ProgressError("timely: progress error in scope '" + name_ +
                          "': " + validator_.describe_operator(node) + " was shut down, but its input " +
                          std::to_string(port) + " sees a frontier change at time " + describe(time) +
                          " by " + std::to_string(diff) +
                          " (some operator reported progress it did not hold)");
    auto& frontier = child.progress->frontiers[port];
    // Usually a handful of entries (an operator that never reads them keeps their sum): keep it
    // compact as we go rather than re-sorting a long tail later.
    if (frontier.raw_size() <= 8)
      frontier.update_sorted(time, diff);
    else
      frontier.update(time, diff);
    const auto interest = child.notify[port];
    if (interest == FrontierInterest::Always ||
        (interest == FrontierInterest::IfCapability && tracker_.capability_count(node) > 0)) {
      if (node != last_activated) temp_active_.push(node);  // changes come grouped by node
      last_activated = node;
    }
    if (touched_.empty() || touched_.back() != node) {
      touched_.push_back(node);
      if (logger_) logger_->log(logging::PushProgressEvent{child.global});
    }
  });
  if (event) frontier_logger_->log(std::move(*event));
  // Operators whose inputs are complete and that hold nothing get a chance to shut down.
  for (auto node : touched_)
    if (tracker_.inputs_complete(node) && tracker_.capability_count(node) == 0) temp_active_.push(node);

  // What the contents imply at each scope output, filtered to discrete changes at outer times.
  for (std::size_t j = 0; j < output_capabilities_.size(); ++j)
    tracker_.output_changes(j).drain([&](const TInner& t, std::int64_t d) {
      output_capabilities_[j].update(
          R::to_outer(t), d, [&](const TOuter& o, std::int64_t c) { progress_.internals[j].update(o, c); });
    });
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::run_child(std::size_t index) {
  auto& child = children_[index];
  if (!child.op) return;
  if (logger_) logger_->log(logging::ScheduleEvent{child.global, true});
  const bool incomplete = child.op->schedule();
  if (logger_) logger_->log(logging::ScheduleEvent{child.global, false});
  if (incomplete != child.incomplete) {
    if (incomplete)
      ++incomplete_count_;
    else
      --incomplete_count_;
    child.incomplete = incomplete;
  }
  if constexpr (validate_progress)
    validator_.check_batch(
        index, *child.progress,
        [&](std::size_t output) -> const Antichain<TInner>& {
          return tracker_.implications(Location::of(Source{index, output}));
        },
        local_pointstamp_, final_pointstamp_);
  extract_progress(index);
  if (!incomplete && tracker_.inputs_complete(index) && tracker_.capability_count(index) == 0) {
    // Nothing can reach this operator any more and it holds nothing: drop it.
    child.op.reset();
    child.progress = nullptr;
    if (logger_) logger_->log(logging::ShutdownEvent{child.global});
  }
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::extract_progress(std::size_t index) {
  auto& child = children_[index];
  auto& p = *child.progress;
  // Ordinary operators report their own worker's changes (exchanged); nested scopes report
  // global aggregates (applied here only).
  auto& batch = child.local ? local_pointstamp_ : final_pointstamp_;
  // Raw drains: `batch` is a change batch itself, so compacting here would be wasted work.
  for (std::size_t i = 0; i < p.consumeds.size(); ++i)
    p.consumeds[i].drain_raw([&](const TInner& t, std::int64_t n) {
      batch.update(Pointstamp<TInner>{Location::of(Target{index, i}), t}, -n);
    });
  for (std::size_t o = 0; o < p.internals.size(); ++o) {
    if (frontier_logger_ && child.local && !p.internals[o].empty()) {
      auto event = recycled_frontier_event(child.global, o, false);
      for (const auto& [t, d] : p.internals[o].view()) event.updates.emplace_back(t, d);
      if (!event.updates.empty()) frontier_logger_->log(std::move(event));
    }
    p.internals[o].drain_raw([&](const TInner& t, std::int64_t d) {
      batch.update(Pointstamp<TInner>{Location::of(Source{index, o}), t}, d);
    });
  }
  for (std::size_t o = 0; o < p.produceds.size(); ++o)
    p.produceds[o].drain([&](const TInner& t, std::int64_t n) {
      for (const auto& target : child.edges[o]) {
        batch.update(Pointstamp<TInner>{Location::of(target), t}, n);
        // Consumers later in this pass run in this same pass.
        if (target.node > index) temp_active_.push(target.node);
      }
    });
}

template <Timestamp TOuter, Timestamp TInner>
requires RefinesTo<TInner, TOuter>
void Subgraph<TOuter, TInner>::send_progress() {
  if (local_pointstamp_.empty()) return;
  bool send = worker_.config().progress_mode == ProgressMode::Eager;
  if (!send) {
    // Demand mode: hold back until some update could advance a frontier somewhere, or concerns
    // the scope boundary (the parent's accounting waits on those). Holding back only makes
    // others more conservative; batches are merged, never split.
    for (const auto& [key, diff] : local_pointstamp_.view()) {
      if (key.first.node == 0 || (diff < 0 && tracker_.is_global(key.first, key.second))) {
        send = true;
        break;
      }
    }
  }
  if (!send) return;
  progcaster_->send(local_pointstamp_);
}

// Built once in the library (src/core/instantiations.cpp) for the timestamps most dataflows use.
// A user's file reaches the subgraph, its tracker, progress broadcast and validator only
// through these two functions, so it neither instantiates nor optimizes them again.
extern template BuiltDataflow build_dataflow<std::uint64_t>(SubgraphBuilder<std::uint64_t>&&);
extern template std::unique_ptr<Operate<std::uint64_t>>
build_subgraph<std::uint64_t, Product<std::uint64_t, std::uint64_t>>(
    SubgraphBuilder<Product<std::uint64_t, std::uint64_t>>&&);

}  // namespace timely::progress
