// Event-time sources and keyed state: each watermark policy and each late policy against a
// model of the source run on the same record sequence (late counts, side stream and forwarded
// records exact), idle detection, and keyed_process timers (one capability per distinct time),
// on 1, 2 and 4 workers in both progress modes. Seeds are fixed and printed on failure.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/streaming/keyed.hpp>
#include <timely/streaming/watermark.hpp>
#include <timely/streaming/window.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;

namespace {

struct MarkedEv {
  Time time = 0;
  std::uint64_t key = 0;
  std::uint64_t value = 0;
  bool mark = false;  // a punctuation
  friend auto operator<=>(const MarkedEv&, const MarkedEv&) = default;
};

const auto marked_time_of = [](const MarkedEv& e) { return e.time; };

// `n` records with times about `step` apart, delivered in order of `time + jitter`, jitter
// uniform in [0, jitter]: a record arrives after every record at least `jitter` before it.
std::vector<MarkedEv> out_of_order(std::uint64_t seed, std::size_t n, Time step, Time jitter,
                                   std::uint64_t keys) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Time, MarkedEv>> keyed;
  for (std::size_t i = 0; i < n; ++i) {
    MarkedEv e{i * step + rng() % (step + 1), rng() % keys, rng() % 1000, rng() % 10 == 0};
    keyed.emplace_back(e.time + (jitter == 0 ? 0 : rng() % (jitter + 1)), e);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<MarkedEv> out;
  for (auto& [_, e] : keyed) out.push_back(e);
  return out;
}

// What the source does on one worker's sequence: each record's fate and message time.
using FateRow = std::tuple<std::string, Time, MarkedEv>;
enum class Late { drop, side, allow };

struct SourceModel {
  std::vector<FateRow> rows;
  std::uint64_t dropped = 0, side = 0, admitted = 0;
};

SourceModel model_source(const std::vector<MarkedEv>& seq, const std::string& name, Late late, Time delay,
                         Time lateness, bool punctuated) {
  SourceModel m;
  Time wm = 0, max_seen = 0;
  for (const auto& e : seq) {
    if (e.time < wm) {
      if (late == Late::side) {
        m.rows.emplace_back(name + "/late", wm, e);
        ++m.side;
      } else if (late == Late::allow && e.time + lateness >= wm) {
        m.rows.emplace_back(name, wm, e);
        ++m.admitted;
      } else {
        ++m.dropped;
      }
    } else {
      m.rows.emplace_back(name, e.time, e);
      if (punctuated && e.mark) wm = e.time;
    }
    max_seen = std::max(max_seen, e.time);
    if (!punctuated) wm = std::max(wm, max_seen >= delay ? max_seen - delay : 0);
  }
  return m;
}

MarkedEv stat_row(std::uint64_t a, std::uint64_t b, std::uint64_t c) { return MarkedEv{a, b, c, false}; }

}  // namespace

