// pagerank: incremental PageRank under rounds of random edge changes, or standard PageRank on an
// edge-list file, on several workers.
//   pagerank NODES EDGES [--rounds R] [-w N]
//   pagerank --graph FILE [--iterations K] [--undirected] [-w N]
// The first form is the reference's `pagerank NODES EDGES` (pagerank_incremental.hpp): integer
// ranks on the random graph with NODES nodes and EDGES edges (graph_common.hpp), then R rounds
// (default 999, as the reference's) that each add one random edge and remove the oldest, each
// round waiting for the one before; after the last round the changes run until they die out.
// Prints a line per round that moved rank, "ROUND<TAB>CHANGED<TAB>SUM<TAB>MAX" (the reference's
// columns but its elapsed time, summed over the workers: the same for every worker count).
// The second reads FILE ("SRC DST" per line, '#' comments; see graph_common.hpp) and runs K
// iterations (default 20) of standard PageRank with damping 0.85, dangling mass spread over all
// nodes (pagerank_dataflow.hpp), following edges as listed (--undirected: both ways). Prints the
// ten highest-ranked nodes as "NODE RANK" lines, best first, on stdout, ranks to 12 significant
// digits (sums are taken in arrival order, so the last bits of a double vary from run to run).
// Either way a summary and timings go to stderr.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"
#include "graph_common.hpp"
#include "pagerank_dataflow.hpp"
#include "pagerank_incremental.hpp"
#include "progress_line.hpp"

namespace {
constexpr const char* kUsage =
    "NODES EDGES [--rounds R] [--quiet] [-w N] | --graph FILE [--iterations K] [--undirected] [--quiet] [-w "
    "N]";
constexpr const char* kOptions =
    "  NODES EDGES        incremental PageRank on a random graph of NODES nodes and EDGES edges\n"
    "  --rounds R         rounds of one edge added and the oldest removed (default 999)\n"
    "  --graph FILE       standard PageRank on an edge list (\"SRC DST\" lines, '#' comments)\n"
    "  --iterations K     iterations of standard PageRank (default 20)\n"
    "  --undirected       follow each edge of FILE both ways\n"
    "  --quiet            no progress line on stderr\n";
constexpr std::size_t kTop = 10;
constexpr std::uint64_t kDefaultIterations = 20;
constexpr std::uint64_t kDefaultRounds = 999;

double seconds(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

/// Takes `--rounds R` (or `--rounds=R`) out of argv, which graphs::parse_args does not know.
std::optional<std::uint64_t> take_rounds(std::vector<char*>& args) {
  std::optional<std::uint64_t> rounds;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string arg = args[i];
    if (arg == "--") break;
    std::string value;
    std::size_t taken = 1;
    if (arg == "--rounds") {
      if (i + 1 >= args.size()) throw timely::ConfigError("--rounds needs a value");
      value = args[i + 1];
      taken = 2;
    } else if (arg.rfind("--rounds=", 0) == 0) {
      value = arg.substr(9);
    } else {
      continue;
    }
    if (rounds) throw timely::ConfigError("--rounds given twice");
    rounds = examples::parse_count(value, "--rounds");
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
               args.begin() + static_cast<std::ptrdiff_t>(i + taken));
    --i;
  }
  return rounds;
}

