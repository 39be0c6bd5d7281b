/// \file
/// An event-time source from plain log records: `log_source<T, D>(scope, log, stream, decode)`
/// reads the partitions of a log stream (partition p on worker `p % peers`), decodes each
/// record with `decode(const RecordView&) -> D`, emits it at its record timestamp as the
/// dataflow time, and derives its frontier from the log: it holds its capability at the least
/// timestamp its partitions may still deliver. It returns the records and this worker's
/// `LogSourceStats`.
///
///     auto events = log_source<std::uint64_t, Click>(scope, log, "clicks",
///         [](const durable::RecordView& r) { return parse_click(r.text()); });
///     events.records | streaming::tumbling(...)...
///
/// # Frontier
///
/// Partitions are expected to hold their records in nondecreasing timestamp order (what an
/// appender of events in event-time order writes). After reading a partition up to a record
/// at timestamp `t`, no record before `t` is expected from it, so the partition's watermark is
/// `t`; before its first record it is `minimum<T>()` (or the start timestamp, when reading
/// from a timestamp). The worker holds its capability at the least watermark of its
/// partitions that are not finished; the dataflow's frontier is the least over the workers.
/// Without `LogSourceOptions::follow`, a partition is finished at its end (the end when it is
/// reached; appends after that are not read), and once all of a worker's partitions are
/// finished it drops its capability: a bounded read completes. With `follow`, a partition is
/// never finished, and one that receives no records holds the frontier back for ever, unless
/// `idle_timeout` is set: a partition that delivered nothing for that long (processing time,
/// measured from its last record or from the start) no longer holds the capability until a
/// record arrives again; when all of a worker's partitions are idle, it holds the greatest of
/// their watermarks (as the streaming library's `periodic` policy follows the greatest
/// watermark when every worker is idle).
///
/// # Records out of order (late records)
///
/// A record whose timestamp is below its partition's watermark (out of order in its
/// partition), or below the time this worker's capability has reached (possible only after an
/// idle partition stopped holding it), is late. As the event-time sources of
/// timely/streaming/watermark.hpp do, late records are by default dropped and counted
/// (`LogSourceStats::late_dropped`); with `Lateness::at_watermark` they are emitted at the
/// partition's watermark (or the capability's time, whichever is later) and counted in
/// `late_emitted`, their own timestamp lost unless `decode` keeps it in the record. The first
/// case depends only on the partition's contents, so results do not depend on the number of
/// workers; the second depends on timing (idleness) and is documented as such.
/// Timestamps outside `T`'s range (negative ones for an unsigned `T`) are dropped and counted in
/// `out_of_range`.
///
/// # Scheduling
///
/// The source never blocks its worker: each scheduling reads what is readable now (up to
/// `batches_per_schedule` batches per partition). While a partition may have more (it gave a
/// full `batches_per_schedule`, or, without `follow`, has not reached its end) the source
/// activates itself for the next step. Following, once every partition is read to its end, it
/// does not: each partition's reader activates it when an append comes (`Reader::on_append`:
/// from the appending thread for a writer in this process, from the directory watcher for one
/// in another), so the worker may park (`Worker::step_or_park`) instead of spinning. It looks
/// again by itself only where no wake-up can come, every `ReaderOptions::poll_interval` (10 ms by
/// default): partitions that do not exist yet, and other processes' appends on a file system
/// that cannot watch; and when a partition's `idle_timeout` falls due. Partitions that do not
/// exist yet are waited for when following (and are an `ArgumentError` otherwise).
///
/// Thread-safety: the source runs on its worker's thread; `stats` belongs to it.
/// Source of the idea: Kafka consumers assigned partitions and tracking per-partition
/// watermarks (Flink's Kafka source, per-partition watermark generation, `withIdleness`).
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/durable/error.hpp>
#include <timely/durable/format.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/reader.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::durable::operators {

/// What a late record does (see the file comment).
enum class Lateness {
  drop,          ///< dropped and counted in `late_dropped` (the default)
  at_watermark,  ///< emitted at the partition's watermark, counted in `late_emitted`
};

/// How `log_source` reads.
struct LogSourceOptions {
  /// Where each partition starts (default: its first offset).
  Start start = Start::beginning();
  /// Per-partition start offsets that override `start` (what a consumer committed, say).
  std::map<std::uint32_t, std::uint64_t> offsets;
  /// Keep reading at the end of a partition (see the file comment).
  bool follow = false;
  /// When following: a partition that delivered nothing for this long stops holding the
  /// frontier (nothing: never).
  std::optional<std::chrono::milliseconds> idle_timeout;
  Lateness lateness = Lateness::drop;
  /// Batches read from each partition per scheduling, at most (at least 1).
  std::size_t batches_per_schedule = 16;
  /// The readers' options.
  ReaderOptions reader;
};

