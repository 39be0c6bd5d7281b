// The event-time joins (timely/streaming/join.hpp) against brute-force models: random records
// delivered out of order within a bound (fixed, printed seeds), on 1, 2 and 4 workers in both
// progress modes; and state dropped as the frontier passes (bounded while running, zero at the end).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/streaming/join.hpp>
#include <timely/streaming/watermark.hpp>

#include "support/catch.hpp"
#include "support/harness.hpp"

namespace ts = timely::streaming;
using namespace timely::dataflow::operators;
using Time = std::uint64_t;

namespace {

struct Rec {
  Time time = 0;
  std::uint64_t key = 0, id = 0;
};

/// (time of the result, key, left id, right id, window start, window end); 0 bounds for joins
/// without windows. Rows with key `kStats` report state left over at the end.
using Row = std::tuple<Time, std::uint64_t, std::uint64_t, std::uint64_t, Time, Time>;
constexpr std::uint64_t kStats = ~std::uint64_t{0};

/// `n` records with times in [0, span) and keys in [0, keys), ids from `first_id`, in an arrival
/// order within `delay` of time order (each sorted by its time plus a jitter in [0, delay]).
std::vector<Rec> records(std::uint64_t seed, std::size_t n, Time span, std::uint64_t keys, Time delay,
                         std::uint64_t first_id) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Time, Rec>> keyed;
  for (std::size_t i = 0; i < n; ++i) {
    Rec r{rng() % span, rng() % keys, first_id + i};
    keyed.emplace_back(r.time + rng() % (delay + 1), r);
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Rec> out;
  for (const auto& [_, r] : keyed) out.push_back(r);
  return out;
}

constexpr Time kDelay = 6;

/// Runs `join(left, right) -> Stream<Time, Out>` over `lefts` and `rights` (each worker sends its
/// share through a bounded-out-of-orderness source), turning each result into a Row with
/// `row(time, out)`; adds a kStats row if any state is left once both inputs are complete.
template <class Join, class ToRow>
std::vector<Row> run_join(timely::Worker& worker, const std::vector<Rec>& lefts,
                          const std::vector<Rec>& rights, Join join, ToRow row,
                          std::shared_ptr<ts::JoinStats> stats) {
  std::vector<Row> out;
  timely::dataflow::InputHandle<Time, Rec> left_in, right_in;
  std::shared_ptr<ts::SourceStats<Time>> left_stats, right_stats;
  worker.dataflow<Time>([&](auto& scope) {
    auto time_of = [](const Rec& r) { return r.time; };
    auto l = left_in.to_stream(scope) | ts::event_time(time_of, ts::bounded_out_of_orderness<Time>(kDelay));
    auto r = right_in.to_stream(scope) | ts::event_time(time_of, ts::bounded_out_of_orderness<Time>(kDelay));
    left_stats = l.stats;
    right_stats = r.stats;
    join(l.records, r.records) |
        inspect_time([&](const Time& t, const auto& o) { out.push_back(row(t, o)); });
  });
  for (std::size_t i = 0; i < std::max(lefts.size(), rights.size()); ++i) {
    if (i % worker.peers() != worker.index()) continue;
    if (i < lefts.size()) left_in.send(lefts[i]);
    if (i < rights.size()) right_in.send(rights[i]);
  }
  left_in.close();
  right_in.close();
  while (worker.step()) {
  }
  if (left_stats->late_dropped + right_stats->late_dropped != 0)
    out.emplace_back(0, kStats, left_stats->late_dropped, right_stats->late_dropped, 0, 0);
  if (stats->keys + stats->left_records + stats->right_records + stats->panes + stats->held_times != 0)
    out.emplace_back(1, kStats, stats->keys, stats->left_records + stats->right_records, stats->panes,
                     stats->held_times);
  return out;
}

/// Brute force: every pair of one key with `l - before <= r <= l + after`, at max(l, r).
std::vector<Row> interval_model(const std::vector<Rec>& lefts, const std::vector<Rec>& rights, Time before,
                                Time after) {
  std::vector<Row> out;
  for (const auto& l : lefts)
    for (const auto& r : rights)
      if (l.key == r.key && r.time + before >= l.time && r.time <= l.time + after)
        out.emplace_back(std::max(l.time, r.time), l.key, l.id, r.id, 0, 0);
  std::sort(out.begin(), out.end());
  return out;
}

/// Brute force: every pair of one key in each window [j*slide, j*slide + width) holding both.
std::vector<Row> window_model(const std::vector<Rec>& lefts, const std::vector<Rec>& rights, Time width,
                              Time slide) {
  std::vector<Row> out;
  for (const auto& l : lefts)
    for (const auto& r : rights)
      for (Time start = 0; start <= std::max(l.time, r.time); start += slide)
        if (l.key == r.key && start <= std::min(l.time, r.time) && std::max(l.time, r.time) < start + width)
          out.emplace_back(start + width - 1, l.key, l.id, r.id, start, start + width);
  std::sort(out.begin(), out.end());
  return out;
}

auto pair_ids = [](const Rec& l, const Rec& r) { return std::pair{l.id, r.id}; };
auto key_of = [](const Rec& r) { return r.key; };

}  // namespace

