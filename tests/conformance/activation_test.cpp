// Activations: delayed activation, activation from another thread, and parking without spinning
// (SEMANTICS.md §5.9).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
using namespace std::chrono_literals;
using Time = std::uint64_t;

namespace {
double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}
}  // namespace

TEST_CASE("a delayed activation runs the operator after its delay", "[conformance][activation]") {
  timely::Worker worker(timely::communication::Allocator::thread());
  std::vector<std::chrono::steady_clock::time_point> runs;
  worker.dataflow<Time>([&](auto& scope) {
    source<int>(scope, "Ticker", [&runs](timely::dataflow::Capability<Time> cap, const OperatorInfo& info) {
      return [&runs, cap = std::optional<timely::dataflow::Capability<Time>>(std::move(cap)),
              info](auto&) mutable {
        runs.push_back(std::chrono::steady_clock::now());
        if (runs.size() < 3)
          info.activator.activate_after(30ms);
        else
          cap.reset();
      };
    });
  });
  const auto start = std::chrono::steady_clock::now();
  while (worker.has_dataflows()) worker.step_or_park(std::nullopt);  // parks until each is due
  REQUIRE(runs.size() == 3);
  CHECK(runs[1] - runs[0] >= 29ms);
  CHECK(runs[2] - runs[1] >= 29ms);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
}

TEST_CASE("a sync activator wakes a parked worker from another thread", "[conformance][activation]") {
  timely::Worker worker(timely::communication::Allocator::thread());
  struct Shared {
    std::mutex mutex;
    std::deque<int> queue;
    bool closed = false;
  } shared;
  std::optional<timely::scheduling::SyncActivator> wake;
  std::vector<int> received;
  worker.dataflow<Time>([&](auto& scope) {
    source<int>(scope, "External", [&](timely::dataflow::Capability<Time> cap, const OperatorInfo& info) {
      wake.emplace(info.sync_activator);
      return
          [&, cap = std::optional<timely::dataflow::Capability<Time>>(std::move(cap))](auto& output) mutable {
            if (!cap) return;
            std::lock_guard lock(shared.mutex);
            auto session = output.session(*cap);
            while (!shared.queue.empty()) {
              session.give(shared.queue.front());
              shared.queue.pop_front();
            }
            if (shared.closed) cap.reset();
          };
    }) | inspect([&](const int& x) { received.push_back(x); });
  });
  std::thread producer([&] {
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(10ms);
      {
        std::lock_guard lock(shared.mutex);
        shared.queue.push_back(i);
        shared.closed = i == 4;
      }
      wake->activate();
    }
  });
  const auto start = std::chrono::steady_clock::now();
  while (worker.has_dataflows()) worker.step_or_park(std::nullopt);  // only the activator can wake it
  producer.join();
  CHECK(received == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(std::chrono::steady_clock::now() - start < 10s);
}

TEST_CASE("an idle worker parks instead of spinning", "[conformance][activation]") {
  timely::Worker worker(timely::communication::Allocator::thread());
  timely::dataflow::InputHandle<Time, int> input;
  worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | inspect([](const int&) {}); });
  for (int i = 0; i < 10; ++i) worker.step();  // settle
  const double before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  worker.step_or_park(300ms);
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= 250ms);
  CHECK(cpu_seconds() - before < 0.1);  // a spinning worker would burn ~0.3 s
  input.close();
  while (worker.step()) {
  }
}
