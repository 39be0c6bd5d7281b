/// \file
/// The binary event format of captured streams: its definition (below), the constants and the
/// CRC-32 it uses, and `FormatError`, what a malformed, truncated or mismatched stream throws.
/// `EventWriterCore<T, C>` (capture/writer.hpp) writes events to any `std::ostream` in this
/// format; `EventReaderCore<T, C>` (capture/reader.hpp) reads them back from any `std::istream`,
/// and `MappedEventReaderCore<T, C>` (capture/mapped.hpp) from a mapped file, reading columnar
/// batches in place. `EventWriter<T, D>`, `EventReader<T, D>` and `MappedEventReader<T, D>` are
/// their `std::vector<D>` cases. Values are encoded by `communication::Codec<X>`; the frames are
/// built and checked by capture/frames.hpp.
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
///                 dname    dlen bytes  the records' type: `Codec<D>::name()` for `std::vector<D>`
///                                      batches, e.g. "pair<string,i64>"; `Codec<C>::name()` for
///                                      any other container `C`, e.g. "columnar<(u64,string)>"
///                 hcrc     u32       CRC-32 of every header byte before it
///     frame    := kind     u8        1 = Progress, 2 = Messages
///                 len      u64       body length in bytes (<= the reader's `max_event_bytes`)
///                 crc      u32       CRC-32 of `kind`, `len` (its 8 encoded bytes) and `body`
///                 body     len bytes
///     Progress body := count u64, then count x (time: T, diff: i64)
///     Messages body := time: T, then the container with its codec:
///         std::vector<D>:          count u64, then count x (record: D)
///         columnar::Batch<X>:      zero bytes up to the next offset that is a multiple of 8,
///                                  blen u64, then the blen bytes of the batch
///                                  (container/columnar/layout.hpp: u64 header words, then
///                                  column buffers each zero-padded to a multiple of 8 bytes)
///         any other container C:   `Codec<C>`
///
/// Alignment: the padding of a columnar batch is relative to the first byte of the stream
/// header, so its header and every column buffer start at an offset that is a multiple of 8.
/// `EventWriterCore::create` starts the header at the start of the file, so in a file (and in a
/// page-aligned mapping of it) the batches are 8-byte aligned, which is what lets
/// `MappedEventReaderCore` hand out batches that borrow the mapped bytes with no copy. A stream
/// written after other bytes of an `std::ostream` reads back from where its header starts just
/// the same (batches not aligned in memory are copied once when read).
///
/// The CRC-32 is the common IEEE 802.3 / zlib one (reflected polynomial 0xEDB88320, initial
/// value and final xor 0xFFFFFFFF), computed by zlib. A body must be consumed exactly by its
/// fields. A reader of frames whose bytes something stronger has already verified (a durable log
/// record, whose batch's XXH3 checksum the log's reader checked) may skip the frames' CRC-32
/// (`detail::FrameChecksum::trusted`, capture/frames.hpp); readers of files and byte streams check it.
///
/// Value encodings: `timely::communication::Codec<X>`, the serialization customization point of
/// timely/communication/codec.hpp (its file comment has the full table). In short: `bool` one byte 0 or 1;
/// other integers two's complement in their own width; `float`/`double` IEEE-754 bits; scoped enums as their
/// underlying integer; `std::string` u64 length then the bytes; `std::vector<X>` u64 count then the elements;
/// `std::array<X, N>` its N elements; `std::pair`, `std::tuple` and `timely::Product` their fields in order;
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
/// (a `timely::Error`) whose `kind()` says what was wrong, `offset()` at which byte, `source()`
/// in which file (readers opened from a path), and whose message says all three. A body whose
/// fields do not decode (the codec's `CodecError`, a columnar batch that fails validation
/// included) is reported as `FormatError(BadPayload)` at the offset of the failed read. Memory
/// use is bounded by the bytes actually present plus 1 MiB, whatever a corrupt length claims.
///
/// Source of the idea: the reference's `EventWriter`/`EventReader` (an 8-byte length, then
/// bincode). This format differs on purpose: it is self-describing (magic, version, type names),
/// checksummed, and defined independently of any serialization library.
/// Thread-safety: the constants and `crc32` are pure; a `FormatError` is a plain value.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <timely/error.hpp>

namespace timely::capture {

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
  ProtocolViolation,   ///< events that break the capture protocol (see capture/event.hpp)
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
/// `source()` names the file the stream was read from (empty for a stream or an in-memory
/// source); `problem()` is the bare description.
class FormatError : public timely::Error {
 public:
  FormatError(FormatErrorKind kind, std::uint64_t offset, const std::string& what, bool in_bytes = true,
              std::string source = {})
      : timely::Error(message(kind, offset, what, in_bytes, source)),
        kind_(kind),
        offset_(offset),
        in_bytes_(in_bytes),
        problem_(what),
        source_(std::move(source)) {}
  /// `error`, said of the file `source` (unless it already names one).
  FormatError(const FormatError& error, const std::string& source)
      : FormatError(error.kind_, error.offset_, error.problem_, error.in_bytes_,
                    error.source_.empty() ? source : error.source_) {}

  [[nodiscard]] FormatErrorKind kind() const noexcept { return kind_; }
  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }
  [[nodiscard]] bool in_bytes() const noexcept { return in_bytes_; }
  [[nodiscard]] const std::string& problem() const noexcept { return problem_; }
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

 private:
  static std::string message(FormatErrorKind kind, std::uint64_t offset, const std::string& what,
                             bool in_bytes, const std::string& source) {
    return "timely: capture stream" + (source.empty() ? std::string() : " '" + source + "'") + ": " +
           std::string(to_string(kind)) + ": " + what + " (at " + (in_bytes ? "byte offset " : "event ") +
           std::to_string(offset) + ")";
  }

  FormatErrorKind kind_;
  std::uint64_t offset_;
  bool in_bytes_;
  std::string problem_;
  std::string source_;
};

// ---------------------------------------------------------------------------------------------
// CRC-32

/// Continues a CRC-32 (IEEE 802.3, as zlib's `crc32`) over `bytes`. Start with `crc = 0`; the
/// result of one call is the `crc` of the next over the following bytes. Computed by zlib's
/// `crc32_z` (src/capture/format.cpp; zlib is linked privately by timely_core, and this
/// header does not include it).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0) noexcept;

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
}  // namespace timely::capture