TEST_CASE("interval_join gives every pair within [left - before, left + after] at max(t_l, t_r)",
          "[streaming][join]") {
  for (std::uint64_t seed : {1u, 2u}) {
    for (auto bounds : {std::pair<Time, Time>{7, 3}, {0, 0}, {0, 12}}) {
      const Time before = bounds.first, after = bounds.second;
      INFO("seed " << seed << ", before " << before << ", after " << after);
      const auto lefts = records(seed, 300, 200, 7, kDelay, 0);
      const auto rights = records(seed + 100, 300, 200, 7, kDelay, 10'000);
      const auto got = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
        auto stats = std::make_shared<ts::JoinStats>();
        return run_join(
            worker, lefts, rights,
            [&](auto l, auto r) {
              return l | ts::interval_join(r, before, after, key_of, key_of, pair_ids, stats);
            },
            [](Time t, const std::pair<std::uint64_t, std::uint64_t>& ids) {
              return Row{t, 0, ids.first, ids.second, 0, 0};
            },
            stats);
      });
      // The key is not in the output: compare without it.
      auto expected = interval_model(lefts, rights, before, after);
      for (auto& row : expected) std::get<1>(row) = 0;
      std::sort(expected.begin(), expected.end());
      CHECK(!expected.empty());
      CHECK(got == expected);
    }
  }
}

TEST_CASE("ttl_join gives every pair of one key at most ttl apart, or all of them", "[streaming][join]") {
  const std::uint64_t seed = 3;
  for (Time ttl : {Time{0}, Time{5}, ts::max_time<Time>()}) {
    INFO("seed " << seed << ", ttl " << ttl);
    const auto lefts = records(seed, 250, 150, 5, kDelay, 0);
    const auto rights = records(seed + 100, 250, 150, 5, kDelay, 10'000);
    const auto got = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      auto stats = std::make_shared<ts::JoinStats>();
      return run_join(
          worker, lefts, rights,
          [&](auto l, auto r) {
            return l | ts::ttl_join(
                           r, ttl, key_of, key_of,
                           [](const Rec& a, const Rec& b) {
                             return std::tuple{a.key, a.id, b.id};
                           },
                           stats);
          },
          [](Time t, const std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>& o) {
            return Row{t, std::get<0>(o), std::get<1>(o), std::get<2>(o), 0, 0};
          },
          stats);
    });
    const Time bound = std::min<Time>(ttl, 1'000);
    const auto expected = interval_model(lefts, rights, bound, bound);
    CHECK(!expected.empty());
    CHECK(got == expected);
  }
}

TEST_CASE("window_join gives every pair of one key in a common tumbling or sliding window",
          "[streaming][join]") {
  const std::uint64_t seed = 4;
  for (auto sizes : {std::pair<Time, Time>{20, 20}, {20, 5}, {12, 8}}) {
    const Time width = sizes.first, slide = sizes.second;
    INFO("seed " << seed << ", width " << width << ", slide " << slide);
    const auto lefts = records(seed, 250, 150, 5, kDelay, 0);
    const auto rights = records(seed + 100, 250, 150, 5, kDelay, 10'000);
    const auto windows = width == slide ? ts::tumbling(width) : ts::sliding(width, slide);
    const auto got = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      auto stats = std::make_shared<ts::JoinStats>();
      return run_join(
          worker, lefts, rights,
          [&](auto l, auto r) { return l | ts::window_join(r, windows, key_of, key_of, pair_ids, stats); },
          [](Time t,
             const ts::WindowResult<Time, std::uint64_t, std::pair<std::uint64_t, std::uint64_t>>& w) {
            return Row{t, w.key, w.value.first, w.value.second, w.start, w.end};
          },
          stats);
    });
    const auto expected = window_model(lefts, rights, width, slide);
    CHECK(!expected.empty());
    CHECK(got == expected);
  }
}

