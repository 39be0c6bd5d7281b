// The binary event format: exact layout, codecs, and typed errors with byte offsets for every
// kind of corruption and truncation (capture/format.hpp, capture/writer.hpp, capture/reader.hpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/execute.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
using Kind = cap::FormatErrorKind;
using Time = std::uint64_t;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::string as_string(const Bytes& b) { return std::string(b.begin(), b.end()); }
Bytes as_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }

template <class T, class D>
std::vector<cap::Event<T, D>> read_all(const Bytes& bytes, cap::ReaderOptions options = {}) {
  std::istringstream in(as_string(bytes));
  cap::EventReader<T, D> reader(in, options);
  std::vector<cap::Event<T, D>> out;
  while (auto e = reader.next()) out.push_back(std::move(*e));
  CHECK(reader.exhausted());
  return out;
}

/// A valid stream of strings at u64 times, and the offsets at which its events start (the
/// last entry is its length).
struct Sample {
  Bytes bytes;
  std::vector<std::size_t> boundaries;
  std::vector<cap::Event<Time, std::string>> events;
};

Sample sample() {
  using E = cap::Event<Time, std::string>;
  Sample s;
  s.events = {
      E(cap::ProgressEvent<Time>{{{0, -1}, {2, 1}}}),
      E(cap::MessagesEvent<Time, std::string>{2, {"alpha", "beta"}}),
      E(cap::MessagesEvent<Time, std::string>{2, {"gamma"}}),
      E(cap::ProgressEvent<Time>{{{2, -1}, {5, 1}}}),
      E(cap::MessagesEvent<Time, std::string>{5, {"delta", ""}}),
      E(cap::ProgressEvent<Time>{{{5, -1}}}),
  };
  std::ostringstream out;
  cap::EventWriter<Time, std::string> writer(out);
  for (const auto& e : s.events) {
    s.boundaries.push_back(writer.offset());
    writer.push(e);
  }
  s.boundaries.push_back(writer.offset());
  writer.flush();
  s.bytes = as_bytes(out.str());
  return s;
}

