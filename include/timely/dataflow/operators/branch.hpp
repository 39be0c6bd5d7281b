/// \file
/// Two-way splits by a condition:
///
/// - `branch(cond)`: `cond(const T& time, const D& record) -> bool` per record. Applied to a
///   `Stream<T, D>`, returns `std::pair<Stream<T, D>, Stream<T, D>>`: `first` carries the
///   records for which `cond` is false, `second` those for which it is true, at their times.
/// - `branch_when(cond)`: `cond(const T& time) -> bool` per batch. Whole batches go to `second`
///   when `cond` holds for their time and to `first` otherwise, unchanged (no copying).
///
/// Records stay on their worker (Pipeline). Errors: none of their own; whatever `cond` throws
/// propagates (and fails the worker).
///
/// Frontier behaviour: none; both outputs follow the input frontier (identity summaries) even
/// when one of them never receives data, and the operators run only when data arrives
/// (interest `Never`).
///
/// Source of the idea: the reference's `Branch` and `BranchWhen` operators (SEMANTICS.md §6
/// "Per-record transforms"). Thread-safety: none.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class Cond>
struct BranchOp {
  Cond cond;

  template <Timestamp T, class C>
  std::pair<StreamCore<T, C>, StreamCore<T, C>> operator()(const StreamCore<T, C>& stream) const {
    using Item = std::remove_cvref_t<container::ItemRef<C>>;
    using CB = container::CapacityContainerBuilder<C>;
    static_assert(std::is_invocable_r_v<bool, const Cond&, const T&, const Item&>,
                  "branch: cond must be callable as cond(const T& time, const D& record) -> bool");
    OperatorBuilder<T> builder(stream.scope(), "Branch");
    auto input = builder.new_input(stream, Pipeline{});
    builder.set_notify(0, progress::FrontierInterest::Never);
    auto no_made = builder.template new_output<CB>();
    auto yes_made = builder.template new_output<CB>();
    builder.build([&](std::vector<Capability<T>>) {
      return [input = std::move(input), no = std::move(no_made.handle), yes = std::move(yes_made.handle),
              cond = cond]() mutable {
        input.for_each_time([&](const InputCapability<T>& cap, std::vector<C>& batches) {
          std::optional<SessionCore<T, CB>> to_no, to_yes;
          for (auto& batch : batches)
            container::drain(batch, [&](auto&& record) {
              if (cond(cap.time(), std::as_const(record))) {
                if (!to_yes) to_yes.emplace(yes.session(cap));
                to_yes->give(std::forward<decltype(record)>(record));
              } else {
                if (!to_no) to_no.emplace(no.session(cap));
                to_no->give(std::forward<decltype(record)>(record));
              }
            });
        });
      };
    });
    return {std::move(no_made.stream), std::move(yes_made.stream)};
  }
};

template <class Cond>
struct BranchWhenOp {
  Cond cond;

  template <Timestamp T, class C>
  std::pair<StreamCore<T, C>, StreamCore<T, C>> operator()(const StreamCore<T, C>& stream) const {
    using CB = container::CapacityContainerBuilder<C>;
    static_assert(std::is_invocable_r_v<bool, const Cond&, const T&>,
                  "branch_when: cond must be callable as cond(const T& time) -> bool");
    OperatorBuilder<T> builder(stream.scope(), "BranchWhen");
    auto input = builder.new_input(stream, Pipeline{});
    builder.set_notify(0, progress::FrontierInterest::Never);
    auto no_made = builder.template new_output<CB>();
    auto yes_made = builder.template new_output<CB>();
    builder.build([&](std::vector<Capability<T>>) {
      return [input = std::move(input), no = std::move(no_made.handle), yes = std::move(yes_made.handle),
              cond = cond]() mutable {
        input.for_each([&](const InputCapability<T>& cap, C& data) {
          auto& target = cond(cap.time()) ? yes : no;
          target.session(cap).give_container(data);
        });
      };
    });
    return {std::move(no_made.stream), std::move(yes_made.stream)};
  }
};

}  // namespace detail

/// `auto [no, yes] = stream | branch(cond)`: per record, `cond(time, record)` picks the stream.
template <class Cond>
auto branch(Cond cond) {
  return detail::BranchOp<Cond>{std::move(cond)};
}

/// `auto [no, yes] = stream | branch_when(cond)`: per batch, `cond(time)` picks the stream.
template <class Cond>
auto branch_when(Cond cond) {
  return detail::BranchWhenOp<Cond>{std::move(cond)};
}

}  // namespace timely::dataflow::operators
