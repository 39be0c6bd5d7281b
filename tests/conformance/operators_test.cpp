// The per-record operators, exchange and concat: results and timestamps, on 1, 2 and 4 workers.
#include <chrono>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/operators/to_stream.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

TEST_CASE("map, filter, flat_map and inspect_time keep times", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::uint64_t, std::size_t>> seen;  // (time, value, worker)
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | map([](std::uint64_t x) { return x * 10; }) |
          filter([](const std::uint64_t& x) { return x % 20 == 0; }) | flat_map([](std::uint64_t x) {
            return std::vector<std::uint64_t>{x, x + 1};
          }) |
          exchange([](const std::uint64_t& x) { return x; }) |
          inspect_time([&](const Time& t, const std::uint64_t& x) { seen.emplace_back(t, x, 0); }) |
          probe_with(probe);
    });
    for (Time round = 0; round < 5; ++round) {
      for (std::uint64_t i = 0; i < 10; ++i)
        if (i % worker.peers() == worker.index()) input.send(round * 100 + i);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    return seen;
  });
  REQUIRE(result.size() == 5 * 5 * 2);
  for (const auto& [t, x, w] : result) {
    CHECK(x / 1000 == t);  // the value encodes its round
    CHECK((x % 1000) / 10 % 2 == 0);
  }
}

TEST_CASE("exchange routes each record to hash % peers", "[conformance]") {
  for (std::size_t workers : {1u, 2u, 3u, 4u}) {
    auto parts = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      std::vector<std::pair<std::uint64_t, std::size_t>> seen;
      worker.dataflow<Time>([&](auto& scope) {
        std::vector<std::uint64_t> values;
        for (std::uint64_t i = 0; i < 1000; ++i) values.push_back(i);
        to_stream(scope, values) | exchange([](const std::uint64_t& x) { return x * 7; }) |
            inspect([&, w = worker.index()](const std::uint64_t& x) { seen.emplace_back(x, w); });
      });
      while (worker.step()) {  // `seen` lives in this closure: finish before returning
      }
      return seen;
    });
    std::size_t total = 0;
    for (auto& part : parts)
      for (auto& [x, w] : part) {
        CHECK((x * 7) % workers == w);
        ++total;
      }
    CHECK(total == 1000 * workers);  // to_stream replicates its data on every worker
  }
}

TEST_CASE("concat merges two streams", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::string>> seen;
    timely::dataflow::InputHandle<Time, std::string> left, right;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto a = left.to_stream(scope);
      auto b = right.to_stream(scope) | map([](std::string s) { return s + "!"; });
      a | concat(b) | inspect_time([&](const Time& t, const std::string& s) { seen.emplace_back(t, s); }) |
          probe_with(probe);
    });
    if (worker.index() == 0) {
      left.send("a");
      right.send("b");
    }
    left.advance_to(3);
    right.advance_to(2);
    if (worker.index() == 0) {
      left.send("c");
      right.send("d");
    }
    left.close();
    right.close();
    while (!probe.done()) worker.step();
    return seen;
  });
  CHECK(result == std::vector<std::pair<Time, std::string>>{{0, "a"}, {0, "b!"}, {2, "d!"}, {3, "c"}});
}

TEST_CASE("a stream can feed several operators", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::int64_t> seen;
    worker.dataflow<Time>([&](auto& scope) {
      std::vector<std::int64_t> values;
      if (worker.index() == 0) values = {1, 2, 3};  // the same graph everywhere, data on one worker
      auto s = to_stream(scope, values);
      s | inspect([&](const std::int64_t& x) { seen.push_back(x); });
      s | map([](std::int64_t x) { return -x; }) | inspect([&](const std::int64_t& x) { seen.push_back(x); });
    });
    while (worker.step()) {
    }
    return seen;
  });
  CHECK(result == std::vector<std::int64_t>{-3, -2, -1, 1, 2, 3});
}

TEST_CASE("durations and lexicographic pairs work as dataflow timestamps", "[conformance]") {
  using D = std::chrono::milliseconds;
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<std::int64_t, int>> seen;
    timely::dataflow::InputHandle<D, int> input;
    timely::dataflow::ProbeHandle<D> probe;
    worker.dataflow<D>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const int& x) { return static_cast<std::uint64_t>(x); }) |
          inspect_time([&](const D& t, const int& x) { seen.emplace_back(t.count(), x); }) |
          probe_with(probe);
    });
    for (int i = 0; i < 3; ++i) {
      if (worker.index() == 0) input.send(i);
      input.advance_to(D(250 * (i + 1)));
      while (probe.less_than(input.time())) worker.step();
    }
    return seen;
  });
  CHECK(result == std::vector<std::pair<std::int64_t, int>>{{0, 0}, {250, 1}, {500, 2}});
  timely::execute_directly([](timely::Worker& worker) {
    using P = std::pair<std::uint64_t, std::uint64_t>;
    timely::dataflow::InputHandle<P, int> input;
    timely::dataflow::ProbeHandle<P> probe;
    worker.dataflow<P>([&](auto& scope) { input.to_stream(scope) | probe_with(probe); });
    input.advance_to(P{1, 5});
    input.advance_to(P{2, 0});  // lexicographically later although the second coordinate drops
    while (probe.less_than(input.time())) worker.step();
    CHECK_FALSE(probe.less_than(P{2, 0}));
  });
}
