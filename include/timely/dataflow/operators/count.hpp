/// \file
/// Per-time aggregation of a whole stream on each worker:
///
/// - `accumulate(init, fold)`: for every time at which a worker receives records, starts from
///   a copy of `init` (type `A`) and calls `fold(A& acc, std::vector<D>& batch)` for each batch
///   at that time (the batch may be modified or moved from). Once the time is complete at the
///   operator's input, sends the one value `acc` at that time. Applied to a `Stream<T, D>`,
///   returns a `Stream<T, A>`.
/// - `count()`: `accumulate` of the number of records, a `Stream<T, std::size_t>`.
///
/// Both are per worker (Pipeline): a worker that received records at time `t` sends its own
/// count for `t`; exchange first to get one total. Times without records on a worker produce
/// nothing there. Errors: none of their own; whatever `fold` throws propagates.
///
/// Frontier behaviour: frontier-aware (scheduled on every frontier change); the operator holds a
/// capability for each time it has accumulated but not yet sent, and sends a time's value in
/// the first scheduling after the input frontier has passed that time.
///
/// Source of the idea: the reference's `Accumulate` trait (`accumulate`, `count`; SEMANTICS.md
/// §6 "Time manipulation and aggregation"). Thread-safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/generic.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class A, class Fold>
struct AccumulateOp {
  A init;
  Fold fold;

  template <Timestamp T, class D>
  Stream<T, A> operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_v<Fold&, A&, std::vector<D>&>,
                  "accumulate: fold must be callable as fold(A& acc, std::vector<D>& batch)");
    return stream |
           unary_frontier<A>(Pipeline{}, "Accumulate", [init = init, fold = fold](auto, const auto&) {
             return [init, fold, accums = std::map<T, A>{}, notificator = FrontierNotificator<T>{}](
                        OperatorInput<T, D>& input, OperatorOutput<T, A>& output) mutable {
               input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
                 auto [entry, fresh] = accums.try_emplace(cap.time(), init);
                 if (fresh) notificator.notify_at(cap.retain());
                 for (auto& batch : batches) fold(entry->second, batch);
               });
               const progress::MutableAntichain<T>* frontiers[] = {&input.frontier()};
               notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                 auto node = accums.extract(cap.time());
                 if (!node.empty()) output.session(cap).give(std::move(node.mapped()));
               });
             };
           });
  }
};

}  // namespace detail

/// `stream | accumulate(init, fold)`: one value of type `A` per time per worker, sent when the
/// time completes; `fold(A&, std::vector<D>&)` folds each batch into it.
template <class A, class Fold>
auto accumulate(A init, Fold fold) {
  return detail::AccumulateOp<A, Fold>{std::move(init), std::move(fold)};
}

/// `stream | count()`: the number of records per time per worker, sent when the time completes.
inline auto count() {
  return accumulate(std::size_t{0}, [](std::size_t& total, const auto& batch) { total += batch.size(); });
}

}  // namespace timely::dataflow::operators
