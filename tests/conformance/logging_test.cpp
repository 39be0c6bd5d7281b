// The runtime's log streams: every event kind of "timely", "timely/progress/u64",
// "timely/reachability/u64", "timely/summary/u64" and "timely/frontier/u64" is produced by a
// dataflow that should produce it, with fields that agree with the dataflow and with each other
// (sends match receives across workers, counts return to zero), on 1, 2 and 4 workers in both
// progress modes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace lg = timely::logging;
using Time = std::uint64_t;

namespace {

struct Logs {
  std::size_t worker = 0;
  std::size_t dataflow_index = 0;
  std::vector<std::pair<lg::Duration, lg::TimelyEvent>> timely;
  std::vector<lg::ProgressEvent<Time>> progress;
  std::vector<lg::TrackerEvent<Time>> reachability;
  std::vector<lg::OperatesSummaryEvent<Time>> summaries;
  std::vector<lg::FrontierEvent<Time>> frontiers;
  std::size_t empty_batches = 0;  // flushes seen on the "timely" stream
  std::uint64_t records = 0;      // records this worker's inspect saw
};

template <class E>
lg::Action<E> into(std::vector<E>& out) {
  return [&out](lg::Duration, std::vector<std::pair<lg::Duration, E>>& batch) {
    for (auto& [time, event] : batch) out.push_back(std::move(event));
  };
}

void register_all(timely::Worker& worker, Logs& logs) {
  auto& registry = worker.log_register();
  registry.insert<lg::TimelyEvent>("timely", [&logs](lg::Duration, auto& batch) {
    if (batch.empty()) ++logs.empty_batches;
    for (auto& entry : batch) logs.timely.push_back(std::move(entry));
  });
  registry.insert<lg::ProgressEvent<Time>>("timely/progress/u64", into(logs.progress));
  registry.insert<lg::TrackerEvent<Time>>("timely/reachability/u64", into(logs.reachability));
  registry.insert<lg::OperatesSummaryEvent<Time>>("timely/summary/u64", into(logs.summaries));
  registry.insert<lg::FrontierEvent<Time>>("timely/frontier/u64", into(logs.frontiers));
}

constexpr std::uint64_t kRecords = 40;
constexpr Time kRounds = 3;

// Input -> Map -> (exchange) Inspect -> a region (enter, Map, leave) -> Probe.
Logs run_logged(timely::Worker& worker) {
  Logs logs;
  logs.worker = worker.index();
  register_all(worker, logs);
  {
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    logs.dataflow_index = worker.next_dataflow_index();
    worker.dataflow<Time>([&](auto& scope) {
      auto mapped = input.to_stream(scope) | map([](std::uint64_t x) { return x + 1; }) |
                    exchange([](std::uint64_t x) { return x; }) |
                    inspect([&logs](const std::uint64_t&) { ++logs.records; });
      auto regioned = scope.region([&](auto& region) {
        return mapped | enter(region) | map([](std::uint64_t x) { return x * 2; }) | leave(scope);
      });
      regioned | probe_with(probe);
    });
    for (Time round = 0; round < kRounds; ++round) {
      if (worker.index() == 0)
        for (std::uint64_t i = 0; i < kRecords; ++i) input.send(i);
      input.advance_to(round + 1);
      // Parking (a timeout) as well as stepping, so that Park events appear.
      while (probe.less_than(input.time())) worker.step_or_park(std::chrono::milliseconds(1));
      // Quiescent (the input holds its capability, nothing is activated): these park.
      worker.step_or_park(std::chrono::milliseconds(1));
      worker.step_or_park(std::chrono::milliseconds(1));
    }
  }
  while (worker.step_or_park(std::chrono::milliseconds(1))) {
  }
  worker.log_register().flush();
  return logs;
}

template <class E>
std::vector<const E*> all_of(const Logs& logs) {
  std::vector<const E*> out;
  for (const auto& [time, event] : logs.timely)
    if (auto* e = std::get_if<E>(&event)) out.push_back(e);
  return out;
}

void check_worker(const Logs& logs, std::size_t peers) {
  INFO("worker " << logs.worker << " of " << peers);
  // Timestamps never decrease within the stream.
  for (std::size_t i = 1; i < logs.timely.size(); ++i)
    REQUIRE(logs.timely[i - 1].first <= logs.timely[i].first);
  REQUIRE(logs.empty_batches > 0);

  // Operates: the dataflow (address one long) as it is made, then each scope's operators in
  // index order as the scope is built: the region (its Map one level deeper) before the dataflow.
  std::map<std::size_t, const lg::OperatesEvent*> ops;
  std::vector<std::string> names;
  for (auto* op : all_of<lg::OperatesEvent>(logs)) {
    REQUIRE(ops.emplace(op->id, op).second);  // ids are unique
    names.push_back(op->name + "@" + std::to_string(op->address.size()));
    REQUIRE(op->address.front() == logs.dataflow_index);
  }
  REQUIRE(names == std::vector<std::string>{"Dataflow@1", "Map@3", "Input@2", "Map@2", "Exchange@2",
                                            "InspectBatch@2", "Region@2", "Probe@2"});
  std::map<std::string, std::size_t> id_of;
  for (auto& [id, op] : ops) id_of[op->name + "@" + std::to_string(op->address.size())] = id;
  const std::size_t dataflow_id = id_of["Dataflow@1"];

  // Schedule: balanced per id, never nested for one id; the dataflow and every operator ran.
  std::map<std::size_t, int> open, runs;
  for (auto* s : all_of<lg::ScheduleEvent>(logs)) {
    REQUIRE(ops.count(s->id) == 1);
    open[s->id] += s->start ? 1 : -1;
    REQUIRE((open[s->id] == 0 || open[s->id] == 1));
    if (s->start) ++runs[s->id];
  }
  for (auto& [id, depth] : open) CHECK(depth == 0);
  for (auto& [id, op] : ops) CHECK(runs[id] >= 1);

  // Shutdown: every operator and the dataflow exactly once, each after its last scheduling.
  std::map<std::size_t, int> shutdowns;
  for (auto* s : all_of<lg::ShutdownEvent>(logs)) ++shutdowns[s->id];
  for (auto& [id, op] : ops) CHECK(shutdowns[id] == 1);
  {
    std::set<std::size_t> down;
    for (const auto& [time, event] : logs.timely) {
      if (auto* s = std::get_if<lg::ShutdownEvent>(&event)) down.insert(s->id);
      if (auto* s = std::get_if<lg::ScheduleEvent>(&event)) REQUIRE(down.count(s->id) == 0);
    }
  }

  // Channels: Input->Map->Exchange->Inspect->Region->Probe in the dataflow, and inside the
  // region boundary->Map->boundary (enter and leave are channels too).
  std::set<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>>
      edges;  // depth, src, port, dst, port
  std::set<std::size_t> channel_ids;
  for (auto* c : all_of<lg::ChannelsEvent>(logs)) {
    REQUIRE(channel_ids.insert(c->id).second);
    edges.emplace(c->scope_address.size(), c->source.first, c->source.second, c->target.first,
                  c->target.second);
    CHECK(c->container.find("vector") != std::string::npos);
  }
  auto index_of = [&](const std::string& key) { return ops.at(id_of.at(key))->address.back(); };
  const std::size_t input = index_of("Input@2"), map1 = index_of("Map@2"), exch = index_of("Exchange@2"),
                    insp = index_of("InspectBatch@2"), region = index_of("Region@2"),
                    probe = index_of("Probe@2"), map2 = index_of("Map@3");
  CHECK(edges == std::set<std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t>>{
                     {1, input, 0, map1, 0},
                     {1, map1, 0, exch, 0},
                     {1, exch, 0, insp, 0},
                     {1, insp, 0, region, 0},
                     {1, region, 0, probe, 0},
                     {2, 0, 0, map2, 0},
                     {2, map2, 0, 0, 0}});

  // CommChannels: one progress channel per scope (the dataflow and the region).
  CHECK(all_of<lg::CommChannelsEvent>(logs).size() == 2);
  for (auto* c : all_of<lg::CommChannelsEvent>(logs)) CHECK(c->kind == lg::CommChannelKind::Progress);

  // PushProgress: only for known operators, and at least for the probe.
  std::set<std::size_t> pushed;
  for (auto* p : all_of<lg::PushProgressEvent>(logs)) {
    REQUIRE(ops.count(p->op_id) == 1);
    pushed.insert(p->op_id);
  }
  CHECK(pushed.count(id_of["Probe@2"]) == 1);

  // Park and Unpark alternate, starting with Park.
  bool parked = false;
  std::size_t parks = 0;
  for (auto* p : all_of<lg::ParkEvent>(logs)) {
    REQUIRE(p->park != parked);
    parked = p->park;
    if (p->park) {
      ++parks;
      REQUIRE(p->timeout);
      CHECK(*p->timeout <= std::chrono::milliseconds(1));
    }
  }
  CHECK(!parked);
  CHECK(parks > 0);

  // Summaries: one per operator with its input count, identity summaries to output 0.
  std::map<std::size_t, const lg::OperatesSummaryEvent<Time>*> summaries;
  for (auto& s : logs.summaries) summaries[s.id] = &s;
  REQUIRE(summaries.count(id_of["Map@2"]) == 1);
  const auto& map_summary = summaries[id_of["Map@2"]]->summary;
  REQUIRE(map_summary.size() == 1);
  REQUIRE(map_summary[0].size() == 1);
  CHECK(map_summary[0][0].first == 0);
  CHECK(map_summary[0][0].second == std::vector<Time>{0});
  CHECK(summaries[id_of["Input@2"]]->summary.empty());  // no inputs
  CHECK(summaries.count(id_of["Region@2"]) == 1);

  // Progress: every send is from this worker, numbered 0, 1, ... per channel; the scope
  // identifiers are the dataflow's and the region's.
  std::map<std::size_t, std::size_t> next_seq;
  for (auto& p : logs.progress) {
    CHECK((p.identifier == dataflow_id || p.identifier == id_of["Region@2"]));
    if (p.is_send) {
      CHECK(p.source == logs.worker);
      CHECK(p.seq_no == next_seq[p.channel]++);
    }
  }
  CHECK(!logs.progress.empty());

  // Reachability: the updates of each tracker sum to zero once the dataflow is complete.
  std::map<std::tuple<std::size_t, bool, std::size_t, std::size_t, Time>, std::int64_t> reach;
  for (auto& r : logs.reachability) {
    CHECK((r.tracker_id == dataflow_id || r.tracker_id == id_of["Region@2"]));
    for (auto& [node, port, time, diff] : r.updates)
      reach[{r.tracker_id, r.is_source, node, port, time}] += diff;
  }
  CHECK(!logs.reachability.empty());
  for (auto& [key, sum] : reach) CHECK(sum == 0);

  // Frontiers: each input's frontier counts stay 0 or 1 per time and end empty; each
  // operator's own capabilities stay non-negative and end at zero.
  std::map<std::tuple<std::size_t, bool, std::size_t, Time>, std::int64_t> counts;
  bool probe_input = false, input_caps = false;
  for (auto& f : logs.frontiers) {
    REQUIRE(ops.count(f.id) == 1);
    if (f.is_input && f.id == id_of["Probe@2"]) probe_input = true;
    if (!f.is_input && f.id == id_of["Input@2"]) input_caps = true;
    for (auto& [time, diff] : f.updates) {
      auto& c = counts[{f.id, f.is_input, f.port, time}];
      c += diff;
      REQUIRE(c >= 0);
      if (f.is_input) REQUIRE(c <= 1);
    }
  }
  CHECK(probe_input);
  CHECK(input_caps);
  for (auto& [key, c] : counts) CHECK(c == 0);
}

// Messages and progress batches as the computation saw them: every send has one matching
// receive (same channel, source, target, sequence number and record count) on its target.
void check_across(const std::vector<Logs>& all) {
  const std::size_t peers = all.size();
  using Key = std::tuple<std::size_t, std::size_t, std::size_t, std::size_t>;  // channel, source, target, seq
  std::map<Key, std::size_t> sent, received;
  std::uint64_t exchanged = 0;
  for (const auto& logs : all)
    for (auto* m : all_of<lg::MessagesEvent>(logs)) {
      const Key key{m->channel, m->source, m->target, m->seq_no};
      if (m->is_send) {
        CHECK(m->source == logs.worker);
        REQUIRE(sent.emplace(key, m->record_count).second);
      } else {
        CHECK(m->target == logs.worker);
        REQUIRE(received.emplace(key, m->record_count).second);
      }
    }
  CHECK(sent == received);
  CHECK(!sent.empty());
  // The records the inspect saw arrived in messages into it (the exchange channel).
  std::uint64_t records = 0;
  for (const auto& logs : all) records += logs.records;
  CHECK(records == kRounds * kRecords);
  for (const auto& [key, count] : sent) exchanged += count;
  CHECK(exchanged >= records);

  // Progress: with several workers, each batch a worker sent is received by every worker.
  if (peers > 1) {
    std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::size_t>
        receivers;  // channel, source, seq
    std::set<std::tuple<std::size_t, std::size_t, std::size_t>> sends;
    for (const auto& logs : all)
      for (auto& p : logs.progress) {
        if (p.is_send)
          sends.emplace(p.channel, p.source, p.seq_no);
        else
          ++receivers[{p.channel, p.source, p.seq_no}];
      }
    CHECK(!sends.empty());
    for (auto& s : sends) CHECK(receivers[s] == peers);
  }
}

}  // namespace