TEST_CASE(
    "bounded out-of-orderness: late records dropped and counted, sent to the side stream, or "
    "admitted within the lateness, exactly as a model of the source",
    "[streaming][watermark]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    INFO("seed " << seed);
    const Time delay = 12, lateness = 9;
    const auto seq = out_of_order(seed, 600, 3, 40, 5);  // jitter > delay: many late records
    auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      std::vector<FateRow> out;
      timely::dataflow::InputHandle<Time, MarkedEv> input;
      std::vector<std::shared_ptr<ts::SourceStats<Time>>> stats;
      worker.dataflow<Time>([&](auto& scope) {
        auto raw = input.to_stream(scope);
        auto record = [&](std::string name) {
          return inspect_time(
              [&out, name](const Time& t, const MarkedEv& e) { out.emplace_back(name, t, e); });
        };
        auto dropping = raw | ts::event_time(marked_time_of, ts::bounded_out_of_orderness<Time>(delay));
        auto siding = raw | ts::event_time(marked_time_of, ts::bounded_out_of_orderness<Time>(delay),
                                           ts::late_to_side_stream());
        auto allowing = raw | ts::event_time(marked_time_of, ts::bounded_out_of_orderness<Time>(delay),
                                             ts::allowed_lateness<Time>(lateness));
        dropping.records | record("drop");
        dropping.late | record("drop/late");  // stays empty
        siding.records | record("side");
        siding.late | record("side/late");
        allowing.records | record("allow");
        stats = {dropping.stats, siding.stats, allowing.stats};
      });
      // One sender, so that each record's fate does not depend on the number of workers.
      if (worker.index() == 0)
        for (const auto& e : seq) input.send(e);
      input.close();
      while (worker.step()) {
      }
      for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& s = *stats[i];
        if (worker.index() == 0 || s.late_dropped + s.late_side + s.late_admitted + s.on_time > 0)
          out.emplace_back("stats" + std::to_string(i), 0,
                           stat_row(s.late_dropped, s.late_side, s.late_admitted));
        if (!s.done) out.emplace_back("not done", i, MarkedEv{});
      }
      return out;
    });
    std::vector<FateRow> expected;
    auto add = [&](const SourceModel& m, int i) {
      expected.insert(expected.end(), m.rows.begin(), m.rows.end());
      expected.emplace_back("stats" + std::to_string(i), 0, stat_row(m.dropped, m.side, m.admitted));
    };
    const auto drop = model_source(seq, "drop", Late::drop, delay, 0, false);
    const auto side = model_source(seq, "side", Late::side, delay, 0, false);
    const auto allow = model_source(seq, "allow", Late::allow, delay, lateness, false);
    add(drop, 0);
    add(side, 1);
    add(allow, 2);
    std::sort(expected.begin(), expected.end());
    REQUIRE(drop.dropped > 20);  // the test data has late records of every kind
    REQUIRE(allow.admitted > 10);
    REQUIRE(allow.dropped > 5);
    CHECK(result == expected);
  }
}

TEST_CASE("records spread over the workers within the bound arrive at their event time, none late",
          "[streaming][watermark]") {
  const std::uint64_t seed = 11;
  INFO("seed " << seed);
  const Time delay = 25;
  const auto seq = out_of_order(seed, 2000, 2, delay, 7);
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<FateRow> out;
    timely::dataflow::InputHandle<Time, MarkedEv> input;
    std::shared_ptr<ts::SourceStats<Time>> stats;
    worker.dataflow<Time>([&](auto& scope) {
      auto s =
          input.to_stream(scope) | ts::event_time(marked_time_of, ts::bounded_out_of_orderness<Time>(delay));
      s.records | inspect_time([&](const Time& t, const MarkedEv& e) { out.emplace_back("on time", t, e); });
      stats = s.stats;
    });
    for (std::size_t i = 0; i < seq.size(); ++i)
      if (i % worker.peers() == worker.index()) input.send(seq[i]);
    input.close();
    while (worker.step()) {
    }
    if (stats->late_dropped != 0) out.emplace_back("late", stats->late_dropped, MarkedEv{});
    return out;
  });
  std::vector<FateRow> expected;
  for (const auto& e : seq) expected.emplace_back("on time", e.time, e);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("punctuated watermarks move to a marked record's time; later records behind it are late",
          "[streaming][watermark]") {
  for (std::uint64_t seed : {5u, 6u}) {
    INFO("seed " << seed);
    const auto seq = out_of_order(seed, 500, 4, 30, 3);
    auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      std::vector<FateRow> out;
      timely::dataflow::InputHandle<Time, MarkedEv> input;
      std::shared_ptr<ts::SourceStats<Time>> stats;
      worker.dataflow<Time>([&](auto& scope) {
        auto s = input.to_stream(scope) |
                 ts::event_time(marked_time_of, ts::punctuated([](const MarkedEv& e) { return e.mark; }),
                                ts::late_to_side_stream());
        s.records | inspect_time([&](const Time& t, const MarkedEv& e) { out.emplace_back("punct", t, e); });
        s.late |
            inspect_time([&](const Time& t, const MarkedEv& e) { out.emplace_back("punct/late", t, e); });
        stats = s.stats;
      });
      if (worker.index() == 0)
        for (const auto& e : seq) input.send(e);
      input.close();
      while (worker.step()) {
      }
      if (worker.index() == 0)
        out.emplace_back("stats", 0, stat_row(stats->late_dropped, stats->late_side, 0));
      return out;
    });
    auto m = model_source(seq, "punct", Late::side, 0, 0, true);
    m.rows.emplace_back("stats", 0, stat_row(0, m.side, 0));
    std::sort(m.rows.begin(), m.rows.end());
    REQUIRE(m.side > 10);
    CHECK(result == m.rows);
  }
}

