// What the writer, the readers and Log share about one partition (private to src/durable):
// its paths, the listing of its segments, a buffered view of a segment file, reading and
// building the sparse indexes, and the in-process notifier that wakes readers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <timely/durable/error.hpp>
#include <timely/durable/file_system.hpp>
#include <timely/durable/format.hpp>
#include <timely/durable/report.hpp>

namespace timely::durable::detail {

/// A partition's directory and the names of its files.
struct PartitionPaths {
  std::shared_ptr<FileSystem> fs;
  std::filesystem::path dir;
  std::string name;  // stream/N

  [[nodiscard]] std::filesystem::path segment(std::uint64_t base, SegmentFile kind) const {
    return dir / segment_file_name(base, kind);
  }
  [[nodiscard]] std::filesystem::path lock() const { return dir / "writer.lock"; }
  [[nodiscard]] std::filesystem::path consumers() const { return dir / "consumers"; }
};

/// Runs `f`, adding the partition's name to a LogError that passes through.
template <class F>
decltype(auto) in_partition(const std::string& name, F&& f) {
  try {
    return f();
  } catch (LogError& e) {
    e.set_partition(name);
    throw;
  }
}

/// The segments of a partition: their base offsets in increasing order (a segment exists iff
/// its .log file does), and index files whose .log file is missing.
struct Listing {
  std::vector<std::uint64_t> segments;
  std::vector<std::filesystem::path> orphans;
};
Listing list_segments(const PartitionPaths& paths);

/// A window of a segment file in 8-byte aligned memory, refilled by reads of at least `chunk`
/// bytes, so that batches are checked and handed out in place.
class SegmentBuffer {
 public:
  explicit SegmentBuffer(std::size_t chunk) : chunk_(chunk < 4096 ? 4096 : chunk) {}
  /// Up to `n` bytes of `file` at `position` (fewer only at the end of the file), reading
  /// the file if the window does not hold them all, or always if `fresh`.
  std::span<const std::byte> load(File& file, std::uint64_t position, std::size_t n, bool fresh = false);
  /// Forgets the window (the file changed or another file is read).
  void clear() noexcept { length_ = 0; }

 private:
  std::size_t chunk_;
  std::unique_ptr<std::uint64_t[]> storage_;
  std::size_t capacity_ = 0;
  std::uint64_t start_ = 0;
  std::size_t length_ = 0;
};

/// What the batch at a position of a segment file is.
struct Probe {
  BatchCheck::Status status = BatchCheck::Status::invalid;  // incomplete: runs past the end
  BatchHeader header;
  std::span<const std::byte> bytes;  // the whole batch, if valid
  std::string reason;
  bool at_end = false;  // no byte at the position: the end of the file
};
/// Checks the batch at `position`; a verdict other than valid is confirmed with a fresh read.
Probe probe(SegmentBuffer& buffer, File& file, std::uint64_t position);
/// The next position after `position` (a multiple of 8) where a valid batch starts, with that
/// batch's header, or nothing before the end of the file.
std::optional<std::pair<std::uint64_t, BatchHeader>> resync(SegmentBuffer& buffer, File& file,
                                                            std::uint64_t position);

/// Builds a segment's sparse indexes and summary batch by batch, as the writer appends and as
/// recovery and verification read (the same rule, so that a rebuilt index equals the one
/// written).
class IndexBuilder {
 public:
  IndexBuilder(std::uint64_t base, std::uint32_t interval) : base_(base), interval_(interval) {}
  /// Adds the batch at `position`; returns whether it got index entries.
  bool add(std::uint64_t position, const BatchHeader& header);
  [[nodiscard]] std::uint64_t base() const noexcept { return base_; }
  [[nodiscard]] bool empty() const noexcept { return records_ == 0; }
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  [[nodiscard]] std::int64_t first_timestamp() const noexcept { return first_ts_; }
  [[nodiscard]] std::int64_t last_timestamp() const noexcept { return last_ts_; }
  [[nodiscard]] std::int64_t max_timestamp() const noexcept { return max_ts_; }
  [[nodiscard]] const std::vector<OffsetIndexEntry>& offsets() const noexcept { return offsets_; }
  [[nodiscard]] const std::vector<TimeIndexEntry>& times() const noexcept { return times_; }
  /// The index files' bytes: header (sealed with `sealed_size` if nonzero) and entries.
  [[nodiscard]] std::vector<std::byte> file_bytes(SegmentFile kind, std::uint64_t sealed_size,
                                                  std::uint64_t end_offset) const;

