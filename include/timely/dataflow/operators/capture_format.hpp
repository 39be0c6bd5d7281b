/// \file
/// The binary event format of captured streams: `EventWriter<T, D>` writes events to any
/// `std::ostream`, `EventReader<T, D>` reads them back from any `std::istream`, `Codec<X>` is
/// the customization point that encodes one value, and `FormatError` is what a malformed,
/// truncated or mismatched stream throws.
///
/// # Format, version 1
///
/// Every integer is little-endian with a fixed width, whatever the host. Offsets count bytes
/// from the first byte of the stream header (where the reader started reading).
///
///     stream   := header frame*
///     header   := magic    8 bytes   "TIMELYEV" (54 49 4D 45 4C 59 45 56)
///                 version  u16       1
///                 flags    u16       0 (reserved; version-1 readers reject anything else)
///                 tlen     u32       <= 4096, length of `tname`
///                 tname    tlen bytes  `Codec<T>::name()`, e.g. "u64"
///                 dlen     u32       <= 4096, length of `dname`
///                 dname    dlen bytes  `Codec<D>::name()`, e.g. "pair<string,i64>"
///                 hcrc     u32       CRC-32 of every header byte before it
///     frame    := kind     u8        1 = Progress, 2 = Messages
///                 len      u64       body length in bytes (<= the reader's `max_event_bytes`)
///                 crc      u32       CRC-32 of `kind`, `len` (its 8 encoded bytes) and `body`
///                 body     len bytes
///     Progress body := count u64, then count x (time: T, diff: i64)
///     Messages body := time: T, count u64, then count x (record: D)
///
/// The CRC-32 is the common IEEE 802.3 / zlib one (reflected polynomial 0xEDB88320, initial
/// value and final xor 0xFFFFFFFF). A body must be consumed exactly by its fields.
///
/// Value encodings: `Codec<X>`, the serialization customization point of
/// timely/communication/codec.hpp (its file comment has the full table), available here under
/// its old names (`capture::Codec`, `Encoder`, `Decoder`, `Encodable`, `codec_min_size`). In
/// short: `bool` one byte 0 or 1; other integers two's complement in their own width;
/// `float`/`double` IEEE-754 bits; scoped enums as their underlying integer; `std::string` u64
/// length then the bytes; `std::vector<X>` u64 count then the elements; `std::array<X, N>` its N
/// elements; `std::pair`, `std::tuple` and `timely::Product` their fields in order;
/// `timely::Unit` nothing; `std::optional`, `std::variant`, `std::chrono::duration` and
/// aggregates that are not trivially copyable (Boost.PFR) as described there. Any other
/// trivially copyable type is written as its object bytes, as laid out on the host: fine for
/// plain structs of numbers between builds of the same ABI, not for types with pointers, `bool`
/// or enum members (a corrupt byte could form an invalid value); specialize `Codec` for those.
/// Unscoped enums and pointers have no codec (their valid values are not knowable).
///
/// To add a type, specialize `timely::communication::Codec<X>` (in that namespace) with
///     static void encode(Encoder&, const X&);
///     static X decode(Decoder&);            // use Decoder::fail to reject bad input
///     static std::string name();            // written in the header, compared when reading
///     static constexpr std::size_t min_size = ...;  // optional: least encoded size in bytes
///
/// # Errors
///
/// Reading never has undefined behaviour on bad input: every problem throws `FormatError`
/// (a `timely::Error`) whose `kind()` says what was wrong, `offset()` at which byte, and whose
/// message says both. A body whose fields do not decode (the codec's `CodecError`) is reported
/// as `FormatError(BadPayload)` at the offset of the failed read. Memory use is bounded by the
/// bytes actually present plus 1 MiB, whatever a corrupt length claims.
///
/// Source of the idea: the reference's `EventWriter`/`EventReader` (an 8-byte length, then
/// bincode). This format differs on purpose: it is self-describing (magic, version, type names),
/// checksummed, and defined independently of any serialization library.
/// Thread-safety: a writer or reader belongs to one thread at a time; `Codec`s are pure.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/dataflow/operators/capture_event.hpp>
#include <timely/error.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::dataflow::capture {

// ---------------------------------------------------------------------------------------------
// Errors

/// What was wrong with a captured event stream.
enum class FormatErrorKind {
  BadMagic,            ///< the stream does not start with "TIMELYEV"
  UnsupportedVersion,  ///< a format version this reader does not know
  BadHeader,           ///< reserved flags set, or a type name longer than 4096 bytes
  SchemaMismatch,      ///< the stream's time or data type differs from the reader's
  Truncated,           ///< the stream ends inside the header or inside an event
  BadEventKind,        ///< an event kind other than 1 (Progress) or 2 (Messages)
  EventTooLarge,       ///< an event length above the reader's `max_event_bytes`
  ChecksumMismatch,    ///< a header or event whose CRC-32 does not match its bytes
  BadPayload,          ///< an event body whose fields do not decode, or with bytes left over
  ProtocolViolation,   ///< events that break the capture protocol (see capture_event.hpp)
  Incomplete,          ///< a complete stream that ends while it still holds capabilities
  Io,                  ///< the underlying stream failed
};

/// A short name for `kind` ("truncated", "checksum mismatch", ...).
inline std::string_view to_string(FormatErrorKind kind) noexcept {
  switch (kind) {
    case FormatErrorKind::BadMagic:
      return "bad magic";
    case FormatErrorKind::UnsupportedVersion:
      return "unsupported version";
    case FormatErrorKind::BadHeader:
      return "bad header";
    case FormatErrorKind::SchemaMismatch:
      return "schema mismatch";
    case FormatErrorKind::Truncated:
      return "truncated";
    case FormatErrorKind::BadEventKind:
      return "bad event kind";
    case FormatErrorKind::EventTooLarge:
      return "event too large";
    case FormatErrorKind::ChecksumMismatch:
      return "checksum mismatch";
    case FormatErrorKind::BadPayload:
      return "bad payload";
    case FormatErrorKind::ProtocolViolation:
      return "protocol violation";
    case FormatErrorKind::Incomplete:
      return "incomplete";
    case FormatErrorKind::Io:
      return "i/o error";
  }
  return "unknown";
}

