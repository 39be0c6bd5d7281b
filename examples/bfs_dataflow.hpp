// The breadth-first-search dataflow of the `bfs` example, shared with tests/graphs.
//
// The search runs in an iterative scope whose loop counter is the BFS level. Around the loop go
// candidate node ids: at level k, the nodes some level-(k-1) node points to (at level 0, the
// roots). Two operators make one round:
//
//  - Visit (records exchanged by node, so each node's state lives on one worker) waits until
//    level k is complete - progress tracking says no more candidates for k can arrive anywhere -
//    and then passes on, as (node, k), each candidate that no earlier level reached. Waiting for
//    completeness is what makes levels exact: a node's level-(k+1) candidate may arrive before
//    its level-k one.
//  - Expand (edges exchanged by source, so each worker holds the out-edges of the nodes it owns)
//    sends the targets of every newly reached node's out-edges back around the loop, where they
//    become level-(k+1) candidates, each target once per worker over the whole search (a target
//    sent before is reached by then). It first waits for all edges to arrive.
//
// The loop empties once a level reaches nothing new, and the scope completes. The reached nodes
// leave the scope with their levels; `level_counts` turns them into one (level, count) record per
// level, on worker 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

#include "graph_common.hpp"

namespace bfs {

using graphs::Edge;
using graphs::Node;
/// Outer time: a single epoch.
using Time = std::uint64_t;
/// The BFS level: the loop counter.
using Level = std::uint32_t;
using Inner = timely::Product<Time, Level>;
/// A node and the level it was first reached at.
using Reached = std::pair<Node, Level>;
/// A level and how many nodes it has.
using LevelCount = std::pair<Level, std::uint64_t>;

/// Visit: turns candidates into newly reached nodes, one complete level at a time.
inline auto visit(std::uint64_t nodes, std::size_t peers) {
  using namespace timely::dataflow::operators;
  auto by_node = timely::Exchange{[](const Node& v) { return std::uint64_t{v}; }};
  return unary_frontier<Reached>(by_node, "Visit", [nodes, peers](auto, const auto&) {
    struct Pending {
      timely::Capability<Inner> cap;
      std::vector<Node> candidates;
    };
    std::map<Inner, Pending> stash;  // by level; the loop's times are totally ordered
    std::vector<bool> visited((nodes + peers - 1) / peers);
    return [peers, stash = std::move(stash), visited = std::move(visited)](
               timely::OperatorInput<Inner, Node>& input,
               timely::OperatorOutput<Inner, Reached>& output) mutable {
      input.for_each([&](const timely::InputCapability<Inner>& cap, std::vector<Node>& batch) {
        auto it = stash.find(cap.time());
        if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
        auto& list = it->second.candidates;
        list.insert(list.end(), batch.begin(), batch.end());
      });
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto entry = stash.extract(stash.begin());
        auto& pending = entry.mapped();
        const Level level = pending.cap.time().inner;
        auto session = output.session(pending.cap);
        const graphs::SlotOf slot_of(peers);
        for (const Node v : pending.candidates) {
          const std::size_t slot = slot_of(v);
          if (slot >= visited.size())
            throw std::out_of_range("bfs: node " + std::to_string(v) + " is beyond the graph's node count");
          if (!visited[slot]) {
            visited[slot] = true;
            session.give(Reached{v, level});
          }
        }
      }
    };
  });
}

