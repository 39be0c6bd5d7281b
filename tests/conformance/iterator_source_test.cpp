// iterator_source: records at their times, flow control by a probe, lower bounds that move the
// frontier without records, completion when the closure is exhausted, and times going backwards.
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/iterator_source.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using timely::dataflow::IteratorSourceInput;
using timely::dataflow::ProbeHandle;
using Time = std::uint64_t;
using Batches = std::vector<std::pair<Time, std::vector<std::uint64_t>>>;
using Pulled = std::optional<IteratorSourceInput<Time, Batches>>;

namespace {

/// The least time `probe` may still see, or the largest time once it is done.
Time frontier_of(const ProbeHandle<Time>& probe) {
  return probe.with_frontier(
      [](const auto& f) { return f.empty() ? std::numeric_limits<Time>::max() : Time{f[0]}; });
}

/// Steps `worker` until `done()` holds or `seconds` have passed; returns `done()`.
template <class F>
bool step_until(timely::Worker& worker, F done, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!done() && std::chrono::steady_clock::now() < deadline) worker.step();
  return done();
}

/// Steps `worker` until `probe` is done; false if that takes unreasonably long.
bool step_until_done_in_time(timely::Worker& worker, const ProbeHandle<Time>& probe) {
  return step_until(
      worker, [&] { return probe.done(); }, 30);
}

constexpr Time source_records = 1000;    // 0..999 over all workers, x at time x / 10 * 10
constexpr std::size_t max_per_call = 4;  // at most this many records per call, all at one time
constexpr Time violation = std::numeric_limits<Time>::max();

}  // namespace

TEST_CASE("iterator_source sends every record at its time, under the probe's flow control",
          "[conformance][iterator_source]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    const Time index = worker.index(), peers = worker.peers();
    std::vector<std::pair<Time, std::uint64_t>> seen;
    ProbeHandle<Time> probe;
    std::uint64_t most_outstanding = 0;
    worker.dataflow<Time>([&](auto& scope) {
      // Worker i reads i, i + peers, ...: each call gives up to `max_per_call` records of one time and
      // asks to wait until everything before the time it holds is complete.
      auto pull = [&, next = index,
                   sent = std::map<Time, std::uint64_t>()](const Time& now) mutable -> Pulled {
        // This worker's records at times the probe has not passed yet.
        const Time frontier = frontier_of(probe);
        sent.erase(sent.begin(), sent.lower_bound(frontier));
        std::uint64_t outstanding = 0;
        for (const auto& [time, count] : sent) outstanding += count;
        most_outstanding = std::max(most_outstanding, outstanding);
        if (next >= source_records) return std::nullopt;
        const Time time = next / 10 * 10;
        std::vector<std::uint64_t> xs;
        while (next < source_records && next / 10 * 10 == time && xs.size() < max_per_call) {
          xs.push_back(next);
          next += peers;
        }
        sent[time] += xs.size();
        Batches data;
        data.emplace_back(time, std::move(xs));
        return IteratorSourceInput<Time, Batches>{.lower_bound = now, .data = std::move(data), .target = now};
      };
      iterator_source(scope, "Numbers", std::move(pull), probe) |
          exchange([](const std::uint64_t& x) { return x / 7; }) |
          inspect_time([&](const Time& t, const std::uint64_t& x) { seen.emplace_back(t, x); }) |
          probe_with(probe);
    });
    if (!step_until_done_in_time(worker, probe)) seen.emplace_back(violation, 0);
    // With the probe holding it back, a worker has at most the records of the time it holds
    // plus one batch of the next time outstanding (ignoring the probe would reach `source_records`).
    if (most_outstanding > 10 + max_per_call) seen.emplace_back(violation, most_outstanding);
    return seen;
  });
  std::vector<std::pair<Time, std::uint64_t>> expected;
  for (Time x = 0; x < source_records; ++x) expected.emplace_back(x / 10 * 10, x);
  CHECK(result == expected);
}

