// The cluster transport over TCP (Boost.Asio): one send thread and one receive thread per peer
// process, heartbeats, clean shutdown and failure handling, over the connections that
// connect.cpp makes. See transport.hpp.
// One file of about 790 lines: the send and receive threads, the workers' direct and gather
// writes, and the inbound queues the receive threads fill and the workers drain share the link
// state and its failure handling, which splitting would expose in a header.
#include "transport.hpp"

#include "connect.hpp"
#include "rendezvous.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>

#include <boost/asio.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <timely/communication/pinning.hpp>
#include <timely/communication/wire.hpp>

namespace timely::communication {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using networking::describe;
using networking::printable;
using networking::write_all;

namespace {

// ---------------------------------------------------------------------------------------------
// The network

class TcpNetwork;

/// The number of whole frames in `bytes` (a send buffer holds whole frames, back to back).
/// Right too for a buffer whose last frame lacks lasting bytes sent beside it (`send_gather`):
/// the walk steps past the end after that frame's header.
std::uint64_t count_frames(const std::vector<std::uint8_t>& bytes) noexcept {
  std::uint64_t frames = 0;
  for (std::size_t at = 0; at + wire::header_size <= bytes.size(); ++frames)
    at += wire::frame_size(wire::detail::get32(bytes.data() + at + 20));  // the length field
  return frames;
}

/// `bytes` with `lasting`'s bytes inserted, in one buffer.
std::vector<std::uint8_t> gathered(const std::vector<std::uint8_t>& bytes,
                                   std::span<const LastingBytes> lasting) {
  std::size_t total = bytes.size();
  for (const auto& piece : lasting) total += piece.size;
  std::vector<std::uint8_t> out;
  out.reserve(total);
  std::size_t at = 0;
  for (const auto& piece : lasting) {
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at),
               bytes.begin() + static_cast<std::ptrdiff_t>(piece.at));
    out.insert(out.end(), piece.data, piece.data + piece.size);
    at = piece.at;
  }
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(at), bytes.end());
  return out;
}

/// Receive slabs, recycled: the last view of a slab returns it here (from whichever worker
/// thread drops it), and the receive thread takes it back. A slab has the standard size, or, for
/// a frame larger than that, the frame's size rounded up to a power of two, so that a stream of
/// large frames reuses a few slabs too. The pool keeps the slabs returned last: after a burst of
/// large frames, the standard slabs returned next displace the large ones. The mutex orders the
/// workers' reads of a slab before the receive thread's next writes into it.
class SlabPool : public std::enable_shared_from_this<SlabPool> {
 public:
  // Four times the columnar builders' default batch (1 MiB): a frame of one full batch is a
  // little over 1 MiB, and with slabs of that size nearly every frame would straddle two of
  // them, and its part in the first would be copied to a fresh slab. With four frames to a slab,
  // about one in four is.
  static constexpr std::size_t slab_bytes = std::size_t{4} << 20;
  // Free slabs kept per link, and their bytes at most. A worker that falls behind its receive
  // thread holds many slabs, then returns them at once; slabs freed then would come back as
  // fresh memory, page by page faulted in again, at every such burst.
  static constexpr std::size_t kept = 16;
  static constexpr std::size_t kept_bytes = std::size_t{64} << 20;

  /// The size of the slab `take(bytes)` hands out.
  static std::size_t size_for(std::size_t bytes) noexcept {
    return bytes <= slab_bytes ? slab_bytes : std::bit_ceil(bytes);
  }

