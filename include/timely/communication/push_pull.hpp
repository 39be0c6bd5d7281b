/// \file
/// `Push<T>` and `Pull<T>`: the two ends of every channel, with the "take and leave something
/// behind" convention that lets buffers be recycled.
///
/// Source: the reference's `timely_communication::{Push, Pull}` (SEMANTICS.md §7.1).
/// Thread-safety: an endpoint is used by one thread; the allocator that made it says which
/// ends may live on different threads.
#pragma once

#include <concepts>
#include <cstddef>
#include <optional>
#include <utility>

namespace timely::communication {

/// The sending end of a channel carrying values of type `T`.
///
/// `push(element)` with a value hands it over; the callee may leave a recycled value behind in
/// `element`. `push(element)` with `std::nullopt` means "flush: I may be idle for a while"; a
/// sequence of pushes should end with one so that delivery needs no further work.
template <class T>
class Push {
 public:
  virtual ~Push() = default;
  virtual void push(std::optional<T>& element) = 0;

  /// Pushes `value`, discarding whatever is left behind.
  void send(T value) {
    std::optional<T> slot(std::move(value));
    push(slot);
  }
  /// Pushes `std::nullopt` (flush).
  void done() {
    std::optional<T> slot;
    push(slot);
  }
};

/// Values that are passed back for reuse once their contents were taken (the reference's
/// recycling of buffers: an encoder or a partitioning pusher leaves the emptied value behind,
/// and a channel returns what its receiver consumed to the senders' side: a process channel to
/// the worker that wrote it, see `detail::SharedQueue`). `v.recycle()` empties
/// `v`, keeping its storage, and says whether there is storage worth passing back (a dataflow
/// message clears its container). Channels keep at most `recycled_per_queue` such values.
template <class T>
concept Recyclable = requires(T& v) {
  { v.recycle() } -> std::convertible_to<bool>;
};
inline constexpr std::size_t recycled_per_queue = 1024;
/// Of the values a process channel passes back to the worker that wrote them, those that other
/// workers consumed: a worker keeps at most this many per channel (a worker that sent many
/// values to slow readers and then stops sending keeps no more than this).
inline constexpr std::size_t returned_per_writer = 64;

/// The receiving end of a channel carrying values of type `T`.
///
/// `pull()` returns a reference to an optional: empty means "nothing now", never "end of
/// stream" (completion is known only through progress tracking). The caller may take the value
/// or swap in a replacement to return resources.
template <class T>
class Pull {
 public:
  virtual ~Pull() = default;
  virtual std::optional<T>& pull() = 0;

  /// Takes the next value, if any.
  std::optional<T> recv() {
    std::optional<T> out;
    std::swap(out, pull());
    return out;
  }
};

}  // namespace timely::communication
