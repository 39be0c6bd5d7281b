/// \file
/// Parallelization contracts (pacts): how records on an edge are distributed among workers.
/// `Pipeline` keeps every record on the worker that produced it; `Exchange` routes each record
/// to worker `hash(record) % peers` (a mask when `peers` is a power of two).
///
/// A pact never changes the number of records per time: progress counts records at both ends.
/// Source: the reference's `dataflow::channels::pact` and `pushers::exchange`
/// (SEMANTICS.md §5.6). Thread-safety: pushers and pullers belong to their worker thread.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/worker_state.hpp>

namespace timely::dataflow {

template <class T, class D>
using MessagePush = communication::Push<Message<T, D>>;
template <class T, class D>
using MessagePull = communication::Pull<Message<T, D>>;

/// Keeps records on the worker that produced them; no copying or serialization.
struct Pipeline {
  template <class T, class D>
  std::pair<std::unique_ptr<MessagePush<T, D>>, std::unique_ptr<MessagePull<T, D>>> connect(
      WorkerState& worker, std::size_t channel) const {
    return worker.allocator().template pipeline<Message<T, D>>(channel);
  }
};

namespace detail {

/// Splits each message's records into one buffer per worker by `route(record)` and sends a
/// buffer when it is full, when the time changes, and on flush.
template <class T, class D, class Route>
class ExchangePusher final : public MessagePush<T, D> {
 public:
  ExchangePusher(std::vector<std::unique_ptr<MessagePush<T, D>>> pushers, Route route)
      : pushers_(std::move(pushers)),
        route_(std::move(route)),
        buffers_(pushers_.size()),
        mask_(((pushers_.size() & (pushers_.size() - 1)) == 0) ? pushers_.size() - 1 : 0) {}

  void push(std::optional<Message<T, D>>& element) override {
    if (!element) {
      flush_all();
      for (auto& p : pushers_) p->done();
      return;
    }
    auto& message = *element;
    if (pushers_.size() == 1) {
      pushers_[0]->push(element);
      return;
    }
    if (has_time_ && !(time_ == message.time)) flush_all();
    time_ = message.time;
    has_time_ = true;
    const std::size_t peers = pushers_.size();
    for (auto& record : message.data) {
      const auto hash = static_cast<std::uint64_t>(route_(static_cast<const D&>(record)));
      const std::size_t target = mask_ != 0 ? (hash & mask_) : (hash % peers);
      auto& buffer = buffers_[target];
      if (buffer.capacity() == 0) buffer.reserve(capacity_);
      buffer.push_back(std::move(record));
      if (buffer.size() >= capacity_) send(target);
    }
    element.reset();
  }

 private:
  void send(std::size_t target) {
    Message<T, D> out;
    out.time = time_;
    out.data = std::move(buffers_[target]);
    buffers_[target] = {};
    pushers_[target]->send(std::move(out));
  }
  void flush_all() {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (!buffers_[i].empty()) send(i);
  }

  std::vector<std::unique_ptr<MessagePush<T, D>>> pushers_;
  Route route_;
  std::vector<std::vector<D>> buffers_;
  std::size_t mask_;
  std::size_t capacity_ = container::default_capacity<D>();
  T time_{};
  bool has_time_ = false;
};

}  // namespace detail

/// Routes each record to worker `route(record) % peers`. `Route` is a callable
/// `(const D&) -> integer` (a hash of the record, or of its key). It must be a function of the
/// record alone, so that a record is routed alike wherever it is produced.
template <class Route>
struct Exchange {
  Route route;

  template <class T, class D>
  std::pair<std::unique_ptr<MessagePush<T, D>>, std::unique_ptr<MessagePull<T, D>>> connect(
      WorkerState& worker, std::size_t channel) const {
    static_assert(std::is_invocable_v<const Route&, const D&>,
                  "timely::Exchange: the route must be callable as route(const D&) -> integer");
    auto [pushers, puller] = worker.allocator().template allocate<Message<T, D>>(channel);
    return {std::make_unique<detail::ExchangePusher<T, D, Route>>(std::move(pushers), route),
            std::move(puller)};
  }
};

template <class Route>
Exchange(Route) -> Exchange<Route>;

}  // namespace timely::dataflow
