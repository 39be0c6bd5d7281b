// The POSIX file system (timely/durable/file_system.hpp): file descriptors, pread/pwrite,
// fdatasync, fsync of directories, flock and inotify. Every failure is an IoError with the
// errno (EINTR retried), but for a FIFO, socket, device or directory where a file belongs: a
// CorruptionError, found without blocking on it.
#include <timely/durable/error.hpp>
#include <timely/durable/file_system.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <limits>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace timely::durable {

namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::optional<std::uint64_t> at,
                       const char* operation, int error) {
  throw IoError(path, at, operation, error);
}

class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  [[nodiscard]] int get() const noexcept { return fd_; }
  /// Gives up the descriptor without closing it.
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

class PosixFile final : public File {
 public:
  PosixFile(std::filesystem::path path, int fd, std::uint64_t size_limit)
      : path_(std::move(path)), fd_(fd), size_limit_(size_limit) {}

  std::size_t read_at(std::uint64_t position, std::span<std::byte> out) override {
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n =
          ::pread(fd_.get(), out.data() + done, out.size() - done, static_cast<off_t>(position + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(path_, position + done, "read", errno);
      }
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    return done;
  }

  void write_at(std::uint64_t position, std::span<const std::byte> bytes) override {
    check_limit(position + bytes.size(), position, "write");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n =
          ::pwrite(fd_.get(), bytes.data() + done, bytes.size() - done, static_cast<off_t>(position + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(path_, position + done, "write", errno);
      }
      done += static_cast<std::size_t>(n);
    }
  }

  std::uint64_t size() override {
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) fail(path_, std::nullopt, "fstat", errno);
    return static_cast<std::uint64_t>(st.st_size);
  }

  void truncate(std::uint64_t size) override {
    check_limit(size, size, "ftruncate");
    while (::ftruncate(fd_.get(), static_cast<off_t>(size)) != 0)
      if (errno != EINTR) fail(path_, size, "ftruncate", errno);
  }

  void sync() override {
    while (::fdatasync(fd_.get()) != 0)
      if (errno != EINTR) fail(path_, std::nullopt, "fdatasync", errno);
  }

  [[nodiscard]] const std::filesystem::path& path() const noexcept override { return path_; }

 private:
  // Past the process's file size limit (ulimit -f) the kernel sends SIGXFSZ, which ends the
  // process; the log fails the write with EFBIG instead, before writing any of it.
  void check_limit(std::uint64_t end, std::uint64_t position, const char* operation) const {
    if (end > size_limit_) fail(path_, position, operation, EFBIG);
  }

  std::filesystem::path path_;
  Descriptor fd_;
  std::uint64_t size_limit_;
};

class PosixLock final : public FileLock {
 public:
  explicit PosixLock(int fd) : fd_(fd) {}

 private:
  Descriptor fd_;  // closing the descriptor releases the flock
};

class InotifyWatch final : public DirectoryWatch {
 public:
  InotifyWatch(int inotify, int wake) : inotify_(inotify), wake_(wake) {}

  bool wait(std::chrono::milliseconds timeout) override {
    if (drain(inotify_.get())) return true;
    pollfd p[2] = {{inotify_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    const auto ms = std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, INT_MAX);
    if (::poll(p, 2, static_cast<int>(ms)) < 0 && errno != EINTR)
      throw IoError("", std::nullopt, "poll on inotify", errno);
    drain(wake_.get());
    return drain(inotify_.get());
  }

  void interrupt() override {
    const std::uint64_t one = 1;
    // An eventfd's counter only fails to take 1 at its maximum, when a wake-up is pending anyway.
    [[maybe_unused]] const ssize_t n = ::write(wake_.get(), &one, sizeof one);
  }

 private:
  // Reads every pending event; returns whether there were any.
  static bool drain(int fd) {
    alignas(inotify_event) char buffer[4096];
    bool any = false;
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) {
        any = true;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN) throw IoError("", std::nullopt, "read of inotify events", errno);
      return any;
    }
  }

  Descriptor inotify_;
  Descriptor wake_;
};

// \throws CorruptionError if `fd` is not a regular file: a FIFO, socket, device or directory
// where the log keeps a file (found without reading from it, which could block).
void require_regular(int fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, std::nullopt, "fstat", errno);
  if (!S_ISREG(st.st_mode))
    throw CorruptionError("", path, std::nullopt,
                          S_ISDIR(st.st_mode) ? "a directory where the log keeps a file"
                                              : "not a regular file (a FIFO, socket or device) where the log "
                                                "keeps a file");
}

