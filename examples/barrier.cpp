// barrier: ITERATIONS rounds of pure progress coordination. A loop of one notificator operator:
// at each notification it requests the next time, so every round waits for all workers to agree
// that the previous one is complete. Measures the latency of progress tracking.
//   barrier ITERATIONS [-w N]
#include <chrono>
#include <cstdio>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("barrier", "ITERATIONS [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 1)
      throw examples::positional_error(config.positional, "expected ITERATIONS");
    const auto iterations = examples::parse_count(config.positional[0], "ITERATIONS");
    const auto start = std::chrono::steady_clock::now();
    timely::execute(config, [&](timely::Worker& worker) {
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        auto [handle, cycle] = feedback<int>(scope, std::uint64_t{1});
        cycle |
            unary_notify<int>(timely::Pipeline{}, "Barrier", std::vector<std::uint64_t>{0},
                              [iterations](auto&, auto&, auto& notificator) {
                                while (auto cap = notificator.next()) {
                                  const auto next = cap->time() + 1;
                                  if (next < iterations) notificator.notify_at(cap->delayed(next));
                                }
                              }) |
            connect_loop(handle);
      });
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("barrier: %llu rounds on %zu workers in %.3f s (%.3f us per round)\n",
                static_cast<unsigned long long>(iterations), config.workers, seconds,
                iterations ? seconds * 1e6 / static_cast<double>(iterations) : 0.0);
  });
}