/// Recomputes the checksum of the frame starting at `at`.
void fix_crc(Bytes& b, std::size_t at) {
  std::uint64_t len = 0;
  for (std::size_t i = 0; i < 8; ++i) len |= std::uint64_t{b[at + 1 + i]} << (8 * i);
  std::uint32_t crc = cap::crc32(std::span<const std::uint8_t>(b.data() + at, 9));
  crc = cap::crc32(std::span<const std::uint8_t>(b.data() + at + 13, len), crc);
  for (std::size_t i = 0; i < 4; ++i) b[at + 9 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
}

void put_u64(Bytes& b, std::size_t at, std::uint64_t v) {
  for (std::size_t i = 0; i < 8; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

/// Reading `bytes` must throw a FormatError of `kind` at `offset`, saying so in its message.
template <class T = Time, class D = std::string>
void expect_error(const Bytes& bytes, Kind kind, std::uint64_t offset, cap::ReaderOptions options = {}) {
  try {
    std::istringstream in(as_string(bytes));
    cap::EventReader<T, D> reader(in, options);
    while (reader.next()) {
    }
    FAIL("no error; expected " << cap::to_string(kind) << " at byte offset " << offset);
  } catch (const cap::FormatError& e) {
    INFO(e.what());
    CHECK(e.kind() == kind);
    CHECK(e.offset() == offset);
    CHECK(e.in_bytes());
    CHECK_THAT(e.what(), Catch::Contains("byte offset " + std::to_string(offset)));
    CHECK_THAT(e.what(), Catch::Contains(std::string(cap::to_string(kind))));
  }
}

}  // namespace

TEST_CASE("the event format is little-endian, fixed-width and checksummed", "[capture][format]") {
  const std::string check = "123456789";
  CHECK(cap::crc32(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(check.data()),
                                                 check.size())) == 0xCBF43926u);

  std::ostringstream out;
  {
    cap::EventWriter<std::uint32_t, std::uint8_t> writer(out);
    writer.push(cap::MessagesEvent<std::uint32_t, std::uint8_t>{0x01020304u, {0xAA}});
    writer.push(cap::ProgressEvent<std::uint32_t>{{{7u, -1}}});
  }
  const Bytes b = as_bytes(out.str());
  const Bytes header_fields = {'T', 'I', 'M', 'E', 'L', 'Y', 'E', 'V', 1, 0, 0,   0,  3,
                               0,   0,   0,   'u', '3', '2', 2,   0,   0, 0, 'u', '8'};
  REQUIRE(b.size() == 29 + (13 + 13) + (13 + 20));
  CHECK(Bytes(b.begin(), b.begin() + 25) == header_fields);
  const Bytes messages_frame = {2,    13, 0, 0, 0, 0, 0, 0, 0,  // kind, len
                                0x04, 3,  2, 1,                 // time 0x01020304
                                1,    0,  0, 0, 0, 0, 0, 0,     // one record
                                0xAA};
  CHECK(Bytes(b.begin() + 29, b.begin() + 38) == Bytes(messages_frame.begin(), messages_frame.begin() + 9));
  CHECK(Bytes(b.begin() + 42, b.begin() + 55) == Bytes(messages_frame.begin() + 9, messages_frame.end()));
  const Bytes progress_frame = {1,    20,   0,    0,    0,    0,    0,    0,   0,  // kind, len
                                1,    0,    0,    0,    0,    0,    0,    0,       // one change
                                7,    0,    0,    0,                               // time 7
                                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};   // diff -1
  CHECK(Bytes(b.begin() + 55, b.begin() + 64) == Bytes(progress_frame.begin(), progress_frame.begin() + 9));
  CHECK(Bytes(b.begin() + 68, b.end()) == Bytes(progress_frame.begin() + 9, progress_frame.end()));

  auto events = read_all<std::uint32_t, std::uint8_t>(b);
  REQUIRE(events.size() == 2);
  CHECK(std::get<1>(events[0]) == cap::MessagesEvent<std::uint32_t, std::uint8_t>{0x01020304u, {0xAA}});
  CHECK(std::get<0>(events[1]).changes == std::vector<std::pair<std::uint32_t, std::int64_t>>{{7u, -1}});
}

TEST_CASE("the CRC-32 is the IEEE one, continued across calls, whatever the lengths", "[capture][format]") {
  // The definition, a bit at a time (reflected polynomial 0xEDB88320), as the oracle.
  auto reference = [](std::span<const std::uint8_t> bytes, std::uint32_t crc) {
    crc = ~crc;
    for (auto b : bytes) {
      crc ^= b;
      for (int k = 0; k < 8; ++k) crc = (crc & 1u) ? (0xEDB88320u ^ (crc >> 1)) : (crc >> 1);
    }
    return ~crc;
  };
  Bytes data(4099);
  std::uint32_t x = 12345;
  for (auto& b : data) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::uint8_t>(x >> 16);
  }
  const std::span<const std::uint8_t> all(data);
  for (std::size_t n : {0u, 1u, 3u, 8u, 13u, 64u, 1000u, 4099u}) {
    INFO("length " << n);
    CHECK(cap::crc32(all.first(n)) == reference(all.first(n), 0));
    for (std::size_t split : {std::size_t{0}, n / 3, n}) {
      INFO("split at " << split);
      CHECK(cap::crc32(all.subspan(split, n - split), cap::crc32(all.first(split))) ==
            reference(all.first(n), 0));
    }
  }
  CHECK(cap::crc32({}, 0xDEADBEEFu) == 0xDEADBEEFu);  // nothing changes nothing
}

