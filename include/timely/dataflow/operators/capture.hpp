/// \file
/// Capture and replay: `capture_into(sink)` records everything a stream of any container does
/// (its containers of records and the changes of its frontier) as events in a sink;
/// `replay_into(scope, sources)` turns one or more recorded event streams back into a stream,
/// with the same records at the same times and the same frontier behaviour.
///
/// Use:
///     capture::EventLink<T, D> link;                       // in memory, thread-safe
///     worker.dataflow<T>([&](auto& scope) { stream | capture_into(link); });
///     worker.dataflow<T>([&](auto& scope) { replay_into(scope, link) | ...; });
/// or, through bytes (capture/writer.hpp, capture/reader.hpp; format in capture/format.hpp):
///     stream | capture_into(capture::EventWriter<T, D>::create("part-0.events"));
///     replay_into(scope, capture::EventReader<T, D>::open("part-0.events")) | ...;
/// For a stream of another container `C` (say `columnar::Batch<X>`) name the `...Core<T, C>`
/// types: `EventLinkCore<T, C>`, `EventWriterCore<T, C>`, `EventReaderCore<T, C>`, and
/// `MappedEventReaderCore<T, C>` (capture/mapped.hpp), whose columnar batches borrow the mapped
/// file's bytes.
///
/// How it works (SEMANTICS.md §10.2-§10.3, §12 item 22):
///   - The capture operator is a sink with one Pipeline input and no output. It writes the
///     changes of its input frontier as `ProgressEvent`s and each received batch as a
///     `MessagesEvent`. On its first scheduling it subtracts 1 at `minimum<T>()` from the
///     frontier changes, whose first entry is +1 at the minimum: the recorded changes are
///     relative to an implicit count of 1 at the minimum.
///   - The replay operator is a source with one output and no input. The scope already counts
///     one capability at the minimum per worker for it; on its first scheduling it adds
///     `(number of its streams - 1)` there, so each stream starts with exactly the implicit 1 it
///     was recorded against (a worker with no streams cancels its share). It then applies every
///     stream's progress changes to its capabilities and sends every batch, and re-activates
///     itself in every step (busy polling) until all its streams are complete, i.e. their counts
///     are back to zero. Each scheduling takes from each source the events its `next()` gives
///     until it returns nothing: a source bounds what one scheduling holds by returning nothing
///     early (it is asked again at the next step), as the durable log's does.
///   - A source may say when to look again instead of busy polling, through two optional
///     members: `void wake_with(scheduling::SyncActivator)` (called once, when the replay is
///     built, with an activator of the replay usable from any thread) and
///     `std::optional<std::chrono::nanoseconds> poll_after() const` (asked each time `next()`
///     returned nothing: zero if it stopped early with more readable now, to be asked again at
///     the next step, as a source without it always is; a duration to be asked again after it;
///     nothing to be asked again only once the source activates the replay itself). A stream
///     whose source stopped early is read on even if its counts are back to zero, so that an
///     event after its completion is reported as when it is read in one go. When no source needs
///     the next step, the worker may park (`step_or_park`).
///   - Each worker captures the frontier of the *whole* stream, so any worker may replay any
///     subset of the captured streams, even with a different number of workers: replaying all
///     of W captures across W' workers (for example capture `i` on worker `i % W'`) reproduces
///     the stream.
///
/// Replay checks each stream against the capture protocol (capture/event.hpp): a progress
/// increment or a batch at a time no held capability allows, a retraction of a capability not
/// held, an event after the stream completed, or a complete byte stream (`exhausted()`) that ends
/// while still holding capabilities throws `capture::FormatError` (`ProtocolViolation` or
/// `Incomplete`) from the worker's `step()`, with the byte offset (or event index) of the event,
/// and the file's name for sources that know it (`path()`, as `MappedEventReaderCore`).
///
/// Source of the idea: the reference's `dataflow::operators::capture::{capture, replay}`.
/// Thread-safety: the operators run on their worker thread; sinks and sources are used only
/// there (an `EventLink` may be shared with other threads).
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

namespace capture_detail {

// The operators speak the capture format's types (timely/capture/) throughout.
using namespace timely::capture;

/// The capture operator: one input, no outputs; drains its own counters into SharedProgress.
template <Timestamp T, class C, class Sink>
class CaptureOperator final : public progress::Operate<T> {
 public:
  CaptureOperator(std::unique_ptr<MessagePull<T, C>> puller, Sink sink)
      : puller_(std::move(puller)), sink_(std::move(sink)), progress_(1, 0) {}

