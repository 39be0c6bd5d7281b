// Micro-benchmark: the exchange pact's per-record work, i.e. `detail::ExchangePusher`
// (timely/dataflow/pact.hpp) routing each record of a message to a per-target buffer and
// sending a buffer when it is full and on flush.
//
// Shape: the pusher's targets are sinks that count what they receive and drop the batch (as a
// receiver does once it has read it), so the figure is the pusher's own cost: hashing, the
// target choice (mask for a power of two), the move into the buffer, reserving a fresh buffer
// for every one sent, and the send. Each iteration pushes 16,384 records at one time, in
// messages of `container::default_capacity<D>()` records (what an operator output sends), and
// then a flush (`done()`, as at the end of an operator's activation), so partly filled buffers
// go out too. Building the input messages (a copy from a prepared batch) is inside the loop:
// `targets:1` shows that floor, because one target forwards whole messages without routing.
//
//   * `U64/targets`: `uint64_t` records routed by the value itself (examples/exchange.cpp).
//   * `StringI64/targets`: `(std::string, int64_t)` records with words of 3 to 12 letters
//     (within the short-string buffer), routed by `boost::hash` of the word, the route of
//     wordcount (examples/wordcount.cpp) and of the keyed operators (`exchange_by_key`).
//   * `Columnar/targets`: `columnar::Batch<(u64, std::string)>` batches of 1 MiB (about 40,000
//     records with texts of 5 to 15 bytes, as `exchange --strings --columnar` sends), routed by
//     the u64: the pusher's counting sort of indices by target and its column-wise gathers into
//     the targets' builders. Each iteration copies the prepared batch (one memcpy per column,
//     the floor `targets:1` shows) and pushes it.
// targets = 1, 2, 4, 16 (workers of the exchange). Items processed = records; the counter
// `batches` is the batches sent per iteration.
//
// Why: the exchange pusher touches every record that crosses workers; the one-worker
// `exchange` workload is bound by it (benches/README.md).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/container/columnar.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/dataflow/operators/detail/keyed.hpp>
#include <timely/dataflow/pact.hpp>

