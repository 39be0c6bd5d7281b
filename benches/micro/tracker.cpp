// Micro-benchmark: the reachability `Tracker<uint64_t>` on a straight chain of operators.
//
// Graph: node 0 is the (closed) scope boundary with no ports; node 1 is a source operator with
// one output and no input (where the input capability lives); nodes 2..L each have one input and
// one output with the identity summary; node i output 0 feeds node i+1 input 0. L = 1,000 is the
// headline size, 10 and 100 show how the cost scales with the chain length.
//
// What it measures:
//   * `Advance/L`: one epoch step of the input, i.e. `update_source(-1 at t)` and
//     `update_source(+1 at t+1)` on node 1's output, `propagate_all()`, then draining
//     `pushed_changes()` (which holds a -1/+1 frontier change at each of the L-1 inputs).
//     Items processed = epoch advances; `input_frontier_changes` counts the drained changes.
//   * `LoopRound`: one round of a one-operator loop with a feedback edge (see below).
//   * `Build/L`: `Builder::build()` for the same graph (the summary search and the tracker's
//     per-location state), including destruction of the result. Items processed = builds.
//
// Why: every worker runs this propagation each time a capability moves, and its cost grows with
// the number of locations the change reaches; build cost is paid once per dataflow construction.

#include <cstddef>
#include <cstdint>
#include <tuple>

#include <benchmark/benchmark.h>

#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>

#include "tracker_rounds.hpp"

namespace {

using timely::progress::Builder;
using timely::progress::identity_connectivity;
using timely::progress::Source;
using timely::progress::Target;
using Time = std::uint64_t;
using Summary = timely::SummaryOf<Time>;

Builder<Time> chain(std::size_t operators) {
  Builder<Time> builder;
  builder.add_node(0, 0, 0, {});
  builder.add_node(1, 0, 1, identity_connectivity<Summary>(0, 1));
  for (std::size_t i = 2; i <= operators; ++i)
    builder.add_node(i, 1, 1, identity_connectivity<Summary>(1, 1));
  for (std::size_t i = 1; i < operators; ++i) builder.add_edge(Source{i, 0}, Target{i + 1, 0});
  return builder;
}

void BM_Tracker_ChainAdvance(benchmark::State& state) {
  const auto operators = static_cast<std::size_t>(state.range(0));
  auto [tracker, scope_summary] = chain(operators).build();
  benchmark::DoNotOptimize(scope_summary.size());

  const Source input{1, 0};
  Time t = 0;
  tracker.update_source(input, t, 1);
  tracker.propagate_all();
  tracker.pushed_changes().clear();

  std::int64_t drained = 0;
  for (auto _ : state) {
    tracker.update_source(input, t, -1);
    tracker.update_source(input, t + 1, 1);
    tracker.propagate_all();
    tracker.pushed_changes().drain(
        [&](const std::tuple<std::size_t, std::size_t, Time>& where, std::int64_t diff) {
          benchmark::DoNotOptimize(where);
          benchmark::DoNotOptimize(diff);
          ++drained;
        });
    ++t;
  }
  // Sanity: the last operator's input frontier must now be {t}.
  const auto& last = tracker.implications(timely::progress::Location::of(Target{operators, 0}));
  if (operators >= 2 && (last.size() != 1 || last[0] != t))
    state.SkipWithError("frontier at the end of the chain did not follow the input");
  state.SetItemsProcessed(state.iterations());
  state.counters["input_frontier_changes"] =
      benchmark::Counter(static_cast<double>(drained), benchmark::Counter::kAvgIterations);
  state.counters["locations/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * static_cast<double>(2 * operators - 1),
                         benchmark::Counter::kIsRate);
}

void BM_Tracker_ChainBuild(benchmark::State& state) {
  const auto operators = static_cast<std::size_t>(state.range(0));
  const Builder<Time> builder = chain(operators);
  for (auto _ : state) {
    auto built = builder.build();
    benchmark::DoNotOptimize(built);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

// `LoopRound`: the shape of examples/barrier.cpp, the latency benchmark of progress tracking:
// node 1 is a feedback operator (summary +1) and node 2 an operator holding one capability on
// its output, which feeds back into node 1. Each iteration moves the capability from t to t + 1
// (one batch: -1 at t, +1 at t + 1), propagates, and drains the input frontier changes, as a
// scope does every round.
void BM_Tracker_LoopRound(benchmark::State& state) {
  Builder<Time> builder;
  builder.add_node(0, 0, 0, {});
  builder.add_node(
      1, 1, 1,
      timely::progress::Connectivity<Summary>{{{0, timely::progress::Antichain<Summary>(Summary{1})}}});
  builder.add_node(2, 1, 1, identity_connectivity<Summary>(1, 1));
  builder.add_edge(Source{1, 0}, Target{2, 0});
  builder.add_edge(Source{2, 0}, Target{1, 0});
  auto [tracker, scope_summary] = builder.build();
  benchmark::DoNotOptimize(scope_summary.size());
  Time t = 0;
  const std::int64_t drained = micro::advance_each_iteration(state, tracker, Source{2, 0}, t);
  const auto& input = tracker.implications(timely::progress::Location::of(Target{2, 0}));
  if (input.size() != 1 || input[0] != t + 1) state.SkipWithError("the loop's input frontier did not follow");
  state.SetItemsProcessed(state.iterations());
  state.counters["input_frontier_changes"] =
      benchmark::Counter(static_cast<double>(drained), benchmark::Counter::kAvgIterations);
}

BENCHMARK(BM_Tracker_ChainAdvance)->ArgName("L")->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_Tracker_ChainBuild)->ArgName("L")->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(BM_Tracker_LoopRound);

}  // namespace
