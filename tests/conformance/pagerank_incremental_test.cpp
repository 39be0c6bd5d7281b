// The incremental PageRank of `pagerank NODES EDGES` (examples/pagerank_incremental.hpp) against
// a brute-force single-threaded model of the reference's computation written here: the same
// rounds on 1, 2 and 4 workers in both progress modes, and the program's output.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "graph_common.hpp"
#include "pagerank_incremental.hpp"
#include "support/catch.hpp"
#include "support/harness.hpp"

namespace inc = pagerank::incremental;
using graphs::Edge;
using graphs::Node;

namespace {

/// The computation, one round at a time, over ordered maps: every node's edges (target ->
/// multiplicity), rank and unapplied received changes, and the changes on their way to the next
/// round. Fails the test if the changes have not died out after `kMaxRounds`.
std::vector<inc::RoundStats> model(std::uint64_t nodes, std::uint64_t edges, std::uint64_t rounds) {
  constexpr std::uint64_t kMaxRounds = 100000;
  std::map<Node, std::map<Node, std::int64_t>> out;
  std::map<Node, std::int64_t> rank, received;
  auto rank_of = [&](Node v) { return rank.count(v) ? rank[v] : std::int64_t{1000}; };
  // What node v hands each target, as a map (targets ascending, multiplicity times its part).
  auto hands = [&](Node v) {
    std::map<Node, std::int64_t> part;
    const auto& targets = out[v];
    if (targets.empty()) return part;
    const std::int64_t total = rank_of(v) * 5 / 6, d = static_cast<std::int64_t>(targets.size());
    std::int64_t i = 0;
    for (const auto& [t, m] : targets) part[t] = m * (total / d + (i++ < total % d ? 1 : 0));
    return part;
  };
  std::map<Node, std::int64_t> arriving, next;  // summed changes per node
  bool any_arriving = false, any_next = false;  // whether records arrive, whatever they sum to
  // Sends what changing node v (by `change`) changes in what it hands out, as the reference
  // does: one record per target whose part changed.
  auto update = [&](Node v, auto&& change) {
    auto before = hands(v);
    change();
    auto after = hands(v);
    for (const auto& [t, x] : after) before[t] -= x;
    for (const auto& [t, x] : before)
      if (x != 0) {
        next[t] -= x;
        any_next = true;
      }
  };
  std::vector<inc::RoundStats> stats;
  for (std::uint64_t t = 0; t <= rounds || any_arriving; ++t) {
    if (t > kMaxRounds) FAIL("the model ran past " << kMaxRounds << " rounds");
    std::map<Edge, std::int64_t> changes;
    if (t == 0)
      for (std::uint64_t i = 0; i < edges; ++i) ++changes[graphs::random_edge(i, nodes)];
    else if (t <= rounds) {
      ++changes[graphs::random_edge(edges + t - 1, nodes)];
      --changes[graphs::random_edge(t - 1, nodes)];
    }
    for (const auto& [e, diff] : changes)
      if (diff != 0)
        update(e.first, [&, e = e, diff = diff] {
          if ((out[e.first][e.second] += diff) == 0) out[e.first].erase(e.second);
        });
    if (any_arriving) {
      inc::RoundStats round{t, 0, 0, 0};
      for (const auto& [v, diff] : arriving) {
        if (diff == 0) continue;
        ++round.changed;
        round.sum += std::abs(diff);
        round.max = std::max(round.max, std::abs(diff));
        if (std::abs(received[v] + diff) < 6) {
          received[v] += diff;
          continue;
        }
        update(v, [&, v = v, diff = diff] {
          rank[v] = rank_of(v) + received[v] + diff;
          received[v] = 0;
        });
      }
      stats.push_back(round);
    }
    arriving = std::move(next);
    next.clear();
    any_arriving = any_next;
    any_next = false;
  }
  return stats;
}

/// The dataflow's rounds on `config`-many workers, collected on worker 0.
std::vector<inc::RoundStats> dataflow(timely::Worker& worker, std::uint64_t nodes, std::uint64_t edges,
                                      std::uint64_t rounds) {
  using namespace timely::dataflow::operators;
  std::vector<inc::RoundStats> seen;
  timely::InputHandle<inc::Time, inc::EdgeChange> input;
  timely::ProbeHandle<inc::Time> probe;
  worker.dataflow<inc::Time>([&](auto& scope) {
    auto [changes, totals] = inc::ranks(scope, input.to_stream(scope), nodes);
    changes | probe_with(probe);
    totals | inspect([&](const inc::RoundStats& r) { seen.push_back(r); });
  });
  inc::feed(worker, input, probe, nodes, edges, rounds);
  while (worker.has_dataflows()) worker.step();
  return seen;
}

std::string lines(const std::vector<inc::RoundStats>& stats) {
  std::string text;
  for (const auto& r : stats)
    text += std::to_string(r.round) + "\t" + std::to_string(r.changed) + "\t" + std::to_string(r.sum) + "\t" +
            std::to_string(r.max) + "\n";
  return text;
}

struct Size {
  std::uint64_t nodes, edges, rounds;
};

// Sizes fix the random graph and its changes (graph_common.hpp's generator has no other seed):
// more rounds than edges (removals reach edges added by earlier rounds), dense graphs with
// parallel edges and self-loops, sparse ones with sinks, no edges at all.
constexpr Size kSizes[] = {{100, 400, 20}, {50, 40, 60}, {10, 25, 15}, {300, 300, 10}, {5, 0, 4}, {1, 1, 3}};

}  // namespace

