/// \file
/// Capture into a durable log and replay from it: `capture_into_log` records a stream (its
/// records and its frontier) into one partition per worker of a log stream, and
/// `replay_from_log` reproduces it, with the recorded progress, on any number of workers, from
/// the beginning, from a time or from offsets, and optionally following a capture that is
/// still running. `LogEventSink` and `LogEventSource` are the `capture::EventSink` and
/// `capture::EventSource` under them (timely/dataflow/operators/capture.hpp does the rest).
///
///     timely::durable::Log log("/var/lib/app/log");
///     worker.dataflow<T>([&](auto& scope) { stream | capture_into_log(log, "clicks"); });
///     ...
///     worker.dataflow<T>([&](auto& scope) {
///       auto replayed = replay_from_log<T, std::vector<D>>(scope, log, "clicks");
///     });
///
/// # What a partition holds
///
/// Worker `w` of a capture on `W` workers writes partition `w` of the stream (partitions 0 to
/// W-1). Every log record is one whole thing, in offset order:
///   - offset 0: the capture header: the capture format's stream header (capture/format.hpp:
///     magic, version, the time and record type names, CRC-32), then u32 partition, u32
///     workers `W` (little-endian), zero bytes up to a multiple of 8;
///   - every later offset: one event as a frame of the capture format (kind, length, CRC-32,
///     body; a frame whose first byte is at offset 0, so columnar batches are padded relative
///     to the record's start), then zero bytes up to a multiple of 8.
/// Since a batch's data area starts at a multiple of 8 (format.hpp) and every record's length
/// is one, every record starts 8-byte aligned in its batch, and columnar batches decode in
/// place from a copy of the batch (one copy per log batch, not per record). A replay does not
/// check the frames' CRC-32: the log's reader has checked the XXH3 checksum of every batch it
/// hands out, which covers the frames; every field is still checked as it is decoded.
/// The events are those of `capture_into` (capture/event.hpp): progress changes relative to an
/// implicit count of 1 at `minimum<T>()` per partition, and containers of records at a time.
/// The events a capture operator pushes in one scheduling are appended as one log batch.
///
/// # The log record's timestamp
///
/// `LogCaptureOptions::timestamp` converts a time to the record's i64 timestamp; the default,
/// for integer times, is the time itself (unsigned times above 2^63-1 are clamped to it), and
/// for other time types 0. A messages record gets its batch's time; a progress record the
/// largest time among its changes (the time the frontier moves to, or the last one it leaves);
/// the header the minimum time's. So for event-time integers the log's timestamps, its
/// retention by age and its time index speak the stream's own time.
///
/// # Replay: which records, which frontier
///
/// Replay reads each partition from its first record and applies every progress event, so the
/// replayed frontier moves exactly as the original's did, whatever is left out of the data:
///   - `ReplayFrom::beginning()`: every record;
///   - `ReplayFrom::time(t)`: the records at times `u` with `t <= u` (the partial order's
///     `less_equal`); the records at other times are read and dropped;
///   - `ReplayFrom::offsets({o_0, o_1, ...})`: in partition p, the records of the events at
///     log offsets `>= o_p` (partitions beyond the list start at their beginning). An offset
///     is a position in one partition: pass what a consumer committed (`Log::committed`).
/// Partition p is read by replaying worker `p % peers`; a worker may read several partitions
/// or none. As in `replay_into`, the replay checks the capture protocol and throws
/// `capture::FormatError` from `step()` for a broken one, naming the partition and offset.
///
/// # Memory
///
/// Each scheduling of the replay reads at most `ReplayOptions::batches_per_schedule` log batches
/// per partition and hands their events downstream before it reads more (it activates itself
/// again while a partition has more), so a replay holds a bounded number of log batches, not the
/// whole log, whatever the log's size (the containers downstream operators keep aside).
///
/// # Following a capture that is still running
///
/// With `ReplayOptions::follow`, a partition that has no more records is not the end: the
/// replay waits for appends without blocking its worker. It registers with each partition's
/// reader (`Reader::on_append`), which activates it from the appending thread (a writer in this
/// process) or the directory watcher (a writer in another process), and meanwhile it is not
/// scheduled, so the worker may park (`Worker::step_or_park`). Where no wake-up can come, it
/// looks every `ReaderOptions::poll_interval` (10 ms by default) instead: partitions that do not
/// exist yet, and other processes' appends on a file system that cannot watch. With
/// `ReplayOptions::poll` set, each look at a partition at its end waits up to `poll` for an
/// append, blocking the worker for that long. Partitions that hold no header yet are waited for
/// in the same way. Without `follow`, the end of a partition whose capture has not completed
/// throws `capture::FormatError(Incomplete)`.
///
/// Worker count: the header records `W`; a replay checks that every partition's header agrees
/// and that partitions 0 to W-1 are all there (`capture::FormatError(SchemaMismatch)`
/// otherwise). Building the replay reads partition 0's header; with `follow` it waits up to
/// `ReplayOptions::open_timeout` for it (`capture::FormatError(Incomplete)` after that).
///
/// Retention must not delete a capture's segments: replay needs every progress event from the
/// first, and throws the log's `OffsetOutOfRange` when they are gone.
///
/// Source of the idea: the reference's capture/replay through Kafka
/// (`timely-dataflow/kafkaesque`: one topic partition per worker, events as records) and
/// SEMANTICS.md §10. Thread-safety: sinks and sources belong to their worker's thread; the
/// `Log` they are made from may be shared.
/// One header of over 600 lines: the log's event sink and source and the two operators share the
/// partition record layout, which is one idea and reads best in one place.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/capture/frames.hpp>
#include <timely/communication/codec.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/durable/error.hpp>
#include <timely/durable/format.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/reader.hpp>
#include <timely/durable/writer.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/order.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::durable::operators {

