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
template <Timestamp T, class D>
Stream<T, D> merge_streams(const Scope<T>& scope, const std::vector<Stream<T, D>>& streams,
                           std::string name) {
  OperatorBuilder<T> builder(scope, std::move(name));
  std::vector<OperatorInput<T, D>> inputs;
  inputs.reserve(streams.size());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    inputs.push_back(builder.new_input(streams[i], Pipeline{}));
    builder.set_notify(i, progress::FrontierInterest::Never);
  }
  auto output_made = builder.template new_output<D>();
  auto& output = output_made.first;
  auto& merged = output_made.second;
  builder.build([&](std::vector<Capability<T>>) {
    return [inputs = std::move(inputs), output = std::move(output)]() mutable {
      for (auto& input : inputs)
        input.for_each(
            [&](const InputCapability<T>& cap, std::vector<D>& data) { output.session(cap).give_vec(data); });
    };
  });
  return merged;
}
}  // namespace detail

/// Merges `streams` (all of `scope`) into one stream of `scope`.
/// \throws BuildError if a stream belongs to another scope.
template <Timestamp T, class D>
Stream<T, D> concatenate(const Scope<T>& scope, const std::vector<Stream<T, D>>& streams) {
  return detail::merge_streams(scope, streams, "Concatenate");
}

namespace detail {
template <Timestamp T, class D>
struct Concat {
  Stream<T, D> other;
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    return merge_streams(stream.scope(), std::vector<Stream<T, D>>{stream, other}, "Concat");
  }
};

template <Timestamp T, class D>
struct ConcatenateOp {
  std::vector<Stream<T, D>> others;
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    std::vector<Stream<T, D>> all;
    all.reserve(others.size() + 1);
    all.push_back(stream);
    all.insert(all.end(), others.begin(), others.end());
    return merge_streams(stream.scope(), all, "Concatenate");
  }
};
}  // namespace detail

/// `a | concat(b)`: merges `b` into the stream it is applied to.
/// \throws BuildError if `b` belongs to another scope.
template <Timestamp T, class D>
auto concat(Stream<T, D> other) {
  return detail::Concat<T, D>{std::move(other)};
}

/// `stream | concatenate(others)`: merges `stream` with every stream of `others`.
/// \throws BuildError if a stream belongs to another scope.
template <Timestamp T, class D>
auto concatenate(std::vector<Stream<T, D>> others) {
  return detail::ConcatenateOp<T, D>{std::move(others)};
}

}  // namespace timely::dataflow::operators
