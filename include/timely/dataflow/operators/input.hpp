/// \file
/// `InputHandleCore<T, C>` and its vector case `InputHandle<T, D>`: how a program feeds records
/// into a dataflow from outside, in containers `C` (for `InputHandle<T, D>`, `std::vector<D>`;
/// a columnar input is `InputHandleCore<T, columnar::Batch<P>>`). The handle
/// holds a capability at its current time `time()`: records sent now carry that time,
/// `advance_to(t)` promises that no more records earlier than `t` will come, and `close()` (or
/// destroying the handle) promises no more records at all.
///
/// Use: `InputHandle<uint64_t, std::string> input; ... input.to_stream(scope) | ...;` then
/// `input.send(x); input.advance_to(1);`. Timestamps may be partially ordered (`Product<A, B>`,
/// a user type): `advance_to(t)` needs `time() <= t` in the partial order, and several handles
/// moved along incomparable times give a stream whose frontier is their antichain.
///
/// Source: the reference's `dataflow::operators::input::Handle` (SEMANTICS.md §6.1).
/// Thread-safety: none; use a handle on the worker thread that built its dataflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/container/container.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/operate.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

namespace detail {

/// What an input handle shares with one input operator it feeds.
template <Timestamp T, class C>
struct InputAttachment {
  progress::ChangeBatch<T> internal;
  progress::ChangeBatch<T> produced;
  std::shared_ptr<Tee<T, C>> tee = std::make_shared<Tee<T, C>>();
  std::optional<scheduling::Activator> activator;
};

/// The input operator: no inputs, one output; reports the handle's capability changes and
/// production when scheduled.
template <Timestamp T, class C>
class InputOperator final : public progress::Operate<T> {
 public:
  InputOperator(std::shared_ptr<InputAttachment<T, C>> attachment, std::size_t peers)
      : attachment_(std::move(attachment)), progress_(0, 1) {
    progress_.internals[0].update(timely::minimum<T>(), static_cast<std::int64_t>(peers));
  }
  const std::string& name() const override { return name_; }
  std::size_t inputs() const override { return 0; }
  std::size_t outputs() const override { return 1; }
  progress::Connectivity<SummaryOf<T>> connectivity() const override { return {}; }
  std::vector<progress::FrontierInterest> notify_me() const override { return {}; }
  progress::SharedProgress<T>& progress() override { return progress_; }
  bool schedule() override {
    attachment_->internal.drain_into(progress_.internals[0]);
    attachment_->produced.drain_into(progress_.produceds[0]);
    return false;
  }

 private:
  std::shared_ptr<InputAttachment<T, C>> attachment_;
  progress::SharedProgress<T> progress_;
  std::string name_ = "Input";
};

}  // namespace detail

/// Feeds records at times of type `T`, in containers `C`, into one or more dataflows of this
/// worker. Records are gathered into a container until it is at capacity
/// (`container::at_capacity`), then sent.
template <Timestamp T, class C>
class InputHandleCore {
 public:
  using Container = C;

  InputHandleCore() = default;
  InputHandleCore(const InputHandleCore&) = delete;
  InputHandleCore& operator=(const InputHandleCore&) = delete;
  /// Closes the input if still open (errors while closing are swallowed: destructors must not
  /// throw; call `close()` to see them).
  ~InputHandleCore() {
    try {
      close();
    } catch (...) {
    }
  }

  /// Creates an input operator in `scope` fed by this handle and returns its stream. A handle
  /// may feed several dataflows; each receives every record.
  /// \throws InputError if the handle is closed.
  StreamCore<T, C> to_stream(Scope<T>& scope) {
    if (closed_)
      throw InputError("timely: input handle closed at time " + describe(now_) +
                       " cannot feed a new dataflow");
    flush();
    auto attachment = std::make_shared<detail::InputAttachment<T, C>>();
    const std::size_t index = scope.builder().reserve_operator();
    const std::size_t global = scope.worker().new_identifier();
    attachment->activator.emplace(scope.worker().activations(), scope.address_of(index));
    // This worker's share of the initial capability moves from the minimum to now.
    if (!(now_ == timely::minimum<T>())) {
      attachment->internal.update(timely::minimum<T>(), -1);
      attachment->internal.update(now_, 1);
    }
    StreamCore<T, C> stream(scope, progress::Source{index, 0}, attachment->tee);
    scope.builder().add_operator(index, global,
                                 std::make_unique<detail::InputOperator<T, C>>(attachment, scope.peers()));
    attachments_.push_back(std::move(attachment));
    return stream;
  }

  /// The current time: records sent now carry it.
  [[nodiscard]] const T& time() const noexcept { return now_; }
  /// Whether `close()` was called.
  [[nodiscard]] bool closed() const noexcept { return closed_; }

