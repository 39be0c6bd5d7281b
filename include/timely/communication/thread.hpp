/// \file
/// The thread allocator (`Thread`): one worker, whose every channel is a queue owned by its
/// thread, with no locking; and the thread-local channel (`LocalPusher`, `LocalPuller`) that
/// every allocator kind uses for `pipeline`.
///
/// Source: the reference's `timely_communication::allocator::thread::Thread` (SEMANTICS.md
/// §7.3). Thread-safety: the allocator and its endpoints belong to the worker thread; only
/// `waker()` may be called from other threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/allocate.hpp>
#include <timely/communication/buzzer.hpp>
#include <timely/communication/push_pull.hpp>

namespace timely::communication {

namespace detail {

/// A queue owned by one thread, and the values its reader consumed, passed back to the writer
/// (`Recyclable` values only).
template <class T>
struct LocalQueue {
  std::deque<T> items;
  std::vector<T> recycled;
};

/// Appends to a `LocalQueue` and records the channel in the worker's events.
template <class T>
class LocalPusher final : public Push<T> {
 public:
  LocalPusher(std::shared_ptr<LocalQueue<T>> queue, std::shared_ptr<Events> events, std::size_t channel)
      : queue_(std::move(queue)), events_(std::move(events)), channel_(channel) {}
  void push(std::optional<T>& element) override {
    if (element) {
      queue_->items.push_back(std::move(*element));
      element.reset();
      if (!queue_->recycled.empty()) {
        element.emplace(std::move(queue_->recycled.back()));
        queue_->recycled.pop_back();
      }
      events_->push_back(channel_);
    }
  }

 private:
  std::shared_ptr<LocalQueue<T>> queue_;
  std::shared_ptr<Events> events_;
  std::size_t channel_;
};

/// Takes from the front of a `LocalQueue`.
template <class T>
class LocalPuller final : public Pull<T> {
 public:
  explicit LocalPuller(std::shared_ptr<LocalQueue<T>> queue) : queue_(std::move(queue)) {}
  std::optional<T>& pull() override {
    if constexpr (Recyclable<T>) {
      if (current_ && queue_->recycled.size() < recycled_per_queue && current_->recycle())
        queue_->recycled.push_back(std::move(*current_));
    }
    current_.reset();
    if (!queue_->items.empty()) {
      current_.emplace(std::move(queue_->items.front()));
      queue_->items.pop_front();
    }
    return current_;
  }

 private:
  std::shared_ptr<LocalQueue<T>> queue_;
  std::optional<T> current_;
};

/// A channel from a worker to itself whose pushes are recorded in `events`.
template <class T>
std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> local_channel(const std::shared_ptr<Events>& events,
                                                              std::size_t channel) {
  auto queue = std::make_shared<LocalQueue<T>>();
  return {std::make_unique<LocalPusher<T>>(queue, events, channel), std::make_unique<LocalPuller<T>>(queue)};
}

}  // namespace detail

/// The allocator of a computation with one worker: index 0 of 1 peer. Every channel is a
/// thread-local queue; `await_events` parks on the worker's own buzzer, which `waker()` (for
/// activations from other threads) buzzes.
class Thread {
 public:
  Thread() : events_(std::make_shared<Events>()), buzzer_(std::make_shared<Buzzer>()) {}

  [[nodiscard]] std::size_t index() const noexcept { return 0; }
  [[nodiscard]] std::size_t peers() const noexcept { return 1; }

  /// One pusher (to this worker) and the puller.
  template <class T>
  std::pair<Pushers<T>, PullPtr<T>> allocate(std::size_t channel) {
    auto [push, pull] = detail::local_channel<T>(events_, channel);
    Pushers<T> pushers;
    pushers.push_back(std::move(push));
    return {std::move(pushers), std::move(pull)};
  }
  /// With one worker a broadcast is a pipeline.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> broadcast(std::size_t channel) {
    return pipeline<T>(channel);
  }
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> pipeline(std::size_t channel) {
    return detail::local_channel<T>(events_, channel);
  }

  /// Nothing arrives from other threads: every push already recorded its event.
  void receive() noexcept {}
  void release() noexcept {}
  [[nodiscard]] Events& events() noexcept { return *events_; }
  /// Parks until `waker()` is called or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout) {
    if (events_->empty()) buzzer_->park(timeout);
  }
  /// Wakes this worker from any thread.
  [[nodiscard]] std::function<void()> waker() const {
    return [buzzer = buzzer_] { buzzer->buzz(); };
  }

 private:
  std::shared_ptr<Events> events_;
  std::shared_ptr<Buzzer> buzzer_;
};

static_assert(Allocate<Thread>);

}  // namespace timely::communication