/// The random mode: the reference's incremental computation.
void run_incremental(const graphs::GraphInput& graph, const timely::Config& config, std::uint64_t rounds,
                     bool quiet) {
  using namespace timely::dataflow::operators;
  namespace inc = pagerank::incremental;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t reported = 0, last = 0;
  timely::execute(config, [&](timely::Worker& worker) {
    timely::InputHandle<inc::Time, inc::EdgeChange> input;
    timely::ProbeHandle<inc::Time> probe;
    worker.dataflow<inc::Time>([&](auto& scope) {
      auto [changes, totals] = inc::ranks(scope, input.to_stream(scope), graph.nodes());
      changes | probe_with(probe);
      totals | inspect([&](const inc::RoundStats& r) {  // worker 0 only
        std::printf("%llu\t%llu\t%lld\t%lld\n", static_cast<unsigned long long>(r.round),
                    static_cast<unsigned long long>(r.changed), static_cast<long long>(r.sum),
                    static_cast<long long>(r.max));
        ++reported;
        last = r.round;
      });
    });
    examples::ProgressLine progress("pagerank", "rounds", static_cast<double>(rounds),
                                    !quiet && worker.index() == 0);
    inc::feed(worker, input, probe, graph.nodes(), graph.edges(), rounds,
              [&](std::uint64_t round) { progress.update(static_cast<double>(round)); });
  });
  const auto end = std::chrono::steady_clock::now();
  std::fflush(stdout);
  std::fprintf(stderr, "pagerank: %llu nodes, %llu edges, %llu rounds of changes; %zu workers; %.3f s",
               static_cast<unsigned long long>(graph.nodes()), static_cast<unsigned long long>(graph.edges()),
               static_cast<unsigned long long>(rounds), config.workers, seconds(start, end));
  if (config.process_index == 0)  // worker 0 is here: it saw the rounds
    std::fprintf(stderr, "; %llu rounds moved rank, the last %llu", static_cast<unsigned long long>(reported),
                 static_cast<unsigned long long>(last));
  std::fprintf(stderr, "\n");
}
}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("pagerank", kUsage, kOptions, [&] {
    using namespace timely::dataflow::operators;
    std::vector<char*> args(argv, argv + argc);
    const bool quiet = examples::take_switch(args, "--quiet");
    const auto rounds = take_rounds(args);
    auto parsed = graphs::parse_args(static_cast<int>(args.size()), args.data(),
                                     graphs::kGraph | graphs::kIterations | graphs::kUndirected);
    auto& flags = parsed.first;
    auto& config = parsed.second;
    if (!flags.graph) {
      if (flags.iterations || flags.undirected)
        throw timely::ConfigError(
            "--iterations and --undirected go with --graph FILE; NODES EDGES takes --rounds R");
      const auto graph = graphs::graph_from(flags, config, 2, "NODES EDGES");
      if (graph.nodes() == 0 && rounds.value_or(kDefaultRounds) > 0)
        throw timely::ConfigError("rounds of random edge changes need NODES >= 1 (or --rounds 0)");
      run_incremental(graph, config, rounds.value_or(kDefaultRounds), quiet);
      return;
    }
    if (rounds)
      throw timely::ConfigError("--rounds goes with NODES EDGES; --graph FILE takes --iterations K");
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
      std::uint32_t completed = 0;
      worker.dataflow<pagerank::Time>([&](auto& scope) {
        auto ranked = pagerank::ranks(scope, graph, static_cast<pagerank::Round>(iterations), &completed);
        pagerank::top(ranked, kTop) | inspect([&mine](const pagerank::Ranked& r) { mine.push_back(r); });
      });
      examples::ProgressLine progress("pagerank", "iterations", static_cast<double>(iterations),
                                      !quiet && worker.index() == 0);
      while (worker.step_or_park(std::chrono::milliseconds(100))) progress.update(completed);
    });
    const auto end = std::chrono::steady_clock::now();

    for (const auto& part : best)
      for (const auto& [node, rank] : part) std::printf("%u %.12g\n", static_cast<unsigned>(node), rank);
    std::fflush(stdout);
    std::fprintf(
        stderr,
        "pagerank: %llu nodes, %llu edges%s; %llu iterations; %zu workers; load %.3f s, ranks %.3f s\n",
        static_cast<unsigned long long>(graph.nodes()), static_cast<unsigned long long>(graph.edges()),
        graph.undirected() ? " (undirected)" : "", static_cast<unsigned long long>(iterations),
        config.workers, seconds(load_start, start), seconds(start, end));
  });
}
