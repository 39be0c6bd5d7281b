/// \file
/// Reachability inside one scope: the `Builder` that records the graph (operators with their
/// internal path summaries, and the edges between ports) and the `Tracker` that turns pointstamp
/// counts into frontiers at every location. The locations themselves are in location.hpp.
///
/// Node 0 of a scope is its boundary ("child zero"): its outputs are the scope's inputs seen from
/// inside and its inputs are the scope's outputs. Operators are nodes 1..n.
///
/// Source: Naiad §3 (progress tracking, could-result-in) and the reference's
/// `progress::reachability` (SEMANTICS.md §3.1-§3.5). Thread-safety: none; one per worker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <timely/error.hpp>
#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/connectivity.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/location.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::progress {

template <Timestamp T>
class Tracker;

/// Records a scope's nodes and edges, checks for non-advancing cycles, and builds a `Tracker`.
///
/// \tparam T the scope's timestamp type.
template <Timestamp T>
class Builder {
 public:
  using Summary = SummaryOf<T>;

  /// Declares node `index` with its shape and connectivity (per input, the outputs it reaches).
  /// Node 0 is the scope boundary: `inputs` = scope outputs, `outputs` = scope inputs, and its
  /// connectivity is ignored. \throws timely::Error if the connectivity's shape is wrong.
  void add_node(std::size_t index, std::size_t inputs, std::size_t outputs, Connectivity<Summary> summary) {
    if (index == 0) summary.assign(inputs, PortConnectivity<Summary>{});
    if (summary.size() != inputs)
      throw Error("reachability: node " + std::to_string(index) + " declares " + std::to_string(inputs) +
                  " inputs but its connectivity has " + std::to_string(summary.size()) + " rows");
    for (std::size_t i = 0; i < inputs; ++i)
      if (summary[i].port_bound() > outputs)
        throw Error("reachability: node " + std::to_string(index) + " connects input " + std::to_string(i) +
                    " to output " + std::to_string(summary[i].port_bound() - 1) + ", but it has " +
                    std::to_string(outputs) + " outputs");
    if (nodes_.size() <= index) nodes_.resize(index + 1);
    nodes_[index] = Node{inputs, outputs, std::move(summary), {}};
    nodes_[index].edges.resize(outputs);
  }

  /// Records an edge from `source` to `target`; both nodes must have been added.
  /// \throws timely::Error for a port that does not exist.
  void add_edge(Source source, Target target) {
    check_port(source.node, source.port, true);
    check_port(target.node, target.port, false);
    nodes_[source.node].edges[source.port].push_back(target);
  }

  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }

  /// A description of a cycle along which times do not strictly advance, if there is one.
  /// Edges and internal paths whose summaries include one `<=` the identity count as
  /// non-advancing (Kahn's algorithm over locations, as in the reference's `is_acyclic`).
  [[nodiscard]] std::optional<std::string> non_advancing_cycle() const;

  /// Builds the tracker and the scope's own summary (per scope input, the scope outputs it
  /// reaches). Linear in locations, edges and connections (with one scope-output summary per
  /// connected pair), not in their product.
  /// \throws timely::Error if a node index in `1..node_count()` was never added.
  [[nodiscard]] std::pair<Tracker<T>, Connectivity<Summary>> build() const;

 private:
  friend class Tracker<T>;
  struct Node {
    std::size_t inputs = 0;
    std::size_t outputs = 0;
    Connectivity<Summary> summary;
    std::vector<std::vector<Target>> edges;  // per output
  };

  void check_port(std::size_t node, std::size_t port, bool source) const {
    if (node >= nodes_.size() || port >= (source ? nodes_[node].outputs : nodes_[node].inputs))
      throw Error(std::string("reachability: edge names a missing ") + (source ? "output" : "input") +
                  " port " + std::to_string(port) + " of node " + std::to_string(node));
  }

  std::vector<Node> nodes_;
};

namespace detail {

/// The tracker's worklist: pending implication changes `(time, location, diff)`, popped least
/// `(time, location)` first with the diffs of equal keys summed (zero sums are skipped).
///
/// Progress propagation usually holds a handful of entries, so they are kept in a vector sorted
/// by decreasing key (the least at the back): a push merges into an existing entry with the same
/// key or inserts in place, and a pop is a `pop_back`. Past `kSortedLimit` entries it switches to
/// a binary heap (merging equal keys when popping), and back to the sorted vector once empty.
/// Either way, `pop` yields exactly what a binary heap that merges equal keys on pop yields.
template <class T>
class Worklist {
 public:
  struct Entry {
    T time;
    std::uint32_t loc = 0;
    std::int64_t diff = 0;
  };
  static constexpr std::size_t kSortedLimit = 64;

  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return items_.size(); }
  /// Whether the worklist is currently a heap rather than a sorted vector (for tests).
  [[nodiscard]] bool heap_mode() const noexcept { return heap_; }

