// The union-find dataflow of the `unionfind` example, shared with tests/graphs.
//
// As in the reference's example, a UnionFind operator keeps a union-find forest over the edges it
// has seen and passes on only the edges that join two of its trees, as (root, root) pairs; those
// are a spanning forest of what it saw, with the same connected components. Each worker first
// reduces its own edges this way. The reference then sends every survivor to worker 0; here the
// forests merge pairwise in a tree of exchanges instead (worker w sends to w with its lowest bit
// cleared, then its two lowest bits, ...), so ceil(log2 peers) further stages end on worker 0,
// and no worker merges more than two forests per stage.
//
// Every edge the last stage passes on joins two components of the graph seen so far, so a graph
// with N nodes has N - (edges out of the last stage) connected components, counting each node
// without edges as a component of its own. Direction is ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

#include "graph_common.hpp"

namespace unionfind {

using graphs::Edge;
using graphs::Node;
/// Epochs: batches of input edges.
using Time = std::uint64_t;

/// UnionFind over `nodes` nodes: passes on, as (root, root), each edge that joins two trees of
/// its forest. Union by rank with path halving.
template <class Pact>
auto union_find(Pact pact, std::uint64_t nodes) {
  using namespace timely::dataflow::operators;
  return unary<Edge>(std::move(pact), "UnionFind", [nodes](auto, const auto&) {
    struct Forest {
      std::vector<Node> parent;
      std::vector<std::uint8_t> rank;
      Node root(Node x) {
        while (parent[x] != x) {
          parent[x] = parent[parent[x]];
          x = parent[x];
        }
        return x;
      }
    };
    return [nodes, forest = Forest{}](timely::OperatorInput<Time, Edge>& input,
                                      timely::OperatorOutput<Time, Edge>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Edge>& batch) {
        if (forest.parent.empty()) {  // allocated on first use: many stages see no data
          forest.parent.resize(nodes);
          for (std::size_t v = 0; v < forest.parent.size(); ++v) forest.parent[v] = static_cast<Node>(v);
          forest.rank.assign(nodes, 0);
        }
        auto session = output.session(cap);
        for (const auto& [a, b] : batch) {
          Node x = forest.root(a);
          Node y = forest.root(b);
          if (x == y) continue;
          session.give(Edge{x, y});
          if (forest.rank[x] < forest.rank[y]) std::swap(x, y);
          forest.parent[y] = x;
          if (forest.rank[x] == forest.rank[y]) ++forest.rank[x];
        }
      });
    };
  });
}

/// The spanning forest of `edges` (ids below `nodes`), reduced locally and then merged pairwise
/// up to worker 0: the edges out of the last stage, all on worker 0.
template <class Scope>
timely::Stream<Time, Edge> spanning_forest(Scope& scope, const timely::Stream<Time, Edge>& edges,
                                           std::uint64_t nodes) {
  auto forest = edges | union_find(timely::Pipeline{}, nodes);
  const std::size_t index = scope.index();
  for (std::size_t span = 1; span < scope.peers(); span *= 2) {
    // This worker's survivors go to the worker whose index is ours with the low bits cleared.
    // The route depends on the sender, not the record: a reduction tree, not a partition.
    const std::uint64_t target = index & ~(2 * span - 1);
    forest = forest | union_find(timely::Exchange{[target](const Edge&) { return target; }}, nodes);
  }
  return forest;
}

}  // namespace unionfind
