/// \file
/// Allocators: how a worker gets channels to its peers. `Allocator` (one per worker) makes typed
/// point-to-point, broadcast and pipeline channels, collects channel events and parks.
///
/// With one worker the allocator is the *thread* allocator: every channel is a queue owned by
/// that thread, with no locking. With W worker threads it is the *process* allocator: a channel
/// has one mutex-guarded queue per receiver; a push appends the value, then the channel id to the
/// receiver's mailbox, then buzzes the receiver if its mailbox went from empty to non-empty, in
/// that order, so a wake-up is never lost and a busy receiver is never buzzed twice.
/// With P processes of W workers it is the *cluster* allocator: workers of this process are
/// reached as above, workers of other processes through frames (wire.hpp) that the worker
/// encodes with `Codec` (codec.hpp) into one buffer per peer process and hands to the
/// `Network` when it finishes a step (or when the buffer passes 1 MiB); a broadcast sends one
/// frame per remote process whatever its number of workers. Global worker index = process x W +
/// thread.
///
/// Channel element types must have a `Codec` (codec.hpp) for a program that can run on several
/// processes: `allocate<T>` and `broadcast<T>` fail to compile otherwise, with a message that
/// says how to add one. A program that never runs on several processes and exchanges types
/// without a codec defines `TIMELY_NO_CLUSTER` before including timely; it then throws
/// `ConfigError` when started with more than one process.
///
/// Source: the reference's `timely_communication::allocator::{thread, process, zero_copy}` and
/// its buzzer (SEMANTICS.md §7.2-§7.6, §5.9 "Parking and wake-up"). Thread-safety: `Allocator`
/// and the endpoints it returns belong to their worker thread.
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

#include <timely/communication/codec.hpp>
#include <timely/communication/network.hpp>
#include <timely/communication/process_shared.hpp>
#include <timely/communication/push_pull.hpp>
#include <timely/communication/wire.hpp>
#include <timely/error.hpp>

namespace timely::communication {

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

/// One worker's outgoing frames, one buffer per process, with the per-(worker, process)
/// sequence numbers. Shared by that worker's remote pushers; one thread only.
class SendBuffers {
 public:
  SendBuffers(std::shared_ptr<Network> network, std::uint32_t source)
      : network_(std::move(network)),
        source_(source),
        buffers_(network_->processes()),
        seqs_(network_->processes(), 0) {}

  /// Appends one data frame carrying `value` for workers `lo..hi` of process `peer`.
  /// \throws timely::Error if the encoded value exceeds the network's payload limit.
  template <class T>
  void append(std::size_t peer, std::uint32_t lo, std::uint32_t hi, std::size_t channel, const T& value) {
    auto& buf = buffers_[peer];
    const std::size_t start = buf.size();
    buf.resize(start + wire::header_size);
    Encoder encoder(buf);
    Codec<T>::encode(encoder, value);
    const std::size_t length = buf.size() - start - wire::header_size;
    if (length > network_->max_payload()) {
      buf.resize(start);
      throw timely::Error("timely: a message of " + std::to_string(length) + " bytes on channel " +
                          std::to_string(channel) + " exceeds the frame payload limit of " +
                          std::to_string(network_->max_payload()) + " bytes");
    }
    buf.resize(start + wire::frame_size(length), 0);
    wire::FrameHeader header;
    header.source = source_;
    header.target_lo = lo;
    header.target_hi = hi;
    header.length = static_cast<std::uint32_t>(length);
    header.channel = channel;
    header.seq = seqs_[peer]++;
    wire::encode_header(header, buf.data() + start);
    if (buf.size() >= flush_bytes) flush(peer);
  }

  /// Hands every non-empty buffer to the network.
  void flush_all() {
    for (std::size_t peer = 0; peer < buffers_.size(); ++peer)
      if (!buffers_[peer].empty()) flush(peer);
  }

  /// A buffer this large is handed over without waiting for the end of the step.
  static constexpr std::size_t flush_bytes = std::size_t{1} << 20;

 private:
  void flush(std::size_t peer) {
    network_->send(peer, std::move(buffers_[peer]));
    buffers_[peer] = network_->buffer(peer);
  }

  std::shared_ptr<Network> network_;
  std::uint32_t source_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::uint64_t> seqs_;
};

/// Sends values to workers `lo..hi` of another process (one worker, or all of them for a
/// broadcast) by encoding them into the sending worker's buffer for that process.
template <class T>
class RemotePusher final : public Push<T> {
 public:
  RemotePusher(std::shared_ptr<SendBuffers> buffers, std::size_t peer, std::uint32_t lo, std::uint32_t hi,
               std::size_t channel)
      : buffers_(std::move(buffers)), peer_(peer), lo_(lo), hi_(hi), channel_(channel) {}
  void push(std::optional<T>& element) override {
    if (!element) return;  // frames leave when the worker finishes its step
    buffers_->append(peer_, lo_, hi_, channel_, *element);
    element.reset();
  }

