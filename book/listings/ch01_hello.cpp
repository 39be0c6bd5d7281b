// Chapter 1, "hello": five rounds of greetings. Worker 0 sends the round number into the
// dataflow at time `round`; `exchange` routes it to worker `round % peers`, which records it.
// main prints everything the workers saw, sorted, so the output does not depend on thread timing.
//   ch01_hello [-w N]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  // Each worker runs this closure on its own thread and returns what it saw: (time, greeting).
  auto seen = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> log;

    timely::InputHandle<std::uint64_t, std::uint64_t> input;
    timely::ProbeHandle<std::uint64_t> probe;

    // Build the dataflow: input -> exchange -> inspect -> probe.
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      auto route = [](std::uint64_t round) { return round; };
      auto record = [&log](std::uint64_t time, std::uint64_t round) { log.emplace_back(time, round); };
      input.to_stream(scope) | exchange(route) | inspect_time(record) | probe_with(probe);
    });

    for (std::uint64_t round = 0; round < 5; ++round) {
      if (worker.index() == 0) input.send(round);  // sent at time `round`
      input.advance_to(round + 1);                 // no more records before time round + 1
      while (probe.less_than(input.time())) worker.step();
    }

    // `log` is captured by the dataflow: finish the dataflow before the closure returns.
    input.close();
    while (!probe.done()) worker.step();
    return log;
  });

  // seen[w] is what worker w saw; merge and sort by time.
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::size_t>> lines;
  for (std::size_t w = 0; w < seen.size(); ++w)
    for (const auto& [time, round] : seen[w]) lines.emplace_back(time, round, w);
  std::sort(lines.begin(), lines.end());
  for (const auto& [time, round, w] : lines)
    std::printf("time %llu: worker %zu received hello %llu\n", static_cast<unsigned long long>(time), w,
                static_cast<unsigned long long>(round));
}