  /// A slab of `size_for(bytes)` bytes, recycled if one is free; it comes back when released.
  std::shared_ptr<std::uint8_t[]> take(std::size_t bytes) {
    const std::size_t size = size_for(bytes);
    std::unique_ptr<std::uint8_t[]> slab;
    {
      std::lock_guard lock(mutex_);
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->second == size) {
          slab = std::move(it->first);
          free_bytes_ -= size;
          free_.erase(it);
          break;
        }
    }
    if (!slab) slab.reset(new std::uint8_t[size]);
    auto* raw = slab.release();
    return std::shared_ptr<std::uint8_t[]>(
        raw, [pool = shared_from_this(), size](std::uint8_t* p) { pool->give(p, size); });
  }

 private:
  void give(std::uint8_t* p, std::size_t size) {
    std::unique_ptr<std::uint8_t[]> slab(p);
    if (size > kept_bytes) return;
    std::lock_guard lock(mutex_);
    free_.emplace_back(std::move(slab), size);
    free_bytes_ += size;
    while (free_.size() > kept || free_bytes_ > kept_bytes) {
      free_bytes_ -= free_.front().second;
      free_.erase(free_.begin());
    }
  }

  std::mutex mutex_;
  std::vector<std::pair<std::unique_ptr<std::uint8_t[]>, std::size_t>> free_;  // slab, size
  std::size_t free_bytes_ = 0;
};

/// One connection to a peer process, with its send and receive threads.
struct Link {
  std::size_t peer = 0;
  Address address;
  tcp::socket socket;

  // Send side. `write_mutex` is held by whoever writes to the socket: the send thread, or a
  // worker writing its buffer directly (when nothing is queued; saves a thread hand-off per
  // message). The send thread dequeues only while holding it, so writes keep queue order.
  // Lock order: write_mutex, then mutex.
  std::mutex write_mutex;
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::vector<std::uint8_t>> queue;
  std::vector<std::vector<std::uint8_t>> free;
  std::vector<asio::const_buffer> gather;  // a worker's gather write; guarded by write_mutex
  bool closing = false;                    // finish(): write end of stream after the queue
  bool aborting = false;                   // stop(): write the abort frame and stop
  std::string abort_reason;
  bool sender_finished = false;  // guarded by mutex
  std::thread sender;

  // Receive side.
  std::thread receiver;
  std::atomic<bool> received_eos{false};
  bool receiver_finished = false;  // guarded by mutex; cv is notified when it is set

  explicit Link(asio::io_context& io) : socket(io) {}
};

class TcpNetwork final : public Network, public std::enable_shared_from_this<TcpNetwork> {
 public:
  TcpNetwork(const ClusterConfig& config, std::size_t workers, std::shared_ptr<ProcessShared> shared)
      : config_(config),
        workers_(workers),
        shared_(std::move(shared)),
        stats_(std::make_shared<NetworkStats>(config.processes, config.process, workers)) {}

  ~TcpNetwork() override { stop("the network was dropped"); }

  std::size_t processes() const noexcept override { return config_.processes; }
  std::size_t process() const noexcept override { return config_.process; }
  std::size_t workers() const noexcept override { return workers_; }
  std::uint32_t max_payload() const noexcept override { return config_.max_payload; }
  bool zerocopy() const noexcept override { return config_.zerocopy; }
  std::shared_ptr<const NetworkStats> stats() const noexcept override { return stats_; }

  void send(std::size_t peer, std::vector<std::uint8_t>&& frames) override {
    if (peer == config_.process) {
      deliver_local(std::move(frames));
      return;
    }
    auto& link = *links_[peer];
    std::unique_lock writing(link.write_mutex, std::try_to_lock);
    if (writing.owns_lock() && may_write_directly(link)) {
      write_directly(link, asio::buffer(frames), frames.size(), count_frames(frames));
      recycle(link, std::move(frames));
      return;
    }
    // Once the send thread has ended on a failure, nothing would send a queued frame: the
    // queue would only grow. Raise the failure, as the direct write does.
    std::exception_ptr failed;
    {
      std::lock_guard lock(link.mutex);
      if (link.sender_finished || link.aborting) failed = shared_->failure();
      if (!failed) link.queue.push_back(std::move(frames));
    }
    if (failed) std::rethrow_exception(failed);
    link.cv.notify_one();
  }

