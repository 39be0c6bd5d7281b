/// \file
/// Parallelization contracts (pacts): how records on an edge are distributed among workers.
/// Pacts are generic over the container `C` a stream carries (`connect<T, C>`).
/// `Pipeline` keeps every record on the worker that produced it; `Exchange` routes each record
/// to worker `hash(record) % peers` (a mask when `peers` is a power of two); `Distribute` hands
/// each batch to a user's distributor, which places its records in per-worker buffers.
///
/// The pact contract: every record given to a pact's pusher is delivered, once, at its time, by
/// one of the channel's pullers. Progress counts records where they are produced (at the
/// operator output, before the pact) and where they are consumed (at the input, after it), and
/// the two counts must cancel; a pact that drops, duplicates or consolidates records would make
/// frontiers stall or pass times that still have records in flight. So a pact must preserve
/// counts, and a consolidation of records (cancelling updates) belongs in an operator.
/// `Distribute` checks the contract and throws `PactError` when a distributor breaks it; a pact
/// type of one's own (a `connect<T, C>(WorkerState&, channel)` returning a pusher and a puller)
/// is trusted to keep it.
///
/// Source: the reference's `dataflow::channels::pact` (its pushers count what they are given),
/// `pushers::exchange` and its distributors (SEMANTICS.md §5.6). Thread-safety: pushers and
/// pullers belong to their worker thread.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/communication/push_pull.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/channel_logging.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/progress/describe.hpp>
#include <timely/worker_state.hpp>

namespace timely::dataflow {

template <class T, class C>
using MessagePush = communication::Push<Message<T, C>>;
template <class T, class C>
using MessagePull = communication::Pull<Message<T, C>>;

/// Keeps records on the worker that produced them; no copying or serialization. Works for any
/// container.
struct Pipeline {
  template <class T, class C>
  std::pair<std::unique_ptr<MessagePush<T, C>>, std::unique_ptr<MessagePull<T, C>>> connect(
      WorkerState& worker, std::size_t channel) const {
    auto ends = worker.allocator().template pipeline<Message<T, C>>(channel);
    logged_channel<T, C>(worker, channel, ends.first, ends.second);
    return ends;
  }
};

namespace detail {

/// Splits each message's records among the workers by `route(item)`, through one container
/// builder per worker, and sends each container as the builder completes it, when the time
/// changes, and on flush. Vector records are moved; a container that `Gathers` (columnar
/// batches) is partitioned by index and copied into the targets' batches column by column.
/// The drained message is left behind, emptied, for its producer to fill again; what a target
/// leaves behind goes back to that target's builder.
template <class T, class C, class Route>
class ExchangePusher final : public MessagePush<T, C> {
 public:
  using Builder = container::CapacityContainerBuilder<C>;
  static_assert(container::length_preserving<Builder>);

  ExchangePusher(std::vector<std::unique_ptr<MessagePush<T, C>>> pushers, Route route)
      : pushers_(std::move(pushers)),
        route_(std::move(route)),
        builders_(pushers_.size()),
        mask_(((pushers_.size() & (pushers_.size() - 1)) == 0) ? pushers_.size() - 1 : 0) {}

  void push(std::optional<Message<T, C>>& element) override {
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
    if constexpr (container::Gathers<C>) {
      if (message.data.size() <= UINT32_MAX) {
        partition(message.data);
        if (!message.recycle()) element.reset();
        return;
      }
    }
    container::drain(message.data, [&](auto&& item) {
      const std::size_t target = target_of(item);
      auto& builder = builders_[target];
      // Asking extract() only when the push filled a container: no load of the builder's
      // queue per record (a record's store could alias it, so it would be reloaded each time).
      if (builder.push_into(std::forward<decltype(item)>(item))) [[unlikely]]
        while (C* full = builder.extract()) send(target, *full);
    });
    if (!message.recycle()) element.reset();
  }

