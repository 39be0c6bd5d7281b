// Routing and splitting operators: broadcast, concatenate, partition, branch, branch_when,
// ok_err. Each runs on 1, 2 and 4 workers in both progress modes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/to_stream.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/error.hpp>
#include <timely/execute.hpp>
#include <timely/progress/error.hpp>
#include <timely/worker.hpp>
#include <timely/worker_state.hpp>

#include <timely/dataflow/operators/branch.hpp>
#include <timely/dataflow/operators/broadcast.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/ok_err.hpp>
#include <timely/dataflow/operators/partition.hpp>

#include "conformance/operators_common.hpp"
#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using optest::mine;
using optest::Time;

TEST_CASE("broadcast delivers every record to every worker at its time", "[operators][broadcast]") {
  auto program = [](timely::Worker& worker) {
    std::vector<std::pair<Time, std::uint64_t>> seen;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | broadcast() |
          inspect_time([&](const Time& t, const std::uint64_t& x) { seen.emplace_back(t, x); });
    });
    for (Time round = 0; round < 3; ++round) {
      for (std::uint64_t i = 0; i < 10; ++i)
        if (mine(worker, i)) input.send(round * 100 + i);
      input.advance_to(round + 1);
      worker.step();
    }
    input.close();
    while (worker.step()) {
    }
    std::sort(seen.begin(), seen.end());
    return seen;
  };
  std::vector<std::pair<Time, std::uint64_t>> expected;
  for (Time round = 0; round < 3; ++round)
    for (std::uint64_t i = 0; i < 10; ++i) expected.emplace_back(round, round * 100 + i);
  optest::on_each_configuration(program, [&](std::size_t workers, timely::ProgressMode, const auto& parts) {
    INFO("workers " << workers);
    REQUIRE(parts.size() == workers);
    for (const auto& part : parts) CHECK(part == expected);  // each worker has one copy of each
  });
}

TEST_CASE("concatenate merges many streams, and a stream with others", "[operators][concatenate]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<char, Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> a, b, c;
    worker.dataflow<Time>([&](auto& scope) {
      auto sa = a.to_stream(scope), sb = b.to_stream(scope), sc = c.to_stream(scope);
      concatenate(scope, std::vector{sa, sb, sc}) |
          inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back('m', t, x); });
      sa | concatenate(std::vector{sc}) |
          inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back('p', t, x); });
      // No streams: a stream that never carries anything and completes at once.
      concatenate(scope, std::vector<timely::dataflow::Stream<Time, std::uint64_t>>{}) |
          inspect([&](const std::uint64_t& x) { out.emplace_back('e', 0, x); });
    });
    for (Time round = 0; round < 3; ++round) {
      for (std::uint64_t i = 0; i < 6; ++i)
        if (mine(worker, i)) {
          a.send(1000 + round * 10 + i);
          b.send(2000 + round * 10 + i);
          c.send(3000 + round * 10 + i);
        }
      a.advance_to(round + 1);
      b.advance_to(round + 1);
      c.advance_to(round + 1);
      worker.step();
    }
    a.close();
    b.close();
    c.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<char, Time, std::uint64_t>> expected;
  for (Time round = 0; round < 3; ++round)
    for (std::uint64_t i = 0; i < 6; ++i) {
      for (std::uint64_t base : {1000u, 2000u, 3000u})
        expected.emplace_back('m', round, base + round * 10 + i);
      for (std::uint64_t base : {1000u, 3000u}) expected.emplace_back('p', round, base + round * 10 + i);
    }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("concatenate rejects a stream of another scope", "[operators][concatenate]") {
  timely::execute_directly([](timely::Worker& worker) {
    CHECK_THROWS_AS(worker.dataflow<Time>([](auto& scope) {
      std::vector<int> data{1};
      auto outside = to_stream(scope, data);
      scope.region([&](auto& inner) { concatenate(inner, std::vector{outside}); });
    }),
                    timely::BuildError);
  });
}

