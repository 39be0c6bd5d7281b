/// \file
/// `partition(parts, route)`: splits a stream into `parts` streams. `route(D) -> std::pair<I,
/// Out>` (any pair-like with an integer `first`) names the part a record goes to and the record
/// to send there; applied to a `Stream<T, D>`, the operator returns a
/// `std::vector<Stream<T, Out>>` of size `parts`, and stream `i` carries every record routed to
/// `i`, at the input record's time. Records stay on their worker (Pipeline); per time, each
/// part's records are sent through one session.
///
/// Errors: \throws timely::Error (from the worker running the operator, rethrown by `execute`)
/// when `route` returns an index outside `[0, parts)`; the message names the index.
///
/// Frontier behaviour: none; every output's frontier follows the input's (identity summary),
/// and the operator runs only when data arrives (interest `Never`).
///
/// Source of the idea: the reference's `Partition` operator (SEMANTICS.md §6 "Per-record
/// transforms"), which panics where we throw. Thread-safety: none.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/error.hpp>
#include <timely/progress/describe.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class Route>
struct PartitionOp {
  std::size_t parts;
  Route route;

  template <Timestamp T, class D>
  auto operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_v<const Route&, D&&>,
                  "partition: route must be callable as route(D) -> std::pair<index, Out>");
    using Routed = std::decay_t<std::invoke_result_t<const Route&, D&&>>;
    using Index = std::decay_t<decltype(std::declval<Routed&>().first)>;
    using Out = std::decay_t<decltype(std::declval<Routed&>().second)>;
    static_assert(std::is_integral_v<Index>, "partition: route must return a part index (an integer) first");

    OperatorBuilder<T> builder(stream.scope(), "Partition");
    auto input = builder.new_input(stream, Pipeline{});
    builder.set_notify(0, progress::FrontierInterest::Never);
    std::vector<OperatorOutput<T, Out>> outputs;
    std::vector<Stream<T, Out>> streams;
    outputs.reserve(parts);
    streams.reserve(parts);
    for (std::size_t i = 0; i < parts; ++i) {
      auto made = builder.template new_output<Out>();
      outputs.push_back(std::move(made.handle));
      streams.push_back(std::move(made.stream));
    }
    builder.build([&](std::vector<Capability<T>>) {
      return
          [input = std::move(input), outputs = std::move(outputs), route = route, parts = parts]() mutable {
            std::vector<std::optional<Session<T, Out>>> sessions(parts);
            input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
              for (auto& batch : batches)
                for (auto& record : batch) {
                  auto routed = route(std::move(record));
                  const Index index = routed.first;
                  if (std::cmp_less(index, 0) || std::cmp_greater_equal(index, parts))
                    throw Error("timely: partition: route returned part index " + describe(index) +
                                " for a record at time " + describe(cap.time()) + ", but there are only " +
                                std::to_string(parts) + " parts");
                  const auto part = static_cast<std::size_t>(index);
                  if (!sessions[part]) sessions[part].emplace(outputs[part].session(cap));
                  sessions[part]->give(std::move(routed.second));
                }
              for (auto& session : sessions) session.reset();  // sends this time's remaining records
            });
          };
    });
    return streams;
  }
};

}  // namespace detail

/// `stream | partition(parts, route)`: `parts` streams; `route(record)` returns
/// `(part index, output record)`. \throws Error (at run time) for an index `>= parts`.
template <class Route>
auto partition(std::size_t parts, Route route) {
  return detail::PartitionOp<Route>{parts, std::move(route)};
}

}  // namespace timely::dataflow::operators
