/// \file
/// A partition's reader: `Reader` reads batches in offset order from a starting point (an
/// offset, a timestamp, the beginning or the end), hands each out as a `BatchView` into its
/// own buffer (no copy per record), and follows the partition's tail, waiting for appends.
/// `ReaderOptions` says what to do with damage; `Start` says where to begin. A reader is made
/// by `Log::reader` (timely/durable/log.hpp).
///
/// # Waiting for appends
///
/// `wait` and `next_batch(timeout)` block until a batch is readable or the timeout passes.
/// Appends by a writer in this process wake the reader through a condition variable that every
/// writer and reader of the partition in the process share (no polling). Appends by another
/// process wake it through inotify on the partition's directory (while a writer of the
/// partition is open in this process, no other process can append, and the watcher pauses
/// rather than wake at that writer's own appends); when the file system cannot watch (a
/// `FileSystem` without watches, or inotify's watch limit reached) the reader checks every
/// `ReaderOptions::poll_interval` instead. A thread that must not block registers a
/// callback with `on_append` instead, which the same wake-ups call (the dataflow operators of
/// timely/durable/operators/ use it to activate themselves and let their worker park).
///
/// # What a reader sees
///
/// By default (`Visibility::written`) a reader hands out every complete, valid batch in the
/// file. The writer writes a batch (`pwrite`) before it syncs it (`fdatasync`), so a reader can
/// hand out a batch that is not durable: under `every_batch` one whose `append` has not returned
/// yet, or whose sync then fails (its `append` throws, unacknowledged); under `periodic` and
/// `os` any batch not synced yet, acknowledged or not. A process crash keeps such a batch (the
/// kernel holds it; the next writer's recovery keeps it and syncs it), but a power loss or
/// kernel crash can take it away, with every batch after it, and offsets are dense: the next
/// writer gives the lost offsets to new, different records. A reader that read the lost batches
/// does not see them again (its files are gone with the machine), and a consumer that committed
/// an offset past them finds its offset beyond the partition's end (`OffsetOutOfRange` if it
/// starts there) or, once the partition has grown past it, silently skips the new records at the
/// lost offsets.
///
/// A consumer that must see only durable records has two ways:
///
/// - In the process of the partition's writer: `Visibility::durable`. The reader then hands out
///   only batches below the durable end offset that the writer publishes within the process
///   (after recovery, after every sync of its own, of `periodic`'s thread, of a roll and of
///   `close()`), and waits for the rest; positioning (`seek`, `Start::at_timestamp`) still sees
///   every batch written. Opening such a reader needs the writer open in this process, on the
///   same `FileSystem` object (`ArgumentError` otherwise); after the writer closes, the reader
///   stays at what it made durable, and never sees what a writer in another process appends
///   later. A failed sync stops the durable end where it was, until a new writer's recovery
///   (which syncs what it keeps) publishes its own.
/// - In another process, the durable end is not knowable from the files alone: a record in the
///   active segment may be in the page cache only, and nothing on disk says which. It takes
///   state the writer's process publishes, for example the offsets its appends acknowledged
///   under `every_batch` (an acknowledged record is durable), and the consumer reads and commits
///   no further than that. (A segment that has a later segment after it is durable under every
///   policy: sealing syncs it before the next one is created.)
///
/// # Damage
///
/// A reader checks every batch's checksum and that its offsets continue the previous batch's.
/// With `Corruption::fail` (the default) a damaged batch throws `CorruptionError` naming the
/// partition, segment file, byte offset and reason; the reader stays where it was, and the next
/// call throws again. With `Corruption::skip` the reader looks for the next valid batch (batches
/// start at multiples of 8, so it tries each such position), reports what it passed over in
/// `skipped()`, and goes on; offsets that the skipped bytes held are lost to it. A torn batch at
/// the end of the active segment (a writer crashed, or is writing it) is not damage: the reader
/// waits there, until the rest arrives or a writer's recovery cuts it. A reader that skipped
/// damage in the active segment may have read batches after it that a writer's recovery then
/// cuts (recovery cuts at the first damage); it meets this as damage too, and with `skip` goes
/// on from its position once appends reach it again.
///
/// # Retention
///
/// A reader keeps its current segment file open, so retention deleting it does not disturb the
/// reader until it leaves the segment. A reader that needs an offset whose segment retention
/// deleted (at `Start::offset`, `seek`, or moving on to a deleted segment) throws
/// `OffsetOutOfRange` naming the offset and the partition's current first offset, unless
/// `ReaderOptions::on_deleted` is `Deleted::skip_to_first`: then it moves on to the first
/// offset still held and counts what it missed in `offsets_missed()`.
///
/// A moved-from reader holds nothing: every member but the destructor and assignment throws
/// `ArgumentError` ("a moved-from reader"), the accessors (`position`, `skipped`,
/// `offsets_missed`, `partition`) included.
///
/// Thread-safety: one thread at a time per reader; any number of readers at once, in any
/// threads and processes, concurrently with the writer.
///
/// Source: Kafka's consumer (fetch from an offset, offsets for times through the time index,
/// OffsetOutOfRange and auto.offset.reset=earliest); the in-place views follow Iggy's
/// zero-copy reads.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <timely/durable/format.hpp>
#include <timely/durable/report.hpp>

