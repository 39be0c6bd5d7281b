/// \file
/// `timely::describe(value)`: a human-readable rendering of timestamps for error messages.
/// Integers print as numbers, `Product` as `(outer, inner)`, types fmt can format through fmt,
/// anything else as `<unprintable>`. Pure and thread-safe.
#pragma once

#include <concepts>
#include <string>

#include <fmt/format.h>

#include <timely/progress/timestamp.hpp>

namespace timely {

template <class T>
std::string describe(const T& value);

namespace detail {
template <class T>
struct Describe {
  static std::string run(const T& value) {
    if constexpr (std::integral<T>)
      return std::to_string(value);
    else if constexpr (fmt::is_formattable<T>::value)
      return fmt::format("{}", value);
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
}  // namespace detail

/// Renders `value` for an error message.
template <class T>
std::string describe(const T& value) {
  return detail::Describe<T>::run(value);
}

}  // namespace timely
