// The model from hand-made events (nested schedulings, parking, frontiers and capabilities,
// window pruning), the JSON form of a snapshot (round trip, field names, malformed input naming
// the field), and merge.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <timely/logging/timely_events.hpp>
#include <timely/observe/model.hpp>

#include "support/catch.hpp"

namespace lg = timely::logging;
namespace ob = timely::observe;
using ns = std::chrono::nanoseconds;

namespace {

// A dataflow (id 0, address [0]) with an operator (id 1, address [0, 1]) sending on channel 7
// to an operator (id 2, address [0, 2]) on worker `w`.
void build(ob::Model& m, std::size_t w) {
  m.add(w, ns(1), lg::TimelyEvent{lg::ChannelsEvent{7, {0}, {1, 0}, {2, 0}, "Vec<u64>"}});
  m.add(w, ns(2), lg::TimelyEvent{lg::OperatesEvent{1, {0, 1}, "Source"}});
  m.add(w, ns(2), lg::TimelyEvent{lg::OperatesEvent{2, {0, 2}, "Sink"}});
  m.add(w, ns(3), lg::TimelyEvent{lg::OperatesEvent{0, {0}, "Dataflow"}});
}

ob::Snapshot sample() {
  ob::Model m;
  build(m, 0);
  m.add(0, ns(10), lg::TimelyEvent{lg::ScheduleEvent{0, true}});
  m.add(0, ns(12), lg::TimelyEvent{lg::ScheduleEvent{1, true}});
  m.add(0, ns(13), lg::TimelyEvent{lg::MessagesEvent{true, 7, 0, 0, 0, 5}});
  m.add(0, ns(15), lg::TimelyEvent{lg::ScheduleEvent{1, false}});
  m.add(0, ns(16), lg::TimelyEvent{lg::ScheduleEvent{2, true}});
  m.add(0, ns(17), lg::TimelyEvent{lg::MessagesEvent{false, 7, 0, 0, 0, 5}});
  m.add(0, ns(18), lg::TimelyEvent{lg::ScheduleEvent{2, false}});
  m.add(0, ns(20), lg::TimelyEvent{lg::ScheduleEvent{0, false}});
  m.add(0, ns(20), lg::FrontierEvent<std::uint64_t>{2, 0, true, {{0, 1}, {3, 2}}});
  m.add(0, ns(21), lg::FrontierEvent<std::uint64_t>{2, 0, true, {{0, -1}}});
  m.add(0, ns(21), lg::FrontierEvent<std::uint64_t>{1, 0, false, {{3, 1}, {4, 2}, {4, -2}}});
  m.add(0, ns(30), lg::TimelyEvent{lg::ParkEvent{true, ns(100)}});
  m.add(0, ns(70), lg::TimelyEvent{lg::ParkEvent{false, std::nullopt}});
  m.add(0, ns(71), lg::TimelyEvent{lg::ShutdownEvent{2}});
  m.add_peer(ob::PeerState{0, 1, 100, 200, 3, 4, true});
  m.advance(0, ns(80));
  return m.snapshot();
}

}  // namespace

TEST_CASE("the model pairs schedulings, sums busy and parked time, and keeps counts", "[observe]") {
  const auto s = sample();
  REQUIRE(s.now == ns(80));
  REQUIRE(s.workers.size() == 1);
  REQUIRE(s.workers[0].busy == ns(10));  // the dataflow's scheduling, not its operators' again
  REQUIRE(s.workers[0].parked == ns(40));
  REQUIRE(s.workers[0].last_event == ns(80));
  REQUIRE_FALSE(s.workers[0].is_parked);
  REQUIRE(s.operators.size() == 3);
  const auto& source = s.operators[1];
  const auto& sink = s.operators[2];
  REQUIRE(source.name == "Source");
  REQUIRE(source.schedules == 1);
  REQUIRE(source.busy == ns(3));
  REQUIRE(source.records_out == 5);
  REQUIRE(source.records_in == 0);
  REQUIRE(source.capabilities == std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>>{{{3, 1}}});
  REQUIRE(sink.records_in == 5);
  REQUIRE(sink.input_frontiers == std::vector<std::vector<std::uint64_t>>{{3}});
  REQUIRE(sink.shut_down);
  REQUIRE_FALSE(source.shut_down);
  REQUIRE(s.channels.size() == 1);
  REQUIRE(s.channels[0].records == 5);  // the receive is not counted again
  REQUIRE(s.channels[0].batches == 1);
  REQUIRE(s.timeline.size() == 3);
  REQUIRE(s.timeline[0].id == 0);  // ascending start: the dataflow, then its operators
  REQUIRE(s.timeline[1] == ob::ScheduleSpan{0, 1, ns(12), ns(15)});
  REQUIRE(s.peers == std::vector<ob::PeerState>{{0, 1, 100, 200, 3, 4, true}});
}

