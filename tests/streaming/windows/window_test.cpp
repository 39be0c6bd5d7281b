// Windows against brute-force models: tumbling, sliding (panes of the gcd), session and count
// windows, by key and global, with every aggregate, over out-of-order records behind a bounded
// out-of-orderness source; allowed lateness re-emitting windows with late records; state dropped
// once the frontier passes; std::chrono event time; misuse errors naming the argument. On 1, 2
// and 4 workers in both progress modes; seeds are fixed and printed on failure.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/streaming/aggregate.hpp>
#include <timely/streaming/watermark.hpp>
#include <timely/streaming/window.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;

namespace {

struct Ev {
  Time time = 0;
  std::uint64_t key = 0;
  std::uint64_t value = 0;
  friend auto operator<=>(const Ev&, const Ev&) = default;
};

const auto time_of = [](const Ev& e) { return e.time; };
const auto key_of = [](const Ev& e) { return e.key; };
const auto value_of = [](const Ev& e) { return e.value; };
const auto small_of = [](const Ev& e) { return e.value % 7; };
constexpr std::uint64_t global_key = 999;

// Records with random gaps (mean `step`) delivered in order of `time + jitter` (jitter in
// [0, jitter]), so a bounded out-of-orderness source with delay `jitter` finds none late.
std::vector<Ev> records(std::uint64_t seed, std::size_t n, Time step, Time jitter, std::uint64_t keys) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Time, Ev>> keyed;
  Time t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += rng() % (2 * step + 1);
    Ev e{t, rng() % keys, rng() % 1000};
    keyed.emplace_back(e.time + rng() % (jitter + 1), e);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Ev> out;
  for (auto& [_, e] : keyed) out.push_back(e);
  return out;
}

// A result as a row: (name, key, start, end, value, emission time).
using Row = std::tuple<std::string, std::uint64_t, Time, Time, std::string, Time>;

std::string show(std::uint64_t v) { return std::to_string(v); }
std::string show(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}
std::string show(const std::vector<std::uint64_t>& v) {
  std::string out;
  for (auto x : v) out += std::to_string(x) + ",";
  return out;
}
std::uint64_t key_number(std::uint64_t k) { return k; }
std::uint64_t key_number(ts::Global) { return global_key; }

auto collect(std::vector<Row>& out, std::string name) {
  return inspect_time([&out, name](const auto& t, const auto& r) {
    out.emplace_back(name, key_number(r.key), Time(r.start), Time(r.end), show(r.value), Time(t));
  });
}

// The aggregates computed directly from a window's records.
using Direct = std::string (*)(const std::vector<Ev>&);
std::string direct_count(const std::vector<Ev>& w) { return show(std::uint64_t(w.size())); }
std::string direct_sum(const std::vector<Ev>& w) {
  std::uint64_t s = 0;
  for (const auto& e : w) s += e.value;
  return show(s);
}
std::string direct_min(const std::vector<Ev>& w) {
  std::uint64_t m = w[0].value;
  for (const auto& e : w) m = std::min(m, e.value);
  return show(m);
}
std::string direct_max(const std::vector<Ev>& w) {
  std::uint64_t m = 0;
  for (const auto& e : w) m = std::max(m, e.value);
  return show(m);
}
std::string direct_mean(const std::vector<Ev>& w) {
  std::uint64_t s = 0;
  for (const auto& e : w) s += e.value;
  return show(static_cast<double>(s) / static_cast<double>(w.size()));
}
std::string direct_top3(const std::vector<Ev>& w) {
  std::vector<std::uint64_t> v;
  for (const auto& e : w) v.push_back(e.value);
  std::sort(v.rbegin(), v.rend());
  v.resize(std::min<std::size_t>(v.size(), 3));
  return show(v);
}
std::string direct_distinct(const std::vector<Ev>& w) {
  std::set<std::uint64_t> s;
  for (const auto& e : w) s.insert(e.value % 7);
  return show(std::uint64_t(s.size()));
}
// The user fold: (records with an odd value) * 10^6 + (xor of the values).
std::string direct_fold(const std::vector<Ev>& w) {
  std::uint64_t odd = 0, x = 0;
  for (const auto& e : w) {
    odd += e.value % 2;
    x ^= e.value;
  }
  return show(odd * 1000000 + x);
}
auto user_fold() {
  return ts::fold(
      std::pair<std::uint64_t, std::uint64_t>{0, 0},
      [](std::pair<std::uint64_t, std::uint64_t>& a, const Ev& e) {
        a.first += e.value % 2;
        a.second ^= e.value;
      },
      [](std::pair<std::uint64_t, std::uint64_t>& a, const std::pair<std::uint64_t, std::uint64_t>& b) {
        a.first += b.first;
        a.second ^= b.second;
      },
      [](const std::pair<std::uint64_t, std::uint64_t>& a) { return a.first * 1000000 + a.second; });
}

