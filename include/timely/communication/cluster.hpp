/// \file
/// The cluster allocator (`Cluster`): P processes of W worker threads. Workers of this process
/// are reached as with the process allocator (process.hpp), workers of other processes through
/// frames that the worker encodes with `Codec<T>` (codec.hpp) into one buffer per peer process
/// and hands to the network when it finishes a step (or when the buffer passes 1 MiB); a
/// broadcast sends one frame per remote process whatever its number of workers. Global worker
/// index = process x W + thread. With `-z` (`ClusterConfig::zerocopy`) the workers of this
/// process exchange frames too.
///
/// Only the typed ends are templates: a pusher to another process passes its value with an
/// encoding function built where `T` is known to the non-template send buffers, and a puller
/// decodes the views the network delivered. The buffers, the frame format (wire.hpp) and the
/// TCP transport are compiled in src/communication/, so this header parses neither. It includes
/// all of codec.hpp, not just the machinery: whether a type has a codec must be decided with the
/// same codecs in every translation unit.
///
/// A channel whose element type has no `Codec` works between the threads of a process; when it
/// would reach another process (or any worker under `-z`), `allocate` and `broadcast` throw
/// `ConfigError` naming the channel and the type.
///
/// Source: the reference's `timely_communication::allocator::zero_copy` (`TcpAllocator` over an
/// inner process allocator; SEMANTICS.md §7.5). Thread-safety: a `Cluster` and its endpoints
/// belong to their worker thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <typeinfo>
#include <utility>

#include <timely/communication/allocate.hpp>
#include <timely/communication/codec.hpp>
#include <timely/communication/network_stats.hpp>
#include <timely/communication/process.hpp>
#include <timely/communication/push_pull.hpp>

namespace timely::communication {

class Network;  // the TCP transport (src/communication/transport.hpp)

namespace detail {

class ClusterLinks;  // one worker's outgoing frame buffers and its network (cluster.cpp)
class RemoteInbox;   // one worker's received messages on one channel (cluster.cpp)

/// Encodes the value at `value` (a `const T*`) with `Codec<T>`.
using EncodeFn = void (*)(Encoder&, const void* value);

template <class T>
void encode_erased(Encoder& encoder, const void* value) {
  Codec<T>::encode(encoder, *static_cast<const T*>(value));
}

/// Appends one data frame with `encode(value)` for workers `lo..hi` of process `peer`.
/// \throws timely::Error if the encoded value exceeds the network's payload limit.
void remote_append(ClusterLinks& links, std::size_t peer, std::uint32_t lo, std::uint32_t hi,
                   std::size_t channel, EncodeFn encode, const void* value);
/// The messages from other processes for local worker `local` on `channel`.
std::shared_ptr<RemoteInbox> remote_inbox(ClusterLinks& links, std::size_t local, std::size_t channel);
/// Moves to the next received message: its bytes (valid until the next call, or for as long
/// as `owner`, the receive buffer holding them, is kept) and its sender's global index.
/// Returns false if there is none.
bool remote_next(RemoteInbox& inbox, std::span<const std::uint8_t>& bytes, std::uint32_t& source,
                 std::shared_ptr<const void>& owner);
/// \throws NetworkError: a message from worker `source` on `channel` does not decode.
[[noreturn]] void throw_undecodable(std::size_t channel, std::uint32_t source, const std::string& why);
/// \throws ConfigError: channel `channel` of a type without a codec would leave the process.
[[noreturn]] void throw_no_codec(std::size_t channel, const char* type_name);

/// Sends values to workers `lo..hi` of another process (one worker, or all of them for a
/// broadcast) by encoding them into the sending worker's buffer for that process.
template <class T>
class RemotePusher final : public Push<T> {
 public:
  RemotePusher(std::shared_ptr<ClusterLinks> links, std::size_t peer, std::uint32_t lo, std::uint32_t hi,
               std::size_t channel)
      : links_(std::move(links)), peer_(peer), lo_(lo), hi_(hi), channel_(channel) {}
  void push(std::optional<T>& element) override {
    if (!element) return;  // frames leave when the worker finishes its step
    remote_append(*links_, peer_, lo_, hi_, channel_, &encode_erased<T>, &*element);
    if constexpr (Recyclable<T>) {
      if (element->recycle()) return;  // encoded: its storage goes back to the sender
    }
    element.reset();
  }

 private:
  std::shared_ptr<ClusterLinks> links_;
  std::size_t peer_;
  std::uint32_t lo_;
  std::uint32_t hi_;
  std::size_t channel_;
};

/// Pulls what workers of this process sent (through `local`), then decodes what workers of
/// other processes sent. The decoder is given the receive buffer as its owner, so a value that
/// can read its bytes in place (a columnar batch) borrows them and keeps the buffer alive;
/// the network recycles the buffer when the last such value is dropped. A message that does
/// not decode exactly throws `NetworkError` naming the channel and the sending worker.
template <class T>
class ClusterPuller final : public Pull<T> {
 public:
  ClusterPuller(PullPtr<T> local, std::shared_ptr<RemoteInbox> inbox, std::size_t channel)
      : local_(std::move(local)), inbox_(std::move(inbox)), channel_(channel) {}

  std::optional<T>& pull() override {
    auto& mine = local_->pull();
    if (mine) return mine;
    current_.reset();
    std::span<const std::uint8_t> bytes;
    std::uint32_t source = 0;
    std::shared_ptr<const void> owner;
    if (remote_next(*inbox_, bytes, source, owner)) {
      std::size_t left = 0;
      try {
        Decoder decoder(bytes, 0, std::move(owner));
        current_.emplace(Codec<T>::decode(decoder));
        left = decoder.remaining();
      } catch (const std::exception& e) {
        throw_undecodable(channel_, source, e.what());
      }
      if (left != 0)
        throw_undecodable(channel_, source, std::to_string(left) + " bytes left over after the message");
    }
    return current_;
  }

