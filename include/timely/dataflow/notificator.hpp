/// \file
/// Notificators: `FrontierNotificator<T>` remembers capabilities an operator wants to be told
/// about and hands each back once, when its time is complete at every input (no input frontier
/// has an element <= it); `Notificator<T>` bundles one with the operator's input frontiers, as
/// the `*_notify` operators pass it to their logic.
///
/// Delivery order: among the times available at a call, in the partial order (ties in `T`'s
/// total order); a time that becomes available later may be smaller in the total order than one
/// delivered earlier (SEMANTICS.md §5.10, §12 item 20). Requests for the same time are merged
/// and delivered once, with their count.
///
/// Source: Naiad §2.3 (notifications: OnNotify) and the reference's
/// `dataflow::operators::generic::notificator`. Thread-safety: none.
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

  /// Requests a notification at `cap.time()`; the capability is held until delivered.
  void notify_at(Capability<T> cap) { pending_.emplace_back(std::move(cap), 1); }

  /// Moves requests whose times are complete at every input in `frontiers` to the available set.
  /// Requests for the same time are merged into one (with the summed count) as they are sorted.
  void make_available(Frontiers frontiers) {
    if (pending_.empty()) return;
    if (pending_.size() == 1) {  // the common case: one outstanding request
      if (!complete(pending_[0].first.time(), frontiers)) return;
      available_.push_back(std::move(pending_[0]));
      pending_.pop_back();
      if (available_.size() > 1) sort_available();
      return;
    }
    const auto by_time = [](const auto& a, const auto& b) { return a.first.time() < b.first.time(); };
    std::sort(pending_.begin(), pending_.end(), by_time);
    std::size_t kept = 0;
    bool added = false;
    for (std::size_t i = 0; i < pending_.size();) {
      std::size_t j = i + 1;
      std::int64_t count = pending_[i].second;
      while (j < pending_.size() && pending_[j].first.time() == pending_[i].first.time())
        count += pending_[j++].second;
      const T& time = pending_[i].first.time();
      if (complete(time, frontiers)) {
        available_.emplace_back(std::move(pending_[i].first), count);
        added = true;
      } else {
        if (kept != i) pending_[kept].first = std::move(pending_[i].first);
        pending_[kept].second = count;
        ++kept;
      }
      i = j;  // the other capabilities for this time are dropped below: one suffices
    }
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(kept), pending_.end());
    if (added && available_.size() > 1) sort_available();
  }

  /// The next available notification and how many requests it merges, if any.
  std::optional<std::pair<Capability<T>, std::int64_t>> next_count(Frontiers frontiers) {
    if (available_.empty()) make_available(frontiers);
    if (available_.empty()) return std::nullopt;
    auto out = std::move(available_.back());
    available_.pop_back();
    // Merge requests for the same time that became available separately.
    while (!available_.empty() && available_.back().first.time() == out.first.time()) {
      out.second += available_.back().second;
      available_.pop_back();
    }
    return out;
  }

  /// The next available notification's capability, if any.
  std::optional<Capability<T>> next(Frontiers frontiers) {
    auto n = next_count(frontiers);
    if (!n) return std::nullopt;
    return std::move(n->first);
  }

  /// Calls `f(Capability<T>, count)` for every available notification, in order.
  template <class F>
  void for_each(Frontiers frontiers, F&& f) {
    while (auto n = next_count(frontiers)) f(std::move(n->first), n->second);
  }

  /// Outstanding requests not yet available, as (capability, count).
  [[nodiscard]] const std::vector<std::pair<Capability<T>, std::int64_t>>& pending() const noexcept {
    return pending_;
  }
  /// Whether no request is pending or available.
  [[nodiscard]] bool empty() const noexcept { return pending_.empty() && available_.empty(); }

 private:
  // Whether no input frontier has an element <= `time`.
  static bool complete(const T& time, Frontiers frontiers) {
    for (const auto* f : frontiers)
      if (f->less_equal(time)) return false;
    return true;
  }
  void sort_available() {
    std::sort(available_.begin(), available_.end(),
              [](const auto& a, const auto& b) { return b.first.time() < a.first.time(); });  // smallest last
  }

  std::vector<std::pair<Capability<T>, std::int64_t>> pending_;
  std::vector<std::pair<Capability<T>, std::int64_t>> available_;  // sorted, smallest time last
};

/// A `FrontierNotificator` together with an operator's input frontiers, as `unary_notify` and
/// `binary_notify` hand it to their logic.
template <Timestamp T>
class Notificator {
 public:
  Notificator(FrontierNotificator<T>& inner,
              std::initializer_list<const progress::MutableAntichain<T>*> frontiers)
      : inner_(&inner), frontiers_(frontiers.begin(), frontiers.end()) {}
  Notificator(FrontierNotificator<T>& inner,
              const std::vector<const progress::MutableAntichain<T>*>& frontiers)
      : inner_(&inner), frontiers_(frontiers.begin(), frontiers.end()) {}

  /// Requests a notification at `cap.time()`.
  void notify_at(Capability<T> cap) { inner_->notify_at(std::move(cap)); }
  /// The frontier of input `input`.
  [[nodiscard]] const progress::MutableAntichain<T>& frontier(std::size_t input) const {
    if (input >= frontiers_.size())
      throw std::out_of_range("Notificator::frontier: no input " + std::to_string(input));
    return *frontiers_[input];
  }
  /// The next complete notification and its request count, if any.
  std::optional<std::pair<Capability<T>, std::int64_t>> next_count() { return inner_->next_count(view()); }
  /// The next complete notification, if any.
  std::optional<Capability<T>> next() { return inner_->next(view()); }
  /// Calls `f(Capability<T>, count, Notificator&)` for each complete notification, in order; `f`
  /// may request further notifications.
  template <class F>
  void for_each(F&& f) {
    while (auto n = inner_->next_count(view())) f(std::move(n->first), n->second, *this);
  }

 private:
  typename FrontierNotificator<T>::Frontiers view() const { return {frontiers_.data(), frontiers_.size()}; }

  FrontierNotificator<T>* inner_;
  // Inline storage: a notificator is built at every scheduling of a `*_notify` operator.
  container::SmallVector<const progress::MutableAntichain<T>*, 2> frontiers_;
};

}  // namespace timely::dataflow