// Every window [s, s + width) with s a multiple of `slide`, per key (or globally), emitted at s + width - 1.
void model_time_windows(std::vector<Row>& rows, const std::string& name, const std::vector<Ev>& evs,
                        Time width, Time slide, bool keyed, Direct f) {
  std::map<std::pair<std::uint64_t, Time>, std::vector<Ev>> windows;
  for (const auto& e : evs)
    for (Time s = e.time - e.time % slide;; s -= slide) {
      if (e.time >= s + width) break;
      windows[{keyed ? e.key : global_key, s}].push_back(e);
      if (s < slide) break;
    }
  for (const auto& [ks, w] : windows)
    rows.emplace_back(name, ks.first, ks.second, ks.second + width, f(w), ks.second + width - 1);
}

// Sessions: per key, times sorted; a gap of `gap` or more starts a new session [first, last + gap).
void model_sessions(std::vector<Row>& rows, const std::string& name, std::vector<Ev> evs, Time gap,
                    bool keyed, Direct f) {
  std::sort(evs.begin(), evs.end());
  std::map<std::uint64_t, std::vector<Ev>> by_key;
  for (const auto& e : evs) by_key[keyed ? e.key : global_key].push_back(e);
  for (const auto& [key, list] : by_key) {
    const std::uint64_t k = key;  // clang 14 cannot capture a structured binding in a lambda
    std::vector<Ev> current;
    auto close = [&] {
      const Time end = current.back().time + gap;
      rows.emplace_back(name, k, current.front().time, end, f(current), end - 1);
      current.clear();
    };
    for (const auto& e : list) {
      if (!current.empty() && e.time >= current.back().time + gap) close();
      current.push_back(e);
    }
    if (!current.empty()) close();
  }
}

// Count windows: per key in (time, record) order, after every `slide` records from `size` on,
// the last `size` records; emitted at the last record's time.
void model_counts(std::vector<Row>& rows, const std::string& name, std::vector<Ev> evs, std::size_t size,
                  std::size_t slide, Direct f) {
  std::sort(evs.begin(), evs.end());
  std::map<std::uint64_t, std::vector<Ev>> by_key;
  for (const auto& e : evs) by_key[e.key].push_back(e);
  for (const auto& [k, list] : by_key)
    for (std::size_t n = size; n <= list.size(); n += slide) {
      std::vector<Ev> w(list.begin() + static_cast<std::ptrdiff_t>(n - size),
                        list.begin() + static_cast<std::ptrdiff_t>(n));
      rows.emplace_back(name, k, w.front().time, w.back().time + 1, f(w), w.back().time);
    }
}

// Sends `evs` spread over the workers through a bounded out-of-orderness source.
template <class Build>
std::vector<Row> run_windows(timely::Worker& worker, const std::vector<Ev>& evs, Time delay, Build build) {
  std::vector<Row> out;
  timely::dataflow::InputHandle<Time, Ev> input;
  std::shared_ptr<ts::SourceStats<Time>> stats;
  worker.dataflow<Time>([&](auto& scope) {
    auto source = input.to_stream(scope) | ts::event_time(time_of, ts::bounded_out_of_orderness<Time>(delay));
    stats = source.stats;
    build(source.records, out);
  });
  for (std::size_t i = 0; i < evs.size(); ++i)
    if (i % worker.peers() == worker.index()) input.send(evs[i]);
  input.close();
  while (worker.step()) {
  }
  if (stats->late_dropped != 0) out.emplace_back("late at the source", stats->late_dropped, 0, 0, "", 0);
  return out;
}

}  // namespace

