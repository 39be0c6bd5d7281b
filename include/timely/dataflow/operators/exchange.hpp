/// \file
/// `exchange(route)`: repartitions a stream so that each record goes to worker
/// `route(record) % peers`, where `route(const D&)` returns an integer (a hash of the record or
/// of its key) that every worker computes alike. Timestamps and counts are preserved. Works on
/// streams of any container (a columnar stream's route is given the borrowed reference).
///
/// Source: the reference's `dataflow::operators::exchange` (SEMANTICS.md §5.6, §6).
/// Thread-safety: none.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>

namespace timely::dataflow::operators {

namespace detail {
template <class Route>
struct ExchangeOp {
  Route route;
  template <Timestamp T, class C>
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    using Item = std::remove_cvref_t<container::ItemRef<C>>;
    if constexpr (!std::is_invocable_v<const Route&, const Item&>) {
      static_assert(std::is_invocable_v<const Route&, const Item&>,
                    "timely::exchange: the route cannot take the stream's records: it must be callable as "
                    "route(const D&) -> integer, where D is the record type of the stream it is applied to "
                    "(for a columnar stream, its borrowed reference type)");
      return stream;
    } else if constexpr (!RouteFor<Route, C>) {
      static_assert(RouteFor<Route, C>,
                    "timely::exchange: the route takes the stream's records but does not return an integer: "
                    "it must be callable as route(const D&) -> integer (a hash of the record or of its key)");
      return stream;
    } else {
      return apply(stream);
    }
  }

 private:
  template <Timestamp T, class C>
  StreamCore<T, C> apply(const StreamCore<T, C>& stream) const {
    using CB = container::CapacityContainerBuilder<C>;
    return stream | unary<CB>(Exchange<Route>{route}, "Exchange", [](auto, const auto&) {
             return [](OperatorInputCore<T, C>& input, OperatorOutputCore<T, CB>& output) {
               input.for_each(
                   [&](const InputCapability<T>& cap, C& data) { output.session(cap).give_container(data); });
             };
           });
  }
};
}  // namespace detail

/// Sends each record to worker `route(record) % peers`.
template <class Route>
auto exchange(Route route) {
  return detail::ExchangeOp<Route>{std::move(route)};
}

}  // namespace timely::dataflow::operators
