/// \file
/// Event time for `timely::streaming`: the `EventTime` concept (a totally ordered timestamp with
/// `+`, `-` and `%`: unsigned integers in a unit the user chooses, or `std::chrono::duration`s),
/// the helpers the library computes with (`one_tick`, `saturating_sub`, `align_down`,
/// `saturating_add`), and the library's error types (`StreamingError` and its `WindowError`).
///
/// Event time *is* the dataflow timestamp: a record at time `t` happened at `t`, and the input
/// frontier of an operator is an exact watermark: once it has passed `t`, no record at or before
/// `t` can still arrive. So a window closes exactly when the frontier passes its end, and the
/// only heuristic is at the source, where records arriving out of order are given a capability
/// at a watermark (watermark.hpp).
///
/// Source of the idea: Akidau et al., "The Dataflow Model" (VLDB 2015) for event time,
/// watermarks and lateness; Naiad §2 for frontiers as completeness. Thread-safety: none needed.
#pragma once

#include <chrono>
#include <concepts>
#include <limits>
#include <string>
#include <type_traits>

#include <timely/error.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/order.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::streaming {

/// A misuse of the streaming library (an invalid window width, slide, gap or lateness, an
/// option a window kind does not support); the message names the argument and its value.
class StreamingError : public timely::Error {
 public:
  using Error::Error;
};

/// An invalid window specification: a zero width, slide, gap or count, or a slide larger than
/// the width.
class WindowError : public StreamingError {
 public:
  using StreamingError::StreamingError;
};

/// A timestamp usable as event time: a totally ordered `timely::Timestamp` with `a + b`,
/// `a - b` and `a % b` of the same type, constructible from the integer 1 (one tick of the
/// user's unit) and with `std::numeric_limits`-style maximum through `max_time`.
/// Unsigned integers and `std::chrono::duration`s qualify.
template <class T>
concept EventTime = Timestamp<T> && TotalOrder<T> && requires(const T& a, const T& b) {
  { a + b } -> std::convertible_to<T>;
  { a - b } -> std::convertible_to<T>;
  { a % b } -> std::convertible_to<T>;
  T{1};
};

/// The smallest positive event time: 1 of the user's unit (1 tick of a duration).
template <EventTime T>
constexpr T one_tick() {
  return T{1};
}

/// The largest representable event time.
template <EventTime T>
constexpr T max_time() {
  if constexpr (requires { T::max(); })
    return T::max();
  else
    return std::numeric_limits<T>::max();
}

/// `a - b`, or the minimum time (`timely::minimum<T>()`) where that would go below it.
template <EventTime T>
constexpr T saturating_sub(const T& a, const T& b) {
  const T floor = timely::minimum<T>();
  if (a < b || a - b < floor) return floor;
  return a - b;
}

/// `a + b`, or `max_time<T>()` where that would overflow (for non-negative `b`).
template <EventTime T>
constexpr T saturating_add(const T& a, const T& b) {
  if (max_time<T>() - b < a) return max_time<T>();
  return a + b;
}

/// The largest multiple of `step` that is `<= t` (`t` not below the minimum time).
template <EventTime T>
constexpr T align_down(const T& t, const T& step) {
  return t - t % step;
}

/// The greatest common divisor of two positive event times (the pane size of a sliding window).
template <EventTime T>
constexpr T gcd_time(T a, T b) {
  while (b != T{}) {
    T r = a % b;
    a = b;
    b = r;
  }
  return a;
}

namespace detail {
[[noreturn]] inline void throw_window(const std::string& message) { throw WindowError(message); }
}  // namespace detail

}  // namespace timely::streaming
