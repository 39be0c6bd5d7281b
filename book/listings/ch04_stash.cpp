// Chapter 4, "stash": a frontier-aware operator written with the generic OperatorBuilder. Sensor
// readings arrive at several times, in any order and on any worker; the operator routes them by
// sensor, stashes each time's readings, and once the input frontier has passed the time it sends
// one summary per sensor (count, lowest, highest). Its capabilities follow the input frontier in
// a CapabilitySet: it holds the right to send at every time its input may still bring.
//   ch04_stash [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Reading = std::pair<std::string, int>;  // (sensor, value)

struct Summary {
  std::string sensor;
  int count = 0, low = 0, high = 0;
};

// Builds the operator in the stream's scope and returns its output stream.
timely::Stream<Time, Summary> summarize(const timely::Stream<Time, Reading>& readings) {
  timely::OperatorBuilder<Time> builder(readings.scope(), "Summarize");
  auto route = [](const Reading& r) { return static_cast<std::uint64_t>(std::hash<std::string>{}(r.first)); };
  auto input = builder.new_input(readings, timely::Exchange{route});
  auto summaries = builder.new_output<Summary>();  // .handle to write to, .stream to return

  // The constructor receives one capability per output, at time 0. The operator keeps it in a
  // CapabilitySet and moves the set along with the input frontier, so it always holds a
  // capability at or before every time the input may still bring, and nothing earlier.
  builder.build([input, output = summaries.handle](std::vector<timely::Capability<Time>> initial) mutable {
    timely::CapabilitySet<Time> caps(std::move(initial[0]));
    std::map<Time, std::map<std::string, Summary>> stash;
    return [input, output, caps = std::move(caps), stash = std::move(stash)]() mutable {
      // Take everything that arrived, one call per distinct time.
      input.for_each_time(
          [&](const timely::InputCapability<Time>& cap, std::vector<std::vector<Reading>>& batches) {
            auto& per_sensor = stash[cap.time()];
            for (auto& batch : batches)
              for (auto& [sensor, value] : batch) {
                Summary& s = per_sensor[sensor];
                s.low = s.count == 0 ? value : std::min(s.low, value);
                s.high = s.count == 0 ? value : std::max(s.high, value);
                s.sensor = sensor;
                ++s.count;
              }
          });
      // Send every stashed time the frontier has passed, oldest first, with a capability minted
      // from the set (which still holds one at or before it).
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto session = output.session(caps.delayed(stash.begin()->first));
        for (auto& [sensor, summary] : stash.begin()->second) session.give(summary);
        stash.erase(stash.begin());
      }
      // Keep capabilities only where records may still arrive: once the input is complete, the
      // set is empty and the operator can shut down.
      caps.downgrade(input.frontier());
    };
  });
  return summaries.stream;
}

int main(int argc, char** argv) {
  // (time, sensor, value); every worker sends its share, not in time order.
  const std::vector<std::tuple<Time, std::string, int>> readings = {
      {1, "north", 12}, {0, "north", 10}, {0, "south", 20}, {1, "south", 25}, {0, "north", 14},
      {2, "south", 21}, {1, "north", 11}, {2, "north", 13}, {1, "south", 19}, {0, "south", 22},
  };

  auto parts = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::string, int, int, int>> out;
    timely::ProbeHandle<Time> probe;
    auto feed = worker.dataflow<Time>([&](auto& scope) {
      auto input = new_unordered_input<Reading>(scope);
      auto note = [&out](Time t, const Summary& s) { out.emplace_back(t, s.sensor, s.count, s.low, s.high); };
      summarize(input.stream) | inspect_time(note) | probe_with(probe);
      return std::move(input).feed();  // the handle and the capability, for after building
    });

    // An unordered input may send at any time it holds a capability for, in any order.
    std::map<Time, timely::dataflow::ActivateCapability<Time>> caps;
    for (Time t = 0; t < 3; ++t) caps.emplace(t, feed.capability.delayed(t));
    feed.capability.reset();
    for (std::size_t i = worker.index(); i < readings.size(); i += worker.peers()) {
      const auto& [t, sensor, value] = readings[i];
      feed.handle.session(caps.at(t)).give(Reading(sensor, value));
    }
    caps.clear();  // no more readings at any time
    while (!probe.done()) worker.step();
    return out;
  });

  std::vector<std::tuple<Time, std::string, int, int, int>> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  for (const auto& [t, sensor, count, low, high] : all)
    std::printf("time %llu: %s: %d reading(s), low %d, high %d\n", static_cast<unsigned long long>(t),
                sensor.c_str(), count, low, high);
}
