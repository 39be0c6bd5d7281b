/// \file
/// An exactly-once-ready sink: `stream | write_to_log(log, stream_name)` writes the records of
/// each time once, when the input frontier has passed that time, as one log batch per time in
/// the partition of this worker, in a canonical order, so that a re-run from the same input
/// writes the same log and a re-run after a crash writes only what is missing.
///
/// # What is written
///
/// Records are encoded by `encode(const D&) -> std::string` (default: `communication::Codec<D>`,
/// the encoding of capture files) and routed to worker `XXH3_64bits(encoded) % peers` (an
/// exchange by the bytes themselves, so a record reaches the same partition whichever worker
/// produced it). Worker `w` writes partition `w` of the log stream. For each time `t` at which
/// it received records, once the input frontier is past `t` (no record at `t` can still come),
/// it appends one batch: the records' encodings sorted bytewise (so that the contents do not
/// depend on arrival order), each with timestamp `t`. Times are written in increasing order,
/// the order in which the frontier passes them (the time must be an integer: a total order).
/// Times without records write nothing.
///
/// A partition written by a run of the same dataflow on the same input, with the same number
/// of workers, therefore holds the same records in the same batches, byte for byte.
///
/// # Re-runs after a crash
///
/// On start the sink reads its partition's largest timestamp, the last time written (a batch is
/// appended whole or not at all: the writer's recovery cuts a torn batch), and skips every time
/// at or below it. Since times are written in increasing order, every time up to the last one
/// written was written completely, so a re-run from the same input offsets completes the log
/// without duplicates. It needs the re-run to have the same number of workers (the partitions
/// are the routing's), and the same input (a source re-read from the offsets the first run
/// started at: a log source, say). `LogSinkStats::skipped_times` counts the times skipped.
/// A re-run with another number of workers is refused when the dataflow is built (an
/// `ArgumentError` naming the stream and both counts): a partition at or beyond the worker
/// count that holds records shows a run of more workers; holding records while this worker's
/// partition is missing shows one of fewer. (Every worker of a run creates its partition
/// before any time completes, so a run that wrote anything left all its partitions.)
///
/// The writer is synced as `WriterOptions::durability` says; a time counts as written once its
/// append returns. The sink closes (and syncs) its writer when its input is complete.
///
/// Source of the idea: idempotent writes keyed by (partition, time), as Kafka's idempotent
/// producer and Flink's two-phase commit sinks aim for, made simple by the frontier: a time is
/// final once the frontier passes it. Thread-safety: the sink runs on its worker's thread.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <xxhash.h>

#include <timely/communication/codec.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/durable/error.hpp>
#include <timely/durable/format.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/writer.hpp>

namespace timely::durable::operators {

/// A record's bytes by its `communication::Codec`.
struct CodecEncode {
  template <communication::Encodable D>
  std::string operator()(const D& d) const {
    std::vector<std::uint8_t> bytes;
    communication::Encoder e(bytes);
    e.put(d);
    return std::string(bytes.begin(), bytes.end());
  }
};

/// One worker's sink counters, written on its worker's thread.
struct LogSinkStats {
  std::uint64_t times_written = 0;  ///< batches appended (one per time with records)
  std::uint64_t records_written = 0;
  std::uint64_t skipped_times = 0;  ///< times at or below the last one written before this run
  std::uint64_t skipped_records = 0;
  /// The last time written before this run (the partition's largest timestamp), if any.
  std::optional<std::int64_t> resumed_after;
};

namespace detail {

template <class Encode>
struct WriteToLog {
  const Log* log;
  std::string name;
  Encode encode;
  WriterOptions options;
  std::shared_ptr<LogSinkStats> stats;

