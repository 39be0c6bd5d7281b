/// \file
/// The built-in codecs (the table in codec.hpp's file comment): integers, `bool`, floating
/// point, scoped enums, trivially copyable types as their object bytes, `std::string`,
/// `std::vector`, `SmallVector`, `std::array`, `std::pair`, `std::tuple`, `std::optional`,
/// `std::variant`, `std::monostate`, `std::chrono::duration`, and aggregates field by field
/// (Boost.PFR). Include codec.hpp rather than this file.
///
/// Only Boost.PFR's core and Boost.Container's forward declarations are parsed here: a
/// `SmallVector` that is encoded is complete wherever it is encoded.
///
/// Source of the idea: serde's implementations for std types (SEMANTICS.md §9.2).
/// Thread-safety: codecs are pure functions of their arguments.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <ratio>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/container/container_fwd.hpp>
#include <boost/pfr/core.hpp>

#include <timely/communication/codec_core.hpp>

namespace timely::communication {

namespace detail {

template <class X>
struct IsStdTemplate : std::false_type {};
template <class A, class B>
struct IsStdTemplate<std::pair<A, B>> : std::true_type {};
template <class... X>
struct IsStdTemplate<std::tuple<X...>> : std::true_type {};
template <class X, std::size_t N>
struct IsStdTemplate<std::array<X, N>> : std::true_type {};
template <class X>
struct IsStdTemplate<std::optional<X>> : std::true_type {};
template <class... X>
struct IsStdTemplate<std::variant<X...>> : std::true_type {};
template <class R, class P>
struct IsStdTemplate<std::chrono::duration<R, P>> : std::true_type {};

template <class X>
concept Unqualified = std::is_same_v<X, std::remove_cv_t<X>> && !std::is_reference_v<X>;

template <class X>
concept CodecInteger = std::integral<X> && Unqualified<X>;

template <class X>
concept CodecFloat = std::is_same_v<X, float> || std::is_same_v<X, double>;

template <class X>
concept ScopedEnum =
    std::is_enum_v<X> && Unqualified<X> && !std::is_convertible_v<X, std::underlying_type_t<X>>;

/// Trivially copyable types without a codec of their own: encoded as their object bytes.
template <class X>
concept RawCodable =
    std::is_trivially_copyable_v<X> && std::is_default_constructible_v<X> && Unqualified<X> &&
    !std::is_integral_v<X> &&
    !CodecFloat<X> && !std::is_enum_v<X> && !std::is_pointer_v<X> && !std::is_member_pointer_v<X> &&
    !std::is_null_pointer_v<X> && !std::is_array_v<X> && !IsStdTemplate<X>::value;

template <class X, std::size_t I>
using PfrField = std::remove_cv_t<boost::pfr::tuple_element_t<I, X>>;

template <class X>
consteval bool pfr_fields_encodable() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (true && ... && Encodable<PfrField<X, I>>);
  }
  (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
}

/// Aggregates (not trivially copyable, so no object-bytes codec) whose fields all have codecs.
template <class X>
concept PfrCodable = std::is_class_v<X> && std::is_aggregate_v<X> && Unqualified<X> && !std::is_union_v<X> &&
                     !RawCodable<X> && !IsStdTemplate<X>::value && pfr_fields_encodable<X>();

template <class... X>
std::string join_names() {
  std::string out;
  bool first = true;
  ((out += (first ? "" : ","), out += Codec<X>::name(), first = false), ...);
  return out;
}

/// Encodes the elements of a contiguous sequence of `n` values (no count).
template <class X>
void encode_elements(Encoder& e, const X* data, std::size_t n) {
  if constexpr (BulkCopyable<X> && little_endian) {
    e.put_bytes(data, n * sizeof(X));
  } else {
    for (std::size_t i = 0; i < n; ++i) e.put(data[i]);
  }
}

/// Decodes `n` elements into `data` (which holds `n` values to overwrite). For bulk types, the
/// caller has checked that `n * sizeof(X)` bytes can be present (a checked count).
template <class X>
void decode_elements(Decoder& d, X* data, std::size_t n, const char* what) {
  if constexpr (BulkCopyable<X> && little_endian) {
    auto bytes = d.get_bytes(n * sizeof(X), what);
    if (n != 0) std::memcpy(static_cast<void*>(data), bytes.data(), bytes.size());
  } else {
    for (std::size_t i = 0; i < n; ++i) data[i] = d.get<X>();
  }
}

/// Decodes `n` (checked) elements onto the end of `out` (a vector-like container).
template <class X, class Seq>
void decode_sequence(Decoder& d, Seq& out, std::size_t n, const char* what) {
  if constexpr (BulkCopyable<X> && little_endian) {
    out.resize(n);
    decode_elements<X>(d, out.data(), n, what);
  } else {
    if constexpr (codec_min_size<X>() > 0) out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(d.get<X>());
  }
}

}  // namespace detail

