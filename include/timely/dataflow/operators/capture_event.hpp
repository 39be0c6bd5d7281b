/// \file
/// Captured streams as data: `Event<T, D>` (a change of a stream's frontier, or a batch of its
/// records), the concepts `EventSink` and `EventSource` that `capture_into` and `replay_into`
/// work with, `EventLink<T, D>` (a thread-safe in-memory queue of events that is both), and
/// `extract` (the records of a finished capture grouped by time, for tests and small programs).
///
/// What an event stream means (SEMANTICS.md §10.1-§10.3): it starts with an implicit count of 1
/// at `minimum<T>()`. A `ProgressEvent` lists signed count changes `(time, diff)` to apply to it;
/// a `MessagesEvent` carries records at one time. The stream is complete once the counts sum to
/// zero everywhere. Every event stream produced by `capture_into` respects:
///   - an increment at `t` in a progress event needs a positive count at some `t' <= t` before
///     that event is applied;
///   - records at `t` need a positive count at some `t' <= t` when they appear;
///   - after the counts reach zero nothing follows.
/// `replay_into` checks these rules and throws `FormatError` when a stream breaks them.
///
/// Source of the idea: the reference's `dataflow::operators::capture::event` (`Event`,
/// `EventPusher`, `EventIterator`, the linked lists). The linked lists become one mutex-guarded
/// queue here. Thread-safety: events are plain values; `EventLink` is thread-safe.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace timely::dataflow::capture {

/// Capability count changes of a captured stream: `(time, diff)` pairs, relative to an implicit
/// starting count of 1 at `minimum<T>()`. Diffs are record-free counts (not records).
template <class T>
struct ProgressEvent {
  std::vector<std::pair<T, std::int64_t>> changes;
  friend bool operator==(const ProgressEvent&, const ProgressEvent&) = default;
};

/// A batch of records of a captured stream, all at `time`.
template <class T, class D>
struct MessagesEvent {
  T time{};
  std::vector<D> data;
  friend bool operator==(const MessagesEvent&, const MessagesEvent&) = default;
};

/// One event of a captured stream: a `ProgressEvent<T>` or a `MessagesEvent<T, D>`.
template <class T, class D>
using Event = std::variant<ProgressEvent<T>, MessagesEvent<T, D>>;

/// Where `capture_into` writes events: `sink.push(Event<T, D>&&)`. A sink may also offer
/// `flush()`, which the capture operator calls after every scheduling that pushed something
/// (a byte writer flushes its stream there, so a live reader sees whole batches).
template <class S, class T, class D>
concept EventSink = std::movable<S> && requires(S& s, Event<T, D>&& e) {
  s.push(std::move(e));
};

/// Where `replay_into` reads events from: `source.next()` returns the next available event or
/// `std::nullopt` when none is available *now* (more may come later). A source names its types
/// as `Time` and `Data`. Optional members the replay operator uses when present:
///   - `bool exhausted() const`: no event will ever follow (a complete byte stream at its end);
///     a stream that is exhausted while it still holds counts is reported as incomplete;
///   - `std::uint64_t offset() const`: the position in bytes, for error messages.
template <class S>
concept EventSource = std::movable<S> && requires(S& s) {
  typename S::Time;
  typename S::Data;
  { s.next() } -> std::same_as<std::optional<Event<typename S::Time, typename S::Data>>>;
};

/// A thread-safe, in-memory FIFO queue of events: capture into it on one worker (or dataflow),
/// replay from it on another, possibly on another thread. Copies are handles to the same queue.
///
/// Meant for one writer (one captured stream: the counts of two streams would add up wrongly)
/// and one reader (each event is delivered once). Holds every event not yet read; memory grows
/// with the unread backlog. Every member is thread-safe.
template <class T, class D>
class EventLink {
 public:
  using Time = T;
  using Data = D;

  EventLink() : state_(std::make_shared<State>()) {}

  /// Appends `event`.
  void push(Event<T, D> event) {
    std::lock_guard lock(state_->mutex);
    state_->events.push_back(std::move(event));
  }
  /// Removes and returns the oldest event, or `std::nullopt` if the queue is empty now.
  std::optional<Event<T, D>> next() {
    // The pragmas: GCC 12 at -O3 reports the moved event's vector as (maybe) uninitialized, a
    // false positive on moving a variant into an optional (GCC bug 105593 and relatives).
    std::lock_guard lock(state_->mutex);
    if (state_->events.empty()) return std::nullopt;
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    std::optional<Event<T, D>> out(std::move(state_->events.front()));
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic pop
#endif
    state_->events.pop_front();
    return out;
  }
  /// Number of events waiting to be read.
  [[nodiscard]] std::size_t size() const {
    std::lock_guard lock(state_->mutex);
    return state_->events.size();
  }
  /// Whether two handles share one queue.
  friend bool operator==(const EventLink& a, const EventLink& b) noexcept { return a.state_ == b.state_; }

 private:
  struct State {
    mutable std::mutex mutex;
    std::deque<Event<T, D>> events;
  };
  std::shared_ptr<State> state_;
};

/// Drains `source` and returns its records grouped by time: one `(time, records)` entry per
/// time with records, sorted by time, the records of each time sorted. Progress events are
/// dropped. Meant for a finished capture (the reference's `extract`); it reads only what is
/// available now. Needs `operator<` on `T` and `D`.
template <EventSource S>
std::vector<std::pair<typename S::Time, std::vector<typename S::Data>>> extract(S& source) {
  using T = typename S::Time;
  using D = typename S::Data;
  std::vector<std::pair<T, std::vector<D>>> out;
  while (auto event = source.next()) {
    if (auto* batch = std::get_if<MessagesEvent<T, D>>(&*event)) {
      if (batch->data.empty()) continue;
      out.emplace_back(std::move(batch->time), std::move(batch->data));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<T, std::vector<D>>> merged;
  for (auto& [time, data] : out) {
    if (merged.empty() || !(merged.back().first == time)) merged.emplace_back(time, std::vector<D>{});
    auto& into = merged.back().second;
    into.insert(into.end(), std::make_move_iterator(data.begin()), std::make_move_iterator(data.end()));
  }
  for (auto& entry : merged) std::sort(entry.second.begin(), entry.second.end());
  return merged;
}

}  // namespace timely::dataflow::capture