  template <std::integral T, class D>
  void operator()(const dataflow::Stream<T, D>& stream) && {
    auto scope = stream.scope();
    const auto partition = static_cast<std::uint32_t>(scope.index());
    check_worker_count(*log, name, partition, static_cast<std::uint32_t>(scope.peers()));
    options.create = true;
    auto writer = std::make_shared<Writer>(log->writer(name, partition, options));
    const auto held = writer->stats();
    stats->resumed_after = held.max_timestamp;
    auto route = [encode = encode](const D& d) {
      const std::string bytes = encode(d);
      return static_cast<std::uint64_t>(XXH3_64bits(bytes.data(), bytes.size()));
    };
    stream | dataflow::operators::sink(
                 dataflow::Exchange{route}, "WriteToLog",
                 [writer, encode = encode, stats = stats](const auto&) mutable {
                   return [writer, encode, stats, pending = std::map<T, std::vector<std::string>>(),
                           closed = false](dataflow::OperatorInput<T, D>& input) mutable {
                     input.for_each([&](const auto& cap, std::vector<D>& data) {
                       auto& out = pending[cap.time()];
                       for (const auto& d : data) out.push_back(encode(d));
                     });
                     while (!pending.empty() && !input.frontier().less_equal(pending.begin()->first)) {
                       auto node = pending.extract(pending.begin());
                       write(*writer, *stats, node.key(), node.mapped());
                     }
                     if (!closed && input.frontier().frontier().empty() && pending.empty()) {
                       writer->close();  // syncs: the input is complete
                       closed = true;
                     }
                   };
                 });
  }

  // Refuses a stream written by a run of another number of workers (see the file comment).
  static void check_worker_count(const Log& log, const std::string& stream, std::uint32_t partition,
                                 std::uint32_t workers) {
    const auto existing = log.streams();
    if (std::find(existing.begin(), existing.end(), stream) == existing.end()) return;
    const auto partitions = log.partitions(stream);
    auto holds_records = [&](std::uint32_t p) {
      return log.reader(stream, p, Start::beginning()).next_batch().has_value();
    };
    const std::string run = "write_to_log on " + std::to_string(workers) + " workers: ";
    const std::string why =
        "; the sink routes records by the number of workers, so a re-run must "
        "have as many workers as the run that wrote the stream (or write a "
        "new stream)";
    auto name = [&](std::uint32_t p) { return stream + "/" + std::to_string(p); };
    for (auto p : partitions)
      if (p >= workers && holds_records(p))
        throw ArgumentError(name(p), "", std::nullopt,
                            run +
                                "this partition holds records, so a run of more workers wrote "
                                "the stream" +
                                why);
    if (std::find(partitions.begin(), partitions.end(), partition) != partitions.end()) return;
    for (auto p : partitions)
      if (holds_records(p))
        throw ArgumentError(name(p), "", std::nullopt,
                            run + "this partition holds records but partition " + name(partition) +
                                " does not exist, so a run of fewer workers wrote the stream" + why);
  }

  template <class T>
  static void write(Writer& writer, LogSinkStats& stats, const T& time, std::vector<std::string>& records) {
    const auto ts = static_cast<std::int64_t>(time);
    if (stats.resumed_after && ts <= *stats.resumed_after) {
      ++stats.skipped_times;
      stats.skipped_records += records.size();
      return;
    }
    std::sort(records.begin(), records.end());
    std::vector<RecordView> views;
    views.reserve(records.size());
    for (const auto& r : records) views.push_back({ts, std::as_bytes(std::span(r.data(), r.size()))});
    writer.append(views);
    ++stats.times_written;
    stats.records_written += records.size();
  }
};

}  // namespace detail

/// `stream | write_to_log(log, name)`: writes a `Stream<T, D>` (T an integer type, D with a
/// `communication::Codec`) as the file comment says. `stats`, if given, receives this worker's
/// counters (pass one per worker). `log` must outlive the call.
/// \throws (when the dataflow is built) durable::WriterBusy if the partition has a writer,
/// durable::ArgumentError, durable::IoError; (from `step()`) durable::IoError.
inline auto write_to_log(const Log& log, std::string name, WriterOptions options = {},
                         std::shared_ptr<LogSinkStats> stats = nullptr) {
  if (!stats) stats = std::make_shared<LogSinkStats>();
  return detail::WriteToLog<CodecEncode>{&log, std::move(name), CodecEncode{}, std::move(options),
                                         std::move(stats)};
}

/// As `write_to_log`, with the records' bytes from `encode(const D&) -> std::string` (a pure
/// function of the record: it routes and orders them).
template <class Encode>
requires(!std::same_as<std::remove_cvref_t<Encode>, WriterOptions>) auto write_to_log(
    const Log& log, std::string name, Encode encode, WriterOptions options = {},
    std::shared_ptr<LogSinkStats> stats = nullptr) {
  if (!stats) stats = std::make_shared<LogSinkStats>();
  return detail::WriteToLog<Encode>{&log, std::move(name), std::move(encode), std::move(options),
                                    std::move(stats)};
}

}  // namespace timely::durable::operators
