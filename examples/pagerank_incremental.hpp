// The incremental PageRank dataflow of `pagerank NODES EDGES`, shared with its tests.
//
// The computation is the one of the reference's `examples/pagerank.rs`: integer ranks that follow
// a graph under rounds of edge changes. Every node starts with rank 1000 and hands
// floor(5 * rank / 6) to its out-edges: with d distinct targets (in ascending order), each gets
// floor(that / d), the first (that mod d) one more, times the edge's multiplicity. Whatever a
// node hands out changes when its rank or its edges change, and those changes travel one round
// per hop: a change in what node u sends v at round t reaches v at round t + 1. A node adds up
// the changes it receives and moves its rank only once their sum is at least 6 in magnitude
// (then by the whole sum), which is what makes the propagation die out. (Parts are multiplied
// by multiplicity but divided by distinct targets, as in the reference, so a node with parallel
// edges hands out more than 5/6 of its rank; on dense multigraphs the changes may never die out.)
//
// Rounds are the timestamps of one top-level scope with a feedback edge that adds 1. One
// operator, PageRank, holds the nodes of its worker (node v on worker v % peers; edge changes
// exchanged by source, rank changes by node). Round t is processed once no input can still bring
// anything at t (every worker is done with round t - 1): first the edge changes of round t, one
// by one in (source, target) order, each sending the difference it makes to its source's
// allocation; then the rank changes of round t, summed per node, in node order, each sending the
// difference it makes. Each round that received rank changes yields a RoundStats (nodes changed,
// sum and largest magnitude of their changes), summed over the workers on worker 0. All of it is
// integer arithmetic on sums that do not depend on the order records arrive in, so the answer
// is the same for every number of workers and processes.
//
// The input (`feed`) is the reference's: round 0 brings the random graph's EDGES edges
// (graph_common.hpp, one `peers`-th per worker); each round r = 1 .. R adds edge number
// EDGES + r - 1 of the same random sequence and removes edge number r - 1 (the oldest still
// there, as the reference's second generator replays the first), and waits for the round to
// finish before the next. After round R the input closes and the changes run until they die out.
// (The reference makes one such change per worker per round, so its input depends on the worker
// count; here there is one per round.)
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

#include "graph_common.hpp"

namespace pagerank::incremental {

using graphs::Edge;
using graphs::Node;
/// The round.
using Time = std::uint64_t;
using Diff = std::int64_t;
/// An edge gained (+1) or lost (-1), or several of either.
using EdgeChange = std::pair<Edge, Diff>;
/// A change in what some node receives, for node `first`.
using RankChange = std::pair<Node, Diff>;

inline constexpr Diff kInitialRank = 1000;
/// A node's rank moves once the changes it has received add up to this much, either way.
inline constexpr Diff kApplyAt = 6;

/// One round, summed over the workers: how many nodes received a (nonzero) change in what they
/// receive, the sum of those changes' magnitudes, and the largest.
struct RoundStats {
  Time round = 0;
  std::uint64_t changed = 0;
  Diff sum = 0;
  Diff max = 0;
  friend auto operator<=>(const RoundStats&, const RoundStats&) = default;
};

/// Sorts `list` by key, adds up the diffs of equal keys and drops the keys whose sum is zero.
template <class K>
void compact(std::vector<std::pair<K, Diff>>& list) {
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < list.size();) {
    const K key = list[i].first;
    Diff sum = 0;
    for (; i < list.size() && list[i].first == key; ++i) sum += list[i].second;
    if (sum != 0) list[kept++] = {key, sum};
  }
  list.resize(kept);
}

/// Appends `sign` times what a node of rank `rank` with out-edges `edges` (distinct targets,
/// ascending, with multiplicities) hands each target.
inline void allocate(Diff rank, const std::vector<std::pair<Node, Diff>>& edges, Diff sign,
                     std::vector<RankChange>& out) {
  if (edges.empty()) return;
  const Diff distribute = rank * 5 / 6;
  const auto degree = static_cast<Diff>(edges.size());
  const Diff share = distribute / degree;
  const Diff extra = distribute % degree;
  for (std::size_t i = 0; i < edges.size(); ++i)
    out.emplace_back(edges[i].first,
                     sign * edges[i].second * (share + (static_cast<Diff>(i) < extra ? 1 : 0)));
}