/// Integers (and `bool`, checked 0 or 1).
template <detail::CodecInteger X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, X x) { e.put_int(x); }
  static X decode(Decoder& d) { return d.get_int<X>(name_cstr()); }
  static std::string name() { return name_cstr(); }

 private:
  static const char* name_cstr() {
    if constexpr (std::is_same_v<X, bool>)
      return "bool";
    else if constexpr (std::is_same_v<X, char>)
      return "char";
    else if constexpr (sizeof(X) == 1)
      return std::is_signed_v<X> ? "i8" : "u8";
    else if constexpr (sizeof(X) == 2)
      return std::is_signed_v<X> ? "i16" : "u16";
    else if constexpr (sizeof(X) == 4)
      return std::is_signed_v<X> ? "i32" : "u32";
    else if constexpr (sizeof(X) == 8)
      return std::is_signed_v<X> ? "i64" : "u64";
    else
      return std::is_signed_v<X> ? "i128" : "u128";
  }
};

/// `float` and `double`: their IEEE-754 bits.
template <detail::CodecFloat X>
struct Codec<X, void> {
  using Bits = std::conditional_t<sizeof(X) == 4, std::uint32_t, std::uint64_t>;
  static_assert(sizeof(X) == sizeof(Bits) && std::numeric_limits<X>::is_iec559,
                "timely codec: float and double must be IEEE-754 binary32 and binary64");
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, X x) { e.put_int(std::bit_cast<Bits>(x)); }
  static X decode(Decoder& d) { return std::bit_cast<X>(d.get_int<Bits>(sizeof(X) == 4 ? "f32" : "f64")); }
  static std::string name() { return sizeof(X) == 4 ? "f32" : "f64"; }
};

/// Scoped enums: their underlying integer (every value of it is a valid enum value).
template <detail::ScopedEnum X>
struct Codec<X, void> {
  using U = std::underlying_type_t<X>;
  static constexpr std::size_t min_size = sizeof(U);
  static void encode(Encoder& e, X x) { e.put_int(static_cast<U>(x)); }
  static X decode(Decoder& d) { return static_cast<X>(Codec<U>::decode(d)); }
  static std::string name() { return "enum:" + Codec<U>::name(); }
};

/// Other trivially copyable types: their object bytes (see the caveats in the file comment).
template <detail::RawCodable X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, const X& x) {
    if constexpr (std::is_empty_v<X>)
      (void)e.grow(sizeof(X));  // zeros: an empty object's byte has no value to copy
    else
      e.put_bytes(&x, sizeof(X));
  }
  static X decode(Decoder& d) {
    X x;
    auto bytes = d.get_bytes(sizeof(X), "a trivially copyable value");
    std::memcpy(static_cast<void*>(&x), bytes.data(), sizeof(X));
    return x;
  }
  static std::string name() { return "raw" + std::to_string(sizeof(X)); }
};

