/// \file
/// Moving records to later times:
///
/// - `delay(f)`: `f(const D& record, const T& time) -> T` gives each record a new time, which
///   must be greater than or equal to its own (in `T`'s partial order). The record is held
///   until the new time is complete at the operator's input and then sent at the new time.
/// - `delay_total(f)`: the same for totally ordered `T` (integers, ...). It keeps its stash in
///   time order and releases a prefix of it whenever the frontier moves, with no notificator.
/// - `delay_batch(f)`: `f(const T& time) -> T` moves whole batches; each batch is sent as it
///   was received, at the new time, once that time is complete.
///
/// All map `Stream<T, D>` to `Stream<T, D>` and keep records on their worker (Pipeline).
///
/// Errors: \throws CapabilityError (from the worker, rethrown by `execute`) when `f` returns
/// a time that is not greater than or equal to the record's time; the message names both.
///
/// Frontier behaviour: frontier-aware (scheduled on every frontier change). The operator holds
/// one capability per distinct new time it has records for, so downstream frontiers do not
/// pass a new time before its records are sent. Records at a new time `t` are emitted in the
/// first scheduling after the input frontier has moved past `t` (no input frontier element is
/// `<= t`); the whole stash at `t` goes out together.
///
/// Source of the idea: the reference's `Delay` trait (`delay`, `delay_total`, `delay_batch`,
/// SEMANTICS.md §6 "Time manipulation"). Thread-safety: none.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <Timestamp T>
void check_delay(const char* op, const T& from, const T& to) {
  if (!timely::less_equal(from, to))
    throw CapabilityError(std::string("timely: ") + op + ": cannot move records at time " + describe(from) +
                          " to time " + describe(to) + ", which is not greater or equal");
}

template <class F>
struct DelayOp {
  F f;

  template <Timestamp T, class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_r_v<T, const F&, const D&, const T&>,
                  "delay: f must be callable as f(const D& record, const T& time) -> T");
    return stream | unary_frontier<D>(Pipeline{}, "Delay", [f = f](auto, const auto&) {
             return [f, stash = std::map<T, std::vector<D>>{}, notificator = FrontierNotificator<T>{}](
                        OperatorInput<T, D>& input, OperatorOutput<T, D>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 for (auto& record : data) {
                   T when = f(static_cast<const D&>(record), cap.time());
                   check_delay("delay", cap.time(), when);
                   auto [entry, fresh] = stash.try_emplace(when);
                   if (fresh) notificator.notify_at(cap.delayed(when));
                   entry->second.push_back(std::move(record));
                 }
               });
               const progress::MutableAntichain<T>* frontiers[] = {&input.frontier()};
               notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                 auto node = stash.extract(cap.time());
                 if (node.empty()) return;
                 auto session = output.session(cap);
                 for (auto& record : node.mapped()) session.give(std::move(record));
               });
             };
           });
  }
};

template <class F>
struct DelayTotalOp {
  F f;

  template <Timestamp T, class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    static_assert(TotalOrder<T>, "delay_total: the timestamp must be totally ordered; use delay");
    static_assert(std::is_invocable_r_v<T, const F&, const D&, const T&>,
                  "delay_total: f must be callable as f(const D& record, const T& time) -> T");
    // Per new time: the capability to send there and the records waiting for it. With a total
    // order, the times that are complete form a prefix of the map.
    using Stash = std::map<T, std::pair<Capability<T>, std::vector<D>>>;
    return stream | unary_frontier<D>(Pipeline{}, "DelayTotal", [f = f](auto, const auto&) {
             return [f, stash = Stash{}](OperatorInput<T, D>& input, OperatorOutput<T, D>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 for (auto& record : data) {
                   T when = f(static_cast<const D&>(record), cap.time());
                   check_delay("delay_total", cap.time(), when);
                   auto entry = stash.find(when);
                   if (entry == stash.end())
                     entry = stash.emplace(when, std::pair(cap.delayed(when), std::vector<D>{})).first;
                   entry->second.second.push_back(std::move(record));
                 }
               });
               while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
                 auto node = stash.extract(stash.begin());
                 auto& [cap, records] = node.mapped();
                 auto session = output.session(cap);
                 for (auto& record : records) session.give(std::move(record));
               }
             };
           });
  }
};

template <class F>
struct DelayBatchOp {
  F f;

  template <Timestamp T, class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_r_v<T, const F&, const T&>,
                  "delay_batch: f must be callable as f(const T& time) -> T");
    return stream | unary_frontier<D>(Pipeline{}, "DelayBatch", [f = f](auto, const auto&) {
             return [f, stash = std::map<T, std::vector<std::vector<D>>>{},
                     notificator = FrontierNotificator<T>{}](OperatorInput<T, D>& input,
                                                             OperatorOutput<T, D>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 T when = f(cap.time());
                 check_delay("delay_batch", cap.time(), when);
                 auto [entry, fresh] = stash.try_emplace(when);
                 if (fresh) notificator.notify_at(cap.delayed(when));
                 entry->second.push_back(std::move(data));
               });
               const progress::MutableAntichain<T>* frontiers[] = {&input.frontier()};
               notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                 auto node = stash.extract(cap.time());
                 if (node.empty()) return;
                 auto session = output.session(cap);
                 for (auto& batch : node.mapped()) session.give_vec(batch);
               });
             };
           });
  }
};

}  // namespace detail

/// `stream | delay(f)`: each record moves to time `f(record, time)` (`>= time`).
template <class F>
auto delay(F f) {
  return detail::DelayOp<F>{std::move(f)};
}

/// `stream | delay_total(f)`: `delay` for totally ordered timestamps.
template <class F>
auto delay_total(F f) {
  return detail::DelayTotalOp<F>{std::move(f)};
}

/// `stream | delay_batch(f)`: each batch moves to time `f(time)` (`>= time`).
template <class F>
auto delay_batch(F f) {
  return detail::DelayBatchOp<F>{std::move(f)};
}

}  // namespace timely::dataflow::operators