TEST_CASE("exact watermarks follow the input's frontier; records behind their message time are late",
          "[streaming][watermark]") {
  const std::uint64_t seed = 21;
  INFO("seed " << seed);
  // Rounds of records at input time 10 * round whose event times stray up to 15 either side.
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Time, MarkedEv>> sends;  // (input time, record)
  for (Time round = 0; round < 40; ++round)
    for (int i = 0; i < 12; ++i) {
      const Time base = 10 * round;
      const Time e = base + 15 >= 30 ? base + rng() % 31 - 15 : base + rng() % 16;
      sends.emplace_back(base, MarkedEv{e, rng() % 4, rng() % 100, false});
    }
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<FateRow> out;
    timely::dataflow::InputHandle<Time, MarkedEv> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto s = input.to_stream(scope) |
               ts::event_time(marked_time_of, ts::exact_watermark(), ts::late_to_side_stream());
      s.records | inspect_time([&](const Time& t, const MarkedEv& e) { out.emplace_back("exact", t, e); });
      s.late | inspect_time([&](const Time& t, const MarkedEv& e) { out.emplace_back("exact/late", t, e); });
    });
    for (std::size_t i = 0; i < sends.size(); ++i) {
      if (input.time() < sends[i].first) input.advance_to(sends[i].first);
      if (i % worker.peers() == worker.index()) input.send(sends[i].second);
    }
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<FateRow> expected;
  std::size_t late = 0;
  for (const auto& [at, e] : sends) {
    if (e.time < at) {
      expected.emplace_back("exact/late", at, e);
      ++late;
    } else {
      expected.emplace_back("exact", e.time, e);
    }
  }
  std::sort(expected.begin(), expected.end());
  REQUIRE(late > 20);
  CHECK(result == expected);
}

