// An exception in one worker stops every worker and reaches the caller of execute (no hang).
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/error.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

TEST_CASE("a failing worker stops all workers and its error is rethrown", "[conformance][failure]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto program = [](timely::Worker& worker) {
      timely::dataflow::InputHandle<Time, std::uint64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) |
            inspect([](const std::uint64_t& x) {
              if (x == 13) throw std::runtime_error("record 13 is unlucky");
            }) |
            probe_with(probe);
      });
      for (Time round = 0;; ++round) {  // never ends by itself
        if (worker.index() == 0) input.send(round);
        input.advance_to(round + 1);
        while (probe.less_than(input.time())) worker.step();
      }
    };
    CHECK_THROWS_WITH(timely::execute(timely::Config::process(workers), program),
                      Catch::Contains("record 13 is unlucky"));
  }
}

TEST_CASE("a failure while other workers are parked still ends the computation", "[conformance][failure]") {
  auto program = [](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope); });
    if (worker.index() == 1) throw std::logic_error("worker 1 gives up");
    // Worker 0 keeps its input open: it would park forever without the failure.
    while (true) worker.step_or_park(std::nullopt);
  };
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(timely::execute(timely::Config::process(2), program), "worker 1 gives up");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("bad configurations are rejected before any thread starts", "[conformance][failure]") {
  CHECK_THROWS_AS(timely::execute(timely::Config::process(0), [](timely::Worker&) {}), timely::ConfigError);
  const char* zero[] = {"prog", "-w", "0"};
  CHECK_THROWS_AS(timely::Config::from_args(3, zero), timely::ConfigError);
  const char* text[] = {"prog", "-w", "abc"};
  CHECK_THROWS_WITH(timely::Config::from_args(3, text), Catch::Contains("abc"));
  const char* missing[] = {"prog", "-w"};
  CHECK_THROWS_AS(timely::Config::from_args(2, missing), timely::ConfigError);
  const char* unknown[] = {"prog", "--frobnicate"};
  CHECK_THROWS_WITH(timely::Config::from_args(2, unknown), Catch::Contains("--frobnicate"));
  const char* help[] = {"prog", "--help"};
  CHECK_THROWS_AS(timely::Config::from_args(2, help), timely::HelpRequested);
  const char* good[] = {"prog", "input.txt", "-w", "3", "--progress-mode", "eager", "more"};
  auto config = timely::Config::from_args(7, good);
  CHECK(config.workers == 3);
  CHECK(config.worker.progress_mode == timely::ProgressMode::Eager);
  CHECK(config.positional == std::vector<std::string>{"input.txt", "more"});
}
