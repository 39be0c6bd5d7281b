// Types and helpers shared by the columnar tests: record types of every kind, and serializing a
// batch into an 8-byte aligned buffer that a shared owner keeps alive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>

namespace columnar_test {

namespace col = timely::container::columnar;

enum class Color : std::uint16_t { red = 1, green = 2, blue = 0xFFFF };
enum Plain { plain_a, plain_b = 7 };  // unscoped

struct Point {
  double x;
  std::int32_t y;
  bool operator==(const Point&) const = default;
};

struct Rec {
  std::uint32_t id;
  std::string name;
  std::optional<std::vector<Point>> path;
  Color color;
  Plain plain;
  bool flag;
  std::vector<std::uint8_t> blob;
  bool operator==(const Rec&) const = default;
};

/// Serialized bytes held by a shared owner, 8-byte aligned (the owner is a vector of u64).
struct Owned {
  std::shared_ptr<std::vector<std::uint64_t>> words;
  std::size_t size = 0;
  [[nodiscard]] std::span<const std::uint8_t> bytes() const {
    return {reinterpret_cast<const std::uint8_t*>(words->data()), size};
  }
};

template <class T>
std::vector<std::uint8_t> serialize(const col::Batch<T>& batch) {
  std::vector<std::uint8_t> out;
  batch.append_to(out);
  return out;
}

inline Owned own(const std::vector<std::uint8_t>& bytes) {
  Owned o{std::make_shared<std::vector<std::uint64_t>>((bytes.size() + 7) / 8 + 1), bytes.size()};
  if (!bytes.empty()) std::memcpy(o.words->data(), bytes.data(), bytes.size());
  return o;
}

template <class T>
col::Batch<T> batch_of(const std::vector<T>& items) {
  col::Batch<T> b;
  for (const auto& x : items) b.push_into(x);
  return b;
}

/// The record type of the fuzz target and the validation tests.
using Triple = std::tuple<std::uint64_t, std::string, std::optional<std::vector<std::uint32_t>>>;

}  // namespace columnar_test
