/// \file
/// Generic operators with user logic: `unary_frontier` (one input, one output, the logic sees
/// the input frontier and may keep capabilities: the basis for user operators), `unary` (the
/// same shape, scheduled only when data arrives or on explicit activation) and `sink` (one input,
/// no output).
///
/// Use: `stream | unary_frontier<Out>(Pipeline{}, "Name", [](Capability<T> cap, OperatorInfo
/// info) { return [=](OperatorInput<T, In>& input, OperatorOutput<T, Out>& output) { ... }; })`.
///
/// Source: the reference's `dataflow::operators::generic::operator` (SEMANTICS.md §5.7).
/// Thread-safety: none; operators run on their worker thread.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow::operators {

/// What an operator's constructor learns about the operator it builds.
struct OperatorInfo {
  /// Index within its scope.
  std::size_t index;
  /// Worker-wide identifier.
  std::size_t global;
  /// Schedules the operator in the next step of its worker.
  scheduling::Activator activator;
};

namespace detail {

template <class DOut, class Pact, class Ctor>
struct Unary {
  Pact pact;
  std::string name;
  Ctor ctor;
  FrontierInterest interest;

  template <Timestamp T, class DIn>
  Stream<T, DOut> operator()(const Stream<T, DIn>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), name);
    auto input = builder.new_input(stream, pact);
    auto [output, out_stream] = builder.template new_output<DOut>();
    builder.set_notify(0, interest);
    OperatorInfo info{builder.index(), builder.global(), builder.activator()};
    builder.build([&](std::vector<Capability<T>> caps) {
      Ctor make = ctor;
      auto logic = make(std::move(caps[0]), info);
      static_assert(std::is_invocable_v<decltype(logic)&, OperatorInput<T, DIn>&, OperatorOutput<T, DOut>&>,
                    "unary/unary_frontier: the constructor must return a logic callable as "
                    "logic(OperatorInput<T, In>&, OperatorOutput<T, Out>&)");
      return [logic = std::move(logic), input = std::move(input), output = std::move(output)]() mutable {
        logic(input, output);
      };
    });
    return out_stream;
  }
};

template <class Pact, class Ctor>
struct Sink {
  Pact pact;
  std::string name;
  Ctor ctor;

  template <Timestamp T, class DIn>
  void operator()(const Stream<T, DIn>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), name);
    auto input = builder.new_input(stream, pact);
    OperatorInfo info{builder.index(), builder.global(), builder.activator()};
    builder.build([&](std::vector<Capability<T>>) {
      Ctor make = ctor;
      auto logic = make(info);
      static_assert(std::is_invocable_v<decltype(logic)&, OperatorInput<T, DIn>&>,
                    "sink: the constructor must return a logic callable as logic(OperatorInput<T, In>&)");
      return [logic = std::move(logic), input = std::move(input)]() mutable { logic(input); };
    });
  }
};

}  // namespace detail

/// A one-input, one-output operator producing records of type `DOut`, scheduled on every
/// frontier change of its input as well as on data. `ctor(Capability<T> initial, OperatorInfo)`
/// returns `logic(OperatorInput<T, DIn>&, OperatorOutput<T, DOut>&)`. Drop `initial` unless you
/// need to send at the minimum time without input; keep capabilities for times you still owe
/// output at, and release them once the frontier has passed.
template <class DOut, class Pact, class Ctor>
auto unary_frontier(Pact pact, std::string name, Ctor ctor) {
  return detail::Unary<DOut, Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor),
                                         FrontierInterest::Always};
}

/// Like `unary_frontier`, but frontier changes do not schedule the operator: it runs only when
/// data arrives or it is activated. Capabilities it keeps are only released when it runs.
template <class DOut, class Pact, class Ctor>
auto unary(Pact pact, std::string name, Ctor ctor) {
  return detail::Unary<DOut, Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor),
                                         FrontierInterest::Never};
}

/// A one-input operator without outputs, scheduled on data and frontier changes.
/// `ctor(OperatorInfo)` returns `logic(OperatorInput<T, DIn>&)`.
template <class Pact, class Ctor>
auto sink(Pact pact, std::string name, Ctor ctor) {
  return detail::Sink<Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor)};
}

}  // namespace timely::dataflow::operators
