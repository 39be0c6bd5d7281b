// Micro-benchmark: progress propagation on two graph shapes that tracker.cpp's chain does not
// cover: wide fan-out, and deeply nested scopes.
//
//   * `FanOut/k`: the reachability `Tracker<uint64_t>` (timely/progress/reachability.hpp) of one
//     scope where node 1, a source operator holding the input capability, feeds k consumers
//     (nodes 2..k+1, one input and one output each, identity summary; their outputs lead
//     nowhere). Each iteration moves the capability from t to t + 1 (`update_source` -1 at t,
//     +1 at t + 1), runs `propagate_all()` and drains `pushed_changes()`: a -1/+1 frontier
//     change at each of the k inputs. Items processed = those drained frontier changes
//     (pointstamp updates propagated to operator inputs, 2k per iteration, counted as drained).
//     k = 1 .. 1024: the worklist holds up to k + 1 entries (the source's change at one time
//     and the k it implies), so from 64 consumers on it leaves its sorted-vector mode for the
//     heap.
//   * `NestedRegions/d`: a real single-worker dataflow (`timely::Worker` on the thread
//     allocator): input -> d nested `region`s (each entered and left, the innermost empty) ->
//     probe. Each iteration advances the input by one epoch and steps the worker until the probe
//     passes it, so the frontier change crosses 2d scope boundaries and d + 1 trackers, each with
//     its subgraph's bookkeeping. Items processed = epochs; the counter `levels/s` = epochs x d.
//     d = 1, 4, 16, 64. (A long flat pipeline is tracker.cpp's `ChainAdvance/L`.)
//
// Why: a change at one output is propagated to every consumer and through every enclosing
// scope; these show whether that cost stays linear in k and in d, and what a nesting level
// costs compared with an operator of a flat scope.

#include <cstddef>
#include <cstdint>

#include <benchmark/benchmark.h>

#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/timely.hpp>

#include "tracker_rounds.hpp"

namespace {

using timely::progress::Builder;
using timely::progress::identity_connectivity;
using timely::progress::Source;
using timely::progress::Target;
using Time = std::uint64_t;
using Summary = timely::SummaryOf<Time>;

void BM_Tracker_FanOut(benchmark::State& state) {
  const auto consumers = static_cast<std::size_t>(state.range(0));
  Builder<Time> builder;
  builder.add_node(0, 0, 0, {});
  builder.add_node(1, 0, 1, identity_connectivity<Summary>(0, 1));
  for (std::size_t i = 0; i < consumers; ++i) {
    builder.add_node(2 + i, 1, 1, identity_connectivity<Summary>(1, 1));
    builder.add_edge(Source{1, 0}, Target{2 + i, 0});
  }
  auto [tracker, scope_summary] = builder.build();
  benchmark::DoNotOptimize(scope_summary.size());

  Time t = 0;
  const std::int64_t drained = micro::advance_each_iteration(state, tracker, Source{1, 0}, t);
  for (std::size_t i = 0; i < consumers; ++i) {
    const auto& f = tracker.implications(timely::progress::Location::of(Target{2 + i, 0}));
    if (f.size() != 1 || f[0] != t) {
      state.SkipWithError("a consumer's input frontier did not follow the source");
      break;
    }
  }
  if (drained != static_cast<std::int64_t>(2 * consumers) * static_cast<std::int64_t>(state.iterations()))
    state.SkipWithError("expected a -1/+1 frontier change at every consumer in every iteration");
  state.SetItemsProcessed(drained);
}

using timely::dataflow::Scope;
using timely::dataflow::Stream;

// `depth` nested regions around `stream`, each entered and left.
Stream<Time, std::uint64_t> nest(Scope<Time>& scope, const Stream<Time, std::uint64_t>& stream,
                                 std::size_t depth) {
  using timely::dataflow::operators::enter;
  using timely::dataflow::operators::leave;
  if (depth == 0) return stream;
  return scope.region(
      [&](Scope<Time>& inner) { return nest(inner, stream | enter(inner), depth - 1) | leave(scope); });
}

void BM_Dataflow_NestedRegions(benchmark::State& state) {
  const auto depth = static_cast<std::size_t>(state.range(0));
  timely::Worker worker(timely::communication::Allocator::thread());
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](Scope<Time>& scope) {
    nest(scope, input.to_stream(scope), depth) | timely::dataflow::operators::probe_with(probe);
  });
  Time epochs = 0;
  for (auto _ : state) {
    input.advance_to(++epochs);
    while (probe.less_than(epochs)) worker.step();
  }
  if (!probe.less_equal(epochs) || probe.less_than(epochs))
    state.SkipWithError("the probe's frontier is not the input's epoch");
  input.close();
  while (worker.step()) {
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(epochs));
  state.counters["levels/s"] = benchmark::Counter(static_cast<double>(epochs) * static_cast<double>(depth),
                                                  benchmark::Counter::kIsRate);
}

BENCHMARK(BM_Tracker_FanOut)->ArgName("k")->Arg(1)->Arg(4)->Arg(16)->Arg(64)->Arg(256)->Arg(1024);
BENCHMARK(BM_Dataflow_NestedRegions)->ArgName("d")->Arg(1)->Arg(4)->Arg(16)->Arg(64);

}  // namespace