  const std::string& name() const override { return name_; }
  std::size_t inputs() const override { return 1; }
  std::size_t outputs() const override { return 0; }
  progress::Connectivity<SummaryOf<T>> connectivity() const override {
    return progress::Connectivity<SummaryOf<T>>(1);  // one input, reaching no output
  }
  std::vector<progress::FrontierInterest> notify_me() const override {
    return {progress::FrontierInterest::Always};
  }
  progress::SharedProgress<T>& progress() override { return progress_; }

  bool schedule() override {
    bool pushed = false;
    auto& frontier = progress_.frontiers[0];
    if (!started_) {
      // The first frontier change is +1 at the minimum: record relative to that implicit 1.
      frontier.update(timely::minimum<T>(), -1);
      started_ = true;
    }
    if (!frontier.empty()) {
      ProgressEvent<T> event;
      for (auto& [time, diff] : frontier.take()) event.changes.emplace_back(std::move(time), diff);
      sink_.push(EventCore<T, C>(std::in_place_index<0>, std::move(event)));
      pushed = true;
    }
    while (auto& message = puller_->pull()) {
      if (message->data.empty()) continue;
      progress_.consumeds[0].update(message->time,
                                    static_cast<std::int64_t>(container::record_count(message->data)));
      sink_.push(EventCore<T, C>(std::in_place_index<1>,
                                 MessagesEventCore<T, C>{message->time, std::move(message->data)}));
      pushed = true;
    }
    if constexpr (requires { sink_.flush(); }) {
      if (pushed) sink_.flush();
    }
    return false;
  }

 private:
  std::string name_ = "Capture";
  std::unique_ptr<MessagePull<T, C>> puller_;
  Sink sink_;
  progress::SharedProgress<T> progress_;
  bool started_ = false;
};

/// The replay operator: no inputs, one output; applies recorded progress to its capabilities.
template <Timestamp T, class C, class Source>
class ReplayOperator final : public progress::Operate<T> {
 public:
  ReplayOperator(std::vector<Source> sources, std::shared_ptr<Tee<T, C>> tee, scheduling::Activator activator,
                 std::size_t peers)
      : sources_(std::move(sources)),
        states_(sources_.size()),
        tee_(std::move(tee)),
        activator_(std::move(activator)),
        progress_(0, 1) {
    progress_.internals[0].update(timely::minimum<T>(), static_cast<std::int64_t>(peers));
    for (auto& state : states_) state.counts.update(timely::minimum<T>(), 1);
  }

  const std::string& name() const override { return name_; }
  std::size_t inputs() const override { return 0; }
  std::size_t outputs() const override { return 1; }
  progress::Connectivity<SummaryOf<T>> connectivity() const override { return {}; }
  std::vector<progress::FrontierInterest> notify_me() const override { return {}; }
  progress::SharedProgress<T>& progress() override { return progress_; }

