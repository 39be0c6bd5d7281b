// The input layout of fuzz_durable (tests/fuzz/fuzz_durable.cpp), shared with the seed writer
// (durable_seeds.cpp): which files of a partition the input becomes.
//
//   byte 0     flags: bit 0: the files are a sealed segment followed by an active one holding
//              one valid batch (else the files are the partition's only, active, segment);
//              bit 1: the index files are left out
//   bytes 1-2  u16 little-endian: the length of the .index file's bytes
//   bytes 3-4  u16 little-endian: the length of the .timeindex file's bytes
//   then       the .index bytes, the .timeindex bytes, and the rest: the segment file (.log)
//
// Lengths past the end of the input are cut to what there is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace durable_fuzz {

inline constexpr std::uint8_t kSealedThenActive = 1;
inline constexpr std::uint8_t kNoIndexes = 2;

struct Files {
  std::uint8_t flags = 0;
  std::vector<std::byte> index;
  std::vector<std::byte> timeindex;
  std::vector<std::byte> log;
};

inline Files split(std::span<const std::byte> in) {
  Files f;
  if (in.size() < 5) {
    f.log.assign(in.begin(), in.end());
    return f;
  }
  f.flags = static_cast<std::uint8_t>(in[0]);
  std::size_t a = static_cast<std::size_t>(in[1]) | static_cast<std::size_t>(in[2]) << 8;
  std::size_t b = static_cast<std::size_t>(in[3]) | static_cast<std::size_t>(in[4]) << 8;
  in = in.subspan(5);
  a = a < in.size() ? a : in.size();
  f.index.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(a));
  in = in.subspan(a);
  b = b < in.size() ? b : in.size();
  f.timeindex.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(b));
  in = in.subspan(b);
  f.log.assign(in.begin(), in.end());
  return f;
}

inline std::vector<std::byte> join(const Files& f) {
  std::vector<std::byte> out;
  out.push_back(static_cast<std::byte>(f.flags));
  for (std::size_t n : {f.index.size(), f.timeindex.size()}) {
    out.push_back(static_cast<std::byte>(n & 0xff));
    out.push_back(static_cast<std::byte>(n >> 8));
  }
  out.insert(out.end(), f.index.begin(), f.index.end());
  out.insert(out.end(), f.timeindex.begin(), f.timeindex.end());
  out.insert(out.end(), f.log.begin(), f.log.end());
  return out;
}

}  // namespace durable_fuzz
