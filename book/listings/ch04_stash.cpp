// Chapter 4, "stash": a frontier-aware operator written with the generic OperatorBuilder. Sensor
// readings arrive at several times, in any order and on any worker; the operator routes them by
// sensor, stashes each time's readings with a capability retained for that time, and once the
// input frontier has passed the time it sends one summary per sensor (count, lowest, highest).
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
  auto [output, stream] = builder.new_output<Summary>();

  // The constructor receives one capability per output, at time 0. This operator sends nothing
  // on its own, so it lets the capability go: the frontier downstream may then pass time 0.
  builder.build([input, output](std::vector<timely::Capability<Time>> initial) mutable {
    initial.clear();
    struct Pending {
      timely::Capability<Time> cap;
      std::map<std::string, Summary> per_sensor;
    };
    std::map<Time, Pending> stash;
    return [input, output, stash]() mutable {
      // Take everything that arrived, one call per distinct time.
      input.for_each_time(
          [&](const timely::InputCapability<Time>& cap, std::vector<std::vector<Reading>>& batches) {
            auto it = stash.find(cap.time());
            if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
            for (auto& batch : batches)
              for (auto& [sensor, value] : batch) {
                Summary& s = it->second.per_sensor[sensor];
                s.low = s.count == 0 ? value : std::min(s.low, value);
                s.high = s.count == 0 ? value : std::max(s.high, value);
                s.sensor = sensor;
                ++s.count;
              }
          });
      // Send every stashed time the frontier has passed, oldest first, then release it.
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto session = output.session(stash.begin()->second.cap);
        for (auto& [sensor, summary] : stash.begin()->second.per_sensor) session.give(summary);
        stash.erase(stash.begin());
      }
    };
  });
  return stream;
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
    auto input = worker.dataflow<Time>([&](auto& scope) {
      auto [handle, cap, stream] = new_unordered_input<Reading>(scope);
      auto note = [&out](Time t, const Summary& s) { out.emplace_back(t, s.sensor, s.count, s.low, s.high); };
      summarize(stream) | inspect_time(note) | probe_with(probe);
      return std::make_pair(handle, cap);
    });
    auto& [handle, cap] = input;

    // An unordered input may send at any time it holds a capability for, in any order.
    std::map<Time, timely::dataflow::ActivateCapability<Time>> caps;
    for (Time t = 0; t < 3; ++t) caps.emplace(t, cap.delayed(t));
    cap.reset();
    for (std::size_t i = worker.index(); i < readings.size(); i += worker.peers()) {
      const auto& [t, sensor, value] = readings[i];
      handle.session(caps.at(t)).give(Reading(sensor, value));
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
