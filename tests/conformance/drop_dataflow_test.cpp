// Dropping a dataflow that will not finish (the reference's `Worker::drop_dataflow`,
// SEMANTICS.md §4.4, §5.1): its operators and the capabilities they hold go, its channels are
// forgotten, late records for them are discarded, and the worker carries on with new dataflows.
// Run on 1, 2 and 4 workers in both progress modes.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

namespace {

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

// What one worker saw; compared against what it should have seen.
struct Seen {
  std::size_t stuck_index = 0;
  std::vector<std::size_t> installed_before;
  std::vector<std::size_t> installed_after;
  std::size_t attached_after = 1;  // dataflows the stuck input handle still feeds
  bool send_refused = false;
  std::size_t second_index = 0;
  std::vector<std::pair<Time, int>> second_records;  // what the second dataflow delivered here
};

template <class F>
void on_every_mode_and_worker_count(F&& check) {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      check(workers, mode);
    }
}

}  // namespace

TEST_CASE("a stuck dataflow is dropped on every worker and a new one runs afterwards",
          "[conformance][drop]") {
  on_every_mode_and_worker_count([](std::size_t workers, timely::ProgressMode mode) {
    auto config = timely::Config::process(workers);
    config.worker.progress_mode = mode;
    // Worker 0 drops first; the others then send records into the stuck dataflow's exchange,
    // some of them addressed to worker 0, whose channels are gone.
    auto first_dropped = std::make_shared<std::atomic<bool>>(false);
    auto parts = timely::execute(config, [first_dropped](timely::Worker& worker) {
      Seen seen;
      // Stuck for two reasons: an input that is never closed, and an operator that keeps its
      // initial capability for ever.
      timely::dataflow::InputHandle<Time, int> stuck_input;
      timely::dataflow::ProbeHandle<Time> stuck_probe;
      auto delivered = std::make_shared<std::size_t>(0);
      seen.stuck_index = worker.next_dataflow_index();
      worker.dataflow<Time>([&](auto& scope) {
        stuck_input.to_stream(scope) | exchange([](const int& x) { return static_cast<std::uint64_t>(x); }) |
            unary_frontier<int>(timely::dataflow::Pipeline{}, "Hoard",
                                [delivered](timely::dataflow::Capability<Time> initial, const auto&) {
                                  return [delivered, held = std::optional{std::move(initial)}](
                                             auto& in, auto& out) mutable {
                                    in.for_each([&](const auto& cap, std::vector<int>& data) {
                                      *delivered += data.size();
                                      out.session(cap).give_vec(data);
                                    });
                                    (void)held;  // never released
                                  };
                                }) |
            probe_with(stuck_probe);
      });
      seen.installed_before = worker.installed_dataflows();
      stuck_input.send(static_cast<int>(worker.index()));
      stuck_input.advance_to(1);
      for (int i = 0; i < 50; ++i) worker.step();

      if (worker.index() != 0)
        while (!first_dropped->load()) std::this_thread::yield();
      else {
        worker.drop_dataflow(seen.stuck_index);
        first_dropped->store(true);
      }
      if (worker.index() != 0) {
        // Records for every worker, worker 0 included, on channels worker 0 no longer has.
        for (int x = 0; x < 64; ++x) stuck_input.send(x);
        stuck_input.advance_to(2);
        for (int i = 0; i < 50; ++i) worker.step();
        worker.drop_dataflow(seen.stuck_index);
      }
      // The handle outlives its dataflow: it feeds nothing now, so it refuses records (they would
      // be lost), and moving its time changes nothing.
      seen.attached_after = stuck_input.attached();
      try {
        stuck_input.send(7);
      } catch (const timely::InputError&) {
        seen.send_refused = true;
      }
      stuck_input.advance_to(3);
      seen.installed_after = worker.installed_dataflows();

      // A second dataflow runs normally next to the traffic still arriving for the first.
      seen.second_index = worker.next_dataflow_index();
      timely::dataflow::InputHandle<Time, int> input;
      timely::dataflow::ProbeHandle<Time> probe;
      auto records = std::make_shared<std::vector<std::pair<Time, int>>>();
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | exchange([](const int& x) { return static_cast<std::uint64_t>(x); }) |
            inspect_time([records](const Time& t, const int& x) { records->emplace_back(t, x); }) |
            probe_with(probe);
      });
      for (Time round = 0; round < 3; ++round) {
        for (int x = 0; x < 8; ++x)
          if (static_cast<std::size_t>(x) % worker.peers() == worker.index())
            input.send(x + 10 * static_cast<int>(round));
        input.advance_to(round + 1);
        while (probe.less_than(round + 1)) worker.step();
      }
      input.close();
      while (!probe.done()) worker.step();
      seen.second_records = *records;
      std::sort(seen.second_records.begin(), seen.second_records.end());
      return seen;
    });
    // execute returned: nothing was left running on any worker.
    REQUIRE(parts.size() == workers);
    std::vector<std::pair<Time, int>> all;
    for (std::size_t w = 0; w < workers; ++w) {
      INFO("worker " << w);
      CHECK(parts[w].stuck_index == 0);
      CHECK(parts[w].installed_before == std::vector<std::size_t>{0});
      CHECK(parts[w].installed_after.empty());
      CHECK(parts[w].attached_after == 0);
      CHECK(parts[w].send_refused);
      CHECK(parts[w].second_index == 1);
      for (const auto& [t, x] : parts[w].second_records) {
        CHECK(static_cast<std::size_t>(x) % workers == w);  // exchanged by value
        all.emplace_back(t, x);
      }
    }
    std::sort(all.begin(), all.end());
    std::vector<std::pair<Time, int>> expected;
    for (Time round = 0; round < 3; ++round)
      for (int x = 0; x < 8; ++x) expected.emplace_back(round, x + 10 * static_cast<int>(round));
    CHECK(all == expected);
  });
}

