/// \file
/// Which types have a columnar layout, and how they are sorted into kinds: `Columnar<T>`, the
/// column template `detail::Col<T>` (specialized per kind in scalar.hpp, sequence.hpp and
/// product.hpp) and `RefOf<T>`, the borrowed type a batch of `T` yields.
///
/// Supported, nesting freely: integers of up to 64 bits (signed or not, `char` types included),
/// `float`, `double`, `bool`, enums (scoped or not: stored as their underlying integer),
/// `std::string`, byte vectors (`std::vector<std::uint8_t>`, `std::vector<std::byte>`),
/// `std::vector<T>`, `std::optional<T>`, `std::pair<A, B>`, `std::tuple<X...>`, and aggregates
/// (structs without constructors or base classes) through Boost.PFR. Not supported: cv- or
/// reference-qualified types, pointers, C arrays, `std::array`, unions, other class types.
///
/// What every `Col<T>` provides (the column protocol; the kinds' headers implement it):
///
///     Ref                          the borrowed item type (`RefOf<T>`)
///     buffers                      number of column buffers a batch of T has (constexpr)
///     Owned                        growable storage: push(const T&), push_ref(const Ref&),
///                                  push_default() (the slot of an absent optional),
///                                  gather(View, index, n) (appends items index[0..n) of View,
///                                  column by column), truncate(len) (keeps the first len
///                                  items), expect_bytes(const size_t*&) (its buffers' expected
///                                  byte sizes, read in layout order: see Storage::expect), clear(),
///                                  view() -> View (valid until the next push or clear)
///     View                         a fixed-size set of pointers and lengths (no ownership):
///                                  get(i) -> Ref (unchecked), is_default(i), collect(Bytes*&)
///                                  (appends its `buffers` buffers in layout order),
///                                  padded_bytes() (their sizes, each padded to 8)
///     parse(Parser&, len, Path)    validates the next `buffers` buffers for `len` items and
///                                  returns their View, or throws LayoutError
///     to_owned(Ref) -> T, equal(Ref, Ref), name(), names(Path, vector<string>&) (buffer paths)
///
/// Source of the idea: the `columnar` crate's `Columnar` trait (an owned type, a container of
/// it, and a borrowed reference type; SEMANTICS.md §9.3). Thread-safety: types and constants.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/pfr/core.hpp>

#include <timely/container/columnar/layout.hpp>

