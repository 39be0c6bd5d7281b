// Micro-benchmark: the frames of the cluster wire format (timely/communication/wire.hpp), written
// into and parsed out of slabs, and a whole frame's trip through the cluster allocator.
//
// What it measures, for payloads of 64 B to 1 MiB:
//   * `Write/payload`: frames written back to back into a reused 1 MiB slab (as many as fit, at
//     least one): `wire::encode_header`, the payload copied in, zero padding to `frame_size`.
//   * `Parse/payload`: the same slab walked as the receive thread does: `wire::parse_header`
//     (marker, kind, reserved bytes, source, target range and length checked against
//     `FrameLimits`) and a step of `frame_size(length)`; payloads are not read (the receiver
//     hands them on as views).
//   * `ZeroCopy/payload`: a one-process cluster allocator in the zerocopy mode (`-z`), where a
//     worker's messages to itself travel as frames: each iteration sends as many
//     `std::vector<uint8_t>` messages as fill 1 MiB of frames (their encoding is `payload`
//     bytes: a u64 count and the bytes), `release()`s them (the frame buffer goes to the
//     network, which parses it and queues a view per frame) and pulls and decodes every one.
//     This is the real path of a message between processes, minus the socket. The loop runs
//     on the worker thread `initialize` starts, so the CPU time is that thread's.
// Items processed = frames; bytes processed = payload bytes.
//
// Why: every message that leaves a process is framed once and parsed once; the per-frame cost
// decides how small messages can get before framing, not the wire, limits the rate.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

#include <benchmark/benchmark.h>

#include <timely/communication/initialize.hpp>
#include <timely/communication/wire.hpp>

namespace {

namespace wire = timely::communication::wire;

constexpr std::size_t kSlabBytes = std::size_t{1} << 20;

std::size_t frames_per_slab(std::size_t payload) {
  return std::max<std::size_t>(1, kSlabBytes / wire::frame_size(payload));
}

// The frame limits of a connection from process 1 to process 0, each with 4 workers.
constexpr wire::FrameLimits kLimits{4, 1, 0, 1u << 30};

// Writes `frames` data frames of `payload` into `slab` from offset 0; returns the bytes written.
std::size_t write_frames(std::vector<std::uint8_t>& slab, const std::vector<std::uint8_t>& payload,
                         std::size_t frames, std::uint64_t& seq) {
  const std::size_t size = wire::frame_size(payload.size());
  std::uint8_t* at = slab.data();
  for (std::size_t i = 0; i < frames; ++i) {
    wire::FrameHeader h;
    h.source = 4 + static_cast<std::uint32_t>(i % 4);
    h.target_lo = 0;
    h.target_hi = 1;
    h.length = static_cast<std::uint32_t>(payload.size());
    h.channel = 7;
    h.seq = seq++;
    wire::encode_header(h, at);
    std::memcpy(at + wire::header_size, payload.data(), payload.size());
    std::memset(at + wire::header_size + payload.size(), 0, size - wire::header_size - payload.size());
    at += size;
  }
  return frames * size;
}

std::vector<std::uint8_t> payload_bytes(std::size_t n) {
  std::vector<std::uint8_t> p(n);
  std::iota(p.begin(), p.end(), std::uint8_t{1});
  return p;
}

void BM_Wire_Write(benchmark::State& state) {
  const auto payload = payload_bytes(static_cast<std::size_t>(state.range(0)));
  const std::size_t frames = frames_per_slab(payload.size());
  std::vector<std::uint8_t> slab(frames * wire::frame_size(payload.size()));
  std::uint64_t seq = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(write_frames(slab, payload, frames, seq));
    benchmark::DoNotOptimize(slab.data());
    benchmark::ClobberMemory();
  }
  const auto total = static_cast<std::int64_t>(frames) * static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(total);
  state.SetBytesProcessed(total * static_cast<std::int64_t>(payload.size()));
}

void BM_Wire_Parse(benchmark::State& state) {
  const auto payload = payload_bytes(static_cast<std::size_t>(state.range(0)));
  const std::size_t frames = frames_per_slab(payload.size());
  std::vector<std::uint8_t> slab(frames * wire::frame_size(payload.size()));
  std::uint64_t seq = 0;
  const std::size_t bytes = write_frames(slab, payload, frames, seq);
  for (auto _ : state) {
    std::size_t at = 0;
    std::size_t parsed = 0;
    std::uint64_t length = 0;
    while (at < bytes) {
      const auto h = wire::parse_header({slab.data() + at, bytes - at}, kLimits, at);
      length += h.length;
      at += wire::frame_size(h.length);
      ++parsed;
    }
    benchmark::DoNotOptimize(length);
    if (parsed != frames) state.SkipWithError("parsed a different number of frames than were written");
  }
  const auto total = static_cast<std::int64_t>(frames) * static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(total);
  state.SetBytesProcessed(total * static_cast<std::int64_t>(payload.size()));
}

void BM_Wire_ZeroCopy(benchmark::State& state) {
  using Bytes = std::vector<std::uint8_t>;
  const auto payload = static_cast<std::size_t>(state.range(0));
  const Bytes message = payload_bytes(payload - 8);  // the codec adds a u64 count
  const std::size_t frames = frames_per_slab(payload);

  timely::communication::Config config;
  config.workers = 1;
  config.cluster.zerocopy = true;
  std::size_t received = 0;
  timely::communication::initialize(config, [&](timely::communication::Allocator& alloc) {
    auto [pushers, puller] = alloc.allocate<Bytes>(0);
    auto& to_self = *pushers.at(0);
    for (auto _ : state) {
      for (std::size_t i = 0; i < frames; ++i) to_self.send(message);
      alloc.release();
      std::size_t got = 0;
      for (int attempts = 0; got < frames && attempts < 1000; ++attempts) {
        alloc.receive();
        while (auto& slot = puller->pull()) {
          if (slot->size() != message.size()) state.SkipWithError("a message decoded to the wrong size");
          benchmark::DoNotOptimize(slot->data());
          slot.reset();
          ++got;
        }
      }
      alloc.events().clear();
      received += got;
      if (got != frames) {
        state.SkipWithError("not every frame sent came back");
        break;
      }
    }
  });
  const auto total = static_cast<std::int64_t>(received);
  state.SetItemsProcessed(total);
  state.SetBytesProcessed(total * static_cast<std::int64_t>(payload));
}

void payload_sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("payload")->Arg(64)->Arg(512)->Arg(4096)->Arg(65536)->Arg(1 << 20);
}

BENCHMARK(BM_Wire_Write)->Apply(payload_sizes);
BENCHMARK(BM_Wire_Parse)->Apply(payload_sizes);
BENCHMARK(BM_Wire_ZeroCopy)->Apply(payload_sizes);

}  // namespace