namespace timely::durable {

/// Where a reader starts.
struct Start {
  enum class Kind { offset, timestamp, beginning, end };
  Kind kind = Kind::beginning;
  std::uint64_t offset = 0;
  std::int64_t timestamp = 0;
  /// At offset `o` (the partition's first offset <= o <= its end offset).
  [[nodiscard]] static Start at_offset(std::uint64_t o) noexcept { return {Kind::offset, o, 0}; }
  /// At the first record (in offset order) whose timestamp is >= `t`, or at the end if none.
  [[nodiscard]] static Start at_timestamp(std::int64_t t) noexcept { return {Kind::timestamp, 0, t}; }
  /// At the partition's first offset.
  [[nodiscard]] static Start beginning() noexcept { return {Kind::beginning, 0, 0}; }
  /// At the end: only records appended from now on.
  [[nodiscard]] static Start end() noexcept { return {Kind::end, 0, 0}; }
};

/// A reader's options.
struct ReaderOptions {
  /// What a damaged batch does (see the file comment).
  enum class Corruption { fail, skip };
  Corruption on_corruption = Corruption::fail;
  /// What an offset deleted by retention does (see the file comment).
  enum class Deleted { fail, skip_to_first };
  Deleted on_deleted = Deleted::fail;
  /// How often `wait` looks for another process's appends when the file system cannot watch.
  std::chrono::milliseconds poll_interval{10};
  /// Bytes read from a segment file at a time (at least one whole batch is always read).
  std::size_t read_bytes = std::size_t{256} << 10;
  /// Which batches the reader hands out (see the file comment, "What a reader sees").
  enum class Visibility {
    written,  ///< every batch in the file, durable or not
    durable,  ///< only batches below the durable end published by this process's writer
  };
  Visibility visibility = Visibility::written;
};

namespace detail {
class ReaderState;
}

/// Reads one partition in offset order (see the file comment).
class Reader {
 public:
  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  /// The next batch (the records from `position()` on of the batch that holds it), or nothing
  /// if none is readable now. The view is valid until the next call on this reader.
  /// \throws CorruptionError (with `Corruption::fail`), OffsetOutOfRange (with
  /// `Deleted::fail`), IoError.
  std::optional<BatchView> next_batch();
  /// As `next_batch()`, waiting up to `timeout` for a batch to become readable.
  std::optional<BatchView> next_batch(std::chrono::milliseconds timeout);
  /// Waits up to `timeout` until a batch is readable; returns whether one is. A timeout too
  /// long for the clock (such as `std::chrono::milliseconds::max()`) waits without limit.
  /// \throws as `next_batch()`.
  bool wait(std::chrono::milliseconds timeout);

  /// Calls `wake` whenever a batch may have become readable, instead of waiting for it: for a
  /// thread that must not block in `wait`, say a dataflow operator that lets its worker park
  /// (it activates itself through a `scheduling::SyncActivator`). `wake` runs on the thread that
  /// made the change: after each append (and, for `Visibility::durable`, each durable end
  /// published) by a writer of the partition in this process, and after each change by another
  /// process that the directory watch sees (from the watcher's thread; see `watched()`). It may
  /// be called spuriously and concurrently with anything on this reader; it must be quick and
  /// must not call into this reader or the log. Batches readable before the call need not call
  /// it: look with `next_batch()` after setting it. One callback per reader: a new one replaces
  /// the last, an empty one removes it, and so does destroying the reader; once either returns,
  /// no call of the old callback is under way. Starts the partition's directory watch if the
  /// process has none yet. \throws IoError.
  void on_append(std::function<void()> wake);
  /// Whether other processes' appends to the partition are seen as they happen (the file
  /// system watches its directory): if not, `wait` and `on_append` see them only by looking
  /// every `ReaderOptions::poll_interval`, and a caller of `on_append` must look that often
  /// itself. False until a `wait` or an `on_append` of a reader of the partition in this process
  /// started the watch.
  [[nodiscard]] bool watched() const;

  /// Moves to offset `o`. \throws OffsetOutOfRange if `o` is below the partition's first offset
  /// (with `Deleted::fail`; else moves to the first offset) or above its end offset.
  void seek(std::uint64_t o);
  /// Moves to the first record whose timestamp is >= `t` (see `Start::at_timestamp`).
  void seek_timestamp(std::int64_t t);

  /// The offset of the next record the reader hands out.
  [[nodiscard]] std::uint64_t position() const;
  /// The damage skipped so far (with `Corruption::skip`), oldest first.
  [[nodiscard]] const std::vector<CorruptionReport>& skipped() const;
  /// Offsets passed over because retention had deleted them (with `Deleted::skip_to_first`).
  [[nodiscard]] std::uint64_t offsets_missed() const;
  /// The partition, as `stream/N`.
  [[nodiscard]] const std::string& partition() const;

  /// Commits `position()` as consumer `name`'s offset (see `Log::commit`).
  /// \throws ArgumentError for an invalid name; IoError.
  void commit(const std::string& name);

 private:
  friend class Log;
  explicit Reader(std::unique_ptr<detail::ReaderState> state);
  std::unique_ptr<detail::ReaderState> state_;
};

}  // namespace timely::durable