/// One worker's counters. Written by the source on its worker's thread.
struct LogSourceStats {
  std::uint64_t records = 0;       ///< records read (emitted, late or out of range)
  std::uint64_t late_dropped = 0;  ///< late records dropped
  std::uint64_t late_emitted = 0;  ///< late records emitted at the watermark
  std::uint64_t out_of_range = 0;  ///< records whose timestamp `T` cannot hold
  /// Per partition this worker reads: the next offset it will read (for `Log::commit`).
  std::map<std::uint32_t, std::uint64_t> positions;
};

/// The records of a `log_source` and this worker's counters.
template <Timestamp T, class D>
struct LogSourceStreams {
  dataflow::Stream<T, D> records;
  std::shared_ptr<const LogSourceStats> stats;
};

namespace detail {

/// A record timestamp as `T`, or nothing if `T` cannot hold it.
template <std::integral T>
std::optional<T> time_of(std::int64_t ts) noexcept {
  if constexpr (std::is_signed_v<T>) {
    if (ts < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        ts > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      return std::nullopt;
  } else {
    if (ts < 0) return std::nullopt;
    if (static_cast<std::uint64_t>(ts) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      return std::nullopt;
  }
  return static_cast<T>(ts);
}

template <std::integral T, class D, class Decode>
class LogSourceLogic {
 public:
  LogSourceLogic(Log log, std::string stream, std::vector<std::uint32_t> partitions, Decode decode,
                 LogSourceOptions options, dataflow::Capability<T> cap, scheduling::Activator activator,
                 scheduling::SyncActivator wake, std::shared_ptr<LogSourceStats> stats)
      : log_(std::move(log)),
        stream_(std::move(stream)),
        decode_(std::move(decode)),
        options_(std::move(options)),
        cap_(std::move(cap)),
        activator_(std::move(activator)),
        wake_(std::move(wake)),
        stats_(std::move(stats)) {
    const auto now = std::chrono::steady_clock::now();
    for (auto p : partitions) {
      Partition part;
      part.index = p;
      part.watermark = timely::minimum<T>();
      if (options_.start.kind == Start::Kind::timestamp && !options_.offsets.contains(p))
        if (auto t = time_of<T>(options_.start.timestamp)) part.watermark = *t;
      part.last_record = now;
      parts_.push_back(std::move(part));
    }
    if (options_.batches_per_schedule == 0) options_.batches_per_schedule = 1;
  }

  template <class Output>
  void operator()(Output& output) {
    if (!cap_) return;
    const auto now = std::chrono::steady_clock::now();
    bool more = false;  // a partition that may have more batches readable now
    for (auto& part : parts_) {
      if (part.finished) continue;
      if (!part.reader && !open(part)) continue;
      for (std::size_t b = 0;; ++b) {
        if (b == options_.batches_per_schedule) {
          more = true;
          break;
        }
        auto batch = part.reader->next_batch();
        if (!batch) {
          if (!options_.follow) part.finished = true;
          break;
        }
        part.last_record = now;
        part.idle = false;
        emit(part, *batch, output);
        stats_->positions[part.index] = part.reader->position();
      }
      if (options_.idle_timeout && !part.finished && now - part.last_record >= *options_.idle_timeout)
        part.idle = true;
    }
    // The capability: the least watermark of the partitions that still hold it.
    std::optional<T> least;
    bool any_open = false;
    for (const auto& part : parts_) {
      if (part.finished) continue;
      any_open = true;
      if (part.idle) continue;
      least = least ? std::min(*least, part.watermark) : part.watermark;
    }
    if (!any_open) {
      cap_.reset();
      return;
    }
    if (least && cap_->time() < *least) cap_->downgrade(*least);
    if (!least) {
      // Every partition is idle: hold at the greatest watermark, not beyond what was read.
      T greatest = cap_->time();
      for (const auto& part : parts_)
        if (!part.finished) greatest = std::max(greatest, part.watermark);
      if (cap_->time() < greatest) cap_->downgrade(greatest);
    }
    if (more || !options_.follow) {
      activator_.activate();
      return;
    }
    // Following, every partition read to its end: the readers' wake-ups activate the source;
    // it looks again by itself only where none can come, and when an idle timeout falls due.
    std::optional<std::chrono::steady_clock::duration> after;
    auto sooner = [&](std::chrono::steady_clock::duration d) { after = after ? std::min(*after, d) : d; };
    for (const auto& part : parts_) {
      if (!part.reader || !part.reader->watched()) sooner(options_.reader.poll_interval);
      if (part.reader && options_.idle_timeout && !part.idle)
        sooner(part.last_record + *options_.idle_timeout - now);
    }
    if (!after) return;
    // One pending timed activation is enough: skip this one if an earlier one is due anyway.
    const auto due = now + *after;
    if (poll_due_ && *poll_due_ > now && *poll_due_ <= due) return;
    activator_.activate_after(*after);
    poll_due_ = due;
  }

 private:
  struct Partition {
    std::uint32_t index = 0;
    std::optional<Reader> reader;
    T watermark{};
    bool finished = false;
    bool idle = false;
    std::chrono::steady_clock::time_point last_record;
  };

  bool open(Partition& part) {
    Start start = options_.start;
    if (auto it = options_.offsets.find(part.index); it != options_.offsets.end())
      start = Start::at_offset(it->second);
    try {
      part.reader.emplace(log_.reader(stream_, part.index, start, options_.reader));
    } catch (const ArgumentError&) {
      if (!options_.follow) throw;  // the partition does not exist
      return false;
    }
    // Following: appends from now on activate the source (those before are read next).
    if (options_.follow) part.reader->on_append([wake = wake_] { wake.activate(); });
    stats_->positions[part.index] = part.reader->position();
    return true;
  }

  template <class Output>
  void emit(Partition& part, const BatchView& batch, Output& output) {
    // Records go out in runs of one time, each run in one session.
    std::optional<T> run_time;
    std::vector<D> run;
    auto flush = [&] {
      if (run.empty()) return;
      auto session = output.session(cap_->time() == *run_time ? *cap_ : cap_->delayed(*run_time));
      for (auto& d : run) session.give(std::move(d));
      run.clear();
    };
    for (const auto record : batch) {
      ++stats_->records;
      const auto time = time_of<T>(record.timestamp);
      if (!time) {
        ++stats_->out_of_range;
        continue;
      }
      T at = *time;
      if (at < part.watermark || at < cap_->time()) {
        if (options_.lateness == Lateness::drop) {
          ++stats_->late_dropped;
          continue;
        }
        ++stats_->late_emitted;
        at = std::max(part.watermark, cap_->time());
      } else {
        part.watermark = at;
      }
      if (run_time && *run_time != at) flush();
      run_time = at;
      run.push_back(decode_(record));
    }
    flush();
  }

  Log log_;
  std::string stream_;
  Decode decode_;
  LogSourceOptions options_;
  std::optional<dataflow::Capability<T>> cap_;
  scheduling::Activator activator_;
  scheduling::SyncActivator wake_;  // for the readers' wake-ups, from other threads
  std::shared_ptr<LogSourceStats> stats_;
  std::vector<Partition> parts_;
  std::optional<std::chrono::steady_clock::time_point> poll_due_;  // of the last timed activation
};

}  // namespace detail

/// This worker's share of the records of log stream `stream` (see the file comment), decoded by
/// `decode(const RecordView&) -> D`, each at its record timestamp. `T` is an integer type whose
/// unit is the records' timestamps'. Every worker must call it.
/// \throws durable::ArgumentError if the stream does not exist (unless following: then the
/// source waits for it and sees the partitions that exist at build time, or partition 0 alone
/// if none does); from the worker's `step()`, the log's errors and what `decode` throws.
template <std::integral T, class D, class Decode>
LogSourceStreams<T, D> log_source(dataflow::Scope<T>& scope, const Log& log, const std::string& stream,
                                  Decode decode, LogSourceOptions options = {}) {
  static_assert(std::is_invocable_r_v<D, Decode&, const RecordView&>,
                "log_source: decode must be callable as decode(const durable::RecordView&) -> D");
  std::vector<std::uint32_t> all;
  try {
    all = log.partitions(stream);
  } catch (const ArgumentError&) {
    if (!options.follow) throw;
  }
  if (all.empty() && options.follow) all.push_back(0);
  std::vector<std::uint32_t> mine;
  for (auto p : all)
    if (p % scope.peers() == scope.index()) mine.push_back(p);
  auto stats = std::make_shared<LogSourceStats>();
  auto records = dataflow::operators::source<D>(
      scope, "LogSource",
      [log, stream, mine, decode = std::move(decode), options = std::move(options), stats](
          dataflow::Capability<T> cap, const dataflow::operators::OperatorInfo& info) mutable {
        return detail::LogSourceLogic<T, D, Decode>(std::move(log), std::move(stream), std::move(mine),
                                                    std::move(decode), std::move(options), std::move(cap),
                                                    info.activator, info.sync_activator, stats);
      });
  return {std::move(records), std::move(stats)};
}

}  // namespace timely::durable::operators
