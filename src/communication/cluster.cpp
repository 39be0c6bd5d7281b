// The non-template side of the cluster allocator (include/timely/communication/cluster.hpp):
// one worker's frame buffers per peer process with their sequence numbers, and the queues of
// received views that its typed pullers decode.
#include <timely/communication/cluster.hpp>

#include <mutex>
#include <string>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/communication/wire.hpp>

#include "transport.hpp"

namespace timely::communication {

namespace detail {

/// One worker's outgoing frames, one buffer per process, with the per-(worker, process)
/// sequence numbers. Shared by that worker's remote pushers; one thread only.
class ClusterLinks {
 public:
  ClusterLinks(std::shared_ptr<Network> network, std::uint32_t source)
      : network_(std::move(network)),
        source_(source),
        buffers_(network_->processes()),
        seqs_(network_->processes(), 0) {}

  void append(std::size_t peer, std::uint32_t lo, std::uint32_t hi, std::size_t channel, EncodeFn encode,
              const void* value) {
    auto& buf = buffers_[peer];
    const std::size_t start = buf.size();
    buf.resize(start + wire::header_size);
    struct Forget {  // the lasting bytes are the value's: never kept past this call
      std::vector<LastingBytes>& lasting;
      ~Forget() { lasting.clear(); }
    } forget{lasting_};
    Encoder encoder(buf, lasting_, lasting_min);
    try {
      encode(encoder, value);
    } catch (...) {
      buf.resize(start);  // no partial frame
      throw;
    }
    const std::size_t length = encoder.size() - start - wire::header_size;
    if (length > network_->max_payload()) {
      buf.resize(start);
      throw timely::Error("timely: a message of " + std::to_string(length) + " bytes on channel " +
                          std::to_string(channel) + " exceeds the frame payload limit of " +
                          std::to_string(network_->max_payload()) + " bytes");
    }
    buf.resize(buf.size() + (wire::frame_size(length) - wire::header_size - length), 0);
    wire::FrameHeader header;
    header.source = source_;
    header.target_lo = lo;
    header.target_hi = hi;
    header.length = static_cast<std::uint32_t>(length);
    header.channel = channel;
    header.seq = seqs_[peer]++;
    wire::encode_header(header, buf.data() + start);
    if (!lasting_.empty()) {
      // The value's lasting bytes are valid only until this returns: write them now.
      network_->send_gather(peer, std::move(buf), lasting_);
      buf = network_->buffer(peer);
    } else if (buf.size() >= flush_bytes) {
      flush(peer);
    }
  }

  /// Hands every non-empty buffer to the network.
  void flush_all() {
    for (std::size_t peer = 0; peer < buffers_.size(); ++peer)
      if (!buffers_[peer].empty()) flush(peer);
  }

  [[nodiscard]] Network& network() noexcept { return *network_; }
  [[nodiscard]] const std::shared_ptr<Network>& network_ptr() const noexcept { return network_; }

  /// A buffer this large is handed over without waiting for the end of the step.
  static constexpr std::size_t flush_bytes = std::size_t{1} << 20;
  /// A value's lasting bytes (a columnar batch's column buffers) at least this large are
  /// written from where they are, with a gather write, instead of being copied into the buffer;
  /// the buffer is then sent at once. Smaller ones are copied, so that small batches still
  /// share a write.
  static constexpr std::size_t lasting_min = std::size_t{64} << 10;

 private:
  void flush(std::size_t peer) {
    network_->send(peer, std::move(buffers_[peer]));
    buffers_[peer] = network_->buffer(peer);
  }

  std::shared_ptr<Network> network_;
  std::uint32_t source_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::uint64_t> seqs_;
  std::vector<LastingBytes> lasting_;  // of the value being appended; empty between appends
};

/// The views the network delivered for one worker and channel, taken a batch per lock.
class RemoteInbox {
 public:
  RemoteInbox(std::shared_ptr<Network> network, std::size_t local, std::size_t channel)
      : network_(std::move(network)),
        local_(local),
        channel_(channel),
        queue_(network_->inbound(local, channel)) {}
  // The worker's end of the channel is gone: so goes the network's queue for it.
  ~RemoteInbox() { network_->forget(local_, channel_); }
  RemoteInbox(const RemoteInbox&) = delete;
  RemoteInbox& operator=(const RemoteInbox&) = delete;

  bool next(std::span<const std::uint8_t>& bytes, std::uint32_t& source, std::shared_ptr<const void>& owner) {
    if (next_ == pending_.size()) {
      pending_.clear();
      next_ = 0;
      std::lock_guard lock(queue_->mutex);
      std::swap(pending_, queue_->views);
    }
    if (next_ == pending_.size()) {
      current_ = View{};
      return false;
    }
    current_ = std::move(pending_[next_++]);  // keeps the slab alive while the caller decodes
    bytes = current_.bytes();
    source = current_.source;
    owner = current_.owner;
    return true;
  }

 private:
  std::shared_ptr<Network> network_;
  std::size_t local_, channel_;
  std::shared_ptr<InboundQueue> queue_;
  std::vector<View> pending_;
  std::size_t next_ = 0;
  View current_;
};

void remote_append(ClusterLinks& links, std::size_t peer, std::uint32_t lo, std::uint32_t hi,
                   std::size_t channel, EncodeFn encode, const void* value) {
  links.append(peer, lo, hi, channel, encode, value);
}

std::shared_ptr<RemoteInbox> remote_inbox(ClusterLinks& links, std::size_t local, std::size_t channel) {
  return std::make_shared<RemoteInbox>(links.network_ptr(), local, channel);
}

bool remote_next(RemoteInbox& inbox, std::span<const std::uint8_t>& bytes, std::uint32_t& source,
                 std::shared_ptr<const void>& owner) {
  return inbox.next(bytes, source, owner);
}

void throw_undecodable(std::size_t channel, std::uint32_t source, const std::string& why) {
  // The handshake checks the wire version and each process's -n and -w, not the dataflows a
  // program builds from its other arguments: the likeliest cause, hence the question.
  throw NetworkError("timely: a message from worker " + std::to_string(source) + " on channel " +
                     std::to_string(channel) + " does not decode: " + why +
                     " (do all processes run the same program with the same arguments? A channel "
                     "carries one record type, and its number depends on the dataflows built "
                     "before it)");
}

void throw_no_codec(std::size_t channel, const char* type_name) {
  throw ConfigError(std::string("timely: channel ") + std::to_string(channel) +
                    " carries a type without a Codec (" + type_name +
                    "), so it cannot travel between processes (-n > 1) or be serialized (-z). Give the "
                    "record and timestamp types an encoding by specializing "
                    "timely::communication::Codec (timely/communication/codec.hpp); aggregates of "
                    "encodable fields get one automatically.");
}

}  // namespace detail

Cluster::Cluster(std::size_t local, std::shared_ptr<ProcessShared> shared, std::shared_ptr<Network> network)
    : local_(local),
      process_(network->process()),
      processes_(network->processes()),
      zerocopy_(network->zerocopy()),
      shared_(std::move(shared)),
      events_(std::make_shared<Events>()),
      links_(std::make_shared<detail::ClusterLinks>(
          std::move(network), static_cast<std::uint32_t>(process_ * shared_->threads() + local))) {}

void Cluster::release() { links_->flush_all(); }

std::shared_ptr<const NetworkStats> Cluster::network_stats() const noexcept {
  if (processes_ < 2) return nullptr;
  return links_->network().stats();
}

}  // namespace timely::communication