  void send_gather(std::size_t peer, std::vector<std::uint8_t>&& frames,
                   std::span<const LastingBytes> lasting) override {
    if (peer != config_.process && !lasting.empty()) {
      auto& link = *links_[peer];
      std::unique_lock writing(link.write_mutex, std::try_to_lock);
      if (writing.owns_lock() && may_write_directly(link)) {
        auto& pieces = link.gather;  // guarded by write_mutex
        pieces.clear();
        std::size_t at = 0;
        std::size_t bytes = frames.size();
        for (const auto& piece : lasting) {
          if (piece.at > at) pieces.emplace_back(frames.data() + at, piece.at - at);
          pieces.emplace_back(piece.data, piece.size);
          at = piece.at;
          bytes += piece.size;
        }
        if (frames.size() > at) pieces.emplace_back(frames.data() + at, frames.size() - at);
        write_directly(link, pieces, bytes, count_frames(frames));  // lasting: in the last frame
        recycle(link, std::move(frames));
        return;
      }
    }
    if (!lasting.empty()) frames = gathered(frames, lasting);
    send(peer, std::move(frames));
  }

  std::vector<std::uint8_t> buffer(std::size_t peer) override {
    if (peer == config_.process) return {};
    auto& link = *links_[peer];
    std::lock_guard lock(link.mutex);
    if (link.free.empty()) return {};
    auto out = std::move(link.free.back());
    link.free.pop_back();
    return out;
  }

  std::shared_ptr<InboundQueue> inbound(std::size_t local, std::size_t channel) override {
    std::lock_guard lock(inbound_mutex_);
    // A frame for a channel its worker already left (a dropped dataflow's, long in flight).
    if (forgotten_.contains({local, channel})) return closed_;
    auto& slot = inbound_[{local, channel}];
    if (!slot) {
      slot = std::make_shared<InboundQueue>();
      stats_->set_inbound_queues(inbound_.size());
    }
    return slot;
  }

  void forget(std::size_t local, std::size_t channel) override {
    std::shared_ptr<InboundQueue> queue;
    {
      std::lock_guard lock(inbound_mutex_);
      auto it = inbound_.find({local, channel});
      if (it == inbound_.end()) return;
      queue = std::move(it->second);
      inbound_.erase(it);
      stats_->set_inbound_queues(inbound_.size());
      forgotten_.insert({local, channel});
      forgotten_order_.push_back({local, channel});
      if (forgotten_order_.size() > forgotten_kept) {
        forgotten_.erase(forgotten_order_.front());
        forgotten_order_.pop_front();
      }
    }
    std::vector<View> dropped;  // released outside the lock
    std::lock_guard lock(queue->mutex);
    queue->closed = true;
    dropped.swap(queue->views);
  }

  void finish() override {
    for (auto& link : links_) {
      if (!link) continue;
      {
        std::lock_guard lock(link->mutex);
        link->closing = true;
      }
      link->cv.notify_one();
    }
    join();
    if (auto error = shared_->failure()) std::rethrow_exception(error);
    for (auto& link : links_)
      if (link) stats_->set_state(link->peer, ConnectionState::Closed);
  }

  void stop(const std::string& reason) noexcept override {
    if (joined_) return;
    for (auto& link : links_) {
      if (!link) continue;
      {
        std::lock_guard lock(link->mutex);
        link->aborting = true;
        link->abort_reason = reason;
      }
      link->cv.notify_one();
    }
    // Give the senders a moment to deliver the reason, then cut every connection so that no
    // thread stays blocked on a peer that does not read.
    const auto until = Clock::now() + std::chrono::milliseconds(1000);
    for (auto& link : links_) {
      if (!link || !link->sender.joinable()) continue;
      std::unique_lock lock(link->mutex);
      link->cv.wait_until(lock, until, [&] { return link->sender_finished; });
    }
    stopping_.store(true);
    for (auto& link : links_)
      if (link && link->socket.is_open()) ::shutdown(link->socket.native_handle(), SHUT_RDWR);
    join();
    for (auto& link : links_)
      if (link) stats_->set_state(link->peer, ConnectionState::Failed);  // a closed one stays closed
  }

