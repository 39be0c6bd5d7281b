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
#include <optional>
#include <span>
#include <utility>
#include <vector>

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
  void make_available(Frontiers frontiers) {
    if (pending_.empty()) return;
    std::sort(pending_.begin(), pending_.end(),
              [](const auto& a, const auto& b) { return a.first.time() < b.first.time(); });
    auto& still = scratch_;
    still.clear();
    for (std::size_t i = 0; i < pending_.size();) {
      std::size_t j = i + 1;
      std::int64_t count = pending_[i].second;
      while (j < pending_.size() && pending_[j].first.time() == pending_[i].first.time())
        count += pending_[j++].second;
      const T& time = pending_[i].first.time();
      const bool ready =
          std::none_of(frontiers.begin(), frontiers.end(),
                       [&](const progress::MutableAntichain<T>* f) { return f->less_equal(time); });
      auto& target = ready ? available_ : still;
      target.emplace_back(std::move(pending_[i].first), count);
      i = j;  // the other capabilities for this time are dropped here: one suffices
    }
    std::swap(pending_, still);
    std::sort(available_.begin(), available_.end(),
              [](const auto& a, const auto& b) { return b.first.time() < a.first.time(); });  // smallest last
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
  std::vector<std::pair<Capability<T>, std::int64_t>> pending_;
  std::vector<std::pair<Capability<T>, std::int64_t>> available_;  // sorted, smallest time last
  std::vector<std::pair<Capability<T>, std::int64_t>> scratch_;    // reused by make_available
};

/// A `FrontierNotificator` together with an operator's input frontiers, as `unary_notify` and
/// `binary_notify` hand it to their logic.
template <Timestamp T>
class Notificator {
 public:
  Notificator(FrontierNotificator<T>& inner, std::vector<const progress::MutableAntichain<T>*> frontiers)
      : inner_(&inner), frontiers_(std::move(frontiers)) {}

  /// Requests a notification at `cap.time()`.
  void notify_at(Capability<T> cap) { inner_->notify_at(std::move(cap)); }
  /// The frontier of input `input`.
  [[nodiscard]] const progress::MutableAntichain<T>& frontier(std::size_t input) const {
    return *frontiers_.at(input);
  }
  /// The next complete notification and its request count, if any.
  std::optional<std::pair<Capability<T>, std::int64_t>> next_count() {
    return inner_->next_count(frontiers_);
  }
  /// The next complete notification, if any.
  std::optional<Capability<T>> next() { return inner_->next(frontiers_); }
  /// Calls `f(Capability<T>, count, Notificator&)` for each complete notification, in order; `f`
  /// may request further notifications.
  template <class F>
  void for_each(F&& f) {
    while (auto n = inner_->next_count(frontiers_)) f(std::move(n->first), n->second, *this);
  }

 private:
  FrontierNotificator<T>* inner_;
  std::vector<const progress::MutableAntichain<T>*> frontiers_;
};

}  // namespace timely::dataflow