  /// Adds `diff` at `(time, loc)`.
  [[gnu::always_inline]] inline void push(const T& time, std::uint32_t loc, std::int64_t diff) {
    if (diff == 0) return;
    if (heap_ || items_.size() >= kSortedLimit) return push_heap(time, loc, diff);
    // Sorted by decreasing key: find the first position from the back whose key is not less.
    std::size_t i = items_.size();
    while (i > 0 && key_less(items_[i - 1], time, loc)) --i;
    if (i > 0 && items_[i - 1].loc == loc && items_[i - 1].time == time) {
      if ((items_[i - 1].diff += diff) == 0)
        items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i - 1));
      return;
    }
    // Append, then bubble into place: the tail is short (usually empty: a new least key), so
    // this beats vector::insert and a memmove call.
    items_.push_back(Entry{time, loc, diff});
    for (std::size_t j = items_.size() - 1; j > i; --j) std::swap(items_[j], items_[j - 1]);
  }

  /// Removes the least key with a non-zero summed diff into `out`; false when none is left.
  bool pop(Entry& out) {
    if (!heap_) {
      if (items_.empty()) return false;
      out = std::move(items_.back());  // sorted entries are merged and non-zero
      items_.pop_back();
      return true;
    }
    while (!items_.empty()) {
      std::pop_heap(items_.begin(), items_.end(), After{});
      out = std::move(items_.back());
      items_.pop_back();
      while (!items_.empty() && items_.front().loc == out.loc && items_.front().time == out.time) {
        std::pop_heap(items_.begin(), items_.end(), After{});
        out.diff += items_.back().diff;
        items_.pop_back();
      }
      if (items_.empty()) heap_ = false;
      if (out.diff != 0) return true;
    }
    heap_ = false;
    return false;
  }

 private:
  // Past the sorted limit (or already a heap): a binary heap until the worklist empties.
  [[gnu::noinline]] void push_heap(const T& time, std::uint32_t loc, std::int64_t diff) {
    if (!heap_) {
      std::make_heap(items_.begin(), items_.end(), After{});
      heap_ = true;
    }
    items_.push_back(Entry{time, loc, diff});
    std::push_heap(items_.begin(), items_.end(), After{});
  }

  // Whether entry `e` orders strictly before key `(time, loc)`.
  static bool key_less(const Entry& e, const T& time, std::uint32_t loc) {
    if (e.time < time) return true;
    if (time < e.time) return false;
    return e.loc < loc;
  }
  struct After {
    bool operator()(const Entry& a, const Entry& b) const { return key_less(b, a.time, a.loc); }
  };

  std::vector<Entry> items_;
  bool heap_ = false;
};

}  // namespace detail

/// Maintains pointstamp counts at every location of a scope and propagates their implications
/// (Naiad's could-result-in) in time order, yielding frontier changes at every operator input
/// and the scope's internal capabilities at each scope output.
///
/// Updates are buffered by `update_source`/`update_target` and take effect in `propagate_all`.
///
/// Layout: locations are numbered densely (per node, its targets then its sources) and the
/// graph is stored flat: for a target, the operator's internal `(source, summary)` links; for a
/// source, the targets its edges reach. The worklist orders equal times by this dense index
/// rather than by `Location`; any fixed order of locations yields the same frontiers.
///
/// `pushed_changes()` receives, per target, the net change of its frontier over one
/// `propagate_all` (its frontier before the call's first update there, against after), which is
/// what compacting every intermediate change would give.
template <Timestamp T>
class Tracker {
 public:
  using Summary = SummaryOf<T>;

  /// Buffers `diff` capabilities at `(source, time)`.
  /// \throws std::out_of_range for a port that does not exist.
  void update_source(Source source, const T& time, std::int64_t diff) {
    if (diff != 0) buffer(id_of(Location::of(source)), time, diff);
  }
  /// Buffers `diff` in-flight records at `(target, time)`.
  /// \throws std::out_of_range for a port that does not exist.
  void update_target(Target target, const T& time, std::int64_t diff) {
    if (diff != 0) buffer(id_of(Location::of(target)), time, diff);
  }

