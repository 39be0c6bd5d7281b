// The "timely" log stream: operator creation and balanced schedule events.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
using timely::logging::TimelyEvent;

TEST_CASE("the timely log stream reports operators and their schedulings", "[conformance][logging]") {
  auto logs = timely::execute(timely::Config::process(2), [](timely::Worker& worker) {
    std::vector<TimelyEvent> events;
    worker.log_register().insert<TimelyEvent>("timely", [&events](auto, auto& batch) {
      for (auto& [time, event] : batch) events.push_back(event);
    });
    {
      timely::dataflow::InputHandle<std::uint64_t, int> input;
      timely::dataflow::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | map([](int x) { return x + 1; }) | probe_with(probe);
      });
      input.send(1);
      input.close();
      while (!probe.done()) worker.step();
    }
    while (worker.step()) {
    }
    worker.log_register().flush();
    return events;
  });
  for (auto& events : logs) {
    std::vector<std::string> names;
    std::map<std::size_t, int> open;
    std::size_t schedules = 0;
    for (auto& event : events) {
      if (auto* op = std::get_if<timely::logging::OperatesEvent>(&event)) {
        names.push_back(op->name);
        CHECK(op->address.size() == 2);
      } else {
        auto& s = std::get<timely::logging::ScheduleEvent>(event);
        open[s.id] += s.start ? 1 : -1;
        CHECK((open[s.id] == 0 || open[s.id] == 1));
        schedules += s.start ? 1 : 0;
      }
    }
    CHECK(names == std::vector<std::string>{"Input", "Map", "Probe"});
    CHECK(schedules >= 3);  // every operator runs at least once
    for (auto& [id, depth] : open) CHECK(depth == 0);
  }
}
