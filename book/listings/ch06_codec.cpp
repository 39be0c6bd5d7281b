// A record type with private fields gets a Codec, so that it can cross processes; the dataflow
// exchanges Readings by sensor and sums them per sensor. Run it as one process, or as several:
//   ch06_codec -w 2        or        ch06_codec -n 2 -p 0 -h hosts.txt  (and -p 1)
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;

class Reading {
 public:
  Reading() = default;
  Reading(std::string sensor, double value) : sensor_(std::move(sensor)), value_(value) {}
  const std::string& sensor() const { return sensor_; }
  double value() const { return value_; }

 private:
  std::string sensor_;
  double value_ = 0;
};

template <>
struct timely::communication::Codec<Reading> {
  static void encode(Encoder& e, const Reading& r) {
    e.put(r.sensor());
    e.put(r.value());
  }
  static Reading decode(Decoder& d) {
    auto sensor = d.get<std::string>();
    auto value = d.get<double>();
    if (sensor.empty()) d.fail("a reading without a sensor name");
    return Reading(std::move(sensor), value);
  }
  static std::string name() { return "reading"; }
};

int main(int argc, char** argv) {
  try {
    auto results = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
      std::vector<Reading> mine;
      for (int i = 0; i < 12; ++i)
        if (static_cast<std::size_t>(i) % worker.peers() == worker.index())
          mine.emplace_back("sensor-" + std::to_string(i % 3), i * 0.5);
      std::map<std::string, double> totals;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        to_stream(scope, mine) |
            exchange([](const Reading& r) { return std::hash<std::string>{}(r.sensor()); }) |
            inspect([&](const Reading& r) { totals[r.sensor()] += r.value(); });
      });
      while (worker.has_dataflows()) worker.step();
      return totals;  // each sensor's total is on the one worker its readings were sent to
    });
    std::map<std::string, double> all;  // this process's workers' totals
    for (const auto& totals : results) all.insert(totals.begin(), totals.end());
    for (const auto& [sensor, total] : all) std::printf("%s %.1f\n", sensor.c_str(), total);
  } catch (const timely::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