  /// Applies all buffered updates and propagates their implications. Afterwards
  /// `pushed_changes()` holds frontier changes at operator inputs and `output_changes(j)` the
  /// changes to what the scope's contents imply at scope output `j`.
  void propagate_all();

  /// Frontier changes `((node, port, time), diff)` at targets since the last drain. Each
  /// `propagate_all` appends, per target whose frontier moved, the difference between its old and
  /// new frontier (never an entry that cancels within the call), so a consumer that drains after
  /// every call may read it with `drain_raw`.
  [[nodiscard]] ChangeBatch<std::tuple<std::size_t, std::size_t, T>>& pushed_changes() noexcept {
    return pushed_changes_;
  }
  /// Changes of the implied capabilities at scope output `output` (times already summarised).
  [[nodiscard]] ChangeBatch<T>& output_changes(std::size_t output) { return output_changes_[output]; }

  /// The implications (frontier) at a location: the minimal times that could still reach it.
  [[nodiscard]] const Antichain<T>& implications(Location loc) const {
    return ports_[id_of(loc)].implications.frontier();
  }
  /// The pointstamp frontier at a location (its own positive counts only).
  [[nodiscard]] const Antichain<T>& pointstamps(Location loc) const {
    return ports_[id_of(loc)].pointstamps.frontier();
  }

  /// Whether removing the pointstamp `(loc, time)` could change the frontier there: no implied
  /// time is strictly less, and `time`'s implication count is at most one. Demand-driven progress
  /// uses it to decide when to broadcast.
  [[nodiscard]] bool is_global(Location loc, const T& time) {
    auto& p = ports_[id_of(loc)];
    if (p.implications.less_than(time)) return false;
    return p.implications.count_for(time) <= 1;
  }

  /// Whether anything is tracked: buffered updates, or any positive pointstamp.
  [[nodiscard]] bool tracking_anything() {
    if (total_counts_ > 0) return true;
    for (auto id : dirty_)
      if (!ports_[id].pending.empty()) return true;
    return false;
  }

  /// Number of capability frontier elements held at node `node`'s outputs.
  [[nodiscard]] std::int64_t capability_count(std::size_t node) const { return cap_counts_[node]; }
  /// Whether every input of `node` has an empty implication frontier.
  [[nodiscard]] bool inputs_complete(std::size_t node) const {
    for (auto id = tbase_[node]; id < sbase_[node]; ++id)
      if (!ports_[id].implications.empty()) return false;
    return true;
  }
  [[nodiscard]] std::size_t node_count() const noexcept { return cap_counts_.size(); }

  /// Logs the updates each `propagate_all` applies to `logger`, as the tracker of scope `id`
  /// ("timely/reachability/<T>": one event for sources and one for targets, when non-empty).
  void set_logger(std::size_t id, logging::Logger<logging::TrackerEvent<T>> logger) {
    tracker_id_ = id;
    logger_.emplace(std::move(logger));
  }
  /// Logs the retraction of every pointstamp still counted, so that the stream's updates sum to
  /// zero for a tracker torn down with live state (its dataflow dropped). No-op without a logger.
  void log_retractions() {
    if (!logger_) return;
    logging::TrackerEvent<T> sources{true, tracker_id_, {}}, targets{false, tracker_id_, {}};
    for (std::size_t id = 0; id < ports_.size(); ++id) {
      const Location loc = locations_[id];
      auto& out = loc.is_source ? sources.updates : targets.updates;
      for (const auto& [time, count] : ports_[id].pointstamps.counts())
        if (count != 0) out.emplace_back(loc.node, loc.port, time, -count);
      for (const auto& [time, diff] : ports_[id].pending.view())
        if (diff != 0) out.emplace_back(loc.node, loc.port, time, -diff);
    }
    if (!sources.updates.empty()) logger_->log(std::move(sources));
    if (!targets.updates.empty()) logger_->log(std::move(targets));
  }
  [[nodiscard]] std::size_t scope_outputs() const noexcept { return output_changes_.size(); }

 private:
  friend class Builder<T>;

  struct PortInfo {
    MutableAntichain<T> pointstamps;
    MutableAntichain<T> implications;
    // Updates buffered since the last propagate_all.
    ChangeBatch<T> pending;
    // Targets: the implications before the current propagate_all first touched them.
    Antichain<T> before;
    bool touched = false;
    // (scope output, summary) pairs that project this location onto scope outputs.
    std::vector<std::pair<std::size_t, Summary>> output_summaries;
  };
  // One link of the flattened graph: the location reached and, from a target, the summary.
  struct Link {
    std::uint32_t to = 0;
    Summary summary{};
  };