 private:
  std::shared_ptr<SendBuffers> buffers_;
  std::size_t peer_;
  std::uint32_t lo_;
  std::uint32_t hi_;
  std::size_t channel_;
};

/// Pulls what workers of this process sent (through `local`), then decodes what workers of
/// other processes sent (views in `inbound`). A message that does not decode exactly throws
/// `NetworkError` naming the channel and the sending worker.
template <class T>
class ClusterPuller final : public Pull<T> {
 public:
  ClusterPuller(std::unique_ptr<Pull<T>> local, std::shared_ptr<InboundQueue> inbound, std::size_t channel)
      : local_(std::move(local)), inbound_(std::move(inbound)), channel_(channel) {}

  std::optional<T>& pull() override {
    auto& mine = local_->pull();
    if (mine) return mine;
    current_.reset();
    if (next_ == pending_.size()) {
      pending_.clear();
      next_ = 0;
      std::lock_guard lock(inbound_->mutex);
      std::swap(pending_, inbound_->views);
    }
    if (next_ < pending_.size()) {
      View view = std::move(pending_[next_++]);
      try {
        Decoder decoder(view.bytes(), 0);
        current_.emplace(Codec<T>::decode(decoder));
        if (decoder.remaining() != 0)
          throw timely::Error(std::to_string(decoder.remaining()) + " bytes left over after the message");
      } catch (const std::exception& e) {
        throw NetworkError("timely: a message from worker " + std::to_string(view.source) + " on channel " +
                           std::to_string(channel_) + " does not decode: " + e.what());
      }
    }
    return current_;
  }

 private:
  std::unique_ptr<Pull<T>> local_;
  std::shared_ptr<InboundQueue> inbound_;
  std::size_t channel_;
  std::vector<View> pending_;
  std::size_t next_ = 0;
  std::optional<T> current_;
};

/// Whether channels of `T` can cross processes in this build.
template <class T>
inline constexpr bool cluster_capable = Encodable<T>;

}  // namespace detail

/// One worker's allocator: its index among `peers()` workers, its channels, its events.
///
/// Channels are identified by a number that every worker allocates in the same order (the
/// identifier discipline, SEMANTICS.md §5.2). A value pushed into pusher `i` of a channel
/// arrives at worker `i`, in FIFO order per sender. Not thread-safe: use it on its worker thread.
class Allocator {
 public:
  /// An allocator for worker `index` of the single process described by `shared`.
  Allocator(std::size_t index, std::shared_ptr<ProcessShared> shared)
      : local_(index), shared_(std::move(shared)), events_(std::make_shared<detail::Events>()) {}

  /// An allocator for local worker `local` of this process in the cluster `network` (which
  /// may be null: a single process).
  Allocator(std::size_t local, std::shared_ptr<ProcessShared> shared, std::shared_ptr<Network> network)
      : local_(local),
        shared_(std::move(shared)),
        events_(std::make_shared<detail::Events>()),
        network_(std::move(network)) {
    if (network_)
      buffers_ = std::make_shared<detail::SendBuffers>(network_, static_cast<std::uint32_t>(index()));
  }

  /// A single-worker (thread) allocator.
  static Allocator thread() { return Allocator(0, std::make_shared<ProcessShared>(1)); }

  /// This worker's global index: process x W + thread.
  [[nodiscard]] std::size_t index() const noexcept { return first_local() + local_; }
  /// The number of workers in the computation: P x W.
  [[nodiscard]] std::size_t peers() const noexcept { return processes() * shared_->threads(); }
  /// This worker's index among the threads of its process.
  [[nodiscard]] std::size_t local_index() const noexcept { return local_; }
  /// P, the number of processes.
  [[nodiscard]] std::size_t processes() const noexcept { return network_ ? network_->processes() : 1; }