/// Aggregates that are not trivially copyable, field by field (Boost.PFR).
template <detail::PfrCodable X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + codec_min_size<detail::PfrField<X, I>>());
  }
  (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});

  static void encode(Encoder& e, const X& x) {
    boost::pfr::for_each_field(x, [&](const auto& field) { e.put(field); });
  }
  static X decode(Decoder& d) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return X{d.get<detail::PfrField<X, I>>()...};  // braced: left to right
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
  }
  static std::string name() {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return "{" + detail::join_names<detail::PfrField<X, I>...>() + "}";
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
  }
};

/// `std::monostate` (the empty alternative of a variant): nothing.
template <>
struct Codec<std::monostate, void> {
  static constexpr std::size_t min_size = 0;
  static void encode(Encoder&, std::monostate) {}
  static std::monostate decode(Decoder&) { return {}; }
  static std::string name() { return "monostate"; }
};

/// `std::string`: u64 length, then the bytes.
template <>
struct Codec<std::string, void> {
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const std::string& s) {
    const std::uint64_t len = detail::to_le(static_cast<std::uint64_t>(s.size()));
    std::uint8_t* p = e.grow(8 + s.size());  // one growth for length and bytes
    std::memcpy(p, &len, 8);
    if (!s.empty()) std::memcpy(p + 8, s.data(), s.size());
  }
  static std::string decode(Decoder& d) {
    const std::size_t n = d.get_count(1, "string length");
    auto bytes = d.get_bytes(n, "string bytes");
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  static std::string name() { return "string"; }
};

/// `std::vector<X>`: u64 count, then the elements (one block for numbers).
template <Encodable X, class Alloc>
struct Codec<std::vector<X, Alloc>, void> {
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const std::vector<X, Alloc>& v) {
    e.put_u64(v.size());
    if constexpr (std::is_same_v<X, bool>) {
      for (bool b : v) e.put_int(b);
    } else {
      detail::encode_elements(e, v.data(), v.size());
    }
  }
  static std::vector<X, Alloc> decode(Decoder& d) {
    const std::size_t n = d.get_count(codec_min_size<X>(), "count of vec elements");
    std::vector<X, Alloc> v;
    detail::decode_sequence<X>(d, v, n, "vec elements");
    return v;
  }
  static std::string name() { return "vec<" + Codec<X>::name() + ">"; }
};

/// `container::SmallVector<X, N>` (Boost's `small_vector`): as `std::vector<X>`.
template <Encodable X, std::size_t N, class Alloc, class Options>
struct Codec<boost::container::small_vector<X, N, Alloc, Options>, void> {
  using V = boost::container::small_vector<X, N, Alloc, Options>;
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const V& v) {
    e.put_u64(v.size());
    detail::encode_elements(e, v.data(), v.size());
  }
  static V decode(Decoder& d) {
    const std::size_t n = d.get_count(codec_min_size<X>(), "count of vec elements");
    V v;
    detail::decode_sequence<X>(d, v, n, "vec elements");
    return v;
  }
  static std::string name() { return "vec<" + Codec<X>::name() + ">"; }
};

/// `std::array<X, N>`: the N elements (no count).
template <Encodable X, std::size_t N>
struct Codec<std::array<X, N>, void> {
  static constexpr std::size_t min_size = N * codec_min_size<X>();
  static void encode(Encoder& e, const std::array<X, N>& a) { detail::encode_elements(e, a.data(), N); }
  static std::array<X, N> decode(Decoder& d) {
    if constexpr (std::is_default_constructible_v<X>) {
      std::array<X, N> a{};
      detail::decode_elements<X>(d, a.data(), N, "array elements");
      return a;
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<X, N>{((void)I, d.get<X>())...};  // braced: left to right
      }
      (std::make_index_sequence<N>{});
    }
  }
  static std::string name() { return "array<" + Codec<X>::name() + "," + std::to_string(N) + ">"; }
};

/// `std::pair<A, B>`: first, then second.
template <Encodable A, Encodable B>
struct Codec<std::pair<A, B>, void> {
  static constexpr std::size_t min_size = codec_min_size<A>() + codec_min_size<B>();
  static void encode(Encoder& e, const std::pair<A, B>& p) {
    e.put(p.first);
    e.put(p.second);
  }
  static std::pair<A, B> decode(Decoder& d) {
    A a = d.get<A>();
    B b = d.get<B>();
    return {std::move(a), std::move(b)};
  }
  static std::string name() { return "pair<" + Codec<A>::name() + "," + Codec<B>::name() + ">"; }
};

