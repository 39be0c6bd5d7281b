// The COST baseline for `bfs --graph FILE`: one thread, no timely. Reads the edge list as the
// example does (../edge_list.hpp), builds compressed sparse rows and runs a queue-based
// breadth-first search from the root, then prints "level L: COUNT" per level on stdout, as the
// example. The last line on stderr is the machine-readable timing line benches/run reads.
//   baseline_bfs --graph FILE [--root R] [--undirected]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../edge_list.hpp"

int main(int argc, char** argv) {
  try {
    const auto start = std::chrono::steady_clock::now();
    const auto args = baseline::parse_args(argc, argv);
    const auto graph = baseline::read_graph(args.graph, args.undirected);
    if (args.root >= graph.nodes) throw std::invalid_argument("--root is not a node of the graph");
    const auto csr = baseline::out_edges(graph);

    constexpr std::uint32_t kUnreached = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> level(graph.nodes, kUnreached);
    std::vector<baseline::Node> frontier{static_cast<baseline::Node>(args.root)}, next;
    std::vector<std::uint64_t> counts;
    level[args.root] = 0;
    for (std::uint32_t depth = 0; !frontier.empty(); ++depth) {
      counts.push_back(frontier.size());
      next.clear();
      for (const auto v : frontier)
        for (std::size_t e = csr.offsets[v]; e < csr.offsets[v + 1]; ++e) {
          const auto w = csr.targets[e];
          if (level[w] == kUnreached) {
            level[w] = depth + 1;
            next.push_back(w);
          }
        }
      frontier.swap(next);
    }
    for (std::size_t l = 0; l < counts.size(); ++l)
      std::printf("level %zu: %llu\n", l, static_cast<unsigned long long>(counts[l]));
    std::fflush(stdout);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "bench: seconds=%.6f nodes=%llu edges=%zu levels=%zu\n", seconds,
                 static_cast<unsigned long long>(graph.nodes), graph.edges.size(), counts.size());
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "baseline_bfs: %s\nusage: baseline_bfs --graph FILE [--root R] [--undirected]\n",
                 e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baseline_bfs: %s\n", e.what());
    return 1;
  }
}