 private:
  // The worker a record goes to: route(record) masked when the peers are a power of two.
  template <class Item>
  std::size_t target_of(const Item& item) const {
    const auto hash = static_cast<std::uint64_t>(route_(item));
    return mask_ != 0 ? static_cast<std::size_t>(hash & mask_)
                      : static_cast<std::size_t>(hash % pushers_.size());
  }
  // Routes a batch by index: each record's target, a stable counting sort of the indices by
  // target, then one column-wise gather per target (see `container::Gathers`). The counting and
  // the placing walk the two halves of the batch side by side, each with its own counters:
  // consecutive records mostly share a target, and each increment of one counter waits for the
  // one before it, so two independent chains run about twice as fast as one.
  void partition(const C& data) {
    const std::size_t peers = pushers_.size();
    const std::size_t n = data.size();
    const std::size_t half = n / 2;
    targets_.resize(n);
    std::uint32_t* targets = targets_.data();
    // Records are read through an iterator: a local copy of the batch's column pointers, which
    // the counters' stores cannot alias (the batch's own members they could).
    const auto items = data.begin();
    if (peers == 2) {
      partition_in_two(data, items, n);
      return;
    }
    counts_.assign(2 * peers, 0);
    std::size_t* first = counts_.data();
    std::size_t* second = first + peers;
    for (std::size_t j = 0; j < half; ++j) {
      const auto a = static_cast<std::uint32_t>(target_of(items[j]));
      const auto b = static_cast<std::uint32_t>(target_of(items[half + j]));
      targets[j] = a;
      targets[half + j] = b;
      ++first[a];
      ++second[b];
    }
    if (n % 2 != 0) {
      const auto b = static_cast<std::uint32_t>(target_of(items[n - 1]));
      targets[n - 1] = b;
      ++second[b];
    }
    starts_.assign(peers + 1, 0);
    for (std::size_t t = 0; t < peers; ++t) {
      starts_[t + 1] = starts_[t] + first[t] + second[t];
      second[t] = starts_[t] + first[t];  // where the second half's records of t go
      first[t] = starts_[t];              // where the first half's records of t go
    }
    order_.resize(n);
    std::uint32_t* order = order_.data();
    for (std::size_t j = 0; j < half; ++j) {
      order[first[targets[j]]++] = static_cast<std::uint32_t>(j);
      order[second[targets[half + j]]++] = static_cast<std::uint32_t>(half + j);
    }
    if (n % 2 != 0) order[second[targets[n - 1]]++] = static_cast<std::uint32_t>(n - 1);
    for (std::size_t t = 0; t < peers; ++t)
      gather_into(t, data, order + starts_[t], starts_[t + 1] - starts_[t]);
  }
  // Two targets (two workers, the common case; a target is then 0 or 1): one pass writes each
  // index to both lists and advances only its target's cursor, both cursors held in registers.
  // Two stores and two adds per record, with no counting pass and no counter in memory whose
  // every increment waits for the one before it; each list keeps the batch's order.
  template <class Items>
  void partition_in_two(const C& data, const Items& items, std::size_t n) {
    order_.resize(n);
    std::uint32_t* zeros = order_.data();
    std::uint32_t* ones = targets_.data();
    std::size_t z = 0, o = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t t = target_of(items[j]);
      zeros[z] = static_cast<std::uint32_t>(j);
      ones[o] = static_cast<std::uint32_t>(j);
      z += 1 - t;
      o += t;
    }
    gather_into(0, data, zeros, z);
    gather_into(1, data, ones, o);
  }
  // Appends records `data[index[0..n)]` to target `t`'s builder, sending each batch it fills.
  void gather_into(std::size_t t, const C& data, const std::uint32_t* index, std::size_t n) {
    if (n == 0) return;
    builders_[t].push_gathered(data, std::span<const std::uint32_t>(index, n));
    while (C* full = builders_[t].extract()) send(t, *full);
  }

  // Sends `data`, leaving in it what the target gave back (for its builder) or nothing.
  void send(std::size_t target, C& data) {
    std::optional<Message<T, C>> slot(std::in_place);
    slot->time = time_;
    slot->data = std::move(data);
    pushers_[target]->push(slot);
    if (slot)
      data = std::move(slot->data);
    else
      data = C{};
  }
  void flush_all() {
    for (std::size_t i = 0; i < builders_.size(); ++i)
      while (C* rest = builders_[i].finish()) send(i, *rest);
  }

  std::vector<std::unique_ptr<MessagePush<T, C>>> pushers_;
  Route route_;
  std::vector<Builder> builders_;
  std::size_t mask_;
  std::vector<std::uint32_t> targets_, order_;  // partition()'s scratch, kept for reuse
  std::vector<std::size_t> starts_, counts_;
  T time_{};
  bool has_time_ = false;
};

}  // namespace detail

/// Whether `Route` can route items of container `C`: callable as `route(const Item&)`, where
/// `Item` is what iterating a `C` yields (`D` for `std::vector<D>`, the borrowed reference type
/// for a columnar batch), with a result convertible to an unsigned 64-bit integer.
template <class Route, class C>
concept RouteFor = requires(const Route& route, const std::remove_cvref_t<container::ItemRef<C>>& item) {
  static_cast<std::uint64_t>(route(item));
};

/// Routes each record to worker `route(record) % peers`. `Route` is a callable
/// `(const D&) -> integer` (a hash of the record, or of its key; for a columnar stream it is
/// given the borrowed reference). It must be a function of the record alone, so that a record is
/// routed alike wherever it is produced.
template <class Route>
struct Exchange {
  Route route;

