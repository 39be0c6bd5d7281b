/// \file
/// Timestamps and path summaries: the algebra progress tracking runs on.
///
/// Holds the customization points `TimestampTraits<T>` and `PathSummaryTraits<S, T>`, the
/// concepts `Timestamp` and `PathSummary`, the free functions `results_in`, `followed_by` and
/// `minimum`, the implementations for every integer width, `Unit`, `Product<A, B>`,
/// `std::pair<A, B>` and `std::chrono::duration` (their partial orders included), and
/// `Refines<Inner, Outer>`, how the timestamps of a nested scope relate to its parent's. The
/// partial orders themselves (`PartialOrder`, `less_equal`, ...) are in order.hpp.
///
/// Source of the idea: Naiad (SOSP 2013) §2.1-§2.3 (timestamps, could-result-in) and the
/// reference's `progress::timestamp` and `order` modules. Everything here is pure, reentrant and
/// thread-safe.
#pragma once

#include <chrono>
#include <compare>
#include <concepts>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include <timely/progress/order.hpp>

namespace timely {

/// Customization point for path summaries: how a timestamp of type `T` changes along a path.
///
/// Specialize with `static std::optional<T> results_in(const S&, const T&)` and
/// `static std::optional<S> followed_by(const S&, const S&)`. `std::nullopt` means "no time
/// results" (overflow); the feedback operator drops such records. A value-initialized `S` must be
/// the identity summary. `results_in` must be monotone in both arguments, and
/// `results_in(followed_by(a, b), t) == results_in(b, results_in(a, t))`.
template <class S, class T, class Enable = void>
struct PathSummaryTraits {};

/// Integer summaries are integers of the same type added with overflow checking. Signed
/// summaries may be negative (moving time backwards is allowed, but a cycle must advance).
template <std::integral T>
struct PathSummaryTraits<T, T> {
  static constexpr std::optional<T> results_in(T summary, T time) noexcept {
    T out{};
    if (__builtin_add_overflow(time, summary, &out)) return std::nullopt;
    return out;
  }
  static constexpr std::optional<T> followed_by(T first, T second) noexcept {
    return results_in(first, second);
  }
};

/// A path summary `S` for timestamps `T`: partially ordered, default = identity, with
/// `results_in` and `followed_by`.
template <class S, class T>
concept PathSummary = PartialOrder<S> && std::default_initializable<S> && requires(const S& s, const T& t) {
  { PathSummaryTraits<S, T>::results_in(s, t) } -> std::same_as<std::optional<T>>;
  { PathSummaryTraits<S, T>::followed_by(s, s) } -> std::same_as<std::optional<S>>;
};

/// Customization point for timestamps: specialize with `using Summary = ...;` and
/// `static T minimum()`, the unique least element (the time of every initial capability).
template <class T, class Enable = void>
struct TimestampTraits {};

/// Integers: the summary is the same integer type; the minimum is the type's least value
/// (0 for unsigned, MIN for signed, as the reference since 0.12).
template <std::integral T>
struct TimestampTraits<T> {
  using Summary = T;
  static constexpr T minimum() noexcept { return std::numeric_limits<T>::min(); }
};

/// A timestamp: copyable, partially ordered with a compatible total order, with a least element
/// and a path summary type. Hashing and printing come from the user's own overloads where needed.
template <class T>
concept Timestamp = PartialOrder<T> && std::copyable<T> && requires {
  typename TimestampTraits<T>::Summary;
  { TimestampTraits<T>::minimum() } -> std::same_as<T>;
} && PathSummary<typename TimestampTraits<T>::Summary, T>;

/// The path summary type of timestamp `T`.
template <Timestamp T>
using SummaryOf = typename TimestampTraits<T>::Summary;

/// The least element of `T`.
template <Timestamp T>
constexpr T minimum() {
  return TimestampTraits<T>::minimum();
}

/// The time that results from moving `time` along a path summarised by `summary`, if any.
template <Timestamp T>
constexpr std::optional<T> results_in(const SummaryOf<T>& summary, const T& time) {
  return PathSummaryTraits<SummaryOf<T>, T>::results_in(summary, time);
}

/// The summary of the path "`first`, then `second`", if any time can travel it.
template <Timestamp T>
constexpr std::optional<SummaryOf<T>> followed_by(const SummaryOf<T>& first, const SummaryOf<T>& second) {
  return PathSummaryTraits<SummaryOf<T>, T>::followed_by(first, second);
}

/// The product of two partial orders: `(a1, b1) <= (a2, b2)` iff `a1 <= a2` and `b1 <= b2`.
///
/// Used for the timestamps of iterative scopes (`outer` is the enclosing scope's time, `inner`
/// the loop counter). `operator<` is lexicographic, which extends the product order. Not to be
/// confused with a lexicographic pair, whose partial order is total. Naiad §2.1 (loop contexts).
template <class A, class B>
struct Product {
  A outer{};
  B inner{};

