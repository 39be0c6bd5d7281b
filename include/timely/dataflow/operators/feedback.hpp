/// \file
/// Cycles: `feedback<D>(scope, summary)` returns a `FeedbackHandle` and a stream; connecting a
/// stream to the handle (`stream | connect_loop(handle)`) sends its records around to the
/// feedback stream with their times advanced by `summary`. A record whose advanced time does not
/// exist (the summary overflows) is dropped, as in the reference; its consumption still counts.
/// `loop_variable<D>(inner, step)` is `feedback` in an iterative scope with summary
/// `(identity, step)`: one more round of the loop.
///
/// Every cycle must contain a feedback edge whose summary strictly advances time; a scope with a
/// cycle that does not is rejected when it is built (`BuildError`).
///
/// Source: Naiad §2.2 (loop contexts, feedback vertices) and the reference's
/// `dataflow::operators::feedback` (SEMANTICS.md §6 "Loops and scopes"). Thread-safety: none.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/frontier.hpp>

namespace timely::dataflow {

/// The end of a cycle that a stream connects to. Connect it exactly once; a scope with an
/// unconnected feedback edge cannot be built.
template <Timestamp T, class C>
class FeedbackHandle {
 public:
  FeedbackHandle(std::shared_ptr<OperatorBuilder<T>> builder,
                 OperatorOutputCore<T, container::CapacityContainerBuilder<C>> output, SummaryOf<T> summary)
      : builder_(std::move(builder)), output_(std::move(output)), summary_(std::move(summary)) {}

  /// Sends the records of `stream` around the cycle.
  /// \throws BuildError if the handle was already connected or `stream` is in another scope.
  void connect_loop(const StreamCore<T, C>& stream) {
    if (!builder_) throw BuildError("connect_loop: this feedback edge is already connected");
    auto builder = std::move(builder_);
    // The one input reaches the one output along the loop's summary, not the identity.
    auto input =
        builder->new_input_connection(stream, Pipeline{}, {{0, progress::Antichain<SummaryOf<T>>(summary_)}});
    builder->set_notify(0, progress::FrontierInterest::Never);
    builder->build([&](std::vector<Capability<T>>) {
      return [input = std::move(input), output = std::move(output_), summary = summary_]() mutable {
        input.for_each([&](const InputCapability<T>& cap, C& data) {
          if (auto next = timely::results_in<T>(summary, cap.time())) {
            auto advanced = cap.delayed(*next);
            output.session(advanced).give_container(data);
          }  // else: no such time; the records leave the computation here
        });
      };
    });
  }

 private:
  std::shared_ptr<OperatorBuilder<T>> builder_;
  OperatorOutputCore<T, container::CapacityContainerBuilder<C>> output_;
  SummaryOf<T> summary_;
};

namespace operators {

/// A cycle in `scope` whose records advance by `summary`: returns the handle to connect the
/// cycle's end to, and the stream of records coming around.
template <class Out, Timestamp T, class C = typename container::BuilderFor<Out>::Container>
std::pair<FeedbackHandle<T, C>, StreamCore<T, C>> feedback(Scope<T>& scope, SummaryOf<T> summary) {
  auto builder = std::make_shared<OperatorBuilder<T>>(scope, "Feedback");
  auto made = builder->template new_output<container::CapacityContainerBuilder<C>>();
  return {FeedbackHandle<T, C>(std::move(builder), std::move(made.handle), std::move(summary)),
          std::move(made.stream)};
}

/// `feedback` in an iterative scope, advancing the loop counter by `step` (default 1).
template <class Out, Timestamp TOuter, Timestamp TInner,
          class C = typename container::BuilderFor<Out>::Container>
std::pair<FeedbackHandle<Product<TOuter, TInner>, C>, StreamCore<Product<TOuter, TInner>, C>> loop_variable(
    Scope<Product<TOuter, TInner>>& scope, SummaryOf<TInner> step = SummaryOf<TInner>{1}) {
  return feedback<Out>(scope, SummaryOf<Product<TOuter, TInner>>{SummaryOf<TOuter>{}, step});
}

namespace detail {
template <Timestamp T, class C>
struct ConnectLoop {
  FeedbackHandle<T, C>* handle;
  void operator()(const StreamCore<T, C>& stream) const { handle->connect_loop(stream); }
};
}  // namespace detail

/// `stream | connect_loop(handle)`: closes the cycle.
template <Timestamp T, class C>
auto connect_loop(FeedbackHandle<T, C>& handle) {
  return detail::ConnectLoop<T, C>{&handle};
}

}  // namespace operators
}  // namespace timely::dataflow
