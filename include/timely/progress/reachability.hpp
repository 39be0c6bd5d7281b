/// \file
/// Reachability inside one scope: the `Builder` that records the graph (operators with their
/// internal path summaries, and the edges between ports) and the `Tracker` that turns pointstamp
/// counts into frontiers at every location.
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
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include <timely/error.hpp>
#include <timely/order.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/frontier.hpp>

namespace timely::progress {

/// An operator output (or, for node 0, a scope input seen from inside).
struct Source {
  std::size_t node = 0;
  std::size_t port = 0;
  friend bool operator==(const Source&, const Source&) = default;
  friend auto operator<=>(const Source&, const Source&) = default;
};

/// An operator input (or, for node 0, a scope output seen from inside).
struct Target {
  std::size_t node = 0;
  std::size_t port = 0;
  friend bool operator==(const Target&, const Target&) = default;
  friend auto operator<=>(const Target&, const Target&) = default;
};

/// A port of a node: a `Source` when `is_source`, otherwise a `Target`.
struct Location {
  std::size_t node = 0;
  std::size_t port = 0;
  bool is_source = false;

  static Location of(Source s) { return {s.node, s.port, true}; }
  static Location of(Target t) { return {t.node, t.port, false}; }
  friend bool operator==(const Location&, const Location&) = default;
  friend auto operator<=>(const Location&, const Location&) = default;
};

/// Internal connectivity of an operator: `summary[input][output]` is the antichain of path
/// summaries from that input to that output; empty means "this input cannot cause output there".
template <class S>
using Connectivity = std::vector<std::vector<Antichain<S>>>;

/// Connectivity with the identity summary from every input to every output (the default).
template <class S>
Connectivity<S> identity_connectivity(std::size_t inputs, std::size_t outputs) {
  return Connectivity<S>(inputs, std::vector<Antichain<S>>(outputs, Antichain<S>(S{})));
}

template <Timestamp T>
class Tracker;

/// Records a scope's nodes and edges, checks for non-advancing cycles, and builds a `Tracker`.
///
/// \tparam T the scope's timestamp type.
template <Timestamp T>
class Builder {
 public:
  using Summary = SummaryOf<T>;