TEST_CASE("a frame's CRC-32 is checked unless its bytes are trusted", "[capture][format]") {
  const Sample s = sample();
  const std::size_t at = s.boundaries[1];  // the messages event {"alpha", "beta"} at time 2
  Bytes frame(s.bytes.begin() + static_cast<std::ptrdiff_t>(at),
              s.bytes.begin() + static_cast<std::ptrdiff_t>(s.boundaries[2]));
  using Vec = std::vector<std::string>;
  const auto expected = std::get<1>(s.events[1]);
  auto decode = [&](cap::detail::FrameChecksum checksum) {
    return std::get<1>(cap::detail::decode_frame<Time, Vec>(frame, at, nullptr, checksum));
  };
  CHECK(decode(cap::detail::FrameChecksum::verify) == expected);
  CHECK(decode(cap::detail::FrameChecksum::trusted) == expected);
  frame[9] ^= 0x01;  // the stored CRC-32, wrong
  try {
    (void)decode(cap::detail::FrameChecksum::verify);
    FAIL("a wrong CRC-32 was not detected");
  } catch (const cap::FormatError& e) {
    CHECK(e.kind() == Kind::ChecksumMismatch);
    CHECK(e.offset() == at);
  }
  CHECK(decode(cap::detail::FrameChecksum::trusted) == expected);
  // Trusted bytes are still decoded with every check: a body that does not decode is reported.
  frame[13 + 8] = 0xFF;  // the record count's low byte: far more records than bytes
  try {
    (void)decode(cap::detail::FrameChecksum::trusted);
    FAIL("a bad body was not detected");
  } catch (const cap::FormatError& e) {
    CHECK(e.kind() == Kind::BadPayload);
  }
}

namespace {
struct Point {
  std::int32_t x;
  float y;
  friend bool operator==(const Point&, const Point&) = default;
};
enum class Color : std::uint16_t { Red = 1, Blue = 0xBEEF };
}  // namespace

TEST_CASE("codecs round-trip numbers, strings, pairs, tuples, vectors, products and plain structs",
          "[capture][format]") {
  using T = timely::Product<std::uint64_t, std::uint32_t>;
  using D = std::tuple<std::string, double, bool, std::vector<std::int16_t>, std::pair<Point, Color>,
                       timely::Unit, char, std::int8_t>;
  CHECK(timely::communication::Codec<T>::name() == "product<u64,u32>");
  CHECK(timely::communication::Codec<D>::name() ==
        "tuple<string,f64,bool,vec<i16>,pair<raw8,enum:u16>,unit,char,i8>");
  const std::vector<cap::Event<T, D>> events = {
      cap::ProgressEvent<T>{{{T{0, 0}, -1}, {T{3, 1}, 1}, {T{1, 9}, 1}}},
      cap::MessagesEvent<T, D>{T{3, 1},
                               {D{"", -0.0, true, {}, {Point{-1, 2.5f}, Color::Blue}, {}, 'z', -128},
                                D{std::string(300, 'q'),
                                  1e300,
                                  false,
                                  {-32768, 32767, 0},
                                  {Point{7, -1e-9f}, Color::Red},
                                  {},
                                  '\0',
                                  127}}},
      cap::MessagesEvent<T, D>{T{1, 9}, {}},
  };
  std::ostringstream out;
  {
    cap::EventWriter<T, D> writer(out);
    for (const auto& e : events) writer.push(e);
  }
  CHECK(read_all<T, D>(as_bytes(out.str())) == events);

  using D2 = std::pair<std::array<std::int32_t, 3>, std::vector<std::string>>;
  CHECK(timely::communication::Codec<D2>::name() == "pair<array<i32,3>,vec<string>>");
  const std::vector<cap::Event<Time, D2>> events2 = {
      cap::MessagesEvent<Time, D2>{9, {D2{{-1, 0, 1 << 30}, {"a", "", "bc"}}, D2{{7, 8, 9}, {}}}}};
  std::ostringstream out2;
  {
    cap::EventWriter<Time, D2> writer(out2);
    for (const auto& e : events2) writer.push(e);
  }
  CHECK(read_all<Time, D2>(as_bytes(out2.str())) == events2);
}