  /// Point-to-point channel: `peers()` pushers (entry `i` delivers to worker `i`) and one puller.
  /// `T` must be movable between threads, and have a `Codec` unless `TIMELY_NO_CLUSTER`.
  template <class T>
  std::pair<std::vector<std::unique_ptr<Push<T>>>, std::unique_ptr<Pull<T>>> allocate(std::size_t channel) {
    check_cluster_capable<T>();
    std::vector<std::unique_ptr<Push<T>>> pushers;
    if (peers() == 1 && !zerocopy()) {
      auto [push, pull] = pipeline<T>(channel);
      pushers.push_back(std::move(push));
      return {std::move(pushers), std::move(pull)};
    }
    auto bundle = local_bundle<T>(channel);
    const std::size_t w = shared_->threads();
    for (std::size_t target = 0; target < peers(); ++target) {
      if (target / w == process() && !zerocopy())
        pushers.push_back(std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, local_,
                                                                     target % w, channel));
      else
        pushers.push_back(remote_pusher<T>(target / w, target, target + 1, channel));
    }
    return {std::move(pushers), puller<T>(bundle, channel)};
  }

  /// Broadcast channel: one pusher that reaches every worker, this one included. `T` is copied
  /// for the other workers of this process and encoded once per other process.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, std::unique_ptr<Pull<T>>> broadcast(std::size_t channel) {
    check_cluster_capable<T>();
    if (!network_) {
      auto [pushers, puller] = allocate<T>(channel);
      return {std::make_unique<detail::FanOut<T>>(std::move(pushers)), std::move(puller)};
    }
    auto bundle = local_bundle<T>(channel);
    const std::size_t w = shared_->threads();
    std::vector<std::unique_ptr<Push<T>>> pushers;
    for (std::size_t p = 0; p < processes(); ++p)
      if (p != process() || zerocopy()) pushers.push_back(remote_pusher<T>(p, p * w, (p + 1) * w, channel));
    if (!zerocopy())
      for (std::size_t t = 0; t < w; ++t)
        pushers.push_back(
            std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, local_, t, channel));
    return {std::make_unique<detail::FanOut<T>>(std::move(pushers)), puller<T>(bundle, channel)};
  }

  /// A channel from this worker to itself: a plain queue, whatever the allocator kind.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, std::unique_ptr<Pull<T>>> pipeline(std::size_t channel) {
    auto queue = std::make_shared<detail::LocalQueue<T>>();
    return {std::make_unique<detail::LocalPusher<T>>(queue, events_, channel),
            std::make_unique<detail::LocalPuller<T>>(queue)};
  }

  /// Moves channel events from other threads into `events()`.
  void receive() { shared_->drain(local_, *events_); }
  /// Publishes buffered outbound data: frames for other processes go to the network.
  void release() {
    if (buffers_) buffers_->flush_all();
  }
  /// Channel ids with activity since the caller last cleared the list.
  [[nodiscard]] std::vector<std::size_t>& events() noexcept { return *events_; }
  /// Parks the thread until an event arrives or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout) {
    if (events_->empty()) shared_->park(local_, timeout);
  }

  /// The process-wide shared state (for activations from other threads and failure handling).
  [[nodiscard]] const std::shared_ptr<ProcessShared>& shared() const noexcept { return shared_; }

 private:
  [[nodiscard]] std::size_t process() const noexcept { return network_ ? network_->process() : 0; }
  [[nodiscard]] std::size_t first_local() const noexcept { return process() * shared_->threads(); }
  [[nodiscard]] bool zerocopy() const noexcept { return network_ && network_->zerocopy(); }

  template <class T>
  void check_cluster_capable() const {
#ifndef TIMELY_NO_CLUSTER
    static_assert(detail::cluster_capable<T>,
                  "timely: this channel's element type has no Codec, so it cannot travel between processes. "
                  "Give the record (and timestamp) type an encoding by specializing "
                  "timely::communication::Codec<YourType> with encode/decode/name (see "
                  "timely/communication/codec.hpp and the book's chapter on running across processes); "
                  "aggregates of encodable fields get one automatically. Or, if this program never runs "
                  "on several processes, define TIMELY_NO_CLUSTER before including timely.");
#else
    if (!detail::cluster_capable<T> && network_)
      throw ConfigError(
          "timely: this program was built with TIMELY_NO_CLUSTER and exchanges a type without a Codec; "
          "it cannot run on several processes (-n)");
#endif
  }

  template <class T>
  std::shared_ptr<detail::ChannelBundle<T>> local_bundle(std::size_t channel) {
    auto erased = shared_->rendezvous(channel, std::type_index(typeid(T)), [n = shared_->threads()] {
      return std::static_pointer_cast<void>(std::make_shared<detail::ChannelBundle<T>>(n));
    });
    return std::static_pointer_cast<detail::ChannelBundle<T>>(erased);
  }

  template <class T>
  std::unique_ptr<Push<T>> remote_pusher(std::size_t peer, std::size_t lo, std::size_t hi,
                                         std::size_t channel) {
    if constexpr (detail::cluster_capable<T>) {
      return std::make_unique<detail::RemotePusher<T>>(buffers_, peer, static_cast<std::uint32_t>(lo),
                                                       static_cast<std::uint32_t>(hi), channel);
    } else {
      (void)peer, (void)lo, (void)hi, (void)channel;
      throw ConfigError("timely: a type without a Codec cannot travel between processes");
    }
  }

  template <class T>
  std::unique_ptr<Pull<T>> puller(std::shared_ptr<detail::ChannelBundle<T>> bundle, std::size_t channel) {
    auto local = std::make_unique<detail::ProcessPuller<T>>(std::move(bundle), local_);
    if constexpr (detail::cluster_capable<T>) {
      if (network_)
        return std::make_unique<detail::ClusterPuller<T>>(std::move(local),
                                                          network_->inbound(local_, channel), channel);
    }
    return local;
  }

  std::size_t local_;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<detail::Events> events_;
  std::shared_ptr<Network> network_;
  std::shared_ptr<detail::SendBuffers> buffers_;
};

}  // namespace timely::communication
