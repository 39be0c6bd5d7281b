// The PageRank dataflow of the `pagerank` example, shared with tests/graphs.
//
// Standard PageRank by power iteration over N nodes, damping d = 0.85:
//   r_0(v)     = 1 / N
//   r_{k+1}(v) = (1 - d) / N + d * (sum over edges u -> v of r_k(u) / outdeg(u) + D_k / N)
// where D_k is the rank of the nodes without out-edges at step k ("dangling" mass, spread evenly
// over all nodes, so the ranks always sum to 1). Parallel edges count with their multiplicity.
//
// One operator, PageRank, in an iterative scope whose loop counter is the iteration. Each worker
// holds the out-edges and the rank of the nodes it owns (node v on worker v % peers), taking
// those edges straight from the graph, which every process has whole (the file read up front, or
// the random graph generated), so the edges are never exchanged. Around the loop go `Share`s:
// rank mass along edges, summed per target on the sending worker and sent to the worker owning
// the target (mass for the sender's own nodes is added in place), and each worker's dangling
// mass, to every worker. The operator first sends the shares of r_0. Then, when progress
// tracking says iteration k is complete (every share sent at step k-1 has arrived, on every
// worker), it computes r_k for its nodes; before the last iteration it sends their shares around
// again, and at the last it sends (node, rank) out of the loop.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

#include "graph_common.hpp"

namespace pagerank {

using graphs::Edge;
using graphs::Node;
/// Outer time: a single epoch.
using Time = std::uint64_t;
/// The iteration: the loop counter.
using Round = std::uint32_t;
using Inner = timely::Product<Time, Round>;
/// A node and its rank.
using Ranked = std::pair<Node, double>;

inline constexpr double kDamping = 0.85;

/// Rank mass on its way to worker `worker`: along edges to that worker's node at position `slot`
/// (node `worker + slot * peers`), or, when `slot` is `kSpread`, a worker's dangling mass. The
/// sender knows both, so the receiver adds the mass without dividing.
struct Share {
  std::uint32_t worker = 0;
  std::uint32_t slot = 0;
  double mass = 0;
};

/// The `slot` of a Share that carries dangling mass.
inline constexpr std::uint32_t kSpread = 0xFFFFFFFFu;

namespace detail {

/// What the PageRank operator keeps: this worker's nodes (by slot v / peers), their out-degrees,
/// their in-edges grouped by target, their ranks, and the mass received per iteration.
///
/// The edges of this worker's sources are kept as compressed rows by target: the distinct
/// targets, worker by worker (this one's first) and by slot within a worker, each with the slots
/// of its sources, ascending. Built by two counting sorts (by source, then by target), linear in
/// nodes and edges. Sending shares is then one pass: sum the sources' shares per target and add
/// the sum in place for this worker's own targets, or send it, one Share per remote target.
struct State {
  std::uint64_t nodes = 0;
  std::uint32_t iterations = 0;
  std::size_t index = 0;
  std::size_t peers = 1;
  std::vector<std::uint32_t> degree;         // by slot
  std::vector<std::uint32_t> target_slot;    // by target group: the target's slot on its worker
  std::vector<std::uint32_t> target_worker;  // by target group
  std::size_t local_targets = 0;             // the first groups, this worker's own targets
  std::vector<std::size_t> offsets;          // target group g's sources: sources[offsets[g] ..)
  std::vector<std::uint32_t> sources;        // source slots
  std::vector<double> rank;                  // by slot
  std::vector<double> share;                 // rank / degree, by slot (scratch)
  struct Pending {
    timely::Capability<Inner> cap;
    std::vector<double> incoming;  // mass along edges, by slot
    double spread = 0;             // dangling mass, all workers'
  };
  std::map<Inner, Pending> pending;
  std::vector<double> spare;  // a recycled `incoming`

  [[nodiscard]] std::size_t slots() const { return graphs::owned_count(nodes, index, peers); }
  [[nodiscard]] Node node(std::size_t slot) const { return static_cast<Node>(index + slot * peers); }

