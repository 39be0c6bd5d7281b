/// \file
/// Generic operators with user logic: `unary_frontier` (one input, one output, the logic sees
/// the input frontier and may keep capabilities: the basis for user operators), `unary` (the
/// same shape, scheduled only when data arrives or on explicit activation), `binary_frontier` and
/// `binary` (two inputs), `unary_notify` and `binary_notify` (with a `Notificator` that delivers
/// requested times once they are complete), `sink` (one input, no output) and `source` (no input).
///
/// Use: `stream | unary_frontier<Out>(Pipeline{}, "Name", [](Capability<T> cap, OperatorInfo
/// info) { return [=](OperatorInput<T, In>& input, OperatorOutput<T, Out>& output) { ... }; })`.
///
/// Every operator here works on streams of any container: the input hands the logic the
/// container (`OperatorInputCore<T, C>`), and `Out` names the output: a record type `D` (a
/// `std::vector<D>` stream, written to through `OperatorOutput<T, D>`) or a container builder
/// (`unary<columnar::Builder<P>>(...)`, written to through `OperatorOutputCore<T, Builder>`).
///
/// Source: the reference's `dataflow::operators::generic::operator` (SEMANTICS.md §5.7).
/// Thread-safety: none; operators run on their worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
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
  /// Schedules the operator in the next step of its worker (use on the worker's thread).
  scheduling::Activator activator;
  /// Schedules the operator from any thread, waking its worker if it is parked.
  scheduling::SyncActivator sync_activator;
};

namespace detail {

template <class DOut, class Pact, class Ctor>
struct Unary {
  Pact pact;
  std::string name;
  Ctor ctor;
  progress::FrontierInterest interest;

  using CB = container::BuilderFor<DOut>;

  template <Timestamp T, class CIn>
  StreamCore<T, typename CB::Container> operator()(const StreamCore<T, CIn>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), name);
    auto input = builder.new_input(stream, pact);
    auto made = builder.template new_output<DOut>();
    builder.set_notify(0, interest);
    OperatorInfo info{builder.index(), builder.global(), builder.activator(), builder.sync_activator()};
    builder.build([&](std::vector<Capability<T>> caps) {
      Ctor make = ctor;
      if constexpr (!std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>) {
        static_assert(std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>,
                      "timely::unary/unary_frontier: the constructor must be callable as "
                      "ctor(Capability<T>, const OperatorInfo&) and return the logic");
        return [] {};
      } else {
        auto logic = make(std::move(caps[0]), info);
        using Logic = decltype(logic);
        if constexpr (!std::is_invocable_v<Logic&, OperatorInputCore<T, CIn>&, OperatorOutputCore<T, CB>&>) {
          static_assert(
              std::is_invocable_v<Logic&, OperatorInputCore<T, CIn>&, OperatorOutputCore<T, CB>&>,
              "timely::unary/unary_frontier: the logic the constructor returns must be callable as "
              "logic(OperatorInput<T, In>&, OperatorOutput<T, Out>&), where In is the record type of "
              "the input stream and Out the operator's output type (for other containers: "
              "OperatorInputCore<T, C>& and OperatorOutputCore<T, Builder>&)");
          return [] {};
        } else {
          return [logic = std::move(logic), input = std::move(input),
                  output = std::move(made.handle)]() mutable { logic(input, output); };
        }
      }
    });
    return std::move(made.stream);
  }
};

template <class Pact, class Ctor>
struct Sink {
  Pact pact;
  std::string name;
  Ctor ctor;

  template <Timestamp T, class CIn>
  void operator()(const StreamCore<T, CIn>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), name);
    auto input = builder.new_input(stream, pact);
    OperatorInfo info{builder.index(), builder.global(), builder.activator(), builder.sync_activator()};
    builder.build([&](std::vector<Capability<T>>) {
      Ctor make = ctor;
      if constexpr (!std::is_invocable_v<Ctor&, const OperatorInfo&>) {
        static_assert(
            std::is_invocable_v<Ctor&, const OperatorInfo&>,
            "timely::sink: the constructor must be callable as ctor(const OperatorInfo&) and return "
            "the logic");
        return [] {};
      } else {
        auto logic = make(info);
        if constexpr (!std::is_invocable_v<decltype(logic)&, OperatorInputCore<T, CIn>&>) {
          static_assert(std::is_invocable_v<decltype(logic)&, OperatorInputCore<T, CIn>&>,
                        "timely::sink: the logic the constructor returns must be callable as "
                        "logic(OperatorInput<T, In>&), where In is the record type of the input stream");
          return [] {};
        } else {
          return [logic = std::move(logic), input = std::move(input)]() mutable { logic(input); };
        }
      }
    });
  }
};

