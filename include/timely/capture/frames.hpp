/// \file
/// The pieces of the binary event format (capture/format.hpp) that the writer and both readers
/// share: the records' type name in the header (`data_type_name<C>()`), encoding the header and
/// one frame (`encode_header`, `encode_frame`), and checking and decoding them (`check_header`,
/// `check_kind`, `frame_total`, `decode_frame` with or without its CRC-32, `truncated`). Everything here is
/// in `capture::detail`; programs use `EventWriterCore`, `EventReaderCore` and `MappedEventReaderCore`.
///
/// Alignment: a frame is encoded into a buffer whose first byte sits at an offset of the stream
/// that is a multiple of 8 (the writer puts `offset % 8` unused bytes before the frame), and
/// decoded by a `Decoder` whose first byte does too (it starts up to 7 bytes before the body,
/// inside the frame header, and skips them). So codecs that pad to 8 relative to their buffer
/// (columnar batches) pad to 8 relative to the stream header, on both sides.
///
/// Source of the idea: the reference's `EventWriter`/`EventReader` framing. Thread-safety: pure
/// functions of their arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/communication/codec.hpp>
#include <timely/container/container.hpp>
#include <timely/progress/codecs.hpp>

namespace timely::capture::detail {

/// The records' type name the header holds: `Codec<D>::name()` for `std::vector<D>` (as every
/// version-1 file has it), `Codec<C>::name()` for any other container.
template <class C>
std::string data_type_name() {
  if constexpr (container::Vector<C>)
    return communication::Codec<typename C::value_type>::name();
  else
    return communication::Codec<C>::name();
}

/// `v` as "0x" and eight hex digits.
inline std::string hex(std::uint32_t v) {
  constexpr char digits[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += digits[(v >> shift) & 0xFu];
  return out;
}

/// The stream header for times `T` and containers `C`.
/// \throws FormatError(BadHeader) if a type name is longer than 4096 bytes.
template <class T, class C>
std::vector<std::uint8_t> encode_header() {
  std::vector<std::uint8_t> header;
  communication::Encoder e(header);
  e.put_bytes(format::magic.data(), format::magic.size());
  e.put_u16(format::version);
  e.put_u16(0);
  for (const std::string& name : {communication::Codec<T>::name(), data_type_name<C>()}) {
    if (name.size() > format::max_type_name)
      throw FormatError(FormatErrorKind::BadHeader, header.size(),
                        "type name '" + name.substr(0, 64) + "...' is longer than 4096 bytes");
    e.put_u32(static_cast<std::uint32_t>(name.size()));
    e.put_bytes(name.data(), name.size());
  }
  e.put_u32(crc32(header));
  return header;
}

/// Encodes `event` as one frame into `out` (cleared first), for the stream offset `at`. The
/// frame is `out[lead, out.size())` with `lead = at % 8` (returned): the bytes before it only
/// make `out`'s start sit at a multiple of 8 in the stream.
template <class T, class C>
std::size_t encode_frame(std::vector<std::uint8_t>& out, std::uint64_t at, const EventCore<T, C>& event) {
  const std::size_t lead = static_cast<std::size_t>(at % 8);
  out.assign(lead + format::frame_header, 0);
  communication::Encoder e(out);
  if (const auto* progress = std::get_if<ProgressEvent<T>>(&event)) {
    out[lead] = format::kind_progress;
    e.put_u64(progress->changes.size());
    for (const auto& [time, diff] : progress->changes) {
      e.put(time);
      e.put_i64(diff);
    }
  } else {
    const auto& batch = std::get<MessagesEventCore<T, C>>(event);
    out[lead] = format::kind_messages;
    e.put(batch.time);
    e.put(batch.data);  // a vector: count, then the records, as version 1 defines it
  }
  std::uint8_t* frame = out.data() + lead;
  const std::uint64_t len = out.size() - lead - format::frame_header;
  for (std::size_t i = 0; i < 8; ++i) frame[1 + i] = static_cast<std::uint8_t>(len >> (8 * i));
  std::uint32_t crc = crc32(std::span<const std::uint8_t>(frame, 9));
  crc = crc32(std::span<const std::uint8_t>(frame + format::frame_header, len), crc);
  for (std::size_t i = 0; i < 4; ++i) frame[9 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
  return lead;
}

/// Throws `Truncated`: the input ends (at `at + present`) inside `what`, which needs `need`
/// bytes from `at`.
[[noreturn]] inline void truncated(const char* what, std::size_t need, std::uint64_t at,
                                   std::size_t present) {
  throw FormatError(FormatErrorKind::Truncated, at + present,
                    std::string("the input ends inside the ") + what + ", which needs " +
                        std::to_string(need) + " bytes from offset " + std::to_string(at) + " but only " +
                        std::to_string(present) + " are present");
}

/// Checks the first bytes of a stream, `b` (the whole header or a prefix of it), whose first
/// byte is at offset `at`. Returns the length of the header as far as `b` tells: once the result
/// is at most `b.size()` the header is whole, valid and of that length; otherwise more bytes are
/// needed. \throws FormatError for anything wrong in the bytes present.
template <class T, class C>
std::size_t check_header(std::span<const std::uint8_t> b, std::uint64_t at) {
  constexpr std::size_t fixed = 16;  // magic, version, flags, tlen
  for (std::size_t i = 0; i < format::magic.size() && i < b.size(); ++i)
    if (b[i] != format::magic[i])
      throw FormatError(FormatErrorKind::BadMagic, at + i,
                        "the input does not start with \"TIMELYEV\"; not a timely event stream");
  if (b.size() < fixed) return fixed;
  const auto version = static_cast<std::uint16_t>(read_le(b.data() + 8, 2));
  if (version != format::version)
    throw FormatError(FormatErrorKind::UnsupportedVersion, at + 8,
                      "format version " + std::to_string(version) + ", but this reader knows only version " +
                          std::to_string(format::version));
  const auto flags = static_cast<std::uint16_t>(read_le(b.data() + 10, 2));
  if (flags != 0)
    throw FormatError(FormatErrorKind::BadHeader, at + 10,
                      "reserved header flags are " + std::to_string(flags) + ", not 0");
  const std::size_t tlen = read_le(b.data() + 12, 4);
  if (tlen > format::max_type_name)
    throw FormatError(FormatErrorKind::BadHeader, at + 12,
                      "time type name length " + std::to_string(tlen) + " exceeds 4096");
  const std::size_t dlen_at = fixed + tlen;
  if (b.size() < dlen_at + 4) return dlen_at + 4;
  const std::size_t dlen = read_le(b.data() + dlen_at, 4);
  if (dlen > format::max_type_name)
    throw FormatError(FormatErrorKind::BadHeader, at + dlen_at,
                      "data type name length " + std::to_string(dlen) + " exceeds 4096");
  const std::size_t crc_at = dlen_at + 4 + dlen;
  if (b.size() < crc_at + 4) return crc_at + 4;
  const auto stored = static_cast<std::uint32_t>(read_le(b.data() + crc_at, 4));
  const auto computed = crc32(b.first(crc_at));
  if (stored != computed)
    throw FormatError(
        FormatErrorKind::ChecksumMismatch, at + crc_at,
        "stream header checksum " + hex(stored) + " does not match its bytes (" + hex(computed) + ")");
  const std::string tname(reinterpret_cast<const char*>(b.data() + fixed), tlen);
  const std::string dname(reinterpret_cast<const char*>(b.data() + dlen_at + 4), dlen);
  if (tname != communication::Codec<T>::name())
    throw FormatError(FormatErrorKind::SchemaMismatch, at + fixed,
                      "the stream holds times of type '" + tname + "' but the reader expects '" +
                          communication::Codec<T>::name() + "'");
  if (dname != data_type_name<C>())
    throw FormatError(FormatErrorKind::SchemaMismatch, at + dlen_at + 4,
                      "the stream holds records of type '" + dname + "' but the reader expects '" +
                          data_type_name<C>() + "'");
  return crc_at + 4;
}

/// Checks the kind byte of the frame at offset `at`.
inline void check_kind(std::uint8_t kind, std::uint64_t at) {
  if (kind != format::kind_progress && kind != format::kind_messages)
    throw FormatError(FormatErrorKind::BadEventKind, at,
                      "event kind " + std::to_string(kind) + " is neither 1 (Progress) nor 2 (Messages)");
}

/// The length of the frame (header and body) whose 13-byte header is at `frame`, at offset `at`.
/// \throws FormatError(EventTooLarge) for a body longer than `max_event_bytes`.
inline std::size_t frame_total(const std::uint8_t* frame, std::uint64_t at, std::uint64_t max_event_bytes) {
  const std::uint64_t len = read_le(frame + 1, 8);
  if (len > max_event_bytes || len > std::numeric_limits<std::size_t>::max() - format::frame_header)
    throw FormatError(FormatErrorKind::EventTooLarge, at + 1,
                      "event length " + std::to_string(len) + " exceeds the limit of " +
                          std::to_string(max_event_bytes) + " bytes");
  return format::frame_header + static_cast<std::size_t>(len);
}

/// Whether `decode_frame` checks a frame's CRC-32.
enum class FrameChecksum {
  verify,   ///< check it: bytes from a file, a socket, any stream (every reader of the format)
  trusted,  ///< skip it: bytes something stronger already verified (a durable log record, whose
            ///< batch's XXH3 checksum the log's reader checked before handing it out)
};

/// Checks the checksum of the whole frame `frame` (its header included; kind and length already
/// checked) at stream offset `at` (unless `checksum` is `trusted`), and decodes its event.
/// `owner`, if not null, keeps the bytes alive: containers that read in place (columnar batches)
/// borrow them. Every field is checked as it is decoded whatever `checksum` says: skipping the
/// CRC-32 never makes bad bytes undefined behaviour, only a `BadPayload` instead of a
/// `ChecksumMismatch` (or a wrong value that decodes).
/// \throws FormatError(ChecksumMismatch) or FormatError(BadPayload) with the offset of the
/// failed read.
template <class T, class C>
EventCore<T, C> decode_frame(std::span<const std::uint8_t> frame, std::uint64_t at,
                             const std::shared_ptr<const void>& owner,
                             FrameChecksum checksum = FrameChecksum::verify) {
  if (checksum == FrameChecksum::verify) {
    const auto stored = static_cast<std::uint32_t>(read_le(frame.data() + 9, 4));
    std::uint32_t computed = crc32(frame.first(9));
    computed = crc32(frame.subspan(format::frame_header), computed);
    if (stored != computed)
      throw FormatError(
          FormatErrorKind::ChecksumMismatch, at,
          "checksum " + hex(stored) + " of the event does not match its bytes (" + hex(computed) + ")");
  }
  // Start the decoder at the multiple of 8 at or before the body (at most 7 bytes back, inside
  // the frame header) and skip to the body: its positions are then aligned as the stream's.
  const std::uint64_t body_at = at + format::frame_header;
  const std::size_t lead = static_cast<std::size_t>(body_at % 8);
  communication::Decoder d(frame.subspan(format::frame_header - lead), body_at - lead, owner);
  (void)d.get_bytes(lead, "alignment");
  try {
    if (frame[0] == format::kind_progress) {
      ProgressEvent<T> progress;
      const std::size_t n = d.get_count(communication::codec_min_size<T>() + 8, "count of progress changes");
      progress.changes.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        T time = d.get<T>();
        const std::int64_t diff = d.get_i64();
        progress.changes.emplace_back(std::move(time), diff);
      }
      d.expect_end("event body");
      return EventCore<T, C>(std::in_place_index<0>, std::move(progress));
    }
    MessagesEventCore<T, C> batch;
    batch.time = d.get<T>();
    if constexpr (container::Vector<C>) {
      using D = typename C::value_type;
      const std::size_t n = d.get_count(communication::codec_min_size<D>(), "count of records");
      communication::detail::decode_sequence<D>(d, batch.data, n, "records");
    } else {
      batch.data = d.get<C>();
    }
    d.expect_end("event body");
    return EventCore<T, C>(std::in_place_index<1>, std::move(batch));
  } catch (const communication::CodecError& e) {
    throw FormatError(FormatErrorKind::BadPayload, e.offset(),
                      "cannot decode " + e.reading() + ": " + e.problem());
  }
}

}  // namespace timely::capture::detail
