// The graph examples' dataflows (bfs, pagerank, unionfind) against simple sequential versions
// written here, on the real graphs scripts/fetch-graphs.sh puts in data/ (email-Enron, power) and
// on random graphs, with 1, 2 and 4 workers; the edge-list reader and the flags; and the example
// programs' output and errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "bfs_dataflow.hpp"
#include "graph_common.hpp"
#include "pagerank_dataflow.hpp"
#include "support/catch.hpp"
#include "unionfind_dataflow.hpp"

#ifndef TIMELY_GRAPH_DATA
#define TIMELY_GRAPH_DATA "data"
#endif

using graphs::Edge;
using graphs::GraphInput;
using graphs::Node;

namespace {

constexpr std::size_t kWorkerCounts[] = {1, 2, 4};
constexpr std::int64_t kUnreached = -1;

/// A graph of data/, or a failed test that says how to get it.
GraphInput real_graph(const std::string& name, bool undirected) {
  const std::string path = std::string(TIMELY_GRAPH_DATA) + "/" + name + ".edges";
  if (!std::filesystem::exists(path)) FAIL(path << " is missing: run scripts/fetch-graphs.sh first");
  return GraphInput::file(path, undirected);
}

// --- Sequential versions ---------------------------------------------------------------------

std::vector<std::vector<Node>> out_edges(const GraphInput& graph) {
  std::vector<std::vector<Node>> adjacency(graph.nodes());
  graph.for_each_edge(0, 1, [&](const Edge& e) { adjacency[e.first].push_back(e.second); });
  return adjacency;
}

std::vector<std::int64_t> sequential_levels(const GraphInput& graph, Node root) {
  const auto adjacency = out_edges(graph);
  std::vector<std::int64_t> level(graph.nodes(), kUnreached);
  std::vector<Node> current{root}, next;
  level[root] = 0;
  for (std::int64_t depth = 1; !current.empty(); ++depth) {
    next.clear();
    for (Node u : current)
      for (Node v : adjacency[u])
        if (level[v] == kUnreached) {
          level[v] = depth;
          next.push_back(v);
        }
    std::swap(current, next);
  }
  return level;
}

std::uint64_t sequential_components(const GraphInput& graph) {
  std::vector<std::vector<Node>> neighbours(graph.nodes());
  graph.for_each_edge(0, 1, [&](const Edge& e) {
    neighbours[e.first].push_back(e.second);
    neighbours[e.second].push_back(e.first);
  });
  std::vector<bool> seen(graph.nodes());
  std::uint64_t components = 0;
  std::vector<Node> stack;
  for (Node start = 0; start < graph.nodes(); ++start) {
    if (seen[start]) continue;
    ++components;
    seen[start] = true;
    stack.push_back(start);
    while (!stack.empty()) {
      const Node u = stack.back();
      stack.pop_back();
      for (Node v : neighbours[u])
        if (!seen[v]) {
          seen[v] = true;
          stack.push_back(v);
        }
    }
  }
  return components;
}

std::vector<double> sequential_pagerank(const GraphInput& graph, std::uint32_t iterations) {
  const auto adjacency = out_edges(graph);
  const double n = static_cast<double>(graph.nodes());
  std::vector<double> rank(graph.nodes(), 1.0 / n), next(graph.nodes());
  for (std::uint32_t k = 0; k < iterations; ++k) {
    double dangling = 0;
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t u = 0; u < adjacency.size(); ++u) {
      if (adjacency[u].empty()) dangling += rank[u];
      for (Node v : adjacency[u]) next[v] += rank[u] / static_cast<double>(adjacency[u].size());
    }
    for (std::size_t v = 0; v < next.size(); ++v) rank[v] = 0.15 / n + 0.85 * (next[v] + dangling / n);
  }
  return rank;
}

// --- The dataflows ---------------------------------------------------------------------------

struct BfsResult {
  std::vector<std::int64_t> level;  // per node; kUnreached if never reached
  std::uint64_t duplicates = 0;     // nodes reported more than once
  std::map<bfs::Level, std::uint64_t> counts;
};

