// fuzz_wire: a libFuzzer target for everything that decodes bytes from a peer process.
//
// Every input goes to
//   - wire::parse_hello (the whole input, and its first 32 bytes),
//   - wire::parse_verdict_head (the first 8 bytes),
//   - wire::parse_header with several FrameLimits (the whole input as one header, and as a
//     stream of frames walked the way the receive thread walks it),
//   - Codec decoding of dataflow::Message<std::uint64_t, std::vector<std::pair<std::string, std::uint64_t>>>,
//     of dataflow::Message<Product<std::uint64_t, std::uint32_t>,
//     std::vector<std::vector<std::optional<std::string>>>>, of progress::ProgressMessage<std::uint64_t> and
//     of ProgressMessage<Product<u64, u32>> (the whole input, and the payload of every data frame of the
//     walked stream).
// The documented exceptions (wire::ProtocolError, communication::CodecError) are the only
// acceptable failures. Anything else (another exception, a crash, a sanitizer report, or a
// broken invariant: a value accepted by a parser that does not re-encode to the bytes it was
// parsed from) is a finding and aborts.
//
// Build: cmake -DTIMELY_BUILD_FUZZ=ON with clang (scripts/fuzz.sh does it all).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/communication/wire.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/progress/broadcast.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/timestamp.hpp>

namespace wire = timely::communication::wire;
using timely::communication::Codec;
using timely::communication::CodecError;
using timely::communication::Decoder;
using timely::communication::Encoder;

namespace {

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_wire: FINDING: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) finding(what);
}

void fuzz_hello(std::span<const std::uint8_t> bytes) {
  try {
    const auto hello = wire::parse_hello(bytes);
    const auto again = wire::encode_hello(hello);
    check(bytes.size() == wire::hello_size && std::memcmp(again.data(), bytes.data(), wire::hello_size) == 0,
          "an accepted hello does not re-encode to its bytes");
    // check_hello must not throw, whatever the values.
    wire::Hello mine;
    mine.process = 1;
    mine.processes = 3;
    mine.workers = 2;
    (void)wire::check_hello(mine, hello, std::nullopt);
    (void)wire::check_hello(mine, hello, 0u);
    mine.processes = 0;  // not a valid configuration, but check_hello is a pure function
    (void)wire::check_hello(mine, hello, std::nullopt);
  } catch (const wire::ProtocolError&) {
  }
}

void fuzz_verdict(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 8) return;
  try {
    const auto head = wire::parse_verdict_head(std::span<const std::uint8_t, 8>(bytes.data(), 8));
    check(head.length <= wire::max_reason, "an accepted verdict has a reason longer than max_reason");
    check(!head.accept || head.length == 0, "an accepting verdict has a reason");
    const std::string reason(reinterpret_cast<const char*>(bytes.data()) + 8,
                             std::min<std::size_t>(head.length, bytes.size() - 8));
    if (!head.accept && !reason.empty() && reason.size() == head.length) {
      const auto again = wire::encode_verdict(reason);
      check(again.size() == 8 + head.length && std::memcmp(again.data(), bytes.data(), again.size()) == 0,
            "an accepted verdict does not re-encode to its bytes");
    }
  } catch (const wire::ProtocolError&) {
  }
}

// Decodes one value of M from `bytes`; if it decodes, re-encoding must give the bytes consumed.
template <class M>
void fuzz_decode(std::span<const std::uint8_t> bytes, std::uint64_t base) {
  try {
    Decoder decoder(bytes, base);
    M message = Codec<M>::decode(decoder);
    const std::size_t used = decoder.position();
    check(used <= bytes.size(), "the decoder read past the end");
    std::vector<std::uint8_t> again;
    Encoder encoder(again);
    Codec<M>::encode(encoder, message);
    check(again.size() == used && std::memcmp(again.data(), bytes.data(), used) == 0,
          "a decoded message does not re-encode to the bytes it was decoded from");
    try {
      decoder.expect_end("message");
    } catch (const CodecError&) {
    }
  } catch (const CodecError&) {
  }
}

using DataMessage =
    timely::dataflow::Message<std::uint64_t, std::vector<std::pair<std::string, std::uint64_t>>>;
