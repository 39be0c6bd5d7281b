/// \file
/// Logs as timely streams: `BatchLogger<E, Sink>` turns a log stream of events `E` (the
/// batches a `logging::Logger<E>` hands its action) into a captured event stream on `Duration`
/// timestamps (capture/event.hpp), so that `replay_into` can replay one dataflow's logs as a
/// stream of another dataflow, in this process (an `EventLink`) or in another
/// (an `EventWriter` over a connection or a file, read back with an `EventReader`):
///
///     capture::EventLink<logging::Duration, LogRecord<logging::TimelyEvent>> link;
///     worker.log_register().insert<logging::TimelyEvent>("timely", BatchLogger<logging::TimelyEvent,
///         decltype(link)>(link));
///     ... later, elsewhere:  replay_into(scope, link)   // a Stream<Duration, LogRecord<TimelyEvent>>
///
/// Shapes and units: the records are `LogRecord<E>` = `(time logged, event)`, times in
/// nanoseconds since the registry's start (`logging::Duration`); the stream's timestamp is the
/// `now` of the batch that carried them, also `Duration`.
///
/// Events, as the reference's `BatchLogger` (SEMANTICS.md §8.1): the logger holds one
/// capability, at the `now` of the last batch it saw (zero, the minimum, at first). A batch
/// `(now, events)` becomes `Messages(previous now, events)` (if there are events: they were logged
/// at or after the previous now), then `Progress((now, +1), (previous now, -1))` if `now` is
/// later; an empty batch (the logger's flush) only advances the capability. When the last copy
/// of a `BatchLogger` is destroyed (the logger's last handle went away: the worker shut down,
/// or the stream was unregistered and its loggers dropped) it pushes `Progress((now, -1))`, and
/// the stream is complete. So a replayed log stream's frontier follows the logging worker's
/// flushes (the end of each step) and closes when it stops logging.
///
/// Bytes: to carry log events through `EventWriter`/`EventReader`, this header gives the
/// events of timely/logging/timely_events.hpp a `communication::Codec` (`LogEventCodec<E>`):
/// a u64 byte count, then the event's `logging::EventCodec` encoding (the log-file encoding,
/// codec.hpp); named `log<` + its `EventCodec` name + `>`. It lives here, not in the
/// communication library, which sits below logging.
///
/// Errors: what the sink's `push` or `flush` throws (an `EventWriter`: `capture::FormatError(Io)`,
/// say when the collector went away) is remembered and rethrown from the next empty batch (the
/// logger's `flush()`, at the end of each worker step) and from every one after; batches that
/// carry events never throw, because a `Logger` publishes its last events from its destructor.
/// After a failure the logger pushes nothing more. On destruction errors are swallowed. Decoding
/// a `LogEventCodec` throws `communication::CodecError` for bytes its encoder cannot have
/// written.
///
/// Thread-safety: a `BatchLogger` and its copies belong to the thread of the logger they serve
/// (the worker's); the sink decides whether readers may be elsewhere (`EventLink` is
/// thread-safe).
///
/// Source: the reference's `timely::dataflow::operators::capture::BatchLogger` and the
/// logging examples (SEMANTICS.md §8.1, §10).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/communication/codec.hpp>
#include <timely/logging/codec.hpp>
#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/log_codec.hpp>