TEST_CASE("a park still going on counts up to the last time heard", "[observe]") {
  ob::Model m;
  m.add(3, ns(10), lg::TimelyEvent{lg::ParkEvent{true, std::nullopt}});
  m.advance(3, ns(25));
  const auto s = m.snapshot();
  REQUIRE(s.workers.size() == 1);
  REQUIRE(s.workers[0].worker == 3);
  REQUIRE(s.workers[0].is_parked);
  REQUIRE(s.workers[0].parked == ns(15));
}

TEST_CASE("a timeline window keeps the spans that stopped within it", "[observe]") {
  ob::Model m(ns(100));
  build(m, 0);
  for (int i = 0; i < 10; ++i) {
    m.add(0, ns(100 * i), lg::TimelyEvent{lg::ScheduleEvent{1, true}});
    m.add(0, ns(100 * i + 50), lg::TimelyEvent{lg::ScheduleEvent{1, false}});
  }
  auto s = m.snapshot();
  // now = 950: the spans stopping at 850 and 950 are within 100.
  REQUIRE(s.timeline.size() == 2);
  REQUIRE(s.timeline[0].start == ns(800));
  REQUIRE(s.operators[1].schedules == 10);  // totals are not windowed
  m.advance(0, ns(2000));
  REQUIRE(m.snapshot().timeline.empty());
}

TEST_CASE("a snapshot's JSON reads back as the same snapshot, with the documented names", "[observe]") {
  const auto s = sample();
  const auto json = ob::to_json(s);
  for (const char* name : {"\"now_ns\":80", "\"workers\"", "\"operators\"", "\"channels\"", "\"timeline\"",
                           "\"peers\"", "\"busy_ns\"", "\"input_frontiers\"", "\"capabilities\":[[[3,1]]]"}) {
    INFO(name << " in " << json);
    REQUIRE(json.find(name) != std::string::npos);
  }
  REQUIRE(ob::snapshot_from_json(json) == s);
  REQUIRE(ob::snapshot_from_json(ob::to_json(ob::Snapshot{})) == ob::Snapshot{});
}

TEST_CASE("merge adds workers and operators and sums channels by id", "[observe]") {
  ob::Model a, b;
  build(a, 0);
  build(b, 1);
  a.add(0, ns(5), lg::TimelyEvent{lg::MessagesEvent{true, 7, 0, 1, 0, 4}});
  b.add(1, ns(9), lg::TimelyEvent{lg::MessagesEvent{true, 7, 1, 0, 0, 6}});
  b.add(1, ns(9), lg::TimelyEvent{lg::MessagesEvent{true, 8, 1, 0, 0, 2}});  // a channel b never saw built
  auto into = b.snapshot();
  ob::merge(into, a.snapshot());
  REQUIRE(into.now == ns(9));
  REQUIRE(into.workers.size() == 2);
  REQUIRE(into.workers[0].worker == 0);
  REQUIRE(into.operators.size() == 6);
  REQUIRE(into.operators[0].worker == 0);
  REQUIRE(into.operators[5].worker == 1);
  REQUIRE(into.channels.size() == 2);
  REQUIRE(into.channels[0].id == 7);
  REQUIRE(into.channels[0].records == 10);
  REQUIRE(into.channels[0].batches == 2);
  REQUIRE(into.channels[1].id == 8);
  REQUIRE(into.channels[1].records == 2);
}

TEST_CASE("malformed snapshot JSON throws SnapshotFormatError naming the field", "[observe]") {
  const auto good = ob::to_json(sample());
  auto edited = [&](const std::string& from, const std::string& to) {
    auto json = good;
    const auto at = json.find(from);
    REQUIRE(at != std::string::npos);
    json.replace(at, from.size(), to);
    return json;
  };
  auto fails_with = [](const std::string& json, const std::string& needle) {
    INFO(json);
    try {
      (void)ob::snapshot_from_json(json);
      FAIL("no SnapshotFormatError");
    } catch (const ob::SnapshotFormatError& e) {
      CHECK_THAT(e.what(), Catch::Contains(needle));
    }
  };
  fails_with("{\"now_ns\":", "not JSON");
  fails_with("[1,2]", "snapshot is not an object");
  fails_with(edited("\"now_ns\":80", "\"now\":80"), "snapshot.now_ns is missing");
  fails_with(edited("\"name\":\"Source\"", "\"name\":17"), "snapshot.operators[1].name is not a string");
  fails_with(edited("\"records\":5", "\"records\":-5"),
             "snapshot.channels[0].records is not an unsigned integer");
  fails_with(edited("\"capabilities\":[[[3,1]]]", "\"capabilities\":[[[3]]]"),
             "snapshot.operators[1].capabilities[0][0] has 1 elements");
  fails_with(edited("\"source\":[1,0]", "\"source\":[1]"), "snapshot.channels[0].source has 1 elements");
  fails_with(edited("\"timeline\":[", "\"timeline\":{\"a\":1},\"x\":["), "snapshot.timeline is not an array");
  fails_with(edited("\"connected\":true", "\"connected\":1"), "snapshot.peers[0].connected is not a boolean");
}
