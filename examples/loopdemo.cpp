// loopdemo: open-loop latency of a dataflow with a cycle. Each offered number follows the
// Collatz map around a feedback loop until it reaches 1; the probe watches the loop body.
//   loopdemo RATE SECONDS [-w N]
#include <timely/timely.hpp>

#include "common.hpp"
#include "latency.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("loopdemo", "RATE SECONDS [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 2)
      throw examples::positional_error(config.positional, "expected RATE and SECONDS");
    const auto rate = examples::parse_count(config.positional[0], "RATE");
    const auto seconds = examples::parse_count(config.positional[1], "SECONDS");
    if (rate == 0 || rate > 1'000'000'000) throw timely::ConfigError("RATE must be between 1 and 1e9");
    timely::execute(config, [&](timely::Worker& worker) {
      timely::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        auto [handle, cycle] = feedback<std::uint64_t>(scope, std::uint64_t{1});
        auto step = input.to_stream(scope) | concat(cycle) |
                    map([](std::uint64_t x) { return x % 2 == 0 ? x / 2 : 3 * x + 1; }) |
                    filter([](const std::uint64_t& x) { return x > 1; });
        step | probe_with(probe) | connect_loop(handle);
      });
      examples::open_loop(worker, input, probe, rate, seconds);
    });
  });
}