  bool schedule() override {
    if (!started_) {
      // The scope counted one capability at the minimum for this worker; each stream needs one.
      progress_.internals[0].update(timely::minimum<T>(), static_cast<std::int64_t>(sources_.size()) - 1);
      started_ = true;
    }
    bool sent = false;
    bool all_done = true;
    bool poll_now = false;                               // a source to look at again at the next step
    std::optional<std::chrono::nanoseconds> poll_after;  // the least delay the sources asked for
    for (std::size_t i = 0; i < sources_.size(); ++i) {
      auto& state = states_[i];
      if (state.done) continue;
      auto& source = sources_[i];
      while (auto event = source.next()) {
        if (state.counts.empty())
          violation(i, FormatErrorKind::ProtocolViolation, "an event follows the completion of the stream");
        if (auto* progress = std::get_if<ProgressEvent<T>>(&*event)) {
          for (const auto& [time, diff] : progress->changes)
            if (diff > 0 && !holds_at_or_before(state, time))
              violation(i, FormatErrorKind::ProtocolViolation,
                        "an increment at time " + describe(time) + " that no held capability allows");
          for (const auto& [time, diff] : progress->changes) {
            state.counts.update(time, diff);
            progress_.internals[0].update(time, diff);
          }
          for (const auto& [time, count] : state.counts.view())
            if (count < 0)
              violation(
                  i, FormatErrorKind::ProtocolViolation,
                  "a retraction at time " + describe(time) + " of a capability the stream does not hold");
        } else {
          auto& batch = std::get<MessagesEventCore<T, C>>(*event);
          if (!holds_at_or_before(state, batch.time))
            violation(i, FormatErrorKind::ProtocolViolation,
                      "records at time " + describe(batch.time) + " that no held capability allows");
          if (!batch.data.empty()) {
            progress_.produceds[0].update(batch.time,
                                          static_cast<std::int64_t>(container::record_count(batch.data)));
            Message<T, C> message;
            message.time = std::move(batch.time);
            message.data = std::move(batch.data);
            tee_->push(std::move(message));
            sent = true;
          }
        }
        ++state.events;
      }
      // When to look at this source again (if its stream is not complete).
      std::optional<std::chrono::nanoseconds> after = std::chrono::nanoseconds::zero();
      if constexpr (has_poll_after) after = source.poll_after();
      // A source that stopped early (`poll_after()` zero) is read on before its stream counts as
      // complete, so that it reports what follows the completion as reading it at once would.
      const bool stopped_early = has_poll_after && after && after->count() <= 0;
      if (state.counts.empty() && !stopped_early) {
        state.done = true;
      } else if (state.counts.empty()) {
        all_done = false;
        poll_now = true;
      } else {
        if constexpr (requires(const Source& s) { s.exhausted(); }) {
          if (source.exhausted()) {
            std::string held;
            for (const auto& [time, count] : state.counts.view())
              held += (held.empty() ? "" : ", ") + describe(time);
            throw FormatError(
                FormatErrorKind::Incomplete, position(i, false),
                "stream " + std::to_string(i) +
                    " of this replay ends while it still holds "
                    "capabilities at times {" +
                    held + "}: the capture did not complete or the stream was cut at an event boundary",
                has_offsets, source_name(i));
          }
        }
        all_done = false;
        // Zero (what a source without `poll_after` gets: busy polling, as the reference's
        // replay_into) at the next step; a duration after it; nothing when the source wakes it.
        if (after && after->count() <= 0)
          poll_now = true;
        else if (after)
          poll_after = poll_after ? std::min(*poll_after, *after) : *after;
      }
    }
    if (sent) tee_->done();
    if (!all_done) {
      if (poll_now) {
        activator_.activate();
      } else if (poll_after) {
        // One pending timed activation is enough: skip it if an earlier one is due anyway.
        const auto now = std::chrono::steady_clock::now();
        const auto due = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(*poll_after);
        if (!poll_due_ || *poll_due_ <= now || *poll_due_ > due) {
          activator_.activate_after(*poll_after);
          poll_due_ = due;
        }
      }
    }
    return !all_done;
  }

 private:
  struct StreamState {
    progress::ChangeBatch<T> counts;
    std::uint64_t events = 0;
    bool done = false;
  };

  static constexpr bool has_poll_after = requires(const Source& s) {
    { s.poll_after() } -> std::convertible_to<std::optional<std::chrono::nanoseconds>>;
  };
  static constexpr bool has_offsets = requires(const Source& s) {
    s.event_offset();
    s.offset();
  };

  /// Where stream `i` is: the start of its current event (or its end), in bytes if the source
  /// knows, otherwise as an event index.
  std::uint64_t position(std::size_t i, bool current_event) const {
    if constexpr (has_offsets)
      return current_event ? sources_[i].event_offset() : sources_[i].offset();
    else
      return states_[i].events;
  }
  [[noreturn]] void violation(std::size_t i, FormatErrorKind kind, const std::string& what) const {
    throw FormatError(kind, position(i, true), "stream " + std::to_string(i) + " of this replay has " + what,
                      has_offsets, source_name(i));
  }
  /// The file stream `i` is read from, for sources that know it (`path()`), else empty.
  std::string source_name(std::size_t i) const {
    if constexpr (requires(const Source& s) { std::string(s.path()); })
      return std::string(sources_[i].path());
    else
      return {};
  }
  static bool holds_at_or_before(StreamState& state, const T& time) {
    for (const auto& [t, count] : state.counts.view())
      if (count > 0 && timely::less_equal(t, time)) return true;
    return false;
  }

