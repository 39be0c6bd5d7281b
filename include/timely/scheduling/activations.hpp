/// \file
/// Activations: the per-worker set of operator addresses to schedule next, and `Activator`, a
/// handle that activates one operator.
///
/// An address (path) is hierarchical: `[dataflow, operator]` at the top level, longer inside
/// nested scopes. Activating `[d, k]` makes the worker schedule dataflow `d`, which then
/// schedules its child `k`. Activations raised during a step take effect in the next step.
///
/// Source: the reference's `scheduling::activate` (SEMANTICS.md §5.9). Thread-safety: none; an
/// `Activations` belongs to its worker thread (activations from other threads come with the
/// nested-scope issue through a synchronized queue).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace timely::scheduling {

/// An operator's address: its index at each level of scope nesting.
using Path = std::vector<std::size_t>;

/// The set of activated operator addresses of one worker.
class Activations {
 public:
  /// Requests that the operator at `path` be scheduled in the next step.
  void activate(std::span<const std::size_t> path) { pending_.emplace_back(path.begin(), path.end()); }

  /// Starts a step: the pending activations become the current ones (sorted, deduplicated);
  /// the previous step's current set is discarded.
  void advance() {
    current_.clear();
    std::swap(current_, pending_);
    std::sort(current_.begin(), current_.end());
    current_.erase(std::unique(current_.begin(), current_.end()), current_.end());
  }

  /// Calls `f(index)` for each distinct index that follows `prefix` in a current activation, in
  /// increasing order.
  template <class F>
  void for_extensions(std::span<const std::size_t> prefix, F&& f) const {
    auto it = std::lower_bound(
        current_.begin(), current_.end(), prefix, [](const Path& p, std::span<const std::size_t> pre) {
          return std::lexicographical_compare(p.begin(), p.end(), pre.begin(), pre.end());
        });
    bool have_last = false;
    std::size_t last = 0;
    for (; it != current_.end(); ++it) {
      const Path& p = *it;
      if (p.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), p.begin())) break;
      if (p.size() == prefix.size()) continue;
      const std::size_t next = p[prefix.size()];
      if (!have_last || next != last) f(next);
      have_last = true;
      last = next;
    }
  }

  /// Whether nothing is activated for this step or the next.
  [[nodiscard]] bool empty() const noexcept { return current_.empty() && pending_.empty(); }
  /// Whether nothing is activated in the current step.
  [[nodiscard]] bool idle() const noexcept { return current_.empty(); }
  /// Whether anything is waiting for the next step.
  [[nodiscard]] bool has_pending() const noexcept { return !pending_.empty(); }

 private:
  std::vector<Path> current_;
  std::vector<Path> pending_;
};

/// Activates one operator of one worker; cheap to copy. Must be used on that worker's thread.
class Activator {
 public:
  Activator(std::shared_ptr<Activations> activations, Path path)
      : activations_(std::move(activations)), path_(std::move(path)) {}
  /// Schedules the operator in the worker's next step.
  void activate() const { activations_->activate(path_); }
  [[nodiscard]] const Path& path() const noexcept { return path_; }

 private:
  std::shared_ptr<Activations> activations_;
  Path path_;
};

}  // namespace timely::scheduling