namespace capture = timely::capture;

/// The default conversion of a time to a log record's timestamp: integers as themselves
/// (clamped to the i64 range), anything else 0.
template <class T>
std::int64_t default_log_timestamp(const T& time) noexcept {
  if constexpr (std::integral<T>) {
    if constexpr (std::is_unsigned_v<T>) {
      if (time > static_cast<std::make_unsigned_t<std::int64_t>>(std::numeric_limits<std::int64_t>::max()))
        return std::numeric_limits<std::int64_t>::max();
    }
    return static_cast<std::int64_t>(time);
  } else {
    (void)time;
    return 0;
  }
}

/// How `capture_into_log` writes.
template <class T>
struct LogCaptureOptions {
  /// The partitions' writer options (durability, segment size, ...). `create` is forced on.
  WriterOptions writer;
  /// A time's record timestamp (see the file comment); default `default_log_timestamp`.
  std::function<std::int64_t(const T&)> timestamp;
};

namespace detail {

/// Bytes of the capture header after the capture format's stream header.
inline constexpr std::size_t kCaptureMetaBytes = 8;

inline std::size_t padded8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }

inline std::uint32_t load_u32(const std::uint8_t* p) noexcept {
  return static_cast<std::uint32_t>(capture::detail::read_le(p, 4));
}

/// The header record of partition `partition` of a capture on `workers` workers.
template <class T, class C>
std::vector<std::uint8_t> encode_capture_header(std::uint32_t partition, std::uint32_t workers) {
  std::vector<std::uint8_t> out = capture::detail::encode_header<T, C>();
  communication::Encoder e(out);
  e.put_u32(partition);
  e.put_u32(workers);
  out.resize(padded8(out.size()), 0);
  return out;
}

/// A decoded capture header: the partition and worker count it names.
struct CaptureHeader {
  std::uint32_t partition = 0;
  std::uint32_t workers = 0;
};

/// Checks the header record `bytes` of `where` (`stream/p`) for times `T` and containers `C`.
/// \throws capture::FormatError naming `where`.
template <class T, class C>
CaptureHeader decode_capture_header(std::span<const std::uint8_t> bytes, const std::string& where) {
  std::size_t len = 0;
  try {
    len = capture::detail::check_header<T, C>(bytes, 0);
  } catch (const capture::FormatError& e) {
    throw capture::FormatError(e.kind(), e.offset(), e.problem() + " (the capture header, log offset 0)",
                               true, where);
  }
  if (len + kCaptureMetaBytes > bytes.size())
    throw capture::FormatError(capture::FormatErrorKind::Truncated, bytes.size(),
                               "the capture header record (log offset 0) holds " +
                                   std::to_string(bytes.size()) + " bytes, fewer than its " +
                                   std::to_string(len + kCaptureMetaBytes),
                               true, where);
  CaptureHeader header{load_u32(bytes.data() + len), load_u32(bytes.data() + len + 4)};
  if (header.workers == 0 || header.partition >= header.workers)
    throw capture::FormatError(capture::FormatErrorKind::BadHeader, len,
                               "the capture header names partition " + std::to_string(header.partition) +
                                   " of " + std::to_string(header.workers) + " workers",
                               true, where);
  return header;
}

