/// \file
/// `Buzzer`: wakes one parked worker thread, with token semantics so that a wake-up is never
/// lost.
///
/// Source: the reference's `timely_communication::buzzer::Buzzer` (a thread handle that is
/// unparked; SEMANTICS.md §5.9 "Parking and wake-up"). Thread-safety: thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>

namespace timely::communication {

/// Wakes one parked thread. Token semantics: a `buzz` that happens before `park` makes that
/// `park` return at once, so wake-ups cannot be lost. Thread-safe.
class Buzzer {
 public:
  /// Sets the token and wakes the parked thread, if any.
  void buzz() {
    {
      std::lock_guard lock(mutex_);
      token_ = true;
      hint_.store(true, std::memory_order_release);
    }
    cv_.notify_one();
  }

  /// Waits until buzzed or until `timeout` (nanoseconds; `std::nullopt` = forever) passes, then
  /// clears the token.
  void park(std::optional<std::chrono::nanoseconds> timeout) {
    std::unique_lock lock(mutex_);
    if (timeout)
      cv_.wait_for(lock, *timeout, [&] { return token_; });
    else
      cv_.wait(lock, [&] { return token_; });
    token_ = false;
    hint_.store(false, std::memory_order_relaxed);
  }

  /// Whether a `buzz` may be pending (a hint for spinning; `park` is the truth).
  [[nodiscard]] bool maybe_buzzed() const noexcept { return hint_.load(std::memory_order_acquire); }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool token_ = false;
  std::atomic<bool> hint_{false};
};

}  // namespace timely::communication
