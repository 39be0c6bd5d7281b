// Input handles and probes: completion, empty batches, misuse (SEMANTICS.md §6.1, §12).
#include <cstdint>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

TEST_CASE("a probe on an input closed without data reaches the empty frontier", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | probe_with(probe); });
    input.close();
    std::size_t steps = 0;
    while (!probe.done() && steps < 100000) {
      worker.step();
      ++steps;
    }
    // A worker that is not done reports it (Catch2 assertions are not thread-safe).
    return probe.done() ? std::vector<int>{} : std::vector<int>{static_cast<int>(worker.index())};
  });
  CHECK(result.empty());
}

TEST_CASE("a probe is conservative before the first step", "[conformance]") {
  auto observations = timely::execute(timely::Config::process(2), [](timely::Worker& worker) {
    std::vector<bool> seen;  // checked on the main thread: Catch2 assertions are not thread-safe
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    seen.push_back(probe.done());  // watching nothing
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | probe_with(probe); });
    seen.push_back(!probe.done());
    seen.push_back(probe.less_equal(0));
    input.advance_to(5);
    seen.push_back(probe.less_equal(0));  // nothing has run yet
    while (probe.less_than(5)) worker.step();
    seen.push_back(probe.less_equal(5));
    seen.push_back(!probe.less_equal(4));
    return seen;
  });
  for (const auto& seen : observations) CHECK(seen == std::vector<bool>(6, true));
}

TEST_CASE("empty batches before real data do not stall any frontier", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, int>> seen;
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      // An operator that sends an empty batch before every real one, and one after.
      auto padded =
          input.to_stream(scope) | unary<int>(timely::dataflow::Pipeline{}, "Pad", [](auto, const auto&) {
            return [](timely::dataflow::OperatorInput<Time, int>& in,
                      timely::dataflow::OperatorOutput<Time, int>& out) {
              in.for_each([&](const timely::dataflow::InputCapability<Time>& cap, std::vector<int>& data) {
                auto session = out.session(cap);
                std::vector<int> empty;
                session.give_vec(empty);
                session.give_vec(data);
                session.give_vec(empty);
              });
            };
          });
      padded | exchange([](const int& x) { return static_cast<std::uint64_t>(x); }) |
          inspect_time([&](const Time& t, const int& x) { seen.emplace_back(t, x); }) | probe_with(probe);
    });
    for (Time round = 0; round < 4; ++round) {
      std::vector<int> none;
      input.send_batch(none);
      if (worker.index() == 0) input.send(static_cast<int>(round));
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
    return seen;
  });
  CHECK(result == std::vector<std::pair<Time, int>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
}

TEST_CASE("input handles reject going back in time and use after close", "[conformance]") {
  timely::execute_directly([](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    CHECK_THROWS_AS(input.send(1), timely::InputError);  // not attached: the record would be lost
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope); });
    input.advance_to(3);
    CHECK_THROWS_WITH(input.advance_to(2), Catch::Contains("from time 3 to 2"));
    input.close();
    CHECK_THROWS_AS(input.send(1), timely::InputError);
    CHECK_THROWS_AS(input.advance_to(4), timely::InputError);
    input.close();  // idempotent
  });
}

TEST_CASE("one input feeding two dataflows delivers to both", "[conformance]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<int, int>> seen;
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    for (int which = 0; which < 2; ++which)
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | inspect([&seen, which](const int& x) { seen.emplace_back(which, x); }) |
            probe_with(probe);
      });
    if (worker.index() == 0) input.send(7);
    input.close();
    while (!probe.done()) worker.step();
    return seen;
  });
  CHECK(result == std::vector<std::pair<int, int>>{{0, 7}, {1, 7}});
}
