/// \file
/// `Scope<T>`: the handle user code builds operators against, with `scoped`, `iterative` and
/// `region` to nest scopes. What a scope records and how a built scope runs are in
/// progress/subgraph.hpp.
///
/// A scope's operators are numbered 1..n in creation order; index 0 is the scope boundary. A
/// nested scope (`scoped`, `iterative`, `region`) presents itself to its parent as one operator
/// whose inputs and outputs are the streams that `enter` and `leave` it.
///
/// Source: the reference's `dataflow::scopes` (SEMANTICS.md §3.6, §5.3).
/// Thread-safety: none; a scope belongs to its worker thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <timely/progress/subgraph.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker_state.hpp>

namespace timely::dataflow {

/// The handle user code builds operators against: a scope with timestamp type `T`. Cheap to
/// copy; valid while the dataflow is being built.
template <Timestamp T>
class Scope {
 public:
  using Timestamp = T;
  explicit Scope(progress::SubgraphBuilder<T>& builder) : builder_(&builder) {}

  /// This worker's index and the number of workers.
  [[nodiscard]] std::size_t index() const noexcept { return builder_->worker().index(); }
  [[nodiscard]] std::size_t peers() const noexcept { return builder_->worker().peers(); }
  [[nodiscard]] WorkerState& worker() const noexcept { return builder_->worker(); }
  [[nodiscard]] progress::SubgraphBuilder<T>& builder() const noexcept { return *builder_; }
  [[nodiscard]] const scheduling::Path& address() const noexcept { return builder_->address(); }
  /// The address of operator `index` of this scope.
  [[nodiscard]] scheduling::Path address_of(std::size_t index) const {
    auto path = builder_->address();
    path.push_back(index);
    return path;
  }
  /// This scope's index in its parent (the last element of its address).
  [[nodiscard]] std::size_t index_in_parent() const { return builder_->address().back(); }
  /// Whether this scope is a direct child of `outer`.
  template <class Outer>
  [[nodiscard]] bool is_child_of(const Scope<Outer>& outer) const noexcept {
    return builder_->parent() == static_cast<const void*>(&outer.builder());
  }
  friend bool operator==(const Scope& a, const Scope& b) noexcept { return a.builder_ == b.builder_; }

  /// Builds a nested scope with timestamps `TInner` (which must refine `T`): calls
  /// `build(Scope<TInner>&)`, then installs the scope as one operator of this scope. Streams
  /// move in and out with `enter` and `leave`. Returns what `build` returns.
  /// \throws BuildError if the nested scope is malformed.
  template <timely::Timestamp TInner, class F>
  requires RefinesTo<TInner, T>
  decltype(auto) scoped(std::string name, F&& build);

  /// `scoped` with `Product<T, TInner>` timestamps: a loop counter for iterative computation.
  template <timely::Timestamp TInner, class F>
  decltype(auto) iterative(F&& build) {
    return scoped<Product<T, TInner>>("Iterative", std::forward<F>(build));
  }

  /// `scoped` with the same timestamps: groups operators into one unit of scheduling and
  /// progress tracking.
  template <class F>
  decltype(auto) region(F&& build) {
    return scoped<T>("Region", std::forward<F>(build));
  }

 private:
  progress::SubgraphBuilder<T>* builder_;
};

// ---------------------------------------------------------------------------------------------

template <Timestamp T>
template <timely::Timestamp TInner, class F>
requires RefinesTo<TInner, T>
decltype(auto) Scope<T>::scoped(std::string name, F&& build) {
  const std::size_t index = builder_->reserve_operator();
  const std::size_t global = worker().new_identifier();
  progress::SubgraphBuilder<TInner> child(worker(), address_of(index), std::move(name), global, builder_);
  Scope<TInner> inner(child);
  auto install = [&] {
    builder_->add_operator(index, global, progress::build_subgraph<T, TInner>(std::move(child)));
  };
  if constexpr (std::is_void_v<std::invoke_result_t<F&, Scope<TInner>&>>) {
    build(inner);
    install();
  } else {
    auto result = build(inner);
    install();
    return result;
  }
}

}  // namespace timely::dataflow