  template <class T, class C>
  std::pair<std::unique_ptr<MessagePush<T, C>>, std::unique_ptr<MessagePull<T, C>>> connect(
      WorkerState& worker, std::size_t channel) const {
    using Pair = std::pair<std::unique_ptr<MessagePush<T, C>>, std::unique_ptr<MessagePull<T, C>>>;
    if constexpr (!RouteFor<Route, C>) {
      static_assert(RouteFor<Route, C>,
                    "timely::Exchange: the route must be callable as route(const D&) -> integer, where D is "
                    "the record type (for a columnar stream, the reference type) of the input it is used on");
      return Pair{};
    } else {
      auto [pushers, puller] = worker.allocator().template allocate<Message<T, C>>(channel);
      logged_channel<T, C>(worker, channel, pushers, puller);
      return Pair{std::make_unique<detail::ExchangePusher<T, C, Route>>(std::move(pushers), route),
                  std::move(puller)};
    }
  }
};

template <class Route>
Exchange(Route) -> Exchange<Route>;

namespace detail {

/// Hands each message's records to `distribute(time, records, per_worker)` and sends each
/// worker's buffer on; throws `PactError` unless the buffers hold exactly as many records as
/// the message did.
template <class T, class D, class Distributor>
class DistributePusher final : public MessagePush<T, std::vector<D>> {
 public:
  DistributePusher(std::vector<std::unique_ptr<MessagePush<T, std::vector<D>>>> pushers,
                   Distributor distribute)
      : pushers_(std::move(pushers)), distribute_(std::move(distribute)), buffers_(pushers_.size()) {}

  void push(std::optional<Message<T, std::vector<D>>>& element) override {
    if (!element) {
      for (auto& p : pushers_) p->done();
      return;
    }
    auto& message = *element;
    const std::size_t given = message.data.size();
    for (auto& buffer : buffers_) buffer.clear();
    distribute_(static_cast<const T&>(message.time), message.data, buffers_);
    std::size_t passed = 0;
    for (const auto& buffer : buffers_) passed += buffer.size();
    if (buffers_.size() != pushers_.size() || passed != given)
      throw PactError("timely: the distributor of a Distribute pact was given " + std::to_string(given) +
                      " record(s) at time " + describe(message.time) + " and passed on " +
                      std::to_string(passed) +
                      (buffers_.size() != pushers_.size() ? " in a resized list of worker buffers" : "") +
                      "; a pact must deliver every record it is given exactly once, because progress "
                      "counts records where they are produced and where they are consumed (consolidate "
                      "records in an operator instead)");
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (buffers_[i].empty()) continue;
      Message<T, std::vector<D>> out;
      out.time = message.time;
      out.data = std::move(buffers_[i]);
      buffers_[i] = {};
      pushers_[i]->send(std::move(out));
    }
    element.reset();
  }

 private:
  std::vector<std::unique_ptr<MessagePush<T, std::vector<D>>>> pushers_;
  Distributor distribute_;
  std::vector<std::vector<D>> buffers_;
};

}  // namespace detail

/// Distributes records with a user's distributor: `distribute(const T& time, std::vector<D>&
/// records, std::vector<std::vector<D>>& per_worker)` is called once per batch and must move
/// every record of `records` into `per_worker[w]` for the worker `w` that should receive it
/// (`per_worker.size()` is the number of workers; the buffers start empty). It may reorder
/// records and route them by any rule, but must neither drop, duplicate nor merge them: see the
/// pact contract above. `distribute` is copied once per worker and input.
/// Works on vector streams only (a distributor of other containers would need a builder per
/// worker; exchange has one).
/// \throws PactError (from the worker's `step()`) when a batch's buffers do not hold exactly the
/// records it was given.
template <class Distributor>
struct Distribute {
  Distributor distribute;

  template <class T, class C>
  std::pair<std::unique_ptr<MessagePush<T, C>>, std::unique_ptr<MessagePull<T, C>>> connect(
      WorkerState& worker, std::size_t channel) const {
    using Pair = std::pair<std::unique_ptr<MessagePush<T, C>>, std::unique_ptr<MessagePull<T, C>>>;
    static_assert(container::Vector<C>, "timely::Distribute: works on streams of std::vector batches only");
    using D = typename C::value_type;
    constexpr bool callable =
        std::is_invocable_v<const Distributor&, const T&, std::vector<D>&, std::vector<std::vector<D>>&>;
    if constexpr (!callable) {
      static_assert(callable,
                    "timely::Distribute: the distributor must be callable as distribute(const T& time, "
                    "std::vector<D>& records, std::vector<std::vector<D>>& per_worker)");
      return Pair{};
    } else {
      auto [pushers, puller] = worker.allocator().template allocate<Message<T, C>>(channel);
      logged_channel<T, C>(worker, channel, pushers, puller);
      return Pair{
          std::make_unique<detail::DistributePusher<T, D, Distributor>>(std::move(pushers), distribute),
          std::move(puller)};
    }
  }
};

template <class Distributor>
Distribute(Distributor) -> Distribute<Distributor>;

}  // namespace timely::dataflow
