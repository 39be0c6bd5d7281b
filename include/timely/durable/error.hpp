/// \file
/// The exceptions of the durable log: `LogError` and its subclasses `IoError` (a system call
/// failed), `CorruptionError` (bytes on disk are not what the format says), `WriterBusy` (a
/// partition already has a writer), `OffsetOutOfRange` (an offset or timestamp outside the
/// partition) and `ArgumentError` (a call's argument is invalid: a bad stream name, an empty
/// batch, a record too large).
///
/// Every message names what it is about: the partition (`stream/3`), the file, the byte offset
/// in it where relevant, and the cause (for `IoError`, the system's text of the errno, such as
/// "No space left on device"). They derive from `timely::Error` (timely/error.hpp, the one header
/// outside `timely/durable/` that the durable library includes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <timely/error.hpp>

namespace timely::durable {

/// The base of the durable log's exceptions. `what()` is the whole message; the accessors give
/// its parts to programs that handle the error.
class LogError : public timely::Error {
 public:
  /// `partition` as `stream/N`, or empty when the error concerns no one partition; `file` may
  /// be empty; `byte_offset` is a position in `file`.
  LogError(std::string partition, std::filesystem::path file, std::optional<std::uint64_t> byte_offset,
           const std::string& cause);

  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }
  /// The partition (`stream/N`), or empty.
  [[nodiscard]] const std::string& partition() const noexcept { return partition_; }
  /// The file (or directory) concerned, or empty.
  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  /// The byte offset in `file()` where the problem lies, if it lies at one.
  [[nodiscard]] std::optional<std::uint64_t> byte_offset() const noexcept { return byte_offset_; }
  /// The cause alone, without the partition, file and offset.
  [[nodiscard]] const std::string& cause() const noexcept { return cause_; }

  /// Names the partition if the error does not name one yet (the file-system layer knows files,
  /// the partition layer adds which partition they belong to as the error passes through it).
  void set_partition(const std::string& partition);

 private:
  void compose();

  std::string partition_;
  std::filesystem::path file_;
  std::optional<std::uint64_t> byte_offset_;
  std::string cause_;
  std::string message_;
};

/// A system call failed (or a `FileSystem` reported a failure). `code()` holds the errno as a
/// `std::generic_category` code; the message holds the operation, the file, the byte offset of a
/// read or write, and the system's text of the errno.
class IoError : public LogError {
 public:
  /// `operation` says what was being done ("write", "fdatasync", "open"); `error` is an errno.
  IoError(std::filesystem::path file, std::optional<std::uint64_t> byte_offset, const std::string& operation,
          int error);
  /// The errno as an error code (`code().value() == ENOSPC` for a full disk).
  [[nodiscard]] std::error_code code() const noexcept { return code_; }
  /// The errno.
  [[nodiscard]] int error_number() const noexcept { return code_.value(); }

 private:
  std::error_code code_;
};

/// Bytes on disk that are not a valid part of the format: a batch whose checksum does not
/// match, a torn batch, offsets that do not continue the ones before, a damaged index or
/// consumer-offset file. The file and byte offset are the damaged ones.
class CorruptionError : public LogError {
 public:
  using LogError::LogError;
};

/// A partition already has a writer (in this process or another): only one may append at a
/// time. `holder()` is what the holder wrote into the partition's lock file (`pid N on HOST`),
/// or empty if it could not be read.
class WriterBusy : public LogError {
 public:
  WriterBusy(std::string partition, std::filesystem::path lock_file, std::string holder);
  [[nodiscard]] const std::string& holder() const noexcept { return holder_; }

 private:
  std::string holder_;
};

/// An offset below the partition's first offset (retention deleted it) or beyond its end, or a
/// reader positioned in a segment that retention deleted. `requested()` is the offset asked for;
/// `first()` and `end()` the partition's range at the time, `end()` one past its last record.
class OffsetOutOfRange : public LogError {
 public:
  OffsetOutOfRange(std::string partition, std::uint64_t requested, std::uint64_t first, std::uint64_t end);
  [[nodiscard]] std::uint64_t requested() const noexcept { return requested_; }
  [[nodiscard]] std::uint64_t first() const noexcept { return first_; }
  [[nodiscard]] std::uint64_t end() const noexcept { return end_; }

 private:
  std::uint64_t requested_;
  std::uint64_t first_;
  std::uint64_t end_;
};

/// A call's argument is invalid (a stream or consumer name outside the allowed characters, an
/// empty batch, a batch above the format's size limit, options out of range) or the object is
/// used after `close()`. The message names the argument and its value.
class ArgumentError : public LogError {
 public:
  using LogError::LogError;
};

/// `input` as the messages quote a caller's input (a stream or consumer name, a field of a
/// line): in single quotes, each byte outside printable ASCII (and the backslash) as `\xNN`,
/// cut after `limit` bytes with "..." and the input's length, so that a message stays one
/// printable line whatever it was given. Thread-safe (a pure function).
[[nodiscard]] std::string quote_input(std::string_view input, std::size_t limit = 64);

}  // namespace timely::durable