TEST_CASE("compact and allocate follow the reference's rules", "[graphs][pagerank-incremental]") {
  std::vector<inc::RankChange> list{{3, 1}, {1, 2}, {3, -1}, {2, 0}, {1, 5}};
  inc::compact(list);
  CHECK(list == std::vector<inc::RankChange>{{1, 7}});
  std::vector<inc::RankChange> parts;
  // 1000 * 5 / 6 = 833 over 3 targets: 278, 278, 277; the second edge counts twice.
  inc::allocate(1000, {{4, 1}, {7, 2}, {9, 1}}, +1, parts);
  CHECK(parts == std::vector<inc::RankChange>{{4, 278}, {7, 556}, {9, 277}});
  parts.clear();
  inc::allocate(5, {{1, 1}}, -1, parts);
  CHECK(parts == std::vector<inc::RankChange>{{1, -4}});
}

TEST_CASE("incremental pagerank equals the brute-force model on 1, 2 and 4 workers",
          "[graphs][pagerank-incremental]") {
  for (const auto& size : kSizes) {
    INFO("pagerank " << size.nodes << " " << size.edges << " --rounds " << size.rounds);
    const auto expected = model(size.nodes, size.edges, size.rounds);
    if (size.edges > 0) CHECK(expected.size() > size.rounds / 2);  // the model itself does something
    const auto got = harness::same_on_all_worker_counts(
        [&](timely::Worker& worker) { return dataflow(worker, size.nodes, size.edges, size.rounds); });
    CHECK(lines(got) == lines(expected));
  }
}

#if defined(TIMELY_PAGERANK_BINARY)

TEST_CASE("pagerank NODES EDGES prints the model's rounds", "[graphs][pagerank-incremental][programs]") {
  const Size size{1000, 5000, 20};
  const auto expected = lines(model(size.nodes, size.edges, size.rounds));
  for (int workers : {1, 2, 4}) {
    INFO(workers << " workers");
    const std::string out = "pagerank_incremental_test." + std::to_string(workers) + ".out";
    const std::string command = std::string("'") + TIMELY_PAGERANK_BINARY + "' 1000 5000 --rounds 20 -w " +
                                std::to_string(workers) + " >" + out + " 2>/dev/null";
    const int raw = std::system(command.c_str());
    CHECK((WIFEXITED(raw) && WEXITSTATUS(raw) == 0));
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(out.c_str());
    CHECK(text.str() == expected);
  }
}

TEST_CASE("pagerank takes --rounds with NODES EDGES only", "[graphs][pagerank-incremental][programs]") {
  struct Case {
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"100 400 --iterations 3", "--iterations and --undirected go with --graph FILE"},
      {"100 400 --undirected", "--iterations and --undirected go with --graph FILE"},
      {"--graph nowhere.edges --rounds 3", "--rounds goes with NODES EDGES"},
      {"100 400 --rounds 3 --rounds=4", "--rounds given twice"},
      {"100 400 --rounds", "--rounds needs a value"},
      {"100 400 --rounds=x", "--rounds"},
      {"0 0 --rounds 2", "rounds of random edge changes need NODES >= 1"},
  };
  for (const auto& c : cases) {
    INFO("pagerank " << c.args);
    const std::string err = "pagerank_incremental_test.err";
    const std::string command =
        std::string("'") + TIMELY_PAGERANK_BINARY + "' " + c.args + " >/dev/null 2>" + err;
    const int raw = std::system(command.c_str());
    CHECK((WIFEXITED(raw) && WEXITSTATUS(raw) == 2));
    std::ifstream in(err);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(err.c_str());
    CHECK(text.str().find(c.message) != std::string::npos);
  }
}

#endif