BfsResult dataflow_levels(const GraphInput& graph, Node root, std::size_t workers,
                          timely::ProgressMode mode = timely::ProgressMode::Demand) {
  using namespace timely::dataflow::operators;
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  std::vector<std::vector<bfs::Reached>> reached(workers);
  std::vector<std::vector<bfs::LevelCount>> counts(workers);
  timely::execute(config, [&](timely::Worker& worker) {
    worker.dataflow<bfs::Time>([&](auto& scope) {
      std::vector<Node> roots;
      if (worker.index() == workers - 1) roots.push_back(root);  // any worker may hold the root
      auto out = bfs::search(scope, to_stream(scope, graph.share(worker.index(), workers)),
                             to_stream(scope, std::move(roots)), graph.nodes());
      out | inspect([&, i = worker.index()](const bfs::Reached& r) { reached[i].push_back(r); });
      bfs::level_counts(out) |
          inspect([&, i = worker.index()](const bfs::LevelCount& c) { counts[i].push_back(c); });
    });
  });
  BfsResult result;
  result.level.assign(graph.nodes(), kUnreached);
  for (const auto& part : reached)
    for (const auto& [node, level] : part) {
      if (result.level[node] != kUnreached) ++result.duplicates;
      result.level[node] = level;
    }
  for (std::size_t w = 0; w < workers; ++w)
    for (const auto& [level, count] : counts[w]) {
      CHECK(w == 0);  // the counts end up on worker 0
      CHECK(result.counts.count(level) == 0);
      result.counts[level] += count;
    }
  return result;
}

std::uint64_t dataflow_components(const GraphInput& graph, std::size_t workers, std::uint64_t batch) {
  using namespace timely::dataflow::operators;
  std::vector<std::uint64_t> merges(workers);
  timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
    timely::InputHandle<unionfind::Time, Edge> input;
    timely::ProbeHandle<unionfind::Time> probe;
    worker.dataflow<unionfind::Time>([&](auto& scope) {
      unionfind::spanning_forest(scope, input.to_stream(scope), graph.nodes()) |
          inspect([&, i = worker.index()](const Edge&) { ++merges[i]; }) | probe_with(probe);
    });
    std::uint64_t sent = 0;
    graph.for_each_edge(worker.index(), workers, [&](const Edge& e) {
      input.send(e);
      if (++sent % batch == 0) {
        input.advance_to(input.time() + 1);
        while (probe.less_than(input.time())) worker.step();
      }
    });
  });
  std::uint64_t merged = 0;
  for (std::size_t w = 0; w < workers; ++w) {
    if (w > 0) CHECK(merges[w] == 0);  // the last stage runs on worker 0
    merged += merges[w];
  }
  return graph.nodes() - merged;
}

struct PagerankResult {
  std::vector<double> rank;
  std::uint64_t reported = 0;
  std::vector<pagerank::Ranked> top;
};