  /// Takes the out-edges of this worker's nodes from `graph` (two passes over all of it).
  void build_graph(const graphs::GraphInput& graph) {
    const std::size_t mine = slots();
    const graphs::SlotOf slot_of(peers);
    // The slot of `v` if this worker owns it, else `mine` (no slot).
    const auto my_slot = [&](Node v) {
      const std::size_t slot = slot_of(v);
      return v - slot * peers == index ? slot : mine;
    };
    // By source slot (counting sort), so that each target's sources come out ascending.
    degree.assign(mine, 0);
    graph.for_each_edge(0, 1, [&](const Edge& e) {
      if (const auto slot = my_slot(e.first); slot != mine) ++degree[slot];
    });
    std::vector<std::size_t> by_source(mine + 1, 0);
    for (std::size_t s = 0; s < mine; ++s) by_source[s + 1] = by_source[s] + degree[s];
    std::vector<Node> targets(by_source[mine]);
    {
      auto fill = by_source;
      graph.for_each_edge(0, 1, [&](const Edge& e) {
        if (const auto slot = my_slot(e.first); slot != mine) targets[fill[slot]++] = e.second;
      });
    }
    // By target (counting sort over all node ids), targets grouped by their worker.
    std::vector<std::uint32_t> in_count(nodes, 0);
    for (Node t : targets) ++in_count[t];
    std::vector<std::uint32_t> group_of(nodes, 0);  // a target's group
    offsets.assign(1, 0);
    target_slot.clear();
    target_worker.clear();
    for (std::size_t k = 0; k < peers; ++k) {
      const std::size_t w = (index + k) % peers;  // this worker's own targets first
      for (std::uint64_t t = w, slot = 0; t < nodes; t += peers, ++slot) {
        if (in_count[t] == 0) continue;
        group_of[t] = static_cast<std::uint32_t>(target_slot.size());
        target_slot.push_back(static_cast<std::uint32_t>(slot));
        target_worker.push_back(static_cast<std::uint32_t>(w));
        offsets.push_back(offsets.back() + in_count[t]);
      }
      if (k == 0) local_targets = target_slot.size();
    }
    sources.resize(targets.size());
    {
      std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
      for (std::size_t s = 0; s < mine; ++s)
        for (std::size_t e = by_source[s]; e < by_source[s + 1]; ++e)
          sources[fill[group_of[targets[e]]]++] = static_cast<std::uint32_t>(s);
    }
    rank.assign(mine, nodes > 0 ? 1.0 / static_cast<double>(nodes) : 0.0);
    share.resize(mine);
  }

  /// The entry for the shares that arrive at `time`, made with `cap` if it is new.
  Pending& pending_at(const Inner& time, const auto& make_cap) {
    auto it = pending.find(time);
    if (it == pending.end()) {
      std::vector<double> incoming = std::move(spare);
      incoming.assign(slots(), 0.0);
      it = pending.emplace(time, Pending{make_cap(), std::move(incoming), 0.0}).first;
    }
    return it->second;
  }

  /// Sends this worker's shares of the current ranks at `cap`'s time: the mass along edges,
  /// summed per target, and the dangling mass to every worker. What is for this worker's own
  /// nodes is added in place, to the entry of the next iteration.
  template <class Output>
  void send_shares(Output& output, const timely::Capability<Inner>& cap) {
    double dangling = 0;
    for (std::size_t s = 0; s < rank.size(); ++s) {
      if (degree[s] == 0)
        dangling += rank[s];
      else
        share[s] = rank[s] / static_cast<double>(degree[s]);
    }
    Inner next = cap.time();
    ++next.inner;
    auto& mine = pending_at(next, [&] { return cap.delayed(next); });
    mine.spread += dangling;
    const double* shares = share.data();
    const std::uint32_t* from = sources.data();
    double* incoming = mine.incoming.data();
    for (std::size_t g = 0; g < local_targets; ++g) {
      double mass = 0;
      for (std::size_t e = offsets[g]; e < offsets[g + 1]; ++e) mass += shares[from[e]];
      incoming[target_slot[g]] += mass;
    }
    if (peers == 1) return;
    auto session = output.session(cap);
    for (std::size_t g = local_targets; g < target_slot.size(); ++g) {
      double mass = 0;
      for (std::size_t e = offsets[g]; e < offsets[g + 1]; ++e) mass += shares[from[e]];
      session.give(Share{target_worker[g], target_slot[g], mass});
    }
    for (std::size_t w = 0; w < peers; ++w)
      if (w != index) session.give(Share{static_cast<std::uint32_t>(w), kSpread, dangling});
  }

