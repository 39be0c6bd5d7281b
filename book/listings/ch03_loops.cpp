// Chapter 3, "loops": the same countdown loop built twice. At the top level, a feedback edge
// advances the (only) timestamp on every trip around the loop. Inside an iterative scope, the
// timestamp is Product<outer, round>: the loop advances only the round, and records leave with
// the outer time they entered with.
//   ch03_loops [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using timely::Product;

// What a worker saw: (dataflow, outer time, round, value). The top-level loop has no rounds.
using Seen = std::tuple<int, Time, Time, int>;

int main(int argc, char** argv) {
  auto parts = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    std::vector<Seen> seen;
    // Only worker 0 starts a countdown: to_stream runs on every worker.
    std::vector<int> start;
    if (worker.index() == 0) start = {3};

    // 1. A loop in the top-level scope: every trip adds 1 to the time.
    worker.dataflow<Time>([&](auto& scope) {
      auto [handle, cycle] = feedback<int>(scope, Time{1});
      auto body = to_stream(scope, start) | concat(cycle);
      body | inspect_time([&](Time t, int x) { seen.emplace_back(1, t, 0, x); });
      body | filter([](int x) { return x > 0; }) | map([](int x) { return x - 1; }) | connect_loop(handle);
    });

    // 2. The same loop in an iterative scope, entered at outer time 0; `leave` drops the round.
    worker.dataflow<Time>([&](auto& scope) {
      auto numbers = to_stream(scope, start);
      auto done = scope.template iterative<Time>([&](auto& inner) {
        auto [handle, cycle] = loop_variable<int>(inner);  // summary (0, +1)
        auto body = numbers | enter(inner) | concat(cycle);
        body | inspect_time(
                   [&](const Product<Time, Time>& t, int x) { seen.emplace_back(2, t.outer, t.inner, x); });
        body | filter([](int x) { return x > 0; }) | map([](int x) { return x - 1; }) | connect_loop(handle);
        return body | filter([](int x) { return x == 0; }) | leave(scope);
      });
      done | inspect_time([&](Time t, int x) { seen.emplace_back(3, t, 0, x); });
    });

    while (worker.step()) {  // no inputs to wait for: step until both dataflows are complete
    }
    return seen;
  });

  std::vector<Seen> seen;
  for (const auto& part : parts) seen.insert(seen.end(), part.begin(), part.end());
  std::sort(seen.begin(), seen.end());
  for (const auto& [dataflow, outer, round, value] : seen) {
    if (dataflow == 1)
      std::printf("top level:      value %d at time %llu\n", value, static_cast<unsigned long long>(outer));
    if (dataflow == 2)
      std::printf("iterative:      value %d at time (%llu, %llu)\n", value,
                  static_cast<unsigned long long>(outer), static_cast<unsigned long long>(round));
    if (dataflow == 3)
      std::printf("left the scope: value %d at time %llu\n", value, static_cast<unsigned long long>(outer));
  }
}
