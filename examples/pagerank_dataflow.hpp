// The PageRank dataflow of the `pagerank` example, shared with tests/graphs.
//
// Standard PageRank by power iteration over N nodes, damping d = 0.85:
//   r_0(v)     = 1 / N
//   r_{k+1}(v) = (1 - d) / N + d * (sum over edges u -> v of r_k(u) / outdeg(u) + D_k / N)
// where D_k is the rank of the nodes without out-edges at step k ("dangling" mass, spread evenly
// over all nodes, so the ranks always sum to 1). Parallel edges count with their multiplicity.
//
// One operator, PageRank, in an iterative scope whose loop counter is the iteration. Edges are
// exchanged by source, so each worker holds the out-edges and the rank of the nodes it owns (node
// v on worker v % peers). Around the loop go `Share`s: rank mass along edges, summed per target
// on the sending worker and sent to the worker owning the target, and each worker's dangling
// mass, to every worker. Once every edge is in, the operator sends the shares of r_0. Then, when
// progress tracking says iteration k is complete (every share sent at step k-1 has arrived,
// on every worker), it computes r_k for its nodes; before the last iteration it sends their
// shares around again, and at the last it sends (node, rank) out of the loop.
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

/// Rank mass on its way: along edges to node `to`, or (`spread`) a worker's dangling mass for
/// worker `to`. Either way it is routed to worker `to % peers`.
struct Share {
  Node to = 0;
  bool spread = false;
  double mass = 0;
};

namespace detail {

/// What the PageRank operator keeps: this worker's nodes (by slot v / peers), their out-degrees
/// and out-edges, their ranks, and the shares received per iteration.
struct State {
  std::uint64_t nodes = 0;
  std::uint32_t iterations = 0;
  std::size_t index = 0;
  std::size_t peers = 1;
  std::vector<Edge> received;  // until every edge is in
  bool built = false;
  std::vector<std::uint32_t> degree;                      // by slot
  std::vector<std::pair<Node, std::uint32_t>> by_target;  // (target, source slot), sorted
  std::vector<double> rank;                               // by slot
  std::vector<double> share;                              // rank / degree, by slot (scratch)
  struct Pending {
    timely::Capability<Inner> cap;
    std::vector<double> incoming;  // mass along edges, by slot
    double spread = 0;             // dangling mass, all workers'
  };
  std::map<Inner, Pending> pending;
  std::vector<double> spare;  // a recycled `incoming`

  [[nodiscard]] std::size_t slots() const { return graphs::owned_count(nodes, index, peers); }
  [[nodiscard]] Node node(std::size_t slot) const { return static_cast<Node>(index + slot * peers); }

  void build_graph() {
    degree.assign(slots(), 0);
    by_target.reserve(received.size());
    for (const auto& [src, dst] : received) {
      const auto slot = static_cast<std::uint32_t>(src / peers);
      ++degree[slot];
      by_target.emplace_back(dst, slot);
    }
    received = {};
    std::sort(by_target.begin(), by_target.end());
    rank.assign(slots(), nodes > 0 ? 1.0 / static_cast<double>(nodes) : 0.0);
    share.resize(slots());
    built = true;
  }

  /// Sends this worker's shares of the current ranks at `cap`'s time: one per distinct target
  /// (the edges are sorted by target, so the mass for each is summed here, before the exchange),
  /// and the dangling mass to every worker.
  template <class Output>
  void send_shares(Output& output, const timely::Capability<Inner>& cap) {
    double dangling = 0;
    for (std::size_t s = 0; s < rank.size(); ++s) {
      if (degree[s] == 0)
        dangling += rank[s];
      else
        share[s] = rank[s] / static_cast<double>(degree[s]);
    }
    auto session = output.session(cap);
    for (std::size_t e = 0; e < by_target.size();) {
      const Node target = by_target[e].first;
      double mass = 0;
      for (; e < by_target.size() && by_target[e].first == target; ++e) mass += share[by_target[e].second];
      session.give(Share{target, false, mass});
    }
    for (std::size_t w = 0; w < peers; ++w) session.give(Share{static_cast<Node>(w), true, dangling});
  }

  /// Sends (node, rank) for this worker's nodes.
  template <class Output>
  void send_ranks(Output& output, const timely::Capability<Inner>& cap) const {
    auto session = output.session(cap);
    for (std::size_t s = 0; s < rank.size(); ++s) session.give(Ranked{node(s), rank[s]});
  }
};

}  // namespace detail

/// PageRank over `edges` (ids below `nodes`) for `iterations` iterations: every node's rank, once,
/// when the computation is done. Build it in a top-level scope with timestamps `Time`; the edges
/// must all arrive in the first epoch (for example from `to_stream`).
template <class Scope>
timely::Stream<Time, Ranked> ranks(Scope& scope, const timely::Stream<Time, Edge>& edges, std::uint64_t nodes,
                                   std::uint32_t iterations) {
  using namespace timely::dataflow::operators;
  return scope.template iterative<Round>([&](auto& inner) {
    auto [handle, cycle] = loop_variable<Share>(inner);

    timely::OperatorBuilder<Inner> builder(inner, "PageRank");
    auto edge_in = builder.new_input(edges | enter(inner),
                                     timely::Exchange{[](const Edge& e) { return std::uint64_t{e.first}; }});
    auto share_in =
        builder.new_input(cycle, timely::Exchange{[](const Share& s) { return std::uint64_t{s.to}; }});
    auto share_out_made = builder.template new_output<Share>();
    auto& share_out = share_out_made.first;
    auto& shares = share_out_made.second;
    auto rank_out_made = builder.template new_output<Ranked>();
    auto& rank_out = rank_out_made.first;
    auto& ranked = rank_out_made.second;

    detail::State state;
    state.nodes = nodes;
    state.iterations = iterations;
    state.index = inner.index();
    state.peers = inner.peers();
    builder.build([&](std::vector<timely::Capability<Inner>> caps) {
      // caps[0] sends the first shares, caps[1] the final ranks (any time will do for those: they
      // leave the loop, where only the outer time counts).
      return [state = std::move(state), edge_in = std::move(edge_in), share_in = std::move(share_in),
              share_out = std::move(share_out), rank_out = std::move(rank_out),
              start = std::optional<timely::Capability<Inner>>(std::move(caps[0])),
              finish = std::optional<timely::Capability<Inner>>(std::move(caps[1]))]() mutable {
        edge_in.for_each([&](const timely::InputCapability<Inner>&, std::vector<Edge>& batch) {
          state.received.insert(state.received.end(), batch.begin(), batch.end());
        });
        share_in.for_each([&](const timely::InputCapability<Inner>& cap, std::vector<Share>& batch) {
          auto it = state.pending.find(cap.time());
          if (it == state.pending.end()) {
            std::vector<double> incoming = std::move(state.spare);
            incoming.assign(state.slots(), 0.0);
            it = state.pending
                     .emplace(cap.time(), detail::State::Pending{cap.retain(), std::move(incoming), 0.0})
                     .first;
          }
          auto& p = it->second;
          for (const auto& share : batch) {
            if (share.spread)
              p.spread += share.mass;
            else
              p.incoming[share.to / state.peers] += share.mass;
          }
        });
        if (!state.built) {
          if (!edge_in.frontier().empty()) return;
          state.build_graph();
        }
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
          if (p.cap.time().inner < state.iterations) {
            state.send_shares(share_out, p.cap);
          } else if (finish) {
            state.send_ranks(rank_out, *finish);
            finish.reset();
          }
        }
      };
    });

    shares | connect_loop(handle);
    return ranked | leave(scope);
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
