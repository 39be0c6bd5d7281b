/// \file
/// A flow-controlled source: `iterator_source(scope, name, pull, probe)` asks the user's `pull`
/// closure for more records only once `probe` has caught up with the target the previous call
/// named, so a large (or endless) input enters the dataflow a bounded slice at a time instead of
/// all at once.
///
/// Use (each worker reads its own part of some input; at most about one time's worth of records
/// is outstanding):
///     timely::ProbeHandle<std::uint64_t> probe;
///     iterator_source(scope, "Source", [&](const std::uint64_t& now)
///         -> std::optional<IteratorSourceInput<std::uint64_t, Batches>> {
///       if (exhausted) return std::nullopt;                      // drop the capability: done
///       return IteratorSourceInput<std::uint64_t, Batches>{
///           .lower_bound = now, .data = next_batches(), .target = now};
///     }, probe) | ... | probe_with(probe);
///
/// The closure is called as `pull(const T& now)`, where `now` is the time of the capability the
/// source holds (the least time it may still send at), and returns
/// `std::optional<IteratorSourceInput<T, Batches>>`:
///   - `std::nullopt`: the input is exhausted; the source drops its capability and completes.
///   - `data`: a range of `(time, records)` pairs (anything `auto&& [time, records]` binds),
///     each `records` a range of `D`. Times must not decrease, neither within `data` nor below
///     `now`; the source moves its capability to each time before sending its records.
///   - `lower_bound`: no later call will send before it; the capability moves up to it (never
///     back) once `data` has been sent, so downstream frontiers advance without any records.
///   - `target`: the closure is not called again until the probe's frontier has reached it
///     (`!probe.less_than(target)`). Naming `now` means "wait until everything before the time I
///     hold is complete", the usual choice.
/// After a call that sent records the source asks again at once if the probe already allows it;
/// after a call with no records it waits for its next scheduling. It schedules itself in every
/// step while it holds its capability (busy polling, like the reference: probes do not activate
/// operators), and yields after about 256 batches of records in one scheduling so that the rest of
/// the dataflow runs between slices of an input that the probe never holds back.
///
/// Shapes: `D` is deduced as the value type of `records`; `T` must be totally ordered (times are
/// compared with `<` and the probe's `less_than`). Each worker has its own source and closure:
/// the closure decides which part of the input its worker reads. The probe is usually attached
/// downstream of the source with `probe_with`; it may watch any streams.
///
/// \throws CapabilityError from the worker's `step()` if `data` holds a time before the source's
/// current time (times went backwards); whatever `pull` throws propagates the same way.
///
/// Source of the idea: the reference's `dataflow::operators::flow_controlled::iterator_source`
/// and its `IteratorSourceInput`.
/// Thread-safety: none; the source and its closure run on their worker thread.
#pragma once

#include <cstddef>
#include <optional>
#include <ranges>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include <timely/container/container.hpp>
#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

/// What an `iterator_source` closure returns for one call (see iterator_source.hpp).
/// `Batches` is a range of `(T, records)` pairs, `records` a range of the stream's records.
template <Timestamp T, class Batches>
struct IteratorSourceInput {
  /// No later call sends records before this time; the source's capability moves up to it.
  T lower_bound = timely::minimum<T>();
  /// The records, as `(time, records)` pairs with non-decreasing times.
  Batches data{};
  /// The closure is called again only once the probe's frontier is not before this time.
  T target = timely::minimum<T>();
};

namespace detail {

template <class R>
struct IteratorSourceResult : std::false_type {};
template <Timestamp T, class Batches>
struct IteratorSourceResult<std::optional<IteratorSourceInput<T, Batches>>> : std::true_type {
  using Time = T;
  using Pair = std::ranges::range_value_t<Batches>;
  using Records = std::remove_cvref_t<std::tuple_element_t<1, Pair>>;
  using Data = std::ranges::range_value_t<Records>;
};

/// Throws, out of line of the sending loop, when the closure's times went backwards.
template <Timestamp T>
[[noreturn]] void iterator_source_backwards(const std::string& name, const T& time, const T& now) {
  throw CapabilityError("timely: iterator_source '" + name + "' was given records at time " + describe(time) +
                        ", before its current time " + describe(now) + "; times must not decrease");
}

/// The source's logic: holds the closure, the probe, the capability (until the closure is
/// exhausted), the target of the last call and the operator's activator.
template <Timestamp T, class D, class F>
class IteratorSourceLogic {
 public:
  IteratorSourceLogic(std::string name, F pull, ProbeHandle<T> probe, Capability<T> cap,
                      scheduling::Activator activator)
      : name_(std::move(name)),
        pull_(std::move(pull)),
        probe_(std::move(probe)),
        cap_(std::move(cap)),
        activator_(std::move(activator)) {}

  void operator()(OperatorOutput<T, D>& output) {
    if (!cap_) return;
    // Records sent in this scheduling, counted to yield after a bounded amount of work.
    const std::size_t budget = 256 * container::default_capacity<D>();
    std::size_t sent = 0;
    while (sent < budget && !probe_.less_than(target_)) {
      auto input = pull_(std::as_const(cap_->time()));
      if (!input) {
        cap_.reset();  // exhausted: the stream completes once what was sent is consumed
        return;
      }
      target_ = std::move(input->target);
      bool has_data = false;
      for (auto&& [time, records] : input->data) {
        if (time < cap_->time()) iterator_source_backwards(name_, time, cap_->time());
        if (cap_->time() < time) cap_->downgrade(time);
        auto session = output.session(*cap_);
        for (auto&& record : records) {
          session.give(D(std::forward<decltype(record)>(record)));
          ++sent;
        }
        has_data = true;
      }
      if (cap_->time() < input->lower_bound) cap_->downgrade(input->lower_bound);
      if (!has_data) break;  // nothing now: ask again in the next scheduling
    }
    activator_.activate();  // busy polling while the capability is held
  }

 private:
  std::string name_;
  F pull_;
  ProbeHandle<T> probe_;
  std::optional<Capability<T>> cap_;
  T target_ = timely::minimum<T>();
  scheduling::Activator activator_;
};

}  // namespace detail

namespace operators {

/// A source that calls `pull(const T& now)` for records whenever `probe` has reached the
/// target of the previous call (see the file comment). Returns the stream of records.
/// \throws CapabilityError from `step()` if `pull` gives records at a time before `now`.
template <Timestamp T, class F>
requires TotalOrder<T>
auto iterator_source(Scope<T>& scope, std::string name, F pull, ProbeHandle<T> probe) {
  using Result = std::remove_cvref_t<std::invoke_result_t<F&, const T&>>;
  using Traits = dataflow::detail::IteratorSourceResult<Result>;
  static_assert(Traits::value,
                "iterator_source: the closure must be callable as pull(const T& now) and return "
                "std::optional<IteratorSourceInput<T, Batches>>, Batches a range of (T, range of records)");
  static_assert(std::is_same_v<typename Traits::Time, T>,
                "iterator_source: the closure's IteratorSourceInput must use the scope's timestamp type");
  using D = typename Traits::Data;

  return source<D>(scope, name,
                   [pull = std::move(pull), probe = std::move(probe), name](
                       Capability<T> initial, const OperatorInfo& info) mutable {
                     return dataflow::detail::IteratorSourceLogic<T, D, F>(
                         std::move(name), std::move(pull), std::move(probe), std::move(initial),
                         info.activator);
                   });
}

}  // namespace operators
}  // namespace timely::dataflow
