// The physical limit for `barrier` and `pingpong`: a bare thread-to-thread hand-off. Two threads
// pass a counter back and forth through one cache line (an atomic, spinning, no parking), ROUNDS
// round trips after 1000 untimed ones; one round trip is the least any two-worker coordination
// round can cost on this machine. The last line on stderr is the machine-readable timing line
// benches/run reads.
//   baseline_handoff ROUNDS
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace {

/// Untimed round trips first, so that the echo thread is running and the line is warm.
constexpr std::uint64_t kWarmup = 1000;

/// The shared counter, alone on its cache line.
struct alignas(64) Slot {
  std::atomic<std::uint64_t> value{0};
};

void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  const unsigned long long rounds = argc == 2 ? std::strtoull(argv[1], &end, 10) : 0;
  if (argc != 2 || end == argv[1] || *end != '\0' || rounds == 0) {
    std::fprintf(stderr, "usage: baseline_handoff ROUNDS (ROUNDS >= 1)\n");
    return 2;
  }
  // Odd values are pings (main to echo), even values the echo's answers.
  Slot slot;
  std::thread echo([&] {
    for (std::uint64_t i = 0; i < kWarmup + rounds; ++i) {
      const std::uint64_t ping = 2 * i + 1;
      while (slot.value.load(std::memory_order_acquire) != ping) spin_pause();
      slot.value.store(ping + 1, std::memory_order_release);
    }
  });
  auto round_trip = [&](std::uint64_t i) {
    const std::uint64_t ping = 2 * i + 1;
    slot.value.store(ping, std::memory_order_release);
    while (slot.value.load(std::memory_order_acquire) != ping + 1) spin_pause();
  };
  for (std::uint64_t i = 0; i < kWarmup; ++i) round_trip(i);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = kWarmup; i < kWarmup + rounds; ++i) round_trip(i);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  echo.join();
  const double us = seconds * 1e6 / static_cast<double>(rounds);
  std::printf("handoff: %llu round trips in %.3f s (%.3f us per round trip)\n", rounds, seconds, us);
  std::fprintf(stderr, "bench: seconds=%.6f rounds=%llu us_per_round=%.6f\n", seconds, rounds, us);
}
