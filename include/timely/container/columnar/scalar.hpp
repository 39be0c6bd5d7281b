/// \file
/// Columns of fixed-width values: integers, `float`, `double` and enums (one buffer of the
/// values, enums as their underlying integer) and `bool` (one buffer of bytes, each 0 or 1).
/// Part of the columnar container family (timely/container/columnar.hpp; the column protocol is
/// in kinds.hpp). Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <timely/container/columnar/kinds.hpp>
#include <timely/container/columnar/layout.hpp>
#include <timely/container/columnar/storage.hpp>

namespace timely::container::columnar::detail {

/// "u64", "i8", "f32", "enum:u16", ...
template <class T>
std::string scalar_name() {
  if constexpr (std::is_enum_v<T>) {
    return "enum:" + scalar_name<std::underlying_type_t<T>>();
  } else if constexpr (std::is_floating_point_v<T>) {
    return "f" + std::to_string(8 * sizeof(T));
  } else {
    return (std::is_signed_v<T> ? "i" : "u") + std::to_string(8 * sizeof(T));
  }
}

/// Integers, floating point and enums: one buffer of the values in host order. Every bit
/// pattern is accepted (an enum may hold any value of its underlying type).
template <class T>
struct Col<T, Kind::scalar> {
  using Ref = T;
  static constexpr std::size_t buffers = 1;

  struct View {
    const unsigned char* data = nullptr;
    std::size_t len = 0;
    [[nodiscard]] Ref get(std::size_t i) const noexcept { return load<T>(data, i); }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept {
      static constexpr unsigned char zero[sizeof(T)] = {};
      return std::memcmp(data + i * sizeof(T), zero, sizeof(T)) == 0;
    }
    void collect(Bytes*& out) const noexcept { *out++ = Bytes{data, len * sizeof(T)}; }
    [[nodiscard]] std::size_t padded_bytes() const noexcept { return pad8(len * sizeof(T)); }
  };

  struct Owned {
    Storage<T> values;
    void push(const T& v) { values.push_back(v); }
    void push_ref(const Ref& v) { values.push_back(v); }
    void push_default() { values.push_back(T{}); }
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      T* out = values.append_uninitialized(n);
      for (std::size_t k = 0; k < n; ++k) out[k] = src.get(index[k]);
    }
    void clear() noexcept { values.clear(); }
    void expect_bytes(const std::size_t*& sizes) noexcept { values.expect(*sizes++ / sizeof(values[0])); }
    void truncate(std::size_t len) noexcept { values.truncate(len); }
    [[nodiscard]] View view() const noexcept {
      return View{reinterpret_cast<const unsigned char*>(values.data()), values.size()};
    }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    const Buffer b = p.next();
    expect_values(b, len, sizeof(T), path, "values");
    return View{b.data, len};
  }
  static T to_owned(const Ref& r) { return r; }
  static bool equal(const Ref& a, const Ref& b) noexcept { return a == b; }
  static std::string name() { return scalar_name<T>(); }
  static void names(const Path& path, std::vector<std::string>& out) { out.push_back(path.render("values")); }
};

/// `bool`: one byte per item, 0 or 1 (anything else is rejected when read).
template <>
struct Col<bool, Kind::boolean> {
  using Ref = bool;
  static constexpr std::size_t buffers = 1;

  struct View {
    const unsigned char* data = nullptr;
    std::size_t len = 0;
    [[nodiscard]] Ref get(std::size_t i) const noexcept { return data[i] != 0; }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept { return data[i] == 0; }
    void collect(Bytes*& out) const noexcept { *out++ = Bytes{data, len}; }
    [[nodiscard]] std::size_t padded_bytes() const noexcept { return pad8(len); }
  };

  struct Owned {
    Storage<unsigned char> values;
    void push(const bool& v) { values.push_back(v ? 1 : 0); }
    void push_ref(const bool& v) { push(v); }
    void push_default() { values.push_back(0); }
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      unsigned char* out = values.append_uninitialized(n);
      for (std::size_t k = 0; k < n; ++k) out[k] = src.data[index[k]];
    }
    void clear() noexcept { values.clear(); }
    void expect_bytes(const std::size_t*& sizes) noexcept { values.expect(*sizes++ / sizeof(values[0])); }
    void truncate(std::size_t len) noexcept { values.truncate(len); }
    [[nodiscard]] View view() const noexcept { return View{values.data(), values.size()}; }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    const Buffer b = p.next();
    check_flags(b, len, path, "values");
    return View{b.data, len};
  }
  static bool to_owned(const Ref& r) { return r; }
  static bool equal(const Ref& a, const Ref& b) noexcept { return a == b; }
  static std::string name() { return "bool"; }
  static void names(const Path& path, std::vector<std::string>& out) { out.push_back(path.render("values")); }
};

}  // namespace timely::container::columnar::detail