namespace detail {

struct NodeState {
  Diff rank = kInitialRank;
  Diff received = 0;                         // changes received, not yet in `rank`
  std::vector<std::pair<Node, Diff>> edges;  // by target, multiplicities nonzero
};

/// Adds `diff` to the multiplicity of the edge to `target`, keeping `edges` sorted.
inline void change_edge(std::vector<std::pair<Node, Diff>>& edges, Node target, Diff diff) {
  auto it =
      std::lower_bound(edges.begin(), edges.end(), target, [](const auto& e, Node t) { return e.first < t; });
  if (it != edges.end() && it->first == target) {
    it->second += diff;
    if (it->second == 0) edges.erase(it);
  } else {
    edges.insert(it, {target, diff});
  }
}

/// The rank changes a worker receives for one round, summed per slot, and which slots they touched.
class Received {
 public:
  void resize(std::size_t slots) {
    if (sum_.size() != slots) {
      sum_.assign(slots, 0);
      seen_.assign(slots, 0);
    }
  }
  void add(std::uint32_t slot, Diff diff) {
    if (!seen_[slot]) {
      seen_[slot] = 1;
      touched_.push_back(slot);
    }
    sum_[slot] += diff;
  }
  /// Calls `f(slot, sum)` for each touched slot whose sum is not zero, slots ascending (so that
  /// the nodes' state is visited in memory order), and empties this.
  template <class F>
  void drain(F&& f) {
    auto visit = [&](std::uint32_t slot) {
      const Diff diff = sum_[slot];
      sum_[slot] = 0;
      seen_[slot] = 0;
      if (diff != 0) f(slot, diff);
    };
    if (touched_.size() * 16 >= sum_.size()) {  // many: a scan beats a sort
      for (std::size_t slot = 0; slot < seen_.size(); ++slot)
        if (seen_[slot]) visit(static_cast<std::uint32_t>(slot));
    } else {
      std::sort(touched_.begin(), touched_.end());
      for (const std::uint32_t slot : touched_) visit(slot);
    }
    touched_.clear();
  }

 private:
  std::vector<Diff> sum_;
  std::vector<std::uint8_t> seen_;
  std::vector<std::uint32_t> touched_;
};

/// Calls `f(target, after - before)` for each target whose part differs, ascending; both lists
/// are by target, each target once.
template <class F>
void difference(const std::vector<RankChange>& before, const std::vector<RankChange>& after, F&& f) {
  std::size_t i = 0, j = 0;
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && before[i].first < after[j].first)) {
      if (before[i].second != 0) f(before[i].first, -before[i].second);
      ++i;
    } else if (i == before.size() || after[j].first < before[i].first) {
      if (after[j].second != 0) f(after[j].first, after[j].second);
      ++j;
    } else {
      if (after[j].second != before[i].second) f(after[j].first, after[j].second - before[i].second);
      ++i;
      ++j;
    }
  }
}

/// Calls `f(target, change)` for each edge whose part (as `allocate` gives it) changes when the
/// rank goes from `before` to `after`, in the edges' order.
template <class F>
void each_part_change(Diff before, Diff after, const std::vector<std::pair<Node, Diff>>& edges, F&& f) {
  if (edges.empty()) return;
  const auto degree = static_cast<Diff>(edges.size());
  const Diff give_before = before * 5 / 6, give_after = after * 5 / 6;
  const Diff share_before = give_before / degree, extra_before = give_before % degree;
  const Diff share_after = give_after / degree, extra_after = give_after % degree;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto k = static_cast<Diff>(i);
    const Diff change =
        (share_after + (k < extra_after ? 1 : 0)) - (share_before + (k < extra_before ? 1 : 0));
    if (change != 0) f(edges[i].first, edges[i].second * change);
  }
}

}  // namespace detail

