/// \file
/// Unordered inputs: `new_unordered_input<D>(scope)` creates an input whose user sends records
/// at *any* times it holds capabilities for, in any order, and releases those times whenever it
/// likes. It returns an `UnorderedInput<T, D>`: the `UnorderedHandle` to send with, an initial
/// `ActivateCapability` at `minimum<T>()`, and the stream; `std::move(input).feed()` keeps the
/// first two as an `UnorderedFeed` for after the dataflow is built.
///
/// Use:
///     auto feed = worker.dataflow<T>([&](auto& scope) {
///       auto input = new_unordered_input<std::string>(scope);
///       input.stream | ...;
///       return std::move(input).feed();
///     });
///     auto at5 = feed.capability.delayed(5), at3 = feed.capability.delayed(3);
///     feed.capability.reset();                       // release the minimum
///     feed.handle.session(at5).give("late");         // times in any order
///     feed.handle.session(at3).give("early");
///     at3.reset(); at5.reset();                      // the frontier moves to 5, then empties
///
/// Unlike `InputHandle`, timestamps need not be totally ordered, and nothing is implied by the
/// order of sends: the frontier is exactly what the held capabilities allow. Each worker has its
/// own handle and capabilities; the stream's frontier is the minimum over all workers'.
///
/// `ActivateCapability<T>` (SEMANTICS.md §4.3) is a capability together with the activator of
/// the operator that minted it: downgrading, resetting or destroying it schedules that operator,
/// so the change reaches progress tracking promptly without the operator polling. Sessions from
/// `UnorderedHandle` also activate the operator when they end, so that what they sent is
/// reported (and flushed downstream) in the next step.
///
/// Source of the idea: the reference's `dataflow::operators::unordered_input` and
/// `ActivateCapability` (SEMANTICS.md §4.3, §6 "Sources and inputs").
/// Thread-safety: none; use handles and capabilities on the worker thread that built them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/describe.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

/// A `Capability<T>` that activates its operator whenever it changes or is released.
///
/// Holds the capability (or nothing, once reset or moved from) and an `Activator`. Copying
/// copies the capability (+1 at its time). \throws CapabilityError from `delayed`/`downgrade`
/// to a time not `>=` its own, or when used after `reset()`.
template <Timestamp T>
class ActivateCapability {
 public:
  ActivateCapability(Capability<T> capability, scheduling::Activator activator)
      : capability_(std::move(capability)), activator_(std::move(activator)) {}
  ActivateCapability(const ActivateCapability&) = default;
  ActivateCapability(ActivateCapability&& other) noexcept
      : capability_(std::move(other.capability_)), activator_(other.activator_) {
    other.capability_.reset();
  }
  ActivateCapability& operator=(ActivateCapability other) noexcept {
    swap(other);
    return *this;  // the old value, now in `other`, activates as it goes
  }
  ~ActivateCapability() { reset(); }

  /// Whether it still holds a capability.
  [[nodiscard]] bool valid() const noexcept { return capability_.has_value() && capability_->valid(); }
  /// The time it allows sending at. \throws CapabilityError if released.
  [[nodiscard]] const T& time() const { return get().time(); }
  /// The underlying capability (for output sessions). \throws CapabilityError if released.
  [[nodiscard]] const Capability<T>& capability() const { return get(); }

  /// A new activating capability at `time` for the same operator.
  /// \throws CapabilityError unless `this->time() <= time`.
  [[nodiscard]] ActivateCapability delayed(const T& time) const {
    return ActivateCapability(get().delayed(time), activator_);
  }
  /// Moves forward to `time` and activates the operator.
  /// \throws CapabilityError unless `this->time() <= time` (nothing changes then).
  void downgrade(const T& time) {
    if (!valid()) throw CapabilityError("timely: downgrade of a released ActivateCapability");
    capability_->downgrade(time);
    activator_.activate();
  }
  /// Releases the capability (if held) and activates the operator. Idempotent.
  void reset() noexcept {
    if (capability_) {
      const bool held = capability_->valid();
      capability_.reset();
      if (held) {
        try {
          activator_.activate();
        } catch (...) {
        }
      }
    }
  }

  void swap(ActivateCapability& other) noexcept {
    std::swap(capability_, other.capability_);
    std::swap(activator_, other.activator_);
  }

 private:
  const Capability<T>& get() const {
    if (!valid()) throw CapabilityError("timely: use of a released ActivateCapability");
    return *capability_;
  }

  std::optional<Capability<T>> capability_;
  scheduling::Activator activator_;
};

