/// \file
/// Frontiers: `Antichain<T>` (a set of mutually incomparable times, kept minimal) and
/// `MutableAntichain<T>` (a multiset of times with signed counts exposing the antichain of its
/// minimal positive elements, and the discrete changes of that antichain).
///
/// Source: Naiad §2.3 (frontiers) and the reference's `progress::frontier` (SEMANTICS.md §2.1,
/// §2.3). Thread-safety: none; each value belongs to one worker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include <timely/container/small_vector.hpp>

#include <timely/progress/change_batch.hpp>
#include <timely/progress/order.hpp>

namespace timely::progress {

template <PartialOrder T>
class MutableAntichain;

/// A minimal set of mutually incomparable elements of partial order `T`.
///
/// The empty antichain is the top element: it means "nothing more can arrive", so both
/// `less_than` and `less_equal` are false for every time. Equality is set equality.
template <PartialOrder T>
class Antichain {
 public:
  using Storage = container::SmallVector<T, 1>;

  /// The empty antichain (a complete frontier).
  Antichain() = default;
  /// The antichain `{element}`.
  explicit Antichain(T element) { elements_.push_back(std::move(element)); }
  /// The minimal elements of `elements`.
  Antichain(std::initializer_list<T> elements) {
    for (const auto& e : elements) insert(e);
  }

  /// Inserts `element` unless some member is `<=` it; removes members `>=` it.
  /// \returns whether the antichain changed.
  bool insert(const T& element) {
    for (const auto& e : elements_)
      if (timely::less_equal(e, element)) return false;
    elements_.erase(std::remove_if(elements_.begin(), elements_.end(),
                                   [&](const T& e) { return timely::less_equal(element, e); }),
                    elements_.end());
    elements_.push_back(element);
    return true;
  }

  /// Inserts every element of `range`; returns whether any insertion changed the antichain.
  template <class Range>
  bool extend(const Range& range) {
    bool changed = false;
    for (const auto& e : range) changed |= insert(e);
    return changed;
  }

  /// Some member is strictly less than `time`.
  [[nodiscard]] bool less_than(const T& time) const {
    return std::any_of(elements_.begin(), elements_.end(),
                       [&](const T& e) { return timely::less_than(e, time); });
  }
  /// Some member is less than or equal to `time`.
  [[nodiscard]] bool less_equal(const T& time) const {
    return std::any_of(elements_.begin(), elements_.end(),
                       [&](const T& e) { return timely::less_equal(e, time); });
  }
  /// Whether every element of `other` is `>=` some element of this (antichain partial order).
  [[nodiscard]] bool dominates(const Antichain& other) const {
    return std::all_of(other.begin(), other.end(), [&](const T& t) { return less_equal(t); });
  }

  [[nodiscard]] bool empty() const noexcept { return elements_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return elements_.size(); }
  [[nodiscard]] auto begin() const noexcept { return elements_.begin(); }
  [[nodiscard]] auto end() const noexcept { return elements_.end(); }
  [[nodiscard]] const T& operator[](std::size_t i) const { return elements_[i]; }
  [[nodiscard]] const Storage& elements() const noexcept { return elements_; }
  void clear() noexcept { elements_.clear(); }
  /// Sorts the elements by `operator<`, for deterministic printing.
  void sort() { std::sort(elements_.begin(), elements_.end()); }

  friend bool operator==(const Antichain& a, const Antichain& b) {
    if (a.elements_.size() != b.elements_.size()) return false;
    if (a.elements_ == b.elements_) return true;
    return std::all_of(a.begin(), a.end(),
                       [&](const T& x) { return std::find(b.begin(), b.end(), x) != b.end(); });
  }

 private:
  template <PartialOrder U>
  friend class MutableAntichain;  // maintains a one-element frontier in place for total orders

  Storage elements_;
};

/// A multiset of times with signed counts, exposing the antichain of minimal times whose count
/// is strictly positive, and the changes of that antichain as `(time, +1/-1)` pairs.
///
/// Counts may go transiently negative (a consumer may report before its producer); non-positive
/// counts never enter the frontier. Updates should arrive in batches: a relevant batch rebuilds
/// the frontier from all counts.
template <PartialOrder T>
class MutableAntichain {
 public:
  /// Empty: no frontier, which reads as complete.
  MutableAntichain() = default;

  /// Starts with count 1 at `element`.
  explicit MutableAntichain(const T& element) {
    updates_.update(element, 1);
    frontier_.insert(element);
  }

