/// \file
/// Allocators: how a worker gets channels to its peers. Holds `Buzzer` (a token-semantics
/// wake-up for a parked worker thread), `ProcessShared` (what the worker threads of one process
/// share: mailboxes of channel events and the channel rendezvous) and `Allocator` (one per
/// worker: typed point-to-point, broadcast and pipeline channels, event collection, parking).
///
/// With one worker the allocator is the *thread* allocator: every channel is a queue owned by
/// that thread, with no locking. With W worker threads it is the *process* allocator: a channel
/// has one mutex-guarded queue per receiver; a push appends the value, then the channel id to the
/// receiver's mailbox, then buzzes the receiver if its mailbox went from empty to non-empty, in
/// that order, so a wake-up is never lost and a busy receiver is never buzzed twice.
/// A cluster allocator (several processes) plugs in below `Allocator::allocate` for remote
/// targets without changing the callers.
///
/// Source: the reference's `timely_communication::allocator::{thread, process}` and its buzzer
/// (SEMANTICS.md §7.2-§7.4, §5.9 "Parking and wake-up"). Thread-safety: `Allocator` and the
/// endpoints it returns belong to their worker thread; `ProcessShared` and `Buzzer` are
/// thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>

namespace timely::communication {

/// Wakes one parked thread. Token semantics: a `buzz` that happens before `park` makes that
/// `park` return at once, so wake-ups cannot be lost. Thread-safe.
class Buzzer {
 public:
  /// Sets the token and wakes the parked thread, if any.
  void buzz();
  /// Waits until buzzed or until `timeout` (nanoseconds; `std::nullopt` = forever) passes, then
  /// clears the token.
  void park(std::optional<std::chrono::nanoseconds> timeout);

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool token_ = false;
};

/// The state shared by the worker threads of one process: one mailbox of channel events per
/// worker, the rendezvous where workers meet to create typed channels, and the poison flag that
/// stops every worker when one fails. Thread-safe.
class ProcessShared {
 public:
  /// \param threads number of worker threads (>= 1). \throws std::invalid_argument on 0.
  explicit ProcessShared(std::size_t threads);

  [[nodiscard]] std::size_t threads() const noexcept { return mailboxes_.size(); }

  /// Appends `channel` to worker `target`'s mailbox; buzzes it on the empty->non-empty edge.
  void notify(std::size_t target, std::size_t channel);
  /// Moves worker `index`'s pending channel ids to the end of `out`.
  void drain(std::size_t index, std::vector<std::size_t>& out);
  /// Whether worker `index` has pending channel ids.
  [[nodiscard]] bool pending(std::size_t index);
  /// Parks worker `index` unless its mailbox is non-empty or the process is poisoned.
  void park(std::size_t index, std::optional<std::chrono::nanoseconds> timeout);
  /// Wakes worker `index` (used by activations from other threads).
  void buzz(std::size_t index) { mailboxes_[index]->buzzer.buzz(); }

  /// Returns the bundle for `channel`, creating it with `make` on first arrival. Each of the
  /// `threads()` workers must call this exactly once per channel; the last caller forgets it.
  /// \throws timely::Error if workers allocate `channel` with different types (a sign that they
  /// built different dataflows, which breaks channel matching).
  std::shared_ptr<void> rendezvous(std::size_t channel, std::type_index type,
                                   const std::function<std::shared_ptr<void>()>& make);

  /// Marks the process failed and wakes every worker; they stop at their next step.
  void poison();
  [[nodiscard]] bool poisoned() const noexcept { return poisoned_.load(std::memory_order_acquire); }

