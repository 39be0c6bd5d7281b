/// \file
/// `state_machine(fold, hash)`: per-key state that lives across times, over a stream of
/// `(K, V)` pairs. Records are exchanged so that each key lives on worker `hash(key) % peers`.
/// There every key has one `State` (value-initialized when the key is first seen), and each
/// record is applied as `fold(const K& key, V val, State& state) -> std::pair<bool, Outputs>`:
/// `Outputs` is any range of output records, sent at the record's time; when the `bool` is
/// true the key's state is deleted (the next record for it starts afresh). Applied to a
/// `Stream<T, std::pair<K, V>>`, returns a `Stream<T, Out>` with `Out` the element type of
/// `Outputs`.
///
/// When records are applied: a record at time `t` is applied as soon as it arrives if no
/// element of the input frontier is strictly less than `t` (every earlier time is complete);
/// otherwise it is held until `t` is complete and applied then, after which, in the same
/// scheduling, newly arrived records are considered. With totally ordered times each key
/// therefore sees its records in time order; within one time the order is unspecified.
///
/// `State` is inferred from `fold`'s third parameter when `fold` is not generic; otherwise name
/// it: `state_machine<State>(fold, hash)`. `hash(const K&)` returns an integer and must agree on
/// every worker; the overload without `hash` uses `boost::hash<K>`. States are kept in a
/// `boost::unordered_flat_map<K, State, boost::hash<K>>`, so `K` must be hashable by
/// `boost::hash` and comparable with `==`.
///
/// Errors: none of its own; whatever `fold` or `hash` throw propagates.
///
/// Frontier behaviour: frontier-aware; it holds a capability only for times with held records,
/// so the output frontier follows the exchanged input frontier otherwise.
///
/// Source of the idea: the reference's `StateMachine` operator (SEMANTICS.md §6 "Time
/// manipulation and aggregation"). Thread-safety: none.
#pragma once

#include <cstdint>
#include <map>
#include <ranges>
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

template <class State, class Fold, class Hash>
struct StateMachineOp {
  Fold fold;
  Hash hash;

  template <Timestamp T, class K, class V>
  auto operator()(const Stream<T, std::pair<K, V>>& stream) const {
    using S = typename ResolveState<State, Fold, 2>::type;
    static_assert(std::is_default_constructible_v<S>,
                  "state_machine: the state type must be default-constructible");
    static_assert(std::is_invocable_v<Fold&, const K&, V&&, S&>,
                  "state_machine: fold must be callable as fold(const K& key, V val, State& state) -> "
                  "std::pair<bool, range of Out>");
    static_assert(std::is_invocable_v<const Hash&, const K&>,
                  "state_machine: hash must be callable as hash(const K& key) -> integer");
    using Result = std::decay_t<std::invoke_result_t<Fold&, const K&, V&&, S&>>;
    using Outputs = std::decay_t<decltype(std::declval<Result&>().second)>;
    static_assert(std::ranges::input_range<Outputs>,
                  "state_machine: fold must return std::pair<bool remove, range of Out>");
    using Out = std::ranges::range_value_t<Outputs>;
    using Record = std::pair<K, V>;
    using States = boost::unordered_flat_map<K, S, boost::hash<K>>;

    return stream |
           unary_frontier<Out>(exchange_by_key<K, V>(hash), "StateMachine", [fold = fold](auto, const auto&) {
             return [fold, states = States{}, held = std::map<T, std::vector<Record>>{},
                     notificator = FrontierNotificator<T>{}](OperatorInput<T, Record>& input,
                                                             OperatorOutput<T, Out>& output) mutable {
               auto apply = [&](Session<T, Out>& session, Record& record) {
                 auto state = states.try_emplace(std::move(record.first)).first;
                 auto result = fold(state->first, std::move(record.second), state->second);
                 for (auto&& out : result.second) session.give(Out(std::forward<decltype(out)>(out)));
                 if (result.first) states.erase(state);
               };
               // Times that completed since the last scheduling go first: their
               // records precede any later record that may be applied at once below.
               const progress::MutableAntichain<T>* frontiers[] = {&input.frontier()};
               notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                 auto node = held.extract(cap.time());
                 if (node.empty()) return;
                 auto session = output.session(cap);
                 for (auto& record : node.mapped()) apply(session, record);
               });
               input.for_each_time(
                   [&](const InputCapability<T>& cap, std::vector<std::vector<Record>>& batches) {
                     if (input.frontier().less_than(cap.time())) {
                       auto [entry, fresh] = held.try_emplace(cap.time());
                       if (fresh) notificator.notify_at(cap.retain());
                       for (auto& batch : batches)
                         for (auto& record : batch) entry->second.push_back(std::move(record));
                     } else {
                       auto session = output.session(cap);
                       for (auto& batch : batches)
                         for (auto& record : batch) apply(session, record);
                     }
                   });
             };
           });
  }
};

}  // namespace detail

/// `stream | state_machine(fold, hash)` on `(K, V)` records: per-key state across times;
/// `fold(key, val, state)` returns `(remove the state?, records to send)`.
template <class State = detail::DeduceState, class Fold, class Hash>
auto state_machine(Fold fold, Hash hash) {
  return detail::StateMachineOp<State, Fold, Hash>{std::move(fold), std::move(hash)};
}

/// `state_machine` routing keys by `boost::hash<K>`.
template <class State = detail::DeduceState, class Fold>
auto state_machine(Fold fold) {
  return state_machine<State>(std::move(fold), detail::BoostKeyHash{});
}

}  // namespace timely::dataflow::operators