/// A log batch's bytes copied to 8-byte aligned memory, shared by what decodes from it.
struct AlignedBatch {
  std::unique_ptr<std::uint64_t[]> words;
  std::span<const std::uint8_t> bytes;
};

/// `view`'s bytes in fresh aligned memory, which is not zeroed first (only the padding after
/// the last byte is).
inline std::shared_ptr<const AlignedBatch> copy_aligned(const BatchView& view) {
  auto batch = std::make_shared<AlignedBatch>();
  const auto raw = view.bytes();
  const std::size_t words = (raw.size() + 7) / 8;
  if (words > 0) {
    batch->words = std::make_unique_for_overwrite<std::uint64_t[]>(words);
    batch->words[words - 1] = 0;
    std::memcpy(batch->words.get(), raw.data(), raw.size());
  }
  batch->bytes = {reinterpret_cast<const std::uint8_t*>(batch->words.get()), raw.size()};
  return batch;
}

/// The bytes of `record` (a record of `view`) inside `batch`, the aligned copy of `view`.
inline std::span<const std::uint8_t> record_in(const AlignedBatch& batch, const BatchView& view,
                                               const RecordView& record) noexcept {
  const auto at = static_cast<std::size_t>(record.bytes.data() - view.bytes().data());
  return batch.bytes.subspan(at, record.bytes.size());
}

}  // namespace detail

/// The `capture::EventSink` of one worker's partition: appends each event as a record (see
/// the file comment) and the events of one scheduling as one batch (at `flush()`, which the
/// capture operator calls after every scheduling that pushed something). Holds the partition's
/// writer, so no other writer may write the partition meanwhile.
///
/// \throws (at construction) durable::ArgumentError if the partition holds records already (a
/// capture needs an empty partition: events appended after another capture's would break the
/// protocol; delete the stream or use another name), durable::WriterBusy, durable::IoError;
/// (from `flush`, thus from the worker's `step()`) durable::IoError.
/// Thread-safety: one thread at a time.
template <communication::Encodable T, communication::Encodable C>
class LogEventSink {
 public:
  using Time = T;
  using Container = C;

  LogEventSink(const Log& log, const std::string& stream, std::uint32_t partition, std::uint32_t workers,
               LogCaptureOptions<T> options = {})
      : timestamp_(options.timestamp ? std::move(options.timestamp)
                                     : std::function<std::int64_t(const T&)>(default_log_timestamp<T>)) {
    options.writer.create = true;
    writer_ = std::make_unique<Writer>(log.writer(stream, partition, options.writer));
    if (writer_->end_offset() != 0)
      throw ArgumentError(writer_->partition(), {}, std::nullopt,
                          "a capture needs an empty partition, but it holds offsets " +
                              std::to_string(writer_->first_offset()) + " to " +
                              std::to_string(writer_->end_offset()));
    const auto header = detail::encode_capture_header<T, C>(partition, workers);
    const RecordView record{timestamp_(timely::minimum<T>()), std::as_bytes(std::span(header))};
    writer_->append(std::span(&record, 1));
  }

  LogEventSink(LogEventSink&&) noexcept = default;
  LogEventSink& operator=(LogEventSink&&) noexcept = default;
  ~LogEventSink() {
    if (!writer_) return;
    try {
      flush();
      writer_->close();
    } catch (...) {  // errors here are lost; `flush` reports them while the dataflow runs
    }
  }

  /// Encodes `event` as the next record of the pending batch.
  void push(const capture::EventCore<T, C>& event) {
    const std::size_t lead = capture::detail::encode_frame<T, C>(frame_, 0, event);
    (void)lead;  // 0: the frame starts at a multiple of 8 of the record
    std::int64_t ts = 0;
    if (const auto* progress = std::get_if<capture::ProgressEvent<T>>(&event)) {
      bool first = true;
      for (const auto& [time, diff] : progress->changes) {
        (void)diff;
        const std::int64_t t = timestamp_(time);
        ts = first ? t : std::max(ts, t);
        first = false;
      }
    } else {
      ts = timestamp_(std::get<capture::MessagesEventCore<T, C>>(event).time);
    }
    pending_timestamps_.push_back(ts);
    pending_ends_.push_back(pending_.size() + detail::padded8(frame_.size()));
    pending_.insert(pending_.end(), frame_.begin(), frame_.end());
    pending_.resize(pending_ends_.back(), 0);
  }