 private:
  struct Mailbox {
    std::mutex mutex;
    std::vector<std::size_t> ids;
    Buzzer buzzer;
  };
  struct Meeting {
    std::shared_ptr<void> bundle;
    std::type_index type;
    std::size_t arrived;
  };
  std::vector<std::unique_ptr<Mailbox>> mailboxes_;
  std::mutex rendezvous_mutex_;
  std::vector<std::pair<std::size_t, Meeting>> meetings_;
  std::atomic<bool> poisoned_{false};
};

namespace detail {

/// Channel ids that saw activity on this worker; shared by its local pushers. One thread only.
using Events = std::vector<std::size_t>;

/// A queue owned by one thread (pipeline channels and the thread allocator).
template <class T>
struct LocalQueue {
  std::deque<T> items;
};

template <class T>
class LocalPusher final : public Push<T> {
 public:
  LocalPusher(std::shared_ptr<LocalQueue<T>> queue, std::shared_ptr<Events> events, std::size_t channel)
      : queue_(std::move(queue)), events_(std::move(events)), channel_(channel) {}
  void push(std::optional<T>& element) override {
    if (element) {
      queue_->items.push_back(std::move(*element));
      element.reset();
      events_->push_back(channel_);
    }
  }

 private:
  std::shared_ptr<LocalQueue<T>> queue_;
  std::shared_ptr<Events> events_;
  std::size_t channel_;
};

template <class T>
class LocalPuller final : public Pull<T> {
 public:
  explicit LocalPuller(std::shared_ptr<LocalQueue<T>> queue) : queue_(std::move(queue)) {}
  std::optional<T>& pull() override {
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

/// One receiver's queue of a process channel: many writers, one reader.
template <class T>
struct SharedQueue {
  std::mutex mutex;
  std::vector<T> items;
};

/// The queues of one process channel, one per receiving worker.
template <class T>
struct ChannelBundle {
  explicit ChannelBundle(std::size_t peers) : queues(peers) {}
  std::vector<SharedQueue<T>> queues;
};

template <class T>
class ProcessPusher final : public Push<T> {
 public:
  ProcessPusher(std::shared_ptr<ChannelBundle<T>> bundle, std::shared_ptr<ProcessShared> shared,
                std::shared_ptr<Events> events, std::size_t self, std::size_t target, std::size_t channel)
      : bundle_(std::move(bundle)),
        shared_(std::move(shared)),
        events_(std::move(events)),
        self_(self),
        target_(target),
        channel_(channel) {}

  void push(std::optional<T>& element) override {
    if (!element) return;
    {
      auto& q = bundle_->queues[target_];
      std::lock_guard lock(q.mutex);
      q.items.push_back(std::move(*element));
    }
    element.reset();
    // Data first, then the event, then the buzz: the receiver can never see the event without
    // the data, nor park after the data arrived.
    if (target_ == self_)
      events_->push_back(channel_);
    else
      shared_->notify(target_, channel_);
  }

 private:
  std::shared_ptr<ChannelBundle<T>> bundle_;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<Events> events_;
  std::size_t self_;
  std::size_t target_;
  std::size_t channel_;
};

template <class T>
class ProcessPuller final : public Pull<T> {
 public:
  ProcessPuller(std::shared_ptr<ChannelBundle<T>> bundle, std::size_t self)
      : bundle_(std::move(bundle)), self_(self) {}

  std::optional<T>& pull() override {
    current_.reset();
    if (next_ == local_.size()) {
      local_.clear();
      next_ = 0;
      auto& q = bundle_->queues[self_];
      std::lock_guard lock(q.mutex);
      std::swap(local_, q.items);
    }
    if (next_ < local_.size()) current_.emplace(std::move(local_[next_++]));
    return current_;
  }

 private:
  std::shared_ptr<ChannelBundle<T>> bundle_;
  std::size_t self_;
  std::vector<T> local_;
  std::size_t next_ = 0;
  std::optional<T> current_;
};

/// Pushes a copy to every inner pusher but the last, which receives the original.
template <class T>
class FanOut final : public Push<T> {
 public:
  explicit FanOut(std::vector<std::unique_ptr<Push<T>>> pushers) : pushers_(std::move(pushers)) {}
  void push(std::optional<T>& element) override {
    if (!element) {
      for (auto& p : pushers_) p->done();
      return;
    }
    for (std::size_t i = 0; i + 1 < pushers_.size(); ++i) pushers_[i]->send(*element);
    if (!pushers_.empty()) pushers_.back()->push(element);
  }

 private:
  std::vector<std::unique_ptr<Push<T>>> pushers_;
};

}  // namespace detail

/// One worker's allocator: its index among `peers()` workers, its channels, its events.
///
/// Channels are identified by a number that every worker allocates in the same order (the
/// identifier discipline, SEMANTICS.md §5.2). A value pushed into pusher `i` of a channel
/// arrives at worker `i`, in FIFO order per sender. Not thread-safe: use it on its worker thread.
class Allocator {
 public:
  /// An allocator for worker `index` of the process described by `shared`.
  Allocator(std::size_t index, std::shared_ptr<ProcessShared> shared)
      : index_(index), shared_(std::move(shared)), events_(std::make_shared<detail::Events>()) {}

