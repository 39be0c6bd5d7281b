/// \file
/// `MappedEventReaderCore<T, C>`: reads a finished capture file in timely's binary event format
/// (capture/format.hpp) through a read-only memory mapping (POSIX `mmap`), so that columnar
/// batches borrow the file's bytes in place: no copy, no allocation per record, the mapping
/// kept alive by every batch that borrows it. `MappedEventReader<T, D>` is its `std::vector<D>`
/// case (records are decoded out of the mapping as `EventReader` decodes them from a stream).
///
///     auto reader = capture::MappedEventReaderCore<T, columnar::Batch<X>>::open("part-0.events");
///     replay_into(scope, std::move(reader)) | ...;      // batches with borrowed() == true
///
/// The file must be complete and must not shrink while it is mapped (a finished capture): the
/// reader checks every byte against the format and never reads past the size the file had when
/// it was mapped, but a file truncated by another process under a live mapping makes the
/// kernel signal (SIGBUS) on access, which no reader can turn into an error. Files that are
/// still being written are read with `EventReaderCore` in live mode.
///
/// Source of the idea: the reference's columnar containers read from `Bytes` in place
/// (SEMANTICS.md §9.3, §10.3), applied to capture files. Thread-safety: a reader belongs to one
/// thread at a time; the mapping is immutable and may be shared by batches on any thread.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/capture/frames.hpp>
#include <timely/communication/codec.hpp>
#include <timely/container/container.hpp>

namespace timely::capture {

/// A whole file mapped read-only (`PROT_READ`, `MAP_PRIVATE`); unmapped when destroyed. An empty
/// file maps to no bytes. Immutable once made; share it through `std::shared_ptr`.
class FileMapping {
 public:
  /// Maps the file at `path`.
  /// \throws FormatError(Io), naming the file and the system's reason, if it cannot be opened,
  /// is not a regular file, or cannot be mapped.
  static std::shared_ptr<const FileMapping> map(const std::filesystem::path& path) {
    const std::string name = path.string();
    const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(name, "cannot open it for reading", errno);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      fail(name, "cannot stat it", err);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw FormatError(FormatErrorKind::Io, 0, "cannot map it: not a regular file", true, name);
    }
    const auto size = static_cast<std::size_t>(st.st_size);
    void* data = nullptr;
    if (size != 0) {
      data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        fail(name, "cannot map its " + std::to_string(size) + " bytes", err);
      }
      (void)::madvise(data, size, MADV_SEQUENTIAL);  // a hint; failing it changes nothing
    }
    ::close(fd);  // the mapping stays valid without the descriptor
    return std::shared_ptr<const FileMapping>(new FileMapping(static_cast<const std::uint8_t*>(data), size));
  }

  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;
  ~FileMapping() {
    if (size_ != 0) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  }

  /// The mapped bytes (page-aligned), as long as this mapping lives.
  [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return {data_, size_}; }

 private:
  FileMapping(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}
  [[noreturn]] static void fail(const std::string& name, const std::string& what, int err) {
    throw FormatError(FormatErrorKind::Io, 0, what + ": " + std::strerror(err), true, name);
  }

  const std::uint8_t* data_;
  std::size_t size_;
};

/// How a `MappedEventReaderCore` checks its file.
struct MappedReaderOptions {
  /// Largest event body accepted, in bytes; longer is `EventTooLarge`.
  std::uint64_t max_event_bytes = std::uint64_t{1} << 30;
};

/// Reads the events of a finished capture file of times `T` and containers `C` from a mapping
/// of it. An `EventSource`: `next()` returns the next event, or `std::nullopt` at the end of the
/// file (then `exhausted()`). Columnar batches are decoded with the mapping as the `Decoder`'s
/// owner and borrow its bytes (`borrowed()`); they keep the mapping alive after the reader is
/// gone. Checks the header and every frame exactly as `EventReaderCore` does (kind, length,
/// checksum, fields, a columnar batch's whole layout); the end of the file inside the header or
/// an event is `Truncated`.
/// \throws FormatError naming the file (`source()`) and the byte offset on any problem; a
/// reader that threw throws the same error again if called again. Movable, not copyable; one
/// thread at a time.
template <communication::Encodable T, communication::Encodable C>
class MappedEventReaderCore {
  static_assert(container::Container<C>, "timely: MappedEventReaderCore<T, C>: C must be a container");

 public:
  using Time = T;
  using Container = C;

  /// Maps the file at `path`. \throws FormatError(Io) naming the file if it cannot be mapped.
  static MappedEventReaderCore open(const std::filesystem::path& path, MappedReaderOptions options = {}) {
    return MappedEventReaderCore(FileMapping::map(path), path.string(), options);
  }
  /// Reads the mapping `mapping`, naming it `name` in errors.
  MappedEventReaderCore(std::shared_ptr<const FileMapping> mapping, std::string name,
                        MappedReaderOptions options = {})
      : mapping_(std::move(mapping)), name_(std::move(name)), options_(options) {}

  /// The next event, or `std::nullopt` at the end of the file.
  std::optional<EventCore<T, C>> next() {
    if (exhausted_) return std::nullopt;
    try {
      return read();
    } catch (const FormatError& e) {
      throw FormatError(e, name_);
    }
  }

  /// The end of the file was reached at an event boundary; no event will follow.
  [[nodiscard]] bool exhausted() const noexcept { return exhausted_; }
  /// Offset of the next unread byte: the start of the next event (or of the header).
  [[nodiscard]] std::uint64_t offset() const noexcept { return position_; }
  /// Offset at which the event most recently returned by `next()` starts.
  [[nodiscard]] std::uint64_t event_offset() const noexcept { return last_event_; }
  /// The file's name, as given to `open`.
  [[nodiscard]] const std::string& path() const noexcept { return name_; }
  /// The mapped file.
  [[nodiscard]] const std::shared_ptr<const FileMapping>& mapping() const noexcept { return mapping_; }

 private:
  std::optional<EventCore<T, C>> read() {
    if (!mapping_)
      throw FormatError(FormatErrorKind::Io, position_, "read from a moved-from MappedEventReader");
    const auto bytes = mapping_->bytes();
    if (!header_done_) {
      const std::size_t need = detail::check_header<T, C>(bytes, 0);
      if (need > bytes.size()) detail::truncated("stream header", need, 0, bytes.size());
      position_ = need;
      header_done_ = true;
    }
    const std::size_t at = static_cast<std::size_t>(position_);
    const std::size_t left = bytes.size() - at;
    if (left == 0) {
      exhausted_ = true;
      return std::nullopt;
    }
    detail::check_kind(bytes[at], at);
    if (left < format::frame_header) detail::truncated("event header", format::frame_header, at, left);
    const std::size_t total = detail::frame_total(bytes.data() + at, at, options_.max_event_bytes);
    if (left < total) detail::truncated("event", total, at, left);
    // The mapping as the owner: a columnar batch borrows it and keeps it alive.
    std::optional<EventCore<T, C>> event(
        detail::decode_frame<T, C>(bytes.subspan(at, total), at, std::shared_ptr<const void>(mapping_)));
    last_event_ = position_;
    position_ += total;
    return event;
  }

  std::shared_ptr<const FileMapping> mapping_;
  std::string name_;
  MappedReaderOptions options_;
  std::uint64_t position_ = 0;
  std::uint64_t last_event_ = 0;
  bool header_done_ = false;
  bool exhausted_ = false;
};

/// A `MappedEventReaderCore` of a stream of records `D` in `std::vector<D>` batches.
template <class T, class D>
using MappedEventReader = MappedEventReaderCore<T, std::vector<D>>;

}  // namespace timely::capture
