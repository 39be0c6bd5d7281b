// bfs: breadth-first search on a random graph or an edge-list file, on several workers.
//   bfs NODES EDGES [--root R] [--undirected] [-w N]
//   bfs --graph FILE [--root R] [--undirected] [-w N]
// The first form searches the random graph with NODES nodes and EDGES edges (graph_common.hpp:
// the same graph for every worker count); the reference's example takes the same two numbers.
// The second reads FILE ("SRC DST" per line, '#' comments; see graph_common.hpp). The search
// starts at node R (default 0) and follows edges as listed (--undirected: both ways). Prints one
// line "level L: COUNT" per level, in order, on stdout; a summary and timings go to stderr.
// The dataflow is in bfs_dataflow.hpp.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "bfs_dataflow.hpp"
#include "common.hpp"
#include "graph_common.hpp"

namespace {
constexpr const char* kUsage = "(NODES EDGES | --graph FILE) [--root R] [--undirected] [-w N]";
}

int main(int argc, char** argv) {
  return examples::guarded_main("bfs", kUsage, [&] {
    using namespace timely::dataflow::operators;
    auto parsed = graphs::parse_args(argc, argv, graphs::kGraph | graphs::kRoot | graphs::kUndirected);
    auto& flags = parsed.first;
    auto& config = parsed.second;
    const auto load_start = std::chrono::steady_clock::now();
    const auto graph = graphs::graph_from(flags, config, 2, "NODES EDGES");
    const std::uint64_t root = flags.root.value_or(0);
    if (root >= graph.nodes())
      throw std::runtime_error("--root " + std::to_string(root) + " is not a node of the graph (" +
                               (graph.nodes() == 0
                                    ? std::string("it has no nodes")
                                    : "its nodes are 0 to " + std::to_string(graph.nodes() - 1)) +
                               ")");
    const auto start = std::chrono::steady_clock::now();

    std::vector<std::map<bfs::Level, std::uint64_t>> levels(config.workers);
    timely::execute(config, [&](timely::Worker& worker) {
      auto& mine = levels[worker.index() % config.workers];  // this process's workers only
      worker.dataflow<bfs::Time>([&](auto& scope) {
        auto edges = to_stream(scope, graph.share(worker.index(), worker.peers()));
        std::vector<graphs::Node> roots;
        if (worker.index() == 0) roots.push_back(static_cast<graphs::Node>(root));
        auto reached = bfs::search(scope, edges, to_stream(scope, std::move(roots)), graph.nodes());
        bfs::level_counts(reached) |
            inspect([&mine](const bfs::LevelCount& lc) { mine[lc.first] += lc.second; });
      });
    });
    const auto end = std::chrono::steady_clock::now();

    std::map<bfs::Level, std::uint64_t> total;
    for (const auto& part : levels)
      for (const auto& [level, count] : part) total[level] += count;
    std::uint64_t reached = 0;
    for (const auto& [level, count] : total) {
      std::printf("level %u: %llu\n", static_cast<unsigned>(level), static_cast<unsigned long long>(count));
      reached += count;
    }
    std::fflush(stdout);
    auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
    std::fprintf(stderr,
                 "bfs: %llu nodes, %llu edges%s; reached %llu from node %llu in %zu levels; %zu workers; "
                 "load %.3f s, search %.3f s\n",
                 static_cast<unsigned long long>(graph.nodes()),
                 static_cast<unsigned long long>(graph.edges()), graph.undirected() ? " (undirected)" : "",
                 static_cast<unsigned long long>(reached), static_cast<unsigned long long>(root),
                 total.size(), config.workers, seconds(load_start, start), seconds(start, end));
  });
}
