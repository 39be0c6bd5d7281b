/// \file
/// `Message<T, C>` (a timestamped container of records as it travels on a channel) and
/// `Tee<T, C>` (the fan-out of one operator output to every consumer).
///
/// Source: the reference's `dataflow::channels::Message` and `pushers::Tee` (SEMANTICS.md §5.5).
/// Thread-safety: messages move between threads; a tee belongs to its worker thread.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>
#include <timely/container/container.hpp>
#include <timely/progress/error.hpp>

namespace timely::dataflow {

/// A container `C` of records (for vector streams, `std::vector<D>`) at time `time`, sent by
/// worker `from` as its `seq`-th message on the channel (`from` and `seq` serve diagnostics only).
template <class T, class C>
struct Message {
  T time{};
  C data;
  std::size_t from = 0;
  std::size_t seq = 0;
  /// Empties the container, keeping its storage, and says whether that storage is worth
  /// passing back for the producer to fill again (`communication::Recyclable`): a vector with a
  /// capacity of one to four default batches. Smaller ones (a copy for one of several
  /// consumers, a short `give_vec`) would make a builder grow them again, and larger ones would
  /// make recycling hold much memory; columnar batches take their storage from their own block
  /// cache and are not passed back.
  bool recycle() noexcept(noexcept(data.clear())) {
    data.clear();
    if constexpr (container::Vector<C>) {
      const std::size_t capacity = data.capacity();
      const std::size_t batch = container::default_capacity<typename C::value_type>();
      return capacity >= batch && capacity <= 4 * batch;
    } else {
      return false;
    }
  }
};

/// Delivers each message to every consumer of an output: copies for all but the last, which
/// receives the original (so a container is copied only when a stream has several consumers).
/// A flush is forwarded to every consumer. What the last consumer leaves behind (a drained
/// message whose container kept its storage) is returned, for the producer to fill again.
template <class T, class C>
class Tee {
 public:
  using Pusher = communication::Push<Message<T, C>>;

  /// Adds a consumer.
  void add(std::unique_ptr<Pusher> pusher) { pushers_.push_back(std::move(pusher)); }
  [[nodiscard]] std::size_t consumers() const noexcept { return pushers_.size(); }

  /// Sends `message` to every consumer; returns what the last one left behind, if anything.
  std::optional<Message<T, C>> push(Message<T, C>&& message) {
    if (pushers_.empty()) {  // nobody reads this output: the storage goes straight back
      if (message.recycle()) return std::optional<Message<T, C>>(std::move(message));
      return std::nullopt;
    }
    if constexpr (std::copy_constructible<C>) {
      for (std::size_t i = 0; i + 1 < pushers_.size(); ++i) pushers_[i]->send(message);
    } else if (pushers_.size() > 1) {
      throw_not_copyable();
    }
    std::optional<Message<T, C>> slot(std::move(message));
    pushers_.back()->push(slot);
    return slot;
  }
  /// Flushes every consumer.
  void done() {
    for (auto& p : pushers_) p->done();
  }

 private:
  [[noreturn]] void throw_not_copyable() const {
    throw BuildError("timely: a stream of a container type that cannot be copied has " +
                     std::to_string(pushers_.size()) + " consumers; it can have only one");
  }
  std::vector<std::unique_ptr<Pusher>> pushers_;
};

}  // namespace timely::dataflow

// ---------------------------------------------------------------------------------------------
// Codec of Message, for allocators that serialize (timely/communication/codec.hpp).

#include <timely/progress/codecs.hpp>

namespace timely::communication {

/// `dataflow::Message<T, C>`: from u64, seq u64 (the reference's order: fixed offsets 0 and 8),
/// then the time as a `T`, then the container with its own codec (for `std::vector<D>` a u64
/// count, then the records; a columnar batch pads to 8 bytes and writes its columns).
template <Encodable T, Encodable C>
struct Codec<dataflow::Message<T, C>, void> {
  using M = dataflow::Message<T, C>;
  static constexpr std::size_t min_size = 8 + 8 + codec_min_size<T>() + codec_min_size<C>();
  static void encode(Encoder& e, const M& m) {
    e.put_size(m.from);
    e.put_size(m.seq);
    e.put(m.time);
    e.put(m.data);
  }
  static M decode(Decoder& d) {
    M m;
    m.from = d.get_size("message from");
    m.seq = d.get_size("message seq");
    m.time = d.get<T>();
    m.data = d.get<C>();
    return m;
  }
  static std::string name() { return "message<" + Codec<T>::name() + "," + Codec<C>::name() + ">"; }
};

}  // namespace timely::communication