TEST_CASE("dropping a dataflow that is not installed names it", "[conformance][drop]") {
  timely::execute(timely::Config::process(1), [](timely::Worker& worker) {
    CHECK_THROWS_AS(worker.drop_dataflow(0), timely::DataflowError);
    CHECK_THROWS_WITH(worker.drop_dataflow(0),
                      "timely: worker 0 has no dataflow 0 to drop (next index 0: never "
                      "built, already complete or already dropped)");
    timely::dataflow::InputHandle<Time, int> input;
    worker.dataflow<Time>([&](auto& scope) { (void)input.to_stream(scope); });
    CHECK(worker.installed_dataflows() == std::vector<std::size_t>{0});
    worker.drop_dataflow(0);
    CHECK_THROWS_AS(worker.drop_dataflow(0), timely::DataflowError);
    CHECK_THROWS_WITH(worker.drop_dataflow(0),
                      "timely: worker 0 has no dataflow 0 to drop (next index 1: never "
                      "built, already complete or already dropped)");
    CHECK_THROWS_AS(worker.drop_dataflow(5), timely::DataflowError);
    CHECK_FALSE(worker.has_dataflows());
    return 0;
  });
}

TEST_CASE("a dataflow that completed on its own cannot be dropped", "[conformance][drop]") {
  timely::execute(timely::Config::process(1), [](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | probe_with(probe); });
    input.close();
    while (worker.has_dataflows()) worker.step();
    CHECK(worker.installed_dataflows().empty());
    CHECK_THROWS_AS(worker.drop_dataflow(0), timely::DataflowError);
    return 0;
  });
}

TEST_CASE("a worker's channel bookkeeping follows the dataflows installed, not those ever built",
          "[conformance][drop]") {
  // 200 dataflows of one exchange each, built, run to their end or dropped, one after the other
  // on 2 workers: the channels registered stay those of one dataflow (or none), not 200 times.
  const auto counts = timely::execute(timely::Config::process(2), [](timely::Worker& worker) {
    std::vector<std::size_t> registered;
    for (std::size_t d = 0; d < 200; ++d) {
      timely::dataflow::InputHandle<Time, std::uint64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      const std::size_t index = worker.next_dataflow_index();
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) | probe_with(probe);
      });
      if (d == 10) registered.push_back(worker.state().registered_channels());
      input.send(d);
      if (d % 2 == 0) {
        input.close();
        while (!probe.done()) worker.step();
      } else {
        // Still installed (its input open), then dropped once time 0 is done everywhere.
        input.advance_to(1);
        while (probe.less_than(1)) worker.step();
        worker.drop_dataflow(index);
      }
    }
    registered.push_back(worker.state().registered_channels());
    return registered;
  });
  for (const auto& registered : counts) {
    INFO(registered[0] << " channels registered with dataflow 10 installed, " << registered[1]
                       << " after 200 dataflows");
    CHECK(registered[0] > 0);
    CHECK(registered[1] <= registered[0]);
  }
}
