// An exception in one worker stops every worker and reaches the caller of execute (no hang);
// so do workers that built different dataflows (WorkerState::built_dataflow).
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
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
#include "support/loopback.hpp"

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

namespace {

// Worker `odd` builds one operator more at the end of its dataflow than the others, after
// sleeping `late` (so that the others' shapes arrive before it builds); `consistent` leaves it
// out, as a control. The others count the records they see; the dataflow runs three rounds.
std::size_t maybe_different(timely::Worker& worker, std::size_t odd, bool consistent,
                            std::chrono::milliseconds late) {
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  std::size_t seen = 0;
  if (worker.index() == odd) std::this_thread::sleep_for(late);
  worker.dataflow<Time>([&](auto& scope) {
    auto stream = input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) |
                  inspect([&](const std::uint64_t&) { ++seen; });
    stream | probe_with(probe);
    if (worker.index() == odd && !consistent) stream | inspect([](const std::uint64_t&) {});
  });
  for (Time round = 0; round < 3; ++round) {
    for (std::uint64_t x = 0; x < 10; ++x) input.send(x);
    input.advance_to(round + 1);
    while (probe.less_than(input.time())) worker.step();
  }
  return seen;
}

constexpr const char* different_shapes = "every worker must build the same dataflows in the same order";

}  // namespace

TEST_CASE("workers that build different dataflows fail with both shapes named, not a hang",
          "[conformance][failure]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {2u, 4u})
      for (bool zerocopy : {false, true})
        for (auto late : {std::chrono::milliseconds(0), std::chrono::milliseconds(200)}) {
          INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand")
                          << (zerocopy ? " -z" : "") << ", the odd worker " << late.count() << " ms late");
          auto config = timely::Config::process(workers);
          config.worker.progress_mode = mode;
          config.network.zerocopy = zerocopy;
          const auto start = std::chrono::steady_clock::now();
          CHECK_THROWS_WITH(
              timely::execute(
                  config, [&](timely::Worker& w) { return maybe_different(w, workers - 1, false, late); }),
              Catch::Contains(different_shapes) && Catch::Contains("identifiers 0..") &&
                  Catch::Contains("channels ["));
          CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
          // The control: the same program with the same dataflow everywhere runs to the end.
          const auto seen = timely::execute(
              config, [&](timely::Worker& w) { return maybe_different(w, workers - 1, true, late); });
          std::size_t total = 0;
          for (auto s : seen) total += s;
          CHECK(total == 3 * 10 * workers);
        }
}

TEST_CASE("processes whose workers build different dataflows both fail with the shapes named",
          "[conformance][failure]") {
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    const auto addresses = support::free_loopback_addresses(2);
    std::vector<std::string> errors(2);
    support::run_processes(2, [&](std::size_t p) {
      const auto config = timely::Config::cluster(workers, 2, p, addresses);
      try {
        // The last worker of process 1 builds one operator more.
        timely::execute(config,
                        [&](timely::Worker& w) { return maybe_different(w, 2 * workers - 1, false, {}); });
      } catch (const std::exception& e) {
        errors[p] = e.what();
      }
    });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes));
    }
  }
}
