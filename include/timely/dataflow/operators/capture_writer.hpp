/// \file
/// `EventWriter<T, D>`: writes the events of a captured stream to a `std::ostream` (or a file)
/// in timely's binary event format, defined in capture_format.hpp, encoding times and records
/// with `communication::Codec`. Read them back with `EventReader` (capture_reader.hpp).
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

#include <timely/communication/codec.hpp>
#include <timely/dataflow/operators/capture_event.hpp>
#include <timely/dataflow/operators/capture_format.hpp>
#include <timely/progress/codecs.hpp>

namespace timely::dataflow::capture {

/// Writes events of a stream with times `T` and records `D` to a `std::ostream` in the format
/// of capture_format.hpp: the header when constructed, then one frame per `push`. An `EventSink`.
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`), a reusable encoding
/// buffer and the count of bytes written. \throws FormatError(Io) when the stream fails.
/// Destroying a writer flushes the stream (errors there are swallowed; call `flush()` to see
/// them). Movable, not copyable; one thread at a time.
template <communication::Encodable T, communication::Encodable D>
class EventWriter {
 public:
  using Time = T;
  using Data = D;

  /// Writes to `out`, which must outlive the writer. Writes the header now.
  explicit EventWriter(std::ostream& out) : out_(&out) { write_header(); }
  /// Writes to `out`, which the writer owns. Writes the header now.
  explicit EventWriter(std::unique_ptr<std::ostream> out) : owned_(std::move(out)), out_(owned_.get()) {
    write_header();
  }
  /// Creates (or truncates) the file at `path` and writes to it.
  /// \throws FormatError(Io) if the file cannot be opened.
  static EventWriter create(const std::filesystem::path& path) {
    auto file = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
    if (!*file) throw FormatError(FormatErrorKind::Io, 0, "cannot open '" + path.string() + "' for writing");
    return EventWriter(std::unique_ptr<std::ostream>(std::move(file)));
  }

  EventWriter(EventWriter&& other) noexcept
      : owned_(std::move(other.owned_)),
        out_(std::exchange(other.out_, nullptr)),
        written_(other.written_),
        frame_(std::move(other.frame_)) {}
  EventWriter& operator=(EventWriter&& other) noexcept {
    if (this != &other) {
      close_quietly();
      owned_ = std::move(other.owned_);
      out_ = std::exchange(other.out_, nullptr);
      written_ = other.written_;
      frame_ = std::move(other.frame_);
    }
    return *this;
  }
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;
  ~EventWriter() { close_quietly(); }

  /// Writes one event.
  void push(const Event<T, D>& event) {
    frame_.clear();
    frame_.resize(format::frame_header);
    communication::Encoder e(frame_);
    if (const auto* progress = std::get_if<ProgressEvent<T>>(&event)) {
      frame_[0] = format::kind_progress;
      e.put_u64(progress->changes.size());
      for (const auto& [time, diff] : progress->changes) {
        e.put(time);
        e.put_i64(diff);
      }
    } else {
      const auto& batch = std::get<MessagesEvent<T, D>>(event);
      frame_[0] = format::kind_messages;
      e.put(batch.time);
      e.put_u64(batch.data.size());
      for (const auto& record : batch.data) e.put(record);
    }
    const std::uint64_t len = frame_.size() - format::frame_header;
    for (std::size_t i = 0; i < 8; ++i) frame_[1 + i] = static_cast<std::uint8_t>(len >> (8 * i));
    std::uint32_t crc = crc32(std::span<const std::uint8_t>(frame_.data(), 9));
    crc = crc32(std::span<const std::uint8_t>(frame_.data() + format::frame_header, len), crc);
    for (std::size_t i = 0; i < 4; ++i) frame_[9 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    write(frame_.data(), frame_.size());
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
    std::vector<std::uint8_t> header;
    communication::Encoder e(header);
    e.put_bytes(format::magic.data(), format::magic.size());
    e.put_u16(format::version);
    e.put_u16(0);
    for (const std::string& name : {communication::Codec<T>::name(), communication::Codec<D>::name()}) {
      if (name.size() > format::max_type_name)
        throw FormatError(FormatErrorKind::BadHeader, header.size(),
                          "type name '" + name.substr(0, 64) + "...' is longer than 4096 bytes");
      e.put_u32(static_cast<std::uint32_t>(name.size()));
      e.put_bytes(name.data(), name.size());
    }
    e.put_u32(crc32(header));
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

}  // namespace timely::dataflow::capture