  /// Appends the pending records as one batch. \throws durable::IoError, durable::ArgumentError
  /// (a batch above the format's limit).
  void flush() {
    if (pending_ends_.empty()) return;
    records_.clear();
    std::size_t begin = 0;
    const auto* base = reinterpret_cast<const std::byte*>(pending_.data());
    for (std::size_t i = 0; i < pending_ends_.size(); ++i) {
      records_.push_back(
          RecordView{pending_timestamps_[i], std::span(base + begin, pending_ends_[i] - begin)});
      begin = pending_ends_[i];
    }
    writer_->append(records_);
    pending_.clear();
    pending_ends_.clear();
    pending_timestamps_.clear();
  }

  /// The partition's writer (its offsets and statistics).
  [[nodiscard]] const Writer& writer() const { return *writer_; }

 private:
  std::unique_ptr<Writer> writer_;  // null once moved from
  std::function<std::int64_t(const T&)> timestamp_;
  std::vector<std::uint8_t> frame_;
  std::vector<std::uint8_t> pending_;
  std::vector<std::size_t> pending_ends_;
  std::vector<std::int64_t> pending_timestamps_;
  std::vector<RecordView> records_;
};

/// Records `stream` into the log stream `name` of `log`: this worker's part into partition
/// `worker index`, with the worker count in each partition's header (see the file comment).
/// Every worker must call it. \throws as `LogEventSink`'s constructor.
template <Timestamp T, class C>
void capture_into_log(const dataflow::StreamCore<T, C>& stream, const Log& log, const std::string& name,
                      LogCaptureOptions<T> options = {}) {
  auto scope = stream.scope();
  dataflow::operators::capture_into(
      stream, LogEventSink<T, C>(log, name, static_cast<std::uint32_t>(scope.index()),
                                 static_cast<std::uint32_t>(scope.peers()), std::move(options)));
}

namespace detail {
template <class T>
struct CaptureIntoLog {
  const Log* log;
  std::string name;
  LogCaptureOptions<T> options;
  template <class C>
  void operator()(const dataflow::StreamCore<T, C>& stream) && {
    operators::capture_into_log(stream, *log, name, std::move(options));
  }
};
struct CaptureIntoLogAnyTime {
  const Log* log;
  std::string name;
  WriterOptions writer;
  template <Timestamp T, class C>
  void operator()(const dataflow::StreamCore<T, C>& stream) && {
    LogCaptureOptions<T> options;
    options.writer = writer;
    operators::capture_into_log(stream, *log, name, std::move(options));
  }
};
}  // namespace detail

/// `stream | capture_into_log(log, name)`: the pipeable form (`log` must outlive the call).
inline auto capture_into_log(const Log& log, std::string name, WriterOptions writer = {}) {
  return detail::CaptureIntoLogAnyTime{&log, std::move(name), std::move(writer)};
}
/// `stream | capture_into_log(log, name, options)` with a timestamp conversion.
template <class T>
auto capture_into_log(const Log& log, std::string name, LogCaptureOptions<T> options) {
  return detail::CaptureIntoLog<T>{&log, std::move(name), std::move(options)};
}

/// Which records a replay produces (see the file comment; the frontier is always the
/// original's).
template <class T>
struct ReplayFrom {
  enum class Kind { beginning, time, offsets };
  Kind kind = Kind::beginning;
  T from_time{};
  std::vector<std::uint64_t> from_offsets;

  [[nodiscard]] static ReplayFrom beginning() { return {}; }
  /// The records at times `u` with `less_equal(t, u)`.
  [[nodiscard]] static ReplayFrom time(T t) { return {Kind::time, std::move(t), {}}; }
  /// In partition p, the records of the events at offsets `>= offsets[p]` (0 past the end).
  [[nodiscard]] static ReplayFrom offsets(std::vector<std::uint64_t> offsets) {
    return {Kind::offsets, T{}, std::move(offsets)};
  }

