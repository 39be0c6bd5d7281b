/// \file
/// `aggregate(fold, emit, hash)`: per-time, per-key aggregation of a stream of `(K, V)` pairs.
/// Records are exchanged so that each key lives on worker `hash(key) % peers`. There, for every
/// time, each key gets a value-initialized `State`, and `fold(const K& key, V val, State& state)`
/// folds each of the key's records at that time into it. Once the time is complete at the
/// operator's input, `emit(K key, State state) -> R` is called once per key seen at that time
/// and its results are sent at that time. Applied to a `Stream<T, std::pair<K, V>>`, returns a
/// `Stream<T, R>`. State does not carry over between times (see `state_machine` for that).
///
/// `State` is inferred from `fold`'s third parameter when `fold` is not generic; otherwise name
/// it: `aggregate<State>(fold, emit, hash)`. `hash(const K&)` returns an integer and must agree
/// on every worker; the overload without `hash` uses `boost::hash<K>`. Keys are kept in a
/// `boost::unordered_flat_map<K, State, boost::hash<K>>`, so `K` must be hashable by
/// `boost::hash` and comparable with `==`; the order in which a time's keys are emitted is
/// unspecified.
///
/// Errors: none of its own; whatever `fold`, `emit` or `hash` throw propagates.
///
/// Frontier behaviour: frontier-aware; holds one capability per time with unsent aggregates and
/// emits a time's results in the first scheduling after the (exchanged) input frontier has
/// passed it.
///
/// Source of the idea: the reference's `Aggregate` operator (SEMANTICS.md §6 "Time manipulation
/// and aggregation"). Thread-safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/detail/callable.hpp>
#include <timely/dataflow/operators/detail/keyed.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class State, class Fold, class Emit, class Hash>
struct AggregateOp {
  Fold fold;
  Emit emit;
  Hash hash;

  template <Timestamp T, class K, class V>
  auto operator()(const Stream<T, std::pair<K, V>>& stream) const {
    using S = typename ResolveState<State, Fold, 2>::type;
    static_assert(std::is_default_constructible_v<S>,
                  "aggregate: the state type must be default-constructible");
    static_assert(std::is_invocable_v<Fold&, const K&, V&&, S&>,
                  "aggregate: fold must be callable as fold(const K& key, V val, State& state)");
    static_assert(std::is_invocable_v<const Hash&, const K&>,
                  "aggregate: hash must be callable as hash(const K& key) -> integer");
    static_assert(std::is_invocable_v<Emit&, K&&, S&&>,
                  "aggregate: emit must be callable as emit(K key, State state) -> R");
    using R = std::decay_t<std::invoke_result_t<Emit&, K&&, S&&>>;
    using Keys = boost::unordered_flat_map<K, S, boost::hash<K>>;

    return stream |
           unary_frontier<R>(
               exchange_by_key<K, V>(hash), "Aggregate", [fold = fold, emit = emit](auto, const auto&) {
                 return
                     [fold, emit, aggregates = std::map<T, Keys>{}, notificator = FrontierNotificator<T>{}](
                         OperatorInput<T, std::pair<K, V>>& input, OperatorOutput<T, R>& output) mutable {
                       input.for_each_time([&](const InputCapability<T>& cap,
                                               std::vector<std::vector<std::pair<K, V>>>& batches) {
                         auto [entry, fresh] = aggregates.try_emplace(cap.time());
                         if (fresh) notificator.notify_at(cap.retain());
                         auto& keys = entry->second;
                         for (auto& batch : batches)
                           for (auto& [key, val] : batch) {
                             auto state = keys.try_emplace(std::move(key)).first;
                             fold(state->first, std::move(val), state->second);
                           }
                       });
                       const progress::MutableAntichain<T>* frontiers[] = {&input.frontier()};
                       notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                         auto node = aggregates.extract(cap.time());
                         if (node.empty()) return;
                         auto session = output.session(cap);
                         for (auto& [key, state] : node.mapped())
                           session.give(emit(K(key), std::move(state)));
                       });
                     };
               });
  }
};

}  // namespace detail

/// `stream | aggregate(fold, emit, hash)` on `(K, V)` records: per time and key, folds the
/// values into a `State` and, once the time is complete, sends `emit(key, state)`.
template <class State = detail::DeduceState, class Fold, class Emit, class Hash>
auto aggregate(Fold fold, Emit emit, Hash hash) {
  return detail::AggregateOp<State, Fold, Emit, Hash>{std::move(fold), std::move(emit), std::move(hash)};
}

/// `aggregate` routing keys by `boost::hash<K>`.
template <class State = detail::DeduceState, class Fold, class Emit>
auto aggregate(Fold fold, Emit emit) {
  return aggregate<State>(std::move(fold), std::move(emit), detail::BoostKeyHash{});
}

}  // namespace timely::dataflow::operators
