/// \file
/// Observation without change: `inspect(f)` calls `f(const D&)` for every record,
/// `inspect_time(f)` calls `f(const T&, const D&)`, and `inspect_container(f)` (or its other name
/// `inspect_batch(f)`) calls `f(const T&, const C&)` for every container (`const std::vector<D>&`
/// for vector streams); the records pass through unchanged. They work on streams of any
/// container: for a columnar stream `inspect` is given the borrowed references. Like the
/// reference, they are scheduled on frontier changes as well as on data.
///
/// Source: the reference's `dataflow::operators::{inspect, core::inspect}` (SEMANTICS.md §6).
/// Thread-safety: none; `f` runs on the worker thread.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class F>
struct InspectContainer {
  F f;
  template <Timestamp T, class C>
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    static_assert(std::is_invocable_v<F&, const T&, const C&>,
                  "inspect_container/inspect_batch: f must be callable as f(const T&, const C&), where C "
                  "is the stream's container (const std::vector<D>& for a stream of D)");
    using CB = container::CapacityContainerBuilder<C>;
    return stream | unary_frontier<CB>(Pipeline{}, "InspectBatch", [f = f](auto, const auto&) mutable {
             return [f](OperatorInputCore<T, C>& input, OperatorOutputCore<T, CB>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, C& data) {
                 f(cap.time(), static_cast<const C&>(data));
                 output.session(cap).give_container(data);
               });
             };
           });
  }
};

}  // namespace detail

/// Calls `f(const T& time, const C& batch)` for every container of records.
template <class F>
auto inspect_container(F f) {
  return detail::InspectContainer<F>{std::move(f)};
}

/// Calls `f(const T& time, const std::vector<D>& batch)` for every batch (any container `C` as
/// `inspect_container`).
template <class F>
auto inspect_batch(F f) {
  return detail::InspectContainer<F>{std::move(f)};
}

/// Calls `f(const T& time, const D& record)` for every record.
template <class F>
auto inspect_time(F f) {
  return inspect_container([f = std::move(f)](const auto& time, const auto& batch) mutable {
    for (auto&& record : batch) f(time, std::as_const(record));
  });
}

/// Calls `f(const D& record)` for every record.
template <class F>
auto inspect(F f) {
  return inspect_container([f = std::move(f)](const auto&, const auto& batch) mutable {
    for (auto&& record : batch) f(std::as_const(record));
  });
}

}  // namespace timely::dataflow::operators