  // The dense index of `loc`. \throws std::out_of_range for a port that does not exist.
  [[nodiscard]] std::uint32_t id_of(Location loc) const {
    if (loc.node >= cap_counts_.size())
      throw std::out_of_range("reachability: no node " + std::to_string(loc.node));
    const std::uint32_t base = loc.is_source ? sbase_[loc.node] : tbase_[loc.node];
    const std::uint32_t end = loc.is_source ? tbase_[loc.node + 1] : sbase_[loc.node];
    if (loc.port >= end - base)
      throw std::out_of_range("reachability: no port " + std::to_string(loc.port) + " at node " +
                              std::to_string(loc.node));
    return base + static_cast<std::uint32_t>(loc.port);
  }

  void buffer(std::uint32_t id, const T& time, std::int64_t diff) {
    auto& p = ports_[id];
    if (p.pending.raw_size() == 0) dirty_.push_back(id);
    p.pending.update(time, diff);
  }

  std::vector<PortInfo> ports_;            // by dense location index
  std::vector<Location> locations_;        // dense index -> location
  std::vector<std::uint32_t> tbase_;       // per node (and one past the last): first target index
  std::vector<std::uint32_t> sbase_;       // per node: first source index
  std::vector<std::uint32_t> link_start_;  // per location (and one past): its range in links_
  std::vector<Link> links_;
  std::vector<std::uint32_t> dirty_;    // locations with buffered updates
  std::vector<std::uint32_t> touched_;  // targets whose implications propagate_all updated
  detail::Worklist<T> worklist_;
  ChangeBatch<std::tuple<std::size_t, std::size_t, T>> pushed_changes_;
  std::vector<ChangeBatch<T>> output_changes_;
  std::vector<std::int64_t> cap_counts_;
  std::int64_t total_counts_ = 0;
  std::optional<logging::Logger<logging::TrackerEvent<T>>> logger_;
  std::size_t tracker_id_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Builder

template <Timestamp T>
std::optional<std::string> Builder<T>::non_advancing_cycle() const {
  // Index locations densely: targets then sources of each node.
  std::vector<std::size_t> tbase(nodes_.size() + 1), sbase(nodes_.size() + 1);
  std::size_t count = 0;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    tbase[n] = count;
    count += nodes_[n].inputs;
    sbase[n] = count;
    count += nodes_[n].outputs;
  }
  std::vector<std::vector<std::size_t>> out(count);
  std::vector<std::size_t> in_degree(count, 0);
  const Summary identity{};
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const auto& node = nodes_[n];
    if (n != 0) {
      for (std::size_t i = 0; i < node.inputs; ++i)
        for (const auto& [o, summaries] : node.summary[i])
          for (const auto& s : summaries)
            if (timely::less_equal(s, identity)) {
              out[tbase[n] + i].push_back(sbase[n] + o);
              ++in_degree[sbase[n] + o];
              break;
            }
    }
    for (std::size_t o = 0; o < node.outputs; ++o)
      for (const auto& t : node.edges[o]) {
        out[sbase[n] + o].push_back(tbase[t.node] + t.port);
        ++in_degree[tbase[t.node] + t.port];
      }
  }
  std::vector<std::size_t> ready;
  for (std::size_t l = 0; l < count; ++l)
    if (in_degree[l] == 0) ready.push_back(l);
  std::size_t removed = 0;
  while (!ready.empty()) {
    const auto l = ready.back();
    ready.pop_back();
    ++removed;
    for (auto m : out[l])
      if (--in_degree[m] == 0) ready.push_back(m);
  }
  if (removed == count) return std::nullopt;
  std::string nodes;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    bool stuck = false;
    for (std::size_t l = tbase[n]; l < tbase[n] + nodes_[n].inputs + nodes_[n].outputs; ++l)
      stuck = stuck || in_degree[l] > 0;
    if (stuck) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
  }
  return "cycle without timestamp increment through operators " + nodes;
}

