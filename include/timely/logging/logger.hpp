/// \file
/// Logging: `Logger<E>` buffers timestamped events of type `E` and hands them in batches to an
/// action; `Registry` maps stream names (such as "timely") to the actions registered for them,
/// so that components can ask for a logger by name and log nothing when none is registered.
///
/// Event times: a logger stamps each event with `EventClock::stamp()`, on x86-64 with an
/// invariant TSC the processor's time-stamp counter (a few ns, against 20-30 ns for
/// `steady_clock::now()`, which would be a fifth of a busy worker's time with every stream
/// logged), and turns the stamps of a batch into `steady_clock` nanoseconds when it publishes
/// it, by interpolating between the steady-clock readings of the previous and this publication.
/// The times are thus `steady_clock` times (one clock for all workers of a process), ordered
/// within a logger, and never later than the batch's `now`. Elsewhere each stamp is a
/// `steady_clock` reading.
///
/// Source: the reference's `timely_logging` crate (SEMANTICS.md §8). Thread-safety: a registry
/// and its loggers belong to one worker thread; actions run on that thread (or on another one
/// after that thread is done with them: the runtime publishes a process's last communication
/// events after its workers joined).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace timely::logging {

/// Time since the registry's start, in nanoseconds.
using Duration = std::chrono::nanoseconds;

/// Receives batches of events: `action(now, events)`, where each event carries the time it was
/// logged. An empty batch means "flush: no more events before `now`".
template <class E>
using Action = std::function<void(Duration now, std::vector<std::pair<Duration, E>>& events)>;

/// Stamps events cheaply and converts the stamps into nanoseconds since `start` (see the file
/// comment). Thread-safety: one thread at a time.
class EventClock {
 public:
  explicit EventClock(std::chrono::steady_clock::time_point start) : start_(start) { anchor(); }

  /// Whether stamps are time-stamp counter ticks (else nanoseconds since the start).
  static bool uses_ticks() noexcept;

  /// A stamp for an event logged now: counter ticks, or nanoseconds since the start.
  [[nodiscard]] std::int64_t stamp() const noexcept {
#if defined(__x86_64__)
    if (ticks_) return static_cast<std::int64_t>(__rdtsc());
#endif
    return since_start();
  }
  /// Nanoseconds since the start, from `steady_clock`.
  [[nodiscard]] std::int64_t since_start() const noexcept {
    return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start_).count();
  }

  /// Rewrites the stamps of `events` (taken since the last call, in order) into nanoseconds
  /// since the start, given `now`, a `since_start()` read after the last of them.
  template <class E>
  void convert(std::vector<std::pair<Duration, E>>& events, Duration now) noexcept {
    if (!ticks_) return;
    const std::int64_t tick_now = stamp();
    const std::int64_t ns_now = std::max(now.count(), ns_);
    const double per_tick =
        tick_now > tick_ ? static_cast<double>(ns_now - ns_) / static_cast<double>(tick_now - tick_) : 0.0;
    std::int64_t last = ns_;
    for (auto& entry : events) {
      const auto ticks = entry.first.count() - tick_;
      auto ns = ns_ + (ticks > 0 ? static_cast<std::int64_t>(static_cast<double>(ticks) * per_tick) : 0);
      ns = std::clamp(ns, last, ns_now);  // ordered, and no later than `now`
      entry.first = Duration(ns);
      last = ns;
    }
    tick_ = tick_now;
    ns_ = ns_now;
  }

 private:
  void anchor() noexcept {
    ticks_ = uses_ticks();
    ns_ = since_start();
    tick_ = stamp();
  }
  std::chrono::steady_clock::time_point start_;
  bool ticks_ = false;
  std::int64_t tick_ = 0;  // the counter at the last conversion
  std::int64_t ns_ = 0;    // and the nanoseconds since the start then
};

/// Buffers events of type `E` and passes them to its action when the buffer fills, on
/// `flush()`, and when the last copy of the logger is destroyed. Copies share one buffer.
template <class E>
class Logger {
 public:
  Logger(std::chrono::steady_clock::time_point start, Action<E> action, std::size_t capacity = 1024)
      : inner_(std::make_shared<Inner>(start, std::move(action), capacity)) {}

