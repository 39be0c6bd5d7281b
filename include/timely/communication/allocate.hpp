/// \file
/// The `Allocate` concept (what every allocator kind offers a worker), the channel shapes it
/// returns (`Pushers<T>`, `PullPtr<T>`), the list of channel events (`Events`) and `FanOut`, the
/// pusher that turns point-to-point pushers into a broadcast.
///
/// An allocator belongs to one worker. It makes channels identified by a number that every
/// worker allocates in the same order (the identifier discipline, SEMANTICS.md §5.2): pushing
/// into entry `i` of `allocate<T>(id).first` delivers to worker `i`, in FIFO order per sender;
/// `broadcast<T>(id)` reaches every worker, this one included; `pipeline<T>(id)` is a queue from
/// this worker to itself. Channel activity is recorded in `events()` (after `receive()`), which
/// the worker drains each step; `release()` publishes buffered outbound data; `await_events`
/// parks the thread until an event arrives.
///
/// The kinds: `Thread` (thread.hpp, one worker), `Process` (process.hpp, W threads),
/// `Cluster` (cluster.hpp, P processes of W threads), and the facade `Allocator`
/// (allocator.hpp) that holds one of them.
///
/// Source: the reference's `timely_communication::allocator::Allocate` trait and its
/// `Broadcaster` default for `broadcast` (SEMANTICS.md §7.2). Thread-safety: an allocator and the
/// endpoints it returns belong to their worker thread.
#pragma once

#include <chrono>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>

namespace timely::communication {

/// Channel ids that saw activity on one worker; shared by its local pushers. One thread only.
using Events = std::vector<std::size_t>;

/// The sending ends of a point-to-point channel, one per worker.
template <class T>
using Pushers = std::vector<std::unique_ptr<Push<T>>>;
/// The receiving end of a channel.
template <class T>
using PullPtr = std::unique_ptr<Pull<T>>;

namespace detail {
/// A value type with which `Allocate` is checked (any movable, copyable type will do).
struct ProbeRecord {
  int value;
};
}  // namespace detail

/// What a worker needs from its allocator (see the file comment). `T` is any movable type;
/// kinds that cross processes also need a `Codec<T>` (codec.hpp) for channels that do.
template <class A>
concept Allocate = requires(A& a, const A& c, std::size_t channel,
                            std::optional<std::chrono::nanoseconds> t) {
  { c.index() } -> std::convertible_to<std::size_t>;
  { c.peers() } -> std::convertible_to<std::size_t>;
  {
    a.template allocate<detail::ProbeRecord>(channel)
    } -> std::same_as<std::pair<Pushers<detail::ProbeRecord>, PullPtr<detail::ProbeRecord>>>;
  {
    a.template broadcast<detail::ProbeRecord>(channel)
    } -> std::same_as<std::pair<std::unique_ptr<Push<detail::ProbeRecord>>, PullPtr<detail::ProbeRecord>>>;
  {
    a.template pipeline<detail::ProbeRecord>(channel)
    } -> std::same_as<std::pair<std::unique_ptr<Push<detail::ProbeRecord>>, PullPtr<detail::ProbeRecord>>>;
  a.receive();
  a.release();
  { a.events() } -> std::same_as<Events&>;
  a.await_events(t);
};

/// Pushes a copy to every inner pusher but the last, which receives the original; a flush
/// (`std::nullopt`) reaches all of them. The default way to broadcast over point-to-point
/// pushers.
template <class T>
class FanOut final : public Push<T> {
 public:
  explicit FanOut(Pushers<T> pushers) : pushers_(std::move(pushers)) {}
  void push(std::optional<T>& element) override {
    if (!element) {
      for (auto& p : pushers_) p->done();
      return;
    }
    for (std::size_t i = 0; i + 1 < pushers_.size(); ++i) pushers_[i]->send(*element);
    if (!pushers_.empty()) pushers_.back()->push(element);
  }

 private:
  Pushers<T> pushers_;
};

}  // namespace timely::communication
