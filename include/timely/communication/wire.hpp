/// \file
/// The wire format of the cluster allocator: the handshake (`Hello`, `Verdict`) and the frame
/// header (`FrameHeader`) that every byte between two timely processes travels in, with their
/// encoders and strict, bounds-checked parsers. Pure functions on byte spans: no sockets here,
/// so the parsers can be fuzzed and tested on their own.
///
/// # Handshake (protocol version 1)
///
/// Every integer is little-endian with a fixed width. When a connection opens, each side sends
///
///     hello   := magic     8 bytes  "TIMELYCL" (54 49 4D 45 4C 59 43 4C)
///                version   u32      1
///                process   u32      the sender's process index
///                processes u32      P, the number of processes it was started with
///                workers   u32      W, worker threads per process it was started with
///                flags     u32      0 (reserved)
///                reserved  u32      0
///
/// (32 bytes), reads the peer's hello, checks it, and sends a verdict:
///
///     verdict := status u32 (0 accept, 1 reject), length u32 (<= 4096), reason (length bytes)
///
/// A connection is used only if both sides accept. A side that rejects, or is rejected, fails
/// with an error that says what differed (see `check_hello`).
///
/// # Frames
///
/// After the handshake each direction is a sequence of frames. A frame is a 40-byte header
/// followed by `length` payload bytes and zero padding up to the next multiple of 8, so every
/// header and payload starts 8-byte aligned in the receive buffer:
///
///     header := marker    u32  0x464C4D54 ("TMLF" in memory order)
///               kind      u8   1 data, 2 heartbeat, 3 end of stream, 4 abort
///               reserved  3 bytes, zero
///               source    u32  global index of the sending worker (data) or 0
///               target_lo u32  first receiving worker (global index), data frames only
///               target_hi u32  one past the last receiving worker; a range covers a broadcast
///               length    u32  payload bytes (data: one encoded message; abort: UTF-8 reason)
///               channel   u64  channel identifier (data frames only)
///               seq       u64  per (sending worker, receiving process) sequence number of data
///                              frames, from 0 without gaps; 0 for other kinds
///
/// `parse_header` rejects a wrong marker, an unknown kind, non-zero reserved bytes, and fields
/// outside what the connection allows (`FrameLimits`): a source worker that does not belong to
/// the peer, a target range empty or outside this process, a payload longer than the limit, and
/// non-data frames that carry data fields. Sequence numbers are checked by the receiver, which
/// knows what it expects.
///
/// Source of the idea: the reference's `timely_communication::networking` (a `MessageHeader`
/// of channel, source, target range, length and sequence number, after a handshake that carries
/// only the process index; SEMANTICS.md §7.5-§7.6). Differences, on purpose: a magic number,
/// a protocol version, P and W in the handshake with an explicit verdict, a frame marker, kinds
/// for heartbeats, end of stream and abort, and 8-byte aligned payloads.
/// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <timely/communication/error.hpp>

namespace timely::communication::wire {

/// Thrown when bytes from a peer are not a valid handshake or frame; the message names the
/// field, the value found and what was expected.
class ProtocolError : public timely::Error {
 public:
  using timely::Error::Error;
};

/// The protocol version this build speaks.
inline constexpr std::uint32_t protocol_version = 1;
/// The eight magic bytes that open a hello.
inline constexpr std::array<std::uint8_t, 8> hello_magic = {'T', 'I', 'M', 'E', 'L', 'Y', 'C', 'L'};
/// Bytes in an encoded hello.
inline constexpr std::size_t hello_size = 32;
/// Most bytes of a verdict's reason.
inline constexpr std::size_t max_reason = 4096;
/// Bytes in a frame header.
inline constexpr std::size_t header_size = 40;
/// The marker that opens every frame header.
inline constexpr std::uint32_t frame_marker = 0x464C4D54;

namespace detail {
inline void put32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline void put64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
inline std::uint32_t get32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
  return v;
}
inline std::uint64_t get64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Handshake

/// What a process says about itself when a connection opens.
struct Hello {
  std::uint32_t version = protocol_version;
  std::uint32_t process = 0;    ///< the sender's process index
  std::uint32_t processes = 1;  ///< P the sender was started with
  std::uint32_t workers = 1;    ///< W the sender was started with
  std::uint32_t flags = 0;      ///< reserved, 0
  bool operator==(const Hello&) const = default;
};

/// The 32 bytes of `hello`.
inline std::array<std::uint8_t, hello_size> encode_hello(const Hello& hello) {
  std::array<std::uint8_t, hello_size> out{};
  std::memcpy(out.data(), hello_magic.data(), hello_magic.size());
  detail::put32(out.data() + 8, hello.version);
  detail::put32(out.data() + 12, hello.process);
  detail::put32(out.data() + 16, hello.processes);
  detail::put32(out.data() + 20, hello.workers);
  detail::put32(out.data() + 24, hello.flags);
  detail::put32(out.data() + 28, 0);
  return out;
}

/// Parses a hello. Only the magic, size and reserved word are checked here; `check_hello`
/// compares the values with what this process expects.
/// \throws ProtocolError if `bytes` is not 32 bytes, lacks the magic (a stranger on the port),
/// or has the reserved word set.
inline Hello parse_hello(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != hello_size)
    throw ProtocolError("timely: handshake: expected " + std::to_string(hello_size) + " bytes, got " +
                        std::to_string(bytes.size()));
  if (std::memcmp(bytes.data(), hello_magic.data(), hello_magic.size()) != 0) {
    std::string seen;
    static constexpr char hex[] = "0123456789abcdef";
    for (std::size_t i = 0; i < 8; ++i) {
      seen += hex[bytes[i] >> 4];
      seen += hex[bytes[i] & 15];
    }
    throw ProtocolError("timely: handshake: the peer is not a timely process (first bytes " + seen +
                        ", expected the magic \"TIMELYCL\")");
  }
  Hello h;
  h.version = detail::get32(bytes.data() + 8);
  h.process = detail::get32(bytes.data() + 12);
  h.processes = detail::get32(bytes.data() + 16);
  h.workers = detail::get32(bytes.data() + 20);
  h.flags = detail::get32(bytes.data() + 24);
  if (detail::get32(bytes.data() + 28) != 0)
    throw ProtocolError("timely: handshake: reserved word is " +
                        std::to_string(detail::get32(bytes.data() + 28)) + ", expected 0");
  return h;
}