namespace timely::dataflow {

/// One record of a replayed log stream: when the event was logged, and the event.
template <class E>
using LogRecord = std::pair<logging::Duration, E>;

/// The `communication::Codec` of a log event `E`, delegating to its `logging::EventCodec`: a
/// u64 count of bytes, then those bytes. `communication::Codec` is specialized with it for
/// every event of timely/logging/timely_events.hpp; specialize it the same way for a log event
/// type of your own.
template <logging::Encodable E>
struct LogEventCodec {
  static constexpr std::size_t min_size = 8;
  static void encode(communication::Encoder& e, const E& event) {
    // One scratch buffer per thread: an event's encoding is built there, then copied after its count.
    thread_local std::vector<std::byte> scratch;
    scratch.clear();
    logging::Encoder out(scratch);
    logging::EventCodec<E>::put(out, event);
    e.put_u64(scratch.size());
    e.put_bytes(scratch.data(), scratch.size());
  }
  static E decode(communication::Decoder& d) {
    const std::size_t n = d.get_count(1, "byte count of a log event");
    const std::uint64_t at = d.offset();
    const auto bytes = d.get_bytes(n, "log event");
    logging::Decoder in(std::as_bytes(bytes));
    try {
      E event = logging::EventCodec<E>::get(in);
      if (in.remaining() != 0)
        communication::Decoder::fail_at(at + in.position(), name(),
                                        std::to_string(in.remaining()) + " bytes left over after the event");
      return event;
    } catch (const logging::CodecError& error) {
      communication::Decoder::fail_at(at + in.position(), name(), error.what());
    }
  }
  static std::string name() { return "log<" + logging::EventCodec<E>::name() + ">"; }
};

/// Adapts a log action to a captured event stream on `Duration` timestamps (see the file
/// comment). `Sink` is a `capture::EventSink` of `std::vector<LogRecord<E>>` on `Duration`
/// (`EventLink<Duration, LogRecord<E>>`, `EventWriter<Duration, LogRecord<E>>`); if it has
/// `flush()`, that is called after each batch that pushed events (at most once per
/// `flush_interval` of log time, and always on destruction), so that a reader at the other
/// end of a connection sees them. Copyable (as `logging::Action` needs): copies share one
/// sink and one capability, which is retracted when the last copy is destroyed.
template <class E, class Sink>
class BatchLogger {
 public:
  using Container = std::vector<LogRecord<E>>;
  static_assert(
      capture::EventSink<Sink, logging::Duration, Container>,
      "BatchLogger<E, Sink>: Sink must accept capture::EventCore<Duration, std::vector<LogRecord<E>>>");

  /// Pushes to `sink`. `flush_interval`: the least log time between two flushes of the sink
  /// (0: after every batch).
  explicit BatchLogger(Sink sink, logging::Duration flush_interval = logging::Duration::zero())
      : state_(std::make_shared<State>(std::move(sink), flush_interval)) {}

  /// The action: publishes `events` (moved out) at the previous time and advances the
  /// capability to `now`.
  void operator()(logging::Duration now, Container& events) { state_->publish(now, events); }

  /// The time of the capability held: the `now` of the last batch seen.
  [[nodiscard]] logging::Duration time() const noexcept { return state_->time; }

 private:
  struct State {
    State(Sink s, logging::Duration interval) : sink(std::move(s)), flush_interval(interval) {}
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
      if (failure) return;
      try {
        push(capture::ProgressEvent<logging::Duration>{{{time, -1}}});
        if constexpr (requires { sink.flush(); }) sink.flush();
      } catch (...) {
        // Swallowed: see the file comment.
      }
    }
    void publish(logging::Duration now, Container& events) {
      const bool flush_only = events.empty();
      if (failure) {
        events.clear();  // dropped: the sink failed
        if (flush_only) std::rethrow_exception(failure);
        return;
      }
      try {
        bool pushed = false;
        if (!events.empty()) {
          push(capture::MessagesEventCore<logging::Duration, Container>{time, std::move(events)});
          events.clear();
          pushed = true;
        }
        if (time < now) {
          push(capture::ProgressEvent<logging::Duration>{{{now, 1}, {time, -1}}});
          time = now;
          pushed = true;
        }
        if constexpr (requires { sink.flush(); }) {
          if (pushed && now - flushed >= flush_interval) {
            sink.flush();
            flushed = now;
          }
        }
      } catch (...) {
        failure = std::current_exception();
        if (flush_only) throw;
      }
    }
    void push(capture::EventCore<logging::Duration, Container> event) { sink.push(std::move(event)); }

    Sink sink;
    logging::Duration flush_interval;
    logging::Duration time = logging::Duration::zero();
    logging::Duration flushed = logging::Duration::zero();
    std::exception_ptr failure;  // the first error of the sink
  };
  std::shared_ptr<State> state_;
};

}  // namespace timely::dataflow

namespace timely::communication {

template <>
struct Codec<logging::TimelyEvent, void> : dataflow::LogEventCodec<logging::TimelyEvent> {};
template <logging::Encodable T>
struct Codec<logging::ProgressEvent<T>, void> : dataflow::LogEventCodec<logging::ProgressEvent<T>> {};
template <logging::Encodable T>
struct Codec<logging::TrackerEvent<T>, void> : dataflow::LogEventCodec<logging::TrackerEvent<T>> {};
template <logging::Encodable S>
struct Codec<logging::OperatesSummaryEvent<S>, void>
    : dataflow::LogEventCodec<logging::OperatesSummaryEvent<S>> {};
template <logging::Encodable T>
struct Codec<logging::FrontierEvent<T>, void> : dataflow::LogEventCodec<logging::FrontierEvent<T>> {};
template <>
struct Codec<logging::CommunicationEvent, void> : dataflow::LogEventCodec<logging::CommunicationEvent> {};

}  // namespace timely::communication
