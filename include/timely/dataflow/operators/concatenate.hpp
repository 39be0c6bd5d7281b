/// \file
/// `concatenate(scope, streams)`: merges any number of streams of one scope into one.
/// Given a `std::vector<Stream<T, D>>` it returns a `Stream<T, D>` carrying every record of
/// every input at its original time; batches are forwarded as they are, in arrival order per
/// input. `stream | concatenate(others)` merges `stream` with the streams in `others`. An empty
/// vector gives a stream that never carries data and is complete at once.
///
/// Errors: \throws BuildError (while the dataflow is built) if a stream belongs to another
/// scope than `scope`; move streams across scopes with `enter`/`leave`.
///
/// Frontier behaviour: the output frontier is the meet of the inputs' frontiers (every input
/// is connected to the output with the identity summary); the operator is scheduled only when
/// data arrives (interest `Never`) and holds no capability.
///
/// Source of the idea: the reference's `Concatenate` (`scope.concatenate(streams)`,
/// SEMANTICS.md §6 "Routing"); `concat.hpp` is the two-stream case. Thread-safety: none.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

/// Merges `streams` (all of `scope`) into one stream of `scope`.
/// \throws BuildError if a stream belongs to another scope.
template <Timestamp T, class D>
Stream<T, D> concatenate(const Scope<T>& scope, const std::vector<Stream<T, D>>& streams) {
  OperatorBuilder<T> builder(scope, "Concatenate");
  std::vector<OperatorInput<T, D>> inputs;
  inputs.reserve(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    inputs.push_back(builder.new_input(streams[i], Pipeline{}));
    builder.set_notify(i, progress::FrontierInterest::Never);
  }
  auto [output, merged] = builder.template new_output<D>();
  builder.build([&](std::vector<Capability<T>>) {
    return [inputs = std::move(inputs), output = std::move(output)]() mutable {
      for (auto& input : inputs)
        input.for_each(
            [&](const InputCapability<T>& cap, std::vector<D>& data) { output.session(cap).give_vec(data); });
    };
  });
  return merged;
}

namespace detail {
template <Timestamp T, class D>
struct ConcatenateOp {
  std::vector<Stream<T, D>> others;
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    std::vector<Stream<T, D>> all;
    all.reserve(others.size() + 1);
    all.push_back(stream);
    all.insert(all.end(), others.begin(), others.end());
    return operators::concatenate(stream.scope(), all);
  }
};
}  // namespace detail

/// `stream | concatenate(others)`: merges `stream` with every stream of `others`.
template <Timestamp T, class D>
auto concatenate(std::vector<Stream<T, D>> others) {
  return detail::ConcatenateOp<T, D>{std::move(others)};
}

}  // namespace timely::dataflow::operators