 private:
  PullPtr<T> local_;
  std::shared_ptr<RemoteInbox> inbox_;
  std::size_t channel_;
  std::optional<T> current_;
};

}  // namespace detail

/// The allocator of local worker `local` of this process in a cluster of processes.
class Cluster {
 public:
  /// \param network the connections to the other processes (`Network::start`); its process
  /// count, index and `zerocopy` setting fix this allocator's.
  Cluster(std::size_t local, std::shared_ptr<ProcessShared> shared, std::shared_ptr<Network> network);

  /// This worker's global index: process x W + thread.
  [[nodiscard]] std::size_t index() const noexcept { return process_ * threads() + local_; }
  /// P x W.
  [[nodiscard]] std::size_t peers() const noexcept { return processes_ * threads(); }
  /// P, the number of processes.
  [[nodiscard]] std::size_t processes() const noexcept { return processes_; }

  /// `peers()` pushers (entry `i` delivers to worker `i`) and one puller.
  /// \throws ConfigError if `T` has no `Codec`; DataflowError if the workers of this process
  /// allocated `channel` with different types.
  template <class T>
  std::pair<Pushers<T>, PullPtr<T>> allocate(std::size_t channel) {
    if constexpr (!Encodable<T>) detail::throw_no_codec(channel, typeid(T).name());
    auto bundle = detail::process_bundle<T>(*shared_, channel);
    const std::size_t w = threads();
    Pushers<T> pushers;
    for (std::size_t target = 0; target < peers(); ++target) {
      if (target / w == process_ && !zerocopy_)
        pushers.push_back(std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, local_,
                                                                     target % w, channel));
      else
        pushers.push_back(remote_pusher<T>(target / w, target, target + 1, channel));
    }
    return {std::move(pushers), puller<T>(std::move(bundle), channel)};
  }

  /// One pusher that reaches every worker, this one included: `T` is copied for the other
  /// workers of this process and encoded once per other process.
  /// \throws as `allocate`.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> broadcast(std::size_t channel) {
    if constexpr (!Encodable<T>) detail::throw_no_codec(channel, typeid(T).name());
    auto bundle = detail::process_bundle<T>(*shared_, channel);
    const std::size_t w = threads();
    Pushers<T> pushers;
    for (std::size_t p = 0; p < processes_; ++p)
      if (p != process_ || zerocopy_) pushers.push_back(remote_pusher<T>(p, p * w, (p + 1) * w, channel));
    if (!zerocopy_)
      for (std::size_t t = 0; t < w; ++t)
        pushers.push_back(
            std::make_unique<detail::ProcessPusher<T>>(bundle, shared_, events_, local_, t, channel));
    return {std::make_unique<FanOut<T>>(std::move(pushers)), puller<T>(std::move(bundle), channel)};
  }

  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> pipeline(std::size_t channel) {
    return detail::local_channel<T>(events_, channel);
  }

  /// Moves channel events (from this process's threads and from the network) into `events()`.
  void receive() { shared_->drain(local_, *events_); }
  /// Hands every non-empty frame buffer to the network.
  void release();
  [[nodiscard]] Events& events() noexcept { return *events_; }
  /// Parks until an event arrives or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout) {
    if (events_->empty()) shared_->park(local_, timeout);
  }
  /// Wakes this worker from any thread.
  [[nodiscard]] std::function<void()> waker() const {
    return [shared = shared_, local = local_] { shared->buzz(local); };
  }
  [[nodiscard]] const std::shared_ptr<ProcessShared>& shared() const noexcept { return shared_; }
  /// The counters of this process's connections (network_stats.hpp), or null in a single
  /// process (the zerocopy mode has no connections).
  [[nodiscard]] std::shared_ptr<const NetworkStats> network_stats() const noexcept;

 private:
  [[nodiscard]] std::size_t threads() const noexcept { return shared_->threads(); }

  // Only called for encodable types (`allocate` and `broadcast` throw before, for others).
  template <class T>
  std::unique_ptr<Push<T>> remote_pusher(std::size_t peer, std::size_t lo, std::size_t hi,
                                         std::size_t channel) {
    if constexpr (Encodable<T>)
      return std::make_unique<detail::RemotePusher<T>>(links_, peer, static_cast<std::uint32_t>(lo),
                                                       static_cast<std::uint32_t>(hi), channel);
    else
      return (void)peer, (void)lo, (void)hi, nullptr;
  }

  template <class T>
  PullPtr<T> puller(std::shared_ptr<detail::ChannelBundle<T>> bundle, std::size_t channel) {
    PullPtr<T> local = std::make_unique<detail::ProcessPuller<T>>(std::move(bundle), local_);
    if constexpr (Encodable<T>)
      return std::make_unique<detail::ClusterPuller<T>>(
          std::move(local), detail::remote_inbox(*links_, local_, channel), channel);
    else
      return (void)channel, PullPtr<T>(std::move(local));
  }

  std::size_t local_;
  std::size_t process_ = 0;
  std::size_t processes_ = 1;
  bool zerocopy_ = false;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<Events> events_;
  std::shared_ptr<detail::ClusterLinks> links_;
};

static_assert(Allocate<Cluster>);

}  // namespace timely::communication