TEST_CASE("a truncated or corrupt stream throws a typed error with the byte offset", "[capture][format]") {
  const Sample s = sample();
  const std::size_t header = s.boundaries[0];
  REQUIRE(header == 16 + 3 + 4 + 6 + 4);
  REQUIRE(read_all<Time, std::string>(s.bytes) == s.events);

  SECTION("bad magic") {
    Bytes b = s.bytes;
    b[3] = 'X';
    expect_error(b, Kind::BadMagic, 3);
    expect_error(as_bytes("PK\x03\x04"), Kind::BadMagic, 0);
  }
  SECTION("unsupported version") {
    Bytes b = s.bytes;
    b[8] = 2;
    expect_error(b, Kind::UnsupportedVersion, 8);
  }
  SECTION("reserved flags") {
    Bytes b = s.bytes;
    b[11] = 0x80;
    expect_error(b, Kind::BadHeader, 10);
  }
  SECTION("absurd type name length") {
    Bytes b = s.bytes;
    b[14] = 1;  // tlen = 3 + 65536
    expect_error(b, Kind::BadHeader, 12);
  }
  SECTION("header checksum") {
    Bytes b = s.bytes;
    b[17] = '3';  // "u64" -> "u34"
    expect_error(b, Kind::ChecksumMismatch, header - 4);
  }
  SECTION("wrong record or time type") {
    expect_error<Time, std::uint64_t>(s.bytes, Kind::SchemaMismatch, 23);
    expect_error<std::uint32_t, std::string>(s.bytes, Kind::SchemaMismatch, 16);
  }
  SECTION("truncated inside the header") {
    expect_error(Bytes(s.bytes.begin(), s.bytes.begin() + 5), Kind::Truncated, 5);
    expect_error(Bytes(s.bytes.begin(), s.bytes.begin() + 20), Kind::Truncated, 20);
    expect_error(Bytes(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(header) - 1),
                 Kind::Truncated, header - 1);
  }
  SECTION("truncated inside an event header") {
    const std::size_t cut = s.boundaries[2] + 6;
    expect_error(Bytes(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(cut)), Kind::Truncated,
                 cut);
  }
  SECTION("truncated inside an event body") {
    const std::size_t cut = s.boundaries[4] + 20;
    expect_error(Bytes(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(cut)), Kind::Truncated,
                 cut);
  }
  SECTION("unknown event kind") {
    Bytes b = s.bytes;
    b[s.boundaries[3]] = 7;
    expect_error(b, Kind::BadEventKind, s.boundaries[3]);
    b = s.bytes;
    b[s.boundaries[0]] = 0;
    expect_error(b, Kind::BadEventKind, s.boundaries[0]);
  }
  SECTION("event length beyond the limit") {
    Bytes b = s.bytes;
    put_u64(b, s.boundaries[1] + 1, std::uint64_t{1} << 62);
    expect_error(b, Kind::EventTooLarge, s.boundaries[1] + 1);
    // Event 0's body is 40 bytes, event 1's is 41.
    b = s.bytes;
    expect_error(b, Kind::EventTooLarge, s.boundaries[1] + 1, cap::ReaderOptions{.max_event_bytes = 40});
  }
  SECTION("event length beyond the end of the input") {
    Bytes b = s.bytes;
    put_u64(b, s.boundaries[5] + 1, 1000);
    expect_error(b, Kind::Truncated, b.size());
  }
  SECTION("flipped bit in an event body") {
    Bytes b = s.bytes;
    b[s.boundaries[2] + 13 + 9] ^= 0x10;
    expect_error(b, Kind::ChecksumMismatch, s.boundaries[2]);
  }
  SECTION("a string longer than its event, checksum intact") {
    Bytes b = s.bytes;
    // Event 1: time (8), count (8), then the first string's length at +16 of the body.
    const std::size_t length_field = s.boundaries[1] + 13 + 16;
    put_u64(b, length_field, 1u << 20);
    fix_crc(b, s.boundaries[1]);
    expect_error(b, Kind::BadPayload, length_field);
  }
  SECTION("a record count larger than the event can hold, checksum intact") {
    Bytes b = s.bytes;
    const std::size_t count_field = s.boundaries[2] + 13 + 8;
    put_u64(b, count_field, ~std::uint64_t{0});
    fix_crc(b, s.boundaries[2]);
    expect_error(b, Kind::BadPayload, count_field);
  }
  SECTION("bytes left over after an event's fields, checksum intact") {
    Bytes b = s.bytes;
    const std::size_t at = s.boundaries[5];
    const std::size_t end = s.boundaries[6];
    b.push_back(0xEE);
    put_u64(b, at + 1, end + 1 - at - 13);
    fix_crc(b, at);
    expect_error(b, Kind::BadPayload, end);
  }
  SECTION("a bool that is neither 0 nor 1, checksum intact") {
    std::ostringstream out;
    {
      cap::EventWriter<Time, bool> writer(out);
      writer.push(cap::MessagesEvent<Time, bool>{4, {true, false, true}});
    }
    Bytes b = as_bytes(out.str());
    const std::size_t frame = 16 + 3 + 4 + 4 + 4;
    const std::size_t second = frame + 13 + 8 + 8 + 1;
    b[second] = 2;
    fix_crc(b, frame);
    expect_error<Time, bool>(b, Kind::BadPayload, second);
  }
}