  /// Listens, connects, handshakes (all before the deadline), then starts the threads, confined
  /// to the CPUs `place` gives.
  void start(const PlaceNetworkThreads& place) {
    if (config_.processes == 1) {
      links_.resize(1);
      if (place) place({true});
      return;  // zerocopy within one process: no connections
    }
    const auto on_report = [this](const std::string& line) { report(line); };
    std::vector<std::optional<tcp::socket>> sockets;
    if (config_.rendezvous) {
      // No hostfile: the addresses come from process 0 (rendezvous.hpp), within the same deadline.
      const auto deadline = networking::Clock::now() + config_.connect_timeout;
      auto met = rendezvous::run(io_, config_, workers_, deadline, on_report);
      config_.addresses = std::move(met.addresses);
      sockets =
          networking::create_sockets(io_, config_, workers_, on_report, std::move(met.acceptor), deadline);
    } else {
      sockets = networking::create_sockets(io_, config_, workers_, on_report);
    }
    links_.resize(config_.processes);
    for (std::size_t peer = 0; peer < config_.processes; ++peer) {
      if (!sockets[peer]) continue;
      auto link = std::make_unique<Link>(io_);
      link->peer = peer;
      link->address = config_.addresses[peer];
      link->socket = std::move(*sockets[peer]);
      links_[peer] = std::move(link);
      stats_->set_state(peer, ConnectionState::Connected);
    }

    std::vector<unsigned> cpus;
    if (place) {
      std::vector<bool> same_host(config_.processes, false);
      same_host[config_.process] = true;
      for (auto& link : links_)
        if (link) same_host[link->peer] = on_this_host(link->socket);
      cpus = place(same_host);
    }
    for (auto& link : links_) {
      if (!link) continue;
      boost::system::error_code ec;
      link->socket.set_option(tcp::no_delay(true), ec);
      link->sender = std::thread([this, l = link.get()] { send_loop(*l); });
      if (!cpus.empty())
        pin_thread(link->sender, cpus, "the send thread to process " + std::to_string(link->peer));
      link->receiver = std::thread([this, l = link.get()] { receive_loop(*l); });
      if (!cpus.empty())
        pin_thread(link->receiver, cpus, "the receive thread from process " + std::to_string(link->peer));
    }
  }

 private:
  /// Zerocopy mode: frames from a worker of this process to workers of this process. The
  /// buffer becomes the owner of the views; nothing is copied.
  void deliver_local(std::vector<std::uint8_t>&& frames) {
    auto holder = std::make_shared<std::vector<std::uint8_t>>(std::move(frames));
    const std::shared_ptr<const std::uint8_t[]> owner(holder, holder->data());
    const wire::FrameLimits limits{static_cast<std::uint32_t>(workers_),
                                   static_cast<std::uint32_t>(config_.process),
                                   static_cast<std::uint32_t>(config_.process), config_.max_payload};
    const std::size_t first = config_.process * workers_;
    std::size_t at = 0;
    while (at < holder->size()) {
      const auto h = wire::parse_header({holder->data() + at, holder->size() - at}, limits, at);
      for (std::uint32_t target = h.target_lo; target < h.target_hi; ++target) {
        auto queue = inbound(target - first, h.channel);
        {
          std::lock_guard lock(queue->mutex);
          if (!queue->closed)
            queue->views.push_back(View{owner, holder->data() + at + wire::header_size, h.length, h.source});
        }
        shared_->notify(target - first, h.channel);
      }
      at += wire::frame_size(h.length);
    }
  }

  void report(const std::string& line) const {
    if (config_.report) config_.report(line);
  }

  /// Whether the peer at the other end of `socket` runs on this host: it is reached over
  /// loopback, or its address is this end's own (the kernel routes a connection to one of the
  /// host's own addresses through loopback, keeping the address).
  static bool on_this_host(const tcp::socket& socket) {
    boost::system::error_code ec;
    const auto remote = socket.remote_endpoint(ec);
    if (ec) return false;
    const auto local = socket.local_endpoint(ec);
    if (ec) return false;
    return remote.address().is_loopback() || remote.address() == local.address();
  }

  void join() {
    if (joined_) return;
    for (auto& link : links_)
      if (link && link->sender.joinable()) link->sender.join();
    for (auto& link : links_)
      if (link && link->receiver.joinable()) link->receiver.join();
    joined_ = true;
  }

