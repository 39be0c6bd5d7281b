/// \file
/// The process allocator (`Process`): W worker threads of one process, whose channels carry
/// typed values between threads without serialization; and `ProcessShared`, the state those
/// threads share (one mailbox of channel events per worker, the rendezvous where workers meet
/// to create typed channels, and the poison flag that stops every worker when one fails or a
/// peer process is lost).
///
/// A channel has one mutex-guarded queue per receiving worker. A push appends the value, then
/// the channel id to the receiver's mailbox, then buzzes the receiver if its mailbox went from
/// empty to non-empty, in that order, so a wake-up is never lost and a busy receiver is never
/// buzzed twice.
///
/// Source: the reference's `timely_communication::allocator::process::Process` and its
/// buzzers (SEMANTICS.md §7.4, §5.9). Thread-safety: `ProcessShared` is thread-safe; a
/// `Process` allocator and its endpoints belong to their worker thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <timely/communication/allocate.hpp>
#include <timely/communication/buzzer.hpp>
#include <timely/communication/push_pull.hpp>
#include <timely/communication/thread.hpp>

namespace timely::communication {

/// The C++ name of `type`, demangled (the same text in every process of one ABI).
std::string demangled_name(const std::type_info& type);

/// `a` and `b` cut to about `width` characters each around where they first differ, with "..."
/// where cut (whole if short enough): a message naming two long types (a demangled C++ name
/// runs to megabytes for deeply nested templates) shows what tells them apart and stays short.
std::pair<std::string, std::string> excerpts_around_difference(const std::string& a, const std::string& b,
                                                               std::size_t width = 240);

/// The state shared by the worker threads of one process: one mailbox of channel events per
/// worker, the rendezvous where workers meet to create typed channels, and the poison flag that
/// stops every worker when one fails. Thread-safe.
class ProcessShared {
 public:
  /// \param threads number of worker threads (>= 1). \throws ConfigError on 0.
  explicit ProcessShared(std::size_t threads);

  [[nodiscard]] std::size_t threads() const noexcept { return mailboxes_.size(); }

  /// Appends `channel` to worker `target`'s mailbox; buzzes it on the empty->non-empty edge.
  void notify(std::size_t target, std::size_t channel);
  /// Moves worker `index`'s pending channel ids to the end of `out`.
  void drain(std::size_t index, std::vector<std::size_t>& out);
  /// Whether worker `index` has pending channel ids.
  [[nodiscard]] bool pending(std::size_t index);
  /// Parks worker `index` unless its mailbox is non-empty or the process is poisoned. If spinning
  /// is on (`set_spinning`), spins for up to `spin` first (watching the mailbox, the buzzer and
  /// the poison flag), because waking a sleeping thread costs tens of microseconds, more than
  /// most waits for a peer worker's message.
  void park(std::size_t index, std::optional<std::chrono::nanoseconds> timeout);
  /// Wakes worker `index` (used by activations from other threads).
  void buzz(std::size_t index) { mailboxes_[index]->buzzer.buzz(); }

  /// Returns the bundle for `channel`, creating it with `make` on first arrival. Each of the
  /// `threads()` workers must call this exactly once per channel; the last caller forgets it.
  /// \throws DataflowError naming both types if workers allocate `channel` with different types
  /// (they built different dataflows, which breaks channel matching).
  std::shared_ptr<void> rendezvous(std::size_t channel, std::type_index type,
                                   const std::function<std::shared_ptr<void>()>& make);

  /// Turns spinning before parking on or off (off by default). Worth it only when every worker
  /// has a core of its own and no other thread of the process needs one: `execute` turns it on
  /// for 2 <= W <= hardware threads in a single process without network threads. Call before
  /// the workers start.
  void set_spinning(bool on) noexcept { spinning_ = on; }

  /// Marks the process failed and wakes every worker; they stop at their next step.
  void poison();
  /// Records `error` as the reason the process failed (the first one recorded wins), then
  /// poisons the process. Used for failures outside the workers: a lost peer process.
  void fail(std::exception_ptr error);
  /// The error recorded by `fail`, or null.
  [[nodiscard]] std::exception_ptr failure() const;
  [[nodiscard]] bool poisoned() const noexcept { return poisoned_.load(std::memory_order_acquire); }

