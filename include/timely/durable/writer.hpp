/// \file
/// A partition's writer: `Writer` appends batches of records, rolls segments, applies retention
/// and makes its appends durable as its `Durability` policy says. `WriterOptions` holds the
/// policies; a writer is made by `Log::writer` (timely/durable/log.hpp).
///
/// # Durability policies and what each can lose
///
/// "Acknowledged" means `append` returned. What an acknowledged record survives, by policy:
///
/// - `every_batch`: a process crash (kill -9) loses nothing; a power loss or kernel crash loses
///   nothing.
/// - `periodic(T, N)`: a process crash loses nothing; a power loss or kernel crash loses the
///   batches not synced yet, which are the last ones acknowledged: together fewer than N bytes
///   (if N > 0), and none acknowledged more than about T ms before it (if T > 0).
/// - `os`: a process crash loses nothing; a power loss or kernel crash loses what the kernel had
///   not written back of the active segment, at worst everything since the last sealed segment
///   (the kernel usually writes back within 30 s, but promises nothing).
/// - A bad disk, under every policy: see below.
///
/// A process crash loses nothing under any policy: `append` returns after `pwrite`, when the
/// kernel holds the bytes. `every_batch` returns only after `fdatasync` of the batch (and, for a
/// batch that starts a segment, of the directory entry). `periodic` syncs when an append brings
/// the unsynced bytes to N, and a background thread syncs when T ms have passed since the first
/// unsynced append; its loss window is that of a sync that has not happened yet. `os` never
/// syncs an append, but sealing a segment (rolling) syncs it under every policy, so that a
/// segment after the first is never created before its predecessor is complete on disk.
/// `close()` and `sync()` sync under every policy.
///
/// Readers see a batch once it is written, before it is synced: under `every_batch` before its
/// `append` returns (and even if its sync then fails), under the other policies until the next
/// sync. A power loss or kernel crash can take such a batch away after a reader has handed it
/// out (and a consumer has committed past it); the next writer then gives its offsets to new
/// records. A reader in the writer's process can ask for durable records only
/// (`ReaderOptions::Visibility::durable`): the writer publishes its durable end offset to them
/// after recovery and after every successful sync (its own, the sync thread's, a roll's,
/// `close()`'s). Across processes the durable end is not knowable from the files; see
/// reader.hpp, "What a reader sees".
///
/// A bad disk (bits flipped or sectors lost after they were written) is detected, not
/// repaired: every batch has a checksum. Damage in a sealed segment is reported (by
/// `Log::verify`, by readers, by recovery when it rebuilds an index) and readers throw or skip
/// it by their policy; damage in the active segment is cut by the next writer's recovery,
/// together with everything after it. The records in damaged batches are lost.
///
/// An `append` that throws was not acknowledged; its batch may still have reached the file
/// (the write succeeded and the sync failed), in which case it is found again after reopening.
/// After a failed sync the writer refuses further appends (`IoError` naming the first failure):
/// the kernel may have dropped the pages that failed, so only reopening, which reads the file
/// back, knows what is on disk. This holds for a sync by `periodic`'s background thread too,
/// which has no caller to tell: its failure is thrown by the writer's next `append`, `sync`,
/// `roll` or `apply_retention`, and by `close()`, so a failed background sync is never
/// followed by an acknowledgment. Records acknowledged before the failure and after the last
/// successful sync are in doubt: they may or may not survive a power loss. `close()` throws
/// the failure whether or not a call has thrown it already, so that a `close()` that returns
/// normally always means every acknowledged record is durable; it releases the lock all the
/// same. (Under `every_batch` the records acknowledged before a failure were each synced, so
/// they are durable although `close()` throws.) The destructor never throws.
///
/// # Recovery
///
/// Opening a writer recovers the partition: it removes index files left without their segment
/// file, checks every sealed segment's indexes (rebuilding those that are missing or stale from
/// the segment, and reporting any damage found while doing so), then reads the whole active
/// segment, checking every batch: at the first batch that is torn, fails its checksum or does
/// not continue the offsets, the segment is cut (truncated), and the active segment's indexes
/// are rebuilt. The active segment and the partition's directory are then synced, so that
/// whatever recovery keeps (including batches whose appends failed but reached the file) is
/// durable before readers see it and appends follow it. `Writer::recovery()` reports what was
/// done.
///
/// Source: Kafka's log (segments rolled by size and by the age of their records, retention by
/// size and age deleting whole segments, recovery truncating the active segment at the first
/// invalid batch; flush.messages and flush.ms as the periodic policy).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <timely/durable/format.hpp>
#include <timely/durable/report.hpp>

namespace timely::durable {

/// When a writer's appends reach stable storage (see the file comment for what each loses).
struct Durability {
  enum class Mode {
    every_batch,  ///< fdatasync before `append` returns
    periodic,     ///< fdatasync every `interval` and every `bytes` bytes
    os,           ///< no fdatasync for appends: the kernel writes back when it will
  };
  Mode mode = Mode::every_batch;
  /// For `periodic`: the longest an acknowledged batch stays unsynced (0: no time bound).
  std::chrono::milliseconds interval{0};
  /// For `periodic`: the unsynced bytes that trigger a sync within the append that reaches
  /// them (0: no byte bound).
  std::uint64_t bytes = 0;