  void fail(const std::string& message) { shared_->fail(std::make_exception_ptr(NetworkError(message))); }

  /// A write to the socket failed (`what`: the system's reason).
  struct SendFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  /// Records that a write to `link` failed. A peer that stops the computation writes its abort
  /// frame and exits; if it had unread bytes, its kernel resets the connection, and our next
  /// write fails (EPIPE) while the abort frame may still wait, unread, in our receive buffer.
  /// The receive thread reads what was delivered before the reset, so let it finish first
  /// (bounded): the peer's own reason, if it sent one, is the failure to report.
  void lost_while_sending(Link& link, const std::string& what) {
    {
      std::unique_lock lock(link.mutex);
      link.cv.wait_for(lock, std::chrono::seconds(2), [&] { return link.receiver_finished; });
    }
    fail("timely: lost " + describe(link.peer, link.address) + " while sending to it: " + what);
    stats_->set_state(link.peer, ConnectionState::Failed);
  }

  /// Whether a worker holding `link.write_mutex` may write to the socket itself: nothing is
  /// queued before it and the link is open.
  static bool may_write_directly(Link& link) {
    std::lock_guard lock(link.mutex);
    return link.queue.empty() && !link.closing && !link.aborting && !link.sender_finished;
  }

  /// A worker's own write of whole frames (`write_mutex` held). On failure it records the lost
  /// peer and throws the computation's failure.
  template <class Buffers>
  void write_directly(Link& link, const Buffers& buffers, std::size_t bytes, std::uint64_t frames) {
    boost::system::error_code ec;
    asio::write(link.socket, buffers, networking::WholeWrites{}, ec);
    if (ec) {
      lost_while_sending(link, ec.message());
      stats_->set_state(link.peer, ConnectionState::Failed);
      std::rethrow_exception(shared_->failure());
    }
    stats_->sent(link.peer, bytes, frames);
  }

  /// Keeps a written buffer's storage for the worker's next frames to `link`.
  static void recycle(Link& link, std::vector<std::uint8_t>&& frames) {
    frames.clear();
    std::lock_guard lock(link.mutex);
    if (link.free.size() < 8) link.free.push_back(std::move(frames));
  }

  void write_control(Link& link, wire::FrameKind kind, const std::string& payload) {
    std::vector<std::uint8_t> frame(wire::frame_size(payload.size()), 0);
    wire::FrameHeader header;
    header.kind = kind;
    header.length = static_cast<std::uint32_t>(payload.size());
    wire::encode_header(header, frame.data());
    std::memcpy(frame.data() + wire::header_size, payload.data(), payload.size());
    write_all(link.socket, frame.data(), frame.size(), "sending to " + describe(link.peer, link.address));
    stats_->sent(link.peer, frame.size(), 1);
  }

  void send_loop(Link& link) {
    std::vector<std::vector<std::uint8_t>> batch;
    std::vector<asio::const_buffer> buffers;
    try {
      for (;;) {
        bool closing = false;
        std::string abort_reason;
        bool aborting = false;
        {
          std::unique_lock lock(link.mutex);
          link.cv.wait_for(lock, config_.heartbeat_interval,
                           [&] { return !link.queue.empty() || link.closing || link.aborting; });
        }
        std::lock_guard writing(link.write_mutex);
        {
          std::lock_guard lock(link.mutex);
          while (!link.queue.empty() && batch.size() < 64) {
            batch.push_back(std::move(link.queue.front()));
            link.queue.pop_front();
          }
          closing = link.closing && link.queue.empty();
          aborting = link.aborting;
          abort_reason = link.abort_reason;
        }
        if (aborting) {
          // Data may be incomplete anyway: tell the peer why we stop.
          write_control(link, wire::FrameKind::Abort, abort_reason.substr(0, wire::max_reason));
          break;
        }
        if (!batch.empty()) {
          buffers.clear();
          for (auto& b : batch) buffers.emplace_back(asio::buffer(b));
          boost::system::error_code ec;
          asio::write(link.socket, buffers, networking::WholeWrites{}, ec);
          if (ec) throw SendFailed(ec.message());
          for (const auto& b : batch) stats_->sent(link.peer, b.size(), count_frames(b));
          std::lock_guard lock(link.mutex);
          for (auto& b : batch) {
            b.clear();
            if (link.free.size() < 8) link.free.push_back(std::move(b));
          }
          batch.clear();
        } else if (!closing) {
          write_control(link, wire::FrameKind::Heartbeat, {});
        }
        if (closing) {
          write_control(link, wire::FrameKind::EndOfStream, {});
          boost::system::error_code ec;
          link.socket.shutdown(tcp::socket::shutdown_send, ec);
          break;
        }
      }
    } catch (const SendFailed& e) {
      if (!stopping_.load()) lost_while_sending(link, e.what());
    } catch (const std::exception& e) {
      if (!stopping_.load()) {
        fail(std::string(e.what()));
        stats_->set_state(link.peer, ConnectionState::Failed);
      }
    }
    {
      std::lock_guard lock(link.mutex);
      link.sender_finished = true;
      link.queue.clear();
    }
    link.cv.notify_all();
  }