  /// Applies `(time, diff)` updates and calls `on_change(time, +1/-1)` for every compacted change
  /// of the frontier.
  template <class Range, class F>
  void update_iter(const Range& updates, F&& on_change) {
    bool rebuild = false;
    for (const auto& [time, diff] : updates) {
      if (diff == 0) continue;
      rebuild = rebuild || needs_rebuild(time, diff);
      add(time, diff);
    }
    if (rebuild) do_rebuild(on_change);
  }

  /// Applies one update; calls `on_change` for each frontier change.
  template <class F>
  void update(const T& time, std::int64_t diff, F&& on_change) {
    if (diff == 0) return;
    const bool rebuild = needs_rebuild(time, diff);
    add(time, diff);
    if (rebuild) do_rebuild(on_change);
  }

  /// Applies updates, discarding the frontier changes.
  template <class Range>
  void update_iter(const Range& updates) {
    update_iter(updates, [](const T&, std::int64_t) {});
  }

  [[nodiscard]] const Antichain<T>& frontier() const noexcept { return frontier_; }
  [[nodiscard]] bool less_than(const T& t) const {
    if constexpr (TotalOrder<T>)  // at most one frontier element
      return !frontier_.empty() && timely::less_than(frontier_[0], t);
    else
      return frontier_.less_than(t);
  }
  [[nodiscard]] bool less_equal(const T& t) const {
    if constexpr (TotalOrder<T>)
      return !frontier_.empty() && timely::less_equal(frontier_[0], t);
    else
      return frontier_.less_equal(t);
  }
  [[nodiscard]] bool empty() const noexcept { return frontier_.empty(); }

  /// Sum of the counts recorded for exactly `time`.
  [[nodiscard]] std::int64_t count_for(const T& time) {
    std::int64_t sum = 0;
    for (const auto& [t, d] : updates_.view())
      if (t == time) sum += d;
    return sum;
  }

  /// All `(time, count)` pairs with non-zero count, sorted by time.
  [[nodiscard]] const auto& counts() { return updates_.view(); }

 private:
  void add(const T& time, std::int64_t diff) {
    // Few distinct times (the common case): keep the counts sorted as we go, so the rebuild
    // reads them without sorting. Many: append and let the rebuild compact once.
    if (updates_.raw_size() <= 16)
      updates_.update_sorted(time, diff);
    else
      updates_.update(time, diff);
  }

  bool needs_rebuild(const T& time, std::int64_t diff) const {
    // A time strictly above some frontier element cannot change the frontier; neither can a
    // decrement at a time no frontier element is <= (its count cannot be positive there).
    if constexpr (TotalOrder<T>) {
      // At most one frontier element: the same tests without the loops.
      if (frontier_.empty()) return diff > 0;
      const T& f = frontier_[0];
      if (timely::less_than(f, time)) return false;
      return diff > 0 || timely::less_equal(f, time);
    }
    if (frontier_.less_than(time)) return false;
    if (diff < 0 && !frontier_.less_equal(time)) return false;
    return true;
  }

  /// Recomputes the frontier from the counts and reports the difference to the old one (an
  /// element removed and re-added within one batch is no change).
  template <class F>
  void do_rebuild(F&& on_change) {
    const auto& counts = updates_.view();
    if constexpr (TotalOrder<T>) {
      // A total order has at most one minimal element: the least time with a positive count.
      const T* least = nullptr;
      for (const auto& [t, d] : counts)
        if (d > 0) {
          least = &t;
          break;
        }
      if (frontier_.empty()) {
        if (least == nullptr) return;
        frontier_.elements_.push_back(*least);
      } else {
        if (least != nullptr && frontier_[0] == *least) return;
        on_change(frontier_[0], -1);
        if (least == nullptr) {
          frontier_.elements_.clear();
          return;
        }
        frontier_.elements_[0] = *least;
      }
      on_change(frontier_[0], 1);
    } else {
      scratch_.clear();
      // Scanning in the total order (which extends the partial order) means a later element can
      // never dominate an earlier one, so a plain "not dominated" check suffices.
      for (const auto& [t, d] : counts)
        if (d > 0 && !scratch_.less_equal(t)) scratch_.insert(t);
      for (const auto& t : frontier_)
        if (std::find(scratch_.begin(), scratch_.end(), t) == scratch_.end()) on_change(t, -1);
      for (const auto& t : scratch_)
        if (std::find(frontier_.begin(), frontier_.end(), t) == frontier_.end()) on_change(t, 1);
      std::swap(frontier_, scratch_);
    }
  }

  ChangeBatch<T> updates_;
  Antichain<T> frontier_;
  Antichain<T> scratch_;
};

}  // namespace timely::progress
