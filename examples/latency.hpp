// Open-loop latency measurement shared by loopdemo and openloop: records are offered at a fixed
// rate, each timestamped with the nanosecond it becomes available; the probe's frontier says
// which have been retired. Latencies go into a log-scale histogram, printed as
// "LATENCY_NS<TAB>FRACTION_SLOWER" lines by worker 0.
#pragma once

#include <array>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <timely/timely.hpp>

namespace examples {

/// Drives `input` at `rate` records per second for `seconds`, stepping `worker`, until every
/// record this worker offered has been retired according to `probe`; then prints the latency
/// distribution on worker 0.
inline void open_loop(timely::Worker& worker, timely::InputHandle<std::uint64_t, std::uint64_t>& input,
                      const timely::ProbeHandle<std::uint64_t>& probe, std::uint64_t rate,
                      std::uint64_t seconds) {
  const std::uint64_t index = worker.index(), peers = worker.peers();
  const std::uint64_t ns_per_request = 1'000'000'000 / rate;
  const std::uint64_t limit = rate * seconds;
  std::uint64_t inserted = index, retired = index, inserted_ns = 0;
  std::vector<std::array<std::uint64_t, 16>> counts(64, std::array<std::uint64_t, 16>{});
  const auto start = std::chrono::steady_clock::now();
  while (retired < limit) {
    const auto now_ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
            .count());
    const std::uint64_t acknowledged =
        probe.with_frontier([](const auto& f) { return f.empty() ? UINT64_MAX : f[0]; });
    while (retired * ns_per_request < acknowledged && retired < limit) {
      const std::uint64_t latency = now_ns - retired * ns_per_request;
      const unsigned bucket = static_cast<unsigned>(std::countr_zero(std::bit_ceil(latency | 32)));
      counts[bucket][(latency >> (bucket - 5)) & 0xF] += 1;
      retired += peers;
    }
    // Offer the records due by now, in batches whose size grows with the backlog.
    const std::uint64_t backlog = inserted_ns - std::min(inserted_ns, acknowledged);
    const std::uint64_t scale = std::max<std::uint64_t>(std::bit_ceil(backlog | 1) / 4, 1024);
    const std::uint64_t target = now_ns & ~(scale - 1);
    if (inserted_ns < target) {
      while (inserted * ns_per_request < target) {
        input.send(inserted);
        inserted += peers;
      }
      input.advance_to(target);
      inserted_ns = target;
    }
    worker.step();
  }
  if (index != 0) return;
  std::uint64_t total = 0, seen = 0;
  for (const auto& row : counts)
    for (auto c : row) total += c;
  std::vector<std::pair<std::uint64_t, double>> rows;
  for (std::size_t b = counts.size(); b-- > 10;)
    for (std::size_t s = 16; s-- > 0;) {
      if (seen > 0 && seen < total)
        rows.emplace_back((1ULL << (b - 1)) + (s << (b - 5)),
                          static_cast<double>(seen) / static_cast<double>(total));
      seen += counts[b][s];
    }
  for (auto it = rows.rbegin(); it != rows.rend(); ++it)
    std::printf("%llu\t%.6f\n", static_cast<unsigned long long>(it->first), it->second);
}

}  // namespace examples
