// Micro-benchmark: throughput of the serialization customization point
// (timely/communication/codec.hpp), which the cluster allocator uses for every message that
// leaves a process.
//
// What it measures, for vectors of `records` = 16, 1024 (the size of an exchange buffer of
// u64) and 65,536 records:
//   * `U64/records`: `std::vector<uint64_t>`: a u64 count and then one block copy on
//     little-endian hosts, so this is the floor: close to memcpy speed.
//   * `PairStringI64/records`: `std::vector<std::pair<std::string, int64_t>>` with words of 1 to
//     16 letters (wordcount's records): per record a u64 length, the bytes and an i64, so it
//     shows the per-field cost of `Encoder`/`Decoder`, the bounds checks included.
// Each comes in three shapes: `Encode` (into a reused buffer, cleared each round, as a send
// buffer is), `Decode` (from one encoded buffer into a fresh vector, as a receiver does), and
// `RoundTrip` (both). Items processed = records; bytes processed = encoded bytes (for
// `RoundTrip`, counted once per round).
//
// Why: serialization sits between every exchange and the network; its cost per byte decides
// whether the TCP allocator is bound by the wire or by the CPU.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/communication/codec.hpp>

namespace {

using timely::communication::Codec;
using timely::communication::Decoder;
using timely::communication::Encoder;

std::vector<std::uint64_t> u64_batch(std::size_t records) {
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> v(records);
  for (auto& x : v) x = rng();
  return v;
}

std::vector<std::pair<std::string, std::int64_t>> word_batch(std::size_t records) {
  std::mt19937_64 rng(42);
  std::vector<std::pair<std::string, std::int64_t>> v;
  v.reserve(records);
  for (std::size_t i = 0; i < records; ++i) {
    std::string word(1 + rng() % 16, 'a');
    for (auto& c : word) c = static_cast<char>('a' + rng() % 26);
    v.emplace_back(std::move(word), static_cast<std::int64_t>(rng() % 1000) - 500);
  }
  return v;
}

template <class X>
void encode_bench(benchmark::State& state, const X& batch) {
  std::vector<std::uint8_t> buf;
  for (auto _ : state) {
    buf.clear();
    Encoder e(buf);
    Codec<X>::encode(e, batch);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch.size()));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(buf.size()));
}

template <class X>
void decode_bench(benchmark::State& state, const X& batch) {
  std::vector<std::uint8_t> buf;
  Encoder e(buf);
  Codec<X>::encode(e, batch);
  for (auto _ : state) {
    Decoder d(std::span<const std::uint8_t>(buf), 0);
    X out = Codec<X>::decode(d);
    benchmark::DoNotOptimize(out.data());
    if (out.size() != batch.size()) state.SkipWithError("decoded the wrong number of records");
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch.size()));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(buf.size()));
}

template <class X>
void round_trip_bench(benchmark::State& state, const X& batch) {
  std::vector<std::uint8_t> buf;
  for (auto _ : state) {
    buf.clear();
    Encoder e(buf);
    e.put(batch);
    Decoder d(std::span<const std::uint8_t>(buf), 0);
    X out = d.get<X>();
    benchmark::DoNotOptimize(out.data());
    if (out.size() != batch.size()) state.SkipWithError("decoded the wrong number of records");
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch.size()));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(buf.size()));
}

std::size_t records(const benchmark::State& state) { return static_cast<std::size_t>(state.range(0)); }

void BM_Codec_U64_Encode(benchmark::State& state) { encode_bench(state, u64_batch(records(state))); }
void BM_Codec_U64_Decode(benchmark::State& state) { decode_bench(state, u64_batch(records(state))); }
void BM_Codec_U64_RoundTrip(benchmark::State& state) { round_trip_bench(state, u64_batch(records(state))); }
void BM_Codec_PairStringI64_Encode(benchmark::State& state) {
  encode_bench(state, word_batch(records(state)));
}
void BM_Codec_PairStringI64_Decode(benchmark::State& state) {
  decode_bench(state, word_batch(records(state)));
}
void BM_Codec_PairStringI64_RoundTrip(benchmark::State& state) {
  round_trip_bench(state, word_batch(records(state)));
}

void record_counts(benchmark::internal::Benchmark* b) {
  b->ArgName("records")->Arg(16)->Arg(1024)->Arg(65536);
}

}  // namespace

BENCHMARK(BM_Codec_U64_Encode)->Apply(record_counts);
BENCHMARK(BM_Codec_U64_Decode)->Apply(record_counts);
BENCHMARK(BM_Codec_U64_RoundTrip)->Apply(record_counts);
BENCHMARK(BM_Codec_PairStringI64_Encode)->Apply(record_counts);
BENCHMARK(BM_Codec_PairStringI64_Decode)->Apply(record_counts);
BENCHMARK(BM_Codec_PairStringI64_RoundTrip)->Apply(record_counts);
