// The COST baseline for `pagerank --graph FILE`: one thread, no timely. Reads the edge list as
// the example does (../edge_list.hpp) and runs K iterations (default 20) of the same standard
// PageRank (damping 0.85, dangling mass spread over all nodes; examples/pagerank_dataflow.hpp),
// pulling along in-edges with the sums taken in the order the one-worker example takes them
// (per target, sources ascending), so with -w 1 the ranks agree to the last bit. Prints the ten
// highest-ranked nodes (ties: smaller id first) as "NODE RANK", as the example. The last line on
// stderr is the machine-readable timing line benches/run reads.
//   baseline_pagerank --graph FILE [--iterations K] [--undirected]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

#include "../edge_list.hpp"

namespace {
constexpr double kDamping = 0.85;
constexpr std::size_t kTop = 10;
}  // namespace

int main(int argc, char** argv) {
  try {
    const auto start = std::chrono::steady_clock::now();
    const auto args = baseline::parse_args(argc, argv);
    const auto graph = baseline::read_graph(args.graph, args.undirected);
    const std::size_t n = graph.nodes;
    const auto out = baseline::out_edges(graph);
    // In-edges by target, sources ascending: walk the out-edges source by source.
    std::vector<std::size_t> in_offsets(n + 1, 0);
    for (const auto& e : graph.edges) ++in_offsets[e.second + 1];
    for (std::size_t v = 0; v < n; ++v) in_offsets[v + 1] += in_offsets[v];
    std::vector<baseline::Node> sources(graph.edges.size());
    {
      auto fill = in_offsets;
      for (std::size_t v = 0; v < n; ++v)
        for (std::size_t e = out.offsets[v]; e < out.offsets[v + 1]; ++e)
          sources[fill[out.targets[e]]++] = static_cast<baseline::Node>(v);
    }
    std::vector<double> rank(n, n > 0 ? 1.0 / static_cast<double>(n) : 0.0), share(n, 0.0);
    for (std::uint64_t k = 0; k < args.iterations; ++k) {
      double dangling = 0;
      for (std::size_t v = 0; v < n; ++v) {
        const auto degree = out.offsets[v + 1] - out.offsets[v];
        if (degree == 0)
          dangling += rank[v];
        else
          share[v] = rank[v] / static_cast<double>(degree);
      }
      const double base =
          (1.0 - kDamping) / static_cast<double>(n) + kDamping * dangling / static_cast<double>(n);
      for (std::size_t v = 0; v < n; ++v) {
        double mass = 0;
        for (std::size_t e = in_offsets[v]; e < in_offsets[v + 1]; ++e) mass += share[sources[e]];
        rank[v] = base + kDamping * mass;
      }
    }
    std::vector<std::pair<baseline::Node, double>> ranked(n);
    for (std::size_t v = 0; v < n; ++v) ranked[v] = {static_cast<baseline::Node>(v), rank[v]};
    const std::size_t keep = std::min(kTop, n);
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                      [](const auto& a, const auto& b) {
                        return a.second != b.second ? a.second > b.second : a.first < b.first;
                      });
    for (std::size_t i = 0; i < keep; ++i)
      std::printf("%u %.12g\n", static_cast<unsigned>(ranked[i].first), ranked[i].second);
    std::fflush(stdout);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "bench: seconds=%.6f nodes=%zu edges=%zu iterations=%llu\n", seconds, n,
                 graph.edges.size(), static_cast<unsigned long long>(args.iterations));
  } catch (const std::invalid_argument& e) {
    std::fprintf(
        stderr,
        "baseline_pagerank: %s\nusage: baseline_pagerank --graph FILE [--iterations K] [--undirected]\n",
        e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "baseline_pagerank: %s\n", e.what());
    return 1;
  }
}