TEST_CASE(
    "tumbling and sliding windows, by key and global, with every aggregate, match a "
    "brute-force model",
    "[streaming][windows]") {
  for (std::uint64_t seed : {101u, 102u}) {
    INFO("seed " << seed);
    const Time delay = 20;
    const auto evs = records(seed, 600, 2, delay, 6);
    auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      return run_windows(worker, evs, delay, [](auto& s, std::vector<Row>& out) {
        const auto by = ts::by_key(key_of);
        s | ts::window(ts::tumbling<Time>(10), by, ts::count()) | collect(out, "tumble/count");
        s | ts::window(ts::tumbling<Time>(10), by, ts::sum(value_of)) | collect(out, "tumble/sum");
        s | ts::window(ts::tumbling<Time>(10), by, ts::min(value_of)) | collect(out, "tumble/min");
        s | ts::window(ts::tumbling<Time>(10), by, ts::max(value_of)) | collect(out, "tumble/max");
        s | ts::window(ts::tumbling<Time>(10), by, ts::mean(value_of)) | collect(out, "tumble/mean");
        s | ts::window(ts::tumbling<Time>(10), by, ts::top_k(3, value_of)) | collect(out, "tumble/top3");
        s | ts::window(ts::tumbling<Time>(10), by, ts::distinct_count(small_of)) |
            collect(out, "tumble/distinct");
        s | ts::window(ts::tumbling<Time>(10), by, user_fold()) | collect(out, "tumble/fold");
        s | ts::window(ts::sliding<Time>(30, 10), by, ts::count()) | collect(out, "slide30x10/count");
        s | ts::window(ts::sliding<Time>(30, 10), by, ts::top_k(3, value_of)) |
            collect(out, "slide30x10/top3");
        s | ts::window(ts::sliding<Time>(25, 10), by, ts::sum(value_of)) | collect(out, "slide25x10/sum");
        s | ts::window(ts::sliding<Time>(25, 10), by, ts::distinct_count(small_of)) |
            collect(out, "slide25x10/distinct");
        s | ts::window(ts::tumbling<Time>(50), ts::global(), ts::mean(value_of)) |
            collect(out, "global50/mean");
        s | ts::window(ts::sliding<Time>(40, 15), ts::global(), ts::max(value_of)) |
            collect(out, "global40x15/max");
      });
    });
    std::vector<Row> expected;
    model_time_windows(expected, "tumble/count", evs, 10, 10, true, direct_count);
    model_time_windows(expected, "tumble/sum", evs, 10, 10, true, direct_sum);
    model_time_windows(expected, "tumble/min", evs, 10, 10, true, direct_min);
    model_time_windows(expected, "tumble/max", evs, 10, 10, true, direct_max);
    model_time_windows(expected, "tumble/mean", evs, 10, 10, true, direct_mean);
    model_time_windows(expected, "tumble/top3", evs, 10, 10, true, direct_top3);
    model_time_windows(expected, "tumble/distinct", evs, 10, 10, true, direct_distinct);
    model_time_windows(expected, "tumble/fold", evs, 10, 10, true, direct_fold);
    model_time_windows(expected, "slide30x10/count", evs, 30, 10, true, direct_count);
    model_time_windows(expected, "slide30x10/top3", evs, 30, 10, true, direct_top3);
    model_time_windows(expected, "slide25x10/sum", evs, 25, 10, true, direct_sum);
    model_time_windows(expected, "slide25x10/distinct", evs, 25, 10, true, direct_distinct);
    model_time_windows(expected, "global50/mean", evs, 50, 50, false, direct_mean);
    model_time_windows(expected, "global40x15/max", evs, 40, 15, false, direct_max);
    std::sort(expected.begin(), expected.end());
    CHECK(result.size() == expected.size());
    CHECK(result == expected);
  }
}