  friend constexpr bool operator==(const Product&, const Product&) = default;
  friend constexpr auto operator<=>(const Product&, const Product&) = default;
};

template <PartialOrder A, PartialOrder B>
struct PartialOrderTraits<Product<A, B>> {
  static constexpr bool less_equal(const Product<A, B>& x, const Product<A, B>& y) {
    return timely::less_equal(x.outer, y.outer) && timely::less_equal(x.inner, y.inner);
  }
};

/// Product summaries apply component-wise; either component failing fails the whole.
template <class SA, class SB, class A, class B>
struct PathSummaryTraits<Product<SA, SB>, Product<A, B>> {
  static constexpr std::optional<Product<A, B>> results_in(const Product<SA, SB>& s, const Product<A, B>& t) {
    auto outer = PathSummaryTraits<SA, A>::results_in(s.outer, t.outer);
    if (!outer) return std::nullopt;
    auto inner = PathSummaryTraits<SB, B>::results_in(s.inner, t.inner);
    if (!inner) return std::nullopt;
    return Product<A, B>{*outer, *inner};
  }
  static constexpr std::optional<Product<SA, SB>> followed_by(const Product<SA, SB>& x,
                                                              const Product<SA, SB>& y) {
    auto outer = PathSummaryTraits<SA, A>::followed_by(x.outer, y.outer);
    if (!outer) return std::nullopt;
    auto inner = PathSummaryTraits<SB, B>::followed_by(x.inner, y.inner);
    if (!inner) return std::nullopt;
    return Product<SA, SB>{*outer, *inner};
  }
};

template <Timestamp A, Timestamp B>
struct TimestampTraits<Product<A, B>> {
  using Summary = Product<SummaryOf<A>, SummaryOf<B>>;
  static constexpr Product<A, B> minimum() { return {timely::minimum<A>(), timely::minimum<B>()}; }
};

/// The timestamp with a single value: the time "outside" every top-level dataflow. Its partial
/// order is total and trivial, and its only summary is the identity.
struct Unit {
  friend constexpr bool operator==(Unit, Unit) = default;
  friend constexpr auto operator<=>(Unit, Unit) = default;
};

template <>
struct PartialOrderTraits<Unit> {
  static constexpr bool total = true;
  static constexpr bool less_equal(Unit, Unit) noexcept { return true; }
};
template <>
struct PathSummaryTraits<Unit, Unit> {
  static constexpr std::optional<Unit> results_in(Unit, Unit) noexcept { return Unit{}; }
  static constexpr std::optional<Unit> followed_by(Unit, Unit) noexcept { return Unit{}; }
};
template <>
struct TimestampTraits<Unit> {
  using Summary = Unit;
  static constexpr Unit minimum() noexcept { return {}; }
};

namespace detail {
// `Product<Unit, T>`: the one product that the iterative refinement below already relates to
// `Unit` (an iterative scope directly inside a `Unit` scope), so the top-level rule leaves it out.
template <class T>
struct IsUnitProduct : std::false_type {};
template <class B>
struct IsUnitProduct<Product<Unit, B>> : std::true_type {};
}  // namespace detail

/// How timestamps `Inner` of a nested scope relate to the timestamps `Outer` of its parent:
/// `to_inner(outer)` (a time entering the scope), `to_outer(inner)` (a time leaving it) and
/// `summarize(inner summary)` (what a path inside means outside; it never promises more
/// advancement than happens). Source: the reference's `progress::timestamp::Refines`
/// (SEMANTICS.md §1.4).
template <class Inner, class Outer, class Enable = void>
struct Refines {};

/// Every timestamp refines itself (regions).
template <Timestamp T>
struct Refines<T, T> {
  static constexpr T to_inner(const T& t) { return t; }
  static constexpr T to_outer(const T& t) { return t; }
  static constexpr SummaryOf<T> summarize(const SummaryOf<T>& s) { return s; }
};

/// An iterative scope adds a loop counter: enter at counter minimum, leave by dropping it.
template <Timestamp TOuter, Timestamp TInner>
struct Refines<Product<TOuter, TInner>, TOuter> {
  static constexpr Product<TOuter, TInner> to_inner(const TOuter& t) {
    return {t, timely::minimum<TInner>()};
  }
  static constexpr TOuter to_outer(const Product<TOuter, TInner>& t) { return t.outer; }
  static constexpr SummaryOf<TOuter> summarize(const SummaryOf<Product<TOuter, TInner>>& s) {
    return s.outer;
  }
};

/// Top-level dataflows: every timestamp refines `Unit`, partially ordered ones (`Product<A, B>`,
/// user types) included, as in the reference. A dataflow starts at `minimum()` and its boundary
/// has no ports, so only `to_inner` of the one outer time is ever used.
template <Timestamp T>
requires(!std::is_same_v<T, Unit> && !detail::IsUnitProduct<T>::value) struct Refines<T, Unit> {
  static constexpr T to_inner(Unit) { return timely::minimum<T>(); }
  static constexpr Unit to_outer(const T&) { return {}; }
  static constexpr Unit summarize(const SummaryOf<T>&) { return {}; }
};

/// `Inner` timestamps refine `Outer` timestamps.
template <class Inner, class Outer>
concept RefinesTo = Timestamp<Inner> && Timestamp<Outer> &&
    requires(const Inner& i, const Outer& o, const SummaryOf<Inner>& s) {
  { Refines<Inner, Outer>::to_inner(o) } -> std::same_as<Inner>;
  { Refines<Inner, Outer>::to_outer(i) } -> std::same_as<Outer>;
  { Refines<Inner, Outer>::summarize(s) } -> std::same_as<SummaryOf<Outer>>;
};

/// `std::chrono::duration` timestamps: totally ordered; the summary is a duration of the same
/// type added with overflow checking; the minimum is zero, as in the reference (negative
/// durations are not valid timestamps).
template <class Rep, class Period>
struct PartialOrderTraits<std::chrono::duration<Rep, Period>> {
  static constexpr bool total = true;
  static constexpr bool less_equal(std::chrono::duration<Rep, Period> a,
                                   std::chrono::duration<Rep, Period> b) {
    return a <= b;
  }
};
template <class Rep, class Period>
struct PathSummaryTraits<std::chrono::duration<Rep, Period>, std::chrono::duration<Rep, Period>> {
  using D = std::chrono::duration<Rep, Period>;
  static constexpr std::optional<D> results_in(D summary, D time) {
    Rep out{};
    if (__builtin_add_overflow(time.count(), summary.count(), &out)) return std::nullopt;
    return D(out);
  }
  static constexpr std::optional<D> followed_by(D first, D second) { return results_in(first, second); }
};
template <class Rep, class Period>
struct TimestampTraits<std::chrono::duration<Rep, Period>> {
  using Summary = std::chrono::duration<Rep, Period>;
  static constexpr std::chrono::duration<Rep, Period> minimum() {
    return std::chrono::duration<Rep, Period>::zero();
  }
};
/// `std::pair<A, B>` timestamps are ordered lexicographically: `a < b` iff `a.first < b.first`,
/// or the firsts are equal and `a.second <= b.second` (unlike `Product`, whose order is the
/// product order). Summaries are pairs applied per coordinate.
template <PartialOrder A, PartialOrder B>
struct PartialOrderTraits<std::pair<A, B>> {
  static constexpr bool total = TotalOrder<A> && TotalOrder<B>;
  static constexpr bool less_equal(const std::pair<A, B>& x, const std::pair<A, B>& y) {
    return timely::less_than(x.first, y.first) ||
           (x.first == y.first && timely::less_equal(x.second, y.second));
  }
};
template <class SA, class SB, class A, class B>
struct PathSummaryTraits<std::pair<SA, SB>, std::pair<A, B>> {
  static constexpr std::optional<std::pair<A, B>> results_in(const std::pair<SA, SB>& s,
                                                             const std::pair<A, B>& t) {
    auto first = PathSummaryTraits<SA, A>::results_in(s.first, t.first);
    if (!first) return std::nullopt;
    auto second = PathSummaryTraits<SB, B>::results_in(s.second, t.second);
    if (!second) return std::nullopt;
    return std::pair<A, B>{*first, *second};
  }
  static constexpr std::optional<std::pair<SA, SB>> followed_by(const std::pair<SA, SB>& x,
                                                                const std::pair<SA, SB>& y) {
    auto first = PathSummaryTraits<SA, A>::followed_by(x.first, y.first);
    if (!first) return std::nullopt;
    auto second = PathSummaryTraits<SB, B>::followed_by(x.second, y.second);
    if (!second) return std::nullopt;
    return std::pair<SA, SB>{*first, *second};
  }
};
template <Timestamp A, Timestamp B>
struct TimestampTraits<std::pair<A, B>> {
  using Summary = std::pair<SummaryOf<A>, SummaryOf<B>>;
  static constexpr std::pair<A, B> minimum() { return {timely::minimum<A>(), timely::minimum<B>()}; }
};

}  // namespace timely