using Time2 = timely::Product<std::uint64_t, std::uint32_t>;
using DataMessage2 = timely::dataflow::Message<Time2, std::vector<std::vector<std::optional<std::string>>>>;
using Progress = timely::progress::ProgressMessage<std::uint64_t>;
using Progress2 = timely::progress::ProgressMessage<Time2>;

void fuzz_payload(std::span<const std::uint8_t> bytes, std::uint64_t base) {
  fuzz_decode<DataMessage>(bytes, base);
  fuzz_decode<DataMessage2>(bytes, base);
  fuzz_decode<Progress>(bytes, base);
  fuzz_decode<Progress2>(bytes, base);
}

void check_header(const wire::FrameHeader& h, std::span<const std::uint8_t> bytes,
                  const wire::FrameLimits& limits) {
  std::uint8_t again[wire::header_size];
  wire::encode_header(h, again);
  check(std::memcmp(again, bytes.data(), wire::header_size) == 0,
        "an accepted header does not re-encode to its bytes");
  if (h.kind == wire::FrameKind::Data) {
    const std::uint64_t w = limits.workers;
    check(h.source / w == limits.peer, "a data frame from a worker of another process was accepted");
    check(h.target_lo < h.target_hi && h.target_lo >= limits.self * w && h.target_hi <= (limits.self + 1) * w,
          "a data frame for workers of another process was accepted");
    check(h.length <= limits.max_payload, "a data frame longer than the limit was accepted");
  } else {
    check(h.source == 0 && h.target_lo == 0 && h.target_hi == 0 && h.channel == 0 && h.seq == 0,
          "a control frame with data fields was accepted");
    check(h.length <= wire::max_reason, "a control frame with a long payload was accepted");
  }
}

void fuzz_frames(std::span<const std::uint8_t> bytes, const wire::FrameLimits& limits) {
  // The whole input as one header.
  try {
    const auto h = wire::parse_header(bytes, limits, 0);
    check(bytes.size() >= wire::header_size, "a truncated header was accepted");
    check_header(h, bytes, limits);
  } catch (const wire::ProtocolError&) {
  }
  // The input as a stream of frames, as the receive thread walks it.
  std::size_t at = 0;
  try {
    while (bytes.size() - at >= wire::header_size) {
      const auto rest = bytes.subspan(at);
      const auto h = wire::parse_header(rest, limits, at);
      check_header(h, rest, limits);
      const auto size = wire::frame_size(h.length);
      check(size >= wire::header_size + h.length && size % 8 == 0, "frame_size is wrong");
      if (rest.size() < size) break;  // the rest of the frame has not arrived
      if (h.kind == wire::FrameKind::Data) fuzz_payload(rest.subspan(wire::header_size, h.length), at);
      at += size;
    }
  } catch (const wire::ProtocolError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    fuzz_hello(bytes);
    if (size >= wire::hello_size) fuzz_hello(bytes.first(wire::hello_size));
    fuzz_verdict(bytes);
    // Limits of a receiving process `self` for frames from `peer`, with W workers each: the
    // shapes a real connection has (Network::start rejects W = 0), including extreme ones.
    static const wire::FrameLimits limits[] = {
        {1, 1, 0, 1u << 30},                // two processes of one worker, from process 1
        {2, 0, 1, 1u << 30},                // two workers each, from process 0 to process 1
        {4, 2, 0, 1u << 20},                // a small payload limit
        {3, 0, 0, 1u << 30},                // zerocopy: a process to itself
        {0x10000, 0xFFFF, 0, 0xFFFFFFFFu},  // the most processes and workers the arguments allow
        {0xFFFFFFFFu, 0, 0, 64},            // W at the top of u32
    };
    for (const auto& l : limits) fuzz_frames(bytes, l);
    fuzz_payload(bytes, 0);
  } catch (const wire::ProtocolError& e) {
    std::fprintf(stderr, "fuzz_wire: FINDING: ProtocolError escaped: %s\n", e.what());
    std::abort();
  } catch (const CodecError& e) {
    std::fprintf(stderr, "fuzz_wire: FINDING: CodecError escaped: %s\n", e.what());
    std::abort();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_wire: FINDING: undocumented exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
