// Little-endian loads and stores at positions of byte buffers, and the format's two-step
// checksum (private to src/durable). Byte by byte, so that they read unaligned and hostile
// buffers (the fuzz targets' inputs) without undefined behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

namespace timely::durable::detail {

inline void store_u16(std::byte* at, std::uint16_t v) noexcept {
  for (int i = 0; i < 2; ++i) at[i] = static_cast<std::byte>(v >> (8 * i));
}
inline void store_u32(std::byte* at, std::uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<std::byte>(v >> (8 * i));
}
inline void store_u64(std::byte* at, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<std::byte>(v >> (8 * i));
}
inline void store_i64(std::byte* at, std::int64_t v) noexcept {
  store_u64(at, static_cast<std::uint64_t>(v));
}

inline std::uint16_t load_u16(const std::byte* at) noexcept {
  return static_cast<std::uint16_t>(static_cast<unsigned>(at[0]) | static_cast<unsigned>(at[1]) << 8);
}
inline std::uint32_t load_u32(const std::byte* at) noexcept {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(at[i]) << (8 * i);
  return v;
}
inline std::uint64_t load_u64(const std::byte* at) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  return v;
}
inline std::int64_t load_i64(const std::byte* at) noexcept { return static_cast<std::int64_t>(load_u64(at)); }

/// The format's checksum of a structure whose checksum field lies at `field`: XXH3-64 of the
/// bytes after the field, seeded with XXH3-64 of the bytes before it.
std::uint64_t checksum_around(std::span<const std::byte> bytes, std::size_t field) noexcept;
/// XXH3-64 of `bytes`.
std::uint64_t checksum(std::span<const std::byte> bytes) noexcept;

/// Rounds up to a multiple of 8.
constexpr std::uint64_t round8(std::uint64_t n) noexcept { return (n + 7) & ~std::uint64_t{7}; }

}  // namespace timely::durable::detail