  void receive_loop(Link& link) {
    struct Finished {
      Link& link;
      ~Finished() {
        {
          std::lock_guard lock(link.mutex);
          link.receiver_finished = true;
        }
        link.cv.notify_all();
      }
    } finished{link};
    const std::string who = describe(link.peer, link.address);
    const wire::FrameLimits limits{static_cast<std::uint32_t>(workers_),
                                   static_cast<std::uint32_t>(link.peer),
                                   static_cast<std::uint32_t>(config_.process), config_.max_payload};
    std::vector<std::uint64_t> expected_seq(workers_, 0);
    InboundCache cache;
    constexpr std::size_t slab_bytes = SlabPool::slab_bytes;
    auto pool = std::make_shared<SlabPool>();
    std::size_t capacity = slab_bytes;
    std::shared_ptr<std::uint8_t[]> slab = pool->take(capacity);
    // Frames from large_frame to huge_frame bytes are read one at a time, each into a slab
    // with room for it (see below). `large` is the size of the last one: 0 before the first,
    // after a larger one (the pool keeps up to four slabs of huge_frame bytes; larger frames
    // are read as before, and may straddle), and once a standard slab's worth of smaller
    // frames followed it. A frame larger than the last large one may straddle too.
    constexpr std::size_t large_frame = slab_bytes / 16;
    constexpr std::size_t huge_frame = SlabPool::kept_bytes / 4;
    std::size_t large = 0;
    std::size_t small_since = 0;      // bytes of smaller frames since the last large one
    std::size_t begin = 0;            // first unparsed byte
    std::size_t end = 0;              // one past the last received byte
    std::uint64_t stream_offset = 0;  // stream offset of slab[begin]
    auto last_heard = Clock::now();
    const std::size_t first = config_.process * workers_;
    try {
      for (;;) {
        if (stopping_.load()) return;
        pollfd p{link.socket.native_handle(), POLLIN, 0};
        const int r = ::poll(&p, 1, 100);
        if (r == 0) {
          if (!link.received_eos && Clock::now() - last_heard > config_.heartbeat_timeout)
            throw NetworkError("timely: lost " + who + ": nothing heard for " +
                               std::to_string(config_.heartbeat_timeout.count()) +
                               " ms (the process may be stopped, or the network cut)");
          continue;
        }
        // The size of the frame that starts at `begin`, once its header is in (0 before).
        std::size_t pending = 0;
        if (end - begin >= wire::header_size)
          pending = wire::frame_size(
              wire::parse_header({slab.get() + begin, end - begin}, limits, stream_offset).length);
        // Moves the unparsed tail to a fresh slab of at least `need` bytes.
        const auto move_tail = [&](std::size_t need) {
          std::shared_ptr<std::uint8_t[]> fresh = pool->take(need);
          std::memcpy(fresh.get(), slab.get() + begin, end - begin);
          stats_->moved(link.peer, end - begin);
          end -= begin;
          begin = 0;
          capacity = SlabPool::size_for(need);
          slab = std::move(fresh);
        };
        // Where large frames stream in, read them one at a time and start each in a slab with
        // room for it, so that none straddles two slabs (its first part would be copied to the
        // next). Moving at most a header's bytes costs nothing; a frame of unexpected size may
        // still straddle, and is moved below.
        if (large != 0 && pending == 0 && capacity - begin < large && begin != 0) move_tail(large);
        // Make room: move the unparsed tail to a fresh slab big enough for the frame it starts.
        if (end == capacity || (pending != 0 && begin + pending > capacity))
          move_tail(std::max(slab_bytes, pending));
        std::size_t limit = capacity;
        if (pending >= large_frame)
          limit = begin + pending;  // the rest of this large frame, and no more
        else if (large != 0)
          limit = std::min(capacity, begin + large);  // as much as a large frame next, at most
        boost::system::error_code ec;
        const auto n = link.socket.read_some(asio::buffer(slab.get() + end, limit - end), ec);
        if (ec == asio::error::eof) {
          if (link.received_eos && begin == end) return;  // clean shutdown
          if (stopping_.load()) return;
          throw NetworkError(
              "timely: lost " + who + ": connection closed without an end-of-stream marker" +
              (begin == end
                   ? std::string(
                         " (did it crash or get killed, or give up on this process after hearing nothing "
                         "from it for too long?)")
                   : " in the middle of a frame (" + std::to_string(end - begin) + " bytes of it received)"));
        }
        if (ec == asio::error::would_block || ec == asio::error::try_again || ec == asio::error::interrupted)
          continue;
        if (ec) {
          if (stopping_.load()) return;
          throw NetworkError("timely: lost " + who + ": " + ec.message());
        }
        end += n;
        last_heard = Clock::now();
        std::uint64_t frames = 0;  // completed by this read
        while (end - begin >= wire::header_size) {
          if (link.received_eos)
            throw NetworkError("timely: " + who + " sent bytes after its end-of-stream marker");
          const auto h = wire::parse_header({slab.get() + begin, end - begin}, limits, stream_offset);
          const auto size = wire::frame_size(h.length);
          if (end - begin < size) break;
          if (size < large_frame) {
            small_since += size;
            if (small_since >= slab_bytes) large = 0;
          } else {
            large = size <= huge_frame ? size : 0;
            small_since = 0;
          }
          const std::uint8_t* payload = slab.get() + begin + wire::header_size;
          switch (h.kind) {
            case wire::FrameKind::Data: {
              auto& seq = expected_seq[h.source - link.peer * workers_];
              if (h.seq != seq)
                throw NetworkError("timely: corrupt stream from " + who + ": frame " + std::to_string(h.seq) +
                                   " from worker " + std::to_string(h.source) + ", expected frame " +
                                   std::to_string(seq) + " (data lost or repeated)");
              ++seq;
              for (std::uint32_t target = h.target_lo; target < h.target_hi; ++target) {
                const std::size_t local = target - first;
                const auto queue = cached_inbound(cache, local, h.channel);
                {
                  std::lock_guard lock(queue->mutex);
                  if (!queue->closed) queue->views.push_back(View{slab, payload, h.length, h.source});
                }
                shared_->notify(local, h.channel);
              }
              break;
            }
            case wire::FrameKind::Heartbeat:
              break;
            case wire::FrameKind::EndOfStream:
              link.received_eos = true;
              break;
            case wire::FrameKind::Abort:
              throw NetworkError("timely: " + who + " stopped the computation: " +
                                 printable(reinterpret_cast<const char*>(payload), h.length));
          }
          begin += size;
          stream_offset += size;
          ++frames;
        }
        stats_->received(link.peer, n, frames);
        if (begin == end && end > capacity / 2) {
          // Everything parsed and the slab half used: continue in a recycled one rather than
          // waiting for it to fill (the views into this one keep it alive until decoded), with
          // room for the large frame expected next.
          slab = pool->take(std::max(slab_bytes, large));
          capacity = SlabPool::size_for(std::max(slab_bytes, large));
          begin = end = 0;
        }
      }
    } catch (const std::exception& e) {
      if (!stopping_.load()) {
        fail(e.what());
        stats_->set_state(link.peer, ConnectionState::Failed);
        // A worker may be blocked writing to this peer (one that stopped reading): cut the
        // connection so that it returns and sees the failure.
        ::shutdown(link.socket.native_handle(), SHUT_RDWR);
      }
    }
  }

