/// \file
/// `timely::describe(value)`: a human-readable rendering of timestamps for error messages.
/// Integers and floating-point numbers print as numbers, strings as themselves, `Product` and
/// `std::pair` as `(first, second)`, `Unit` as `()`, `std::chrono::duration` as its count and
/// unit (`250ms`; `250 x 1/3s` for other periods), a type with a `to_string(value)` found by
/// argument-dependent lookup (returning something convertible to `std::string`) through it,
/// anything else as `<unprintable>`. Pure and thread-safe.
///
/// A user timestamp type gets readable messages by declaring `std::string to_string(const T&)`
/// in its own namespace. (No formatting library here: this header is reached from every
/// operator, through the capability types, so it stays as cheap to compile as <string>.)
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <ratio>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <timely/progress/timestamp.hpp>

namespace timely {

template <class T>
std::string describe(const T& value);

namespace detail {
namespace describe_adl {
// `to_string` as found by argument-dependent lookup for `T` (not `std::to_string`, which takes
// numbers only and is handled before this is consulted).
template <class T>
concept HasToString = requires(const T& value) {
  { to_string(value) } -> std::convertible_to<std::string>;
};
template <HasToString T>
std::string call_to_string(const T& value) {
  return std::string(to_string(value));
}
}  // namespace describe_adl

template <class T>
struct Describe {
  static std::string run(const T& value) {
    if constexpr (std::same_as<T, bool>)
      return value ? "true" : "false";
    else if constexpr (std::is_arithmetic_v<T>)
      return std::to_string(value);
    else if constexpr (std::convertible_to<const T&, std::string_view>)
      return std::string(std::string_view(value));
    else if constexpr (describe_adl::HasToString<T>)
      return describe_adl::call_to_string(value);
    else
      return "<unprintable>";
  }
};
template <class A, class B>
struct Describe<Product<A, B>> {
  static std::string run(const Product<A, B>& p) {
    return "(" + describe(p.outer) + ", " + describe(p.inner) + ")";
  }
};
template <class A, class B>
struct Describe<std::pair<A, B>> {
  static std::string run(const std::pair<A, B>& p) {
    return "(" + describe(p.first) + ", " + describe(p.second) + ")";
  }
};
template <>
struct Describe<Unit> {
  static std::string run(const Unit&) { return "()"; }
};
template <class Rep, class Period>
struct Describe<std::chrono::duration<Rep, Period>> {
  static std::string run(const std::chrono::duration<Rep, Period>& d) {
    std::string count = describe(d.count());
    if constexpr (std::ratio_equal_v<Period, std::nano>)
      return count + "ns";
    else if constexpr (std::ratio_equal_v<Period, std::micro>)
      return count + "us";
    else if constexpr (std::ratio_equal_v<Period, std::milli>)
      return count + "ms";
    else if constexpr (std::ratio_equal_v<Period, std::ratio<1>>)
      return count + "s";
    else
      return count + " x " + std::to_string(std::intmax_t{Period::num}) + "/" +
             std::to_string(std::intmax_t{Period::den}) + "s";
  }
};
}  // namespace detail

/// Renders `value` for an error message.
template <class T>
std::string describe(const T& value) {
  return detail::Describe<T>::run(value);
}

}  // namespace timely
