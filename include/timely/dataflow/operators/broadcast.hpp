/// \file
/// `broadcast()`: every record of the stream reaches every worker. Applied to a
/// `Stream<T, D>` it returns a `Stream<T, D>` in which each worker sees, at the original time,
/// one copy of every record any worker sent into it (so each record appears `peers()` times in
/// the whole computation). `D` must be copyable.
///
/// How: one operator tags each record with every worker index (`peers()` copies, all but the
/// last copied, the last moved), an exchange on the tag delivers copy `i` to worker `i`, which
/// drops the tag. Copies are real records: progress counts all of them, so no pact has to
/// multiply records (a pact must preserve counts, SEMANTICS.md §5.6).
///
/// Frontier behaviour: none; the operators forward data at the input's times and are scheduled
/// only when data arrives (interest `Never`). Throws nothing of its own.
///
/// Source of the idea: the reference's `Broadcast` operator (flat map to `(worker, record)`,
/// exchange on the worker, strip it; SEMANTICS.md §6 "Routing"). Thread-safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

namespace detail {

struct BroadcastOp {
  template <Timestamp T, class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_copy_constructible_v<D>, "broadcast: records must be copyable");
    using Tagged = std::pair<std::size_t, D>;
    const std::size_t peers = stream.scope().peers();
    auto tagged = stream | unary<Tagged>(Pipeline{}, "BroadcastCopies", [peers](auto, const auto&) {
                    return [peers](OperatorInput<T, D>& input, OperatorOutput<T, Tagged>& output) {
                      input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                        auto session = output.session(cap);
                        for (auto& record : data) {
                          for (std::size_t worker = 0; worker + 1 < peers; ++worker)
                            session.give(Tagged(worker, record));
                          session.give(Tagged(peers - 1, std::move(record)));
                        }
                      });
                    };
                  });
    auto to_tagged_worker = [](const Tagged& t) { return static_cast<std::uint64_t>(t.first); };
    return tagged | unary<D>(Exchange{to_tagged_worker}, "Broadcast", [](auto, const auto&) {
             return [](OperatorInput<T, Tagged>& input, OperatorOutput<T, D>& output) {
               input.for_each([&](const InputCapability<T>& cap, std::vector<Tagged>& data) {
                 auto session = output.session(cap);
                 for (auto& t : data) session.give(std::move(t.second));
               });
             };
           });
  }
};

}  // namespace detail

/// `stream | broadcast()`: a copy of every record for every worker, at the record's time.
inline auto broadcast() { return detail::BroadcastOp{}; }

}  // namespace timely::dataflow::operators