/// Sends records at one time through an `UnorderedHandle`; activates the input operator when
/// destroyed, after sending what it buffered. Records are batched as in `Session`.
template <Timestamp T, class D>
class UnorderedSession {
 public:
  UnorderedSession(Session<T, D> session, scheduling::Activator activator)
      : session_(std::move(session)), activator_(std::move(activator)) {}
  UnorderedSession(UnorderedSession&& other) noexcept
      : session_(std::move(other.session_)), activator_(other.activator_) {
    other.session_.reset();
  }
  UnorderedSession(const UnorderedSession&) = delete;
  UnorderedSession& operator=(const UnorderedSession&) = delete;
  UnorderedSession& operator=(UnorderedSession&&) = delete;
  ~UnorderedSession() {
    if (session_) {
      session_.reset();  // sends the last batch
      activator_.activate();
    }
  }

  /// The time records are sent at.
  [[nodiscard]] const T& time() const { return session_->time(); }
  /// Sends one record.
  void give(D record) { session_->give(std::move(record)); }
  /// Sends every record of `range`.
  template <class Range>
  void give_iterator(Range&& range) {
    session_->give_iterator(std::forward<Range>(range));
  }
  /// Sends a whole batch, leaving `batch` empty.
  void give_vec(std::vector<D>& batch) { session_->give_vec(batch); }
  /// Sends the buffered records now.
  void flush() { session_->flush(); }

 private:
  std::optional<Session<T, D>> session_;
  scheduling::Activator activator_;
};

/// Sends records into an unordered input at times the caller holds capabilities for.
/// Cheap to copy (copies share the input). Sessions at times no held capability allows cannot
/// be opened: a session needs a capability of this input's operator.
template <Timestamp T, class D>
class UnorderedHandle {
 public:
  UnorderedHandle(OperatorOutput<T, D> output, scheduling::Activator activator)
      : output_(std::move(output)), activator_(std::move(activator)) {}

  /// A session at `cap.time()`. \throws CapabilityError if `cap` is released or belongs to
  /// another operator.
  [[nodiscard]] UnorderedSession<T, D> session(const ActivateCapability<T>& cap) {
    return UnorderedSession<T, D>(output_.session(cap.capability()), activator_);
  }
  /// A session at `cap.time()` for a plain capability of this input's operator.
  /// \throws CapabilityError if `cap` belongs to another operator.
  [[nodiscard]] UnorderedSession<T, D> session(const Capability<T>& cap) {
    return UnorderedSession<T, D>(output_.session(cap), activator_);
  }
  /// Schedules the input operator in the next step (to report and flush what was sent).
  void activate() const { activator_.activate(); }

 private:
  OperatorOutput<T, D> output_;
  scheduling::Activator activator_;
};

/// The part of an unordered input that its driver keeps after the dataflow is built: the
/// `handle` to send with and the `capability` to send at. A dataflow closure returns it (the
/// reference returns the pair `(UnorderedHandle, ActivateCapability)` for this); named members
/// say which is which, and a lambda can capture them, where clang before 16 cannot capture a
/// structured binding.
template <Timestamp T, class D>
struct UnorderedFeed {
  UnorderedHandle<T, D> handle;
  ActivateCapability<T> capability;
};

/// What `new_unordered_input` returns; supports `auto [handle, capability, stream] = ...`.
template <Timestamp T, class D>
struct UnorderedInput {
  UnorderedHandle<T, D> handle;
  ActivateCapability<T> capability;
  Stream<T, D> stream;

  /// Moves the handle and the capability out, for the dataflow closure to return; the stream
  /// stays behind, as it belongs to the scope being built.
  [[nodiscard]] UnorderedFeed<T, D> feed() && { return {std::move(handle), std::move(capability)}; }
};

namespace operators {

/// Creates an unordered input of records `D` in `scope` (see the file comment). The returned
/// capability is this worker's share of the input's initial capability at `minimum<T>()`; the
/// input is complete once every worker released all its capabilities.
template <class D, Timestamp T>
UnorderedInput<T, D> new_unordered_input(Scope<T> scope) {
  OperatorBuilder<T> builder(scope, "UnorderedInput");
  auto made = builder.template new_output<D>();
  auto activator = builder.activator();
  std::optional<Capability<T>> initial;
  builder.build([&](std::vector<Capability<T>> caps) {
    initial.emplace(std::move(caps[0]));
    // Nothing to do when scheduled: the builder reports capability changes and production, and
    // flushes the output.
    return [] {};
  });
  return UnorderedInput<T, D>{UnorderedHandle<T, D>(std::move(made.handle), activator),
                              ActivateCapability<T>(std::move(*initial), activator), std::move(made.stream)};
}

}  // namespace operators
}  // namespace timely::dataflow
