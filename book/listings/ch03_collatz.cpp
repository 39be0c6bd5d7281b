// Chapter 3, "collatz": how many steps each number takes to reach 1 under the Collatz map
// (n -> n / 2 if n is even, 3n + 1 if odd). Numbers enter at three input times; each goes
// around a loop once per step, exchanged among the workers by its current value, and leaves the
// loop when it reaches 1. The round at which it leaves, the inner coordinate of its
// Product<outer, round> timestamp, is its number of steps.
//   ch03_collatz [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Round = std::uint32_t;
using Inner = timely::Product<Time, Round>;
using Walk = std::pair<std::uint64_t, std::uint64_t>;  // (starting number, current value)

Walk step(Walk w) {
  w.second = (w.second % 2 == 0) ? w.second / 2 : 3 * w.second + 1;
  return w;
}

int main(int argc, char** argv) {
  const std::vector<std::vector<std::uint64_t>> batches = {{6, 7, 1}, {27, 97}, {871, 12}};

  auto parts = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::uint64_t, Round>> finished;  // (input time, start, steps)
    std::vector<Time> left;                                        // outer times seen outside
    timely::InputHandle<Time, Walk> input;
    timely::ProbeHandle<Time> probe;

    worker.dataflow<Time>([&](auto& scope) {
      auto walks = input.to_stream(scope);
      auto results = scope.template iterative<Round>([&](auto& inner) {
        auto [handle, cycle] = loop_variable<Walk>(inner);
        auto route = [](const Walk& w) { return w.second; };
        auto current = walks | enter(inner) | concat(cycle) | exchange(route);
        current | filter([](const Walk& w) { return w.second != 1; }) | map(step) | connect_loop(handle);
        auto record = [&finished](const Inner& t, const Walk& w) {
          finished.emplace_back(t.outer, w.first, t.inner);
        };
        return current | filter([](const Walk& w) { return w.second == 1; }) | inspect_time(record) |
               leave(scope);
      });
      results | inspect_time([&left](Time t, const Walk&) { left.push_back(t); }) | probe_with(probe);
    });

    for (Time t = 0; t < batches.size(); ++t) {
      const auto& batch = batches[t];
      for (std::size_t i = worker.index(); i < batch.size(); i += worker.peers())
        input.send({batch[i], batch[i]});
      input.advance_to(t + 1);
    }
    input.close();
    while (!probe.done()) worker.step();
    return std::make_pair(finished, left);
  });

  std::vector<std::tuple<Time, std::uint64_t, Round>> finished;
  std::vector<Time> left;
  for (const auto& [f, l] : parts) {
    finished.insert(finished.end(), f.begin(), f.end());
    left.insert(left.end(), l.begin(), l.end());
  }
  std::sort(finished.begin(), finished.end());
  std::sort(left.begin(), left.end());
  for (const auto& [t, start, steps] : finished)
    std::printf("input time %llu: %llu reaches 1 in %u steps\n", static_cast<unsigned long long>(t),
                static_cast<unsigned long long>(start), steps);
  std::printf("outer times of the records that left the loop:");
  for (Time t : left) std::printf(" %llu", static_cast<unsigned long long>(t));
  std::printf("\n");
}