TEST_CASE("every single-byte corruption is detected", "[capture][format]") {
  const Sample s = sample();
  for (std::size_t i = 0; i < s.bytes.size(); ++i) {
    for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      Bytes b = s.bytes;
      b[i] ^= mask;
      INFO("byte " << i << " xor " << int{mask});
      CHECK_THROWS_AS((read_all<Time, std::string>(b)), cap::FormatError);
    }
  }
}

TEST_CASE("every truncation is detected or ends at an event boundary", "[capture][format]") {
  const Sample s = sample();
  for (std::size_t len = 0; len < s.bytes.size(); ++len) {
    INFO("length " << len);
    const Bytes b(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(len));
    const bool boundary = std::find(s.boundaries.begin(), s.boundaries.end(), len) != s.boundaries.end();
    if (boundary) {
      auto events = read_all<Time, std::string>(b);
      const auto index = std::find(s.boundaries.begin(), s.boundaries.end(), len) - s.boundaries.begin();
      CHECK(events == std::vector<cap::Event<Time, std::string>>(s.events.begin(), s.events.begin() + index));
    } else if (len < 8) {
      CHECK_THROWS_AS((read_all<Time, std::string>(b)), cap::FormatError);
    } else {
      try {
        read_all<Time, std::string>(b);
        FAIL("no error");
      } catch (const cap::FormatError& e) {
        CHECK(e.kind() == Kind::Truncated);
        CHECK(e.offset() == len);
      }
    }
  }
}

TEST_CASE("a live reader waits for partial events and resumes", "[capture][format]") {
  const Sample s = sample();
  std::stringstream pipe;
  cap::EventReader<Time, std::string> reader(pipe, cap::ReaderOptions{.live = true});
  std::vector<cap::Event<Time, std::string>> got;
  for (std::size_t i = 0; i < s.bytes.size(); ++i) {
    pipe.write(reinterpret_cast<const char*>(&s.bytes[i]), 1);
    while (auto e = reader.next()) got.push_back(std::move(*e));
    CHECK(!reader.exhausted());
  }
  CHECK(got == s.events);
  CHECK(reader.offset() == s.bytes.size());
}

TEST_CASE("writers and readers report i/o failures", "[capture][format]") {
  capture_test::TempDir dir;
  CHECK_THROWS_AS((cap::EventWriter<Time, int>::create(dir.file("missing") / "x.events")), cap::FormatError);
  CHECK_THROWS_AS((cap::EventReader<Time, int>::open(dir.file("absent.events"))), cap::FormatError);
  std::ostringstream broken;
  broken.setstate(std::ios::badbit);
  try {
    cap::EventWriter<Time, int> writer(broken);
    FAIL("no error");
  } catch (const cap::FormatError& e) {
    CHECK(e.kind() == Kind::Io);
  }
}