 private:
  struct Mailbox {
    std::mutex mutex;
    std::vector<std::size_t> ids;
    std::atomic<bool> nonempty{false};  // ids is non-empty (a hint for spinning)
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
  bool spinning_ = false;

 public:
  /// How long `park` spins before sleeping.
  static constexpr std::chrono::microseconds spin{50};

 private:
  mutable std::mutex failure_mutex_;
  std::exception_ptr failure_;
};

namespace detail {

/// One receiver's queue of a process channel: many writers, one reader. What the receiver's
/// own worker wrote is kept apart (`own`); what the others wrote is kept with each value's
/// writer. Once consumed, a `Recyclable` value goes back to the worker that wrote it
/// (`recycled` of that worker's queue), whose pushers on the channel hand it out to be filled
/// again: a worker's own values up to `recycled_per_queue`, others' up to
/// `returned_per_writer`. Freeing another worker's value instead, as the reference's process
/// allocator does, had glibc's `free` put it back into the writer's heap from the reader's
/// thread, and vector `exchange 10000 2000 -w 2` ran 7-15 % slower than with every value
/// passed back (with jemalloc, which keeps a thread's frees for that thread, the two ran
/// alike). Passing values to whichever worker wrote next instead of to their writer ran 15 %
/// slower. Without any passing back, glibc returns the top of the heap after a round's batches
/// are freed and faults it in again (`benches/README.md`).
template <class T>
struct SharedQueue {
  std::mutex mutex;
  std::vector<T> items;              // from the other workers
  std::vector<std::size_t> writers;  // the worker (local index) that wrote each of `items`
  std::vector<T> own;                // from the receiver's own worker
  std::vector<T> recycled;           // consumed values this queue's worker wrote
};

/// The queues of one process channel, one per receiving worker.
template <class T>
struct ChannelBundle {
  explicit ChannelBundle(std::size_t peers) : queues(peers) {}
  std::vector<SharedQueue<T>> queues;
};

/// The bundle of `channel` for this process's workers, created by the first to ask.
template <class T>
std::shared_ptr<ChannelBundle<T>> process_bundle(ProcessShared& shared, std::size_t channel) {
  auto erased = shared.rendezvous(channel, std::type_index(typeid(T)), [n = shared.threads()] {
    return std::static_pointer_cast<void>(std::make_shared<ChannelBundle<T>>(n));
  });
  return std::static_pointer_cast<ChannelBundle<T>>(erased);
}

/// Sends to worker `target` of this process (local indices).
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
      if (target_ != self_) {
        q.items.push_back(std::move(*element));
        q.writers.push_back(self_);
        element.reset();
      } else {
        q.own.push_back(std::move(*element));
        element.reset();
        take_recycled(q, element);
      }
    }
    if constexpr (Recyclable<T>) {
      if (target_ != self_) {  // what this worker wrote comes back to its own queue
        auto& mine = bundle_->queues[self_];
        std::lock_guard lock(mine.mutex);
        take_recycled(mine, element);
      }
    }
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

  // Hands the last value passed back to this worker's queue `q` (its mutex held) to `element`.
  static void take_recycled(SharedQueue<T>& q, std::optional<T>& element) {
    if (q.recycled.empty()) return;
    element.emplace(std::move(q.recycled.back()));
    q.recycled.pop_back();
  }
};

/// Receives worker `self`'s queue of a channel, a whole batch per lock, and passes what it
/// consumed back to the queues of the workers that wrote it.
template <class T>
class ProcessPuller final : public Pull<T> {
 public:
  ProcessPuller(std::shared_ptr<ChannelBundle<T>> bundle, std::size_t self)
      : bundle_(std::move(bundle)), self_(self), returned_(bundle_->queues.size()) {}

