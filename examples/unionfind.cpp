// unionfind: connected components by union-find on a random graph or an edge-list file.
//   unionfind NODES EDGES BATCH [-w N]
//   unionfind --graph FILE [-w N]
// The first form streams the random graph with NODES nodes and EDGES edges (graph_common.hpp:
// the same graph for every worker count) in epochs of BATCH edges per worker, as the reference's
// example does. The second reads FILE ("SRC DST" per line, '#' comments; see graph_common.hpp)
// and streams it in epochs of 100,000 edges per worker. Each worker feeds its share of the edges;
// unionfind_dataflow.hpp reduces them to a spanning forest. Prints "components: C" (nodes without
// edges count as components of their own; direction is ignored) on stdout; a summary and
// timings go to stderr.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"
#include "graph_common.hpp"
#include "unionfind_dataflow.hpp"

namespace {
constexpr const char* kUsage = "(NODES EDGES BATCH | --graph FILE) [--undirected] [-w N]";
constexpr std::uint64_t kFileBatch = 100'000;
}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("unionfind", kUsage, [&] {
    using namespace timely::dataflow::operators;
    auto parsed = graphs::parse_args(argc, argv, graphs::kGraph | graphs::kUndirected);
    auto& flags = parsed.first;
    auto& config = parsed.second;
    const auto load_start = std::chrono::steady_clock::now();
    const auto graph = graphs::graph_from(flags, config, 3, "NODES EDGES BATCH");
    const std::uint64_t batch =
        flags.graph ? kFileBatch : examples::parse_count(config.positional[2], "BATCH");
    if (batch == 0) throw timely::ConfigError("BATCH must be at least 1");
    const auto start = std::chrono::steady_clock::now();

    std::vector<std::uint64_t> merges(config.workers, 0);
    std::vector<std::uint64_t> epochs(config.workers, 0);
    timely::execute(config, [&](timely::Worker& worker) {
      timely::InputHandle<unionfind::Time, graphs::Edge> input;
      timely::ProbeHandle<unionfind::Time> probe;
      auto& mine = merges[worker.index() % config.workers];  // this process's workers only
      worker.dataflow<unionfind::Time>([&](auto& scope) {
        // The forest's edges are counted on worker 0, so that process 0 knows the whole count
        // however many processes there are.
        unionfind::spanning_forest(scope, input.to_stream(scope), graph.nodes()) |
            exchange([](const graphs::Edge&) { return std::uint64_t{0}; }) |
            inspect([&mine](const graphs::Edge&) { ++mine; }) | probe_with(probe);
      });
      std::uint64_t sent = 0;
      graph.for_each_edge(worker.index(), worker.peers(), [&](const graphs::Edge& e) {
        input.send(e);
        if (++sent % batch == 0) {
          input.advance_to(input.time() + 1);
          while (probe.less_than(input.time())) worker.step();
        }
      });
      epochs[worker.index() % config.workers] = (sent + batch - 1) / batch;
      input.close();
    });
    const auto end = std::chrono::steady_clock::now();

    std::uint64_t merged = 0;
    for (auto m : merges) merged += m;
    if (config.process_index == 0)  // worker 0 is there
      std::printf("components: %llu\n", static_cast<unsigned long long>(graph.nodes() - merged));
    std::fflush(stdout);
    auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
    std::fprintf(stderr,
                 "unionfind: %llu nodes, %llu edges; %llu epochs on worker 0; %zu workers; load %.3f s, "
                 "union-find %.3f s\n",
                 static_cast<unsigned long long>(graph.nodes()),
                 static_cast<unsigned long long>(graph.edges()), static_cast<unsigned long long>(epochs[0]),
                 config.workers, seconds(load_start, start), seconds(start, end));
  });
}
