// Aggregation: count, accumulate, aggregate and state_machine, on 1, 2 and 4 workers in both
// progress modes, including that per-time results wait for their time to complete.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/worker.hpp>

#include <timely/dataflow/operators/aggregate.hpp>
#include <timely/dataflow/operators/count.hpp>
#include <timely/dataflow/operators/state_machine.hpp>

#include "conformance/operators_common.hpp"
#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using optest::mine;
using optest::Time;

namespace {
// Results of the per-time operators, tagged by which output produced them.
using Row = std::tuple<std::string, Time, std::string, std::uint64_t>;

// Records a row for `name` into `out`.
auto rows(std::vector<Row>& out, std::string name) {
  return [&out, name](const Time& t, const std::pair<std::string, std::uint64_t>& r) {
    out.emplace_back(name, t, r.first, r.second);
  };
}

// Steps `worker` a while with the input still at `now`, then reports (as rows named "early")
// any output already produced at `now`: none may appear before the time completes.
void check_nothing_early(timely::Worker& worker, std::vector<Row>& out, Time now) {
  for (int k = 0; k < 20; ++k) worker.step();
  for (const auto& row : out)
    if (std::get<1>(row) == now) out.emplace_back("early", now, std::get<0>(row), 0);
}
}  // namespace

TEST_CASE("count and accumulate send one value per time once the time is complete", "[operators][count]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<Row> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      auto to_zero = [](const auto&) { return 0; };
      // Per-worker counts, summed on worker 0.
      stream | count() | exchange(to_zero) |
          accumulate(std::size_t{0},
                     [](std::size_t& total, std::vector<std::size_t>& counts) {
                       for (auto c : counts) total += c;
                     }) |
          inspect_time([&](const Time& t, const std::size_t& n) { out.emplace_back("count", t, "", n); }) |
          probe_with(probe);
      stream | exchange(to_zero) |
          accumulate(std::uint64_t{0},
                     [](std::uint64_t& sum, std::vector<std::uint64_t>& batch) {
                       for (auto x : batch) sum += x;
                       batch.clear();  // the batch is the operator's to modify
                     }) |
          inspect_time([&](const Time& t, const std::uint64_t& s) { out.emplace_back("sum", t, "", s); }) |
          probe_with(probe);
    });
    for (Time round = 0; round < 5; ++round) {
      for (std::uint64_t i = 0; i < 3 * round + 1; ++i)
        if (mine(worker, i)) input.send(round * 100 + i);
      check_nothing_early(worker, out, round);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<Row> expected;
  for (Time t = 0; t < 5; ++t) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < 3 * t + 1; ++i) sum += t * 100 + i;
    expected.emplace_back("count", t, "", 3 * t + 1);
    expected.emplace_back("sum", t, "", sum);
  }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("aggregate folds each key per time and emits when the time completes", "[operators][aggregate]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<Row> out;
    timely::dataflow::InputHandle<Time, std::pair<std::string, std::uint64_t>> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto words = input.to_stream(scope);
      // State inferred from the fold; a user hash.
      words |
          aggregate([](const std::string&, std::uint64_t n, std::uint64_t& total) { total += n; },
                    [](std::string word, std::uint64_t total) {
                      return std::pair{std::move(word), total};
                    },
                    [](const std::string& word) { return std::hash<std::string>{}(word); }) |
          inspect_time(rows(out, "sum")) | probe_with(probe);
      // Generic lambdas: the state is named; keys routed by boost::hash.
      words |
          aggregate<std::vector<std::uint64_t>>(
              [](const auto&, auto n, auto& seen) { seen.push_back(n); },
              [](auto word, auto seen) {
                return std::pair{std::move(word), std::uint64_t(seen.size())};
              }) |
          inspect_time(rows(out, "records")) | probe_with(probe);
    });
    const std::vector<std::string> vocabulary{"ant", "bee", "cat", "dog", "eel"};
    for (Time round = 0; round < 4; ++round) {
      for (std::uint64_t i = 0; i < 12; ++i)
        if (mine(worker, i)) input.send({vocabulary[(i * (round + 1)) % vocabulary.size()], i});
      check_nothing_early(worker, out, round);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  const std::vector<std::string> vocabulary{"ant", "bee", "cat", "dog", "eel"};
  std::map<std::pair<Time, std::string>, std::pair<std::uint64_t, std::uint64_t>>
      totals;  // per time, not across
  for (Time t = 0; t < 4; ++t)
    for (std::uint64_t i = 0; i < 12; ++i) {
      auto& entry = totals[{t, vocabulary[(i * (t + 1)) % vocabulary.size()]}];
      entry.first += i;
      entry.second += 1;
    }
  std::vector<Row> expected;
  for (const auto& [key, value] : totals) {
    expected.emplace_back("sum", key.first, key.second, value.first);
    expected.emplace_back("records", key.first, key.second, value.second);
  }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("state_machine keeps per-key state across times and applies records in time order",
          "[operators][state_machine]") {
  constexpr Time rounds = 8;
  constexpr std::uint64_t keys = 6;
  constexpr std::uint64_t limit = 20;
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<std::tuple<std::string, Time, std::uint64_t, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::pair<std::uint64_t, std::uint64_t>> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto updates = input.to_stream(scope);
      // A running sum per key that starts over once it exceeds the limit.
      updates |
          state_machine(
              [&](const std::uint64_t& key, std::uint64_t val, std::uint64_t& sum) {
                sum += val;
                return std::pair{sum > limit,
                                 std::vector<std::pair<std::uint64_t, std::uint64_t>>{{key, sum}}};
              },
              [](const std::uint64_t& key) { return key; }) |
          inspect_time([&](const Time& t, const std::pair<std::uint64_t, std::uint64_t>& r) {
            out.emplace_back("sum", t, r.first, r.second);
          });
      // Generic fold with a named state and boost::hash routing; the remove flag every third record.
      updates | state_machine<std::uint64_t>([](const auto&, auto, auto& seen) {
        ++seen;
        return std::pair{seen == 3, std::vector<std::uint64_t>{seen}};
      }) | inspect_time([&](const Time& t, const std::uint64_t& seen) {
        out.emplace_back("seen", t, 0, seen);
      });
    });
    for (Time round = 0; round < rounds; ++round) {
      // Each key's records come from different workers in turn, so that they can arrive out
      // of time order.
      for (std::uint64_t key = 0; key < keys; ++key)
        if (mine(worker, key + round)) input.send({key, round + key + 1});
      input.advance_to(round + 1);
      if (round % 3 == 2) worker.step();  // later times often arrive before earlier ones complete
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::string, Time, std::uint64_t, std::uint64_t>> expected;
  for (std::uint64_t key = 0; key < keys; ++key) {
    std::uint64_t sum = 0, seen = 0;
    for (Time t = 0; t < rounds; ++t) {
      sum += t + key + 1;
      expected.emplace_back("sum", t, key, sum);
      if (sum > limit) sum = 0;
      ++seen;
      expected.emplace_back("seen", t, 0, seen);
      if (seen == 3) seen = 0;
    }
  }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}
