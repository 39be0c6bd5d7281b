// Chapter 9, "nexmark": Nexmark query 5 (hot items) over 30'000 generated events at 1'000
// events per second of event time (30 s), with Beam's windows of 10 s every 5 s. Every worker
// generates its share of the events; each returns the results it computed and main prints
// them sorted, so the output is the same on any number of workers.
//   ch09_nexmark [-w N]
#include <algorithm>
#include <cstdio>
#include <vector>

#include <timely/streaming/nexmark/source.hpp>
#include <timely/streaming/nexmark/windowed_queries.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace nx = timely::streaming::nexmark;

int main(int argc, char** argv) {
  auto config = timely::Config::from_args(argc, argv);
  nx::GeneratorConfig events;
  events.events = 30'000;
  events.rate = 1'000;
  auto results = timely::execute(config, [&](timely::Worker& worker) {
    std::vector<nx::HotItem> hot;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      nx::source(scope, events) | nx::q5() | inspect([&hot](const nx::HotItem& h) { hot.push_back(h); });
    });
    while (worker.step()) {
    }
    return hot;
  });
  std::vector<nx::HotItem> all;
  for (auto& hot : results) all.insert(all.end(), hot.begin(), hot.end());
  std::sort(all.begin(), all.end());
  for (const auto& h : all)
    std::printf("window [%llu ms, %llu ms): auction %llu with %llu bids\n",
                static_cast<unsigned long long>(h.window_start),
                static_cast<unsigned long long>(h.window_end), static_cast<unsigned long long>(h.auction),
                static_cast<unsigned long long>(h.count));
}