namespace {

using Time = std::uint64_t;
template <class D>
using Message = timely::dataflow::Message<Time, std::vector<D>>;
template <class D>
using MessagePush = timely::dataflow::MessagePush<Time, std::vector<D>>;

constexpr std::size_t kRecordsPerRound = 16384;

// A target that counts records and batches and drops what it is given.
template <class C>
class CountingSink final : public timely::dataflow::MessagePush<Time, C> {
 public:
  void push(std::optional<timely::dataflow::Message<Time, C>>& element) override {
    if (!element) return;
    records += element->data.size();
    ++batches;
    element.reset();
  }
  std::size_t records = 0;
  std::size_t batches = 0;
};

std::vector<std::uint64_t> u64_records() {
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> v(kRecordsPerRound);
  for (auto& x : v) x = rng();
  return v;
}

std::vector<std::pair<std::string, std::int64_t>> word_records() {
  std::mt19937_64 rng(42);
  std::vector<std::pair<std::string, std::int64_t>> v;
  v.reserve(kRecordsPerRound);
  for (std::size_t i = 0; i < kRecordsPerRound; ++i) {
    std::string word(3 + rng() % 10, 'a');
    for (auto& c : word) c = static_cast<char>('a' + rng() % 26);
    v.emplace_back(std::move(word), static_cast<std::int64_t>(rng() % 1000));
  }
  return v;
}

template <class D, class Route>
void exchange_bench(benchmark::State& state, const std::vector<D>& records, Route route) {
  const auto targets = static_cast<std::size_t>(state.range(0));
  std::vector<std::unique_ptr<MessagePush<D>>> sinks;
  std::vector<CountingSink<std::vector<D>>*> counts;
  for (std::size_t i = 0; i < targets; ++i) {
    auto sink = std::make_unique<CountingSink<std::vector<D>>>();
    counts.push_back(sink.get());
    sinks.push_back(std::move(sink));
  }
  timely::dataflow::detail::ExchangePusher<Time, std::vector<D>, Route> pusher(std::move(sinks),
                                                                               std::move(route));
  const std::size_t capacity = timely::container::default_capacity<D>();

  for (auto _ : state) {
    for (std::size_t at = 0; at < records.size(); at += capacity) {
      const std::size_t end = std::min(records.size(), at + capacity);
      std::optional<Message<D>> slot(std::in_place);
      slot->data.assign(records.begin() + static_cast<std::ptrdiff_t>(at),
                        records.begin() + static_cast<std::ptrdiff_t>(end));
      pusher.push(slot);
    }
    pusher.done();
    benchmark::ClobberMemory();
  }

  std::size_t received = 0;
  std::size_t batches = 0;
  for (const auto* c : counts) {
    received += c->records;
    batches += c->batches;
  }
  const auto pushed = static_cast<std::size_t>(state.iterations()) * records.size();
  if (received != pushed) state.SkipWithError("the targets did not receive every record once");
  state.SetItemsProcessed(static_cast<std::int64_t>(pushed));
  state.counters["batches"] =
      benchmark::Counter(static_cast<double>(batches), benchmark::Counter::kAvgIterations);
}

void BM_Exchange_U64(benchmark::State& state) {
  exchange_bench(state, u64_records(), [](const std::uint64_t& x) { return x; });
}

void BM_Exchange_StringI64(benchmark::State& state) {
  using timely::dataflow::operators::detail::BoostKeyHash;
  using timely::dataflow::operators::detail::exchange_by_key;
  exchange_bench(state, word_records(), exchange_by_key<std::string, std::int64_t>(BoostKeyHash{}).route);
}

void BM_Exchange_Columnar(benchmark::State& state) {
  namespace col = timely::container::columnar;
  using Batch = col::Batch<std::pair<std::uint64_t, std::string>>;
  using Ref = Batch::Ref;
  const auto targets = static_cast<std::size_t>(state.range(0));
  constexpr std::string_view letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::mt19937_64 rng(42);
  Batch prepared;
  while (!prepared.at_capacity()) prepared.push_into(Ref{rng(), letters.substr(rng() % 32, 5 + rng() % 11)});
  auto route = [](const Ref& r) { return std::get<0>(r); };
  std::vector<std::unique_ptr<timely::dataflow::MessagePush<Time, Batch>>> sinks;
  std::vector<CountingSink<Batch>*> counts;
  for (std::size_t i = 0; i < targets; ++i) {
    auto sink = std::make_unique<CountingSink<Batch>>();
    counts.push_back(sink.get());
    sinks.push_back(std::move(sink));
  }
  timely::dataflow::detail::ExchangePusher<Time, Batch, decltype(route)> pusher(std::move(sinks), route);
  for (auto _ : state) {
    std::optional<timely::dataflow::Message<Time, Batch>> slot(std::in_place);
    slot->data = prepared;
    pusher.push(slot);
    pusher.done();
    benchmark::ClobberMemory();
  }
  std::size_t received = 0;
  for (const auto* c : counts) received += c->records;
  const auto pushed = static_cast<std::size_t>(state.iterations()) * prepared.size();
  if (received != pushed) state.SkipWithError("the targets did not receive every record once");
  state.SetItemsProcessed(static_cast<std::int64_t>(pushed));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(prepared.byte_size()));
}

BENCHMARK(BM_Exchange_U64)->ArgName("targets")->Arg(1)->Arg(2)->Arg(4)->Arg(16);
BENCHMARK(BM_Exchange_StringI64)->ArgName("targets")->Arg(1)->Arg(2)->Arg(4)->Arg(16);
BENCHMARK(BM_Exchange_Columnar)
    ->ArgName("targets")
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Arg(16)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