/// Expand: the out-neighbours of newly reached nodes, as next-level candidates. The edges must
/// all arrive in the scope's first epoch (for example from `to_stream`).
inline auto expand(const timely::Stream<Inner, Reached>& reached, std::uint64_t nodes, std::size_t peers) {
  using namespace timely::dataflow::operators;
  auto by_source = timely::Exchange{[](const Edge& e) { return std::uint64_t{e.first}; }};
  auto by_node = timely::Exchange{[](const Reached& r) { return std::uint64_t{r.first}; }};
  return binary_frontier<Node>(reached, by_source, by_node, "Expand", [nodes, peers](auto, const auto&) {
    struct Graph {
      std::vector<std::vector<Edge>> received;  // the batches, kept until every edge is in
      std::vector<std::size_t> offsets;         // CSR over this worker's nodes (by slot)
      std::vector<Node> targets;
      // A bit per node of the graph: sent as a candidate by this worker already. A node sent at
      // level k is reached at level k + 1 or earlier, so sending it again can never reach it:
      // each worker sends each node at most once (a combiner before the exchange).
      std::vector<std::uint64_t> sent;
      bool built = false;
    };
    std::vector<std::pair<timely::Capability<Inner>, std::vector<Reached>>> waiting;
    return [nodes, peers, graph = Graph{}, waiting = std::move(waiting)](
               timely::OperatorInput<Inner, Edge>& edges, timely::OperatorInput<Inner, Reached>& news,
               timely::OperatorOutput<Inner, Node>& output) mutable {
      edges.for_each([&](const timely::InputCapability<Inner>&, std::vector<Edge>& batch) {
        graph.received.push_back(std::move(batch));  // the batch's storage, not a copy
      });
      const graphs::SlotOf slot_of(peers);
      if (!graph.built && edges.frontier().empty()) {
        // Every edge is in: index this worker's out-edges by source slot (a counting sort).
        const std::size_t slots = (nodes + peers - 1) / peers;
        graph.offsets.assign(slots + 1, 0);
        for (const auto& batch : graph.received)
          for (const auto& [src, dst] : batch) ++graph.offsets[slot_of(src) + 1];
        for (std::size_t s = 0; s < slots; ++s) graph.offsets[s + 1] += graph.offsets[s];
        graph.targets.resize(graph.offsets[slots]);
        auto fill = graph.offsets;
        for (auto& batch : graph.received) {
          for (const auto& [src, dst] : batch) graph.targets[fill[slot_of(src)]++] = dst;
          batch = {};
        }
        graph.received = {};
        graph.sent.assign((nodes + 63) / 64, 0);
        graph.built = true;
      }
      auto send_neighbours = [&](auto& session, const std::vector<Reached>& batch) {
        for (const auto& [v, level] : batch) {
          const std::size_t slot = slot_of(v);
          for (std::size_t e = graph.offsets[slot]; e < graph.offsets[slot + 1]; ++e) {
            const Node w = graph.targets[e];
            auto& word = graph.sent[w / 64];
            const std::uint64_t bit = std::uint64_t{1} << (w % 64);
            if ((word & bit) == 0) {
              word |= bit;
              session.give(w);
            }
          }
        }
      };
      news.for_each([&](const timely::InputCapability<Inner>& cap, std::vector<Reached>& batch) {
        if (graph.built) {
          auto session = output.session(cap);
          send_neighbours(session, batch);
        } else {
          waiting.emplace_back(cap.retain(), std::move(batch));
        }
      });
      if (graph.built && !waiting.empty()) {
        for (auto& [cap, batch] : waiting) {
          auto session = output.session(cap);
          send_neighbours(session, batch);
        }
        waiting.clear();
      }
    };
  });
}

/// Breadth-first search from `roots` over `edges` (a graph of `nodes` nodes, ids below `nodes`):
/// every reachable node once, with its level (the roots are level 0), when the search is done.
/// Build it in a top-level scope with timestamps `Time`; both inputs must be finite.
template <class Scope>
timely::Stream<Time, Reached> search(Scope& scope, const timely::Stream<Time, Edge>& edges,
                                     const timely::Stream<Time, Node>& roots, std::uint64_t nodes) {
  using namespace timely::dataflow::operators;
  const std::size_t peers = scope.peers();
  return scope.template iterative<Level>([&](auto& inner) {
    auto [handle, cycle] = loop_variable<Node>(inner);
    auto reached = roots | enter(inner) | concat(cycle) | visit(nodes, peers);
    edges | enter(inner) | expand(reached, nodes, peers) | connect_loop(handle);
    return reached | leave(scope);
  });
}

/// Sums the counts of (key, count) records per key and time; once a time is complete, emits one
/// (key, sum) record per key seen at it, in key order.
template <class K, class Pact>
auto sum_by_key(Pact pact, std::string name) {
  using namespace timely::dataflow::operators;
  using Record = std::pair<K, std::uint64_t>;
  return unary_frontier<Record>(std::move(pact), std::move(name), [](auto first, const auto&) {
    using T = std::decay_t<decltype(first.time())>;
    std::map<T, std::pair<timely::Capability<T>, std::map<K, std::uint64_t>>> sums;
    return [sums = std::move(sums)](timely::OperatorInput<T, Record>& input,
                                    timely::OperatorOutput<T, Record>& output) mutable {
      input.for_each([&](const timely::InputCapability<T>& cap, std::vector<Record>& batch) {
        auto it = sums.find(cap.time());
        if (it == sums.end())
          it = sums.emplace(cap.time(), std::make_pair(cap.retain(), std::map<K, std::uint64_t>{})).first;
        for (const auto& [key, count] : batch) it->second.second[key] += count;
      });
      while (!sums.empty() && !input.frontier().less_equal(sums.begin()->first)) {
        auto entry = sums.extract(sums.begin());
        auto session = output.session(entry.mapped().first);
        for (const auto& [key, sum] : entry.mapped().second) session.give(Record{key, sum});
      }
    };
  });
}

/// How many nodes each level has: one (level, count) record per level, all on worker 0.
inline timely::Stream<Time, LevelCount> level_counts(const timely::Stream<Time, Reached>& reached) {
  using namespace timely::dataflow::operators;
  return reached | map([](const Reached& r) {
           return LevelCount{r.second, 1};
         }) |
         sum_by_key<Level>(timely::Pipeline{}, "CountLevels") |
         sum_by_key<Level>(timely::Exchange{[](const LevelCount&) { return std::uint64_t{0}; }}, "SumLevels");
}

}  // namespace bfs
