// Micro-benchmark: update throughput of `timely::progress::MutableAntichain<T>` for a totally
// ordered time (`uint64_t`) and a partially ordered one (`Product<uint64_t, uint64_t>`).
//
// What it measures:
//   * `Advance`: the typical frontier step, one batch `{(t+1, +1), (t, -1)}` applied with
//     `update_iter`, so the frontier moves from `t` to `t+1` every round (one rebuild each).
//   * `AdvanceSingle`: the same step as two separate `update` calls.
//   * `AdvanceWithOutstanding/W`: the same step while W capabilities are held at the W times
//     after the frontier (a pipelined source with W epochs in flight); each rebuild rescans them.
//   * `Churn/W`: W outstanding counts at random, mostly distinct times; each round retires 16 of
//     them and adds 16 new ones in one batch. The frontier moves only when a touched time is at or
//     below it, so this mixes the cheap "above the frontier" path with occasional rebuilds.
// For `Product`, "t+1" advances the inner (loop) coordinate, and random times are drawn from a
// 1024 x 1024 grid so the frontier is a genuine antichain of several incomparable elements.
//
// Why: every operator input, every location in the reachability tracker and every capability set
// keeps a mutable antichain; the tracker's propagation is essentially a cascade of these updates.
// Items processed = `(time, diff)` updates applied.

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/progress/frontier.hpp>
#include <timely/progress/timestamp.hpp>

namespace {

using timely::progress::MutableAntichain;
using Pair = timely::Product<std::uint64_t, std::uint64_t>;

// How each time type starts, steps forward, and is drawn at random.
template <class T>
struct Times;

template <>
struct Times<std::uint64_t> {
  static std::uint64_t first() { return 0; }
  static std::uint64_t next(std::uint64_t t) { return t + 1; }
  static std::uint64_t offset(std::uint64_t t, std::uint64_t k) { return t + k; }
  static std::uint64_t random(std::mt19937_64& rng) { return rng() % (std::uint64_t{1} << 20); }
};

template <>
struct Times<Pair> {
  static Pair first() { return Pair{0, 0}; }
  static Pair next(const Pair& t) { return Pair{t.outer, t.inner + 1}; }
  static Pair offset(const Pair& t, std::uint64_t k) { return Pair{t.outer, t.inner + k}; }
  static Pair random(std::mt19937_64& rng) { return Pair{rng() % 1024, rng() % 1024}; }
};

template <class T>
void BM_MutableAntichain_Advance(benchmark::State& state) {
  MutableAntichain<T> frontier(Times<T>::first());
  T t = Times<T>::first();
  std::int64_t changes = 0;
  for (auto _ : state) {
    const T next = Times<T>::next(t);
    const std::array<std::pair<T, std::int64_t>, 2> batch{{{next, 1}, {t, -1}}};
    frontier.update_iter(batch, [&](const T&, std::int64_t) { ++changes; });
    t = next;
    benchmark::DoNotOptimize(changes);
  }
  benchmark::DoNotOptimize(frontier.frontier().size());
  state.SetItemsProcessed(state.iterations() * 2);
  state.counters["frontier_changes_per_round"] =
      benchmark::Counter(static_cast<double>(changes), benchmark::Counter::kAvgIterations);
}

template <class T>
void BM_MutableAntichain_AdvanceSingle(benchmark::State& state) {
  MutableAntichain<T> frontier(Times<T>::first());
  T t = Times<T>::first();
  std::int64_t changes = 0;
  const auto count = [&](const T&, std::int64_t) { ++changes; };
  for (auto _ : state) {
    const T next = Times<T>::next(t);
    frontier.update(next, 1, count);
    frontier.update(t, -1, count);
    t = next;
    benchmark::DoNotOptimize(changes);
  }
  benchmark::DoNotOptimize(frontier.frontier().size());
  state.SetItemsProcessed(state.iterations() * 2);
}

template <class T>
void BM_MutableAntichain_AdvanceWithOutstanding(benchmark::State& state) {
  const auto outstanding = static_cast<std::uint64_t>(state.range(0));
  MutableAntichain<T> frontier;
  T t = Times<T>::first();
  {
    std::vector<std::pair<T, std::int64_t>> initial;
    for (std::uint64_t k = 0; k < outstanding; ++k) initial.emplace_back(Times<T>::offset(t, k), 1);
    frontier.update_iter(initial);
  }
  std::int64_t changes = 0;
  for (auto _ : state) {
    // Retire the oldest epoch, open one at the far end of the window.
    const std::array<std::pair<T, std::int64_t>, 2> batch{{{Times<T>::offset(t, outstanding), 1}, {t, -1}}};
    frontier.update_iter(batch, [&](const T&, std::int64_t) { ++changes; });
    t = Times<T>::next(t);
    benchmark::DoNotOptimize(changes);
  }
  benchmark::DoNotOptimize(frontier.frontier().size());
  state.SetItemsProcessed(state.iterations() * 2);
}

template <class T>
void BM_MutableAntichain_Churn(benchmark::State& state) {
  constexpr std::size_t kReplacedPerRound = 16;
  const auto outstanding = static_cast<std::size_t>(state.range(0));

  // A long pre-drawn stream of random times keeps the generator out of the timed loop (long
  // enough that the branch predictor cannot learn the sequence across rounds).
  std::mt19937_64 rng(0xc0ffee + outstanding);
  std::vector<T> stream(std::size_t{1} << 20);
  for (auto& x : stream) x = Times<T>::random(rng);

  std::vector<T> live(outstanding);
  std::size_t cursor = 0;
  const auto draw = [&] {
    const T x = stream[cursor];
    cursor = (cursor + 1) & (stream.size() - 1);
    return x;
  };

  MutableAntichain<T> frontier;
  {
    std::vector<std::pair<T, std::int64_t>> initial;
    for (auto& x : live) {
      x = draw();
      initial.emplace_back(x, 1);
    }
    frontier.update_iter(initial);
  }

  std::vector<std::pair<T, std::int64_t>> batch;
  batch.reserve(2 * kReplacedPerRound);
  std::size_t slot = 0;
  std::int64_t changes = 0;
  for (auto _ : state) {
    batch.clear();
    for (std::size_t r = 0; r < kReplacedPerRound; ++r) {
      T& held = live[slot];
      slot = slot + 1 == outstanding ? 0 : slot + 1;
      batch.emplace_back(held, -1);
      held = draw();
      batch.emplace_back(held, 1);
    }
    frontier.update_iter(batch, [&](const T&, std::int64_t) { ++changes; });
    benchmark::DoNotOptimize(changes);
  }
  benchmark::DoNotOptimize(frontier.frontier().size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(2 * kReplacedPerRound));
  state.counters["frontier_size"] = static_cast<double>(frontier.frontier().size());
}

BENCHMARK_TEMPLATE(BM_MutableAntichain_Advance, std::uint64_t);
BENCHMARK_TEMPLATE(BM_MutableAntichain_Advance, Pair);
BENCHMARK_TEMPLATE(BM_MutableAntichain_AdvanceSingle, std::uint64_t);
BENCHMARK_TEMPLATE(BM_MutableAntichain_AdvanceSingle, Pair);
BENCHMARK_TEMPLATE(BM_MutableAntichain_AdvanceWithOutstanding, std::uint64_t)->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_MutableAntichain_AdvanceWithOutstanding, Pair)->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_MutableAntichain_Churn, std::uint64_t)->Arg(64)->Arg(4096);
BENCHMARK_TEMPLATE(BM_MutableAntichain_Churn, Pair)->Arg(64)->Arg(4096);

}  // namespace
