// exchange: the data-plane benchmark. Each round every worker sends BATCH numbers, exchanged by
// value, and waits for the round to complete; prints each worker's time and record rate.
//   exchange BATCH ROUNDS [-w N]
#include <chrono>
#include <cstdio>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("exchange", "BATCH ROUNDS [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 2) throw timely::ConfigError("expected BATCH and ROUNDS");
    const auto batch = examples::parse_count(config.positional[0], "BATCH");
    const auto rounds = examples::parse_count(config.positional[1], "ROUNDS");
    timely::execute(config, [&](timely::Worker& worker) {
      timely::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) | probe_with(probe);
      });
      // Local copies: the records are u64s too, so the compiler must otherwise assume that each
      // record stored could change `batch` (captured by reference) and reload it every time.
      const std::uint64_t records_per_round = batch, round_count = rounds;
      const auto start = std::chrono::steady_clock::now();
      for (std::uint64_t round = 0; round < round_count; ++round) {
        for (std::uint64_t i = 0; i < records_per_round; ++i) input.send(i);
        input.advance_to(round + 1);
        while (probe.less_than(input.time())) worker.step();
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double records = static_cast<double>(batch * rounds);
      std::printf("worker %zu: %.0f records in %.3f s: %.3e records/s\n", worker.index(), records, seconds,
                  seconds > 0 ? records / seconds : 0.0);
    });
  });
}