template <class DOut, Timestamp T, class C2, class P1, class P2, class Ctor>
struct Binary {
  using CB = container::BuilderFor<DOut>;
  StreamCore<T, C2> other;
  P1 pact1;
  P2 pact2;
  std::string name;
  Ctor ctor;
  progress::FrontierInterest interest;

  template <class C1>
  StreamCore<T, typename CB::Container> operator()(const StreamCore<T, C1>& stream) const {
    OperatorBuilder<T> builder(stream.scope(), name);
    auto in1 = builder.new_input(stream, pact1);
    auto in2 = builder.new_input(other, pact2);
    auto made = builder.template new_output<DOut>();
    builder.set_notify(0, interest);
    builder.set_notify(1, interest);
    OperatorInfo info{builder.index(), builder.global(), builder.activator(), builder.sync_activator()};
    builder.build([&](std::vector<Capability<T>> caps) {
      Ctor make = ctor;
      if constexpr (!std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>) {
        static_assert(std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>,
                      "timely::binary/binary_frontier: the constructor must be callable as "
                      "ctor(Capability<T>, const OperatorInfo&) and return the logic");
        return [] {};
      } else {
        auto logic = make(std::move(caps[0]), info);
        using Logic = decltype(logic);
        if constexpr (!std::is_invocable_v<Logic&, OperatorInputCore<T, C1>&, OperatorInputCore<T, C2>&,
                                           OperatorOutputCore<T, CB>&>) {
          static_assert(
              std::is_invocable_v<Logic&, OperatorInputCore<T, C1>&, OperatorInputCore<T, C2>&,
                                  OperatorOutputCore<T, CB>&>,
              "timely::binary/binary_frontier: the logic the constructor returns must be callable as "
              "logic(OperatorInput<T, In1>&, OperatorInput<T, In2>&, OperatorOutput<T, Out>&), where "
              "In1 and In2 are the record types of the input streams");
          return [] {};
        } else {
          return [logic = std::move(logic), in1 = std::move(in1), in2 = std::move(in2),
                  output = std::move(made.handle)]() mutable { logic(in1, in2, output); };
        }
      }
    });
    return std::move(made.stream);
  }
};

}  // namespace detail

/// A one-input, one-output operator producing records of type `DOut`, scheduled on every
/// frontier change of its input as well as on data. `ctor(Capability<T> initial, OperatorInfo)`
/// returns `logic(OperatorInput<T, DIn>&, OperatorOutput<T, DOut>&)` (for other containers
/// `OperatorInputCore<T, C>&` and `OperatorOutputCore<T, Builder>&`; `DOut` may name a container
/// builder, see the file comment). Drop `initial` unless you
/// need to send at the minimum time without input; keep capabilities for times you still owe
/// output at, and release them once the frontier has passed.
template <class DOut, class Pact, class Ctor>
auto unary_frontier(Pact pact, std::string name, Ctor ctor) {
  return detail::Unary<DOut, Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor),
                                         progress::FrontierInterest::Always};
}

/// Like `unary_frontier`, but frontier changes do not schedule the operator: it runs only when
/// data arrives or it is activated. Capabilities it keeps are only released when it runs.
template <class DOut, class Pact, class Ctor>
auto unary(Pact pact, std::string name, Ctor ctor) {
  return detail::Unary<DOut, Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor),
                                         progress::FrontierInterest::Never};
}

/// A two-input operator producing `DOut`, scheduled on data and on frontier changes of either
/// input: `stream | binary_frontier<DOut>(other, pact1, pact2, name, ctor)`, where
/// `ctor(Capability<T>, OperatorInfo)` returns `logic(OperatorInput<T, D1>&,
/// OperatorInput<T, D2>&, OperatorOutput<T, DOut>&)`.
template <class DOut, Timestamp T, class C2, class P1, class P2, class Ctor>
auto binary_frontier(StreamCore<T, C2> other, P1 pact1, P2 pact2, std::string name, Ctor ctor) {
  return detail::Binary<DOut, T, C2, P1, P2, Ctor>{std::move(other), std::move(pact1),
                                                   std::move(pact2), std::move(name),
                                                   std::move(ctor),  progress::FrontierInterest::Always};
}

/// Like `binary_frontier`, but scheduled only on data or explicit activation.
template <class DOut, Timestamp T, class C2, class P1, class P2, class Ctor>
auto binary(StreamCore<T, C2> other, P1 pact1, P2 pact2, std::string name, Ctor ctor) {
  return detail::Binary<DOut, T, C2, P1, P2, Ctor>{std::move(other), std::move(pact1),
                                                   std::move(pact2), std::move(name),
                                                   std::move(ctor),  progress::FrontierInterest::Never};
}

