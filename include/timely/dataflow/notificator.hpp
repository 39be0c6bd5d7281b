/// \file
/// Notificators: `FrontierNotificator<T>` remembers capabilities an operator wants to be told
/// about and hands each back once, when its time is complete at every input (no input frontier
/// has an element <= it); `Notificator<T>` bundles one with the operator's input frontiers, as
/// the `*_notify` operators pass it to their logic.
///
/// Delivery order: the available times come out least first in `T`'s total order (a linear
/// extension of the partial order), and a request for a time that is already complete joins
/// them at once, so it is delivered in order within the same `for_each` (requesting 2 while
/// handling 0 with 1 and 3 available delivers 0, 1, 2, 3). A time that becomes available only
/// at a later scheduling may be smaller than one delivered earlier (SEMANTICS.md §5.10, §12
/// item 20). Requests for the same time are merged and delivered once, with their count.
///
/// Scheduling: an operator is scheduled when data arrives, when an input frontier moves, or when
/// it is activated. A request for a time that is already complete may be made in an operator's
/// last scheduling, after which nothing moves; so the notificator activates the operator (through
/// the request's capability) whenever a request may be deliverable at once: `notify_at`, which
/// cannot tell, at most once between two examinations; `notify_at_frontiered` when the time is
/// complete. The operator's next scheduling then delivers it (the reference leaves this to the
/// operator's author: its issue #283).
///
/// Source: Naiad §2.3 (notifications: OnNotify) and the reference's
/// `dataflow::operators::generic::notificator` (`notify_at_frontiered`). Thread-safety: none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/container/small_vector.hpp>
#include <timely/dataflow/capability.hpp>
#include <timely/progress/frontier.hpp>

namespace timely::dataflow {

/// Tracks notification requests (capabilities) and releases them as input frontiers pass them.
template <Timestamp T>
class FrontierNotificator {
 public:
  using Frontiers = std::span<const progress::MutableAntichain<T>* const>;

  /// Requests a notification at `cap.time()`; the capability is held until delivered. The
  /// request is examined by the next `make_available`, `next_count` or `for_each`. Its time may
  /// already be complete, so the first request after an examination activates the operator.
  void notify_at(Capability<T> cap) {
    if (!activated_) {
      cap.activate_operator();
      activated_ = true;
    }
    pending_.emplace_back(std::move(cap), 1);
  }

  /// Requests a notification at `cap.time()`, available at once if no frontier in `frontiers`
  /// has an element <= it (the reference's `notify_at_frontiered`); then the operator is
  /// activated, so that the notification is delivered even if no frontier moves again.
  void notify_at_frontiered(Capability<T> cap, Frontiers frontiers) {
    if (complete(cap.time(), frontiers)) {
      cap.activate_operator();
      push_available(std::move(cap), 1);
    } else {
      pending_.emplace_back(std::move(cap), 1);
    }
  }

