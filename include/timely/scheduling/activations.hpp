/// \file
/// Activations: the per-worker set of operator addresses to schedule next; `Activator` (activates
/// one operator, on its worker's thread), `SyncActivator` (the same from any thread: it also wakes
/// the worker if it is parked) and delayed activation (`Activations::activate_after`).
///
/// An address (path) is hierarchical: `[dataflow, operator]` at the top level, longer inside
/// nested scopes. Activating `[d, s, k]` makes the worker schedule dataflow `d`, which schedules
/// its child scope `s`, which schedules its child `k`. Activations raised during a step take
/// effect in the next step.
///
/// The members run once per step or per cross-thread activation are compiled in the library
/// (src/core/activations.cpp); the per-activation ones stay inline.
///
/// Source: the reference's `scheduling::activate` (SEMANTICS.md §5.9). Thread-safety:
/// `Activations` and `Activator` belong to their worker thread; `SyncActivations` and
/// `SyncActivator` may be used from any thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

namespace timely::scheduling {

/// An operator's address: its index at each level of scope nesting.
using Path = std::vector<std::size_t>;

/// Activations requested from other threads for one worker; wakes the worker when one arrives.
/// Thread-safe.
class SyncActivations {
 public:
  /// `wake` unparks the worker (it must have token semantics: a wake before a park counts).
  explicit SyncActivations(std::function<void()> wake) : wake_(std::move(wake)) {}
  /// Queues an activation of `path` and wakes the worker.
  void activate(Path path);
  /// Moves the queued paths to the end of `out`.
  void drain(std::vector<Path>& out);

 private:
  std::mutex mutex_;
  std::vector<Path> paths_;
  std::function<void()> wake_;
};

/// The set of activated operator addresses of one worker.
class Activations {
 public:
  using Clock = std::chrono::steady_clock;

  Activations();
  /// Activations whose cross-thread requests wake the worker through `wake`.
  explicit Activations(std::function<void()> wake);

  /// Requests that the operator at `path` be scheduled in the next step.
  void activate(std::span<const std::size_t> path) { pending_.add(path); }

  /// Requests that the operator at `path` be scheduled once `delay` (nanoseconds or any
  /// duration) has passed; a zero delay means the next step.
  template <class Rep, class Period>
  void activate_after(std::span<const std::size_t> path, std::chrono::duration<Rep, Period> delay) {
    if (delay <= delay.zero()) {
      activate(path);
      return;
    }
    timed_.push(Timed{Clock::now() + std::chrono::duration_cast<Clock::duration>(delay),
                      Path(path.begin(), path.end())});
  }

  /// The queue other threads use to activate operators of this worker.
  [[nodiscard]] const std::shared_ptr<SyncActivations>& sync() const noexcept { return sync_; }

  /// Starts a step: the pending activations (and those from other threads, and timed ones that
  /// are due) become the current ones (sorted, deduplicated); the previous set is discarded.
  void advance();

  /// Calls `f(index)` for each distinct index that follows `prefix` in a current activation, in
  /// increasing order.
  template <class F>
  void for_extensions(std::span<const std::size_t> prefix, F&& f) const {
    const auto& slices = current_.slices;
    auto it = std::lower_bound(
        slices.begin(), slices.end(), prefix, [&](const Slice& s, std::span<const std::size_t> pre) {
          const auto p = current_.view(s);
          return std::lexicographical_compare(p.begin(), p.end(), pre.begin(), pre.end());
        });
    bool have_last = false;
    std::size_t last = 0;
    for (; it != slices.end(); ++it) {
      const auto p = current_.view(*it);
      if (p.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), p.begin())) break;
      if (p.size() == prefix.size()) continue;
      const std::size_t next = p[prefix.size()];
      if (!have_last || next != last) f(next);
      have_last = true;
      last = next;
    }
  }

  /// How long the worker may park: zero if anything is waiting for the next step, the time
  /// until the next delayed activation, or `std::nullopt` if nothing is scheduled at all.
  [[nodiscard]] std::optional<Clock::duration> empty_for() const;

  /// Whether nothing is activated in the current step.
  [[nodiscard]] bool idle() const noexcept { return current_.slices.empty(); }
  /// Whether anything is waiting for the next step.
  [[nodiscard]] bool has_pending() const noexcept { return !pending_.slices.empty(); }

 private:
  struct Timed {
    Clock::time_point due;
    Path path;
    bool operator>(const Timed& other) const { return due > other.due; }
  };
  // Paths stored back to back in one buffer (no allocation per activation).
  struct Slice {
    std::size_t offset;
    std::size_t length;
  };
  struct PathList {
    std::vector<std::size_t> data;
    std::vector<Slice> slices;
    void add(std::span<const std::size_t> path) {
      slices.push_back(Slice{data.size(), path.size()});
      data.insert(data.end(), path.begin(), path.end());
    }
    [[nodiscard]] std::span<const std::size_t> view(const Slice& s) const {
      return {data.data() + s.offset, s.length};
    }
    void clear() {
      data.clear();
      slices.clear();
    }
    void sort_unique();
  };
  PathList current_;
  PathList pending_;
  std::vector<Path> scratch_;
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> timed_;
  std::shared_ptr<SyncActivations> sync_;
};

/// Activates one operator of one worker; cheap to copy. Must be used on that worker's thread.
class Activator {
 public:
  Activator(std::shared_ptr<Activations> activations, Path path)
      : activations_(std::move(activations)), path_(std::move(path)) {}
  /// Schedules the operator in the worker's next step.
  void activate() const { activations_->activate(path_); }
  /// Schedules the operator once `delay` has passed.
  template <class Rep, class Period>
  void activate_after(std::chrono::duration<Rep, Period> delay) const {
    activations_->activate_after(path_, delay);
  }
  [[nodiscard]] const Path& path() const noexcept { return path_; }

 private:
  std::shared_ptr<Activations> activations_;
  Path path_;
};

/// Activates one operator of one worker from any thread, waking the worker if it is parked.
/// Cheap to copy; thread-safe. Activating after the worker has finished does nothing.
class SyncActivator {
 public:
  SyncActivator(std::shared_ptr<SyncActivations> queue, Path path)
      : queue_(std::move(queue)), path_(std::move(path)) {}
  /// Schedules the operator in the worker's next step and unparks the worker.
  void activate() const { queue_->activate(path_); }
  [[nodiscard]] const Path& path() const noexcept { return path_; }

 private:
  std::shared_ptr<SyncActivations> queue_;
  Path path_;
};

}  // namespace timely::scheduling
