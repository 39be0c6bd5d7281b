// threadless: a worker built by hand on the calling thread with the single-thread allocator, no
// execute(), no extra threads: the program drives it directly.
//   threadless
#include <cstdio>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main() {
  return examples::guarded_main("threadless", "", [] {
    timely::Worker worker(timely::communication::Allocator::thread());
    timely::InputHandle<std::uint64_t, std::uint64_t> input;
    timely::ProbeHandle<std::uint64_t> probe;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      input.to_stream(scope) |
          inspect([](const std::uint64_t& x) { std::printf("%llu\n", static_cast<unsigned long long>(x)); }) |
          probe_with(probe);
    });
    for (std::uint64_t i = 0; i < 10; ++i) {
      input.send(i);
      input.advance_to(i + 1);
      while (probe.less_than(input.time())) worker.step();
    }
  });
}
