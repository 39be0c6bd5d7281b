/// \file
/// The progress broadcast of one scope: `ProgressMessage<T>` (one worker's batch of pointstamp
/// updates), its codec, and `Progcaster<T>`, which sends a scope's batches to every worker (this
/// one included) and receives theirs over a broadcast channel.
///
/// Every worker folds the same sequences of batches, each received whole, so the frontiers it
/// computes are conservative at all times (SEMANTICS.md §3.8).
///
/// Source: Naiad §3.3 (distributed progress tracking) and the reference's `progress::broadcast`
/// (SEMANTICS.md §3.8-§3.9). Thread-safety: none; a progcaster belongs to its worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <timely/communication/codec.hpp>
#include <timely/communication/push_pull.hpp>
#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/location.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/progress/type_name.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker_state.hpp>

namespace timely::progress {

/// A batch of pointstamp updates one worker broadcasts to all (SEMANTICS.md §3.8): the sender,
/// its per-scope sequence number, and `((location, time), diff)` entries. The entries are shared
/// by every receiver rather than copied.
template <Timestamp T>
struct ProgressMessage {
  using Updates = typename ChangeBatch<Pointstamp<T>>::Storage;
  std::size_t from = 0;
  std::size_t seq = 0;
  std::shared_ptr<const Updates> updates;
};

}  // namespace timely::progress

namespace timely::communication {

/// `progress::ProgressMessage<T>`: from u64, seq u64, then the updates as a
/// `vec<pair<pair<location,T>,i64>>` (u64 count, then per entry: node u64, port u64, is_source
/// bool, the time, the diff i64). A null `updates` encodes as no entries; decoding always yields
/// a non-null `updates`.
template <Timestamp T>
requires Encodable<T>
struct Codec<progress::ProgressMessage<T>, void> {
  using M = progress::ProgressMessage<T>;
  using Updates = typename M::Updates;
  static constexpr std::size_t min_size = 8 + 8 + 8;
  static void encode(Encoder& e, const M& m) {
    e.put_size(m.from);
    e.put_size(m.seq);
    if (m.updates)
      e.put(*m.updates);
    else
      e.put_u64(0);
  }
  static M decode(Decoder& d) {
    M m;
    m.from = d.get_size("progress message from");
    m.seq = d.get_size("progress message seq");
    m.updates = std::make_shared<const Updates>(d.get<Updates>());
    return m;
  }
  static std::string name() { return "progress<" + Codec<T>::name() + ">"; }
};

}  // namespace timely::communication

namespace timely::progress {

/// Sends one scope's progress batches to every worker and receives every worker's, over a
/// broadcast channel of its own. A worker's updates reach its own tracker only through this
/// channel, so every worker sees prefixes of the same sequences. A lone worker (one worker in
/// one process) is its only receiver and keeps its batches in a local buffer instead.
///
/// \tparam T the scope's timestamp type.
template <Timestamp T>
class Progcaster {
 public:
  using Updates = typename ProgressMessage<T>::Updates;

  /// Allocates the broadcast channel (the next worker identifier) and registers it to activate
  /// the scope at `address` when a batch arrives. `identifier` is the scope's operator id, which
  /// its "timely/progress/<T>" events carry.
  Progcaster(WorkerState& worker, const scheduling::Path& address, std::size_t identifier)
      : index_(worker.index()),
        peers_(worker.peers()),
        channel_(worker.new_identifier()),
        identifier_(identifier),
        activator_(worker.activations(), address) {
    auto [push, pull] = worker.allocator().template broadcast<ProgressMessage<T>>(channel_);
    push_ = std::move(push);
    pull_ = std::move(pull);
    worker.register_channel(channel_, address);
    auto& registry = worker.log_registry();
    if (auto timely = registry.template get<logging::TimelyEvent>("timely"))
      timely->log(logging::CommChannelsEvent{channel_, logging::CommChannelKind::Progress});
    logger_ = registry.template get<logging::ProgressEvent<T>>("timely/progress/" + type_name<T>());
  }

  /// The broadcast channel's identifier.
  [[nodiscard]] std::size_t channel() const noexcept { return channel_; }

  /// Broadcasts `changes` (compacted) as one batch and leaves `changes` empty.
  void send(ChangeBatch<Pointstamp<T>>& changes) {
    if (peers_ == 1) {
      // This worker is the only receiver, on this thread: the batch waits here for `recv`, in
      // order, without a trip through the channel (the buffer keeps its capacity).
      const auto& updates = changes.view();
      local_.insert(local_.end(), updates.begin(), updates.end());
      if (logger_) log(true, index_, seq_, updates);
      changes.clear();
      ++seq_;
      activator_.activate();  // as the channel's arrival would
      return;
    }
    ProgressMessage<T> message;
    message.from = index_;
    message.seq = seq_++;
    // The compacted batch moves into the message (no copy); receivers share it.
    message.updates = std::make_shared<const Updates>(changes.take());
    if (logger_) log(true, index_, message.seq, *message.updates);
    push_->send(std::move(message));
    push_->done();
  }

  /// Calls `f(pointstamp, diff)` for every update of every batch available, this worker's own
  /// included, batch by batch in arrival order.
  template <class F>
  void recv(F&& f) {
    if (peers_ == 1) {
      // Batches sent since the last call arrive together: logged as one, the last's number.
      if (logger_ && !local_.empty()) log(false, index_, seq_ - 1, local_);
      for (const auto& [key, diff] : local_) f(key, diff);
      local_.clear();
      return;
    }
    while (auto& message = pull_->pull()) {
      if (logger_) log(false, message->from, message->seq, *message->updates);
      for (const auto& [key, diff] : *message->updates) f(key, diff);
    }
  }

 private:
  template <class Range>
  void log(bool is_send, std::size_t source, std::size_t seq, const Range& updates) {
    auto event = logger_->recycled();
    event.messages.clear();
    event.internal.clear();
    event.is_send = is_send;
    event.source = source;
    event.channel = channel_;
    event.seq_no = seq;
    event.identifier = identifier_;
    for (const auto& [key, diff] : updates) {
      const auto& [loc, time] = key;
      (loc.is_source ? event.internal : event.messages).emplace_back(loc.node, loc.port, time, diff);
    }
    logger_->log(std::move(event));
  }

  std::size_t index_;
  std::size_t peers_;
  std::size_t channel_;
  std::size_t identifier_;
  std::optional<logging::Logger<logging::ProgressEvent<T>>> logger_;
  std::unique_ptr<communication::Push<ProgressMessage<T>>> push_;
  std::unique_ptr<communication::Pull<ProgressMessage<T>>> pull_;
  std::size_t seq_ = 0;
  scheduling::Activator activator_;  // the scope's, for the lone worker's own batches
  // Single worker only: the batches sent and not yet received, concatenated.
  Updates local_;
};

}  // namespace timely::progress
