/// \file
/// `SimulatedFileSystem`: an in-memory `FileSystem` that models what survives a power loss and
/// injects faults, for testing the log (and programs built on it) against the promises of its
/// durability policies.
///
/// # The model
///
/// Every file has its current contents (what reads see) and its durable contents (what a power
/// loss leaves): `File::sync` makes the current contents durable. Every directory likewise has
/// current and durable entries: creating, renaming and removing change the current entries, and
/// `sync_directory` makes them durable (so a new file that was synced but whose directory was
/// not is lost in a crash, as on a real file system). Files opened before a crash fail every
/// call afterwards with EIO, and locks are released: the process or machine that held them is
/// gone.
///
/// - `crash_process()`: the process using the file system dies (kill -9): every file keeps what
///   was written to it, as the kernel keeps a dead process's writes, but the files it had open
///   fail from then on and its locks are released.
/// - `crash()`: a power loss that keeps only what was synced.
/// - `crash(seed)`: a power loss that also keeps, per file, a random prefix of the writes made
///   since its last sync, the last of them torn at a random byte, either as a prefix of its
///   bytes or as zeros in their place (a file extended before its data was written); and per
///   directory a random prefix of the changes since its last sync.
/// - `inject(fault)`: the N-th call of an operation (optionally only on paths containing some
///   text) fails with an errno, a write after storing a prefix of its bytes; a fault may
///   persist (a full disk stays full).
/// - `flip_bit`: changes one bit of a file, current and durable contents alike (a bad disk).
///
/// Renames are atomic within a directory; across directories they fail with EXDEV (the log
/// never renames across directories). Watches are not supported (`watch` returns nothing), so
/// readers use the in-process wake-ups and the poll interval.
///
/// Thread-safety: every operation takes one internal lock; any number of threads may use the
/// file system and its files at once.
///
/// Source: the model follows the crash-consistency studies of ALICE (Pillai et al., OSDI 2014)
/// and LevelDB's and RocksDB's fault-injection test environments.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <timely/durable/file_system.hpp>

namespace timely::durable {

class SimulatedFileSystem final : public FileSystem {
 public:
  /// The operations a fault can hit.
  enum class Operation {
    open,
    read,
    write,
    size,
    truncate,
    sync,
    list,
    create_directory,
    rename,
    remove,
    sync_directory,
    lock,
  };

  /// A call that fails: the `skip + 1`-th call of `operation` from now whose path contains
  /// `path_contains` (empty: any path) throws `IoError` with `error`. A write first stores
  /// `partial_bytes` of its bytes (at most all but one). With `persistent`, every matching call
  /// from then on fails too.
  struct Fault {
    Operation operation = Operation::write;
    std::uint64_t skip = 0;
    int error = EIO;
    std::string path_contains{};
    std::size_t partial_bytes = 0;
    bool persistent = false;
  };

  /// An empty file system holding only the root directory "/" (paths are absolute).
  SimulatedFileSystem();

  std::unique_ptr<File> open(const std::filesystem::path& path, OpenMode mode) override;
  bool exists(const std::filesystem::path& path) override;
  bool is_directory(const std::filesystem::path& path) override;
  std::vector<std::string> list(const std::filesystem::path& dir) override;
  void create_directory(const std::filesystem::path& dir) override;
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override;
  bool remove(const std::filesystem::path& path) override;
  void sync_directory(const std::filesystem::path& dir) override;
  std::unique_ptr<FileLock> try_lock(const std::filesystem::path& path, const std::string& holder,
                                     std::string& current_holder) override;
  std::unique_ptr<DirectoryWatch> watch(const std::filesystem::path& dir) override;

  /// Adds a fault (see `Fault`). Faults are matched in the order added.
  void inject(const Fault& fault);
  /// Removes every fault.
  void clear_faults();
  /// The death of the process using the file system (see the file comment).
  void crash_process();
  /// A power loss keeping only what was synced (see the file comment).
  void crash();
  /// A power loss keeping random parts of what was not synced, chosen by `seed`.
  void crash(std::uint64_t seed);
  /// Flips bit `bit` (0-7) of byte `byte` of file `path`, in its current and durable contents.
  /// \throws IoError (ENOENT, or EINVAL past the end).
  void flip_bit(const std::filesystem::path& path, std::uint64_t byte, unsigned bit);
  /// The current contents of file `path`. \throws IoError (ENOENT).
  [[nodiscard]] std::vector<std::byte> read_file(const std::filesystem::path& path) const;
  /// Sets file `path`'s contents, current and durable, creating it (durably) if missing; its
  /// directory must exist. \throws IoError (ENOENT).
  void write_file(const std::filesystem::path& path, const std::vector<std::byte>& bytes);
  /// The number of calls of `operation` so far (failed ones included).
  [[nodiscard]] std::uint64_t calls(Operation operation) const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace timely::durable
