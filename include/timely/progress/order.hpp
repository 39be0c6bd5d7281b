/// \file
/// Partial orders: the customization point `PartialOrderTraits<T>` (with the implementation for
/// every integer width), the concepts `PartialOrder` and `TotalOrder`, and the free functions
/// `less_equal` and `less_than`. Timestamps, path summaries and the orders of `Product`,
/// `std::pair` and `std::chrono::duration` are in progress/timestamp.hpp.
///
/// Source of the idea: Naiad (SOSP 2013) §2.1 (partially ordered timestamps) and the reference's
/// `order` module. Everything here is pure, reentrant and thread-safe.
#pragma once

#include <concepts>

namespace timely {

/// Customization point for a partial order on `T`.
///
/// Specialize with `static bool less_equal(const T&, const T&)`. The partial order must agree
/// with `operator==` (equal values are related both ways) and the type's `operator<` must be a
/// total order that extends it (`less_equal(a, b)` implies `!(b < a)`): sorting code relies on
/// that. The primary template is empty, so types without a specialization are not `PartialOrder`.
template <class T, class Enable = void>
struct PartialOrderTraits {};

/// Integers are totally ordered; their partial order is `<=`.
template <std::integral T>
struct PartialOrderTraits<T> {
  static constexpr bool total = true;
  static constexpr bool less_equal(T a, T b) noexcept { return a <= b; }
};

/// A type `T` with a partial order `less_equal` compatible with equality, and a total order
/// `operator<` extending it.
template <class T>
concept PartialOrder = std::totally_ordered<T> && requires(const T& a, const T& b) {
  { PartialOrderTraits<T>::less_equal(a, b) } -> std::convertible_to<bool>;
};

/// Whether `T`'s partial order is total (integers, durations); `delay_total` and
/// `iterator_source` need it.
template <class T>
concept TotalOrder = PartialOrder<T> && requires {
  requires PartialOrderTraits<T>::total;
};

/// `a <= b` in `T`'s partial order.
template <PartialOrder T>
constexpr bool less_equal(const T& a,
                          const T& b) noexcept(noexcept(PartialOrderTraits<T>::less_equal(a, b))) {
  return PartialOrderTraits<T>::less_equal(a, b);
}

/// `a < b` in `T`'s partial order: `less_equal(a, b) && a != b`.
template <PartialOrder T>
constexpr bool less_than(const T& a, const T& b) noexcept(noexcept(less_equal(a, b))) {
  return a != b && less_equal(a, b);
}

}  // namespace timely