TEST_CASE("session windows (merging) and count windows match a brute-force model", "[streaming][windows]") {
  for (std::uint64_t seed : {201u, 202u}) {
    INFO("seed " << seed);
    const Time delay = 15;
    const auto evs = records(seed, 800, 4, delay, 5);
    auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      return run_windows(worker, evs, delay, [](auto& s, std::vector<Row>& out) {
        const auto by = ts::by_key(key_of);
        s | ts::window(ts::session<Time>(18), by, ts::count()) | collect(out, "session18/count");
        s | ts::window(ts::session<Time>(18), by, ts::top_k(2, value_of)) | collect(out, "session18/top2");
        s | ts::window(ts::session<Time>(7), ts::global(), ts::sum(value_of)) |
            collect(out, "global-session7/sum");
        s | ts::window(ts::count_window(5), by, ts::sum(value_of)) | collect(out, "count5/sum");
        s | ts::window(ts::count_window(6, 4), by, ts::max(value_of)) | collect(out, "count6x4/max");
      });
    });
    std::vector<Row> expected;
    model_sessions(expected, "session18/count", evs, 18, true, direct_count);
    model_sessions(expected, "session18/top2", evs, 18, true, [](const std::vector<Ev>& w) {
      std::vector<std::uint64_t> v;
      for (const auto& e : w) v.push_back(e.value);
      std::sort(v.rbegin(), v.rend());
      v.resize(std::min<std::size_t>(v.size(), 2));
      return show(v);
    });
    model_sessions(expected, "global-session7/sum", evs, 7, false, direct_sum);
    model_counts(expected, "count5/sum", evs, 5, 5, direct_sum);
    model_counts(expected, "count6x4/max", evs, 6, 4, direct_max);
    std::sort(expected.begin(), expected.end());
    std::size_t merged = 0;  // sessions longer than one record: the data exercises merging
    for (const auto& row : expected)
      if (std::get<0>(row) == "session18/count" && std::get<4>(row) != "1") ++merged;
    REQUIRE(merged > 20);
    CHECK(result.size() == expected.size());
    CHECK(result == expected);
  }
}

namespace {
// The source's forwarding under allowed lateness on one sequence: (record, message time), and
// the records it dropped.
struct Forwarded {
  std::vector<std::pair<Ev, Time>> records;
  std::uint64_t dropped = 0;
};
Forwarded model_allowing_source(const std::vector<Ev>& seq, Time delay, Time lateness) {
  Forwarded f;
  Time wm = 0, max_seen = 0;
  for (const auto& e : seq) {
    if (e.time >= wm)
      f.records.emplace_back(e, e.time);
    else if (e.time + lateness >= wm)
      f.records.emplace_back(e, wm);
    else
      ++f.dropped;
    max_seen = std::max(max_seen, e.time);
    wm = std::max(wm, max_seen >= delay ? max_seen - delay : 0);
  }
  return f;
}

// Windows with allowed lateness `lateness` over records with message times: a first result at
// end - 1 of the records up to then, and one more at each later message time up to
// end - 1 + lateness of a record of the window, with every record up to that time.
void model_late_windows(std::vector<Row>& rows, const std::string& name, const Forwarded& f, Time width,
                        Time slide, Time lateness, bool keyed, Direct direct, std::uint64_t* too_late) {
  std::map<std::pair<std::uint64_t, Time>, std::vector<std::pair<Ev, Time>>> windows;
  for (const auto& [e, at] : f.records) {
    const Time last_start = e.time - e.time % slide;
    if (at > last_start + width - 1 + lateness) {
      ++*too_late;
      continue;
    }
    for (Time s = last_start;; s -= slide) {
      if (e.time >= s + width) break;
      windows[{keyed ? e.key : global_key, s}].emplace_back(e, at);
      if (s < slide) break;
    }
  }
  for (const auto& [ks, members] : windows) {
    const Time end = ks.second + width;
    std::set<Time> times;
    for (const auto& [e, at] : members) {
      if (at <= end - 1)
        times.insert(end - 1);
      else if (at <= end - 1 + lateness)
        times.insert(at);
    }
    for (Time tau : times) {
      std::vector<Ev> upto;
      for (const auto& [e, at] : members)
        if (at <= tau) upto.push_back(e);
      rows.emplace_back(name, ks.first, ks.second, end, direct(upto), tau);
    }
  }
}
}  // namespace