 private:
  std::uint64_t base_;
  std::uint32_t interval_;
  std::uint64_t last_entry_position_ = 0;
  std::uint64_t records_ = 0;
  std::int64_t first_ts_ = 0;
  std::int64_t last_ts_ = 0;
  std::int64_t max_ts_ = 0;
  std::vector<OffsetIndexEntry> offsets_;
  std::vector<TimeIndexEntry> times_;
};

/// A whole segment file read batch by batch: the index built from its valid batches, the end
/// offset, and the damage met. With `stop_at_damage`, reading stops at the first damage (a
/// batch that is torn, fails its check or does not continue the offsets); otherwise it
/// resynchronises after damage and goes on, reporting offsets lost with it.
struct Scan {
  explicit Scan(IndexBuilder b) : builder(std::move(b)) {}
  IndexBuilder builder;
  std::uint64_t end_offset = 0;  // one past the last batch accepted
  std::uint64_t valid_end = 0;   // the byte after the last batch accepted before any damage
  std::uint64_t batches = 0;
  std::vector<CorruptionReport> damage;
};
Scan scan_segment(
    File& file, const PartitionPaths& paths, std::uint64_t base, std::uint32_t interval, bool stop_at_damage,
    const std::function<void(std::uint64_t position, const BatchHeader& header)>& on_batch = {});
/// The records in the bytes from `position` on, as their batches' headers say: a torn batch's
/// whole header, and every valid batch found after it.
std::uint64_t count_records_from(File& file, std::uint64_t position);

/// A segment's index files as read: the sealed summary if both files hold a valid sealed header
/// that agrees with the segment file's size, and the entries usable as hints (in order, inside
/// the segment file).
struct SegmentIndex {
  std::optional<IndexHeader> sealed;
  std::vector<OffsetIndexEntry> offsets;
  std::vector<TimeIndexEntry> times;
  std::string stale;  // why the sealed summary is missing
};
SegmentIndex read_index(const PartitionPaths& paths, std::uint64_t base, std::uint64_t log_size);
/// Reads a whole (small) file; nothing if it does not exist.
std::optional<std::vector<std::byte>> read_whole(FileSystem& fs, const std::filesystem::path& path);
/// Replaces a file's contents (no sync).
void write_whole(FileSystem& fs, const std::filesystem::path& path, std::span<const std::byte> bytes);

/// Wakes the readers of one partition in this process: writers notify it after every change,
/// readers wait on it. If the file system can watch, a thread turns the directory's changes
/// (other processes' appends) into notifications while anyone waits. It also holds the
/// partition's durable end offset as the writer in this process last published it, for readers
/// of durable records only (`ReaderOptions::Visibility::durable`).
class Notifier {
 public:
  Notifier(std::shared_ptr<FileSystem> fs, std::filesystem::path dir)
      : fs_(std::move(fs)), dir_(std::move(dir)) {}
  ~Notifier();
  Notifier(const Notifier&) = delete;
  Notifier& operator=(const Notifier&) = delete;

  void notify();
  [[nodiscard]] std::uint64_t generation();
  /// Sets the durable end offset (every record below it is on stable storage) and notifies.
  void publish_durable_end(std::uint64_t end);
  /// The durable end offset last published, or nothing if no writer of the partition in this
  /// process has published one while this notifier lived.
  [[nodiscard]] std::optional<std::uint64_t> durable_end();
  /// Waits until the generation differs from `seen` or `timeout` passes; starts the watcher
  /// first if there is none. Returns whether the file system can watch (if not, the caller
  /// must look for other processes' changes itself, every poll interval).
  bool wait(std::uint64_t seen, std::chrono::milliseconds timeout);
  /// Calls `callback` after every later notification (from the notifying thread: a writer's, or
  /// the watcher's) until `unlisten(id)`; starts the watcher first if there is none. Returns
  /// the listener's id.
  std::uint64_t listen(std::function<void()> callback);
  /// Removes listener `id`; when it returns, no call of its callback is under way.
  void unlisten(std::uint64_t id);
  /// Whether the watcher sees other processes' changes (false before one was started).
  [[nodiscard]] bool watching();
  /// A writer of the partition in this process took its lock, or released it. While one holds
  /// it, no other process can append, and that writer notifies every change it makes: the
  /// watcher's events would be its own changes seen a second time, so the watcher pauses (and
  /// passes on nothing) until the last such writer closes.
  void writer_opened();
  void writer_closed();

 private:
  void watch_loop();
  /// Starts the watcher if none was tried yet (under `mutex_`); returns whether this call tried.
  bool start_watch_locked();
  /// Calls every listener.
  void call_listeners();

  std::shared_ptr<FileSystem> fs_;
  std::filesystem::path dir_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint64_t generation_ = 0;
  std::optional<std::uint64_t> durable_end_;
  bool watch_tried_ = false;
  bool watching_ = false;
  bool stop_ = false;
  std::unique_ptr<DirectoryWatch> watch_;
  std::thread watcher_;
  int local_writers_ = 0;  // writers of the partition in this process holding its lock
  // Listeners, under their own mutex, held while they are called (so `unlisten` waits for a
  // call under way, and a listener added after a change's notification began is not called for
  // it: it reads that change itself).
  std::mutex listeners_mutex_;
  std::map<std::uint64_t, std::function<void()>> listeners_;
  std::uint64_t next_listener_ = 0;
};

/// The process's notifier of the partition in `dir` of `fs` (one per partition and file
/// system, shared by its writer and readers here).
std::shared_ptr<Notifier> notifier_for(const std::shared_ptr<FileSystem>& fs,
                                       const std::filesystem::path& dir);

/// Commits consumer `name`'s offset durably (temporary file, sync, rename, directory sync).
void commit_offset(const PartitionPaths& paths, const std::string& name, std::uint64_t offset);
/// Consumer `name`'s committed offset, if it committed one. \throws CorruptionError.
std::optional<std::uint64_t> read_committed(const PartitionPaths& paths, const std::string& name);

/// "pid N on HOST": what a writer writes into the lock file.
std::string holder_text();

}  // namespace timely::durable::detail
