// The physical limit for one-process `exchange`: memcpy. Each of ROUNDS rounds copies BATCH
// 8-byte records (what `exchange BATCH ROUNDS` sends per worker and round) from one buffer to
// another and reads one record of the copy, so the copy cannot be elided; prints the records/s
// one thread can move. The last line on stderr is the machine-readable timing line benches/run
// reads.
//   baseline_memcpy BATCH ROUNDS
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../parse_count.hpp"

using baseline::parse_count;

int main(int argc, char** argv) {
  unsigned long long batch = 0, rounds = 0;
  if (argc != 3 || !parse_count(argv[1], batch) || !parse_count(argv[2], rounds) || batch == 0) {
    std::fprintf(stderr, "usage: baseline_memcpy BATCH ROUNDS (BATCH >= 1)\n");
    return 2;
  }
  std::vector<std::uint64_t> from(batch), to(batch);
  for (std::uint64_t i = 0; i < batch; ++i) from[i] = i;
  std::uint64_t check = 0;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t r = 0; r < rounds; ++r) {
    from[r % batch] = r;
    std::memcpy(to.data(), from.data(), batch * sizeof(std::uint64_t));
    check += to[(r * 7919) % batch];
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double records = static_cast<double>(batch) * static_cast<double>(rounds);
  const double rate = seconds > 0 ? records / seconds : 0.0;
  std::printf("memcpy: %.0f records in %.6f s: %.3e records/s (check %llu)\n", records, seconds, rate,
              static_cast<unsigned long long>(check));
  std::fprintf(stderr, "bench: seconds=%.6f records=%.0f records_per_s=%.6e\n", seconds, records, rate);
}
