/// \file
/// Moving streams into and out of nested scopes: `enter(inner)` turns a stream of the parent
/// scope into a stream of the child scope `inner` (times mapped with `Refines::to_inner`, e.g.
/// `t -> (t, 0)` for an iterative scope), and `leave(outer)` turns a stream of a child scope back
/// into a stream of its parent `outer` (times mapped with `Refines::to_outer`, dropping the loop
/// counter). Streams must cross every scope boundary this way, even when the timestamps match.
///
/// Use: `scope.iterative<std::uint64_t>([&](auto& inner) { return stream | enter(inner) | ... |
/// leave(scope); })`.
///
/// Source: the reference's `dataflow::operators::enterleave` (SEMANTICS.md §3.6 "Boundary data
/// plumbing"). Thread-safety: none.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include <timely/dataflow/message.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/error.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

namespace detail {

/// Carries records into a nested scope: maps times inward, counts records per inner time for
/// the scope's progress accounting, and activates the scope when data arrived.
template <Timestamp TOuter, Timestamp TInner, class C>
class IngressPusher final : public MessagePush<TOuter, C> {
 public:
  IngressPusher(std::shared_ptr<Tee<TInner, C>> tee, std::shared_ptr<progress::ChangeBatch<TInner>> entered,
                scheduling::Activator scope)
      : tee_(std::move(tee)), entered_(std::move(entered)), scope_(std::move(scope)) {}
  void push(std::optional<Message<TOuter, C>>& element) override {
    if (!element) {
      tee_->done();
      if (seen_) scope_.activate();
      seen_ = false;
      return;
    }
    Message<TInner, C> message;
    message.time = Refines<TInner, TOuter>::to_inner(element->time);
    message.data = std::move(element->data);
    message.from = element->from;
    message.seq = element->seq;
    element.reset();
    entered_->update(message.time, static_cast<std::int64_t>(container::record_count(message.data)));
    tee_->push(std::move(message));
    seen_ = true;
  }

 private:
  std::shared_ptr<Tee<TInner, C>> tee_;
  std::shared_ptr<progress::ChangeBatch<TInner>> entered_;
  scheduling::Activator scope_;
  bool seen_ = false;
};

/// Carries records out of a nested scope: maps times outward. The records are already counted
/// as produced at the scope output by the operator inside that sent them.
template <Timestamp TOuter, Timestamp TInner, class C>
class EgressPusher final : public MessagePush<TInner, C> {
 public:
  explicit EgressPusher(std::shared_ptr<Tee<TOuter, C>> tee) : tee_(std::move(tee)) {}
  void push(std::optional<Message<TInner, C>>& element) override {
    if (!element) {
      tee_->done();
      return;
    }
    Message<TOuter, C> message;
    message.time = Refines<TInner, TOuter>::to_outer(element->time);
    message.data = std::move(element->data);
    message.from = element->from;
    message.seq = element->seq;
    element.reset();
    tee_->push(std::move(message));
  }

 private:
  std::shared_ptr<Tee<TOuter, C>> tee_;
};

}  // namespace detail

namespace operators {

namespace detail {

template <Timestamp TInner>
struct Enter {
  Scope<TInner> inner;
  template <Timestamp TOuter, class C>
  StreamCore<TInner, C> operator()(const StreamCore<TOuter, C>& stream) const {
    static_assert(RefinesTo<TInner, TOuter>, "enter: the inner scope's timestamps must refine the stream's");
    if (!inner.is_child_of(stream.scope()))
      throw BuildError("enter: scope '" + inner.builder().name() +
                       "' is not a direct child of the stream's scope");
    auto [port, entered] = inner.builder().new_input();
    auto tee = std::make_shared<Tee<TInner, C>>();
    scheduling::Activator activator(inner.worker().activations(), inner.address());
    const std::size_t channel = inner.worker().new_identifier();
    stream.connect_to(
        progress::Target{inner.index_in_parent(), port},
        logged_boundary<TOuter, C>(
            inner.worker(), channel,
            std::make_unique<dataflow::detail::IngressPusher<TOuter, TInner, C>>(tee, entered, activator)),
        channel);
    return StreamCore<TInner, C>(inner, progress::Source{0, port}, tee);
  }
};

template <Timestamp TOuter>
struct Leave {
  Scope<TOuter> outer;
  template <Timestamp TInner, class C>
  StreamCore<TOuter, C> operator()(const StreamCore<TInner, C>& stream) const {
    static_assert(RefinesTo<TInner, TOuter>, "leave: the stream's timestamps must refine the outer scope's");
    if (!stream.scope().is_child_of(outer))
      throw BuildError("leave: the stream's scope '" + stream.scope().builder().name() +
                       "' is not a direct child of the given scope");
    const auto port = stream.scope().builder().new_output();
    auto tee = std::make_shared<Tee<TOuter, C>>();
    const std::size_t channel = outer.worker().new_identifier();
    stream.connect_to(
        progress::Target{0, port},
        logged_boundary<TInner, C>(outer.worker(), channel,
                                   std::make_unique<dataflow::detail::EgressPusher<TOuter, TInner, C>>(tee)),
        channel);
    return StreamCore<TOuter, C>(outer, progress::Source{stream.scope().index_in_parent(), port}, tee);
  }
};

}  // namespace detail

/// Moves a stream of the parent scope into the child scope `inner`.
/// \throws BuildError if `inner` is not a direct child of the stream's scope.
template <Timestamp TInner>
auto enter(const Scope<TInner>& inner) {
  return detail::Enter<TInner>{inner};
}

/// Moves a stream of a child scope out to its parent `outer`.
/// \throws BuildError if the stream's scope is not a direct child of `outer`.
template <Timestamp TOuter>
auto leave(const Scope<TOuter>& outer) {
  return detail::Leave<TOuter>{outer};
}

}  // namespace operators
}  // namespace timely::dataflow
