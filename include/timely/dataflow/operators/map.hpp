/// \file
/// Per-record transforms: `map(f)` (one output per input record), `flat_map(f)` (any number:
/// `f` returns a range), `filter(p)` (keeps records where `p` holds). All keep records on their
/// worker (Pipeline), preserve timestamps and are scheduled only when data arrives.
///
/// Source: the reference's `dataflow::operators::{map, filter}` (SEMANTICS.md §6).
/// Thread-safety: none; operators run on their worker thread.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>

namespace timely::dataflow::operators {

namespace detail {

template <class F>
struct Map {
  F f;
  template <Timestamp T, class D>
  auto operator()(const Stream<T, D>& stream) const {
    if constexpr (!std::is_invocable_v<const F&, D&&>) {
      static_assert(std::is_invocable_v<const F&, D&&>,
                    "timely::map: f cannot take the stream's records: it must be callable as f(D&&) -> Out, "
                    "where D is the record type of the stream it is applied to");
      return stream;
    } else {
      using Out = std::decay_t<std::invoke_result_t<const F&, D&&>>;
      return stream | unary<Out>(Pipeline{}, "Map", [f = f](auto, const auto&) {
               return [f](OperatorInput<T, D>& input, OperatorOutput<T, Out>& output) {
                 input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                   auto session = output.session(cap);
                   for (auto& record : data) session.give(f(std::move(record)));
                 });
               };
             });
    }
  }
};

template <class F>
struct FlatMap {
  F f;
  template <Timestamp T, class D>
  auto operator()(const Stream<T, D>& stream) const {
    if constexpr (!std::is_invocable_v<const F&, D&&>) {
      static_assert(std::is_invocable_v<const F&, D&&>,
                    "timely::flat_map: f cannot take the stream's records: it must be callable as "
                    "f(D&&) -> range of Out, where D is the record type of the stream it is applied to");
      return stream;
    } else {
      return apply(stream);
    }
  }

 private:
  template <Timestamp T, class D>
  auto apply(const Stream<T, D>& stream) const {
    using Range = std::decay_t<std::invoke_result_t<const F&, D&&>>;
    using Out = std::decay_t<decltype(*std::begin(std::declval<Range&>()))>;
    return stream | unary<Out>(Pipeline{}, "FlatMap", [f = f](auto, const auto&) {
             return [f](OperatorInput<T, D>& input, OperatorOutput<T, Out>& output) {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 auto session = output.session(cap);
                 for (auto& record : data)
                   for (auto&& out : f(std::move(record)))
                     session.give(Out(std::forward<decltype(out)>(out)));
               });
             };
           });
  }
};

template <class P>
struct Filter {
  P predicate;
  template <Timestamp T, class D>
  auto operator()(const Stream<T, D>& stream) const {
    if constexpr (!std::is_invocable_r_v<bool, const P&, const D&>) {
      static_assert(std::is_invocable_r_v<bool, const P&, const D&>,
                    "timely::filter: p must be callable as p(const D&) -> bool, where D is the record "
                    "type of the stream it is applied to");
      return stream;
    } else {
      return apply(stream);
    }
  }

 private:
  template <Timestamp T, class D>
  Stream<T, D> apply(const Stream<T, D>& stream) const {
    return stream | unary<D>(Pipeline{}, "Filter", [p = predicate](auto, const auto&) {
             return [p](OperatorInput<T, D>& input, OperatorOutput<T, D>& output) {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& data) {
                 std::erase_if(data, [&](const D& record) { return !p(record); });
                 if (!data.empty()) output.session(cap).give_vec(data);
               });
             };
           });
  }
};

}  // namespace detail

/// `f(D) -> Out` applied to every record.
template <class F>
auto map(F f) {
  return detail::Map<F>{std::move(f)};
}
/// `f(D) -> range of Out`; every element of the range is sent.
template <class F>
auto flat_map(F f) {
  return detail::FlatMap<F>{std::move(f)};
}
/// Keeps the records for which `p(const D&)` is true.
template <class P>
auto filter(P p) {
  return detail::Filter<P>{std::move(p)};
}

}  // namespace timely::dataflow::operators
