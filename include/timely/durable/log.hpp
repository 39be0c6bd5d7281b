/// \file
/// The durable log: `Log` opens a log directory (streams of numbered partitions, each a
/// sequence of segments; layout and format in timely/durable/format.hpp) and is where writers,
/// readers, listings, statistics, verification and consumer offsets come from.
///
/// A minimal use:
///
///     timely::durable::Log log("/var/lib/app/log");
///     auto writer = log.writer("events", 0);
///     std::string text = "hello";
///     std::uint64_t offset = writer.append(1700000000000, std::as_bytes(std::span(text)));
///     auto reader = log.reader("events", 0, timely::durable::Start::beginning());
///     while (auto batch = reader.next_batch())
///       for (auto record : *batch) use(record.timestamp, record.text());
///
/// Thread-safety: a `Log` is immutable after construction and may be used from any number of
/// threads; what it hands out (`Writer`, `Reader`) says its own.
///
/// Source: the stream/partition/segment hierarchy is Apache Iggy's (streams of topics of
/// partitions, here one level less) and Kafka's (topic partitions as directories of segments);
/// committed consumer offsets as in both.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <timely/durable/file_system.hpp>
#include <timely/durable/reader.hpp>
#include <timely/durable/report.hpp>
#include <timely/durable/writer.hpp>

namespace timely::durable {

/// How a `Log` is opened.
struct LogOptions {
  /// All I/O goes through this (the POSIX file system unless a test substitutes another).
  std::shared_ptr<FileSystem> file_system = posix_file_system();
  /// Create the root directory if it is missing (else a missing root is an `ArgumentError`).
  bool create = true;
};

/// A log directory (see the file comment). Stream names are 1 to 200 bytes of [A-Za-z0-9._-],
/// not starting with '.'; partitions are numbered from 0.
class Log {
 public:
  /// Opens the log at `root`. \throws ArgumentError if `root` is empty, is missing and
  /// `!options.create`, or is not a directory; IoError.
  explicit Log(std::filesystem::path root, LogOptions options = {});

  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }
  [[nodiscard]] const std::shared_ptr<FileSystem>& file_system() const noexcept { return fs_; }

  /// The streams, sorted by name. \throws IoError.
  [[nodiscard]] std::vector<std::string> streams() const;
  /// The partitions of `stream`, in increasing order. \throws ArgumentError if the stream does
  /// not exist; IoError.
  [[nodiscard]] std::vector<std::uint32_t> partitions(const std::string& stream) const;
  /// Creates `stream` with partitions 0 to `partitions - 1` (those missing; the directories
  /// are synced into their parents). \throws ArgumentError for an invalid name or 0
  /// partitions; IoError.
  void create_stream(const std::string& stream, std::uint32_t partitions);

  /// Opens the writer of a partition, recovering it first (see writer.hpp).
  /// \throws WriterBusy if it has a writer already; ArgumentError for an invalid name, invalid
  /// options, or a missing partition without `options.create`; IoError.
  [[nodiscard]] Writer writer(const std::string& stream, std::uint32_t partition,
                              WriterOptions options = {}) const;
  /// Opens a reader of a partition at `start` (see reader.hpp). Readers never write.
  /// \throws ArgumentError if the partition does not exist; OffsetOutOfRange for a start
  /// offset outside the partition; CorruptionError, IoError.
  [[nodiscard]] Reader reader(const std::string& stream, std::uint32_t partition, Start start,
                              ReaderOptions options = {}) const;

  /// The partition's size and range, read from its files (sealed segments' summaries from
  /// their index headers; the active segment, and sealed ones whose indexes are stale, read
  /// whole). Damaged batches are not counted.
  /// \throws ArgumentError if the partition does not exist; IoError.
  [[nodiscard]] PartitionStats stats(const std::string& stream, std::uint32_t partition) const;
  /// Reads every batch of the partition and checks its checksum and offsets, and checks every
  /// index entry against the batch it points at and every sealed index header against its
  /// segment. Reports problems rather than throwing them. Meant for a partition with no writer:
  /// it reads the files as they are, so while a writer appends it can report damage at the tail
  /// of the active segment and in its index (a batch or an entry half written) that is not
  /// damage; such a result is provisional.
  /// \throws ArgumentError if the partition does not exist; IoError.
  [[nodiscard]] VerifyReport verify(const std::string& stream, std::uint32_t partition) const;

  /// Commits `offset` (the next offset the consumer will read) as consumer `name`'s, durably:
  /// written to a temporary file, synced, renamed over the last commit, directory synced.
  /// Any process may commit; the last rename wins.
  /// \throws ArgumentError for an invalid name or missing partition; IoError.
  void commit(const std::string& stream, std::uint32_t partition, const std::string& name,
              std::uint64_t offset) const;
  /// Consumer `name`'s committed offset, or nothing if it never committed.
  /// \throws CorruptionError if the offset file is damaged; ArgumentError; IoError.
  [[nodiscard]] std::optional<std::uint64_t> committed(const std::string& stream, std::uint32_t partition,
                                                       const std::string& name) const;
  /// The consumers that committed offsets in a partition, sorted. \throws IoError.
  [[nodiscard]] std::vector<std::string> consumers(const std::string& stream, std::uint32_t partition) const;

 private:
  // The partition's directory; \throws ArgumentError for an invalid stream name, or if
  // `must_exist` and the partition does not exist.
  [[nodiscard]] std::filesystem::path partition_dir(const std::string& stream, std::uint32_t partition,
                                                    bool must_exist) const;
  // The partition's directory, created (and synced into its parent) if missing.
  std::filesystem::path ensure_partition(const std::string& stream, std::uint32_t partition) const;

  std::filesystem::path root_;
  std::shared_ptr<FileSystem> fs_;
};

}  // namespace timely::durable
