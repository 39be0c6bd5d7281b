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

namespace detail {

/// `inspect` (`with_time` false) and `inspect_time`: checks `f` against the stream's item type
/// (one readable error, not one deep inside the operator) and calls it for every item.
template <class F, bool with_time>
struct InspectRecords {
  F f;
  template <Timestamp T, class C>
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    using Item = std::remove_cvref_t<container::ItemRef<C>>;
    constexpr bool callable =
        with_time ? std::is_invocable_v<F&, const T&, const Item&> : std::is_invocable_v<F&, const Item&>;
    if constexpr (!callable) {
      static_assert(
          callable || with_time,
          "timely::inspect: f must be callable as f(const D& record), where D is the stream's record "
          "type (for a columnar stream, its borrowed reference type, such as "
          "std::tuple<std::uint64_t, std::string_view> for (u64, string) records)");
      static_assert(
          callable || !with_time,
          "timely::inspect_time: f must be callable as f(const T& time, const D& record), where T is "
          "the stream's timestamp and D its record type (for a columnar stream, its borrowed "
          "reference type)");
      return stream;
    } else {
      return stream | inspect_container([g = f](const T& time, const C& batch) mutable {
               for (auto&& record : batch) {
                 if constexpr (with_time)
                   g(time, std::as_const(record));
                 else
                   g(std::as_const(record));
               }
             });
    }
  }
};

}  // namespace detail

/// Calls `f(const T& time, const D& record)` for every record.
template <class F>
auto inspect_time(F f) {
  return detail::InspectRecords<F, true>{std::move(f)};
}

/// Calls `f(const D& record)` for every record.
template <class F>
auto inspect(F f) {
  return detail::InspectRecords<F, false>{std::move(f)};
}

}  // namespace timely::dataflow::operators
