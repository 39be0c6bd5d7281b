/// \file
/// `Message<T, D>` (a timestamped batch of records as it travels on a channel) and `Tee<T, D>`
/// (the fan-out of one operator output to every consumer).
///
/// Source: the reference's `dataflow::channels::Message` and `pushers::Tee` (SEMANTICS.md §5.5).
/// Thread-safety: messages move between threads; a tee belongs to its worker thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>

namespace timely::dataflow {

/// A batch of records of type `D` at time `time`, sent by worker `from` as its `seq`-th message
/// on the channel (`from` and `seq` serve diagnostics only).
template <class T, class D>
struct Message {
  T time{};
  std::vector<D> data;
  std::size_t from = 0;
  std::size_t seq = 0;
};

/// Delivers each message to every consumer of an output: copies for all but the last, which
/// receives the original. A flush is forwarded to every consumer.
template <class T, class D>
class Tee {
 public:
  using Pusher = communication::Push<Message<T, D>>;

  /// Adds a consumer.
  void add(std::unique_ptr<Pusher> pusher) { pushers_.push_back(std::move(pusher)); }
  [[nodiscard]] std::size_t consumers() const noexcept { return pushers_.size(); }

  /// Sends `message` to every consumer.
  void push(Message<T, D>&& message) {
    if (pushers_.empty()) return;
    for (std::size_t i = 0; i + 1 < pushers_.size(); ++i) pushers_[i]->send(message);
    std::optional<Message<T, D>> slot(std::move(message));
    pushers_.back()->push(slot);
  }
  /// Flushes every consumer.
  void done() {
    for (auto& p : pushers_) p->done();
  }

 private:
  std::vector<std::unique_ptr<Pusher>> pushers_;
};

}  // namespace timely::dataflow

// ---------------------------------------------------------------------------------------------
// Codec of Message, for allocators that serialize (timely/communication/codec.hpp).

#include <timely/progress/codecs.hpp>

namespace timely::communication {

/// `dataflow::Message<T, D>`: from u64, seq u64 (the reference's order: fixed offsets 0 and 8),
/// then the time as a `T`, then the records as a `vec<D>` (u64 count, then the records).
template <Encodable T, Encodable D>
struct Codec<dataflow::Message<T, D>, void> {
  using M = dataflow::Message<T, D>;
  static constexpr std::size_t min_size = 8 + 8 + codec_min_size<T>() + 8;
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
    m.data = d.get<std::vector<D>>();
    return m;
  }
  static std::string name() { return "message<" + Codec<T>::name() + "," + Codec<D>::name() + ">"; }
};

}  // namespace timely::communication