TEST_CASE("iterator_source holds its capability: lower bounds move the frontier, exhaustion ends it",
          "[conformance][iterator_source]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    // What the closure gives, changed by the worker loop below: the lower bound, records to send
    // at it, and whether the input is exhausted.
    Time bound = 0;
    std::vector<std::uint64_t> pending;
    bool finished = false;
    std::vector<std::pair<Time, std::uint64_t>> seen;
    std::vector<std::string> observed;  // "check N: ok" or "check N: FAILED"
    ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto pull = [&](const Time& now) -> Pulled {
        if (finished) return std::nullopt;
        Batches data;
        if (!pending.empty()) data.emplace_back(bound, std::exchange(pending, {}));
        // The target `now` asks again as soon as everything before the held time is complete.
        return IteratorSourceInput<Time, Batches>{
            .lower_bound = bound, .data = std::move(data), .target = now};
      };
      iterator_source(scope, "Scripted", std::move(pull), probe) |
          inspect_time([&](const Time& t, const std::uint64_t& x) { seen.emplace_back(t, x); }) |
          probe_with(probe);
    });
    auto check = [&](int number, bool held) {
      observed.push_back("check " + std::to_string(number) + (held ? ": ok" : ": FAILED"));
    };
    // Short waits: when a check fails, the test still ends soon.
    auto reaches = [&](Time time) {
      return step_until(
          worker, [&] { return !probe.less_than(time); }, 5);
    };

    // A lower bound without records moves the frontier up to it, and no further.
    bound = 5;
    check(1, reaches(5));
    for (int i = 0; i < 50; ++i) worker.step();
    check(2, frontier_of(probe) == 5 && seen.empty());
    // Records at a later lower bound arrive at that time; the frontier stays there.
    bound = 7;
    pending = {100 + worker.index()};
    check(3, reaches(7));
    for (int i = 0; i < 50; ++i) worker.step();
    check(4, frontier_of(probe) == 7);
    check(5, seen == std::vector<std::pair<Time, std::uint64_t>>{{7, 100 + worker.index()}});
    // An exhausted closure releases the capability: the stream completes.
    finished = true;
    check(6, step_until_done_in_time(worker, probe));
    // Every worker's observations are the same; keep worker 0's so the result does not depend on
    // the number of workers.
    return worker.index() == 0 ? observed : std::vector<std::string>{};
  });
  CHECK(result == std::vector<std::string>{"check 1: ok", "check 2: ok", "check 3: ok", "check 4: ok",
                                           "check 5: ok", "check 6: ok"});
}

TEST_CASE("iterator_source with an empty input completes without records", "[conformance][iterator_source]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<Time> seen;
    ProbeHandle<Time> probe;
    std::size_t calls = 0;
    worker.dataflow<Time>([&](auto& scope) {
      iterator_source(
          scope, "Empty",
          [&](const Time&) -> Pulled {
            ++calls;
            return std::nullopt;
          },
          probe) |
          inspect_time([&](const Time& t, const std::uint64_t&) { seen.push_back(t); }) | probe_with(probe);
    });
    if (!step_until_done_in_time(worker, probe)) seen.push_back(violation);
    for (int i = 0; i < 10; ++i) worker.step();
    if (calls != 1) seen.push_back(calls);  // asked exactly once, then never again
    return seen;
  });
  CHECK(result.empty());
}

TEST_CASE("iterator_source rejects times that go backwards", "[conformance][iterator_source]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto program = [](timely::Worker& worker) {
      ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        iterator_source(
            scope, "Backwards",
            [](const Time& now) -> Pulled {
              Batches data;
              data.emplace_back(now + 3, std::vector<std::uint64_t>{1});
              data.emplace_back(now + 1, std::vector<std::uint64_t>{2});
              return IteratorSourceInput<Time, Batches>{
                  .lower_bound = now, .data = std::move(data), .target = now};
            },
            probe) |
            probe_with(probe);
      });
      while (!probe.done()) worker.step();
    };
    CHECK_THROWS_AS(timely::execute(timely::Config::process(workers), program), timely::CapabilityError);
    CHECK_THROWS_WITH(timely::execute(timely::Config::process(workers), program),
                      Catch::Contains("'Backwards'") && Catch::Contains("time 1, before its current time 3"));
  }
}
