// flow_controlled: a large input enters the dataflow a slice at a time. Every worker reads the
// numbers 0..RECORDS-1 (default 100000, like the reference) through `iterator_source`, ten at a
// time, number x at time x / 100 * 100; the source asks for more only once the probe at the end
// of the dataflow has passed everything before the time it holds. Each worker prints how many
// records it saw, their sum, and the most records it ever had in flight (sent at times the probe
// had not passed yet): about one time's worth, however large RECORDS is.
//   flow_controlled [RECORDS] [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/iterator_source.hpp>
#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
using timely::dataflow::IteratorSourceInput;
using Time = std::uint64_t;
using Batches = std::vector<std::pair<Time, std::vector<std::uint64_t>>>;

int main(int argc, char** argv) {
  return examples::guarded_main("flow_controlled", "[RECORDS] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() > 1)
      throw examples::positional_error(config.positional, "expected at most RECORDS");
    const std::uint64_t records =
        config.positional.empty() ? 100'000 : examples::parse_count(config.positional[0], "RECORDS");
    if (records > std::numeric_limits<std::uint64_t>::max() / 2)
      throw timely::ConfigError("RECORDS is too large");

    timely::execute(config, [&](timely::Worker& worker) {
      const std::size_t index = worker.index();
      timely::ProbeHandle<Time> probe;
      std::uint64_t count = 0, sum = 0, most_in_flight = 0;
      worker.dataflow<Time>([&](auto& scope) {
        auto pull = [&, next = std::uint64_t{0}, sent = std::map<Time, std::uint64_t>()](
                        const Time& now) mutable -> std::optional<IteratorSourceInput<Time, Batches>> {
          // Forget the times the probe has passed; what is left is still in flight.
          const Time frontier = probe.with_frontier(
              [](const auto& f) { return f.empty() ? std::numeric_limits<Time>::max() : Time{f[0]}; });
          sent.erase(sent.begin(), sent.lower_bound(frontier));
          std::uint64_t in_flight = 0;
          for (const auto& [time, n] : sent) in_flight += n;
          most_in_flight = std::max(most_in_flight, in_flight);
          if (next >= records) return std::nullopt;  // exhausted: the source completes
          // Ten numbers, all at the time of the first; then wait until the probe reaches `now`.
          const Time time = next / 100 * 100;
          std::vector<std::uint64_t> xs;
          for (; next < records && xs.size() < 10; ++next) xs.push_back(next);
          sent[time] += xs.size();
          Batches data;
          data.emplace_back(time, std::move(xs));
          return IteratorSourceInput<Time, Batches>{
              .lower_bound = now, .data = std::move(data), .target = now};
        };
        iterator_source(scope, "Source", std::move(pull), probe) | inspect([&](const std::uint64_t& x) {
          ++count;
          sum += x;
        }) | probe_with(probe);
      });
      while (!probe.done()) worker.step();
      std::printf("worker %zu:\t%llu records, sum %llu, at most %llu in flight\n", index,
                  static_cast<unsigned long long>(count), static_cast<unsigned long long>(sum),
                  static_cast<unsigned long long>(most_in_flight));
    });
  });
}