/// `std::tuple<X...>`: the fields in order.
template <Encodable... X>
struct Codec<std::tuple<X...>, void> {
  static constexpr std::size_t min_size = (std::size_t{0} + ... + codec_min_size<X>());
  static void encode(Encoder& e, const std::tuple<X...>& t) {
    std::apply([&](const auto&... field) { (e.put(field), ...); }, t);
  }
  static std::tuple<X...> decode(Decoder& d) {
    return std::tuple<X...>{d.get<X>()...};  // braced: left to right
  }
  static std::string name() { return "tuple<" + detail::join_names<X...>() + ">"; }
};

/// `std::optional<X>`: u8 0 for empty, or u8 1 and the value.
template <Encodable X>
struct Codec<std::optional<X>, void> {
  static constexpr std::size_t min_size = 1;
  static void encode(Encoder& e, const std::optional<X>& o) {
    e.put_u8(o.has_value() ? 1 : 0);
    if (o) e.put(*o);
  }
  static std::optional<X> decode(Decoder& d) {
    const std::uint64_t at = d.offset();
    const std::uint8_t tag = d.get_int<std::uint8_t>("optional tag");
    if (tag == 0) return std::nullopt;
    if (tag != 1) Decoder::fail_at(at, "optional tag", "must be 0 or 1, found " + std::to_string(tag));
    return std::optional<X>(d.get<X>());
  }
  static std::string name() { return "optional<" + Codec<X>::name() + ">"; }
};

/// `std::variant<X...>`: u32 index of the alternative (checked), then its value. A variant that
/// is valueless by exception cannot be encoded (throws `std::bad_variant_access`).
template <Encodable... X>
requires(sizeof...(X) > 0) struct Codec<std::variant<X...>, void> {
  using V = std::variant<X...>;
  static constexpr std::size_t min_size = 4 + std::min({codec_min_size<X>()...});
  static void encode(Encoder& e, const V& v) {
    if (v.valueless_by_exception()) throw std::bad_variant_access();
    e.put_u32(static_cast<std::uint32_t>(v.index()));
    std::visit([&](const auto& alt) { e.put(alt); }, v);
  }
  static V decode(Decoder& d) {
    const std::uint64_t at = d.offset();
    const std::uint32_t index = d.get_int<std::uint32_t>("variant index");
    if (index >= sizeof...(X))
      Decoder::fail_at(at, "variant index",
                       "alternative " + std::to_string(index) + " of a variant with " +
                           std::to_string(sizeof...(X)) + " alternatives");
    return decode_at(d, index, std::index_sequence_for<X...>{});
  }
  static std::string name() { return "variant<" + detail::join_names<X...>() + ">"; }

 private:
  template <std::size_t... I>
  static V decode_at(Decoder& d, std::uint32_t index, std::index_sequence<I...>) {
    std::optional<V> out;
    static_cast<void>(
        ((index == I ? (out.emplace(std::in_place_index<I>, d.get<std::variant_alternative_t<I, V>>()), true)
                     : false) ||
         ...));
    return std::move(*out);
  }
};

/// `std::chrono::duration<Rep, Period>`: its count, as a `Rep`.
template <Encodable Rep, class Period>
struct Codec<std::chrono::duration<Rep, Period>, void> {
  using D = std::chrono::duration<Rep, Period>;
  static constexpr std::size_t min_size = codec_min_size<Rep>();
  static void encode(Encoder& e, const D& x) { e.put(x.count()); }
  static D decode(Decoder& d) { return D(d.get<Rep>()); }
  static std::string name() {
    return "duration<" + Codec<Rep>::name() + "," + std::to_string(Period::num) + "/" +
           std::to_string(Period::den) + ">";
  }
};

}  // namespace timely::communication