  /// Whether the records of the event at `offset` of `partition`, at `time`, are replayed.
  [[nodiscard]] bool keeps(std::uint32_t partition, std::uint64_t offset, const T& time) const {
    switch (kind) {
      case Kind::beginning:
        return true;
      case Kind::time:
        return timely::less_equal(from_time, time);
      case Kind::offsets:
        return partition >= from_offsets.size() || offset >= from_offsets[partition];
    }
    return true;
  }
};

/// How `replay_from_log` reads.
template <class T>
struct ReplayOptions {
  ReplayFrom<T> from;
  /// Wait for appends at the end of a partition (a capture still running) instead of taking
  /// the end of a partition as the end of its events.
  bool follow = false;
  /// How long one look at a partition at its end may block the worker waiting for an append,
  /// when following (0: not at all; the reader's wake-up activates the replay when one comes).
  std::chrono::milliseconds poll{0};
  /// Log batches read from each partition per scheduling, at most (at least 1): what a replay
  /// holds at once (see the file comment, "Memory").
  std::size_t batches_per_schedule = 16;
  /// How long building a following replay waits for partition 0's header.
  std::chrono::milliseconds open_timeout{std::chrono::seconds(30)};
  /// The partitions' reader options (what damage does, ...).
  ReaderOptions reader;
};

/// The `capture::EventSource` of one partition: reads its records in offset order, checks the
/// header against `T`, `C` and the expected worker count, decodes each event, and drops the
/// records `ReplayFrom` leaves out (progress events always pass). Opens the partition lazily
/// when following (it may not exist yet). `next()` returns nothing after
/// `batches_per_schedule` log batches, then reads on at the next call (the replay's next
/// scheduling); `poll_after` and `wake_with` tell the replay when to look again (see
/// `replay_into`). Thread-safety: one thread at a time (the wake-up may come from any).
template <communication::Encodable T, communication::Encodable C>
class LogEventSource {
 public:
  using Time = T;
  using Container = C;

  /// Reads partition `partition` of `stream`, which must be partition `partition` of a capture
  /// on `workers` workers. \throws (from `next`) capture::FormatError for malformed records or
  /// a mismatched header, and the log's errors (CorruptionError, OffsetOutOfRange, IoError,
  /// ArgumentError for a missing partition when not following).
  LogEventSource(Log log, std::string stream, std::uint32_t partition, std::uint32_t workers,
                 ReplayOptions<T> options)
      : log_(std::move(log)),
        stream_(std::move(stream)),
        partition_(partition),
        workers_(workers),
        options_(std::move(options)),
        where_(stream_ + "/" + std::to_string(partition_)) {}

  std::optional<capture::EventCore<T, C>> next() {
    while (events_.empty()) {
      if (batches_ >= std::max<std::size_t>(options_.batches_per_schedule, 1)) {
        batches_ = 0;  // enough for one scheduling: more at the next
        more_ = true;
        return std::nullopt;
      }
      if (!fill()) {
        batches_ = 0;
        more_ = false;
        return std::nullopt;
      }
      ++batches_;
    }
    auto out = std::move(events_.front());
    events_.pop_front();
    event_offset_ = offsets_.front();
    offsets_.pop_front();
    return out;
  }

  /// Whether no event will follow: the partition's end was reached and the replay does not
  /// follow it.
  [[nodiscard]] bool exhausted() const noexcept { return at_end_ && !options_.follow && events_.empty(); }
  /// The partition, as `root/stream/p`, for error messages.
  [[nodiscard]] std::string path() const {
    return (log_.root() / stream_ / std::to_string(partition_)).string();
  }
  /// The log offset of the last event handed out (its log offset, not a byte offset).
  [[nodiscard]] std::uint64_t event_offset() const noexcept { return event_offset_; }

  /// How the partition's reader wakes the replay when following (see `replay_into`).
  void wake_with(scheduling::SyncActivator wake) { wake_ = std::move(wake); }
  /// After `next()` returned nothing: when the replay should look again without a wake-up
  /// (see `replay_into`): zero (at the next step) if it stopped at `batches_per_schedule` with
  /// more to read; without `follow` at the end, never (nothing more comes); following, after
  /// `poll_interval` if no wake-up can come (a partition that does not exist yet, a file system
  /// that does not watch, no `wake_with`), else only when the reader wakes it.
  [[nodiscard]] std::optional<std::chrono::nanoseconds> poll_after() const {
    if (more_) return std::chrono::nanoseconds::zero();
    if (!options_.follow) return std::nullopt;
    if (!wake_ || !reader_ || !reader_->watched()) return options_.reader.poll_interval;
    return std::nullopt;
  }