  ClusterConfig config_;
  std::size_t workers_;
  std::shared_ptr<ProcessShared> shared_;
  std::shared_ptr<NetworkStats> stats_;
  asio::io_context io_;
  std::vector<std::unique_ptr<Link>> links_;
  std::mutex inbound_mutex_;
  std::map<std::pair<std::size_t, std::size_t>, std::shared_ptr<InboundQueue>> inbound_;
  // The channels forgotten last (at most `forgotten_kept`), whose late frames go to `closed_`:
  // remembering every channel ever forgotten would grow with the dataflows built, and a dropped
  // dataflow's frames arrive soon after it is dropped.
  static constexpr std::size_t forgotten_kept = 4096;
  boost::unordered_flat_set<std::pair<std::size_t, std::size_t>> forgotten_;
  std::deque<std::pair<std::size_t, std::size_t>> forgotten_order_;
  const std::shared_ptr<InboundQueue> closed_ = [] {
    auto queue = std::make_shared<InboundQueue>();
    queue->closed = true;
    return queue;
  }();

  // A receive thread's own map from (local worker, channel) to its queue, so that a frame takes
  // no lock of `inbound_`. It holds the queues weakly, so that a forgotten channel's queue goes
  // with its worker's end; expired entries are swept each time the map doubled since the last
  // sweep.
  struct InboundCache {
    boost::unordered_flat_map<std::pair<std::size_t, std::uint64_t>, std::weak_ptr<InboundQueue>> map;
    std::size_t sweep_at = 64;
  };
  std::shared_ptr<InboundQueue> cached_inbound(InboundCache& cache, std::size_t local,
                                               std::uint64_t channel) {
    auto& slot = cache.map[{local, channel}];
    if (auto queue = slot.lock()) return queue;
    auto queue = inbound(local, channel);
    slot = queue;
    if (cache.map.size() >= cache.sweep_at) {
      boost::unordered::erase_if(cache.map, [](const auto& entry) { return entry.second.expired(); });
      cache.sweep_at = std::max<std::size_t>(64, 2 * cache.map.size());
    }
    return queue;
  }
  std::atomic<bool> stopping_{false};
  bool joined_ = false;
};

}  // namespace

