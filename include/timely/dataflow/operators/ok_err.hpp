/// \file
/// `ok_err(f)`: splits a stream by the outcome of a fallible function. `f(D) ->
/// std::variant<Ok, Err>` (exactly two alternatives: the first is success, the second failure;
/// `Ok` and `Err` may be the same type, then build results with `std::in_place_index<0>` or
/// `<1>`). Applied to a `Stream<T, D>`, returns `std::pair<Stream<T, Ok>, Stream<T, Err>>`: the
/// successes and the failures, each at the input record's time. Records stay on their worker
/// (Pipeline).
///
/// Errors: none of its own. A variant left valueless (by an exception while it was assigned)
/// makes the operator throw `std::bad_variant_access`; whatever `f` throws propagates.
///
/// Frontier behaviour: none; both outputs follow the input frontier (identity summaries); the
/// operator runs only when data arrives (interest `Never`).
///
/// Source of the idea: the reference's `OkErr` operator, which splits on Rust's `Result`
/// (SEMANTICS.md §6 "Per-record transforms"); `std::variant<Ok, Err>` plays that role here.
/// Thread-safety: none.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class V>
struct IsTwoWayVariant : std::false_type {};
template <class A, class B>
struct IsTwoWayVariant<std::variant<A, B>> : std::true_type {};

template <class F>
struct OkErrOp {
  F f;

  template <Timestamp T, class D>
  auto operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_v<const F&, D&&>,
                  "ok_err: f must be callable as f(D) -> std::variant<Ok, Err>");
    using Result = std::decay_t<std::invoke_result_t<const F&, D&&>>;
    static_assert(IsTwoWayVariant<Result>::value,
                  "ok_err: f must return std::variant<Ok, Err> (exactly two alternatives)");
    using Ok = std::variant_alternative_t<0, Result>;
    using Err = std::variant_alternative_t<1, Result>;

    OperatorBuilder<T> builder(stream.scope(), "OkErr");
    auto input = builder.new_input(stream, Pipeline{});
    builder.set_notify(0, progress::FrontierInterest::Never);
    auto ok_made = builder.template new_output<Ok>();
    auto err_made = builder.template new_output<Err>();
    builder.build([&](std::vector<Capability<T>>) {
      return [input = std::move(input), ok = std::move(ok_made.handle), err = std::move(err_made.handle),
              f = f]() mutable {
        input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
          std::optional<Session<T, Ok>> to_ok;
          std::optional<Session<T, Err>> to_err;
          for (auto& batch : batches)
            for (auto& record : batch) {
              Result result = f(std::move(record));
              if (result.index() == 0) {
                if (!to_ok) to_ok.emplace(ok.session(cap));
                to_ok->give(std::get<0>(std::move(result)));
              } else {
                if (!to_err) to_err.emplace(err.session(cap));
                to_err->give(std::get<1>(std::move(result)));
              }
            }
        });
      };
    });
    return std::pair<Stream<T, Ok>, Stream<T, Err>>{std::move(ok_made.stream), std::move(err_made.stream)};
  }
};

}  // namespace detail

/// `auto [oks, errs] = stream | ok_err(f)`: `f(record)` returns `std::variant<Ok, Err>`;
/// alternative 0 goes to `oks`, alternative 1 to `errs`.
template <class F>
auto ok_err(F f) {
  return detail::OkErrOp<F>{std::move(f)};
}

}  // namespace timely::dataflow::operators
