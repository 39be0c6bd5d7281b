/// \file
/// Logging: `Logger<E>` buffers timestamped events of type `E` and hands them in batches to an
/// action; `Registry` maps stream names (such as "timely") to the actions registered for them,
/// so that components can ask for a logger by name and log nothing when none is registered.
///
/// Source: the reference's `timely_logging` crate (SEMANTICS.md §8). Thread-safety: a registry
/// and its loggers belong to one worker thread; actions run on that thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

namespace timely::logging {

/// Time since the registry's start, in nanoseconds.
using Duration = std::chrono::nanoseconds;

/// Receives batches of events: `action(now, events)`, where each event carries the time it was
/// logged. An empty batch means "flush: no more events before `now`".
template <class E>
using Action = std::function<void(Duration now, std::vector<std::pair<Duration, E>>& events)>;

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
    in.buffer.emplace_back(std::chrono::steady_clock::now() - in.start, std::move(event));
    if (in.buffer.size() >= in.capacity) in.publish();
  }
  /// Passes buffered events to the action, then an empty batch.
  void flush() {
    inner_->publish();
    std::vector<std::pair<Duration, E>> empty;
    inner_->action(std::chrono::steady_clock::now() - inner_->start, empty);
  }

 private:
  struct Inner {
    Inner(std::chrono::steady_clock::time_point s, Action<E> a, std::size_t c)
        : start(s), action(std::move(a)), capacity(c == 0 ? 1 : c) {}
    ~Inner() { publish(); }
    void publish() {
      if (buffer.empty()) return;
      action(std::chrono::steady_clock::now() - start, buffer);
      buffer.clear();
    }
    std::chrono::steady_clock::time_point start;
    Action<E> action;
    std::size_t capacity;
    std::vector<std::pair<Duration, E>> buffer;
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
    auto flush = [logger] { logger->flush(); };
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
  /// Flushes every registered logger.
  void flush();
  /// When this registry's clock started.
  [[nodiscard]] std::chrono::steady_clock::time_point start() const noexcept { return start_; }

 private:
  struct Entry {
    std::string name;
    std::type_index type;
    std::shared_ptr<void> logger;
    std::function<void()> flush;
  };
  bool insert_erased(const std::string& name, std::type_index type, std::shared_ptr<void> logger,
                     std::function<void()> flush);
  [[nodiscard]] std::shared_ptr<void> find_erased(const std::string& name, std::type_index type) const;

  std::chrono::steady_clock::time_point start_;
  std::vector<Entry> entries_;
};

}  // namespace timely::logging