/// A one-input operator with a notificator: `logic(OperatorInput<T, DIn>&,
/// OperatorOutput<T, DOut>&, Notificator<T>&)` runs on data and frontier changes; the operator
/// first requests a notification at each of `initial_times` (all `>= minimum`). A request for
/// a time that is already complete activates the operator (notificator.hpp), so it is
/// delivered even if no frontier moves again.
template <class DOut, class Pact, class Logic, Timestamp T = std::uint64_t>
auto unary_notify(Pact pact, std::string name, std::vector<T> initial_times, Logic logic) {
  return unary_frontier<DOut>(
      std::move(pact), std::move(name),
      [times = std::move(initial_times), logic = std::move(logic)](auto cap, const OperatorInfo&) mutable {
        using TimeType = std::decay_t<decltype(cap.time())>;
        FrontierNotificator<TimeType> notificator;
        for (const auto& t : times) notificator.notify_at(cap.delayed(t));
        return [logic, notificator = std::move(notificator)](auto& input, auto& output) mutable {
          Notificator<TimeType> n(notificator, {&input.frontier()});
          logic(input, output, n);
        };
      });
}

/// A two-input operator with a notificator over both inputs' frontiers:
/// `logic(OperatorInput<T, D1>&, OperatorInput<T, D2>&, OperatorOutput<T, DOut>&, Notificator<T>&)`;
/// a request for a complete time activates it, as in `unary_notify`.
template <class DOut, Timestamp T, class C2, class P1, class P2, class Logic>
auto binary_notify(StreamCore<T, C2> other, P1 pact1, P2 pact2, std::string name,
                   std::vector<T> initial_times, Logic logic) {
  return binary_frontier<DOut>(
      std::move(other), std::move(pact1), std::move(pact2), std::move(name),
      [times = std::move(initial_times), logic = std::move(logic)](auto cap, const OperatorInfo&) mutable {
        FrontierNotificator<T> notificator;
        for (const auto& t : times) notificator.notify_at(cap.delayed(t));
        return [logic, notificator = std::move(notificator)](auto& in1, auto& in2, auto& output) mutable {
          Notificator<T> n(notificator, {&in1.frontier(), &in2.frontier()});
          logic(in1, in2, output, n);
        };
      });
}

/// An operator with no inputs and one output of `DOut`: `source<DOut>(scope, name, ctor)`, where
/// `ctor(Capability<T>, OperatorInfo)` returns `logic(OperatorOutput<T, DOut>&)`. It runs once
/// at the start and afterwards only when activated (`info.activator`), so logic with more to do
/// must activate itself; it completes once it holds no capability.
template <class DOut, Timestamp T, class Ctor>
StreamCore<T, typename container::BuilderFor<DOut>::Container> source(Scope<T>& scope, std::string name,
                                                                      Ctor ctor) {
  OperatorBuilder<T> builder(scope, std::move(name));
  auto made = builder.template new_output<DOut>();
  OperatorInfo info{builder.index(), builder.global(), builder.activator(), builder.sync_activator()};
  builder.build([&](std::vector<Capability<T>> caps) {
    if constexpr (!std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>) {
      static_assert(std::is_invocable_v<Ctor&, Capability<T>, const OperatorInfo&>,
                    "timely::source: the constructor must be callable as ctor(Capability<T>, const "
                    "OperatorInfo&) and return the logic");
      return [] {};
    } else {
      auto logic = ctor(std::move(caps[0]), info);
      if constexpr (!std::is_invocable_v<decltype(logic)&,
                                         OperatorOutputCore<T, container::BuilderFor<DOut>>&>) {
        static_assert(
            std::is_invocable_v<decltype(logic)&, OperatorOutputCore<T, container::BuilderFor<DOut>>&>,
            "timely::source: the logic the constructor returns must be callable as "
            "logic(OperatorOutput<T, Out>&)");
        return [] {};
      } else {
        return [logic = std::move(logic), output = std::move(made.handle)]() mutable { logic(output); };
      }
    }
  });
  return std::move(made.stream);
}

/// A one-input operator without outputs, scheduled on data and frontier changes.
/// `ctor(OperatorInfo)` returns `logic(OperatorInput<T, DIn>&)`.
template <class Pact, class Ctor>
auto sink(Pact pact, std::string name, Ctor ctor) {
  return detail::Sink<Pact, Ctor>{std::move(pact), std::move(name), std::move(ctor)};
}

}  // namespace timely::dataflow::operators
