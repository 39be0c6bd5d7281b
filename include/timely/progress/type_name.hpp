/// \file
/// `type_name<X>()`: the short, platform-independent name of a timestamp or summary type, used
/// in the names of the typed log streams ("timely/progress/u64",
/// "timely/frontier/Product<u64, u32>"; timely/logging/timely_events.hpp). Integers are named by
/// width (`u64`, `i32`), `bool`, `Product<A, B>`, `(A, B)` for a `std::pair`, `()` for `Unit`,
/// `Duration` for `std::chrono::nanoseconds`; anything else by its demangled C++ name, unless
/// `TypeName<X>` is specialized with `static std::string name()`.
///
/// Source: the reference names these streams with Rust's `std::any::type_name`, whose short
/// names for the built-in types these follow. Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <concepts>
#include <string>
#include <typeinfo>
#include <utility>

#include <boost/core/demangle.hpp>

#include <timely/progress/timestamp.hpp>

namespace timely {

/// Customization point: specialize with `static std::string name()`.
template <class X>
struct TypeName {};

/// The name of type `X` (see the file comment).
template <class X>
std::string type_name() {
  if constexpr (requires { TypeName<X>::name(); }) {
    return TypeName<X>::name();
  } else if constexpr (std::same_as<X, bool>) {
    return "bool";
  } else if constexpr (std::integral<X>) {
    return (std::signed_integral<X> ? "i" : "u") + std::to_string(8 * sizeof(X));
  } else if constexpr (std::same_as<X, Unit>) {
    return "()";
  } else if constexpr (std::same_as<X, std::chrono::nanoseconds>) {
    return "Duration";
  } else {
    return boost::core::demangle(typeid(X).name());
  }
}

template <class A, class B>
struct TypeName<Product<A, B>> {
  static std::string name() { return "Product<" + type_name<A>() + ", " + type_name<B>() + ">"; }
};
template <class A, class B>
struct TypeName<std::pair<A, B>> {
  static std::string name() { return "(" + type_name<A>() + ", " + type_name<B>() + ")"; }
};

}  // namespace timely
