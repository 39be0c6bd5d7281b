/// \file
/// The file-system interface through which the durable log does all its I/O: `FileSystem`
/// opens `File`s, lists, renames and removes directory entries, syncs directories, takes a
/// partition's writer lock and watches a directory for changes. `posix_file_system()` is the
/// default (POSIX calls on Linux); tests substitute `SimulatedFileSystem`
/// (timely/durable/simulated_file_system.hpp), which can lose unsynced writes, tear them and fail
/// calls, and users may substitute their own.
///
/// Errors: every operation reports failure by throwing `IoError` naming the file, the operation
/// and the errno (an implementation of the interface must do the same, so that the log's
/// messages name the cause). Thread-safety: a `FileSystem` is used from any number of threads at
/// once; a `File` from one thread at a time (each reader and writer opens its own).
///
/// Source: the split follows LevelDB's and RocksDB's `Env` (a file-system interface that tests
/// replace with a fault-injecting one); the operations are POSIX's.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace timely::durable {

/// An open file: reads and writes at explicit byte positions (pread/pwrite), its size,
/// truncation, and `sync` (fdatasync: the file's data and size reach stable storage).
class File {
 public:
  virtual ~File() = default;
  /// Reads up to `out.size()` bytes at `position`; fewer only at the end of the file. Returns
  /// the number read.
  virtual std::size_t read_at(std::uint64_t position, std::span<std::byte> out) = 0;
  /// Writes all of `bytes` at `position`, extending the file if needed. On failure (a full
  /// disk) a prefix of `bytes` may have been written.
  virtual void write_at(std::uint64_t position, std::span<const std::byte> bytes) = 0;
  /// The file's size in bytes.
  virtual std::uint64_t size() = 0;
  /// Cuts (or extends with zeros) the file to `size` bytes.
  virtual void truncate(std::uint64_t size) = 0;
  /// Waits until the file's data and size are on stable storage (fdatasync).
  virtual void sync() = 0;
  /// The path the file was opened as.
  [[nodiscard]] virtual const std::filesystem::path& path() const noexcept = 0;
};

/// A held exclusive lock on a file; released when destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

/// Notices changes in one directory (files created, written, truncated, renamed or removed in
/// it) by any process.
class DirectoryWatch {
 public:
  virtual ~DirectoryWatch() = default;
  /// Waits until something changed since the last call (or since the watch was made), or
  /// `timeout` has passed, or `interrupt` was called. Returns whether something changed.
  virtual bool wait(std::chrono::milliseconds timeout) = 0;
  /// Makes a `wait` in progress in another thread, or the next one, return at once. The one
  /// call that may come from another thread than the waiting one.
  virtual void interrupt() = 0;
};

/// How `FileSystem::open` opens a file.
enum class OpenMode {
  read,        ///< read only; the file must exist
  read_write,  ///< read and write; the file must exist
  create,      ///< read and write; created empty if missing (not synced into its directory)
};

/// The file-system operations the log uses (see the file comment).
class FileSystem {
 public:
  virtual ~FileSystem() = default;
  /// Opens `path`. \throws IoError (ENOENT for a missing file with `read` or `read_write`).
  virtual std::unique_ptr<File> open(const std::filesystem::path& path, OpenMode mode) = 0;
  /// Whether `path` exists (a file or a directory).
  virtual bool exists(const std::filesystem::path& path) = 0;
  /// Whether `path` is a directory.
  virtual bool is_directory(const std::filesystem::path& path) = 0;
  /// The names of the entries of directory `dir` (not "." and ".."), in no particular order.
  virtual std::vector<std::string> list(const std::filesystem::path& dir) = 0;
  /// Creates directory `dir` if it does not exist (its parent must). Not synced into its parent.
  virtual void create_directory(const std::filesystem::path& dir) = 0;
  /// Renames `from` to `to` atomically, replacing `to`; both in the same directory.
  virtual void rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  /// Removes the file `path`. Returns false if it did not exist.
  virtual bool remove(const std::filesystem::path& path) = 0;
  /// Syncs directory `dir`: entries created, renamed or removed in it reach stable storage.
  virtual void sync_directory(const std::filesystem::path& dir) = 0;
  /// Takes the exclusive lock of `path` (created if missing) without waiting, and writes
  /// `holder` into the file. Returns nothing if another holder (this process or another) has
  /// it, and then `current_holder` receives what that holder wrote (empty if unreadable).
  virtual std::unique_ptr<FileLock> try_lock(const std::filesystem::path& path, const std::string& holder,
                                             std::string& current_holder) = 0;
  /// A watch of directory `dir`, or nothing if this file system cannot watch (then readers fall
  /// back to a short poll for other processes' changes).
  virtual std::unique_ptr<DirectoryWatch> watch(const std::filesystem::path& dir) = 0;
};

/// The POSIX file system: open/pread/pwrite/fstat/ftruncate/fdatasync on file descriptors,
/// fsync on directories, flock(LOCK_EX | LOCK_NB) for locks (which also excludes a second
/// holder in the same process: each lock opens its own file description), and inotify for
/// watches (nothing if inotify is unavailable, for instance when the watch limit is reached).
/// One shared instance.
[[nodiscard]] std::shared_ptr<FileSystem> posix_file_system();

}  // namespace timely::durable