  std::string name_ = "Replay";
  std::vector<Source> sources_;
  std::vector<StreamState> states_;
  std::shared_ptr<Tee<T, C>> tee_;
  scheduling::Activator activator_;
  progress::SharedProgress<T> progress_;
  bool started_ = false;
  std::optional<std::chrono::steady_clock::time_point> poll_due_;  // of the last timed activation
};

}  // namespace capture_detail

namespace operators {

/// Records `stream` into `sink` (any `capture::EventSink` of its containers, moved into the
/// operator and destroyed with it when the stream is complete). Each worker records its own part
/// of the records and the whole stream's frontier. Containers reach the sink as they arrived
/// (moved, not copied; empty ones are skipped).
template <Timestamp T, class C, class Sink>
void capture_into(const StreamCore<T, C>& stream, Sink sink) {
  static_assert(capture::EventSink<Sink, T, C>,
                "capture_into: the sink must accept sink.push(capture::EventCore<T, C>&&) for the stream's "
                "time T and container C (EventLink<T, D>/EventWriter<T, D> for a Stream<T, D>, "
                "EventLinkCore<T, C>/EventWriterCore<T, C> for another container)");
  auto scope = stream.scope();
  const std::size_t index = scope.builder().reserve_operator();
  const std::size_t global = scope.worker().new_identifier();
  const std::size_t channel = scope.worker().new_identifier();
  auto [pusher, puller] = Pipeline{}.template connect<T, C>(scope.worker(), channel);
  stream.connect_to(progress::Target{index, 0}, std::move(pusher), channel);
  scope.builder().register_channel(channel, index);
  scope.builder().add_operator(
      index, global,
      std::make_unique<capture_detail::CaptureOperator<T, C, Sink>>(std::move(puller), std::move(sink)));
}

namespace detail {
template <class Sink>
struct CaptureInto {
  Sink sink;
  template <Timestamp T, class C>
  void operator()(const StreamCore<T, C>& stream) && {
    operators::capture_into(stream, std::move(sink));
  }
  template <Timestamp T, class C>
  void operator()(const StreamCore<T, C>& stream) const& requires std::copy_constructible<Sink> {
    operators::capture_into(stream, Sink(sink));
  }
};
}  // namespace detail

/// `stream | capture_into(sink)`: the pipeable form.
template <class Sink>
auto capture_into(Sink sink) {
  return detail::CaptureInto<Sink>{std::move(sink)};
}

/// Replays the event streams `sources` (each a `capture::EventSource` with `Time` = `T`) as one
/// stream of `Source::Container` in `scope` (a `Stream<T, D>` for `std::vector<D>`). Every worker must call
/// it (with any number of sources, zero included) at the same point of building the dataflow. \throws
/// capture::FormatError from the worker's `step()` when a source is malformed or breaks the capture protocol.
template <Timestamp T, capture::EventSource Source>
StreamCore<T, typename Source::Container> replay_into(Scope<T> scope, std::vector<Source> sources) {
  static_assert(std::is_same_v<typename Source::Time, T>,
                "replay_into: the sources' Time must be the scope's timestamp type");
  using C = typename Source::Container;
  const std::size_t index = scope.builder().reserve_operator();
  const std::size_t global = scope.worker().new_identifier();
  auto tee = std::make_shared<Tee<T, C>>();
  scheduling::Activator activator(scope.worker().activations(), scope.address_of(index));
  if constexpr (requires(Source & s, scheduling::SyncActivator a) { s.wake_with(a); }) {
    const scheduling::SyncActivator wake(scope.worker().activations()->sync(), scope.address_of(index));
    for (auto& source : sources) source.wake_with(wake);
  }
  StreamCore<T, C> stream(scope, progress::Source{index, 0}, tee);
  scope.builder().add_operator(index, global,
                               std::make_unique<capture_detail::ReplayOperator<T, C, Source>>(
                                   std::move(sources), std::move(tee), std::move(activator), scope.peers()));
  return stream;
}

/// Replays one event stream.
template <Timestamp T, capture::EventSource Source>
StreamCore<T, typename Source::Container> replay_into(Scope<T> scope, Source source) {
  std::vector<Source> sources;
  sources.push_back(std::move(source));
  return replay_into(scope, std::move(sources));
}

}  // namespace operators
}  // namespace timely::dataflow