  /// Declares node `index` with its shape and connectivity (`summary[input][output]`).
  /// Node 0 is the scope boundary: `inputs` = scope outputs, `outputs` = scope inputs, and its
  /// connectivity is ignored. \throws timely::Error if the connectivity's shape is wrong.
  void add_node(std::size_t index, std::size_t inputs, std::size_t outputs, Connectivity<Summary> summary) {
    if (index == 0) summary.assign(inputs, std::vector<Antichain<Summary>>(outputs));
    if (summary.size() != inputs)
      throw Error("reachability: node " + std::to_string(index) + " declares " + std::to_string(inputs) +
                  " inputs but its connectivity has " + std::to_string(summary.size()) + " rows");
    for (const auto& row : summary)
      if (row.size() != outputs)
        throw Error("reachability: node " + std::to_string(index) + " has a connectivity row of " +
                    std::to_string(row.size()) + " outputs, expected " + std::to_string(outputs));
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

  /// Builds the tracker and the scope's own summary `[scope input][scope output]`.
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

/// Maintains pointstamp counts at every location of a scope and propagates their implications
/// (Naiad's could-result-in) in time order, yielding frontier changes at every operator input
/// and the scope's internal capabilities at each scope output.
///
/// Updates are buffered by `update_source`/`update_target` and take effect in `propagate_all`.
template <Timestamp T>
class Tracker {
 public:
  using Summary = SummaryOf<T>;

  /// Buffers `diff` capabilities at `(source, time)`.
  void update_source(Source source, const T& time, std::int64_t diff) {
    if (diff != 0) source_changes_.update({source.node, source.port, time}, diff);
  }
  /// Buffers `diff` in-flight records at `(target, time)`.
  void update_target(Target target, const T& time, std::int64_t diff) {
    if (diff != 0) target_changes_.update({target.node, target.port, time}, diff);
  }

  /// Applies all buffered updates and propagates their implications. Afterwards
  /// `pushed_changes()` holds frontier changes at operator inputs and `output_changes(j)` the
  /// changes to what the scope's contents imply at scope output `j`.
  void propagate_all();

  /// Frontier changes `((node, port, time), diff)` at targets since the last drain.
  [[nodiscard]] ChangeBatch<std::tuple<std::size_t, std::size_t, T>>& pushed_changes() noexcept {
    return pushed_changes_;
  }
  /// Changes of the implied capabilities at scope output `output` (times already summarised).
  [[nodiscard]] ChangeBatch<T>& output_changes(std::size_t output) { return output_changes_[output]; }

  /// The implications (frontier) at a location: the minimal times that could still reach it.
  [[nodiscard]] const Antichain<T>& implications(Location loc) const {
    return port(loc).implications.frontier();
  }
  /// The pointstamp frontier at a location (its own positive counts only).
  [[nodiscard]] const Antichain<T>& pointstamps(Location loc) const {
    return port(loc).pointstamps.frontier();
  }

  /// Whether removing the pointstamp `(loc, time)` could change the frontier there: no implied
  /// time is strictly less, and `time`'s implication count is at most one. Demand-driven progress
  /// uses it to decide when to broadcast.
  [[nodiscard]] bool is_global(Location loc, const T& time) {
    auto& p = port_mut(loc);
    if (p.implications.less_than(time)) return false;
    return p.implications.count_for(time) <= 1;
  }

  /// Whether anything is tracked: buffered updates, or any positive pointstamp.
  [[nodiscard]] bool tracking_anything() {
    return !source_changes_.is_empty() || !target_changes_.is_empty() || total_counts_ > 0;
  }

  /// Number of capability frontier elements held at node `node`'s outputs.
  [[nodiscard]] std::int64_t capability_count(std::size_t node) const { return cap_counts_[node]; }
  /// Whether every input of `node` has an empty implication frontier.
  [[nodiscard]] bool inputs_complete(std::size_t node) const {
    for (std::size_t i = 0; i < nodes_[node].targets.size(); ++i)
      if (!nodes_[node].targets[i].implications.is_empty()) return false;
    return true;
  }
  [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }
  [[nodiscard]] std::size_t scope_outputs() const noexcept { return output_changes_.size(); }

 private:
  friend class Builder<T>;

  struct PortInfo {
    MutableAntichain<T> pointstamps;
    MutableAntichain<T> implications;
    // (scope output, summary) pairs that project this location onto scope outputs.
    std::vector<std::pair<std::size_t, Summary>> output_summaries;
  };
  struct NodeInfo {
    std::vector<PortInfo> targets;
    std::vector<PortInfo> sources;
    // For target port i: (output, summary) pairs of the internal connectivity.
    std::vector<std::vector<std::pair<std::size_t, Summary>>> internal;
    // For source port o: the targets its edges reach.
    std::vector<std::vector<Target>> edges;
  };
  struct Work {
    T time;
    Location loc;
    std::int64_t diff;
  };
  struct WorkAfter {
    bool operator()(const Work& a, const Work& b) const {
      if (a.time < b.time) return false;
      if (b.time < a.time) return true;
      return b.loc < a.loc;
    }
  };

  const PortInfo& port(Location loc) const {
    const auto& n = nodes_.at(loc.node);
    return loc.is_source ? n.sources.at(loc.port) : n.targets.at(loc.port);
  }
  PortInfo& port_mut(Location loc) {
    auto& n = nodes_.at(loc.node);
    return loc.is_source ? n.sources.at(loc.port) : n.targets.at(loc.port);
  }

  template <class Batch>
  void filter_pointstamps(Batch& batch, bool sources);

  std::vector<NodeInfo> nodes_;
  ChangeBatch<std::tuple<std::size_t, std::size_t, T>> source_changes_;
  ChangeBatch<std::tuple<std::size_t, std::size_t, T>> target_changes_;
  std::priority_queue<Work, std::vector<Work>, WorkAfter> worklist_;
  ChangeBatch<std::tuple<std::size_t, std::size_t, T>> pushed_changes_;
  std::vector<ChangeBatch<T>> output_changes_;
  std::vector<std::int64_t> cap_counts_;
  std::int64_t total_counts_ = 0;
  std::vector<std::pair<T, std::int64_t>> scratch_;
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
        for (std::size_t o = 0; o < node.outputs; ++o)
          for (const auto& s : node.summary[i][o])
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
  const std::size_t scope_inputs = nodes[0].outputs;

  // Reverse edges: for every target, the sources feeding it.
  std::vector<std::vector<std::vector<Source>>> upstream(n_nodes);
  for (std::size_t n = 0; n < n_nodes; ++n) upstream[n].resize(nodes[n].inputs);
  for (std::size_t n = 0; n < n_nodes; ++n)
    for (std::size_t o = 0; o < nodes[n].outputs; ++o)
      for (const auto& t : nodes[n].edges[o]) upstream[t.node][t.port].push_back(Source{n, o});

  // summaries[loc][output]: antichain of summaries from each location to each scope output,
  // found by a backward search from the scope outputs (the reference's summarize_outputs).
  std::vector<std::vector<std::vector<Antichain<Summary>>>> tsum(n_nodes), ssum(n_nodes);
  for (std::size_t n = 0; n < n_nodes; ++n) {
    tsum[n].assign(nodes[n].inputs, std::vector<Antichain<Summary>>(scope_outputs));
    ssum[n].assign(nodes[n].outputs, std::vector<Antichain<Summary>>(scope_outputs));
  }
  struct Item {
    Location loc;
    std::size_t output;
    Summary summary;
  };
  std::vector<Item> work;
  for (std::size_t j = 0; j < scope_outputs; ++j) work.push_back({Location::of(Target{0, j}), j, Summary{}});
  while (!work.empty()) {
    Item item = std::move(work.back());
    work.pop_back();
    auto& slot = item.loc.is_source ? ssum[item.loc.node][item.loc.port][item.output]
                                    : tsum[item.loc.node][item.loc.port][item.output];
    if (!slot.insert(item.summary)) continue;
    if (!item.loc.is_source) {
      for (const auto& s : upstream[item.loc.node][item.loc.port])
        work.push_back({Location::of(s), item.output, item.summary});
    } else if (item.loc.node != 0) {
      const auto& node = nodes[item.loc.node];
      for (std::size_t i = 0; i < node.inputs; ++i)
        for (const auto& op : node.summary[i][item.loc.port])
          if (auto composed = timely::followed_by<T>(op, item.summary))
            work.push_back({Location::of(Target{item.loc.node, i}), item.output, *composed});
    }
  }

  Connectivity<Summary> scope_summary(scope_inputs, std::vector<Antichain<Summary>>(scope_outputs));
  for (std::size_t i = 0; i < scope_inputs; ++i) scope_summary[i] = ssum[0][i];

  Tracker<T> tracker;
  tracker.nodes_.resize(n_nodes);
  tracker.cap_counts_.assign(n_nodes, 0);
  tracker.output_changes_.resize(scope_outputs);
  for (std::size_t n = 0; n < n_nodes; ++n) {
    auto& info = tracker.nodes_[n];
    const auto& node = nodes[n];
    info.targets.resize(node.inputs);
    info.sources.resize(node.outputs);
    info.internal.resize(node.inputs);
    info.edges = node.edges;
    if (n == 0) continue;  // child zero: its pointstamps are the parent's business
    for (std::size_t i = 0; i < node.inputs; ++i) {
      for (std::size_t o = 0; o < node.outputs; ++o)
        for (const auto& s : node.summary[i][o]) info.internal[i].emplace_back(o, s);
      for (std::size_t j = 0; j < scope_outputs; ++j)
        for (const auto& s : tsum[n][i][j]) info.targets[i].output_summaries.emplace_back(j, s);
    }
    for (std::size_t o = 0; o < node.outputs; ++o)
      for (std::size_t j = 0; j < scope_outputs; ++j)
        for (const auto& s : ssum[n][o][j]) info.sources[o].output_summaries.emplace_back(j, s);
  }
  return {std::move(tracker), std::move(scope_summary)};
}

// ---------------------------------------------------------------------------------------------
// Tracker

template <Timestamp T>
template <class Batch>
void Tracker<T>::filter_pointstamps(Batch& batch, bool sources) {
  const auto& updates = batch.view();
  for (std::size_t i = 0; i < updates.size();) {
    const auto node = std::get<0>(updates[i].first);
    const auto port_index = std::get<1>(updates[i].first);
    scratch_.clear();
    std::size_t j = i;
    for (; j < updates.size() && std::get<0>(updates[j].first) == node &&
           std::get<1>(updates[j].first) == port_index;
         ++j)
      scratch_.emplace_back(std::get<2>(updates[j].first), updates[j].second);
    i = j;
    const Location loc{node, port_index, sources};
    auto& info = port_mut(loc);
    info.pointstamps.update_iter(scratch_, [&](const T& time, std::int64_t diff) {
      total_counts_ += diff;
      if (sources) cap_counts_[node] += diff;
      for (const auto& [output, summary] : info.output_summaries)
        if (auto t = timely::results_in<T>(summary, time)) output_changes_[output].update(*t, diff);
      worklist_.push(Work{time, loc, diff});
    });
  }
  batch.clear();
}

template <Timestamp T>
void Tracker<T>::propagate_all() {
  filter_pointstamps(target_changes_, false);
  filter_pointstamps(source_changes_, true);

  while (!worklist_.empty()) {
    Work top = worklist_.top();
    worklist_.pop();
    std::int64_t diff = top.diff;
    while (!worklist_.empty() && worklist_.top().loc == top.loc && worklist_.top().time == top.time) {
      diff += worklist_.top().diff;
      worklist_.pop();
    }
    if (diff == 0) continue;
    auto& info = port_mut(top.loc);
    auto& node = nodes_[top.loc.node];
    info.implications.update(top.time, diff, [&](const T& time, std::int64_t d) {
      if (top.loc.is_source) {
        for (const auto& target : node.edges[top.loc.port])
          worklist_.push(Work{time, Location::of(target), d});
      } else {
        pushed_changes_.update({top.loc.node, top.loc.port, time}, d);
        for (const auto& [output, summary] : node.internal[top.loc.port])
          if (auto t = timely::results_in<T>(summary, time))
            worklist_.push(Work{*t, Location::of(Source{top.loc.node, output}), d});
      }
    });
  }
}

}  // namespace timely::progress
