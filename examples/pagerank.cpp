// pagerank: PageRank on a random graph or an edge-list file, on several workers.
//   pagerank NODES EDGES [--iterations K] [--undirected] [-w N]
//   pagerank --graph FILE [--iterations K] [--undirected] [-w N]
// The first form ranks the random graph with NODES nodes and EDGES edges (graph_common.hpp: the
// same graph for every worker count); the reference's example takes the same two numbers (it runs
// an incremental variant instead, with edge changes; this one computes the ranks from scratch).
// The second reads FILE ("SRC DST" per line, '#' comments; see graph_common.hpp). Runs K
// iterations (default 20) of standard PageRank with damping 0.85, dangling mass spread over all
// nodes (pagerank_dataflow.hpp), following edges as listed (--undirected: both ways). Prints the
// ten highest-ranked nodes as "NODE RANK" lines, best first, on stdout, ranks to 12 significant
// digits (sums are taken in arrival order, so the last bits of a double vary from run to run);
// a summary and timings go to stderr.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"
#include "graph_common.hpp"
#include "pagerank_dataflow.hpp"

namespace {
constexpr const char* kUsage = "(NODES EDGES | --graph FILE) [--iterations K] [--undirected] [-w N]";
constexpr std::size_t kTop = 10;
constexpr std::uint64_t kDefaultIterations = 20;
}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("pagerank", kUsage, [&] {
    using namespace timely::dataflow::operators;
    auto parsed = graphs::parse_args(argc, argv, graphs::kGraph | graphs::kIterations | graphs::kUndirected);
    auto& flags = parsed.first;
    auto& config = parsed.second;
    const std::uint64_t iterations = flags.iterations.value_or(kDefaultIterations);
    if (iterations >= std::numeric_limits<pagerank::Round>::max())
      throw timely::ConfigError("--iterations must be below " +
                                std::to_string(std::numeric_limits<pagerank::Round>::max()));
    const auto load_start = std::chrono::steady_clock::now();
    const auto graph = graphs::graph_from(flags, config, 2, "NODES EDGES");
    const auto start = std::chrono::steady_clock::now();

    std::vector<std::vector<pagerank::Ranked>> best(config.workers);
    timely::execute(config, [&](timely::Worker& worker) {
      auto& mine = best[worker.index() % config.workers];  // this process's workers only
      worker.dataflow<pagerank::Time>([&](auto& scope) {
        auto edges = to_stream(scope, graph.share(worker.index(), worker.peers()));
        auto ranked = pagerank::ranks(scope, edges, graph.nodes(), static_cast<pagerank::Round>(iterations));
        pagerank::top(ranked, kTop) | inspect([&mine](const pagerank::Ranked& r) { mine.push_back(r); });
      });
    });
    const auto end = std::chrono::steady_clock::now();

    for (const auto& part : best)
      for (const auto& [node, rank] : part) std::printf("%u %.12g\n", static_cast<unsigned>(node), rank);
    std::fflush(stdout);
    auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
    std::fprintf(
        stderr,
        "pagerank: %llu nodes, %llu edges%s; %llu iterations; %zu workers; load %.3f s, ranks %.3f s\n",
        static_cast<unsigned long long>(graph.nodes()), static_cast<unsigned long long>(graph.edges()),
        graph.undirected() ? " (undirected)" : "", static_cast<unsigned long long>(iterations),
        config.workers, seconds(load_start, start), seconds(start, end));
  });
}