  /// Moves requests whose times are complete at every input in `frontiers` to the available set.
  /// Requests for the same time are merged into one (with the summed count) as they are sorted.
  void make_available(Frontiers frontiers) {
    checked_ = 0;
    activated_ = false;
    if (pending_.empty()) return;
    if (pending_.size() == 1) {  // the common case: one outstanding request
      if (complete(pending_[0].first.time(), frontiers)) {
        push_available(std::move(pending_[0].first), pending_[0].second);
        pending_.pop_back();
      }
      checked_ = pending_.size();
      return;
    }
    const auto by_time = [](const auto& a, const auto& b) { return a.first.time() < b.first.time(); };
    std::sort(pending_.begin(), pending_.end(), by_time);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < pending_.size();) {
      std::size_t j = i + 1;
      std::int64_t count = pending_[i].second;
      while (j < pending_.size() && pending_[j].first.time() == pending_[i].first.time())
        count += pending_[j++].second;
      if (complete(pending_[i].first.time(), frontiers)) {
        push_available(std::move(pending_[i].first), count);
      } else {
        if (kept != i) pending_[kept].first = std::move(pending_[i].first);
        pending_[kept].second = count;
        ++kept;
      }
      i = j;  // the other capabilities for this time are dropped below: one suffices
    }
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(kept), pending_.end());
    checked_ = pending_.size();
  }

  /// The least available notification and how many requests it merges, if any. When nothing is
  /// available it first calls `make_available(frontiers)`; otherwise it examines only the
  /// requests made since the last examination, so a request for a complete time made between
  /// two calls is delivered in its order.
  std::optional<std::pair<Capability<T>, std::int64_t>> next_count(Frontiers frontiers) {
    if (available_.empty())
      make_available(frontiers);
    else
      examine_new(frontiers);
    if (available_.empty()) return std::nullopt;
    auto out = pop_available();
    // Merge requests for the same time that became available separately.
    while (!available_.empty() && available_.front().first.time() == out.first.time())
      out.second += pop_available().second;
    return out;
  }

  /// The next available notification's capability, if any.
  std::optional<Capability<T>> next(Frontiers frontiers) {
    auto n = next_count(frontiers);
    if (!n) return std::nullopt;
    return std::move(n->first);
  }

  /// Calls `f(Capability<T>, count)` for every available notification, least time first. It
  /// first examines every pending request against `frontiers`; requests `f` makes for times
  /// already complete are delivered by the same call, in order.
  template <class F>
  void for_each(Frontiers frontiers, F&& f) {
    make_available(frontiers);
    while (auto n = next_count(frontiers)) f(std::move(n->first), n->second);
  }

  /// Whether a notification is deliverable now: available, or pending at a time no frontier in
  /// `frontiers` has an element <= it. Linear in the pending requests; changes nothing.
  [[nodiscard]] bool deliverable(Frontiers frontiers) const {
    if (!available_.empty()) return true;
    for (const auto& entry : pending_)
      if (complete(entry.first.time(), frontiers)) return true;
    return false;
  }

  /// Outstanding requests not yet available, as (capability, count).
  [[nodiscard]] const std::vector<std::pair<Capability<T>, std::int64_t>>& pending() const noexcept {
    return pending_;
  }
  /// Whether no request is pending or available.
  [[nodiscard]] bool empty() const noexcept { return pending_.empty() && available_.empty(); }

 private:
  using Entry = std::pair<Capability<T>, std::int64_t>;

  // Whether no input frontier has an element <= `time`.
  static bool complete(const T& time, Frontiers frontiers) {
    for (const auto* f : frontiers)
      if (f->less_equal(time)) return false;
    return true;
  }
  // Min-heap on time: the heap's front is the least time.
  static bool later(const Entry& a, const Entry& b) { return b.first.time() < a.first.time(); }
  void push_available(Capability<T> cap, std::int64_t count) {
    available_.emplace_back(std::move(cap), count);
    std::push_heap(available_.begin(), available_.end(), later);
  }
  Entry pop_available() {
    std::pop_heap(available_.begin(), available_.end(), later);
    Entry out = std::move(available_.back());
    available_.pop_back();
    return out;
  }
  // Moves the complete ones among the requests made since the last examination.
  void examine_new(Frontiers frontiers) {
    for (std::size_t i = checked_; i < pending_.size();) {
      if (complete(pending_[i].first.time(), frontiers)) {
        push_available(std::move(pending_[i].first), pending_[i].second);
        if (i + 1 != pending_.size()) pending_[i] = std::move(pending_.back());
        pending_.pop_back();
      } else {
        ++i;
      }
    }
    checked_ = pending_.size();
    activated_ = false;
  }

  std::vector<Entry> pending_;
  std::size_t checked_ = 0;       // pending_[..checked_] were examined against the frontiers
  std::vector<Entry> available_;  // a heap by `later`: least time at the front
  // `notify_at` activated the operator since the last examination: one more scheduling suffices.
  bool activated_ = false;
};

/// A `FrontierNotificator` together with an operator's input frontiers, as `unary_notify` and
/// `binary_notify` hand it to their logic. Built for one scheduling (while the frontiers do not
/// change): its first delivery examines every pending request, and `notify_at` for a time that
/// is already complete makes it available at once.
template <Timestamp T>
class Notificator {
 public:
  Notificator(FrontierNotificator<T>& inner,
              std::initializer_list<const progress::MutableAntichain<T>*> frontiers)
      : inner_(&inner), frontiers_(frontiers.begin(), frontiers.end()) {}
  Notificator(FrontierNotificator<T>& inner,
              const std::vector<const progress::MutableAntichain<T>*>& frontiers)
      : inner_(&inner), frontiers_(frontiers.begin(), frontiers.end()) {}

  /// Requests a notification at `cap.time()`; deliverable by this notificator if that time is
  /// already complete.
  void notify_at(Capability<T> cap) { inner_->notify_at_frontiered(std::move(cap), view()); }
  /// The frontier of input `input`.
  [[nodiscard]] const progress::MutableAntichain<T>& frontier(std::size_t input) const {
    if (input >= frontiers_.size())
      throw std::out_of_range("Notificator::frontier: no input " + std::to_string(input));
    return *frontiers_[input];
  }
  /// The next complete notification (least time first) and its request count, if any.
  std::optional<std::pair<Capability<T>, std::int64_t>> next_count() {
    refresh();
    return inner_->next_count(view());
  }
  /// The next complete notification, if any.
  std::optional<Capability<T>> next() {
    auto n = next_count();
    if (!n) return std::nullopt;
    return std::move(n->first);
  }
  /// Calls `f(Capability<T>, count, Notificator&)` for each complete notification, least time
  /// first; `f` may request further notifications, and those at complete times are delivered
  /// by this call in their order.
  template <class F>
  void for_each(F&& f) {
    while (auto n = next_count()) f(std::move(n->first), n->second, *this);
  }
  /// Whether a notification is deliverable now (see `FrontierNotificator::deliverable`).
  [[nodiscard]] bool deliverable() const { return inner_->deliverable(view()); }

 private:
  typename FrontierNotificator<T>::Frontiers view() const { return {frontiers_.data(), frontiers_.size()}; }
  // The frontiers may have moved since the inner notificator last looked: examine everything once.
  void refresh() {
    if (refreshed_) return;
    inner_->make_available(view());
    refreshed_ = true;
  }

  FrontierNotificator<T>* inner_;
  // Inline storage: a notificator is built at every scheduling of a `*_notify` operator.
  container::SmallVector<const progress::MutableAntichain<T>*, 2> frontiers_;
  bool refreshed_ = false;
};

}  // namespace timely::dataflow