namespace {
/// Replays `bytes` on one worker; returns the records seen.
std::vector<std::string> replay_bytes(const Bytes& bytes) {
  std::vector<std::string> seen;
  timely::execute_directly([&](timely::Worker& worker) {
    worker.dataflow<Time>([&](auto& scope) {
      auto in = std::make_unique<std::istringstream>(as_string(bytes));
      replay_into(scope, cap::EventReader<Time, std::string>(std::unique_ptr<std::istream>(std::move(in)))) |
          inspect([&](const std::string& x) { seen.push_back(x); });
    });
  });
  return seen;
}

void expect_replay_error(const Bytes& bytes, Kind kind, std::uint64_t offset) {
  try {
    replay_bytes(bytes);
    FAIL("no error; expected " << cap::to_string(kind));
  } catch (const cap::FormatError& e) {
    INFO(e.what());
    CHECK(e.kind() == kind);
    CHECK(e.offset() == offset);
    CHECK_THAT(e.what(), Catch::Contains("byte offset " + std::to_string(offset)));
  }
}
}  // namespace

TEST_CASE("replay rejects incomplete streams and protocol violations", "[capture][format]") {
  const Sample s = sample();
  CHECK(replay_bytes(s.bytes) == std::vector<std::string>{"alpha", "beta", "gamma", "delta", ""});

  SECTION("cut at an event boundary while holding a capability") {
    const Bytes b(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(s.boundaries[5]));
    expect_replay_error(b, Kind::Incomplete, s.boundaries[5]);
  }
  SECTION("records at a time the stream no longer holds") {
    std::ostringstream out;
    {
      cap::EventWriter<Time, std::string> writer(out);
      writer.push(cap::ProgressEvent<Time>{{{0, -1}, {5, 1}}});
      writer.push(cap::MessagesEvent<Time, std::string>{3, {"late"}});
    }
    const Bytes b = as_bytes(out.str());
    expect_replay_error(b, Kind::ProtocolViolation, s.boundaries[0] + 13 + 8 + 2 * 16);
  }
  SECTION("an increment no held capability allows") {
    std::ostringstream out;
    {
      cap::EventWriter<Time, std::string> writer(out);
      writer.push(cap::ProgressEvent<Time>{{{0, -1}, {5, 1}}});
      writer.push(cap::ProgressEvent<Time>{{{4, 1}}});
    }
    expect_replay_error(as_bytes(out.str()), Kind::ProtocolViolation, s.boundaries[0] + 13 + 8 + 2 * 16);
  }
  SECTION("a retraction of a capability not held") {
    std::ostringstream out;
    {
      cap::EventWriter<Time, std::string> writer(out);
      writer.push(cap::ProgressEvent<Time>{{{0, -1}, {3, -1}}});
    }
    expect_replay_error(as_bytes(out.str()), Kind::ProtocolViolation, s.boundaries[0]);
  }
  SECTION("an event after the stream completed") {
    std::ostringstream out;
    {
      cap::EventWriter<Time, std::string> writer(out);
      writer.push(cap::ProgressEvent<Time>{{{0, -1}}});
      writer.push(cap::ProgressEvent<Time>{{{0, 1}}});
    }
    expect_replay_error(as_bytes(out.str()), Kind::ProtocolViolation, s.boundaries[0] + 13 + 8 + 16);
  }
  SECTION("garbage after a complete stream") {
    Bytes b = s.bytes;
    b.push_back(0x42);
    expect_replay_error(b, Kind::BadEventKind, s.bytes.size());
  }
  SECTION("the error stops every worker and reaches the caller of execute") {
    const Bytes b(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(s.boundaries[4] + 3));
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers);
      CHECK_THROWS_AS(timely::execute(timely::Config::process(workers),
                                      [&](timely::Worker& worker) {
                                        worker.dataflow<Time>([&](auto& scope) {
                                          std::vector<cap::EventReader<Time, std::string>> readers;
                                          if (worker.index() + 1 == worker.peers())
                                            readers.emplace_back(std::unique_ptr<std::istream>(
                                                std::make_unique<std::istringstream>(as_string(b))));
                                          replay_into(scope, std::move(readers));
                                        });
                                      }),
                      cap::FormatError);
    }
  }
}
