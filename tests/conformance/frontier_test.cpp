// Frontier-aware operators: retaining capabilities, acting when times complete, and what happens
// when a capability is held forever. Randomized inputs must give the same results, in the same
// completion order, on 1, 2 and 4 workers (SEMANTICS.md §4, §5.7, §12).
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

namespace {

// Sums the records of each time and emits (time, sum) once the input frontier has passed it.
auto sum_per_time() {
  return unary_frontier<std::pair<Time, std::int64_t>>(
      timely::dataflow::Pipeline{}, "SumPerTime", [](auto, const auto&) {
        std::map<Time, std::pair<timely::dataflow::Capability<Time>, std::int64_t>> pending;
        return [pending = std::move(pending)](
                   timely::dataflow::OperatorInput<Time, std::int64_t>& input,
                   timely::dataflow::OperatorOutput<Time, std::pair<Time, std::int64_t>>& output) mutable {
          input.for_each(
              [&](const timely::dataflow::InputCapability<Time>& cap, std::vector<std::int64_t>& data) {
                auto it = pending.find(cap.time());
                if (it == pending.end())
                  it = pending.emplace(cap.time(), std::make_pair(cap.retain(), std::int64_t{0})).first;
                for (auto x : data) it->second.second += x;
              });
          while (!pending.empty() && !input.frontier().less_equal(pending.begin()->first)) {
            auto& [time, entry] = *pending.begin();
            output.session(entry.first).give({time, entry.second});
            pending.erase(pending.begin());
          }
        };
      });
}

}  // namespace

TEST_CASE("a frontier-aware operator emits each time once, after it completes", "[conformance][frontier]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::int64_t>> sums;
    timely::dataflow::InputHandle<Time, std::int64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::int64_t&) { return 0; }) | sum_per_time() |
          inspect([&](const std::pair<Time, std::int64_t>& s) { sums.push_back(s); }) | probe_with(probe);
    });
    for (Time round = 0; round < 6; ++round) {
      if (worker.index() == 0) input.send(static_cast<std::int64_t>(round + 1));
      input.advance_to(round + 1);
    }
    input.close();
    while (!probe.done()) worker.step();
    return sums;
  });
  CHECK(result == std::vector<std::pair<Time, std::int64_t>>{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}});
}

TEST_CASE("sums per time are exact on every worker count", "[conformance][frontier]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    auto parts = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      std::vector<std::pair<Time, std::int64_t>> sums;
      timely::dataflow::InputHandle<Time, std::int64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | exchange([](const std::int64_t&) { return 0; }) | sum_per_time() |
            inspect([&](const std::pair<Time, std::int64_t>& s) { sums.push_back(s); }) | probe_with(probe);
      });
      for (Time round = 0; round < 6; ++round) {
        for (std::int64_t i = 1; i <= 10; ++i)
          if (static_cast<std::size_t>(i) % worker.peers() == worker.index())
            input.send(i * static_cast<std::int64_t>(round));
        input.advance_to(round + 1);
      }
      input.close();
      while (!probe.done()) worker.step();
      return sums;
    });
    std::vector<std::pair<Time, std::int64_t>> all;
    for (auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    REQUIRE(all.size() == 6);
    for (Time t = 0; t < 6; ++t)
      CHECK(all[t] == std::pair<Time, std::int64_t>{t, 55 * static_cast<std::int64_t>(t)});
  }
}

TEST_CASE("an operator that holds a capability forever keeps the computation open",
          "[conformance][frontier]") {
  timely::Worker worker(timely::communication::Allocator::thread());
  timely::dataflow::InputHandle<Time, int> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) |
        unary<int>(timely::dataflow::Pipeline{}, "Hoarder",
                   [](timely::dataflow::Capability<Time> cap, const auto&) {
                     return [cap = std::optional<timely::dataflow::Capability<Time>>(std::move(cap))](
                                timely::dataflow::OperatorInput<Time, int>& in,
                                timely::dataflow::OperatorOutput<Time, int>&) {
                       in.for_each([](const auto&, auto&) {});
                     };
                   }) |
        probe_with(probe);
  });
  input.close();
  for (int i = 0; i < 1000; ++i) worker.step();
  CHECK(probe.less_equal(0));  // the hoarded capability at time 0 holds the probe back
  CHECK_FALSE(probe.done());
  CHECK(worker.has_dataflows());
}

TEST_CASE("randomized inputs: outputs and completion order agree across worker counts",
          "[conformance][frontier][random]") {
  for (std::uint64_t seed : {7u, 11u, 2024u}) {
    INFO("seed " << seed);
    // A schedule fixed by the seed: per step, a time to advance to and some records.
    std::mt19937_64 rng(seed);
    std::vector<std::pair<Time, std::vector<std::int64_t>>> schedule;
    Time time = 0;
    for (int step = 0; step < 40; ++step) {
      time += rng() % 3;
      std::vector<std::int64_t> values(rng() % 50);
      for (auto& v : values) v = static_cast<std::int64_t>(rng() % 1000);
      schedule.emplace_back(time, std::move(values));
    }
    std::map<Time, std::int64_t> sequential;
    for (const auto& [t, values] : schedule)
      for (auto v : values) sequential[t] += (v % 2 == 0 ? v : 3 * v) % 5;
    std::vector<std::pair<Time, std::int64_t>> expected(sequential.begin(), sequential.end());

    auto program = [&schedule, seed](timely::Worker& worker) {
      std::mt19937_64 steps(seed ^ (worker.index() + 1));  // worker-local, only changes interleaving
      std::vector<std::pair<Time, std::int64_t>> out;
      timely::dataflow::InputHandle<Time, std::int64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        auto numbers = input.to_stream(scope);
        auto evens = numbers | filter([](const std::int64_t& x) { return x % 2 == 0; });
        auto odds = numbers | filter([](const std::int64_t& x) { return x % 2 != 0; }) |
                    map([](std::int64_t x) { return 3 * x; });
        evens | concat(odds) | exchange([](const std::int64_t& x) { return static_cast<std::uint64_t>(x); }) |
            map([](std::int64_t x) { return x % 5; }) | exchange([](const std::int64_t&) { return 1; }) |
            sum_per_time() | inspect([&](const std::pair<Time, std::int64_t>& s) { out.push_back(s); }) |
            probe_with(probe);
      });
      for (const auto& [t, values] : schedule) {
        input.advance_to(t);
        for (std::size_t i = 0; i < values.size(); ++i)
          if (i % worker.peers() == worker.index()) input.send(values[i]);
        for (auto k = steps() % 3; k > 0; --k) worker.step();
      }
      input.close();
      while (!probe.done()) worker.step();
      return out;  // in the order the sums were emitted: the completion order
    };
    for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
      for (std::size_t workers : {1u, 2u, 4u}) {
        INFO("workers " << workers);
        auto config = timely::Config::process(workers);
        config.worker.progress_mode = mode;
        auto parts = timely::execute(config, program);
        std::vector<std::pair<Time, std::int64_t>> got;
        for (auto& part : parts) got.insert(got.end(), part.begin(), part.end());  // one worker holds all
        CHECK(got == expected);
      }
  }
}
