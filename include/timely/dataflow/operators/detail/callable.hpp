/// \file
/// Helpers for operators that infer types from the user's callables: `ArgumentOf<F, I>`, the
/// decayed type of parameter `I` of a callable with one non-template call operator (a plain
/// lambda, a function pointer, a function object), and `DeduceState`, the marker that asks an
/// operator to infer its state type that way. Generic lambdas (`auto` parameters) have no fixed
/// parameter types; operators ask for the type explicitly then.
///
/// Thread-safety: compile-time only.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace timely::dataflow::operators::detail {

/// Marker: infer the operator's state type from its fold function.
struct DeduceState {};

template <class Signature>
struct Parameters {};
template <class R, class... A>
struct Parameters<R (*)(A...)> {
  using type = std::tuple<A...>;
};
template <class R, class... A>
struct Parameters<R (*)(A...) noexcept> {
  using type = std::tuple<A...>;
};
template <class R, class C, class... A>
struct Parameters<R (C::*)(A...)> {
  using type = std::tuple<A...>;
};
template <class R, class C, class... A>
struct Parameters<R (C::*)(A...) const> {
  using type = std::tuple<A...>;
};
template <class R, class C, class... A>
struct Parameters<R (C::*)(A...) noexcept> {
  using type = std::tuple<A...>;
};
template <class R, class C, class... A>
struct Parameters<R (C::*)(A...) const noexcept> {
  using type = std::tuple<A...>;
};

template <class F, class = void>
struct ParametersOf : Parameters<std::decay_t<F>> {};
template <class F>
struct ParametersOf<F, std::void_t<decltype(&std::decay_t<F>::operator())>>
    : Parameters<decltype(&std::decay_t<F>::operator())> {};

/// Whether `F`'s parameter types are known (it is not generic or overloaded).
template <class F>
concept HasFixedParameters = requires {
  typename ParametersOf<F>::type;
};

/// The decayed type of parameter `I` of `F`.
template <class F, std::size_t I>
requires HasFixedParameters<F>
using ArgumentOf = std::remove_cvref_t<std::tuple_element_t<I, typename ParametersOf<F>::type>>;

/// `State`, or parameter `I` of `Fold` when `State` is `DeduceState`.
template <class State, class Fold, std::size_t I>
struct ResolveState {
  using type = State;
};
template <class Fold, std::size_t I>
struct ResolveState<DeduceState, Fold, I> {
  static_assert(HasFixedParameters<Fold>,
                "timely: cannot infer the state type from a generic fold; name it explicitly, "
                "e.g. aggregate<State>(...) or state_machine<State>(...)");
  using type = ArgumentOf<Fold, I>;
};

}  // namespace timely::dataflow::operators::detail
