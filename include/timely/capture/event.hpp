/// \file
/// Captured streams as data: `EventCore<T, C>` (a change of a stream's frontier, or a container
/// `C` of its records), with `Event<T, D>` its `std::vector<D>` case; the concepts `EventSink`
/// and `EventSource` that `capture_into` and `replay_into` work with; `EventLinkCore<T, C>` (a
/// thread-safe in-memory queue of events that is both; `EventLink<T, D>` for vectors); and
/// `extract` (the records of a finished capture grouped by time, for tests and small programs).
///
/// What an event stream means (SEMANTICS.md §10.1-§10.3): it starts with an implicit count of 1
/// at `minimum<T>()`. A `ProgressEvent` lists signed count changes `(time, diff)` to apply to it;
/// a `MessagesEventCore` carries a container of records at one time. The stream is complete once
/// the counts sum to zero everywhere. Every event stream produced by `capture_into` respects:
///   - an increment at `t` in a progress event needs a positive count at some `t' <= t` before
///     that event is applied;
///   - records at `t` need a positive count at some `t' <= t` when they appear;
///   - after the counts reach zero nothing follows.
/// `replay_into` checks these rules and throws `FormatError` when a stream breaks them. Records
/// are counted as progress tracking counts them (`container::record_count`).
///
/// Source of the idea: the reference's `dataflow::operators::capture::event` (`EventCore<T, C>`,
/// `Event<T, D>`, `EventPusher`, `EventIterator`, the linked lists). The linked lists become one
/// mutex-guarded queue here. Thread-safety: events are plain values; `EventLinkCore` is
/// thread-safe.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <timely/container/container.hpp>

namespace timely::capture {

/// Capability count changes of a captured stream: `(time, diff)` pairs, relative to an implicit
/// starting count of 1 at `minimum<T>()`. Diffs are record-free counts (not records).
template <class T>
struct ProgressEvent {
  std::vector<std::pair<T, std::int64_t>> changes;
  friend bool operator==(const ProgressEvent&, const ProgressEvent&) = default;
};

/// A container of records of a captured stream, all at `time`.
template <class T, class C>
struct MessagesEventCore {
  T time{};
  C data;
  friend bool operator==(const MessagesEventCore&, const MessagesEventCore&) = default;
};

/// A batch of records `D` in a `std::vector<D>`, all at `time`.
template <class T, class D>
using MessagesEvent = MessagesEventCore<T, std::vector<D>>;

/// One event of a captured stream of containers `C`: a `ProgressEvent<T>` or a
/// `MessagesEventCore<T, C>`.
template <class T, class C>
using EventCore = std::variant<ProgressEvent<T>, MessagesEventCore<T, C>>;

/// One event of a captured stream of records `D` (in `std::vector<D>` batches).
template <class T, class D>
using Event = EventCore<T, std::vector<D>>;

/// Where `capture_into` writes the events of a stream of containers `C`:
/// `sink.push(EventCore<T, C>&&)`. A sink may also offer `flush()`, which the capture operator
/// calls after every scheduling that pushed something (a byte writer flushes its stream there,
/// so a live reader sees whole batches).
template <class S, class T, class C>
concept EventSink = std::movable<S> && requires(S& s, EventCore<T, C>&& e) {
  s.push(std::move(e));
};

/// Where `replay_into` reads events from: `source.next()` returns the next available event or
/// `std::nullopt` when none is available *now* (more may come later). A source names its types
/// as `Time` and `Container` (`std::vector<D>` for a stream of records `D`). Optional members
/// the replay operator uses when present:
///   - `bool exhausted() const`: no event will ever follow (a complete byte stream at its end);
///     a stream that is exhausted while it still holds counts is reported as incomplete;
///   - `std::uint64_t offset() const` and `event_offset() const`: positions in bytes, for error
///     messages.
template <class S>
concept EventSource = std::movable<S> && requires(S& s) {
  typename S::Time;
  typename S::Container;
  { s.next() } -> std::same_as<std::optional<EventCore<typename S::Time, typename S::Container>>>;
};

/// A thread-safe, in-memory FIFO queue of events of a stream of containers `C`: capture into it
/// on one worker (or dataflow), replay from it on another, possibly on another thread. Copies
/// are handles to the same queue. Containers move through it untouched (a columnar batch that
/// borrows a receive buffer keeps borrowing it).
///
/// Meant for one writer (one captured stream: the counts of two streams would add up wrongly)
/// and one reader (each event is delivered once). Holds every event not yet read; memory grows
/// with the unread backlog. Every member is thread-safe.
template <class T, class C>
class EventLinkCore {
 public:
  using Time = T;
  using Container = C;