std::shared_ptr<Network> Network::start(const ClusterConfig& config, std::size_t workers,
                                        std::shared_ptr<ProcessShared> shared,
                                        const PlaceNetworkThreads& place) {
  if (config.processes < 2 && !config.zerocopy)
    throw ConfigError("timely: a cluster needs at least two processes (-n), or the zerocopy mode (-z)");
  if (config.process >= config.processes)
    throw ConfigError("timely: process index " + std::to_string(config.process) +
                      " (-p) must be less than the " + "number of processes " +
                      std::to_string(config.processes) + " (-n)");
  if (!config.rendezvous && config.addresses.size() < config.processes)
    throw ConfigError("timely: " + std::to_string(config.processes) + " processes need " +
                      std::to_string(config.processes) + " addresses, got " +
                      std::to_string(config.addresses.size()));
  if (workers == 0 || workers * config.processes > 0xFFFFFFFFu)
    throw ConfigError("timely: bad number of workers per process: " + std::to_string(workers));
  if (!shared || shared->threads() != workers)
    throw ConfigError("timely: the process state does not match the number of workers");
  auto network = std::make_shared<TcpNetwork>(config, workers, std::move(shared));
  try {
    network->start(place);
  } catch (const std::exception& e) {
    network->stop(e.what());  // the peers hear why, not only that the network went
    throw;
  }
  return network;
}

}  // namespace timely::communication
