// The observation model fed by real dataflows through in-process log actions (one Model per
// worker, merged): operator names and addresses, records per channel and operator equal to what
// the test sent, schedulings, a held capability while the probe is behind, frontiers empty at the
// end; on 1, 2 and 4 workers in both progress modes. Also: spans, parking and window pruning from
// hand-made events, the JSON round trip, merge, and malformed JSON.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/observe/model.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace lg = timely::logging;
namespace ob = timely::observe;
using Time = std::uint64_t;
using std::chrono::nanoseconds;

namespace {

constexpr std::uint64_t kRecords = 25;  // per round, sent by worker 0
constexpr Time kRounds = 3;

// Feeds `model` with this worker's "timely" and "timely/frontier/u64" streams.
void observe(timely::Worker& worker, std::shared_ptr<ob::Model> model) {
  const std::size_t w = worker.index();
  auto& registry = worker.log_register();
  registry.insert<lg::TimelyEvent>("timely", [model, w](lg::Duration now, auto& batch) {
    for (const auto& [time, event] : batch) model->add(w, time, event);
    model->advance(w, now);
  });
  registry.insert<lg::FrontierEvent<Time>>("timely/frontier/u64", [model, w](lg::Duration now, auto& batch) {
    for (const auto& [time, event] : batch) model->add(w, time, event);
    model->advance(w, now);
  });
}

const ob::OperatorState* find(const ob::Snapshot& s, std::size_t worker, const std::string& name) {
  for (const auto& o : s.operators)
    if (o.worker == worker && o.name == name) return &o;
  return nullptr;
}

struct Run {
  ob::Snapshot final;
  // While the probe was behind round `kRounds - 1`: the Input's held capabilities and the
  // Probe's input frontier, as this worker's model saw them.
  std::vector<std::pair<Time, std::int64_t>> input_held;
  std::vector<Time> probe_frontier;
  Time behind_at = 0;
  std::uint64_t inspected = 0;
};

// Input -> Map -> exchange Inspect -> region(enter, Map, leave) -> Probe.
Run run_observed(timely::Worker& worker) {
  auto model = std::make_shared<ob::Model>();
  observe(worker, model);
  Run run;
  {
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto counted = input.to_stream(scope) | map([](std::uint64_t x) { return x + 1; }) |
                     exchange([](std::uint64_t x) { return x; }) |
                     inspect([&run](const std::uint64_t&) { ++run.inspected; });
      scope.region([&](auto& region) {
        return counted | enter(region) | map([](std::uint64_t x) { return x * 2; }) | leave(scope);
      }) | probe_with(probe);
    });
    for (Time round = 0; round < kRounds; ++round) {
      if (worker.index() == 0)
        for (std::uint64_t i = 0; i < kRecords; ++i) input.send(i);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
      if (round + 1 == kRounds - 1) {
        // The input holds round + 1, so the probe is behind round + 2: the model says why.
        REQUIRE(probe.less_than(round + 2));
        const auto s = model->snapshot();
        const auto* in = find(s, worker.index(), "Input");
        const auto* pr = find(s, worker.index(), "Probe");
        REQUIRE(in != nullptr);
        REQUIRE(pr != nullptr);
        REQUIRE(in->capabilities.size() == 1);
        REQUIRE(pr->input_frontiers.size() == 1);
        run.input_held = in->capabilities[0];
        run.probe_frontier = pr->input_frontiers[0];
        run.behind_at = round + 1;
      }
    }
  }
  while (worker.step_or_park(std::chrono::milliseconds(1))) {
  }
  worker.log_register().flush();
  run.final = model->snapshot();
  return run;
}

// The channel from operator `from` to operator `to` (names, on worker 0's addresses).
const ob::ChannelState* channel(const ob::Snapshot& s, const std::string& from, const std::string& to) {
  for (const auto& c : s.channels) {
    auto at = [&](std::size_t node) {
      auto a = c.scope_address;
      a.push_back(node);
      for (const auto& o : s.operators)
        if (o.worker == 0 && o.address == a) return o.name;
      return std::string();
    };
    if (c.source.first != 0 && c.target.first != 0 && at(c.source.first) == from && at(c.target.first) == to)
      return &c;
  }
  return nullptr;
}