/// A captured event stream is malformed, truncated, of the wrong types, or breaks the capture
/// protocol. `offset()` is a byte offset from the start of the stream header, or, for event
/// sources that are not byte streams (`in_bytes() == false`), the index of the offending event.
class FormatError : public timely::Error {
 public:
  FormatError(FormatErrorKind kind, std::uint64_t offset, const std::string& what, bool in_bytes = true)
      : timely::Error("timely: capture stream: " + std::string(to_string(kind)) + ": " + what + " (at " +
                      (in_bytes ? "byte offset " : "event ") + std::to_string(offset) + ")"),
        kind_(kind),
        offset_(offset),
        in_bytes_(in_bytes) {}

  [[nodiscard]] FormatErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }
  [[nodiscard]] bool in_bytes() const noexcept { return in_bytes_; }

 private:
  FormatErrorKind kind_;
  std::uint64_t offset_;
  bool in_bytes_;
};

// ---------------------------------------------------------------------------------------------
// CRC-32

namespace detail {
constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    table[i] = c;
  }
  return table;
}
inline constexpr std::array<std::uint32_t, 256> crc_table = make_crc_table();
}  // namespace detail

/// Continues a CRC-32 (IEEE 802.3, as zlib's `crc32`) over `bytes`. Start with `crc = 0`; the
/// result of one call is the `crc` of the next over the following bytes.
constexpr std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0) noexcept {
  crc = ~crc;
  for (auto b : bytes) crc = detail::crc_table[(crc ^ b) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

// ---------------------------------------------------------------------------------------------
// Codec: the serialization customization point of timely/communication/codec.hpp, under the
// names this header has always offered.

using communication::Codec;
using communication::codec_min_size;
using communication::CodecError;
using communication::Decoder;
using communication::Encodable;
using communication::Encoder;

// ---------------------------------------------------------------------------------------------
// Format constants

namespace format {
inline constexpr std::array<std::uint8_t, 8> magic = {'T', 'I', 'M', 'E', 'L', 'Y', 'E', 'V'};
inline constexpr std::uint16_t version = 1;
inline constexpr std::size_t max_type_name = 4096;
inline constexpr std::uint8_t kind_progress = 1;
inline constexpr std::uint8_t kind_messages = 2;
/// Bytes before a frame's body: kind u8, len u64, crc u32.
inline constexpr std::size_t frame_header = 13;
}  // namespace format

namespace detail {
inline std::uint64_t read_le(const std::uint8_t* p, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// EventWriter

/// Writes events of a stream with times `T` and records `D` to a `std::ostream` in the format
/// above: the header when constructed, then one frame per `push`. An `EventSink`.
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`), a reusable encoding
/// buffer and the count of bytes written. \throws FormatError(Io) when the stream fails.
/// Destroying a writer flushes the stream (errors there are swallowed; call `flush()` to see
/// them). Movable, not copyable; one thread at a time.
template <Encodable T, Encodable D>
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
    Encoder e(frame_);
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
    Encoder e(header);
    e.put_bytes(format::magic.data(), format::magic.size());
    e.put_u16(format::version);
    e.put_u16(0);
    for (const std::string& name : {Codec<T>::name(), Codec<D>::name()}) {
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

// ---------------------------------------------------------------------------------------------
// EventReader

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
/// above. An `EventSource`: `next()` returns the next whole event, or `std::nullopt` if none is
/// available (in complete mode: the end was reached, see `exhausted()`).
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`) and the bytes of the
/// item being read (at most one header or event, read in chunks of at most 1 MiB). Checks the
/// header's magic, version, flags, checksum and type names against `Codec<T>::name()` and
/// `Codec<D>::name()`, and every frame's kind, length, checksum and fields.
/// \throws FormatError on any problem, with its kind and byte offset; a reader that threw throws
/// the same error again if called again. Movable, not copyable; one thread at a time.
template <Encodable T, Encodable D>
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
  /// of input (complete mode: for good; live mode: for now).
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
    if (tname != Codec<T>::name())
      throw FormatError(
          FormatErrorKind::SchemaMismatch, consumed_ + fixed,
          "the stream holds times of type '" + tname + "' but the reader expects '" + Codec<T>::name() + "'");
    if (dname != Codec<D>::name())
      throw FormatError(FormatErrorKind::SchemaMismatch, consumed_ + dlen_at + 4,
                        "the stream holds records of type '" + dname + "' but the reader expects '" +
                            Codec<D>::name() + "'");
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
    Decoder d(std::span<const std::uint8_t>(buffer_.data() + format::frame_header, len),
              consumed_ + format::frame_header);
    std::optional<Event<T, D>> event;
    try {
      if (kind == format::kind_progress) {
        ProgressEvent<T> progress;
        const std::size_t n = d.get_count(codec_min_size<T>() + 8, "count of progress changes");
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
        const std::size_t n = d.get_count(codec_min_size<D>(), "count of records");
        if constexpr (codec_min_size<D>() > 0) batch.data.reserve(n);
        for (std::size_t i = 0; i < n; ++i) batch.data.push_back(d.get<D>());
        event.emplace(std::move(batch));
      }
      d.expect_end("event body");
    } catch (const CodecError& e) {
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
