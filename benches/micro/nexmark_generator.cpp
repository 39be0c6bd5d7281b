// Micro-benchmark: the Nexmark generator alone (timely/streaming/nexmark/generator.hpp), the
// physical limit of every Nexmark run, since each worker generates its own share.
//
//   * `Generate/slice`: one worker's `Generator::next` into a vector reused per slice of
//     `slice` events (cleared each round, as the source operator does), default config (Beam's
//     sizes: bids padded to 100 bytes, auctions 500, people 200), seed 0. Items = events.
//   * `GenerateKind/kind`: `make_event_into` for ids of one kind only (0 person, 1 auction,
//     2 bid), reusing one event, to show where the time goes per kind.
//   * `GenerateOutOfOrder/group`: as `Generate/4096` with `out_of_order_group_size` = group.
//
// Run: build/release/benches/micro/micro_nexmark_generator --benchmark_repetitions=5
//      --benchmark_report_aggregates_only=true
#include <cstddef>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/streaming/nexmark/generator.hpp>

namespace nx = timely::streaming::nexmark;

namespace {

nx::GeneratorConfig endless() {
  nx::GeneratorConfig config;
  config.events = std::uint64_t{1} << 50;
  config.rate = 10'000'000;
  return config;
}

void run_generator(benchmark::State& state, const nx::GeneratorConfig& config, std::size_t slice) {
  nx::Generator generator(config, 0, 1);
  std::vector<nx::Event> out;
  out.reserve(slice);
  std::uint64_t events = 0;
  for (auto _ : state) {
    out.clear();
    events += generator.next(out, slice);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  if (events != static_cast<std::uint64_t>(state.iterations()) * slice) state.SkipWithError("short slice");
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

void Generate(benchmark::State& state) {
  run_generator(state, endless(), static_cast<std::size_t>(state.range(0)));
}

void GenerateOutOfOrder(benchmark::State& state) {
  auto config = endless();
  config.out_of_order_group_size = static_cast<std::uint64_t>(state.range(0));
  run_generator(state, config, 4096);
}

void GenerateKind(benchmark::State& state) {
  const auto config = endless();
  const auto kind = static_cast<std::uint64_t>(state.range(0));
  // Ids of the kind: offset 0 person, 1-3 auction, 4-49 bid in each block of 50.
  const std::uint64_t offset = kind == 0 ? 0 : (kind == 1 ? 1 : 4),
                      span = kind == 0 ? 1 : (kind == 1 ? 3 : 46);
  nx::Event event;
  std::uint64_t id = 0;
  for (auto _ : state) {
    const std::uint64_t block = id / span, at = id % span;
    nx::make_event_into(config, block * 50 + offset + at, event);
    benchmark::DoNotOptimize(&event);
    ++id;
  }
  if (static_cast<std::size_t>(event.index()) != kind) state.SkipWithError("wrong kind");
  state.SetItemsProcessed(static_cast<std::int64_t>(id));
}

}  // namespace

BENCHMARK(Generate)->ArgName("slice")->Arg(64)->Arg(4096)->Arg(65536);
BENCHMARK(GenerateKind)->ArgName("kind")->Arg(0)->Arg(1)->Arg(2);
BENCHMARK(GenerateOutOfOrder)->ArgName("group")->Arg(1)->Arg(16)->Arg(1000);