  /// Records `event` at the current time.
  void log(E event) {
    auto& in = *inner_;
    in.buffer.emplace_back(Duration(in.clock.stamp()), std::move(event));
    if (in.buffer.size() >= in.capacity) in.publish(Duration(in.clock.since_start()));
  }
  /// An event to fill in and `log`: one of an earlier batch that the action left in place (a
  /// file sink reads its batches; a `BatchLogger` takes them), so that the capacity of its
  /// vectors serves again, or `E{}`. Its fields hold old values: assign or clear every one.
  /// (The progress layer's events carry vectors: allocating them for every event took a tenth
  /// of a busy worker's time with every stream logged.)
  E recycled() {
    auto& in = *inner_;
    in.recycling = true;
    if (in.spare.empty()) return E{};
    E event = std::move(in.spare.back());
    in.spare.pop_back();
    return event;
  }
  /// Passes buffered events to the action, then an empty batch.
  void flush() { flush(Duration(inner_->clock.since_start())); }
  /// `flush()` with `now` (nanoseconds since the logger's start, read after the last event
  /// logged): one clock reading serves every logger of a registry.
  void flush(Duration now) {
    inner_->publish(now);
    std::vector<std::pair<Duration, E>> empty;
    inner_->action(now, empty);
  }

 private:
  struct Inner {
    Inner(std::chrono::steady_clock::time_point s, Action<E> a, std::size_t c)
        : clock(s), action(std::move(a)), capacity(c == 0 ? 1 : c) {
      buffer.reserve(std::min<std::size_t>(capacity, 1024));
    }
    ~Inner() {
      if (!buffer.empty()) publish(Duration(clock.since_start()));
    }
    void publish(Duration now) {
      // Re-anchored at every publication and flush, so that later events are stamped no
      // earlier than `now`, which the action may have taken as a promise (BatchLogger does).
      clock.convert(buffer, now);
      if (buffer.empty()) return;
      action(now, buffer);
      if (recycling)
        for (auto& entry : buffer)
          if (spare.size() < capacity) spare.push_back(std::move(entry.second));
      buffer.clear();
    }
    EventClock clock;
    Action<E> action;
    std::size_t capacity;
    std::vector<std::pair<Duration, E>> buffer;
    bool recycling = false;  // whether anyone asked for `recycled()` events
    std::vector<E> spare;    // events the action left, for `recycled()`
  };
  std::shared_ptr<Inner> inner_;
};

/// Named event streams of one worker. Register an action under a name before building the
/// dataflows that should log to it; `get<E>(name)` then returns a logger for it.
class Registry {
 public:
  explicit Registry(std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now())
      : start_(start) {}

  /// Registers `action` for events of type `E` under `name`, replacing any earlier one (loggers
  /// already handed out keep the old action). \returns whether a previous action was replaced.
  template <class E>
  bool insert(const std::string& name, Action<E> action) {
    auto logger = std::make_shared<Logger<E>>(start_, std::move(action));
    auto flush = [logger](Duration now) { logger->flush(now); };
    return insert_erased(name, std::type_index(typeid(E)), std::move(logger), std::move(flush));
  }

  /// A logger for `name`, if one is registered with event type `E`.
  template <class E>
  std::optional<Logger<E>> get(const std::string& name) const {
    auto found = find_erased(name, std::type_index(typeid(E)));
    if (!found) return std::nullopt;
    return *std::static_pointer_cast<Logger<E>>(found);
  }

  /// Forgets the action for `name`. \returns whether there was one.
  bool remove(const std::string& name);
  /// Flushes every registered logger (reading the clock once for all).
  void flush();
  /// Flushes every registered logger at `now` (from `now()`, read after the last event).
  void flush(Duration now);
  /// The time since `start()`.
  [[nodiscard]] Duration now() const noexcept {
    return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start_);
  }
  /// When this registry's clock started.
  [[nodiscard]] std::chrono::steady_clock::time_point start() const noexcept { return start_; }

 private:
  struct Entry {
    std::string name;
    std::type_index type;
    std::shared_ptr<void> logger;
    std::function<void(Duration)> flush;
  };
  bool insert_erased(const std::string& name, std::type_index type, std::shared_ptr<void> logger,
                     std::function<void(Duration)> flush);
  [[nodiscard]] std::shared_ptr<void> find_erased(const std::string& name, std::type_index type) const;

  std::chrono::steady_clock::time_point start_;
  std::vector<Entry> entries_;
};

}  // namespace timely::logging