template <Timestamp T>
auto Builder<T>::build() const -> std::pair<Tracker<T>, Connectivity<Summary>> {
  const std::size_t n_nodes = std::max<std::size_t>(nodes_.size(), 1);
  std::vector<Node> nodes = nodes_;
  nodes.resize(n_nodes);
  const std::size_t scope_outputs = nodes[0].inputs;

  // Reverse edges: for every target, the sources feeding it.
  std::vector<std::vector<std::vector<Source>>> upstream(n_nodes);
  for (std::size_t n = 0; n < n_nodes; ++n) upstream[n].resize(nodes[n].inputs);
  for (std::size_t n = 0; n < n_nodes; ++n)
    for (std::size_t o = 0; o < nodes[n].outputs; ++o)
      for (const auto& t : nodes[n].edges[o]) upstream[t.node][t.port].push_back(Source{n, o});

  // Per node and output, the inputs that reach it: the backward search steps through these.
  std::vector<std::vector<std::vector<std::pair<std::size_t, Summary>>>> reverse(n_nodes);
  for (std::size_t n = 1; n < n_nodes; ++n) {
    reverse[n].resize(nodes[n].outputs);
    for (std::size_t i = 0; i < nodes[n].inputs; ++i)
      for (const auto& [o, summaries] : nodes[n].summary[i])
        for (const auto& s : summaries) reverse[n][o].emplace_back(i, s);
  }

  // tsum/ssum[node][port]: per location, the scope outputs it reaches with their summaries,
  // found by a backward search from each scope output in turn (the reference's
  // summarize_outputs). Searching one output at a time appends to each map in key order and
  // touches only the locations that reach that output.
  std::vector<std::vector<PortConnectivity<Summary>>> tsum(n_nodes), ssum(n_nodes);
  for (std::size_t n = 0; n < n_nodes; ++n) {
    tsum[n].resize(nodes[n].inputs);
    ssum[n].resize(nodes[n].outputs);
  }
  struct Item {
    Location loc;
    Summary summary;
  };
  std::vector<Item> work;
  for (std::size_t j = 0; j < scope_outputs; ++j) {
    work.push_back({Location::of(Target{0, j}), Summary{}});
    while (!work.empty()) {
      Item item = std::move(work.back());
      work.pop_back();
      auto& slot =
          item.loc.is_source ? ssum[item.loc.node][item.loc.port] : tsum[item.loc.node][item.loc.port];
      if (!slot.insert(j, item.summary)) continue;
      if (!item.loc.is_source) {
        for (const auto& s : upstream[item.loc.node][item.loc.port])
          work.push_back({Location::of(s), item.summary});
      } else if (item.loc.node != 0) {
        for (const auto& [i, op] : reverse[item.loc.node][item.loc.port])
          if (auto composed = timely::followed_by<T>(op, item.summary))
            work.push_back({Location::of(Target{item.loc.node, i}), *composed});
      }
    }
  }

  Connectivity<Summary> scope_summary(ssum[0].begin(), ssum[0].end());

  Tracker<T> tracker;
  tracker.cap_counts_.assign(n_nodes, 0);
  tracker.output_changes_.resize(scope_outputs);
  tracker.tbase_.resize(n_nodes + 1);
  tracker.sbase_.resize(n_nodes);
  std::size_t count = 0;
  for (std::size_t n = 0; n < n_nodes; ++n) {
    tracker.tbase_[n] = static_cast<std::uint32_t>(count);
    count += nodes[n].inputs;
    tracker.sbase_[n] = static_cast<std::uint32_t>(count);
    count += nodes[n].outputs;
  }
  if (count >= std::numeric_limits<std::uint32_t>::max())
    throw Error("reachability: too many locations in one scope (" + std::to_string(count) + ")");
  tracker.tbase_[n_nodes] = static_cast<std::uint32_t>(count);
  tracker.ports_.resize(count);
  tracker.locations_.resize(count);
  tracker.link_start_.assign(count + 1, 0);
  for (std::size_t n = 0; n < n_nodes; ++n) {
    const auto& node = nodes[n];
    for (std::size_t i = 0; i < node.inputs; ++i) {
      const auto id = tracker.tbase_[n] + i;
      tracker.locations_[id] = Location::of(Target{n, i});
      tracker.link_start_[id] = static_cast<std::uint32_t>(tracker.links_.size());
      if (n == 0) continue;  // child zero: its pointstamps are the parent's business
      for (const auto& [o, summaries] : node.summary[i])
        for (const auto& s : summaries)
          tracker.links_.push_back({tracker.sbase_[n] + static_cast<std::uint32_t>(o), s});
      for (const auto& [j, summaries] : tsum[n][i])
        for (const auto& s : summaries) tracker.ports_[id].output_summaries.emplace_back(j, s);
    }
    for (std::size_t o = 0; o < node.outputs; ++o) {
      const auto id = tracker.sbase_[n] + o;
      tracker.locations_[id] = Location::of(Source{n, o});
      tracker.link_start_[id] = static_cast<std::uint32_t>(tracker.links_.size());
      for (const auto& t : node.edges[o])
        tracker.links_.push_back({tracker.tbase_[t.node] + static_cast<std::uint32_t>(t.port), Summary{}});
      if (n == 0) continue;
      for (const auto& [j, summaries] : ssum[n][o])
        for (const auto& s : summaries) tracker.ports_[id].output_summaries.emplace_back(j, s);
    }
  }
  tracker.link_start_[count] = static_cast<std::uint32_t>(tracker.links_.size());
  return {std::move(tracker), std::move(scope_summary)};
}

