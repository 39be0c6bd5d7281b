// Time manipulation: delay, delay_total, delay_batch and reclock, on 1, 2 and 4 workers in both
// progress modes, including when their output appears relative to the input frontier.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/operators/to_stream.hpp>
#include <timely/execute.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

#include <timely/dataflow/operators/broadcast.hpp>
#include <timely/dataflow/operators/delay.hpp>
#include <timely/dataflow/operators/reclock.hpp>

#include "conformance/operators_common.hpp"
#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using optest::mine;
using optest::Time;

TEST_CASE("delay, delay_total and delay_batch send records at the new time once it is complete",
          "[operators][delay]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    // (operator, time sent at, record, whether the input had passed that time when it came out)
    std::vector<std::tuple<std::string, Time, std::uint64_t, bool>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto record = [&](std::string name) {
        return [&out, &input, name](const Time& t, const std::uint64_t& x) {
          out.emplace_back(name, t, x, input.closed() || input.time() > t);
        };
      };
      auto later = [](const std::uint64_t& x, const Time& t) { return t + x % 3; };
      auto stream = input.to_stream(scope);
      stream | delay(later) | inspect_time(record("delay")) | probe_with(probe);
      stream | delay_total(later) | inspect_time(record("delay_total")) | probe_with(probe);
      stream | delay_batch([](const Time& t) { return 2 * t + 1; }) | inspect_time(record("delay_batch")) |
          probe_with(probe);
    });
    for (Time round = 0; round < 5; ++round) {
      for (std::uint64_t i = 0; i < 9; ++i)
        if (mine(worker, i)) input.send(round * 10 + i);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::string, Time, std::uint64_t, bool>> expected;
  for (Time t = 0; t < 5; ++t)
    for (std::uint64_t i = 0; i < 9; ++i) {
      const std::uint64_t x = t * 10 + i;
      expected.emplace_back("delay", t + x % 3, x, true);
      expected.emplace_back("delay_total", t + x % 3, x, true);
      expected.emplace_back("delay_batch", 2 * t + 1, x, true);
    }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("delay and delay_batch work with partially ordered times", "[operators][delay]") {
  using P = timely::Product<Time, Time>;
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<std::string, P, int>> out;
    worker.dataflow<Time>([&](auto& outer) {
      outer.template iterative<Time>([&](auto& scope) {
        std::vector<int> data;
        for (int i = 0; i < 24; ++i)
          if (mine(worker, static_cast<std::size_t>(i))) data.push_back(i);
        auto moved = to_stream(scope, data) | delay([](const int& x, const P& t) {
                       return P{t.outer + static_cast<Time>(x % 3), t.inner + static_cast<Time>(x / 6)};
                     });
        moved | inspect_time([&](const P& t, const int& x) { out.emplace_back("delay", t, x); });
        // Whole batches move two steps along the second coordinate.
        moved | delay_batch([](const P& t) {
          return P{t.outer, t.inner + 2};
        }) | inspect_time([&](const P& t, const int& x) { out.emplace_back("delay_batch", t, x); });
      });
    });
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::string, P, int>> expected;
  for (int x = 0; x < 24; ++x) {
    const P t{static_cast<Time>(x % 3), static_cast<Time>(x / 6)};
    expected.emplace_back("delay", t, x);
    expected.emplace_back("delay_batch", P{t.outer, t.inner + 2}, x);
  }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

namespace {
// A program that sends record 7 at time 5 into `op`, which is expected to fail on it.
template <class Op>
auto delay_failing_at_time_5(Op op) {
  return [op](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>(
        [&](auto& scope) { input.to_stream(scope) | op | inspect([](const std::uint64_t&) {}); });
    input.advance_to(5);
    if (worker.index() == 0) {
      input.send(3);
      input.send(7);
    }
    input.close();
    while (worker.step()) {
    }
  };
}
}  // namespace

TEST_CASE("delays to an earlier time throw CapabilityError naming both times", "[operators][delay]") {
  auto earlier = [](const std::uint64_t& x, const Time& t) { return x == 7 ? t - 1 : t; };
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    const auto config = timely::Config::process(workers);
    CHECK_THROWS_AS(timely::execute(config, delay_failing_at_time_5(delay(earlier))),
                    timely::CapabilityError);
    CHECK_THROWS_WITH(timely::execute(config, delay_failing_at_time_5(delay(earlier))),
                      Catch::Contains("delay") && Catch::Contains("time 5") && Catch::Contains("time 4"));
    CHECK_THROWS_WITH(
        timely::execute(config, delay_failing_at_time_5(delay_total(earlier))),
        Catch::Contains("delay_total") && Catch::Contains("time 5") && Catch::Contains("time 4"));
    CHECK_THROWS_AS(
        timely::execute(config, delay_failing_at_time_5(delay_batch([](const Time& t) { return t - 2; }))),
        timely::CapabilityError);
    CHECK_THROWS_WITH(
        timely::execute(config, delay_failing_at_time_5(delay_batch([](const Time& t) { return t - 2; }))),
        Catch::Contains("delay_batch") && Catch::Contains("time 5") && Catch::Contains("time 3"));
  }
}

TEST_CASE("reclock releases held records at each clock time once it is complete", "[operators][reclock]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    // (time sent at, record, whether both inputs had passed that time when it came out)
    std::vector<std::tuple<Time, std::uint64_t, bool>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> data;
    timely::dataflow::InputHandle<Time, std::string> clock;
    worker.dataflow<Time>([&](auto& scope) {
      // Worker 0 alone drives the clock; every worker needs its ticks.
      auto ticks = clock.to_stream(scope) | broadcast();
      data.to_stream(scope) | reclock(ticks) | inspect_time([&](const Time& t, const std::uint64_t& x) {
        const bool passed = (data.closed() || data.time() > t) && (clock.closed() || clock.time() > t);
        out.emplace_back(t, x, passed);
      });
    });
    // The clock runs ahead: all its times are announced and complete at once, while the data
    // come in slowly, so releases wait for the data input as well.
    if (worker.index() == 0)
      for (Time tick : {2, 5, 9}) {
        clock.advance_to(tick);
        clock.send("tick " + std::to_string(tick));
      }
    clock.close();
    for (Time t = 0; t < 12; ++t) {
      for (std::uint64_t i = 0; i < 4; ++i)
        if (mine(worker, i)) data.send(t * 10 + i);
      data.advance_to(t + 1);
      for (int k = 0; k < 3; ++k) worker.step();
    }
    data.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<Time, std::uint64_t, bool>> expected;
  for (Time t = 0; t < 10; ++t)  // records after the last tick (times 10 and 11) are never released
    for (std::uint64_t i = 0; i < 4; ++i)
      expected.emplace_back(t <= 2 ? 2 : t <= 5 ? 5 : 9, t * 10 + i, true);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}
