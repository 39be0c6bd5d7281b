/// \file
/// `concat(other)`: merges two streams of the same scope and types into one; batches are
/// forwarded as they are. Source: the reference's `dataflow::operators::concat` (SEMANTICS.md
/// §6). Thread-safety: none.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

namespace detail {
template <Timestamp T, class D>
struct Concat {
  Stream<T, D> other;
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), "Concat");
    auto left = builder.new_input(stream, Pipeline{});
    auto right = builder.new_input(other, Pipeline{});
    auto [output, out_stream] = builder.template new_output<D>();
    builder.set_notify(0, progress::FrontierInterest::Never);
    builder.set_notify(1, progress::FrontierInterest::Never);
    builder.build([&](std::vector<Capability<T>>) {
      return [left = std::move(left), right = std::move(right), output = std::move(output)]() mutable {
        auto forward = [&](const InputCapability<T>& cap, std::vector<D>& data) {
          output.session(cap).give_vec(data);
        };
        left.for_each(forward);
        right.for_each(forward);
      };
    });
    return out_stream;
  }
};
}  // namespace detail

/// Merges `other` into the stream it is applied to: `a | concat(b)`.
template <Timestamp T, class D>
auto concat(Stream<T, D> other) {
  return detail::Concat<T, D>{std::move(other)};
}

}  // namespace timely::dataflow::operators
