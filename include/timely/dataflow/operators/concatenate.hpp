/// \file
/// Merging streams of one scope: `a | concat(b)` merges two streams, `concatenate(scope,
/// streams)` and `stream | concatenate(others)` any number. Every record of every input leaves
/// at its original time; batches are forwarded as they are, in arrival order per input. An
/// empty vector gives a stream that never carries data and is complete at once.
///
/// Errors: \throws BuildError (while the dataflow is built) if a stream belongs to another
/// scope than the one the operator is built in; move streams across scopes with
/// `enter`/`leave`.
///
/// Frontier behaviour: the output frontier is the meet of the inputs' frontiers (every input
/// is connected to the output with the identity summary); the operator is scheduled only when
/// data arrives (interest `Never`) and holds no capability.
///
/// Source of the idea: the reference's `Concat` and `Concatenate` operators
/// (`dataflow::operators::concat`, SEMANTICS.md §6 "Routing"). Thread-safety: none.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

namespace detail {
/// The one merging operator behind `concat` and `concatenate`; `name` is what logging shows.
template <Timestamp T, class C>
StreamCore<T, C> merge_streams(const Scope<T>& scope, const std::vector<StreamCore<T, C>>& streams,
                               std::string name) {
  OperatorBuilder<T> builder(scope, std::move(name));
  std::vector<OperatorInputCore<T, C>> inputs;
  inputs.reserve(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    inputs.push_back(builder.new_input(streams[i], Pipeline{}));
    builder.set_notify(i, progress::FrontierInterest::Never);
  }
  auto made = builder.template new_output<container::CapacityContainerBuilder<C>>();
  builder.build([&](std::vector<Capability<T>>) {
    return [inputs = std::move(inputs), output = std::move(made.handle)]() mutable {
      for (auto& input : inputs)
        input.for_each(
            [&](const InputCapability<T>& cap, C& data) { output.session(cap).give_container(data); });
    };
  });
  return std::move(made.stream);
}
}  // namespace detail

/// Merges `streams` (all of `scope`) into one stream of `scope`.
/// \throws BuildError if a stream belongs to another scope.
template <Timestamp T, class C>
StreamCore<T, C> concatenate(const Scope<T>& scope, const std::vector<StreamCore<T, C>>& streams) {
  return detail::merge_streams(scope, streams, "Concatenate");
}

namespace detail {
template <Timestamp T, class C>
struct Concat {
  StreamCore<T, C> other;
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    return merge_streams(stream.scope(), std::vector<StreamCore<T, C>>{stream, other}, "Concat");
  }
};

template <Timestamp T, class C>
struct ConcatenateOp {
  std::vector<StreamCore<T, C>> others;
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    std::vector<StreamCore<T, C>> all;
    all.reserve(others.size() + 1);
    all.push_back(stream);
    all.insert(all.end(), others.begin(), others.end());
    return merge_streams(stream.scope(), all, "Concatenate");
  }
};
}  // namespace detail

/// `a | concat(b)`: merges `b` into the stream it is applied to.
/// \throws BuildError if `b` belongs to another scope.
template <Timestamp T, class C>
auto concat(StreamCore<T, C> other) {
  return detail::Concat<T, C>{std::move(other)};
}

/// `stream | concatenate(others)`: merges `stream` with every stream of `others`.
/// \throws BuildError if a stream belongs to another scope.
template <Timestamp T, class C>
auto concatenate(std::vector<StreamCore<T, C>> others) {
  return detail::ConcatenateOp<T, C>{std::move(others)};
}

}  // namespace timely::dataflow::operators
