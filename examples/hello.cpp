// hello: ten rounds; worker 0 sends the round number, which is exchanged to worker
// round % peers and printed there. Each round waits for the previous one to complete.
//   hello [-w N]
#include <cstdint>
#include <cstdio>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return timely::run(argc, argv, [](timely::Worker& worker) {
    const auto index = worker.index();
    timely::InputHandle<std::uint64_t, std::uint64_t> input;  // timestamp type, record type
    timely::ProbeHandle<std::uint64_t> probe;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      // Record x goes to worker x % peers, which prints it.
      input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) |
          inspect([index](std::uint64_t x) {
            std::printf("worker %zu:\thello %llu\n", index, static_cast<unsigned long long>(x));
          }) |
          probe_with(probe);
    });
    for (std::uint64_t round = 0; round < 10; ++round) {
      if (index == 0) input.send(round);
      input.advance_to(round + 1);                          // no more records before round + 1
      while (probe.less_than(input.time())) worker.step();  // wait until the round is complete
    }
  });
}