TEST_CASE("partition routes records to the part route names, at their times", "[operators][partition]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<std::size_t, Time, std::string>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto parts = input.to_stream(scope) | partition(3, [](std::uint64_t x) {
                     return std::pair{static_cast<int>(x % 3), std::to_string(x)};
                   });
      for (std::size_t p = 0; p < parts.size(); ++p)
        parts[p] | inspect_time([&, p](const Time& t, const std::string& s) { out.emplace_back(p, t, s); });
    });
    for (Time round = 0; round < 4; ++round) {
      for (std::uint64_t i = 0; i < 20; ++i)
        if (mine(worker, i)) input.send(round * 100 + i);
      input.advance_to(round + 1);
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::size_t, Time, std::string>> expected;
  for (Time round = 0; round < 4; ++round)
    for (std::uint64_t i = 0; i < 20; ++i) {
      const std::uint64_t x = round * 100 + i;
      expected.emplace_back(x % 3, round, std::to_string(x));
    }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("partition throws for a part index out of range, naming it", "[operators][partition]") {
  for (int bad : {3, -1}) {
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << ", index " << bad);
      auto program = [bad](timely::Worker& worker) {
        timely::dataflow::InputHandle<Time, int> input;
        worker.dataflow<Time>([&](auto& scope) {
          auto parts = input.to_stream(scope) | partition(3, [bad](int x) {
                         return std::pair{x == 7 ? bad : x % 3, x};
                       });
          parts[0] | inspect([](const int&) {});
        });
        for (int i = 0; i < 10; ++i)
          if (mine(worker, static_cast<std::size_t>(i))) input.send(i);
        input.close();
        while (worker.step()) {
        }
      };
      CHECK_THROWS_AS(timely::execute(timely::Config::process(workers), program), timely::Error);
      CHECK_THROWS_WITH(timely::execute(timely::Config::process(workers), program),
                        Catch::Contains("part index " + std::to_string(bad)) && Catch::Contains("3 parts"));
    }
  }
}

TEST_CASE("branch splits records by cond(time, record) and branch_when splits batches by time",
          "[operators][branch]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<std::string, Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      auto [odd, even] =
          stream | branch([](const Time& t, const std::uint64_t& x) { return (t + x) % 2 == 0; });
      odd | inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back("false", t, x); });
      even | inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back("true", t, x); });
      auto [early, late] = stream | branch_when([](const Time& t) { return t >= 2; });
      early |
          inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back("when-false", t, x); });
      late |
          inspect_time([&](const Time& t, const std::uint64_t& x) { out.emplace_back("when-true", t, x); });
    });
    for (Time round = 0; round < 4; ++round) {
      for (std::uint64_t i = 0; i < 8; ++i)
        if (mine(worker, i)) input.send(round * 10 + i);
      input.advance_to(round + 1);
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::string, Time, std::uint64_t>> expected;
  for (Time t = 0; t < 4; ++t)
    for (std::uint64_t i = 0; i < 8; ++i) {
      const std::uint64_t x = t * 10 + i;
      expected.emplace_back((t + x) % 2 == 0 ? "true" : "false", t, x);
      expected.emplace_back(t >= 2 ? "when-true" : "when-false", t, x);
    }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("ok_err splits records by the alternative f returns", "[operators][ok_err]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::tuple<std::string, Time, std::string>> out;
    timely::dataflow::InputHandle<Time, std::int64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      auto [oks, errs] = stream | ok_err([](std::int64_t x) -> std::variant<std::string, std::int64_t> {
                           if (x % 3 == 0) return x;  // the failure carries the record back
                           return "#" + std::to_string(x);
                         });
      oks | inspect_time([&](const Time& t, const std::string& s) { out.emplace_back("ok", t, s); });
      errs | inspect_time([&](const Time& t, const std::int64_t& x) {
        out.emplace_back("err", t, std::to_string(x));
      });
      // The same type on both sides: choose by index.
      auto [small, big] = stream | ok_err([](std::int64_t x) {
                            using R = std::variant<std::int64_t, std::int64_t>;
                            return x < 15 ? R(std::in_place_index<0>, x) : R(std::in_place_index<1>, -x);
                          });
      small | inspect_time([&](const Time& t, const std::int64_t& x) {
        out.emplace_back("small", t, std::to_string(x));
      });
      big | inspect_time(
                [&](const Time& t, const std::int64_t& x) { out.emplace_back("big", t, std::to_string(x)); });
    });
    for (Time round = 0; round < 3; ++round) {
      for (std::uint64_t i = 0; i < 10; ++i)
        if (mine(worker, i)) input.send(static_cast<std::int64_t>(round * 10 + i));
      input.advance_to(round + 1);
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::tuple<std::string, Time, std::string>> expected;
  for (Time t = 0; t < 3; ++t)
    for (std::int64_t i = 0; i < 10; ++i) {
      const std::int64_t x = static_cast<std::int64_t>(t * 10) + i;
      if (x % 3 == 0)
        expected.emplace_back("err", t, std::to_string(x));
      else
        expected.emplace_back("ok", t, "#" + std::to_string(x));
      if (x < 15)
        expected.emplace_back("small", t, std::to_string(x));
      else
        expected.emplace_back("big", t, std::to_string(-x));
    }
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}