  std::optional<T>& pull() override {
    if constexpr (Recyclable<T>) {
      if (current_ && current_->recycle()) returned_[current_writer_].push_back(std::move(*current_));
    }
    current_.reset();
    if (next_ == local_.size() && next_own_ == own_.size()) {
      local_.clear();
      writers_.clear();
      own_.clear();
      next_ = next_own_ = 0;
      {
        auto& q = bundle_->queues[self_];
        std::lock_guard lock(q.mutex);
        std::swap(local_, q.items);
        std::swap(writers_, q.writers);
        std::swap(own_, q.own);
        pass_back(q, returned_[self_], recycled_per_queue);
      }
      for (std::size_t w = 0; w < returned_.size(); ++w) {
        if (w == self_ || returned_[w].empty()) continue;
        auto& q = bundle_->queues[w];
        std::lock_guard lock(q.mutex);
        pass_back(q, returned_[w], returned_per_writer);
      }
    }
    // Each writer's values stay in the order it wrote them; between writers there is no order.
    if (next_own_ < own_.size()) {
      current_writer_ = self_;
      current_.emplace(std::move(own_[next_own_++]));
    } else if (next_ < local_.size()) {
      current_writer_ = writers_[next_];
      current_.emplace(std::move(local_[next_++]));
    }
    return current_;
  }

 private:
  // Moves `values` into `q.recycled` (its mutex held) while it holds fewer than `limit`; the
  // rest are dropped.
  static void pass_back(SharedQueue<T>& q, std::vector<T>& values, std::size_t limit) {
    for (auto& v : values) {
      if (q.recycled.size() >= limit) break;
      q.recycled.push_back(std::move(v));
    }
    values.clear();
  }

  std::shared_ptr<ChannelBundle<T>> bundle_;
  std::size_t self_;
  std::vector<T> local_, own_;        // as SharedQueue::items and own
  std::vector<std::size_t> writers_;  // as SharedQueue::writers
  std::size_t next_ = 0, next_own_ = 0;
  std::optional<T> current_;
  std::size_t current_writer_ = 0;        // who wrote current_
  std::vector<std::vector<T>> returned_;  // consumed values by writer, passed back at the next refill
};

}  // namespace detail

/// The allocator of worker `index` among the `shared->threads()` workers of a single process.
class Process {
 public:
  Process(std::size_t index, std::shared_ptr<ProcessShared> shared)
      : index_(index), shared_(std::move(shared)), events_(std::make_shared<Events>()) {}

  [[nodiscard]] std::size_t index() const noexcept { return index_; }
  [[nodiscard]] std::size_t peers() const noexcept { return shared_->threads(); }

  /// `peers()` pushers (entry `i` delivers to worker `i`) and one puller.
  /// \throws DataflowError if other workers allocated `channel` with another type.
  template <class T>
  std::pair<Pushers<T>, PullPtr<T>> allocate(std::size_t channel) {
    Pushers<T> pushers;
    if (peers() == 1) {
      auto [push, pull] = pipeline<T>(channel);
      pushers.push_back(std::move(push));
      return {std::move(pushers), std::move(pull)};
    }
    auto bundle = detail::process_bundle<T>(*shared_, channel);
    for (std::size_t target = 0; target < peers(); ++target)
      pushers.push_back(
          std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, index_, target, channel));
    return {std::move(pushers), std::make_unique<detail::ProcessPuller<T>>(std::move(bundle), index_)};
  }
  /// One pusher that reaches every worker (a copy for all but the last), and the puller.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> broadcast(std::size_t channel) {
    auto [pushers, puller] = allocate<T>(channel);
    return {std::make_unique<FanOut<T>>(std::move(pushers)), std::move(puller)};
  }
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> pipeline(std::size_t channel) {
    return detail::local_channel<T>(events_, channel);
  }

  /// Moves channel events that other threads left in this worker's mailbox into `events()`.
  void receive() { shared_->drain(index_, *events_); }
  void release() noexcept {}
  [[nodiscard]] Events& events() noexcept { return *events_; }
  /// Parks until an event arrives or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout) {
    if (events_->empty()) shared_->park(index_, timeout);
  }
  /// Wakes this worker from any thread.
  [[nodiscard]] std::function<void()> waker() const {
    return [shared = shared_, index = index_] { shared->buzz(index); };
  }
  [[nodiscard]] const std::shared_ptr<ProcessShared>& shared() const noexcept { return shared_; }

 private:
  std::size_t index_;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<Events> events_;
};

static_assert(Allocate<Process>);

}  // namespace timely::communication
