/// \file
/// `NetworkStats`: what one process's connections to the other processes of a cluster have
/// carried, per peer process: the connection's state, and the bytes and frames sent and
/// received (cumulative, from the end of the handshake on: every frame the send and receive
/// threads write or read, data, heartbeats, end of stream and abort alike, each counted with its
/// 40-byte header and padding; wire.hpp). Once both directions of a connection closed cleanly,
/// what one side counts as sent equals what the other counts as received.
///
/// The network threads (src/communication/transport.cpp) update the counters with relaxed atomic
/// additions; a reader (the runtime's "communication" log stream, timely/logging/
/// timely_events.hpp) takes a `PeerStats` copy with `peer(i)`. The values of one copy are each
/// exact, but not a consistent cut of each other.
///
/// Source: our own; the reference's communication layer logs per-message `MessageEvent`s and
/// connection `StateEvent`s (SEMANTICS.md §8.2) instead of counters. Thread-safety: every
/// member may be called from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace timely::communication {

/// The state of the connection to one peer process.
enum class ConnectionState : std::uint8_t {
  /// Before the handshake completed (and for this process itself, which has no connection).
  None,
  /// Handshake done; frames flow both ways.
  Connected,
  /// Both directions ended with an end-of-stream frame.
  Closed,
  /// Lost: an error, a peer silent past the heartbeat timeout, an abort frame, or this process
  /// stopping its computation.
  Failed,
};

/// One peer's counters at one moment (see the file comment).
struct PeerStats {
  ConnectionState state = ConnectionState::None;
  std::uint64_t bytes_sent = 0;
  std::uint64_t frames_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t frames_received = 0;

  friend bool operator==(const PeerStats&, const PeerStats&) = default;
};

/// The counters of process `process()`'s connections to each of `processes()` processes
/// (entry `process()` stays at `None` and zero), whose `workers()` worker threads each.
class NetworkStats {
 public:
  NetworkStats(std::size_t processes, std::size_t process, std::size_t workers)
      : processes_(processes), process_(process), workers_(workers), peers_(new Counters[processes]) {}

  [[nodiscard]] std::size_t processes() const noexcept { return processes_; }
  [[nodiscard]] std::size_t process() const noexcept { return process_; }
  [[nodiscard]] std::size_t workers() const noexcept { return workers_; }

  /// `bytes` in `frames` frames written to `peer`'s connection.
  void sent(std::size_t peer, std::uint64_t bytes, std::uint64_t frames) noexcept {
    peers_[peer].bytes_sent.fetch_add(bytes, std::memory_order_relaxed);
    peers_[peer].frames_sent.fetch_add(frames, std::memory_order_relaxed);
  }
  /// `bytes` read from `peer`'s connection, completing `frames` frames.
  void received(std::size_t peer, std::uint64_t bytes, std::uint64_t frames) noexcept {
    peers_[peer].bytes_received.fetch_add(bytes, std::memory_order_relaxed);
    peers_[peer].frames_received.fetch_add(frames, std::memory_order_relaxed);
  }
  /// `bytes` of a frame partly read from `peer`'s connection moved to a fresh receive slab
  /// because the frame would not fit in the rest of the one it began in.
  void moved(std::size_t peer, std::uint64_t bytes) noexcept {
    peers_[peer].bytes_moved.fetch_add(bytes, std::memory_order_relaxed);
  }
  /// Bytes received from `peer` that the receive thread copied from one slab to another (see
  /// `moved`); the rest were read in place where they arrived. A stream of frames of one size
  /// up to 16 MiB is read without copies after its first frame; frames over 16 MiB, and the
  /// first of a larger size than those before, may be partly copied. Not part of `PeerStats`
  /// (nor of the logs): a measure of the receive path's copying, for its tests and benchmarks.
  [[nodiscard]] std::uint64_t bytes_moved(std::size_t peer) const noexcept {
    return peers_[peer].bytes_moved.load(std::memory_order_relaxed);
  }
  /// Sets `peer`'s state. `Failed` is final; `Closed` does not replace it.
  void set_state(std::size_t peer, ConnectionState state) noexcept {
    auto& slot = peers_[peer].state;
    auto current = slot.load(std::memory_order_relaxed);
    while (
        current != static_cast<std::uint8_t>(ConnectionState::Failed) &&
        !slot.compare_exchange_weak(current, static_cast<std::uint8_t>(state), std::memory_order_relaxed)) {
    }
  }

  /// A copy of `peer`'s counters (`peer < processes()`).
  /// The receive side's queues, one per (local worker, channel) that a worker has open or that
  /// frames arrived for before the worker opened it. A channel's queue goes when its worker's
  /// end of the channel does (its dataflow completed or was dropped), so the count follows the
  /// channels in use, not the dataflows ever built. For tests and monitoring.
  void set_inbound_queues(std::size_t count) noexcept {
    inbound_queues_.store(count, std::memory_order_relaxed);
  }
  [[nodiscard]] std::size_t inbound_queues() const noexcept {
    return inbound_queues_.load(std::memory_order_relaxed);
  }

  [[nodiscard]] PeerStats peer(std::size_t peer) const noexcept {
    const auto& c = peers_[peer];
    return PeerStats{
        static_cast<ConnectionState>(c.state.load(std::memory_order_relaxed)),
        c.bytes_sent.load(std::memory_order_relaxed), c.frames_sent.load(std::memory_order_relaxed),
        c.bytes_received.load(std::memory_order_relaxed), c.frames_received.load(std::memory_order_relaxed)};
  }

 private:
  // One cache line per peer: the send and receive threads of different peers do not share.
  struct alignas(64) Counters {
    std::atomic<std::uint8_t> state{static_cast<std::uint8_t>(ConnectionState::None)};
    std::atomic<std::uint64_t> bytes_sent{0}, frames_sent{0}, bytes_received{0}, frames_received{0};
    std::atomic<std::uint64_t> bytes_moved{0};
  };
  std::size_t processes_;
  std::size_t process_;
  std::size_t workers_;
  std::unique_ptr<Counters[]> peers_;
  std::atomic<std::size_t> inbound_queues_{0};
};

}  // namespace timely::communication
