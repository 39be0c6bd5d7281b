// Nested scopes, iteration and feedback: results, times, and build-time errors
// (SEMANTICS.md §3.6, §6 "Loops and scopes", §12 items 14, 15, 35).
#include <cstdint>
#include <tuple>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/feedback.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/operators/to_stream.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using timely::Product;

namespace {

// Each value climbs by one per round of the loop until it is a multiple of 5, then leaves.
// Returns (outer time, value, rounds taken) as seen outside.
auto climb_program() {
  return [](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto numbers = input.to_stream(scope);
      auto results = scope.template iterative<std::uint32_t>([&](auto& inner) {
        auto [handle, cycle] = loop_variable<std::uint64_t>(inner);
        auto step = numbers | enter(inner) | concat(cycle) | map([](std::uint64_t x) { return x + 1; }) |
                    exchange([](const std::uint64_t& x) { return x; });
        step | filter([](const std::uint64_t& x) { return x % 5 != 0; }) | connect_loop(handle);
        return step | filter([](const std::uint64_t& x) { return x % 5 == 0; }) | leave(scope);
      });
      results | inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back(t, x); }) |
          probe_with(probe);
    });
    for (Time round = 0; round < 4; ++round) {
      for (std::uint64_t v = 0; v < 20; ++v)
        if (v % worker.peers() == worker.index()) input.send(round * 100 + v);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    return out;
  };
}

}  // namespace

TEST_CASE("an iterative scope loops records until they leave", "[conformance][scopes]") {
  auto result = harness::same_on_all_worker_counts(climb_program());
  std::vector<std::tuple<Time, std::uint64_t>> expected;
  for (Time round = 0; round < 4; ++round)
    for (std::uint64_t v = 0; v < 20; ++v) expected.emplace_back(round, round * 100 + (v / 5 + 1) * 5);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("the loop counter counts rounds inside the scope", "[conformance][scopes]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::uint32_t, std::uint64_t>> seen;  // (outer, round, value)
    worker.dataflow<Time>([&](auto& scope) {
      std::vector<std::uint64_t> values;
      if (worker.index() == 0) values = {3, 7};
      auto numbers = to_stream(scope, values);
      scope.template iterative<std::uint32_t>([&](auto& inner) {
        auto [handle, cycle] = loop_variable<std::uint64_t>(inner);
        auto body = numbers | enter(inner) | concat(cycle) |
                    inspect_time([&](const Product<Time, std::uint32_t>& t, const std::uint64_t& x) {
                      seen.emplace_back(t.outer, t.inner, x);
                    });
        body | filter([](const std::uint64_t& x) { return x > 0; }) |
            map([](std::uint64_t x) { return x - 1; }) | connect_loop(handle);
      });
    });
    while (worker.step()) {
    }
    return seen;
  });
  std::vector<std::tuple<Time, std::uint32_t, std::uint64_t>> expected;
  for (std::uint64_t start : {3u, 7u})
    for (std::uint32_t r = 0; r <= start; ++r) expected.emplace_back(0, r, start - r);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("regions and nested iterative scopes keep outer times", "[conformance][scopes]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto numbers = input.to_stream(scope);
      auto regioned = scope.region([&](auto& region) {
        return numbers | enter(region) | map([](std::uint64_t x) { return x * 2; }) | leave(scope);
      });
      auto nested = scope.template iterative<std::uint32_t>([&](auto& outer_loop) {
        auto inside = regioned | enter(outer_loop);
        auto twice = outer_loop.template iterative<std::uint32_t>([&](auto& inner_loop) {
          auto [handle, cycle] = loop_variable<std::uint64_t>(inner_loop);
          auto body = inside | enter(inner_loop) | concat(cycle) | map([](std::uint64_t x) { return x + 1; });
          body | filter([](const std::uint64_t& x) { return x % 3 != 0; }) | connect_loop(handle);
          return body | filter([](const std::uint64_t& x) { return x % 3 == 0; }) | leave(outer_loop);
        });
        return twice | leave(scope);
      });
      nested | inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back(t, x); }) |
          probe_with(probe);
    });
    for (Time round = 0; round < 3; ++round) {
      if (worker.index() == 0) input.send(round + 10);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    return out;
  });
  // 2x then climb to a multiple of 3: 20 -> 21, 22 -> 24, 24 -> 27.
  CHECK(result == std::vector<std::pair<Time, std::uint64_t>>{{0, 21}, {1, 24}, {2, 27}});
}

