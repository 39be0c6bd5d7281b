// Micro-benchmark: throughput of `timely::progress::ChangeBatch<uint64_t>`.
//
// What it measures: the cost of appending N `(key, diff)` updates drawn at random from K distinct
// keys and then compacting the batch (sort, merge equal keys, drop zeros). Appending also pays
// for the batch's own periodic compaction, which keeps the dirty tail bounded.
//
// Why: every progress quantity (capability deltas, produced/consumed counts, frontier changes,
// the pointstamp updates exchanged between workers) travels as a change batch, so update +
// compact sits on the hot path of every scheduling step. Three shapes are measured:
//   * `Fresh`:  a new batch per round, so each round also pays for heap growth;
//   * `Reused`: one batch cleared between rounds, as a long-lived per-operator buffer is used;
//   * `Drain`:  like `Reused`, but the round ends with `drain(f)` over the compacted updates.
// Args: N in {2^10, 2^16} updates per round, K in {16, 1024} distinct keys, diffs +1/-1 at
// random. Each round reads a fresh window of a long pre-generated stream (see `Workload`).
// Items processed = updates appended (N per round).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/progress/change_batch.hpp>

namespace {

using timely::progress::ChangeBatch;

// Pre-generated workload, so the random number generator stays out of the timed region.
//
// The stream is much longer than one round (at least 2^20 updates) and each round reads the next
// window of N: replaying the same short sequence every round lets the branch predictor learn the
// sort's comparisons and makes small rounds look several times cheaper than they are.
struct Workload {
  std::vector<std::uint64_t> keys;
  std::vector<std::int8_t> diffs;
  std::size_t cursor = 0;

  // Start of the next window of `n` updates (the length is a multiple of `n`).
  std::size_t next_window(std::size_t n) {
    const std::size_t start = cursor;
    cursor = (cursor + n) % keys.size();
    return start;
  }
};

constexpr std::size_t kMinStream = std::size_t{1} << 20;

Workload make_workload(std::size_t updates, std::uint64_t distinct_keys) {
  std::mt19937_64 rng(0x7133'1e55'0000'0001ULL ^ (updates * 31 + distinct_keys));
  // Spread the K keys over the whole 64-bit range so the sort compares "real" values.
  std::vector<std::uint64_t> universe(distinct_keys);
  for (auto& k : universe) k = rng();
  std::uniform_int_distribution<std::size_t> pick(0, distinct_keys - 1);
  const std::size_t length = ((std::max(updates, kMinStream) + updates - 1) / updates) * updates;
  Workload w;
  w.keys.reserve(length);
  w.diffs.reserve(length);
  for (std::size_t i = 0; i < length; ++i) {
    w.keys.push_back(universe[pick(rng)]);
    // Mixed signs so that some keys cancel to zero and get dropped during compaction.
    w.diffs.push_back((rng() & 1U) != 0 ? std::int8_t{1} : std::int8_t{-1});
  }
  return w;
}

void BM_ChangeBatch_UpdateCompact_Fresh(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto k = static_cast<std::uint64_t>(state.range(1));
  Workload w = make_workload(n, k);

  for (auto _ : state) {
    const std::size_t base = w.next_window(n);
    ChangeBatch<std::uint64_t> batch;
    for (std::size_t i = base; i < base + n; ++i) batch.update(w.keys[i], w.diffs[i]);
    batch.compact();
    std::size_t distinct = batch.view().size();
    benchmark::DoNotOptimize(distinct);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

void BM_ChangeBatch_UpdateCompact_Reused(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto k = static_cast<std::uint64_t>(state.range(1));
  Workload w = make_workload(n, k);

  ChangeBatch<std::uint64_t> batch;
  for (auto _ : state) {
    const std::size_t base = w.next_window(n);
    for (std::size_t i = base; i < base + n; ++i) batch.update(w.keys[i], w.diffs[i]);
    batch.compact();
    std::size_t distinct = batch.view().size();
    benchmark::DoNotOptimize(distinct);
    benchmark::ClobberMemory();
    batch.clear();  // keeps the storage's capacity for the next round
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// Consumption side: compact then drain every surviving update through a callback, as the
// progress machinery does when it forwards a batch. Sum the drained diffs so the work is used.
void BM_ChangeBatch_UpdateDrain(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto k = static_cast<std::uint64_t>(state.range(1));
  Workload w = make_workload(n, k);

  ChangeBatch<std::uint64_t> batch;
  for (auto _ : state) {
    const std::size_t base = w.next_window(n);
    for (std::size_t i = base; i < base + n; ++i) batch.update(w.keys[i], w.diffs[i]);
    std::int64_t total = 0;
    batch.drain([&](std::uint64_t key, std::int64_t diff) {
      total += diff;
      benchmark::DoNotOptimize(key);
    });
    benchmark::DoNotOptimize(total);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"N", "K"});
  for (std::int64_t n : {std::int64_t{1} << 10, std::int64_t{1} << 16})
    for (std::int64_t k : {16, 1024}) b->Args({n, k});
}

BENCHMARK(BM_ChangeBatch_UpdateCompact_Fresh)->Apply(shapes);
BENCHMARK(BM_ChangeBatch_UpdateCompact_Reused)->Apply(shapes);
BENCHMARK(BM_ChangeBatch_UpdateDrain)->Apply(shapes);

}  // namespace