  [[nodiscard]] static Durability every_batch() noexcept { return {}; }
  /// At least one of `interval` and `bytes` must be nonzero.
  [[nodiscard]] static Durability periodic(std::chrono::milliseconds interval, std::uint64_t bytes) noexcept {
    return {Mode::periodic, interval, bytes};
  }
  [[nodiscard]] static Durability os() noexcept { return {Mode::os, {}, 0}; }
};

/// Which sealed segments a writer deletes, oldest first, whole; never the active segment.
struct Retention {
  /// Delete the oldest segments while the segment files (.log) of the partition total more
  /// than this many bytes.
  std::optional<std::uint64_t> max_bytes{};
  /// Delete a segment once its largest timestamp is below `now - max_age`, in timestamp units;
  /// `now` is `apply_retention`'s argument or, during appends, the largest timestamp the
  /// partition holds (the log's own clock: event time, not the wall clock).
  std::optional<std::int64_t> max_age{};
};

/// A writer's options. Defaults: sync every batch, 64 MiB segments, an index entry every 4 KiB.
struct WriterOptions {
  Durability durability{};
  /// Roll (seal the active segment and start the next) before an append that would make the
  /// active segment larger than this; a batch larger than this gets a segment of its own.
  /// From 4096 to 2^31.
  std::uint64_t segment_bytes = std::uint64_t{64} << 20;
  /// Roll before an append whose largest timestamp is at least this much above the active
  /// segment's first timestamp (timestamp units; nothing: no roll by age).
  std::optional<std::int64_t> segment_age{};
  /// Bytes between index entries (see format.hpp); at least 8.
  std::uint32_t index_interval_bytes = 4096;
  /// Applied after recovery, after every roll and by `apply_retention`.
  Retention retention{};
  /// Create the stream's and the partition's directories if they are missing (else a missing
  /// partition is an `ArgumentError`).
  bool create = true;
};

namespace detail {
class WriterState;
}

/// The one writer of a partition. Appends batches of records, each batch getting the next
/// dense offsets, and keeps the partition's lock file locked (flock) while open, so that a
/// second writer, in this process or another, gets `WriterBusy`.
///
/// A moved-from writer holds nothing: every member but `close()` (which does nothing), the
/// destructor and assignment throws `ArgumentError` ("a moved-from writer"), the accessors
/// (`recovery`, `end_offset`, `first_offset`, `partition`, `stats`) included.
///
/// Thread-safety: one thread at a time (a `periodic` writer's own sync thread is synchronized
/// with it). Readers may read the partition concurrently, from any thread or process.
class Writer {
 public:
  Writer(Writer&&) noexcept;
  Writer& operator=(Writer&&) noexcept;
  /// Closes the writer if `close()` was not called; errors are lost (call `close()` to see
  /// them).
  ~Writer();

  /// Appends `records` as one batch and returns the offset of its first record; the others
  /// follow it. Returns when the durability policy is satisfied. Rolls the segment first if the
  /// batch would overflow it or its timestamps are past the segment's age, and then applies
  /// retention.
  /// \throws ArgumentError if `records` is empty or the batch exceeds `kMaxBatchBytes`, or the
  /// writer is closed; IoError if a write or sync fails (the batch is not acknowledged; see the
  /// file comment), or if the writer failed earlier, including a failed sync of `periodic`'s
  /// background thread (the first failure is thrown again, and the batch is not written).
  std::uint64_t append(std::span<const RecordView> records);
  /// Appends one record as a batch of one.
  std::uint64_t append(std::int64_t timestamp, std::span<const std::byte> bytes);

  /// Syncs every appended batch now, whatever the policy. \throws IoError if the sync fails or
  /// the writer failed earlier (as `append`).
  void sync();
  /// Seals the active segment and starts the next one now (nothing if it is empty).
  /// \throws IoError.
  void roll();
  /// Applies the retention options, with `now` for the age limit (default: the partition's
  /// largest timestamp). Returns the base offsets of the segments deleted. \throws IoError.
  std::vector<std::uint64_t> apply_retention(std::optional<std::int64_t> now = std::nullopt);
  /// Syncs, stops the sync thread, releases the lock. Later calls but `close()` throw
  /// `ArgumentError`; a second `close()` does nothing. Returns normally only if every
  /// acknowledged record is durable.
  /// \throws IoError if the final sync fails, or if the writer failed earlier, including a
  /// failed sync of `periodic`'s background thread that no call has reported yet (that first
  /// failure is thrown, naming the partition and its cause, and no final sync is tried); the lock
  /// is released anyway.
  void close();

  /// What opening this writer recovered.
  [[nodiscard]] const RecoveryReport& recovery() const;
  /// The offset the next record appended gets.
  [[nodiscard]] std::uint64_t end_offset() const;
  /// The partition's first offset (retention raises it).
  [[nodiscard]] std::uint64_t first_offset() const;
  /// The partition, as `stream/N`.
  [[nodiscard]] const std::string& partition() const;
  /// The partition's size and range, from the writer's own state (no I/O).
  [[nodiscard]] PartitionStats stats() const;

 private:
  friend class Log;
  explicit Writer(std::unique_ptr<detail::WriterState> state);
  std::unique_ptr<detail::WriterState> state_;
};

}  // namespace timely::durable