TEST_CASE("allowed lateness: windows emit again with late records, exactly as a model",
          "[streaming][windows][late]") {
  for (std::uint64_t seed : {301u, 302u, 303u}) {
    INFO("seed " << seed);
    const Time delay = 4, source_lateness = 25, window_lateness = 12;
    const auto evs = records(seed, 700, 2, 40, 4);  // jitter 40 > delay: many late records, some too late
    auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      std::vector<Row> out;
      timely::dataflow::InputHandle<Time, Ev> input;
      std::shared_ptr<ts::SourceStats<Time>> stats;
      auto global_stats = std::make_shared<ts::KeyedStats>();
      worker.dataflow<Time>([&](auto& scope) {
        auto source =
            input.to_stream(scope) | ts::event_time(time_of, ts::bounded_out_of_orderness<Time>(delay),
                                                    ts::allowed_lateness<Time>(source_lateness));
        stats = source.stats;
        auto s = source.records;
        s |
            ts::window(ts::tumbling<Time>(10), ts::by_key(key_of), ts::count())
                .event_time(time_of)
                .allowed_lateness(window_lateness) |
            collect(out, "tumble/count");
        s |
            ts::window(ts::sliding<Time>(20, 10), ts::by_key(key_of), ts::sum(value_of))
                .event_time(time_of)
                .allowed_lateness(window_lateness) |
            collect(out, "slide/sum");
        s |
            ts::window(ts::tumbling<Time>(10), ts::global(), ts::count())
                .event_time(time_of)
                .allowed_lateness(window_lateness)
                .stats(global_stats) |
            collect(out, "global/count");
      });
      if (worker.index() == 0)  // one sender: each record's fate does not depend on the workers
        for (const auto& e : evs) input.send(e);
      input.close();
      while (worker.step()) {
      }
      if (worker.index() == 0 ||
          stats->late_dropped + stats->late_admitted + global_stats->late_dropped > 0) {
        out.emplace_back("source dropped", stats->late_dropped, 0, 0, "", 0);
        out.emplace_back("source admitted", stats->late_admitted, 0, 0, "", 0);
        out.emplace_back("window dropped", global_stats->late_dropped, 0, 0, "", 0);
      }
      return out;
    });
    const auto forwarded = model_allowing_source(evs, delay, source_lateness);
    std::vector<Row> expected;
    std::uint64_t ignored = 0, global_too_late = 0;
    model_late_windows(expected, "tumble/count", forwarded, 10, 10, window_lateness, true, direct_count,
                       &ignored);
    model_late_windows(expected, "slide/sum", forwarded, 20, 10, window_lateness, true, direct_sum, &ignored);
    model_late_windows(expected, "global/count", forwarded, 10, 10, window_lateness, false, direct_count,
                       &global_too_late);
    std::uint64_t admitted = 0;
    for (const auto& [e, at] : forwarded.records) admitted += at != e.time;
    expected.emplace_back("source dropped", forwarded.dropped, 0, 0, "", 0);
    expected.emplace_back("source admitted", admitted, 0, 0, "", 0);
    expected.emplace_back("window dropped", global_too_late, 0, 0, "", 0);
    std::sort(expected.begin(), expected.end());
    std::size_t again = 0;  // results emitted after their window's end: the data exercises re-emission
    for (const auto& row : expected)
      if (std::get<3>(row) > 0 && std::get<5>(row) >= std::get<3>(row)) ++again;
    REQUIRE(again > 10);
    REQUIRE(global_too_late > 0);
    REQUIRE(forwarded.dropped > 0);
    CHECK(result == expected);
  }
}

TEST_CASE("window state is dropped once the frontier passes the windows and their lateness",
          "[streaming][windows][state]") {
  const std::uint64_t seed = 401;
  INFO("seed " << seed);
  const Time delay = 10, far = 100000;
  const auto evs = records(seed, 600, 3, delay, 9);
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<Row> out;
    timely::dataflow::InputHandle<Time, Ev> input;
    timely::dataflow::ProbeHandle<Time> probe;
    auto sliding_stats = std::make_shared<ts::KeyedStats>();
    auto session_stats = std::make_shared<ts::KeyedStats>();
    worker.dataflow<Time>([&](auto& scope) {
      auto source =
          input.to_stream(scope) | ts::event_time(time_of, ts::bounded_out_of_orderness<Time>(delay));
      // A far-future record per worker moves its watermark past every window; then it goes.
      auto s = source.records | filter([](const Ev& e) { return e.time != far; });
      s |
          ts::window(ts::sliding<Time>(30, 10), ts::by_key(key_of), ts::count())
              .allowed_lateness(Time{15})
              .stats(sliding_stats) |
          collect(out, "slide/count") | probe_with(probe);
      s | ts::window(ts::session<Time>(12), ts::global(), ts::count()).stats(session_stats) |
          collect(out, "session/count") | probe_with(probe);
    });
    for (std::size_t i = 0; i < evs.size(); ++i)
      if (i % worker.peers() == worker.index()) input.send(evs[i]);
    input.flush();
    // Some steps with the windows open, then a far-future record per worker moves its
    // watermark past every window.
    std::size_t most_session = 0;
    for (int k = 0; k < 30; ++k) {
      worker.step();
      most_session = std::max(most_session, session_stats->panes);
    }
    input.send(Ev{far, 0, 0});
    input.flush();
    while (probe.less_than(far / 2)) {
      worker.step();
      most_session = std::max(most_session, session_stats->panes);
    }
    // The frontier is past every window (the input is still open): nothing may be left.
    for (const auto* st : {sliding_stats.get(), session_stats.get()})
      if (st->keys != 0 || st->panes != 0 || st->held_times != 0)
        out.emplace_back("state left", st->keys, st->panes, st->held_times, "", 0);
    if (worker.index() == 0 && most_session > 0 && session_stats->keys == 0)
      out.emplace_back("global state seen and dropped", 0, 0, 0, "", 0);
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<Row> expected;
  model_time_windows(expected, "slide/count", evs, 30, 10, true, direct_count);
  model_sessions(expected, "session/count", evs, 12, false, direct_count);
  expected.emplace_back("global state seen and dropped", 0, 0, 0, "", 0);
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}