TEST_CASE("every event of the runtime's log streams, with consistent fields", "[conformance][logging]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      auto all = timely::execute(config, run_logged);
      REQUIRE(all.size() == workers);
      for (const auto& logs : all) check_worker(logs, workers);
      check_across(all);
    }
}

TEST_CASE("a dropped dataflow shuts its operators down and its trackers retract their counts",
          "[conformance][logging]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto all = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      Logs logs;
      register_all(worker, logs);
      timely::dataflow::InputHandle<Time, std::uint64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      const auto index = worker.next_dataflow_index();
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | map([](std::uint64_t x) { return x; }) | probe_with(probe);
      });
      input.send(1);
      input.advance_to(1);
      while (probe.less_than(1)) worker.step();
      worker.drop_dataflow(index);  // the input still holds a capability at 1
      worker.log_register().flush();
      return logs;
    });
    for (const auto& logs : all) {
      std::set<std::size_t> ids, down;
      for (auto* op : all_of<lg::OperatesEvent>(logs)) ids.insert(op->id);
      for (auto* s : all_of<lg::ShutdownEvent>(logs)) REQUIRE(down.insert(s->id).second);
      CHECK(down == ids);
      std::map<std::tuple<bool, std::size_t, std::size_t, Time>, std::int64_t> reach;
      bool live = false;
      for (auto& r : logs.reachability)
        for (auto& [node, port, time, diff] : r.updates) reach[{r.is_source, node, port, time}] += diff;
      for (auto& [key, sum] : reach) {
        CHECK(sum == 0);
        if (std::get<3>(key) == 1) live = true;  // the capability at 1 was counted, then retracted
      }
      CHECK(live);
    }
  }
}

TEST_CASE("the workers of a process log on one clock", "[conformance][logging]") {
  auto starts = timely::execute(timely::Config::process(3), [](timely::Worker& worker) {
    return std::vector<std::chrono::steady_clock::time_point>{worker.log_register().start()};
  });
  REQUIRE(starts.size() == 3);
  CHECK(starts[0] == starts[1]);
  CHECK(starts[1] == starts[2]);
}