/// Compares the peer's hello with this process's own and with the index it should have
/// (`expected_process`, or any index but ours if `std::nullopt`). Returns an empty string if
/// they agree, else a sentence saying what differed, worded for both sides' error messages.
inline std::string check_hello(const Hello& mine, const Hello& theirs,
                               std::optional<std::uint32_t> expected_process) {
  const auto n = [](std::uint32_t v) { return std::to_string(v); };
  if (theirs.version != mine.version)
    return "process " + n(theirs.process) + " speaks protocol version " + n(theirs.version) + ", process " +
           n(mine.process) + " speaks version " + n(mine.version);
  if (theirs.flags != 0)
    return "process " + n(theirs.process) + " sent unknown handshake flags " + n(theirs.flags);
  if (theirs.processes != mine.processes)
    return "process " + n(theirs.process) + " was started with -n " + n(theirs.processes) + ", process " +
           n(mine.process) + " with -n " + n(mine.processes);
  if (theirs.workers != mine.workers)
    return "process " + n(theirs.process) + " was started with -w " + n(theirs.workers) + ", process " +
           n(mine.process) + " with -w " + n(mine.workers);
  if (theirs.process >= mine.processes)
    return "a peer claims process index " + n(theirs.process) + ", but there are only " + n(mine.processes) +
           " processes (indices 0 to " + n(mine.processes - 1) + ")";
  if (theirs.process == mine.process)
    return "two processes claim index " + n(mine.process) + " (check the -p arguments)";
  if (expected_process && theirs.process != *expected_process)
    return "the process at the address of process " + n(*expected_process) + " says it is process " +
           n(theirs.process) + " (check the hostfile and the -p arguments)";
  return {};
}

/// Encodes a verdict: accept if `reason` is empty, else reject with `reason` (cut to
/// `max_reason` bytes).
inline std::vector<std::uint8_t> encode_verdict(const std::string& reason) {
  const std::size_t len = std::min(reason.size(), max_reason);
  std::vector<std::uint8_t> out(8 + len);
  detail::put32(out.data(), reason.empty() ? 0 : 1);
  detail::put32(out.data() + 4, static_cast<std::uint32_t>(len));
  std::memcpy(out.data() + 8, reason.data(), len);
  return out;
}

/// The fixed part of a verdict: status and reason length.
struct VerdictHead {
  bool accept = true;
  std::uint32_t length = 0;
};

/// Parses the first 8 bytes of a verdict.
/// \throws ProtocolError on a status other than 0 or 1, a reason longer than `max_reason`, or
/// an accept that carries a reason.
inline VerdictHead parse_verdict_head(std::span<const std::uint8_t, 8> bytes) {
  const auto status = detail::get32(bytes.data());
  const auto len = detail::get32(bytes.data() + 4);
  if (status > 1)
    throw ProtocolError("timely: handshake: verdict status " + std::to_string(status) + ", expected 0 or 1");
  if (len > max_reason)
    throw ProtocolError("timely: handshake: verdict reason of " + std::to_string(len) + " bytes, at most " +
                        std::to_string(max_reason) + " allowed");
  if (status == 0 && len != 0)
    throw ProtocolError("timely: handshake: an accepting verdict carries a reason");
  return {status == 0, len};
}

