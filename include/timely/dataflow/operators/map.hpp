/// \file
/// Per-record transforms: `map(f)` (one output per input record), `flat_map(f)` (any number:
/// `f` returns a range), `filter(p)` (keeps records where `p` holds). All keep records on their
/// worker (Pipeline), preserve timestamps and are scheduled only when data arrives.
///
/// They work on streams of any container: `f` is given each item as the container yields it (a
/// vector's records as rvalues, a columnar batch's borrowed references). The output is a vector
/// of what `f` returns unless an output type is named: `map<columnar::Builder<P>>(f)` builds
/// columnar batches. `filter` keeps the input's container.
///
/// Source: the reference's `dataflow::operators::{map, filter}` and `core::map` (SEMANTICS.md §6).
/// Thread-safety: none; operators run on their worker thread.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/container.hpp>
#include <timely/dataflow/operators/generic.hpp>

namespace timely::dataflow::operators {

namespace detail {

/// What `f` is called with for each item of container `C`: a vector's records as rvalues,
/// other containers' items as they iterate.
template <class C>
struct MapArgOf {
  using type = container::ItemRef<C>;
};
template <class D, class A>
struct MapArgOf<std::vector<D, A>> {
  using type = D&&;
};
template <class C>
using MapArg = typename MapArgOf<C>::type;

/// The output type parameter of `map<Out>`/`flat_map<Out>`: `Out` if given, else `Default`.
template <class Out, class Default>
using OutOr = std::conditional_t<std::is_void_v<Out>, Default, Out>;

template <class Out, class F>
struct Map {
  F f;
  template <Timestamp T, class C>
  auto operator()(const StreamCore<T, C>& stream) const {
    using Arg = MapArg<C>;
    if constexpr (!std::is_invocable_v<const F&, Arg>) {
      static_assert(std::is_invocable_v<const F&, Arg>,
                    "timely::map: f cannot take the stream's records: it must be callable as f(D&&) -> Out, "
                    "where D is the record type of the stream it is applied to (for a columnar stream, "
                    "its reference type)");
      return stream;
    } else {
      using Result = OutOr<Out, std::decay_t<std::invoke_result_t<const F&, Arg>>>;
      return stream | unary<Result>(Pipeline{}, "Map", [f = f](auto, const auto&) {
               return [f](auto& input, auto& output) {
                 input.for_each([&](const InputCapability<T>& cap, C& data) {
                   auto session = output.session(cap);
                   container::drain(
                       data, [&](auto&& record) { session.give(f(std::forward<decltype(record)>(record))); });
                 });
               };
             });
    }
  }
};

template <class Out, class F>
struct FlatMap {
  F f;
  template <Timestamp T, class C>
  auto operator()(const StreamCore<T, C>& stream) const {
    using Arg = MapArg<C>;
    if constexpr (!std::is_invocable_v<const F&, Arg>) {
      static_assert(std::is_invocable_v<const F&, Arg>,
                    "timely::flat_map: f cannot take the stream's records: it must be callable as "
                    "f(D&&) -> range of Out, where D is the record type of the stream it is applied to");
      return stream;
    } else {
      return apply(stream);
    }
  }

 private:
  template <Timestamp T, class C>
  auto apply(const StreamCore<T, C>& stream) const {
    using Range = std::decay_t<std::invoke_result_t<const F&, MapArg<C>>>;
    using Element = std::decay_t<decltype(*std::begin(std::declval<Range&>()))>;
    using Result = OutOr<Out, Element>;
    return stream | unary<Result>(Pipeline{}, "FlatMap", [f = f](auto, const auto&) {
             return [f](auto& input, auto& output) {
               input.for_each([&](const InputCapability<T>& cap, C& data) {
                 auto session = output.session(cap);
                 container::drain(data, [&](auto&& record) {
                   for (auto&& out : f(std::forward<decltype(record)>(record))) {
                     if constexpr (std::is_void_v<Out>)
                       session.give(Element(std::forward<decltype(out)>(out)));
                     else
                       session.give(std::forward<decltype(out)>(out));
                   }
                 });
               });
             };
           });
  }
};

template <class P>
struct Filter {
  P predicate;
  template <Timestamp T, class C>
  auto operator()(const StreamCore<T, C>& stream) const {
    using Item = std::remove_cvref_t<container::ItemRef<C>>;
    if constexpr (!std::is_invocable_r_v<bool, const P&, const Item&>) {
      static_assert(std::is_invocable_r_v<bool, const P&, const Item&>,
                    "timely::filter: p must be callable as p(const D&) -> bool, where D is the record "
                    "type of the stream it is applied to");
      return stream;
    } else {
      return apply(stream);
    }
  }

 private:
  template <Timestamp T, class C>
  StreamCore<T, C> apply(const StreamCore<T, C>& stream) const {
    using CB = container::CapacityContainerBuilder<C>;
    return stream | unary<CB>(Pipeline{}, "Filter", [p = predicate](auto, const auto&) {
             return [p](OperatorInputCore<T, C>& input, OperatorOutputCore<T, CB>& output) {
               input.for_each([&](const InputCapability<T>& cap, C& data) {
                 if constexpr (container::Vector<C>) {
                   std::erase_if(data, [&](const auto& record) { return !p(record); });
                   if (!data.empty()) output.session(cap).give_container(data);
                 } else {
                   auto session = output.session(cap);
                   for (auto&& item : data)
                     if (p(std::as_const(item))) session.give(item);
                 }
               });
             };
           });
  }
};

}  // namespace detail

/// `f(D) -> Out` applied to every record. `Out`, when given, names the output (a record type or
/// a container builder); by default the output is `std::vector` of `f`'s result.
template <class Out = void, class F>
auto map(F f) {
  return detail::Map<Out, F>{std::move(f)};
}
/// `f(D) -> range`; every element of the range is sent. `Out` as for `map`.
template <class Out = void, class F>
auto flat_map(F f) {
  return detail::FlatMap<Out, F>{std::move(f)};
}
/// Keeps the records for which `p(const D&)` is true, in the input's container type.
template <class P>
auto filter(P p) {
  return detail::Filter<P>{std::move(p)};
}

}  // namespace timely::dataflow::operators