namespace timely::container::columnar {
namespace detail {

enum class Kind { unsupported, scalar, boolean, string, bytes, vector, optional, tuple, aggregate };

template <class T>
struct VectorOf : std::false_type {};
template <class E>
struct VectorOf<std::vector<E>> : std::true_type {
  using element = E;
};
template <class T>
struct OptionalOf : std::false_type {};
template <class E>
struct OptionalOf<std::optional<E>> : std::true_type {
  using element = E;
};
template <class T>
struct TupleLike : std::false_type {};
template <class A, class B>
struct TupleLike<std::pair<A, B>> : std::true_type {};
template <class... X>
struct TupleLike<std::tuple<X...>> : std::true_type {};
template <class T>
struct StdArray : std::false_type {};
template <class E, std::size_t N>
struct StdArray<std::array<E, N>> : std::true_type {};

template <class T>
consteval Kind kind_of();

template <class T>
consteval bool supported() {
  return kind_of<T>() != Kind::unsupported;
}

template <class T, std::size_t... I>
consteval bool elements_supported(std::index_sequence<I...>) {
  return (true && ... && supported<std::tuple_element_t<I, T>>());
}

/// Field `I` of aggregate `T`, as PFR sees it, without top-level cv.
template <class T, std::size_t I>
using Field = std::remove_cv_t<boost::pfr::tuple_element_t<I, T>>;

template <class T, std::size_t... I>
consteval bool fields_supported(std::index_sequence<I...>) {
  return (true && ... &&
          (!std::is_reference_v<boost::pfr::tuple_element_t<I, T>> && supported<Field<T, I>>()));
}

template <class T>
consteval Kind kind_of() {
  if constexpr (!std::is_same_v<T, std::remove_cvref_t<T>>) {
    return Kind::unsupported;
  } else if constexpr (std::is_same_v<T, bool>) {
    return Kind::boolean;
  } else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return sizeof(T) <= 8 ? Kind::scalar : Kind::unsupported;
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return Kind::scalar;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Kind::string;
  } else if constexpr (std::is_same_v<T, std::vector<std::uint8_t>> ||
                       std::is_same_v<T, std::vector<std::byte>>) {
    return Kind::bytes;
  } else if constexpr (VectorOf<T>::value) {
    return supported<typename VectorOf<T>::element>() ? Kind::vector : Kind::unsupported;
  } else if constexpr (OptionalOf<T>::value) {
    return supported<typename OptionalOf<T>::element>() ? Kind::optional : Kind::unsupported;
  } else if constexpr (TupleLike<T>::value) {
    return elements_supported<T>(std::make_index_sequence<std::tuple_size_v<T>>{}) ? Kind::tuple
                                                                                   : Kind::unsupported;
  } else if constexpr (std::is_class_v<T> && std::is_aggregate_v<T> && !std::is_union_v<T> &&
                       !StdArray<T>::value) {
    return fields_supported<T>(std::make_index_sequence<boost::pfr::tuple_size_v<T>>{}) ? Kind::aggregate
                                                                                        : Kind::unsupported;
  } else {
    return Kind::unsupported;
  }
}

/// The column of `T` (see the file comment for its protocol).
template <class T, Kind K = kind_of<T>()>
struct Col;

/// What an unsupported type gets: a column that does nothing, so that `Batch<T>`'s one
/// `static_assert` is the only error a user sees.
template <class T>
struct Col<T, Kind::unsupported> {
  struct Ref {};
  static constexpr std::size_t buffers = 0;
  struct View {
    [[nodiscard]] Ref get(std::size_t) const noexcept { return {}; }
    [[nodiscard]] bool is_default(std::size_t) const noexcept { return true; }
    void collect(Bytes*&) const noexcept {}
    [[nodiscard]] static std::size_t padded_bytes() noexcept { return 0; }
  };
  struct Owned {
    void push(const T&) noexcept {}
    void push_ref(const Ref&) noexcept {}
    void push_default() noexcept {}
    void gather(const View&, const std::uint32_t*, std::size_t) noexcept {}
    void expect_bytes(const std::size_t*&) noexcept {}
    void truncate(std::size_t) noexcept {}
    void clear() noexcept {}
    [[nodiscard]] View view() const noexcept { return {}; }
  };
  static View parse(Parser&, std::size_t, const Path&) noexcept { return {}; }
  static bool equal(const Ref&, const Ref&) noexcept { return true; }
  static std::string name() { return "unsupported"; }
  static void names(const Path&, std::vector<std::string>&) {}
};

}  // namespace detail

/// Types a `Batch` can hold (see the file comment for the list).
template <class T>
concept Columnar = detail::supported<T>();

/// The borrowed type a batch of `T` yields: `T` itself for scalars, `std::string_view` for
/// strings, `std::span<const E>` for byte vectors, `VectorRef<E>` for other vectors,
/// `std::optional<RefOf<E>>`, and `std::tuple<RefOf<F>...>` for pairs, tuples and aggregates.
template <class T>
using RefOf = typename detail::Col<T>::Ref;

/// The owned `T` equal to the borrowed `ref` (allocates as `T` does).
template <Columnar T>
[[nodiscard]] T to_owned(const RefOf<T>& ref) {
  return detail::Col<T>::to_owned(ref);
}

/// A short name of `T`'s layout ("tuple<u64,string>"); equal names mean equal layouts.
template <Columnar T>
[[nodiscard]] std::string layout_name() {
  return detail::Col<T>::name();
}

}  // namespace timely::container::columnar
