// unordered_input: an input driven by capabilities instead of a clock. Each round every worker
// sends the round number at the time of the capability it holds, then moves that capability on
// to the next round; batches are printed as "TIME -> [RECORDS]". Once the capability is released
// the stream completes, and each worker prints what it saw.
//   unordered_input [-w N]
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

int main(int argc, char** argv) {
  return examples::guarded_main("unordered_input", "[-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (!config.positional.empty())
      throw timely::ConfigError("unexpected argument '" + config.positional[0] + "'");
    timely::execute(config, [](timely::Worker& worker) {
      const std::size_t index = worker.index();
      std::uint64_t count = 0, sum = 0;
      timely::ProbeHandle<Time> probe;
      auto feed = worker.dataflow<Time>([&](auto& scope) {
        auto input = new_unordered_input<std::uint64_t>(scope);
        input.stream | inspect_batch([&, index](const Time& t, const std::vector<std::uint64_t>& batch) {
          std::string records;
          for (auto x : batch) {
            records += (records.empty() ? "" : ", ") + std::to_string(x);
            ++count;
            sum += x;
          }
          std::printf("worker %zu:\t%llu -> [%s]\n", index, static_cast<unsigned long long>(t),
                      records.c_str());
        }) | probe_with(probe);
        return std::move(input).feed();
      });
      for (Time round = 0; round < 10; ++round) {
        feed.handle.session(feed.capability).give(round);
        feed.capability = feed.capability.delayed(round + 1);  // the old one is released as it is replaced
        worker.step();
      }
      feed.capability.reset();  // no more records: the stream can complete
      while (!probe.done()) worker.step_or_park(std::chrono::milliseconds(1));
      std::printf("worker %zu:\tsaw %llu records, sum %llu; the stream is complete\n", index,
                  static_cast<unsigned long long>(count), static_cast<unsigned long long>(sum));
    });
  });
}
