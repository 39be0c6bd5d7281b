/// \file
/// `EventWriterCore<T, C>`: writes the events of a captured stream of containers `C` to a
/// `std::ostream` (or a file) in timely's binary event format, defined in capture/format.hpp,
/// encoding times and containers with `communication::Codec` (columnar batches in their 8-byte
/// aligned layout, aligned in the file); `EventWriter<T, D>` is its `std::vector<D>` case. Read
/// them back with `EventReaderCore` (capture/reader.hpp) or `MappedEventReaderCore`
/// (capture/mapped.hpp).
/// Source of the idea: the reference's `EventWriter`. Thread-safety: a writer belongs to one
/// thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/capture/frames.hpp>
#include <timely/communication/codec.hpp>
#include <timely/progress/codecs.hpp>

namespace timely::capture {

/// Writes events of a stream with times `T` and containers `C` to a `std::ostream` in the
/// format of capture/format.hpp: the header when constructed, then one frame per `push`. An
/// `EventSink`. Alignment in the format is relative to the header's first byte, which is the
/// file's first byte for `create`.
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`), a reusable encoding
/// buffer (as large as the largest event) and the count of bytes written. \throws
/// FormatError(Io) when the stream fails. Destroying a writer flushes the stream (errors there
/// are swallowed; call `flush()` to see them). Movable, not copyable; one thread at a time.
template <communication::Encodable T, communication::Encodable C>
class EventWriterCore {
  static_assert(container::Container<C>, "timely: EventWriterCore<T, C>: C must be a container");

 public:
  using Time = T;
  using Container = C;

  /// Writes to `out`, which must outlive the writer. Writes the header now.
  explicit EventWriterCore(std::ostream& out) : out_(&out) { write_header(); }
  /// Writes to `out`, which the writer owns. Writes the header now.
  explicit EventWriterCore(std::unique_ptr<std::ostream> out) : owned_(std::move(out)), out_(owned_.get()) {
    write_header();
  }
  /// Creates (or truncates) the file at `path` and writes to it.
  /// \throws FormatError(Io) if the file cannot be opened.
  static EventWriterCore create(const std::filesystem::path& path) {
    auto file = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*file) throw FormatError(FormatErrorKind::Io, 0, "cannot open '" + path.string() + "' for writing");
    return EventWriterCore(std::unique_ptr<std::ostream>(std::move(file)));
  }

  EventWriterCore(EventWriterCore&& other) noexcept
      : owned_(std::move(other.owned_)),
        out_(std::exchange(other.out_, nullptr)),
        written_(other.written_),
        frame_(std::move(other.frame_)) {}
  EventWriterCore& operator=(EventWriterCore&& other) noexcept {
    if (this != &other) {
      close_quietly();
      owned_ = std::move(other.owned_);
      out_ = std::exchange(other.out_, nullptr);
      written_ = other.written_;
      frame_ = std::move(other.frame_);
    }
    return *this;
  }
  EventWriterCore(const EventWriterCore&) = delete;
  EventWriterCore& operator=(const EventWriterCore&) = delete;
  ~EventWriterCore() { close_quietly(); }

  /// Writes one event.
  void push(const EventCore<T, C>& event) {
    const std::size_t lead = detail::encode_frame<T, C>(frame_, written_, event);
    write(frame_.data() + lead, frame_.size() - lead);
  }

  /// Flushes the stream. \throws FormatError(Io) if it fails.
  void flush() {
    if (!out_) return;
    out_->flush();
    if (!*out_) throw FormatError(FormatErrorKind::Io, written_, "flushing the output stream failed");
  }

  /// Bytes written so far, the header included.
  [[nodiscard]] std::uint64_t offset() const noexcept { return written_; }

 private:
  void write_header() {
    const auto header = detail::encode_header<T, C>();
    write(header.data(), header.size());
  }
  void write(const std::uint8_t* data, std::size_t n) {
    if (!out_) throw FormatError(FormatErrorKind::Io, written_, "write to a moved-from EventWriter");
    out_->write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
    if (!*out_) throw FormatError(FormatErrorKind::Io, written_, "writing the output stream failed");
    written_ += n;
  }
  void close_quietly() noexcept {
    if (!out_) return;
    try {
      out_->flush();
    } catch (...) {
    }
    out_ = nullptr;
    owned_.reset();
  }

  std::unique_ptr<std::ostream> owned_;
  std::ostream* out_;
  std::uint64_t written_ = 0;
  std::vector<std::uint8_t> frame_;
};

/// An `EventWriterCore` of a stream of records `D` in `std::vector<D>` batches.
template <class T, class D>
using EventWriter = EventWriterCore<T, std::vector<D>>;

}  // namespace timely::capture
