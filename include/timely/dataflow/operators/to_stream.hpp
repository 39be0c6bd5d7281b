/// \file
/// `to_stream(scope, range)`: a source that sends every element of `range` at the minimum time.
/// Every worker sends the whole range (the data is replicated on each worker, as in the
/// reference); it sends a bounded number of batches per scheduling and reactivates itself until
/// done, then drops its capability.
///
/// Source: the reference's `dataflow::operators::to_stream` (SEMANTICS.md §6).
/// Thread-safety: none.
#pragma once

#include <cstddef>
#include <iterator>
#include <memory>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/container.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

/// Sends the elements of `range` (any input range; it is moved into the operator) at
/// `minimum<T>()` on every worker.
template <Timestamp T, std::ranges::input_range R>
auto to_stream(Scope<T>& scope, R&& range) {
  using Range = std::decay_t<R>;
  using D = std::ranges::range_value_t<Range>;
  OperatorBuilder<T> builder(scope, "ToStream");
  auto made = builder.template new_output<D>();
  auto activator = builder.activator();
  auto owned = std::make_shared<Range>(std::forward<R>(range));
  builder.build([&](std::vector<Capability<T>> caps) {
    // The logic owns the range (shared, so the logic stays copyable), its position in it, and
    // the capability until the range is exhausted.
    return [owned, it = std::ranges::begin(*owned), cap = std::optional<Capability<T>>(std::move(caps[0])),
            activator, output = std::move(made.handle)]() mutable {
      if (!cap) return;
      {
        auto session = output.session(*cap);
        const std::size_t budget = 256 * container::default_capacity<D>();
        for (std::size_t sent = 0; sent < budget && it != std::ranges::end(*owned); ++sent, ++it)
          session.give(D(*it));
      }
      if (it == std::ranges::end(*owned))
        cap.reset();
      else
        activator.activate();
    };
  });
  return std::move(made.stream);
}

}  // namespace timely::dataflow::operators
