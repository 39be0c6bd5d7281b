// The COST baseline for `unionfind --graph FILE`: one thread, no timely. Reads the edge list as
// the example does (../edge_list.hpp) and runs union-find (union by rank, path halving, as the
// example's operator) over every edge; prints "components: C" (nodes without edges count as
// components of their own) on stdout, as the example. The last line on stderr is the
// machine-readable timing line benches/run reads.
//   baseline_unionfind --graph FILE [--undirected]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../edge_list.hpp"

int main(int argc, char** argv) {
  try {
    const auto start = std::chrono::steady_clock::now();
    const auto args = baseline::parse_args(argc, argv);
    const auto graph = baseline::read_graph(args.graph, args.undirected);
    std::vector<baseline::Node> parent(graph.nodes);
    std::vector<std::uint8_t> rank(graph.nodes, 0);
    for (std::size_t v = 0; v < parent.size(); ++v) parent[v] = static_cast<baseline::Node>(v);
    auto root = [&](baseline::Node x) {
      while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
      }
      return x;
    };
    std::uint64_t merges = 0;
    for (const auto& [a, b] : graph.edges) {
      auto x = root(a), y = root(b);
      if (x == y) continue;
      if (rank[x] < rank[y]) std::swap(x, y);
      parent[y] = x;
      if (rank[x] == rank[y]) ++rank[x];
      ++merges;
    }
    std::printf("components: %llu\n", static_cast<unsigned long long>(graph.nodes - merges));
    std::fflush(stdout);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "bench: seconds=%.6f nodes=%llu edges=%zu\n", seconds,
                 static_cast<unsigned long long>(graph.nodes), graph.edges.size());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "baseline_unionfind: %s\nusage: baseline_unionfind --graph FILE [--undirected]\n",
                 e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baseline_unionfind: %s\n", e.what());
    return 1;
  }
}
