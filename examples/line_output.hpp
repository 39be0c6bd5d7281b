// LineOutput: an example's many lines of output, written so that processes sharing one pipe do
// not splice them. Two processes of a computation started with one pipe as standard output (a
// shell's `(a & b) | sort`) each flush stdio's blocks, which end anywhere in a line, and a
// write(2) of more than PIPE_BUF bytes to a pipe may be interleaved with another writer's. LineOutput buffers
// text and writes only whole lines, in write(2) calls of at most PIPE_BUF bytes, which POSIX makes atomic on
// a pipe: every line arrives whole, whatever the other process writes between two of them. A line longer than
// PIPE_BUF is written in one call of its own, whole but not atomic.
//
// A launcher that relays its processes' output may read it in chunks of its own and cut lines
// where it likes; Open MPI's mpirun does (book chapter 10): there, write a file per process
// (mpirun --output-filename) or use timely-run, which relays whole lines.
#pragma once

#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

namespace examples {

class LineOutput {
 public:
  /// Writes to file descriptor `fd` (standard output by default).
  explicit LineOutput(int fd = STDOUT_FILENO) : fd_(fd) {}
  LineOutput(const LineOutput&) = delete;
  LineOutput& operator=(const LineOutput&) = delete;
  /// Writes what is left; errors are lost here, so call `flush()` to see them.
  ~LineOutput() {
    try {
      flush();
    } catch (const std::system_error&) {
    }
  }

  /// Adds `text`, any number of lines; writes the whole lines buffered once there are enough to
  /// fill a write. \throws std::system_error if a write fails.
  void append(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushAt) write_lines(false);
  }

  /// Writes everything buffered (a last line without its newline too).
  /// \throws std::system_error if a write fails.
  void flush() { write_lines(true); }

  /// The most one write(2) carries: PIPE_BUF, 4096 on Linux, at least 512 by POSIX.
  static constexpr std::size_t kAtomic = PIPE_BUF;

 private:
  static constexpr std::size_t kFlushAt = 64 * 1024;

  // Writes the buffer's whole lines (with `all`, also a last partial line) in calls of at most
  // kAtomic bytes, each ending at a line end.
  void write_lines(bool all) {
    // What stdio holds for the same descriptor goes first, so the order is the program's.
    if (fd_ == STDOUT_FILENO) std::fflush(stdout);
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const std::string_view rest = std::string_view(buffer_).substr(done);
      std::size_t take = 0;
      if (rest.size() <= kAtomic && rest.back() == '\n') {
        take = rest.size();
      } else if (const auto end = rest.substr(0, kAtomic).rfind('\n'); end != std::string_view::npos) {
        take = end + 1;  // as many whole lines as fit
      } else if (const auto long_end = rest.find('\n'); long_end != std::string_view::npos) {
        take = long_end + 1;  // one line longer than kAtomic: whole, in a call of its own
      } else if (all) {
        take = rest.size();  // the last line has no newline
      } else {
        break;  // a partial line waits for its end
      }
      write_all(rest.substr(0, take));
      done += take;
    }
    buffer_.erase(0, done);
  }

  void write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ::ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::system_error(errno, std::generic_category(), "cannot write the output");
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));  // a file may take part of it
    }
  }

  int fd_;
  std::string buffer_;
};

}  // namespace examples