// ---------------------------------------------------------------------------------------------
// Frames

/// What a frame is.
enum class FrameKind : std::uint8_t {
  Data = 1,         ///< one encoded message for the workers `target_lo..target_hi` on `channel`
  Heartbeat = 2,    ///< "still here": sent when a connection has been idle for a while
  EndOfStream = 3,  ///< the sender's workers are done; nothing follows
  Abort = 4,        ///< the sender's computation failed; the payload says why
};

/// A parsed frame header (see the file comment for the layout).
struct FrameHeader {
  FrameKind kind = FrameKind::Data;
  std::uint32_t source = 0;
  std::uint32_t target_lo = 0;
  std::uint32_t target_hi = 0;
  std::uint32_t length = 0;
  std::uint64_t channel = 0;
  std::uint64_t seq = 0;
  bool operator==(const FrameHeader&) const = default;
};

/// Bytes a frame with `length` payload bytes takes, padding included.
constexpr std::size_t frame_size(std::size_t length) noexcept {
  return header_size + ((length + 7) & ~std::size_t{7});
}

/// Writes `h` into the 40 bytes at `out`.
inline void encode_header(const FrameHeader& h, std::uint8_t* out) {
  detail::put32(out, frame_marker);
  out[4] = static_cast<std::uint8_t>(h.kind);
  out[5] = out[6] = out[7] = 0;
  detail::put32(out + 8, h.source);
  detail::put32(out + 12, h.target_lo);
  detail::put32(out + 16, h.target_hi);
  detail::put32(out + 20, h.length);
  detail::put64(out + 24, h.channel);
  detail::put64(out + 32, h.seq);
}

/// What a connection from one peer process may carry.
struct FrameLimits {
  std::uint32_t workers = 1;             ///< W, worker threads per process
  std::uint32_t peer = 0;                ///< the peer's process index
  std::uint32_t self = 0;                ///< this process's index
  std::uint32_t max_payload = 1u << 30;  ///< most payload bytes in one frame
};

/// Parses and validates a frame header.
/// \param bytes at least `header_size` bytes; \param offset the stream offset of the header,
/// for error messages. \throws ProtocolError naming the field, the value and the offset.
inline FrameHeader parse_header(std::span<const std::uint8_t> bytes, const FrameLimits& limits,
                                std::uint64_t offset) {
  const auto fail = [&](const std::string& what) -> void {
    throw ProtocolError("timely: corrupt frame from process " + std::to_string(limits.peer) +
                        " at stream byte " + std::to_string(offset) + ": " + what);
  };
  if (bytes.size() < header_size) fail("header truncated to " + std::to_string(bytes.size()) + " bytes");
  const std::uint8_t* p = bytes.data();
  if (detail::get32(p) != frame_marker) fail("bad frame marker " + std::to_string(detail::get32(p)));
  FrameHeader h;
  const auto kind = p[4];
  if (kind < 1 || kind > 4) fail("unknown frame kind " + std::to_string(kind));
  if (p[5] != 0 || p[6] != 0 || p[7] != 0) fail("reserved header bytes are not zero");
  h.kind = static_cast<FrameKind>(kind);
  h.source = detail::get32(p + 8);
  h.target_lo = detail::get32(p + 12);
  h.target_hi = detail::get32(p + 16);
  h.length = detail::get32(p + 20);
  h.channel = detail::get64(p + 24);
  h.seq = detail::get64(p + 32);
  const std::uint64_t w = limits.workers;
  if (h.kind == FrameKind::Data) {
    if (h.source / w != limits.peer)
      fail("source worker " + std::to_string(h.source) + " does not belong to process " +
           std::to_string(limits.peer));
    const std::uint64_t lo = std::uint64_t{limits.self} * w;
    const std::uint64_t hi = lo + w;
    if (!(h.target_lo < h.target_hi && h.target_lo >= lo && h.target_hi <= hi))
      fail("target workers " + std::to_string(h.target_lo) + ".." + std::to_string(h.target_hi) +
           " are not a non-empty range of this process's workers " + std::to_string(lo) + ".." +
           std::to_string(hi));
    if (h.length > limits.max_payload)
      fail("payload of " + std::to_string(h.length) + " bytes exceeds the limit of " +
           std::to_string(limits.max_payload));
  } else {
    if (h.source != 0 || h.target_lo != 0 || h.target_hi != 0 || h.channel != 0 || h.seq != 0)
      fail("a control frame carries data fields");
    if (h.kind == FrameKind::Abort ? h.length > max_reason : h.length != 0)
      fail("control frame payload of " + std::to_string(h.length) + " bytes");
  }
  return h;
}

}  // namespace timely::communication::wire