TEST_CASE("join state is dropped as the frontier passes: bounded while running, none at the end",
          "[streaming][join]") {
  // 400 rounds of 8 left and 8 right records at the round's time over 16 keys; after each
  // round the workers step until the probe has passed it, and the live state is sampled.
  constexpr Time kRounds = 400;
  constexpr std::uint64_t kPerRound = 8;
  struct Sample {
    std::size_t most_records = 0, most_held = 0, results = 0;
    ts::JoinStats last;
  };
  auto run = [&](std::size_t workers, auto make_join) {
    std::vector<Sample> samples(workers);
    timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      auto stats = std::make_shared<ts::JoinStats>();
      timely::dataflow::InputHandle<Time, Rec> left_in, right_in;
      timely::dataflow::ProbeHandle<Time> probe;
      Sample& sample = samples[worker.index()];
      worker.dataflow<Time>([&](auto& scope) {
        make_join(left_in.to_stream(scope), right_in.to_stream(scope), stats) |
            inspect([&](const auto&) { ++sample.results; }) | probe_with(probe);
      });
      for (Time t = 0; t < kRounds; ++t) {
        if (worker.index() == 0)
          for (std::uint64_t i = 0; i < kPerRound; ++i) {
            left_in.send(Rec{t, (t * kPerRound + i) % 16, t * kPerRound + i});
            right_in.send(Rec{t, (t * kPerRound + i * 3) % 16, t * kPerRound + i});
          }
        left_in.advance_to(t + 1);
        right_in.advance_to(t + 1);
        while (probe.less_than(t + 1)) worker.step();
        sample.most_records = std::max(sample.most_records, stats->left_records + stats->right_records);
        sample.most_held = std::max(sample.most_held, stats->held_times);
      }
      left_in.close();
      right_in.close();
      while (worker.step()) {
      }
      sample.last = *stats;
    });
    return samples;
  };
  auto check = [&](const std::vector<Sample>& samples, std::size_t record_bound, std::size_t held_bound) {
    std::size_t results = 0;
    for (const auto& s : samples) {
      results += s.results;
      CHECK(s.most_records <= record_bound);
      CHECK(s.most_held <= held_bound);
      CHECK(s.last.keys == 0);
      CHECK(s.last.left_records + s.last.right_records == 0);
      CHECK(s.last.panes == 0);
      CHECK(s.last.held_times == 0);
    }
    CHECK(results > 0);
  };
  for (std::size_t workers : {1u, 2u}) {
    INFO("workers " << workers);
    // A record lives until the other side's frontier passes its time plus the bound: at most
    // (bound + 2) rounds of each side.
    check(run(workers,
              [](auto l, auto r, auto stats) {
                return l | ts::interval_join(r, Time{2}, Time{3}, key_of, key_of, pair_ids, stats);
              }),
          2 * kPerRound * (3 + 2), 0);
    check(run(workers,
              [](auto l, auto r, auto stats) {
                return l | ts::ttl_join(r, Time{4}, key_of, key_of, pair_ids, stats);
              }),
          2 * kPerRound * (4 + 2), 0);
    // A pane lives until its last window has been emitted: at most two windows' worth of rounds.
    check(run(workers,
              [](auto l, auto r, auto stats) {
                return l |
                       ts::window_join(r, ts::sliding(Time{10}, Time{5}), key_of, key_of, pair_ids, stats);
              }),
          2 * kPerRound * (10 + 5 + 1), 4);
  }
}

TEST_CASE("the joins reject negative bounds with StreamingError naming the argument", "[streaming][join]") {
  using Ms = std::chrono::milliseconds;
  timely::execute(timely::Config::process(1), [](timely::Worker& worker) {
    timely::dataflow::InputHandle<Ms, Rec> in;
    worker.dataflow<Ms>([&](auto& scope) {
      auto s = in.to_stream(scope);
      auto k = [](const Rec& r) { return r.key; };
      CHECK_THROWS_WITH(ts::interval_join(s, Ms{-1}, Ms{1}, k, k, pair_ids), Catch::Contains("'before'"));
      CHECK_THROWS_WITH(ts::interval_join(s, Ms{1}, Ms{-1}, k, k, pair_ids), Catch::Contains("'after'"));
      CHECK_THROWS_AS(ts::ttl_join(s, Ms{-5}, k, k, pair_ids), ts::StreamingError);
      CHECK_NOTHROW(s | ts::interval_join(s, Ms{0}, Ms{3}, k, k, pair_ids));
    });
    in.close();
    while (worker.step()) {
    }
  });
}