void check(const std::vector<Run>& runs) {
  const std::size_t peers = runs.size();
  ob::Snapshot all = runs[0].final;
  for (std::size_t w = 1; w < peers; ++w) ob::merge(all, runs[w].final);
  INFO("snapshot: " << ob::to_json(all));
  const std::uint64_t total = kRecords * kRounds;

  REQUIRE(all.workers.size() == peers);
  for (std::size_t w = 0; w < peers; ++w) {
    REQUIRE(all.workers[w].worker == w);
    REQUIRE(all.workers[w].busy.count() > 0);
    // Operators with the same addresses and names on every worker.
    const auto* dataflow = find(all, w, "Dataflow");
    REQUIRE(dataflow != nullptr);
    REQUIRE(dataflow->address.size() == 1);
    REQUIRE(dataflow->shut_down);
    const auto* in = find(all, w, "Input");
    REQUIRE(in != nullptr);
    REQUIRE(in->address == std::vector<std::size_t>{dataflow->address[0], 1});
    const auto* region = find(all, w, "Region");
    REQUIRE(region != nullptr);
    std::size_t inner = 0;
    for (const auto& o : all.operators)
      if (o.worker == w && o.address.size() == 3) {
        REQUIRE(std::equal(region->address.begin(), region->address.end(), o.address.begin()));
        ++inner;
      }
    REQUIRE(inner >= 1);  // the region's Map
    // Every operator was scheduled, and ends complete and holding nothing.
    for (const auto& o : all.operators) {
      if (o.worker != w) continue;
      INFO("operator " << o.name << " on worker " << w);
      REQUIRE(o.schedules > 0);
      REQUIRE(o.busy.count() >= 0);
      for (const auto& f : o.input_frontiers) REQUIRE(f.empty());
      for (const auto& held : o.capabilities) REQUIRE(held.empty());
    }
    // While behind: the input held one capability at the round's time, and the probe waited there.
    REQUIRE(runs[w].input_held == std::vector<std::pair<Time, std::int64_t>>{{runs[w].behind_at, 1}});
    REQUIRE(runs[w].probe_frontier == std::vector<Time>{runs[w].behind_at});
  }
  // Records per channel are what was sent, once however many workers reported the channel.
  const auto* input_map = channel(all, "Input", "Map");
  const auto* map_exchange = channel(all, "Map", "Exchange");  // the one crossing workers
  const auto* map_inspect = channel(all, "Exchange", "InspectBatch");
  REQUIRE(input_map != nullptr);
  REQUIRE(map_inspect != nullptr);
  REQUIRE(map_exchange != nullptr);
  REQUIRE(input_map->records == total);
  REQUIRE(map_exchange->records == total);
  REQUIRE(map_inspect->records == total);
  REQUIRE(map_inspect->batches >= kRounds);
  std::uint64_t inspected = 0, inspect_in = 0, input_out = 0, region_in = 0, region_out = 0;
  for (const auto& r : runs) inspected += r.inspected;
  REQUIRE(inspected == total);
  for (const auto& o : all.operators) {
    if (o.name == "InspectBatch") inspect_in += o.records_in;
    if (o.name == "Input") input_out += o.records_out;
    if (o.name == "Region") {
      region_in += o.records_in;
      region_out += o.records_out;
    }
  }
  REQUIRE(inspect_in == total);
  REQUIRE(input_out == total);
  REQUIRE(region_in == total);
  REQUIRE(region_out == total);
  // The timeline holds every scheduling (no window), in start order.
  std::uint64_t schedules = 0;
  for (const auto& o : all.operators) schedules += o.schedules;
  REQUIRE(all.timeline.size() == schedules);
  REQUIRE(std::is_sorted(all.timeline.begin(), all.timeline.end(),
                         [](const auto& a, const auto& b) { return a.start < b.start; }));
  // The JSON form reads back as the same snapshot.
  REQUIRE(ob::snapshot_from_json(ob::to_json(all)) == all);
}

}  // namespace

TEST_CASE("a model fed by a dataflow's logs shows its graph, counts, frontiers and capabilities",
          "[observe]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      check(timely::execute(config, run_observed));
    }
}
