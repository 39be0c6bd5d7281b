/// \file
/// Probes: `ProbeHandle<T>` reports the frontier of the streams it watches, so a program can
/// wait until a time is complete (`while (probe.less_than(input.time())) worker.step();`).
/// `probe_with(handle)` attaches a handle to a stream and passes the stream through; `probe()`
/// creates a fresh handle (`auto handle = stream | probe();`).
///
/// A handle starts holding the minimum time for each stream it watches until the probe first
/// runs, so it never reports a time complete too early. One handle on several streams reports
/// their combined frontier.
///
/// Source: the reference's `dataflow::operators::probe` (SEMANTICS.md §6 "Inspection").
/// Thread-safety: none; read a handle on its worker thread.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/progress/frontier.hpp>

namespace timely::dataflow {

/// The frontier of the streams a probe watches.
template <Timestamp T>
class ProbeHandle {
 public:
  ProbeHandle() : frontier_(std::make_shared<progress::MutableAntichain<T>>()) {}

  /// Some time strictly less than `time` may still appear (the times before `time` are not all
  /// complete yet).
  [[nodiscard]] bool less_than(const T& time) const { return frontier_->less_than(time); }
  /// Some time less than or equal to `time` may still appear: `time` itself is not complete.
  [[nodiscard]] bool less_equal(const T& time) const { return frontier_->less_equal(time); }
  /// Every watched stream is complete (the frontier is empty).
  [[nodiscard]] bool done() const { return frontier_->empty(); }
  /// Calls `f(const progress::Antichain<T>&)` with the current frontier.
  template <class F>
  decltype(auto) with_frontier(F&& f) const {
    return f(frontier_->frontier());
  }

  /// The shared frontier (for probe operators).
  [[nodiscard]] const std::shared_ptr<progress::MutableAntichain<T>>& shared() const noexcept {
    return frontier_;
  }

 private:
  std::shared_ptr<progress::MutableAntichain<T>> frontier_;
};

namespace operators {

namespace detail {
template <Timestamp T>
struct ProbeWith {
  ProbeHandle<T> handle;
  template <class C>
  StreamCore<T, C> operator()(const StreamCore<T, C>& stream) const {
    using CB = container::CapacityContainerBuilder<C>;
    auto shared = handle.shared();
    // Conservative until the probe first runs.
    shared->update(timely::minimum<T>(), 1, [](const T&, std::int64_t) {});
    return stream | unary_frontier<CB>(Pipeline{}, "Probe", [shared](auto, const auto&) {
             return [shared, seen = progress::Antichain<T>(timely::minimum<T>())](
                        OperatorInputCore<T, C>& input, OperatorOutputCore<T, CB>& output) mutable {
               input.for_each(
                   [&](const InputCapability<T>& cap, C& data) { output.session(cap).give_container(data); });
               const auto& now = input.frontier().frontier();
               if (!(now == seen)) {
                 std::vector<std::pair<T, std::int64_t>> changes;
                 for (const auto& t : seen) changes.emplace_back(t, -1);
                 for (const auto& t : now) changes.emplace_back(t, 1);
                 shared->update_iter(changes);
                 seen = now;
               }
             };
           });
  }
};

struct Probe {
  template <Timestamp T, class C>
  ProbeHandle<T> operator()(const StreamCore<T, C>& stream) const {
    ProbeHandle<T> handle;
    stream | ProbeWith<T>{handle};
    return handle;
  }
};
}  // namespace detail

/// Watches the stream with `handle` and passes it through.
template <Timestamp T>
auto probe_with(const ProbeHandle<T>& handle) {
  return detail::ProbeWith<T>{handle};
}

/// Watches the stream with a new handle, which it returns.
inline auto probe() { return detail::Probe{}; }

}  // namespace operators
}  // namespace timely::dataflow