// ---------------------------------------------------------------------------------------------
// Tracker

template <Timestamp T>
void Tracker<T>::propagate_all() {
  if (logger_ && !dirty_.empty()) {
    auto sources = logger_->recycled(), targets = logger_->recycled();  // vectors reused: fill in all
    for (auto* e : {&sources, &targets})
      e->is_source = e == &sources, e->tracker_id = tracker_id_, e->updates = {};
    for (const auto id : dirty_) {
      const Location loc = locations_[id];
      auto& out = loc.is_source ? sources.updates : targets.updates;
      for (const auto& [time, diff] : ports_[id].pending.view())
        if (diff != 0) out.emplace_back(loc.node, loc.port, time, diff);
    }
    if (!sources.updates.empty()) logger_->log(std::move(sources));
    if (!targets.updates.empty()) logger_->log(std::move(targets));
  }
  // 1. Buffered pointstamp updates, filtered through each location's pointstamp antichain to
  //    discrete frontier changes; those seed the worklist and the scope-output projections.
  for (const auto id : dirty_) {
    auto& info = ports_[id];
    const Location loc = locations_[id];
    info.pointstamps.update_iter(info.pending.view(), [&](const T& time, std::int64_t diff) {
      total_counts_ += diff;
      if (loc.is_source) cap_counts_[loc.node] += diff;
      for (const auto& [output, summary] : info.output_summaries)
        if (auto t = timely::results_in<T>(summary, time)) output_changes_[output].update(*t, diff);
      worklist_.push(time, id, diff);
    });
    info.pending.clear();
  }
  dirty_.clear();

  // 2. Implications, in time order: a source's change reaches the targets of its edges; a
  //    target's change is an input frontier change and reaches the operator's outputs through
  //    its internal summaries.
  typename detail::Worklist<T>::Entry work;
  while (worklist_.pop(work)) {
    const std::uint32_t id = work.loc;
    const Location loc = locations_[id];
    const std::uint32_t first = link_start_[id];
    const std::uint32_t last = link_start_[id + 1];
    auto& info = ports_[id];
    // Links are pushed last to first: their locations ascend, and the sorted worklist takes a new
    // least key in O(1) but scans its whole tail for a greatest one (a fan-out of k: O(k^2)).
    if (loc.is_source) {
      info.implications.update(work.time, work.diff, [&](const T& time, std::int64_t d) {
        for (auto k = last; k-- > first;) worklist_.push(time, links_[k].to, d);
      });
    } else {
      // An input frontier: remember it as it was, to report only the net change below.
      if (!info.touched) {
        info.touched = true;
        info.before = info.implications.frontier();
        touched_.push_back(id);
      }
      info.implications.update(work.time, work.diff, [&](const T& time, std::int64_t d) {
        for (auto k = last; k-- > first;)
          if (auto t = timely::results_in<T>(links_[k].summary, time)) worklist_.push(*t, links_[k].to, d);
      });
    }
  }

  // 3. The net frontier change at each touched target: the sum of its intermediate changes.
  if (touched_.size() > 1 && !std::is_sorted(touched_.begin(), touched_.end()))
    std::sort(touched_.begin(), touched_.end());
  for (const auto id : touched_) {
    auto& info = ports_[id];
    info.touched = false;
    const auto& now = info.implications.frontier();
    if (now == info.before) continue;
    const Location loc = locations_[id];
    for (const auto& t : info.before)
      if (std::find(now.begin(), now.end(), t) == now.end())
        pushed_changes_.update({loc.node, loc.port, t}, -1);
    for (const auto& t : now)
      if (std::find(info.before.begin(), info.before.end(), t) == info.before.end())
        pushed_changes_.update({loc.node, loc.port, t}, 1);
  }
  touched_.clear();
}

}  // namespace timely::progress