PagerankResult dataflow_pagerank(const GraphInput& graph, std::uint32_t iterations, std::size_t workers,
                                 timely::ProgressMode mode) {
  using namespace timely::dataflow::operators;
  std::vector<std::vector<pagerank::Ranked>> ranked(workers), top(workers);
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  timely::execute(config, [&](timely::Worker& worker) {
    worker.dataflow<pagerank::Time>([&](auto& scope) {
      auto out = pagerank::ranks(scope, graph, iterations);
      out | inspect([&, i = worker.index()](const pagerank::Ranked& r) { ranked[i].push_back(r); });
      pagerank::top(out, 10) |
          inspect([&, i = worker.index()](const pagerank::Ranked& r) { top[i].push_back(r); });
    });
  });
  PagerankResult result;
  result.rank.assign(graph.nodes(), -1.0);
  for (const auto& part : ranked)
    for (const auto& [node, rank] : part) {
      result.rank[node] = rank;
      ++result.reported;
    }
  for (std::size_t w = 1; w < workers; ++w) CHECK(top[w].empty());
  result.top = top[0];
  return result;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

/// Checks that `top` is a best-first top-k of `expected` ranks, allowing near-ties to swap.
void check_top(const std::vector<pagerank::Ranked>& top, const std::vector<double>& expected, std::size_t k) {
  std::vector<double> sorted = expected;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  REQUIRE(top.size() == std::min(k, expected.size()));
  for (std::size_t i = 0; i < top.size(); ++i) {
    INFO("place " << i << ": node " << top[i].first);
    CHECK(std::abs(top[i].second - expected[top[i].first]) <= 1e-9);
    CHECK(std::abs(top[i].second - sorted[i]) <= 1e-9);
  }
}

// --- Files and programs ----------------------------------------------------------------------

/// A scratch file with `text`, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int counter = 0;
    path_ = (std::filesystem::temp_directory_path() /
             ("timely-graphs-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".edges"))
                .string();
    std::ofstream(path_) << text;
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { std::filesystem::remove(path_); }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string error_of(const std::string& text) {
  TempFile file(text);
  try {
    graphs::read_edge_list(file.path());
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("edge lists: comments, the node-count header, and errors", "[graphs]") {
  {
    TempFile file("# a comment\n\n0 1\n  2\t3  \r\n#Nodes: 9\n1 1\n");
    auto list = graphs::read_edge_list(file.path());
    CHECK(list.nodes == 9);
    CHECK(list.edges == std::vector<Edge>{{0, 1}, {2, 3}, {1, 1}});
  }
  {
    TempFile file("5 0\n0 2\n");
    CHECK(graphs::read_edge_list(file.path()).nodes == 6);  // no header: 0 .. largest id
  }
  {
    TempFile file("");
    CHECK(graphs::read_edge_list(file.path()).nodes == 0);
  }
  CHECK_THAT(error_of("0 1\n1\n"), Catch::Contains(":2: expected 'SRC DST'") && Catch::Contains("'1'"));
  CHECK_THAT(error_of("0 1 2\n"), Catch::Contains(":1: expected 'SRC DST'"));
  CHECK_THAT(error_of("0,1\n"), Catch::Contains(":1: expected 'SRC DST'"));
  CHECK_THAT(error_of("a b\n"), Catch::Contains(":1: expected 'SRC DST'"));
  CHECK_THAT(error_of("-1 2\n"), Catch::Contains(":1: expected 'SRC DST'"));
  CHECK_THAT(error_of("0 4294967295\n"), Catch::Contains("node id too large"));
  CHECK_THAT(error_of("0 99999999999999999999999\n"), Catch::Contains("node id too large"));
  CHECK_THAT(error_of("0 1\n7 2\n# Nodes: 5\n"),
             Catch::Contains(":2: node id 7 not below the declared node count 5"));
  CHECK_THAT(error_of("# Nodes: 3\n0 3\n"),
             Catch::Contains(":2: node id not below the declared node count 3"));
  CHECK_THAT(error_of("# Nodes: 3\n# Nodes: 4\n"), Catch::Contains("a second '# Nodes:' header"));
  CHECK_THROWS_WITH(graphs::read_edge_list("/nonexistent/graph.edges"),
                    Catch::Contains("cannot open graph file '/nonexistent/graph.edges'"));
}

TEST_CASE("the graph examples' flags", "[graphs]") {
  auto parse = [](std::vector<std::string> args, unsigned accepted) {
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    return graphs::parse_args(static_cast<int>(argv.size()), argv.data(), accepted);
  };
  const unsigned all = graphs::kGraph | graphs::kRoot | graphs::kIterations | graphs::kUndirected;
  {
    auto [flags, config] = parse({"--graph", "g.edges", "-w", "3", "--root=7", "--undirected"}, all);
    CHECK(flags.graph == "g.edges");
    CHECK(flags.root == 7u);
    CHECK(flags.undirected);
    CHECK(!flags.iterations);
    CHECK(config.workers == 3);
    CHECK(config.positional.empty());
  }
  {
    auto [flags, config] = parse({"10", "20", "--iterations", "5"}, all);
    CHECK(flags.iterations == 5u);
    CHECK(config.positional == std::vector<std::string>{"10", "20"});
    CHECK(graphs::graph_from(flags, config, 2, "NODES EDGES").nodes() == 10);
  }
  CHECK_THROWS_AS(parse({"--root", "1"}, graphs::kGraph), timely::ConfigError);  // not this program's
  CHECK_THROWS_WITH(parse({"--root"}, all), Catch::Contains("--root needs a value"));
  CHECK_THROWS_WITH(parse({"--root", "x"}, all), Catch::Contains("--root"));
  CHECK_THROWS_WITH(parse({"--graph", "a", "--graph", "b"}, all), Catch::Contains("given twice"));
  auto [flags, config] = parse({"--graph", "a", "10"}, all);
  CHECK_THROWS_WITH(graphs::graph_from(flags, config, 2, "NODES EDGES"),
                    Catch::Contains("unexpected argument '10'"));
  auto [flags2, config2] = parse({"10"}, all);
  CHECK_THROWS_WITH(graphs::graph_from(flags2, config2, 2, "NODES EDGES"), Catch::Contains("NODES EDGES"));
}

TEST_CASE("SlotOf divides like '/' for every node id and worker count", "[graphs]") {
  std::uint64_t state = 0x5eed;  // SplitMix64 from a fixed seed
  for (std::size_t peers : {1ul, 2ul, 3ul, 4ul, 7ul, 64ul, 1000ul, 65537ul, 4294967295ul}) {
    const graphs::SlotOf slot_of(peers);
    INFO("peers " << peers);
    for (graphs::Node v : {0u, 1u, 2u, 3u, 4294967294u, 4294967295u}) CHECK(slot_of(v) == v / peers);
    for (int i = 0; i < 200000; ++i) {
      state += 0x9e3779b97f4a7c15ULL;
      const auto v = static_cast<graphs::Node>(graphs::mix64(state));
      if (slot_of(v) != v / peers) FAIL("node " << v);
    }
  }
}

TEST_CASE("the random graph does not depend on the worker count", "[graphs]") {
  for (bool undirected : {false, true}) {
    const auto graph = GraphInput::random(500, 3000, undirected);
    const auto whole = graph.share(0, 1);
    const auto loops = static_cast<std::size_t>(
        std::count_if(whole.begin(), whole.end(), [](const Edge& e) { return e.first == e.second; }));
    CHECK(whole.size() == (undirected ? 6000 - loops : 3000));  // a self-loop has no reverse
    for (std::size_t peers : {2u, 3u, 4u}) {
      std::vector<Edge> joined;
      for (std::size_t i = 0; i < peers; ++i) {
        auto part = graph.share(i, peers);
        joined.insert(joined.end(), part.begin(), part.end());
      }
      auto a = whole, b = joined;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      CHECK(a == b);
    }
  }
  CHECK(GraphInput::random(500, 3000, false).share(0, 1) == GraphInput::random(500, 3000, false).share(0, 1));
}

TEST_CASE("bfs levels equal a sequential search", "[graphs][bfs]") {
  struct Case {
    std::string what;
    GraphInput graph;
    Node root;
  };
  std::vector<Case> cases;
  cases.push_back({"random", GraphInput::random(3000, 7000, false), 0});
  cases.push_back({"random, undirected", GraphInput::random(3000, 3000, true), 17});
  cases.push_back({"power, undirected", real_graph("power", true), 0});
  cases.push_back({"power, undirected, from 4000", real_graph("power", true), 4000});
  cases.push_back({"power, as listed", real_graph("power", false), 8});
  cases.push_back({"email-Enron, undirected", real_graph("email-Enron", true), 0});
  cases.push_back({"email-Enron, as listed", real_graph("email-Enron", false), 0});
  for (const auto& c : cases) {
    const auto expected = sequential_levels(c.graph, c.root);
    std::map<bfs::Level, std::uint64_t> histogram;
    for (auto level : expected)
      if (level != kUnreached) ++histogram[static_cast<bfs::Level>(level)];
    for (std::size_t workers : kWorkerCounts) {
      INFO(c.what << " from " << c.root << ", " << workers << " workers");
      const auto result = dataflow_levels(c.graph, c.root, workers);
      CHECK(result.duplicates == 0);
      CHECK(result.level == expected);
      CHECK(result.counts == histogram);
    }
  }
  // What the data's documentation says about these graphs: one component, and the largest
  // weakly connected component of Enron.
  const auto power = sequential_levels(real_graph("power", true), 0);
  CHECK(std::count(power.begin(), power.end(), kUnreached) == 0);
  const auto enron = sequential_levels(real_graph("email-Enron", true), 0);
  CHECK(enron.size() - static_cast<std::size_t>(std::count(enron.begin(), enron.end(), kUnreached)) == 33696);
}

TEST_CASE("bfs levels do not depend on the progress mode", "[graphs][bfs]") {
  const auto graph = real_graph("power", true);
  const auto expected = sequential_levels(graph, 0);
  for (std::size_t workers : {2u, 4u}) {
    INFO(workers << " workers, eager progress");
    CHECK(dataflow_levels(graph, 0, workers, timely::ProgressMode::Eager).level == expected);
  }
}

TEST_CASE("union-find counts the connected components", "[graphs][unionfind]") {
  struct Case {
    std::string what;
    GraphInput graph;
    std::uint64_t batch;
  };
  std::vector<Case> cases;
  cases.push_back({"random, small batches", GraphInput::random(5000, 4000, false), 100});
  cases.push_back({"random, one batch", GraphInput::random(5000, 4000, false), 1'000'000});
  cases.push_back({"power", real_graph("power", false), 1000});
  cases.push_back({"email-Enron", real_graph("email-Enron", false), 20'000});
  for (const auto& c : cases) {
    const auto expected = sequential_components(c.graph);
    for (std::size_t workers : {1u, 2u, 3u, 4u}) {
      INFO(c.what << ", " << workers << " workers");
      CHECK(dataflow_components(c.graph, workers, c.batch) == expected);
    }
  }
  CHECK(sequential_components(real_graph("power", false)) == 1);
  CHECK(sequential_components(real_graph("email-Enron", false)) == 1065);
}

TEST_CASE("pagerank equals a sequential power iteration to 1e-9", "[graphs][pagerank]") {
  struct Case {
    std::string what;
    GraphInput graph;
    std::uint32_t iterations;
  };
  std::vector<Case> cases;
  cases.push_back({"random, no iterations", GraphInput::random(300, 900, false), 0});
  cases.push_back({"random, one iteration", GraphInput::random(300, 900, false), 1});
  cases.push_back({"random (dangling nodes)", GraphInput::random(3000, 4000, false), 20});
  cases.push_back({"power, undirected", real_graph("power", true), 20});
  cases.push_back({"power, as listed (dangling nodes)", real_graph("power", false), 20});
  cases.push_back({"email-Enron, undirected", real_graph("email-Enron", true), 20});
  for (const auto& c : cases) {
    const auto expected = sequential_pagerank(c.graph, c.iterations);
    double total = 0;
    for (double r : expected) total += r;
    CHECK(std::abs(total - 1.0) < 1e-9);
    for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
      for (std::size_t workers : kWorkerCounts) {
        INFO(c.what << ", " << c.iterations << " iterations, " << workers << " workers"
                    << (mode == timely::ProgressMode::Eager ? ", eager" : ""));
        const auto result = dataflow_pagerank(c.graph, c.iterations, workers, mode);
        CHECK(result.reported == c.graph.nodes());
        CHECK(max_difference(result.rank, expected) <= 1e-9);
        check_top(result.top, expected, 10);
      }
  }
}

#if defined(TIMELY_BFS_BINARY) && defined(TIMELY_PAGERANK_BINARY) && defined(TIMELY_UNIONFIND_BINARY)

namespace {

struct Run {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `binary` with `args` (no quoting needed) through the shell; returns its exit status and
/// output.
Run run(const std::string& binary, const std::string& args) {
  TempFile out(""), err("");
  const std::string command = "'" + binary + "' " + args + " >'" + out.path() + "' 2>'" + err.path() + "'";
  const int raw = std::system(command.c_str());
  Run result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = slurp(out.path());
  result.err = slurp(err.path());
  return result;
}

std::string data_file(const std::string& name) {
  real_graph(name, false);  // fails the test if missing
  return std::string(TIMELY_GRAPH_DATA) + "/" + name + ".edges";
}

}  // namespace

TEST_CASE("the example programs print the sequential answers on the real graphs", "[graphs][programs]") {
  const auto power = real_graph("power", true);
  const auto enron = real_graph("email-Enron", true);
  std::string power_levels, enron_levels;
  for (auto [graph, root, text] :
       {std::tuple{&power, Node{0}, &power_levels}, std::tuple{&enron, Node{5038}, &enron_levels}}) {
    std::map<std::int64_t, std::uint64_t> histogram;
    for (auto level : sequential_levels(*graph, root))
      if (level != kUnreached) ++histogram[level];
    for (const auto& [level, count] : histogram)
      *text += "level " + std::to_string(level) + ": " + std::to_string(count) + "\n";
  }
  const auto enron_ranks = sequential_pagerank(enron, 20);
  for (std::size_t workers : kWorkerCounts) {
    INFO(workers << " workers");
    const std::string w = " -w " + std::to_string(workers);
    auto bfs_power = run(TIMELY_BFS_BINARY, "--graph " + data_file("power") + " --undirected" + w);
    CHECK(bfs_power.status == 0);
    CHECK(bfs_power.out == power_levels);
    auto bfs_enron =
        run(TIMELY_BFS_BINARY, "--undirected --root 5038 --graph=" + data_file("email-Enron") + w);
    CHECK(bfs_enron.status == 0);
    CHECK(bfs_enron.out == enron_levels);
    auto components = run(TIMELY_UNIONFIND_BINARY, "--graph " + data_file("email-Enron") + w);
    CHECK(components.status == 0);
    CHECK(components.out == "components: 1065\n");
    auto ranks = run(TIMELY_PAGERANK_BINARY, "--graph " + data_file("email-Enron") + " --undirected" + w);
    CHECK(ranks.status == 0);
    std::vector<pagerank::Ranked> top;
    std::istringstream lines(ranks.out);
    Node node = 0;
    double rank = 0;
    while (lines >> node >> rank) top.emplace_back(node, rank);
    CHECK(lines.eof());
    check_top(top, enron_ranks, 10);
  }
}

TEST_CASE("the example programs reject bad input clearly", "[graphs][programs]") {
  TempFile malformed("# fine\n0 1\n1 two\n");
  TempFile small("0 1\n1 2\n");
  struct Case {
    std::string binary;
    std::string args;
    int status;
    std::string message;
  };
  const std::vector<Case> cases{
      {TIMELY_BFS_BINARY, "--graph /nonexistent/g.edges", 1,
       "bfs: error: cannot open graph file '/nonexistent/g.edges'"},
      {TIMELY_PAGERANK_BINARY, "--graph /nonexistent/g.edges", 1, "cannot open graph file"},
      {TIMELY_UNIONFIND_BINARY, "--graph /nonexistent/g.edges -w 2", 1, "cannot open graph file"},
      {TIMELY_PAGERANK_BINARY, "--graph /tmp", 1, "pagerank: error: graph file '/tmp' is a directory"},
      {TIMELY_UNIONFIND_BINARY, "--graph / -w 2", 1, "graph file '/' is a directory"},
      {TIMELY_BFS_BINARY, "--graph " + malformed.path(), 1,
       malformed.path() + ":3: expected 'SRC DST' (two node ids), got '1 two'"},
      {TIMELY_UNIONFIND_BINARY, "--graph " + malformed.path(), 1, ":3: expected 'SRC DST'"},
      {TIMELY_BFS_BINARY, "--graph " + small.path() + " --root 3", 1,
       "--root 3 is not a node of the graph (its nodes are 0 to 2)"},
      {TIMELY_BFS_BINARY, "100 200 --root 100", 1, "--root 100 is not a node"},
      {TIMELY_BFS_BINARY, "--graph " + small.path() + " 5", 2, "unexpected argument '5'"},
      {TIMELY_BFS_BINARY, "100", 2, "expected NODES EDGES"},
      {TIMELY_BFS_BINARY, "--graph", 2, "--graph needs a value"},
      {TIMELY_PAGERANK_BINARY, "--graph " + small.path() + " --root 1", 2, "--root"},
      {TIMELY_PAGERANK_BINARY, "10 10 --iterations many", 2, "--iterations"},
      {TIMELY_UNIONFIND_BINARY, "10 10", 2, "expected NODES EDGES BATCH"},
      {TIMELY_UNIONFIND_BINARY, "10 10 0", 2, "BATCH must be at least 1"},
      {TIMELY_BFS_BINARY, "--help", 0, "usage: bfs"},
  };
  for (const auto& c : cases) {
    INFO(c.binary << " " << c.args);
    const auto result = run(c.binary, c.args);
    CHECK(result.status == c.status);
    CHECK_THAT(result.out + result.err, Catch::Contains(c.message));
  }
}

#endif