/// The PageRank operator over `edge_changes` (node ids below `nodes`), in a top-level scope whose
/// times are rounds. Returns the rank changes it sends around the loop (to probe: a round is done
/// when their frontier has passed it) and the RoundStats, one per round that saw rank changes, on
/// worker 0.
template <class Scope>
std::pair<timely::Stream<Time, RankChange>, timely::Stream<Time, RoundStats>> ranks(
    Scope& scope, const timely::Stream<Time, EdgeChange>& edge_changes, std::uint64_t nodes) {
  using namespace timely::dataflow::operators;
  auto [handle, cycle] = feedback<RankChange>(scope, Time{1});

  timely::OperatorBuilder<Time> builder(scope, "PageRank");
  auto edge_in = builder.new_input(
      edge_changes, timely::Exchange{[](const EdgeChange& c) { return std::uint64_t{c.first.first}; }});
  auto rank_in =
      builder.new_input(cycle, timely::Exchange{[](const RankChange& c) { return std::uint64_t{c.first}; }});
  auto changes = builder.template new_output<RankChange>();
  auto stats = builder.template new_output<RoundStats>();

  const std::size_t index = scope.index(), peers = scope.peers();
  builder.build([&, index, peers](std::vector<timely::Capability<Time>>) {
    struct Stash {
      std::vector<timely::Capability<Time>> caps;  // for the rank changes, and for the stats
      std::vector<EdgeChange> edges;
      detail::Received ranks;
      bool ranked = false;  // whether rank changes arrived (their sum may still be nothing)
    };
    std::map<Time, Stash> stash;
    std::vector<detail::NodeState> state(graphs::owned_count(nodes, index, peers));
    std::vector<detail::Received> spare;  // emptied sums, for reuse
    std::vector<RankChange> before, after;
    return [nodes, slot_of = graphs::SlotOf(peers), stash = std::move(stash), state = std::move(state),
            spare = std::move(spare), before = std::move(before), after = std::move(after),
            edge_in = std::move(edge_in), rank_in = std::move(rank_in),
            change_out = std::move(changes.handle), stats_out = std::move(stats.handle)]() mutable {
      auto entry = [&](const timely::InputCapability<Time>& cap) -> Stash& {
        auto it = stash.find(cap.time());
        if (it == stash.end()) {
          Stash fresh{{cap.retain(0), cap.retain(1)}, {}, {}, false};
          if (!spare.empty()) {
            fresh.ranks = std::move(spare.back());
            spare.pop_back();
          }
          it = stash.emplace(cap.time(), std::move(fresh)).first;
        }
        return it->second;
      };
      edge_in.for_each([&](const timely::InputCapability<Time>& cap, std::vector<EdgeChange>& batch) {
        auto& s = entry(cap);
        s.edges.insert(s.edges.end(), batch.begin(), batch.end());
      });
      rank_in.for_each([&](const timely::InputCapability<Time>& cap, std::vector<RankChange>& batch) {
        auto& s = entry(cap);
        s.ranks.resize(state.size());
        for (const auto& [v, diff] : batch) {
          const std::size_t slot = slot_of(v);
          if (slot >= state.size())
            throw std::out_of_range("pagerank: rank change for node " + std::to_string(v) +
                                    " beyond the node count " + std::to_string(nodes));
          s.ranks.add(static_cast<std::uint32_t>(slot), diff);
        }
        s.ranked = true;
      });
      // Rounds in order; round t is ready once neither input can bring more at t.
      while (!stash.empty() && !edge_in.frontier().less_equal(stash.begin()->first) &&
             !rank_in.frontier().less_equal(stash.begin()->first)) {
        auto node = stash.extract(stash.begin());
        auto& s = node.mapped();
        auto session = change_out.session(s.caps[0]);
        compact(s.edges);
        for (const auto& [edge, diff] : s.edges) {
          const std::size_t slot = slot_of(edge.first);
          if (slot >= state.size() || edge.second >= nodes)
            throw std::out_of_range("pagerank: edge " + std::to_string(edge.first) + " -> " +
                                    std::to_string(edge.second) + " is beyond the node count " +
                                    std::to_string(nodes));
          auto& n = state[slot];
          // What the source hands out before and after, both by target: their difference.
          before.clear();
          after.clear();
          allocate(n.rank, n.edges, +1, before);
          detail::change_edge(n.edges, edge.second, diff);
          allocate(n.rank, n.edges, +1, after);
          detail::difference(before, after, [&](Node target, Diff d) {
            session.give(RankChange{target, d});
          });
        }
        if (!s.ranked) continue;
        RoundStats round{s.caps[1].time(), 0, 0, 0};
        s.ranks.drain([&](std::uint32_t slot, Diff diff) {
          ++round.changed;
          round.sum += std::abs(diff);
          round.max = std::max(round.max, std::abs(diff));
          auto& n = state[slot];
          n.received += diff;
          if (std::abs(n.received) < kApplyAt) return;  // the rank, so the allocation, stays
          const Diff old_rank = n.rank;
          n.rank += n.received;
          n.received = 0;
          // The targets stay, so each edge's part changes by the difference of its two parts.
          detail::each_part_change(old_rank, n.rank, n.edges, [&](Node target, Diff d) {
            session.give(RankChange{target, d});
          });
        });
        spare.push_back(std::move(s.ranks));
        stats_out.session(s.caps[1]).give(round);
      }
    };
  });
  changes.stream | connect_loop(handle);

  auto total =
      stats.stream |
      unary_frontier<RoundStats>(
          timely::Exchange{[](const RoundStats&) { return std::uint64_t{0}; }}, "RoundTotal",
          [](auto, const auto&) {
            std::map<Time, std::pair<timely::Capability<Time>, RoundStats>> sums;
            return [sums = std::move(sums)](timely::OperatorInput<Time, RoundStats>& input,
                                            timely::OperatorOutput<Time, RoundStats>& output) mutable {
              input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<RoundStats>& batch) {
                auto it = sums.find(cap.time());
                if (it == sums.end())
                  it = sums.emplace(cap.time(), std::pair{cap.retain(), RoundStats{cap.time()}}).first;
                auto& sum = it->second.second;
                for (const auto& r : batch) {
                  sum.changed += r.changed;
                  sum.sum += r.sum;
                  sum.max = std::max(sum.max, r.max);
                }
              });
              while (!sums.empty() && !input.frontier().less_equal(sums.begin()->first)) {
                auto done = sums.extract(sums.begin());
                output.session(done.mapped().first).give(done.mapped().second);
              }
            };
          });
  return {changes.stream, total};
}