TEST_CASE("std::chrono durations as event time", "[streaming][windows][chrono]") {
  using Ms = std::chrono::milliseconds;
  struct Tick {
    Ms at;
    std::uint64_t value;
  };
  const std::uint64_t seed = 501;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<Tick> ticks;
  for (int i = 0; i < 400; ++i) ticks.push_back(Tick{Ms(rng() % 5000), rng() % 100});
  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    std::vector<std::tuple<long, long, std::uint64_t>> out;
    timely::dataflow::InputHandle<Ms, Tick> input;
    worker.dataflow<Ms>([&](auto& scope) {
      auto source = input.to_stream(scope) | ts::event_time([](const Tick& t) { return t.at; },
                                                            ts::bounded_out_of_orderness(Ms(5000)));
      source.records |
          ts::window(ts::sliding(Ms(1000), Ms(250)), ts::global(),
                     ts::sum([](const Tick& t) { return t.value; })) |
          inspect([&](const auto& r) { out.emplace_back(r.start.count(), r.end.count(), r.value); });
    });
    for (std::size_t i = 0; i < ticks.size(); ++i)
      if (i % worker.peers() == worker.index()) input.send(ticks[i]);
    input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::map<long, std::uint64_t> sums;
  for (const auto& t : ticks)
    for (long s = t.at.count() - t.at.count() % 250; s > t.at.count() - 1000 && s >= 0; s -= 250)
      sums[s] += t.value;
  std::vector<std::tuple<long, long, std::uint64_t>> expected;
  for (const auto& [s, v] : sums) expected.emplace_back(s, s + 1000, v);
  CHECK(result == expected);
}

TEST_CASE("invalid window arguments throw WindowError naming the argument", "[streaming][windows][errors]") {
  using Catch::Contains;
  CHECK_THROWS_AS(ts::tumbling<Time>(0), ts::WindowError);
  CHECK_THROWS_WITH(ts::tumbling<Time>(0), Contains("tumbling") && Contains("'width'"));
  CHECK_THROWS_WITH(ts::tumbling(std::chrono::milliseconds(0)), Contains("'width'"));
  CHECK_THROWS_WITH(ts::sliding<Time>(0, 5), Contains("sliding") && Contains("'width'"));
  CHECK_THROWS_WITH(ts::sliding<Time>(10, 0), Contains("'slide' must be positive"));
  CHECK_THROWS_AS(ts::sliding<Time>(10, 20), ts::WindowError);
  CHECK_THROWS_WITH(ts::sliding<Time>(10, 20), Contains("'slide' (20)") && Contains("'width' (10)"));
  CHECK_THROWS_WITH(ts::session<Time>(0), Contains("session") && Contains("'gap'"));
  CHECK_THROWS_WITH(ts::count_window(0), Contains("'size'"));
  CHECK_THROWS_WITH(ts::count_window(3, 5), Contains("'slide' (5)") && Contains("'size' (3)"));
  CHECK_THROWS_AS(ts::top_k(0, value_of), ts::StreamingError);
  CHECK_THROWS_WITH(ts::top_k(0, value_of), Contains("'k'"));
  CHECK_THROWS_AS(ts::window(ts::session<Time>(5), ts::global(), ts::count()).allowed_lateness(Time{3}),
                  ts::StreamingError);
  CHECK_NOTHROW(ts::sliding<Time>(10, 10));
  CHECK(ts::sliding<Time>(25, 10).pane == 5);
  CHECK(ts::count_window(6, 4).pane == 2);
}