TEST_CASE(
    "periodic watermarks with idle detection: workers without records do not hold the "
    "frontier back",
    "[streaming][watermark][idle]") {
  const std::uint64_t seed = 31;
  INFO("seed " << seed);
  const auto seq = out_of_order(seed, 300, 3, 5, 4);
  const Time target = 600;  // below the largest time: reachable only by the watermark
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, MarkedEv> input;
    timely::dataflow::ProbeHandle<Time> probe;
    std::shared_ptr<ts::SourceStats<Time>> stats;
    worker.dataflow<Time>([&](auto& scope) {
      using namespace std::chrono_literals;
      auto s = input.to_stream(scope) | ts::event_time(marked_time_of, ts::periodic(1ms, Time{5}, 30ms));
      s.records | ts::window(ts::tumbling<Time>(50), ts::global(), ts::count()) |
          inspect([&](const auto& r) { out.emplace_back("window", r.start, r.end, r.value); }) |
          probe_with(probe);
      stats = s.stats;
    });
    // Only worker 0 has records; the other workers' inputs stay open all along.
    if (worker.index() == 0)
      for (const auto& e : seq) input.send(e);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (probe.less_than(target) && std::chrono::steady_clock::now() < deadline)
      worker.step_or_park(std::chrono::milliseconds(1));
    if (probe.less_than(target)) out.emplace_back("stuck", worker.index(), 0, 0);
    if (worker.index() != 0 && !stats->idle) out.emplace_back("not idle", worker.index(), 0, 0);
    if (stats->late_dropped != 0) out.emplace_back("late", stats->late_dropped, 0, 0);
    input.close();
    while (worker.step_or_park(std::chrono::milliseconds(1))) {
    }
    return out;
  });
  std::map<Time, std::uint64_t> counts;
  for (const auto& e : seq) ++counts[e.time - e.time % 50];
  std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t>> expected;
  for (const auto& [start, n] : counts) expected.emplace_back("window", start, start + 50, n);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE(
    "keyed_process: per-key state and event-time timers, one held capability per distinct "
    "time, state cleared",
    "[streaming][keyed]") {
  const std::uint64_t seed = 41;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr std::uint64_t keys = 50;
  std::vector<MarkedEv> records;  // times 0..99, sent round by round (the input's time is event time)
  for (Time t = 0; t < 100; ++t)
    for (int i = 0; i < 8; ++i) records.push_back(MarkedEv{t, rng() % keys, rng() % 100, false});
  using Out = std::tuple<std::uint64_t, Time, std::uint64_t>;  // key, timer time, sum
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<std::tuple<std::string, std::uint64_t, Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, MarkedEv> input;
    timely::dataflow::ProbeHandle<Time> probe;
    auto stats = std::make_shared<ts::KeyedStats>();
    worker.dataflow<Time>([&](auto& scope) {
      auto raw = input.to_stream(scope) | probe_with(probe);
      raw |
          ts::keyed_process<std::uint64_t, Out>(
              [](const MarkedEv& e) { return e.key; },
              [](const std::uint64_t&, MarkedEv e, std::uint64_t& sum, auto& ctx) {
                sum += e.value;
                ctx.set_timer(e.time - e.time % 10 + 9);  // the end of its block of 10
              },
              [](const std::uint64_t& key, const Time& t, std::uint64_t& sum, auto& ctx) {
                ctx.emit(Out{key, t, sum});
                ctx.clear_state();
              },
              stats) |
          inspect(
              [&](const Out& o) { out.emplace_back("sum", std::get<0>(o), std::get<1>(o), std::get<2>(o)); });
    });
    // Many keys have timers pending at once, but they share one capability per pending time:
    // records at t are handled only once the frontier reaches t, after every timer before t, so
    // at most one block end is pending whenever the operator yields. (Records that other workers
    // sent ahead of this worker's frontier also hold their times, as many as the workers' lag, so
    // `held_times` is not bounded here.)
    std::size_t most_keys = 0, most_timers = 0;
    auto sample = [&] {
      most_keys = std::max(most_keys, stats->keys);
      most_timers = std::max(most_timers, stats->timer_times);
    };
    std::size_t next = 0;
    for (Time t = 0; t < 100; ++t) {
      for (; next < records.size() && records[next].time == t; ++next)
        if (next % worker.peers() == worker.index()) input.send(records[next]);
      input.advance_to(t + 1);
      while (probe.less_than(t + 1)) {
        worker.step();
        sample();
      }
    }
    for (int k = 0; k < 20; ++k) {
      worker.step();
      sample();
    }
    if (most_timers != 1) out.emplace_back("timer times", most_timers, 0, most_keys);
    if (worker.index() == 0 && most_keys > 2) out.emplace_back("many keys", 0, 0, 0);
    input.close();
    while (worker.step()) {
    }
    if (stats->keys != 0 || stats->held_times != 0)
      out.emplace_back("left", stats->keys, 0, stats->held_times);
    return out;
  });
  std::map<std::pair<std::uint64_t, Time>, std::uint64_t> sums;
  for (const auto& e : records) sums[{e.key, e.time - e.time % 10 + 9}] += e.value;
  std::vector<std::tuple<std::string, std::uint64_t, Time, std::uint64_t>> expected;
  for (const auto& [kt, sum] : sums) expected.emplace_back("sum", kt.first, kt.second, sum);
  expected.emplace_back("many keys", 0, 0, 0);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("keyed_process: a timer before the current time is a StreamingError naming both times",
          "[streaming][keyed][errors]") {
  auto program = [](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, MarkedEv> input;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) |
          ts::keyed_process<int, int>(
              [](const MarkedEv& e) { return e.key; },
              [](const std::uint64_t&, MarkedEv e, int&, auto& ctx) { ctx.set_timer(e.time - 1); },
              [](const std::uint64_t&, const Time&, int&, auto&) {});
    });
    input.advance_to(5);
    input.send(MarkedEv{5, 1, 1, false});
    input.close();
    while (worker.step()) {
    }
  };
  CHECK_THROWS_WITH(timely::execute(timely::Config::process(1), program),
                    Catch::Contains("set_timer(4)") && Catch::Contains("current time 5"));
  CHECK_THROWS_AS(ts::periodic(std::chrono::milliseconds(0), Time{1}, std::chrono::milliseconds(5)),
                  ts::StreamingError);
  CHECK_THROWS_WITH(ts::periodic(std::chrono::milliseconds(1), Time{1}, std::chrono::milliseconds(0)),
                    Catch::Contains("idle_after"));
}