TEST_CASE("feedback drops records whose time would overflow", "[conformance][scopes]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::uint8_t> seen;
    worker.dataflow<std::uint8_t>([&](auto& scope) {
      std::vector<int> one;
      if (worker.index() == 0) one = {1};
      auto [handle, cycle] = feedback<int>(scope, std::uint8_t{50});
      to_stream(scope, one) | concat(cycle) |
          inspect_time([&](const std::uint8_t& t, const int&) { seen.push_back(t); }) | connect_loop(handle);
    });
    while (worker.step()) {
    }
    return seen;
  });
  CHECK(result == std::vector<std::uint8_t>{0, 50, 100, 150, 200, 250});  // 300 does not exist
}

TEST_CASE("malformed scopes are rejected when built", "[conformance][scopes]") {
  timely::execute_directly([](timely::Worker& worker) {
    CHECK_THROWS_WITH(worker.dataflow<Time>([](auto& scope) {
      std::vector<int> data{1};
      auto [handle, cycle] = feedback<int>(scope, Time{0});  // does not advance
      to_stream(scope, data) | concat(cycle) | connect_loop(handle);
    }),
                      Catch::Contains("cycle without timestamp increment"));
    CHECK_THROWS_WITH(worker.dataflow<Time>([](auto& scope) {
      auto [handle, cycle] = feedback<int>(scope, Time{1});  // never connected
      cycle | inspect([](const int&) {});
    }),
                      Catch::Contains("never filled"));
    CHECK_THROWS_AS(worker.dataflow<Time>([](auto& scope) {
      std::vector<int> data{1};
      auto outside = to_stream(scope, data);
      scope.region([&](auto& a) {
        scope.region([&](auto& b) {
          outside | enter(a) | enter(b);  // b is a sibling of a, not its child
        });
      });
    }),
                    timely::BuildError);
  });
}

TEST_CASE("a capability dropped inside a nested scope releases the outer frontier", "[conformance][scopes]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto numbers = input.to_stream(scope);
      scope.template iterative<std::uint32_t>([&](auto& inner) {
        using P = Product<Time, std::uint32_t>;
        // Holds each time's records until the time is complete, then sends their sum.
        return numbers | enter(inner) |
               unary_frontier<std::uint64_t>(
                   timely::dataflow::Pipeline{}, "HoldAndSum",
                   [](auto, const auto&) {
                     std::vector<std::pair<timely::dataflow::Capability<P>, std::uint64_t>> held;
                     return [held](timely::dataflow::OperatorInput<P, std::uint64_t>& in,
                                   timely::dataflow::OperatorOutput<P, std::uint64_t>& o) mutable {
                       in.for_each([&](const timely::dataflow::InputCapability<P>& cap,
                                       std::vector<std::uint64_t>& d) {
                         std::uint64_t sum = 0;
                         for (auto x : d) sum += x;
                         held.emplace_back(cap.retain(), sum);
                       });
                       std::erase_if(held, [&](auto& entry) {
                         if (in.frontier().less_equal(entry.first.time())) return false;
                         o.session(entry.first).give(entry.second);
                         return true;  // dropping the capability
                       });
                     };
                   }) |
               leave(scope);
      }) | inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back(t, x); }) |
          probe_with(probe);
    });
    for (Time round = 0; round < 3; ++round) {
      if (worker.index() == 0) input.send(round + 1);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    input.close();
    while (!probe.done()) worker.step();
    return out;
  });
  CHECK(result == std::vector<std::pair<Time, std::uint64_t>>{{0, 1}, {1, 2}, {2, 3}});
}