  EventLinkCore() : state_(std::make_shared<State>()) {}

  /// Appends `event`.
  void push(EventCore<T, C> event) {
    std::lock_guard lock(state_->mutex);
    state_->events.push_back(std::move(event));
  }
  /// Removes and returns the oldest event, or `std::nullopt` if the queue is empty now.
  std::optional<EventCore<T, C>> next() {
    // The pragmas: GCC 12 at -O3 reports the moved event's vector as (maybe) uninitialized, a
    // false positive on moving a variant into an optional (GCC bug 105593 and relatives).
    std::lock_guard lock(state_->mutex);
    if (state_->events.empty()) return std::nullopt;
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
    std::optional<EventCore<T, C>> out(std::move(state_->events.front()));
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
  friend bool operator==(const EventLinkCore& a, const EventLinkCore& b) noexcept {
    return a.state_ == b.state_;
  }

 private:
  struct State {
    mutable std::mutex mutex;
    std::deque<EventCore<T, C>> events;
  };
  std::shared_ptr<State> state_;
};

/// An `EventLinkCore` of a stream of records `D` in `std::vector<D>` batches.
template <class T, class D>
using EventLink = EventLinkCore<T, std::vector<D>>;

/// Drains `source` and returns its records grouped by time: one `(time, container)` entry per
/// time with records, sorted by time, the records of each time in one container, sorted. For a
/// stream of `std::vector<D>` that is `std::vector<std::pair<T, std::vector<D>>>` (records
/// moved, needs `operator<` on `D`); for another container the records are sorted by their
/// borrowed references (`operator<` on `container::ItemRef<C>`, as the tuples of columnar
/// batches have) and pushed into a fresh container. Progress events are dropped. Meant for a
/// finished capture (the reference's `extract`); it reads only what is available now. Needs
/// `operator<` on `T`.
template <EventSource S>
std::vector<std::pair<typename S::Time, typename S::Container>> extract(S& source) {
  using T = typename S::Time;
  using C = typename S::Container;
  std::map<T, std::vector<C>> staged;
  while (auto event = source.next()) {
    if (auto* batch = std::get_if<MessagesEventCore<T, C>>(&*event)) {
      if (batch->data.empty()) continue;
      staged[std::move(batch->time)].push_back(std::move(batch->data));
    }
  }
  std::vector<std::pair<T, C>> out;
  for (auto& [time, containers] : staged) {
    C merged;
    if constexpr (container::Vector<C>) {
      for (auto& data : containers)
        merged.insert(merged.end(), std::make_move_iterator(data.begin()),
                      std::make_move_iterator(data.end()));
      std::sort(merged.begin(), merged.end());
    } else {
      using Ref = std::remove_cvref_t<container::ItemRef<C>>;
      std::vector<Ref> refs;  // valid while `containers` holds the batches they borrow from
      for (auto& data : containers)
        for (auto&& item : data) refs.push_back(item);
      std::sort(refs.begin(), refs.end());
      for (const auto& item : refs) container::push_into(merged, item);
    }
    out.emplace_back(time, std::move(merged));
  }
  return out;
}

}  // namespace timely::capture