  /// Sends one record at `time()` (of a vector input: any value convertible to the record
  /// type, braces too). \throws InputError if closed or not attached to a dataflow (such a
  /// record would be lost).
  void send(container::VectorRecord<C> record) requires container::Vector<C> { push(std::move(record)); }
  /// Sends one item at `time()`: anything the container absorbs (`container::PushInto`), for a
  /// columnar input an owned value or a borrowed reference. \throws InputError as above.
  template <class X>
  requires container::PushInto<C, X>
  void send(X&& item) { push(std::forward<X>(item)); }
  /// Sends a whole container at `time()`, leaving `batch` empty. \throws InputError as `send`.
  void send_batch(C& batch) {
    check_open("send_batch");
    ship();
    if (!batch.empty()) deliver(batch);
    batch.clear();  // it may hold storage given back
  }
  /// Sends buffered records now.
  void flush() {
    ship();
    for (auto& a : attachments_) a->tee->done();
  }
  /// The number of dataflows this handle feeds (those dropped with `Worker::drop_dataflow` no
  /// longer count).
  [[nodiscard]] std::size_t attached() {
    forget_dropped();
    return attachments_.size();
  }

  /// Moves the handle's time forward to `time`, promising no more records at times not `>=` it.
  /// \throws InputError if `time()` is not `<=` `time` in `T`'s partial order (earlier, or
  /// incomparable: that would release times the handle still owes), or the handle is closed.
  void advance_to(const T& time) {
    if (closed_) throw InputError("timely: advance_to(" + describe(time) + ") on a closed input handle");
    if (!timely::less_equal(now_, time))
      throw InputError("timely: input handle cannot go back from time " + describe(now_) + " to " +
                       describe(time));
    if (time == now_) return;
    flush();
    for (auto& a : attachments_) {
      a->internal.update(time, 1);
      a->internal.update(now_, -1);
      a->activator->activate();
    }
    now_ = time;
  }

  /// Sends what is buffered and releases the handle's capability: the input is complete.
  /// Idempotent.
  void close() {
    if (closed_) return;
    flush();
    for (auto& a : attachments_) {
      a->internal.update(now_, -1);
      a->activator->activate();
    }
    closed_ = true;
  }

 private:
  void check_open(const char* what) {
    if (closed_) throw InputError(std::string("timely: ") + what + " on a closed input handle");
    forget_dropped();
    if (attachments_.empty())
      throw InputError(std::string("timely: ") + what +
                       " on an input handle not attached to any running dataflow (call to_stream first; "
                       "or every dataflow it fed was dropped); the record would be lost");
  }
  // An attachment only this handle still holds belongs to an input operator that is gone: its
  // dataflow was dropped (Worker::drop_dataflow). Its records would go nowhere or, through the
  // channels it still holds, to other workers' instances that no longer account for them.
  void forget_dropped() {
    std::erase_if(attachments_, [](const auto& a) { return a.use_count() == 1; });
  }
  template <class X>
  void push(X&& item) {
    // The whole check (it also forgets dropped dataflows) once per batch, not per record.
    if (buffer_.empty()) [[unlikely]]
      open_batch();
    container::push_into(buffer_, std::forward<X>(item));
    if (container::at_capacity(buffer_)) [[unlikely]]
      ship();
  }
  // Out of line, so that the per-record path keeps the buffer's pointers in registers.
  [[gnu::noinline]] void open_batch() {
    check_open("send");
    room_.make_room(buffer_);
  }
  [[gnu::noinline]] void ship() {
    forget_dropped();
    if (buffer_.empty()) return;
    room_.filled(buffer_, container::at_capacity(buffer_));
    deliver(buffer_);
    buffer_.clear();
  }
  // Sends `data` to every attachment, leaving in it what the last one gave back (storage to
  // fill again) or nothing.
  void deliver(C& data) {
    const auto count = static_cast<std::int64_t>(container::record_count(data));
    for (std::size_t i = 0; i < attachments_.size(); ++i) {
      auto& a = *attachments_[i];
      a.produced.update(now_, count);
      Message<T, C> message;
      message.time = now_;
      const bool last = i + 1 == attachments_.size();
      message.data = last ? std::move(data) : data;
      auto back = a.tee->push(std::move(message));
      if (last) data = back ? std::move(back->data) : C{};
    }
  }

  T now_ = timely::minimum<T>();
  // Its own buffer rather than a builder: the per-record path is a few loads shorter, and
  // records of the buffer's own size type would otherwise force them all to be reloaded.
  C buffer_{};
  [[no_unique_address]] container::RoomHint<C> room_{};
  std::vector<std::shared_ptr<detail::InputAttachment<T, C>>> attachments_;
  bool closed_ = false;
};

/// Feeds records of type `D` at times of type `T`, in `std::vector<D>` batches.
template <Timestamp T, class D>
using InputHandle = InputHandleCore<T, std::vector<D>>;

}  // namespace timely::dataflow
