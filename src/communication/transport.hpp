/// \file
/// Private to the communication library: `InboundQueue` (received messages for one worker and channel, as
/// views into receive buffers) and `Network` (the TCP connections of one process to all others, with a send
/// thread and a receive thread per peer). Boost.Asio stays inside src/communication/transport.cpp.
///
/// The cluster allocator (`Cluster` in cluster.hpp, buffers in cluster.cpp) encodes messages for workers of
/// other processes into frames (wire.hpp) in per-worker buffers and hands whole buffers to `Network::send`;
/// the send thread of that peer writes them with vectored writes. The receive thread reads into large slabs
/// and hands each data frame's payload, without copying, to the `InboundQueue` of every target worker (one
/// copy per process for a broadcast), then wakes that worker.
///
/// Failure: a peer that closes without an end-of-stream frame, a connection error, a peer
/// silent for longer than `heartbeat_timeout` (killed, stopped, or cut off: idle connections
/// carry heartbeats), a corrupt frame, or an abort frame from a peer whose computation failed:
/// each records a `NetworkError` naming the peer in the `ProcessShared`, which stops every
/// worker of this process; `initialize` then rethrows it.
///
/// Source: the reference's `timely_communication::allocator::zero_copy` and `networking`
/// (SEMANTICS.md §7.5-§7.6): per-peer send and receive threads, byte slabs, reference-counted
/// views. Thread-safety: `Network` is thread-safe; `InboundQueue` is guarded by its mutex.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <timely/communication/codec_core.hpp>
#include <timely/communication/error.hpp>
#include <timely/communication/initialize.hpp>
#include <timely/communication/network_stats.hpp>
#include <timely/communication/process.hpp>

namespace timely::communication {

/// A received message: `size` bytes at `data`, kept alive by `owner` (the receive slab).
struct View {
  std::shared_ptr<const std::uint8_t[]> owner;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  std::uint32_t source = 0;  ///< global index of the sending worker
  [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return {data, size}; }
};

/// Received messages for one worker and channel, in arrival order. Thread-safe. `closed`: the
/// worker's end of the channel is gone (`Network::forget`); frames still arriving for it (of a
/// dropped dataflow) are discarded rather than kept, with their slabs, for ever.
struct InboundQueue {
  std::mutex mutex;
  std::vector<View> views;
  bool closed = false;
};

/// Called once by `Network::start`, on its thread, once every connection is made and before any
/// network thread runs: `same_host[q]` says whether process q runs on this host (reached over
/// loopback or over one of this host's own addresses; this process's own entry is true).
/// Returns the CPUs the network threads may run on (empty: leave them where they start).
using PlaceNetworkThreads = std::function<std::vector<unsigned>(const std::vector<bool>& same_host)>;

/// The TCP connections of one process to all other processes of a computation.
class Network {
 public:
  /// Listens on this process's address, connects to every other process and completes the
  /// handshakes, all within `config.connect_timeout`; then starts the send and receive threads.
  /// `workers` is W; received messages wake workers through `shared`. `place`, if set, says
  /// where the network threads run (see `PlaceNetworkThreads`).
  /// \throws ConfigError for a bad configuration, an address that cannot be listened on, a
  /// handshake that shows different arguments, or network threads that cannot be pinned (and
  /// whatever `place` throws); NetworkError if a peer cannot be reached in time.
  static std::shared_ptr<Network> start(const ClusterConfig& config, std::size_t workers,
                                        std::shared_ptr<ProcessShared> shared,
                                        const PlaceNetworkThreads& place = {});

  virtual ~Network() = default;

  [[nodiscard]] virtual std::size_t processes() const noexcept = 0;
  [[nodiscard]] virtual std::size_t process() const noexcept = 0;
  [[nodiscard]] virtual std::size_t workers() const noexcept = 0;
  [[nodiscard]] virtual std::uint32_t max_payload() const noexcept = 0;
  /// Whether workers of this process exchange serialized frames too (`ClusterConfig::zerocopy`).
  [[nodiscard]] virtual bool zerocopy() const noexcept = 0;

  /// Queues `frames` (whole frames) for process `peer`; the send thread writes them in order.
  /// Frames for this process itself (zerocopy mode) are delivered at once.
  virtual void send(std::size_t peer, std::vector<std::uint8_t>&& frames) = 0;
  /// Sends `frames` with the bytes of `lasting` inserted (`Encoder`'s lasting bytes: they
  /// belong to a value the caller holds until this returns), all of them within the last frame. When nothing
  /// is queued for `peer` the caller's thread writes them at once with one gather write, without copying the
  /// lasting bytes; otherwise, or for this process itself, it copies them into the buffer and
  /// sends that as `send` does. Throws what `send` throws.
  virtual void send_gather(std::size_t peer, std::vector<std::uint8_t>&& frames,
                           std::span<const LastingBytes> lasting) = 0;
  /// An empty buffer for frames to `peer`, recycled from earlier sends when possible.
  virtual std::vector<std::uint8_t> buffer(std::size_t peer) = 0;
  /// The queue of messages for local worker `local` on `channel` (created on first use by
  /// either side; the receive thread may deliver before the worker asks).
  virtual std::shared_ptr<InboundQueue> inbound(std::size_t local, std::size_t channel) = 0;
  /// Local worker `local` no longer reads `channel`: its queue is closed and dropped. Frames that
  /// arrive for the channel later are discarded while a receive thread still holds the closed
  /// queue; after that (a dropped dataflow's frames long in flight) they open a queue nobody
  /// reads, as before this call existed.
  virtual void forget(std::size_t local, std::size_t channel) = 0;

  /// The connections' counters (network_stats.hpp), updated by the network threads; they stay
  /// readable after the network is gone.
  [[nodiscard]] virtual std::shared_ptr<const NetworkStats> stats() const noexcept = 0;

  /// Ends a successful computation: flushes, sends end of stream to every peer, and waits for
  /// every peer's end of stream. \throws NetworkError if a peer failed meanwhile.
  virtual void finish() = 0;
  /// Ends a failed computation: tells every peer why (best effort, bounded time), closes the
  /// connections and joins the threads. Never throws.
  virtual void stop(const std::string& reason) noexcept = 0;
};

}  // namespace timely::communication