 private:
  /// Reads one batch into `events_`; returns false if none is readable now.
  bool fill() {
    if (!reader_ && !open()) return false;
    std::optional<BatchView> batch = options_.follow && options_.poll.count() > 0
                                         ? reader_->next_batch(options_.poll)
                                         : reader_->next_batch();
    if (!batch) {
      at_end_ = true;
      return false;
    }
    at_end_ = false;
    const auto copy = detail::copy_aligned(*batch);
    const std::shared_ptr<const void> owner = copy;
    std::uint64_t offset = batch->base_offset();
    for (const auto record : *batch) {
      const auto bytes = detail::record_in(*copy, *batch, record);
      if (offset == 0) {
        check_header(bytes);
      } else {
        if (!header_seen_)
          throw capture::FormatError(capture::FormatErrorKind::BadHeader, offset,
                                     "the partition does not start at offset 0 with its capture header",
                                     false, path());
        decode(bytes, offset, owner);
      }
      ++offset;
    }
    return true;
  }

  bool open() {
    try {
      reader_.emplace(log_.reader(stream_, partition_, Start::beginning(), options_.reader));
    } catch (const ArgumentError&) {
      if (!options_.follow) throw;  // the partition is missing
      return false;
    }
    // Following: appends from now on activate the replay (those before are read next).
    if (options_.follow && wake_) reader_->on_append([wake = *wake_] { wake.activate(); });
    return true;
  }

  void check_header(std::span<const std::uint8_t> bytes) {
    const auto header = detail::decode_capture_header<T, C>(bytes, path());
    if (header.partition != partition_ || header.workers != workers_)
      throw capture::FormatError(capture::FormatErrorKind::SchemaMismatch, 0,
                                 "the capture header names partition " + std::to_string(header.partition) +
                                     " of " + std::to_string(header.workers) +
                                     " workers, but partition 0 says " + std::to_string(workers_) +
                                     " workers",
                                 false, path());
    header_seen_ = true;
  }

  void decode(std::span<const std::uint8_t> bytes, std::uint64_t offset,
              const std::shared_ptr<const void>& owner) {
    auto fail = [&](capture::FormatErrorKind kind, const std::string& what) {
      throw capture::FormatError(kind, offset, what + " (log offset " + std::to_string(offset) + ")", false,
                                 path());
    };
    if (bytes.size() < capture::format::frame_header)
      fail(capture::FormatErrorKind::Truncated,
           "a record of " + std::to_string(bytes.size()) + " bytes, shorter than an event frame's header");
    try {
      capture::detail::check_kind(bytes[0], 0);
      const std::size_t total = capture::detail::frame_total(bytes.data(), 0, bytes.size());
      if (total > bytes.size() || detail::padded8(total) != bytes.size())
        fail(capture::FormatErrorKind::Truncated, "a record of " + std::to_string(bytes.size()) +
                                                      " bytes around an event frame of " +
                                                      std::to_string(total));
      // The log's reader checked the batch's XXH3 checksum: the frame's CRC-32 adds nothing.
      auto event = capture::detail::decode_frame<T, C>(bytes.first(total), 0, owner,
                                                       capture::detail::FrameChecksum::trusted);
      if (auto* batch = std::get_if<capture::MessagesEventCore<T, C>>(&event)) {
        if (!options_.from.keeps(partition_, offset, batch->time)) return;
      }
      events_.push_back(std::move(event));
      offsets_.push_back(offset);
    } catch (const capture::FormatError& e) {
      if (e.source() == path()) throw;
      fail(e.kind(), e.problem() + " at byte " + std::to_string(e.offset()) + " of the record");
    }
  }

  Log log_;
  std::string stream_;
  std::uint32_t partition_;
  std::uint32_t workers_;
  ReplayOptions<T> options_;
  std::string where_;
  std::optional<Reader> reader_;
  std::deque<capture::EventCore<T, C>> events_;
  std::deque<std::uint64_t> offsets_;
  std::uint64_t event_offset_ = 0;
  bool header_seen_ = false;
  bool at_end_ = false;
  std::size_t batches_ = 0;  // read in this scheduling
  bool more_ = false;        // `next()` stopped at `batches_per_schedule`, not at the end
  std::optional<scheduling::SyncActivator> wake_;
};