class PosixFileSystem final : public FileSystem {
 public:
  std::unique_ptr<File> open(const std::filesystem::path& path, OpenMode mode) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case OpenMode::read:
        flags |= O_RDONLY;
        break;
      case OpenMode::read_write:
        flags |= O_RDWR;
        break;
      case OpenMode::create:
        flags |= O_RDWR | O_CREAT;
        break;
    }
    // O_NONBLOCK so that a FIFO in place of a log file does not block the open; a regular
    // file ignores it, and anything else is refused below.
    int fd;
    while ((fd = ::open(path.c_str(), flags | O_NONBLOCK, 0644)) < 0)
      if (errno != EINTR) fail(path, std::nullopt, "open", errno);
    Descriptor guard(fd);
    require_regular(fd, path);
    if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
      fail(path, std::nullopt, "fcntl", errno);
    std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    struct rlimit r {};
    if (mode != OpenMode::read && ::getrlimit(RLIMIT_FSIZE, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      limit = static_cast<std::uint64_t>(r.rlim_cur);
    return std::make_unique<PosixFile>(path, guard.release(), limit);
  }

  bool exists(const std::filesystem::path& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    fail(path, std::nullopt, "stat", errno);
  }

  bool is_directory(const std::filesystem::path& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return S_ISDIR(st.st_mode);
    if (errno == ENOENT || errno == ENOTDIR) return false;
    fail(path, std::nullopt, "stat", errno);
  }

  std::vector<std::string> list(const std::filesystem::path& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) fail(dir, std::nullopt, "opendir", errno);
    std::vector<std::string> names;
    for (;;) {
      errno = 0;
      const dirent* entry = ::readdir(d);
      if (entry == nullptr) {
        const int error = errno;
        ::closedir(d);
        if (error != 0) fail(dir, std::nullopt, "readdir", error);
        return names;
      }
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
  }

  void create_directory(const std::filesystem::path& dir) override {
    if (::mkdir(dir.c_str(), 0755) == 0) return;
    const int error = errno;
    if (error == EEXIST && is_directory(dir)) return;
    fail(dir, std::nullopt, "mkdir", error);
  }

  void rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0)
      fail(to, std::nullopt, ("rename from '" + from.string() + "'").c_str(), errno);
  }

  bool remove(const std::filesystem::path& path) override {
    if (::unlink(path.c_str()) == 0) return true;
    if (errno == ENOENT) return false;
    fail(path, std::nullopt, "unlink", errno);
  }

  void sync_directory(const std::filesystem::path& dir) override {
    int fd;
    while ((fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
      if (errno != EINTR) fail(dir, std::nullopt, "open directory", errno);
    Descriptor d(fd);
    while (::fsync(d.get()) != 0)
      if (errno != EINTR) fail(dir, std::nullopt, "fsync of the directory", errno);
  }

  std::unique_ptr<FileLock> try_lock(const std::filesystem::path& path, const std::string& holder,
                                     std::string& current_holder) override {
    int fd;
    while ((fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
      if (errno != EINTR) fail(path, std::nullopt, "open", errno);
    auto lock = std::make_unique<PosixLock>(fd);
    require_regular(fd, path);
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno == EWOULDBLOCK) {
        char text[256];
        const ssize_t n = ::pread(fd, text, sizeof text, 0);
        current_holder = n > 0 ? std::string(text, static_cast<std::size_t>(n)) : std::string();
        while (!current_holder.empty() && (current_holder.back() == '\n' || current_holder.back() == '\0'))
          current_holder.pop_back();
        return nullptr;
      }
      fail(path, std::nullopt, "flock", errno);
    }
    // Who holds it, for the error a second writer gets; not synced (it is a hint).
    if (::ftruncate(fd, 0) != 0) fail(path, std::nullopt, "ftruncate", errno);
    const std::string text = holder + "\n";
    if (::pwrite(fd, text.data(), text.size(), 0) < 0) fail(path, 0, "write", errno);
    return lock;
  }

  std::unique_ptr<DirectoryWatch> watch(const std::filesystem::path& dir) override {
    const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return nullptr;  // EMFILE: the instance limit; the reader polls instead
    const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake < 0) {
      ::close(fd);
      return nullptr;
    }
    auto watch = std::make_unique<InotifyWatch>(fd, wake);
    const auto mask =
        IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ATTRIB | IN_CLOSE_WRITE;
    if (::inotify_add_watch(fd, dir.c_str(), mask) < 0) {
      if (errno == ENOSPC || errno == ENOMEM) return nullptr;  // the watch limit
      fail(dir, std::nullopt, "inotify_add_watch", errno);
    }
    return watch;
  }
};

}  // namespace

std::shared_ptr<FileSystem> posix_file_system() {
  static const std::shared_ptr<FileSystem> instance = std::make_shared<PosixFileSystem>();
  return instance;
}

}  // namespace timely::durable