  /// A single-worker (thread) allocator.
  static Allocator thread() { return Allocator(0, std::make_shared<ProcessShared>(1)); }

  [[nodiscard]] std::size_t index() const noexcept { return index_; }
  [[nodiscard]] std::size_t peers() const noexcept { return shared_->threads(); }

  /// Point-to-point channel: `peers()` pushers (entry `i` delivers to worker `i`) and one puller.
  /// `T` must be movable between threads.
  template <class T>
  std::pair<std::vector<std::unique_ptr<Push<T>>>, std::unique_ptr<Pull<T>>> allocate(std::size_t channel) {
    std::vector<std::unique_ptr<Push<T>>> pushers;
    if (peers() == 1) {
      auto [push, pull] = pipeline<T>(channel);
      pushers.push_back(std::move(push));
      return {std::move(pushers), std::move(pull)};
    }
    auto erased = shared_->rendezvous(channel, std::type_index(typeid(T)), [n = peers()] {
      return std::static_pointer_cast<void>(std::make_shared<detail::ChannelBundle<T>>(n));
    });
    auto bundle = std::static_pointer_cast<detail::ChannelBundle<T>>(erased);
    for (std::size_t target = 0; target < peers(); ++target)
      pushers.push_back(
          std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, index_, target, channel));
    return {std::move(pushers), std::make_unique<detail::ProcessPuller<T>>(bundle, index_)};
  }

  /// Broadcast channel: one pusher that reaches every worker, this one included. `T` is copied
  /// for all workers but one.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, std::unique_ptr<Pull<T>>> broadcast(std::size_t channel) {
    auto [pushers, puller] = allocate<T>(channel);
    return {std::make_unique<detail::FanOut<T>>(std::move(pushers)), std::move(puller)};
  }

  /// A channel from this worker to itself: a plain queue, whatever the allocator kind.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, std::unique_ptr<Pull<T>>> pipeline(std::size_t channel) {
    auto queue = std::make_shared<detail::LocalQueue<T>>();
    return {std::make_unique<detail::LocalPusher<T>>(queue, events_, channel),
            std::make_unique<detail::LocalPuller<T>>(queue)};
  }

  /// Moves channel events from other threads into `events()`.
  void receive() { shared_->drain(index_, *events_); }
  /// Publishes buffered outbound data (nothing to do for in-process channels).
  void release() {}
  /// Channel ids with activity since the caller last cleared the list.
  [[nodiscard]] std::vector<std::size_t>& events() noexcept { return *events_; }
  /// Parks the thread until an event arrives or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout) {
    if (events_->empty()) shared_->park(index_, timeout);
  }

  /// The process-wide shared state (for activations from other threads and failure handling).
  [[nodiscard]] const std::shared_ptr<ProcessShared>& shared() const noexcept { return shared_; }

 private:
  std::size_t index_;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<detail::Events> events_;
};

}  // namespace timely::communication
