// The measured loop that tracker.cpp and tracker_shapes.cpp share: a capability moving forward
// one time per benchmark iteration, through a reachability Tracker over u64 times.
#pragma once

#include <cstdint>
#include <tuple>

#include <benchmark/benchmark.h>

#include <timely/progress/reachability.hpp>

namespace micro {

/// Holds a capability at `cap` from time 0, then per iteration of `state` moves it from t to
/// t + 1 (`update_source` -1 and +1), runs `propagate_all()` and drains `pushed_changes()`.
/// Returns the number of frontier changes drained; `t` is left at the capability's last time.
template <class Tracker>
std::int64_t advance_each_iteration(benchmark::State& state, Tracker& tracker, timely::progress::Source cap,
                                    std::uint64_t& t) {
  t = 0;
  tracker.update_source(cap, t, 1);
  tracker.propagate_all();
  tracker.pushed_changes().clear();
  std::int64_t drained = 0;
  for (auto _ : state) {
    tracker.update_source(cap, t, -1);
    tracker.update_source(cap, t + 1, 1);
    tracker.propagate_all();
    tracker.pushed_changes().drain_raw(
        [&](const std::tuple<std::size_t, std::size_t, std::uint64_t>& where, std::int64_t diff) {
          benchmark::DoNotOptimize(where);
          benchmark::DoNotOptimize(diff);
          ++drained;
        });
    ++t;
  }
  return drained;
}

}  // namespace micro
