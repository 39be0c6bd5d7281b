/// \file
/// Observation without change: `inspect(f)` calls `f(const D&)` for every record,
/// `inspect_time(f)` calls `f(const T&, const D&)`, and `inspect_batch(f)` calls
/// `f(const T&, const std::vector<D>&)` for every batch; the records pass through unchanged.
/// Like the reference, they are scheduled on frontier changes as well as on data.
///
/// Source: the reference's `dataflow::operators::inspect` (SEMANTICS.md §6).
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
struct InspectBatch {
  F f;
  template <Timestamp T, class D>
  Stream<T, D> operator()(const Stream<T, D>& stream) const {
    static_assert(std::is_invocable_v<F&, const T&, const std::vector<D>&>,
                  "inspect_batch: f must be callable as f(const T&, const std::vector<D>&)");
    return stream | unary_frontier<D>(Pipeline{}, "InspectBatch", [f = f](auto, const auto&) mutable {
             return [f](OperatorInput<T, D>& input, OperatorOutput<T, D>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 f(cap.time(), static_cast<const std::vector<D>&>(data));
                 output.session(cap).give_vec(data);
               });
             };
           });
  }
};

}  // namespace detail

/// Calls `f(const T& time, const std::vector<D>& batch)` for every batch.
template <class F>
auto inspect_batch(F f) {
  return detail::InspectBatch<F>{std::move(f)};
}

/// Calls `f(const T& time, const D& record)` for every record.
template <class F>
auto inspect_time(F f) {
  return inspect_batch([f = std::move(f)](const auto& time, const auto& batch) mutable {
    for (const auto& record : batch) f(time, record);
  });
}

/// Calls `f(const D& record)` for every record.
template <class F>
auto inspect(F f) {
  return inspect_batch([f = std::move(f)](const auto&, const auto& batch) mutable {
    for (const auto& record : batch) f(record);
  });
}

}  // namespace timely::dataflow::operators
