// openloop: open-loop latency of progress tracking. Records are offered at RATE per second (over
// all workers) for SECONDS, each timestamped with the nanosecond it becomes due; a dataflow that
// discards every record only has to agree that times are complete. The workers first meet at a
// Barrier so that their clocks start together. Worker 0 prints "LATENCY_NS<TAB>FRACTION_SLOWER"
// lines, then a summary line counting the records the dataflow saw.
//   openloop RATE SECONDS [-w N]
#include <cstdint>
#include <cstdio>

#include <timely/timely.hpp>

#include "common.hpp"
#include "latency.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("openloop", "RATE SECONDS [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 2)
      throw examples::positional_error(config.positional, "expected RATE and SECONDS");
    const auto rate = examples::parse_count(config.positional[0], "RATE");
    const auto seconds = examples::parse_count(config.positional[1], "SECONDS");
    if (rate == 0 || rate > 1'000'000'000) throw timely::ConfigError("RATE must be between 1 and 1e9");
    if (seconds > 86'400) throw timely::ConfigError("SECONDS must be at most 86400 (a day)");
    const std::uint64_t limit = rate * seconds;

    const auto seen = timely::execute(config, [&](timely::Worker& worker) {
      // Re-synchronize the workers after start-up, so every worker's clock starts together.
      timely::synchronization::Barrier(worker).wait();

      timely::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::ProbeHandle<std::uint64_t> probe;
      std::uint64_t below_limit = 0;  // records numbered below `limit` that reached the dataflow
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | inspect([&](const std::uint64_t& x) { below_limit += x < limit ? 1 : 0; }) |
            filter([](const std::uint64_t&) { return false; }) | probe_with(probe);
      });
      examples::open_loop(worker, input, probe, rate, seconds);
      input.close();  // the other workers' probes wait for this input to advance
      // Sum the workers' counts on worker 0 (which may be in another process).
      std::uint64_t total = 0;
      timely::ProbeHandle<std::uint64_t> summed;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        to_stream(scope, std::vector<std::uint64_t>{below_limit}) |
            exchange([](const std::uint64_t&) { return std::uint64_t{0}; }) |
            inspect([&total](const std::uint64_t& n) { total += n; }) | probe_with(summed);
      });
      while (!summed.done()) worker.step_or_park(std::nullopt);
      return total;
    });

    std::uint64_t total = 0;
    for (auto n : seen) total += n;
    if (config.process_index != 0) return;  // the sum is on worker 0, in process 0
    std::printf("openloop: %llu of %llu records offered at %llu/s for %llu s were retired on %zu workers\n",
                static_cast<unsigned long long>(total), static_cast<unsigned long long>(limit),
                static_cast<unsigned long long>(rate), static_cast<unsigned long long>(seconds),
                config.workers * config.processes);
    if (total != limit) throw std::runtime_error("some offered records never reached the dataflow");
  });
}
