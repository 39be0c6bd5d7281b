/// \file
/// What the worker threads of one process share: `Buzzer` (a token-semantics wake-up for a
/// parked worker thread) and `ProcessShared` (one mailbox of channel events per worker, the
/// rendezvous where workers meet to create typed channels, and the failure flag that stops
/// every worker when one fails or a peer process is lost).
///
/// Source: the reference's process allocator and its buzzer (SEMANTICS.md §7.3, §5.9).
/// Thread-safety: both types are thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <typeindex>
#include <utility>
#include <vector>

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
  /// Whether a `buzz` may be pending (a hint for spinning; `park` is the truth).
  [[nodiscard]] bool maybe_buzzed() const noexcept { return hint_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool token_ = false;
  std::atomic<bool> hint_{false};
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
  /// Parks worker `index` unless its mailbox is non-empty or the process is poisoned. If spinning
  /// is on (`set_spinning`), spins for up to `spin` first (watching the mailbox, the buzzer and
  /// the poison flag), because waking a sleeping thread costs tens of microseconds, more than
  /// most waits for a peer worker's message.
  void park(std::size_t index, std::optional<std::chrono::nanoseconds> timeout);
  /// Wakes worker `index` (used by activations from other threads).
  void buzz(std::size_t index) { mailboxes_[index]->buzzer.buzz(); }

  /// Returns the bundle for `channel`, creating it with `make` on first arrival. Each of the
  /// `threads()` workers must call this exactly once per channel; the last caller forgets it.
  /// \throws timely::Error if workers allocate `channel` with different types (a sign that they
  /// built different dataflows, which breaks channel matching).
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

}  // namespace timely::communication