/// Runs the reference's input through `input` on worker `worker`: round 0 this worker's share of
/// the `edges` random edges, then `rounds` rounds of one added and one removed edge (each on
/// worker r % peers), stepping the worker until `probe` has passed each round and then calling
/// `on_round(r)`, if given; closes `input`.
/// \throws std::invalid_argument if there are edges or rounds but no nodes.
template <class Input, class Probe>
void feed(timely::Worker& worker, Input& input, const Probe& probe, std::uint64_t nodes, std::uint64_t edges,
          std::uint64_t rounds, const std::function<void(std::uint64_t)>& on_round = {}) {
  if (nodes == 0 && (edges > 0 || rounds > 0))
    throw std::invalid_argument("pagerank: random edges (" + std::to_string(edges) + ", and " +
                                std::to_string(rounds) + " rounds of changes) need at least one node");
  const std::size_t index = worker.index(), peers = worker.peers();
  for (std::uint64_t i = index; i < edges; i += peers)
    input.send(EdgeChange{graphs::random_edge(i, nodes), +1});
  input.advance_to(1);
  while (probe.less_than(input.time())) worker.step();
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    if (r % peers == index) {
      input.send(EdgeChange{graphs::random_edge(edges + r - 1, nodes), +1});
      input.send(EdgeChange{graphs::random_edge(r - 1, nodes), -1});
    }
    input.advance_to(r + 1);
    while (probe.less_than(input.time())) worker.step();
    if (on_round) on_round(r);
  }
  input.close();
}

}  // namespace pagerank::incremental
