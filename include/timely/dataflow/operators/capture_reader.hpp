/// \file
/// `EventReader<T, D>` and `ReaderOptions`: read the events of a captured stream back from a
/// `std::istream` (or a file) in timely's binary event format, defined in capture_format.hpp,
/// checking everything and throwing `FormatError` on any problem; complete or live (growing)
/// input. Source of the idea: the reference's `EventReader`. Thread-safety: a reader belongs to
/// one thread at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/dataflow/operators/capture_event.hpp>
#include <timely/dataflow/operators/capture_format.hpp>
#include <timely/progress/codecs.hpp>

namespace timely::dataflow::capture {

/// How an `EventReader` treats the end of its input.
struct ReaderOptions {
  /// false (default): the input is complete. The end of input at an event boundary ends the
  /// stream (`exhausted()`); anywhere else it is `Truncated`.
  /// true: the input may still grow (a file being written, a pipe). The end of input means "no
  /// event yet": partial bytes are kept, the stream's state is cleared and reading resumes on
  /// the next `next()`.
  bool live = false;
  /// Largest event body accepted, in bytes; longer is `EventTooLarge`.
  std::uint64_t max_event_bytes = std::uint64_t{1} << 30;
};

/// Reads events of a stream with times `T` and records `D` from a `std::istream` in the format
/// of capture_format.hpp. An `EventSource`: `next()` returns the next whole event, or `std::nullopt` if none
/// is available (in complete mode: the end was reached, see `exhausted()`).
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`) and the bytes of the
/// item being read (at most one header or event, read in chunks of at most 1 MiB). Checks the
/// header's magic, version, flags, checksum and type names against `Codec<T>::name()` and
/// `Codec<D>::name()`, and every frame's kind, length, checksum and fields.
/// \throws FormatError on any problem, with its kind and byte offset; a reader that threw throws
/// the same error again if called again. Movable, not copyable; one thread at a time.
template <communication::Encodable T, communication::Encodable D>
class EventReader {
 public:
  using Time = T;
  using Data = D;

  /// Reads from `in`, which must outlive the reader.
  explicit EventReader(std::istream& in, ReaderOptions options = {}) : in_(&in), options_(options) {}
  /// Reads from `in`, which the reader owns.
  explicit EventReader(std::unique_ptr<std::istream> in, ReaderOptions options = {})
      : owned_(std::move(in)), in_(owned_.get()), options_(options) {}
  /// Opens the file at `path`. \throws FormatError(Io) if it cannot be opened.
  static EventReader open(const std::filesystem::path& path, ReaderOptions options = {}) {
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) throw FormatError(FormatErrorKind::Io, 0, "cannot open '" + path.string() + "' for reading");
    return EventReader(std::unique_ptr<std::istream>(std::move(file)), options);
  }

  EventReader(EventReader&& other) noexcept
      : owned_(std::move(other.owned_)),
        in_(std::exchange(other.in_, nullptr)),
        options_(other.options_),
        buffer_(std::move(other.buffer_)),
        consumed_(other.consumed_),
        last_event_(other.last_event_),
        header_done_(other.header_done_),
        end_of_input_(other.end_of_input_),
        exhausted_(other.exhausted_) {}
  EventReader& operator=(EventReader&& other) noexcept {
    if (this != &other) {
      owned_ = std::move(other.owned_);
      in_ = std::exchange(other.in_, nullptr);
      options_ = other.options_;
      buffer_ = std::move(other.buffer_);
      consumed_ = other.consumed_;
      last_event_ = other.last_event_;
      header_done_ = other.header_done_;
      end_of_input_ = other.end_of_input_;
      exhausted_ = other.exhausted_;
    }
    return *this;
  }
  EventReader(const EventReader&) = delete;
  EventReader& operator=(const EventReader&) = delete;

  /// The next event, or `std::nullopt` if none is available now.
  std::optional<Event<T, D>> next() {
    if (exhausted_) return std::nullopt;
    if (!header_done_ && !read_header()) return std::nullopt;
    return read_frame();
  }

  /// Complete mode only: the input ended at an event boundary; no event will follow.
  [[nodiscard]] bool exhausted() const noexcept { return exhausted_; }
  /// Offset of the next unread byte: the start of the next event (or of the header).
  [[nodiscard]] std::uint64_t offset() const noexcept { return consumed_; }
  /// Offset at which the event most recently returned by `next()` starts.
  [[nodiscard]] std::uint64_t event_offset() const noexcept { return last_event_; }

 private:
  /// Reads until `buffer_` holds `want` bytes; returns whether it does. Stops short at the end
  /// of input (complete mode: for good; live mode: until more bytes arrive).
  bool fill(std::size_t want) {
    if (!in_) throw FormatError(FormatErrorKind::Io, consumed_, "read from a moved-from EventReader");
    constexpr std::size_t chunk = std::size_t{1} << 20;
    while (buffer_.size() < want && !end_of_input_) {
      const std::size_t old = buffer_.size();
      const std::size_t ask = std::min(want - old, chunk);
      buffer_.resize(old + ask);
      in_->read(reinterpret_cast<char*>(buffer_.data() + old), static_cast<std::streamsize>(ask));
      const auto got = static_cast<std::size_t>(in_->gcount());
      buffer_.resize(old + got);
      if (in_->bad())
        throw FormatError(FormatErrorKind::Io, consumed_ + buffer_.size(), "reading the input stream failed");
      if (got < ask) {
        if (options_.live) {
          in_->clear();
          return false;
        }
        end_of_input_ = true;
      }
    }
    return buffer_.size() >= want;
  }
  /// Removes the first `n` bytes of `buffer_`.
  void consume(std::size_t n) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n));
    consumed_ += n;
  }
  [[noreturn]] void truncated(const char* what, std::size_t need) const {
    throw FormatError(FormatErrorKind::Truncated, consumed_ + buffer_.size(),
                      std::string("the input ends inside the ") + what + ", which needs " +
                          std::to_string(need) + " bytes from offset " + std::to_string(consumed_) +
                          " but only " + std::to_string(buffer_.size()) + " are present");
  }

  bool read_header() {
    constexpr std::size_t fixed = 16;  // magic, version, flags, tlen
    const bool have_fixed = fill(fixed);
    for (std::size_t i = 0; i < format::magic.size() && i < buffer_.size(); ++i)
      if (buffer_[i] != format::magic[i])
        throw FormatError(FormatErrorKind::BadMagic, consumed_ + i,
                          "the input does not start with \"TIMELYEV\"; not a timely event stream");
    if (!have_fixed) {
      if (options_.live) return false;
      truncated("stream header", fixed);
    }
    const auto version = static_cast<std::uint16_t>(detail::read_le(buffer_.data() + 8, 2));
    if (version != format::version)
      throw FormatError(FormatErrorKind::UnsupportedVersion, consumed_ + 8,
                        "format version " + std::to_string(version) +
                            ", but this reader knows only version " + std::to_string(format::version));
    const auto flags = static_cast<std::uint16_t>(detail::read_le(buffer_.data() + 10, 2));
    if (flags != 0)
      throw FormatError(FormatErrorKind::BadHeader, consumed_ + 10,
                        "reserved header flags are " + std::to_string(flags) + ", not 0");
    const std::size_t tlen = detail::read_le(buffer_.data() + 12, 4);
    if (tlen > format::max_type_name)
      throw FormatError(FormatErrorKind::BadHeader, consumed_ + 12,
                        "time type name length " + std::to_string(tlen) + " exceeds 4096");
    const std::size_t dlen_at = fixed + tlen;
    if (!fill(dlen_at + 4)) {
      if (options_.live) return false;
      truncated("stream header", dlen_at + 4);
    }
    const std::size_t dlen = detail::read_le(buffer_.data() + dlen_at, 4);
    if (dlen > format::max_type_name)
      throw FormatError(FormatErrorKind::BadHeader, consumed_ + dlen_at,
                        "data type name length " + std::to_string(dlen) + " exceeds 4096");
    const std::size_t crc_at = dlen_at + 4 + dlen;
    if (!fill(crc_at + 4)) {
      if (options_.live) return false;
      truncated("stream header", crc_at + 4);
    }
    const auto stored = static_cast<std::uint32_t>(detail::read_le(buffer_.data() + crc_at, 4));
    const auto computed = crc32(std::span<const std::uint8_t>(buffer_.data(), crc_at));
    if (stored != computed)
      throw FormatError(
          FormatErrorKind::ChecksumMismatch, consumed_ + crc_at,
          "stream header checksum " + hex(stored) + " does not match its bytes (" + hex(computed) + ")");
    const std::string tname(reinterpret_cast<const char*>(buffer_.data() + fixed), tlen);
    const std::string dname(reinterpret_cast<const char*>(buffer_.data() + dlen_at + 4), dlen);
    if (tname != communication::Codec<T>::name())
      throw FormatError(FormatErrorKind::SchemaMismatch, consumed_ + fixed,
                        "the stream holds times of type '" + tname + "' but the reader expects '" +
                            communication::Codec<T>::name() + "'");
    if (dname != communication::Codec<D>::name())
      throw FormatError(FormatErrorKind::SchemaMismatch, consumed_ + dlen_at + 4,
                        "the stream holds records of type '" + dname + "' but the reader expects '" +
                            communication::Codec<D>::name() + "'");
    consume(crc_at + 4);
    header_done_ = true;
    return true;
  }

  std::optional<Event<T, D>> read_frame() {
    if (!fill(1)) {
      if (!options_.live) exhausted_ = true;
      return std::nullopt;
    }
    const std::uint8_t kind = buffer_[0];
    if (kind != format::kind_progress && kind != format::kind_messages)
      throw FormatError(FormatErrorKind::BadEventKind, consumed_,
                        "event kind " + std::to_string(kind) + " is neither 1 (Progress) nor 2 (Messages)");
    if (!fill(format::frame_header)) {
      if (options_.live) return std::nullopt;
      truncated("event header", format::frame_header);
    }
    const std::uint64_t len = detail::read_le(buffer_.data() + 1, 8);
    if (len > options_.max_event_bytes ||
        len > std::numeric_limits<std::size_t>::max() - format::frame_header)
      throw FormatError(FormatErrorKind::EventTooLarge, consumed_ + 1,
                        "event length " + std::to_string(len) + " exceeds the limit of " +
                            std::to_string(options_.max_event_bytes) + " bytes");
    const std::size_t total = format::frame_header + static_cast<std::size_t>(len);
    if (!fill(total)) {
      if (options_.live) return std::nullopt;
      truncated("event", total);
    }
    const auto stored = static_cast<std::uint32_t>(detail::read_le(buffer_.data() + 9, 4));
    std::uint32_t computed = crc32(std::span<const std::uint8_t>(buffer_.data(), 9));
    computed = crc32(std::span<const std::uint8_t>(buffer_.data() + format::frame_header, len), computed);
    if (stored != computed)
      throw FormatError(
          FormatErrorKind::ChecksumMismatch, consumed_,
          "checksum " + hex(stored) + " of the event does not match its bytes (" + hex(computed) + ")");
    communication::Decoder d(std::span<const std::uint8_t>(buffer_.data() + format::frame_header, len),
                             consumed_ + format::frame_header);
    std::optional<Event<T, D>> event;
    try {
      if (kind == format::kind_progress) {
        ProgressEvent<T> progress;
        const std::size_t n =
            d.get_count(communication::codec_min_size<T>() + 8, "count of progress changes");
        progress.changes.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
          T time = d.get<T>();
          const std::int64_t diff = d.get_i64();
          progress.changes.emplace_back(std::move(time), diff);
        }
        event.emplace(std::move(progress));
      } else {
        MessagesEvent<T, D> batch;
        batch.time = d.get<T>();
        const std::size_t n = d.get_count(communication::codec_min_size<D>(), "count of records");
        if constexpr (communication::codec_min_size<D>() > 0) batch.data.reserve(n);
        for (std::size_t i = 0; i < n; ++i) batch.data.push_back(d.get<D>());
        event.emplace(std::move(batch));
      }
      d.expect_end("event body");
    } catch (const communication::CodecError& e) {
      throw FormatError(FormatErrorKind::BadPayload, e.offset(),
                        "cannot decode " + e.reading() + ": " + e.problem());
    }
    last_event_ = consumed_;
    consume(total);
    return event;
  }

  static std::string hex(std::uint32_t v) {
    constexpr char digits[] = "0123456789abcdef";
    std::string out = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) out += digits[(v >> shift) & 0xFu];
    return out;
  }

  std::unique_ptr<std::istream> owned_;
  std::istream* in_;
  ReaderOptions options_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t consumed_ = 0;
  std::uint64_t last_event_ = 0;
  bool header_done_ = false;
  bool end_of_input_ = false;
  bool exhausted_ = false;
};

}  // namespace timely::dataflow::capture