  /// Sends (node, rank) for this worker's nodes.
  template <class Output>
  void send_ranks(Output& output, const timely::Capability<Inner>& cap) const {
    auto session = output.session(cap);
    for (std::size_t s = 0; s < rank.size(); ++s) session.give(Ranked{node(s), rank[s]});
  }
};

}  // namespace detail

/// PageRank over `graph` for `iterations` iterations: every node's rank, once, when the
/// computation is done, at time 0. Build it in a top-level scope with timestamps `Time`; `graph`
/// must outlive the dataflow (each worker reads its nodes' out-edges from it when the dataflow is
/// built). If `completed` is given, this worker writes there each iteration it completes.
template <class Scope>
timely::Stream<Time, Ranked> ranks(Scope& scope, const graphs::GraphInput& graph, std::uint32_t iterations,
                                   std::uint32_t* completed = nullptr) {
  using namespace timely::dataflow::operators;
  return scope.template iterative<Round>([&](auto& inner) {
    auto [handle, cycle] = loop_variable<Share>(inner);

    timely::OperatorBuilder<Inner> builder(inner, "PageRank");
    auto share_in =
        builder.new_input(cycle, timely::Exchange{[](const Share& s) { return std::uint64_t{s.worker}; }});
    auto shares = builder.template new_output<Share>();
    auto ranked = builder.template new_output<Ranked>();

    detail::State state;
    state.nodes = graph.nodes();
    state.iterations = iterations;
    state.index = inner.index();
    state.peers = inner.peers();
    builder.build([&](std::vector<timely::Capability<Inner>> caps) {
      // caps[0] sends the first shares, caps[1] the final ranks (any time will do for those: they
      // leave the loop, where only the outer time counts).
      state.build_graph(graph);
      return [state = std::move(state), share_in = std::move(share_in), share_out = std::move(shares.handle),
              rank_out = std::move(ranked.handle), completed,
              start = std::optional<timely::Capability<Inner>>(std::move(caps[0])),
              finish = std::optional<timely::Capability<Inner>>(std::move(caps[1]))]() mutable {
        share_in.for_each([&](const timely::InputCapability<Inner>& cap, std::vector<Share>& batch) {
          auto& p = state.pending_at(cap.time(), [&] { return cap.retain(); });
          double* incoming = p.incoming.data();
          for (const auto& share : batch) {
            if (share.slot == kSpread)
              p.spread += share.mass;
            else
              incoming[share.slot] += share.mass;
          }
        });
        if (start) {  // iteration 0: the uniform ranks
          if (state.iterations == 0) {
            state.send_ranks(rank_out, *finish);
            finish.reset();
          } else {
            state.send_shares(share_out, *start);
          }
          start.reset();
        }
        // Complete iterations, in order: every share of the step before has arrived.
        while (!state.pending.empty() && !share_in.frontier().less_equal(state.pending.begin()->first)) {
          auto entry = state.pending.extract(state.pending.begin());
          auto& p = entry.mapped();
          const double n = static_cast<double>(state.nodes);
          const double base = (1.0 - kDamping) / n + kDamping * p.spread / n;
          for (std::size_t s = 0; s < state.rank.size(); ++s) state.rank[s] = base + kDamping * p.incoming[s];
          state.spare = std::move(p.incoming);
          if (completed) *completed = p.cap.time().inner;
          if (p.cap.time().inner < state.iterations) {
            state.send_shares(share_out, p.cap);
          } else if (finish) {
            state.send_ranks(rank_out, *finish);
            finish.reset();
          }
        }
      };
    });

    shares.stream | connect_loop(handle);
    return ranked.stream | leave(scope);
  });
}

/// The `k` highest-ranked nodes (ties: smaller id first), in that order, on worker 0, once the
/// ranks are complete.
inline timely::Stream<Time, Ranked> top(const timely::Stream<Time, Ranked>& ranked, std::size_t k) {
  using namespace timely::dataflow::operators;
  auto keep_top = [k](auto pact, std::string name) {
    return unary_frontier<Ranked>(std::move(pact), std::move(name), [k](auto, const auto&) {
      std::map<Time, std::pair<timely::Capability<Time>, std::vector<Ranked>>> stash;
      return [k, stash = std::move(stash)](timely::OperatorInput<Time, Ranked>& input,
                                           timely::OperatorOutput<Time, Ranked>& output) mutable {
        input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Ranked>& batch) {
          auto it = stash.find(cap.time());
          if (it == stash.end())
            it = stash.emplace(cap.time(), std::make_pair(cap.retain(), std::vector<Ranked>{})).first;
          auto& list = it->second.second;
          list.insert(list.end(), batch.begin(), batch.end());
        });
        while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
          auto entry = stash.extract(stash.begin());
          auto& list = entry.mapped().second;
          const auto better = [](const Ranked& a, const Ranked& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
          };
          const std::size_t keep = std::min(k, list.size());
          std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(keep), list.end(),
                            better);
          list.resize(keep);
          output.session(entry.mapped().first).give_vec(list);
        }
      };
    });
  };
  return ranked | keep_top(timely::Pipeline{}, "TopLocal") |
         keep_top(timely::Exchange{[](const Ranked&) { return std::uint64_t{0}; }}, "TopGlobal");
}

}  // namespace pagerank
