/// \file
/// `reclock(clock)`: re-times a stream by the times of another. `stream | reclock(clock)`, with
/// `stream` a `Stream<T, D>` and `clock` a `Stream<T, C>` of the same scope (any record type;
/// only its times matter), returns a `Stream<T, D>`. Records of `stream` are held; whenever a
/// time `t` at which `clock` carried records is complete (on both inputs), every held record
/// whose time is `<= t` is sent at time `t`. A record is thus released at the first clock time
/// at or after its own (for totally ordered times). Records for which no later clock time ever
/// comes are dropped when the operator completes.
///
/// Both inputs stay on their worker (Pipeline): a worker releases its own records by the clock
/// times it sees itself, so broadcast the clock when data is spread over workers.
///
/// Errors: none of its own.
///
/// Frontier behaviour: frontier-aware on both inputs. The operator holds a capability for each
/// clock time not yet complete; held data does not hold capabilities, so the output frontier
/// is the meet of both input frontiers while clock times are pending.
///
/// Source of the idea: the reference's `Reclock` operator, built on `binary_notify`
/// (SEMANTICS.md §6 "Time manipulation and aggregation"). Thread-safety: none.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <Timestamp T, class C>
struct ReclockOp {
  Stream<T, C> clock;

  template <class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    return stream | binary_frontier<D>(clock, Pipeline{}, Pipeline{}, "Reclock", [](auto, const auto&) {
             return
                 [held = std::vector<std::pair<T, std::vector<D>>>{}, notificator = FrontierNotificator<T>{}](
                     OperatorInput<T, D>& data, OperatorInput<T, C>& ticks,
                     OperatorOutput<T, D>& output) mutable {
                   data.for_each([&](const InputCapability<T>& cap, std::vector<D>& batch) {
                     held.emplace_back(cap.time(), std::move(batch));
                   });
                   ticks.for_each([&](const InputCapability<T>& cap, std::vector<C>&) {
                     notificator.notify_at(cap.retain());  // requests at one time are merged
                   });
                   const progress::MutableAntichain<T>* frontiers[] = {&data.frontier(), &ticks.frontier()};
                   notificator.for_each(frontiers, [&](Capability<T> cap, std::int64_t) {
                     auto session = output.session(cap);
                     std::vector<std::pair<T, std::vector<D>>> later;
                     for (auto& [time, batch] : held) {
                       if (timely::less_equal(time, cap.time()))
                         for (auto& record : batch) session.give(std::move(record));
                       else
                         later.emplace_back(std::move(time), std::move(batch));
                     }
                     held = std::move(later);
                   });
                 };
           });
  }
};

}  // namespace detail

/// `stream | reclock(clock)`: held records are released at each time of `clock` once it is
/// complete (all records with time `<=` that clock time).
template <Timestamp T, class C>
auto reclock(Stream<T, C> clock) {
  return detail::ReclockOp<T, C>{std::move(clock)};
}

}  // namespace timely::dataflow::operators
