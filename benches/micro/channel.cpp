// Micro-benchmark: record throughput of the in-process channels of the communication layer.
//
// What it measures:
//   * `CrossThread/burst`: worker 0 (the benchmark thread) pushes `std::vector<uint64_t>` batches
//     of 1024 records into a process channel made by `Allocator::allocate<T>`, addressed to
//     worker 1, whose own thread pulls them, sums them, and parks when idle (woken by the
//     channel's mailbox buzz). Each round pushes `burst` batches, flushes with `done()`, and waits
//     until the consumer has pulled all of them, so every round is measured end to end.
//     burst=1 is dominated by the hand-off latency (wake-up of a parked consumer);
//     burst=64 shows streaming throughput.
//   * `Pipeline/burst`: the same rounds through a same-thread `pipeline<T>` queue, pushed then
//     pulled by one thread: the floor set by building, moving and reading the batches themselves.
// Every pushed batch is freshly built (as an operator's output buffer would be), in both cases.
// Items processed = records (uint64 values); bytes processed = records * 8.
//
// Allocator note: a burst of 64 batches is 512 KiB of heap. With glibc's default trim threshold,
// freeing a burst that happens to sit at the top of the heap hands the memory back to the kernel
// and the next burst page-faults it in again; whether that happens depends on the heap layout
// left by earlier code, and flips the burst=64 results by ~6x between otherwise identical runs.
// The benchmarks therefore raise the trim threshold (glibc only) so they measure the channel,
// not that allocator effect.
//
// Why: the exchange and broadcast channels between workers of one process go through these
// queues; the cost per batch (lock, mailbox notification, wake-up) decides how small batches can
// get before communication dominates.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <benchmark/benchmark.h>

#include <timely/communication/allocator.hpp>

namespace {

using timely::communication::Allocator;
using timely::communication::ProcessShared;
using Batch = std::vector<std::uint64_t>;

constexpr std::size_t kRecordsPerBatch = 1024;

// Keeps freed bursts in the process heap (see the allocator note above). Idempotent.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}

Batch make_batch(std::uint64_t seed) {
  Batch b(kRecordsPerBatch);
  std::iota(b.begin(), b.end(), seed);
  return b;
}

void BM_Channel_CrossThread(benchmark::State& state) {
  keep_freed_memory();
  const auto burst = static_cast<std::size_t>(state.range(0));

  auto shared = std::make_shared<ProcessShared>(2);
  Allocator sender(0, shared);
  Allocator receiver(1, shared);
  // Both workers allocate channel 0 (the rendezvous completes on the second call).
  auto [pushers, unused_puller] = sender.allocate<Batch>(0);
  auto [unused_pushers, puller] = receiver.allocate<Batch>(0);
  auto& to_worker_1 = *pushers.at(1);

  std::atomic<std::uint64_t> received{0};
  std::atomic<bool> stop{false};
  std::uint64_t checksum = 0;

  std::thread consumer([&, &pull = *puller] {
    std::uint64_t sum = 0;
    while (!stop.load(std::memory_order_acquire)) {
      bool got = false;
      while (auto& slot = pull.pull()) {
        const Batch batch = std::move(*slot);
        for (auto x : batch) sum += x;
        received.fetch_add(1, std::memory_order_release);
        got = true;
      }
      if (got) continue;
      // Nothing to pull: collect mailbox events; if none arrived since, park until buzzed.
      receiver.receive();
      if (!receiver.events().empty()) {
        receiver.events().clear();
        continue;
      }
      receiver.await_events(std::chrono::milliseconds(1));
      receiver.events().clear();
    }
    checksum = sum;
  });

  std::uint64_t sent = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < burst; ++i) to_worker_1.send(make_batch(sent + i));
    to_worker_1.done();
    sent += burst;
    while (received.load(std::memory_order_acquire) < sent) std::this_thread::yield();
  }

  stop.store(true, std::memory_order_release);
  shared->buzz(1);
  consumer.join();
  benchmark::DoNotOptimize(checksum);

  const auto records = static_cast<std::int64_t>(sent * kRecordsPerBatch);
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(records * static_cast<std::int64_t>(sizeof(std::uint64_t)));
}

void BM_Channel_Pipeline(benchmark::State& state) {
  keep_freed_memory();
  const auto burst = static_cast<std::size_t>(state.range(0));

  Allocator alloc = Allocator::thread();
  auto [push, pull] = alloc.pipeline<Batch>(0);

  std::uint64_t sent = 0;
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < burst; ++i) push->send(make_batch(sent + i));
    push->done();
    sent += burst;
    while (auto& slot = pull->pull()) {
      const Batch batch = std::move(*slot);
      for (auto x : batch) sum += x;
    }
    alloc.events().clear();  // the local pusher records one event per push
    benchmark::DoNotOptimize(sum);
  }

  const auto records = static_cast<std::int64_t>(sent * kRecordsPerBatch);
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(records * static_cast<std::int64_t>(sizeof(std::uint64_t)));
}

BENCHMARK(BM_Channel_CrossThread)->ArgName("burst")->Arg(1)->Arg(64)->UseRealTime();
BENCHMARK(BM_Channel_Pipeline)->ArgName("burst")->Arg(1)->Arg(64);

}  // namespace