/// The number of workers of the capture in log stream `stream`, from partition 0's header.
/// Following, waits up to `options.open_timeout` for it.
/// \throws capture::FormatError (a bad header, or none within the timeout when following),
/// the log's errors (ArgumentError for a missing stream when not following).
template <communication::Encodable T, communication::Encodable C>
std::uint32_t capture_workers(const Log& log, const std::string& stream, const ReplayOptions<T>& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.open_timeout;
  const std::string where = (log.root() / stream / "0").string();
  while (true) {
    std::optional<Reader> reader;
    try {
      reader.emplace(log.reader(stream, 0, Start::beginning(), options.reader));
    } catch (const ArgumentError&) {
      if (!options.follow) throw;
    }
    if (reader) {
      if (auto batch = reader->next_batch(options.follow ? std::chrono::milliseconds(10)
                                                         : std::chrono::milliseconds(0))) {
        const auto copy = detail::copy_aligned(*batch);
        if (batch->base_offset() != 0)
          throw capture::FormatError(capture::FormatErrorKind::BadHeader, batch->base_offset(),
                                     "the partition does not start at offset 0 with its capture header",
                                     false, where);
        const auto header =
            detail::decode_capture_header<T, C>(detail::record_in(*copy, *batch, (*batch)[0]), where);
        if (header.partition != 0)
          throw capture::FormatError(
              capture::FormatErrorKind::SchemaMismatch, 0,
              "partition 0's capture header names partition " + std::to_string(header.partition), false,
              where);
        return header.workers;
      }
      if (!options.follow)
        throw capture::FormatError(capture::FormatErrorKind::Incomplete, 0,
                                   "the partition is empty: no capture header", false, where);
    }
    if (std::chrono::steady_clock::now() >= deadline)
      throw capture::FormatError(capture::FormatErrorKind::Incomplete, 0,
                                 "no capture header within the open timeout of " +
                                     std::to_string(options.open_timeout.count()) + " ms",
                                 false, where);
    if (!reader) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Replays the capture in log stream `stream` of `log` as a stream of `C` in `scope` (see the
/// file comment): this worker reads partitions `p` with `p % peers == index`. Every worker
/// must call it at the same point of building the dataflow.
/// \throws capture::FormatError if partition 0's header is bad or missing or, when not
/// following, a partition below the capture's worker count is missing or the stream holds
/// more partitions; the log's errors; and from the worker's `step()`, as `LogEventSource`.
template <Timestamp T, class C>
dataflow::StreamCore<T, C> replay_from_log(dataflow::Scope<T> scope, const Log& log,
                                           const std::string& stream, ReplayOptions<T> options = {}) {
  const std::uint32_t workers = capture_workers<T, C>(log, stream, options);
  if (!options.follow) {
    const auto partitions = log.partitions(stream);
    std::vector<std::uint32_t> expected(workers);
    for (std::uint32_t p = 0; p < workers; ++p) expected[p] = p;
    if (partitions != expected) {
      // Name the partitions missing and those the capture did not write.
      auto list = [](const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
        std::string text;
        for (auto p : a)
          if (!std::binary_search(b.begin(), b.end(), p))
            text += (text.empty() ? "" : ", ") + std::to_string(p);
        return text;
      };
      const auto missing = list(expected, partitions);
      const auto extra = list(partitions, expected);
      throw capture::FormatError(capture::FormatErrorKind::SchemaMismatch, 0,
                                 "its capture header says the capture ran on " + std::to_string(workers) +
                                     " workers, so the stream holds partitions 0 to " +
                                     std::to_string(workers - 1) +
                                     (missing.empty() ? "" : "; missing: " + missing) +
                                     (extra.empty() ? "" : "; not written by the capture: " + extra),
                                 false, (log.root() / stream).string());
    }
  }
  std::vector<LogEventSource<T, C>> sources;
  for (std::uint32_t p = 0; p < workers; ++p)
    if (p % scope.peers() == scope.index()) sources.emplace_back(log, stream, p, workers, options);
  return dataflow::operators::replay_into(scope, std::move(sources));
}

}  // namespace timely::durable::operators
