// The COST baseline for `hashjoin KEYS VALUES BATCH -w W`: one thread, no timely. Generates the
// example's inputs exactly (worker w's generator is std::mt19937_64 seeded with w, drawing VALUES / W
// (key, value) pairs for each input, left then right, key before value), and joins them with the
// same symmetric hash join (per input a flat map from key to values; each record probes the other
// input's map, visits every match, then joins its own). Prints "hashjoin: N matches" as the
// example; batches change nothing about the answer, so BATCH is accepted and ignored. The last
// line on stderr is the machine-readable timing line benches/run reads.
//   baseline_hashjoin KEYS VALUES BATCH [--streams W]      (W: the example's worker count, default 1)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "../parse_count.hpp"

using baseline::parse_count;

int main(int argc, char** argv) {
  unsigned long long keys = 0, values = 0, batch = 0, streams = 1;
  const bool ok =
      (argc == 4 || (argc == 6 && std::strcmp(argv[4], "--streams") == 0 && parse_count(argv[5], streams))) &&
      parse_count(argv[1], keys) && parse_count(argv[2], values) && parse_count(argv[3], batch) && keys > 0 &&
      batch > 0 && streams > 0;
  if (!ok) {
    std::fprintf(stderr, "usage: baseline_hashjoin KEYS VALUES BATCH [--streams W] (KEYS, BATCH, W >= 1)\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  boost::unordered_flat_map<std::uint64_t, std::vector<std::uint64_t>> left, right;
  std::uint64_t matches = 0, checksum = 0;
  const std::uint64_t share = values / streams;
  for (std::uint64_t w = 0; w < streams; ++w) {
    std::mt19937_64 rng(w);
    std::uniform_int_distribution<std::uint64_t> pick(0, keys - 1);
    for (std::uint64_t i = 0; i < share; ++i) {
      const std::uint64_t k1 = pick(rng), v1 = pick(rng);
      const std::uint64_t k2 = pick(rng), v2 = pick(rng);
      if (auto it = right.find(k1); it != right.end()) {
        matches += it->second.size();
        for (const auto v : it->second) checksum += v1 ^ v;
      }
      left[k1].push_back(v1);
      if (auto it = left.find(k2); it != left.end()) {
        matches += it->second.size();
        for (const auto v : it->second) checksum += v ^ v2;
      }
      right[k2].push_back(v2);
    }
  }
  std::printf("hashjoin: %llu matches\n", static_cast<unsigned long long>(matches));
  std::fflush(stdout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "bench: seconds=%.6f matches=%llu checksum=%llu\n", seconds,
               static_cast<unsigned long long>(matches), static_cast<unsigned long long>(checksum));
}
