// pingpong: ELEMENTS numbers circulate around a loop for ITERATIONS rounds, exchanged by value
// and incremented each round, so every round moves every element between workers. Measures the
// latency of a data round trip plus progress coordination.
//   pingpong ITERATIONS ELEMENTS [-w N]
#include <chrono>
#include <cstdio>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("pingpong", "ITERATIONS ELEMENTS [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 2)
      throw examples::positional_error(config.positional, "expected ITERATIONS and ELEMENTS");
    const auto iterations = examples::parse_count(config.positional[0], "ITERATIONS");
    const auto elements = examples::parse_count(config.positional[1], "ELEMENTS");
    const auto start = std::chrono::steady_clock::now();
    timely::execute(config, [&](timely::Worker& worker) {
      const auto index = worker.index(), peers = worker.peers();
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        std::vector<std::uint64_t> mine;
        for (std::uint64_t x = 0; x < elements; ++x)
          if (x % peers == index) mine.push_back(x);
        auto [handle, cycle] = feedback<std::uint64_t>(scope, std::uint64_t{1});
        auto [done, again] = to_stream(scope, mine) | concat(cycle) |
                             exchange([](const std::uint64_t& x) { return x; }) |
                             map([](std::uint64_t x) { return x + 1; }) |
                             branch_when([iterations](const std::uint64_t& t) { return t < iterations; });
        (void)done;
        again | connect_loop(handle);
      });
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("pingpong: %llu rounds of %llu elements on %zu workers in %.3f s (%.3f us per round)\n",
                static_cast<unsigned long long>(iterations), static_cast<unsigned long long>(elements),
                config.workers, seconds, iterations ? seconds * 1e6 / static_cast<double>(iterations) : 0.0);
  });
}
