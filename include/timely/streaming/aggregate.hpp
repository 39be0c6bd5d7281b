/// \file
/// Window aggregates: `count()`, `sum(f)`, `min(f)`, `max(f)`, `mean(f)`, `top_k(k, f)`,
/// `distinct_count(f)` and `fold(init, add, merge[, finish])` for any user fold with a combine.
/// `f(const D&)` extracts the value aggregated from a record.
///
/// An aggregate is an object with, for records `D`:
/// - `a.template init<D>()`: the empty accumulator `Acc`;
/// - `a.add(Acc&, const D&)`: folds one record in;
/// - `a.merge(Acc&, const Acc&)`: combines two accumulators (associative and commutative), so
///   windows are computed from panes and sessions merge;
/// - `a.finish(const Acc&)`: the result `R` carried by `WindowResult<T, K, R>::value`.
/// Results: `count` and `distinct_count` give `std::uint64_t`; `sum` the value type; `min` and
/// `max` the value type (a window is emitted only with records in it); `mean` a `double`
/// (`sum / count`, the sum kept in the value type so integer inputs are exact); `top_k` a
/// `std::vector<V>` of the `k` largest values, largest first (ties kept). `distinct_count` is
/// exact: it keeps a `boost::unordered_flat_set<V>` per pane.
///
/// Source of the idea: the combiner functions of MapReduce and Flink's `AggregateFunction`
/// (createAccumulator, add, merge, getResult). Thread-safety: aggregates are immutable.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <timely/streaming/event_time.hpp>

namespace timely::streaming {

namespace detail {
template <class F, class D>
using ValueOf = std::decay_t<std::invoke_result_t<const F&, const D&>>;

struct Identity {
  template <class A>
  A operator()(const A& a) const {
    return a;
  }
};
}  // namespace detail

/// The number of records.
struct Count {
  template <class D>
  std::uint64_t init() const {
    return 0;
  }
  template <class D>
  void add(std::uint64_t& acc, const D&) const {
    ++acc;
  }
  void merge(std::uint64_t& acc, const std::uint64_t& other) const { acc += other; }
  std::uint64_t finish(const std::uint64_t& acc) const { return acc; }
};
inline Count count() { return {}; }

/// The sum of `f(record)`, starting from a value-initialized `V`.
template <class F>
struct Sum {
  F f;
  template <class D>
  detail::ValueOf<F, D> init() const {
    return {};
  }
  template <class A, class D>
  void add(A& acc, const D& d) const {
    acc += f(d);
  }
  template <class A>
  void merge(A& acc, const A& other) const {
    acc += other;
  }
  template <class A>
  A finish(const A& acc) const {
    return acc;
  }
};
template <class F>
Sum<F> sum(F f) {
  return {std::move(f)};
}

/// The least (`Less = std::less<>`) or greatest (`std::greater<>`) `f(record)`.
template <class F, class Better>
struct Extreme {
  F f;
  template <class D>
  std::optional<detail::ValueOf<F, D>> init() const {
    return std::nullopt;
  }
  template <class A, class D>
  void add(std::optional<A>& acc, const D& d) const {
    auto v = f(d);
    if (!acc || Better{}(v, *acc)) acc = std::move(v);
  }
  template <class A>
  void merge(std::optional<A>& acc, const std::optional<A>& other) const {
    if (other && (!acc || Better{}(*other, *acc))) acc = other;
  }
  template <class A>
  A finish(const std::optional<A>& acc) const {
    return acc.value_or(A{});
  }
};
template <class F>
Extreme<F, std::less<>> min(F f) {
  return {std::move(f)};
}
template <class F>
Extreme<F, std::greater<>> max(F f) {
  return {std::move(f)};
}

/// The mean of `f(record)` as a `double`: the sum (in the value type) over the count.
template <class F>
struct Mean {
  F f;
  template <class D>
  std::pair<detail::ValueOf<F, D>, std::uint64_t> init() const {
    return {};
  }
  template <class A, class D>
  void add(A& acc, const D& d) const {
    acc.first += f(d);
    ++acc.second;
  }
  template <class A>
  void merge(A& acc, const A& other) const {
    acc.first += other.first;
    acc.second += other.second;
  }
  template <class A>
  double finish(const A& acc) const {
    return acc.second == 0 ? 0.0 : static_cast<double>(acc.first) / static_cast<double>(acc.second);
  }
};
template <class F>
Mean<F> mean(F f) {
  return {std::move(f)};
}

/// The `k` largest `f(record)`, largest first.
template <class F>
struct TopK {
  std::size_t k;
  F f;
  template <class D>
  std::vector<detail::ValueOf<F, D>> init() const {
    return {};
  }
  template <class V, class D>
  void add(std::vector<V>& acc, const D& d) const {
    insert(acc, f(d));
  }
  template <class V>
  void merge(std::vector<V>& acc, const std::vector<V>& other) const {
    for (const auto& v : other) insert(acc, v);
  }
  template <class V>
  std::vector<V> finish(const std::vector<V>& acc) const {
    return acc;
  }

 private:
  // Kept sorted, largest first, at most k long.
  template <class V>
  void insert(std::vector<V>& acc, V v) const {
    if (acc.size() == k && !(acc.back() < v)) return;
    auto at = std::upper_bound(acc.begin(), acc.end(), v, std::greater<>{});
    acc.insert(at, std::move(v));
    if (acc.size() > k) acc.pop_back();
  }
};
/// \throws StreamingError naming `k` if it is zero.
template <class F>
TopK<F> top_k(std::size_t k, F f) {
  if (k == 0) throw StreamingError("timely::streaming::top_k: argument 'k' must be positive");
  return {k, std::move(f)};
}

/// The number of distinct `f(record)` (exact; `V` hashable by `boost::hash`).
template <class F>
struct DistinctCount {
  F f;
  template <class D>
  boost::unordered_flat_set<detail::ValueOf<F, D>, boost::hash<detail::ValueOf<F, D>>> init() const {
    return {};
  }
  template <class S, class D>
  void add(S& acc, const D& d) const {
    acc.insert(f(d));
  }
  template <class S>
  void merge(S& acc, const S& other) const {
    acc.insert(other.begin(), other.end());
  }
  template <class S>
  std::uint64_t finish(const S& acc) const {
    return acc.size();
  }
};
template <class F>
DistinctCount<F> distinct_count(F f) {
  return {std::move(f)};
}

/// Any fold with a combine: `init` is the empty accumulator, `add(Acc&, const D&)`,
/// `merge(Acc&, const Acc&)` (associative, commutative, `init` its identity) and
/// `finish(const Acc&) -> R` (default: the accumulator itself).
template <class Acc, class Add, class Merge, class Finish>
struct Fold {
  Acc empty;
  Add add_fn;
  Merge merge_fn;
  Finish finish_fn;
  template <class D>
  Acc init() const {
    return empty;
  }
  template <class D>
  void add(Acc& acc, const D& d) const {
    add_fn(acc, d);
  }
  void merge(Acc& acc, const Acc& other) const { merge_fn(acc, other); }
  auto finish(const Acc& acc) const { return finish_fn(acc); }
};
template <class Acc, class Add, class Merge, class Finish = detail::Identity>
Fold<Acc, Add, Merge, Finish> fold(Acc init, Add add, Merge merge, Finish finish = {}) {
  return {std::move(init), std::move(add), std::move(merge), std::move(finish)};
}

}  // namespace timely::streaming
