// The encoding of log events (timely/logging/codec.hpp): round trips of every event with all its
// fields, the documented bytes, names, rejection of bytes no encoder writes, and a user's codec.
#include <timely/logging/codec.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sample_events.hpp"
#include "support/catch.hpp"

using namespace timely::logging;
using namespace std::chrono_literals;

namespace {

template <class T>
std::vector<std::byte> bytes_of(const T& value) {
  std::vector<std::byte> out;
  Encoder enc(out);
  encode(enc, value);
  return out;
}

// Decodes `bytes` as a `T` and checks it took all of them.
template <class T>
T from_bytes(const std::vector<std::byte>& bytes) {
  Decoder dec(bytes);
  T value = decode<T>(dec);
  CHECK(dec.remaining() == 0);
  return value;
}

template <class T>
T round_trip(const T& value) {
  return from_bytes<T>(bytes_of(value));
}

// Every strict prefix of `value`'s encoding is rejected as too short.
template <class T>
void check_prefixes_rejected(const T& value) {
  const auto bytes = bytes_of(value);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("prefix of " << n << " of " << bytes.size() << " bytes");
    Decoder dec{std::span<const std::byte>(bytes).first(n)};
    CHECK_THROWS_AS(decode<T>(dec), CodecError);
  }
}

std::vector<std::byte> raw(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

}  // namespace

TEST_CASE("every TimelyEvent alternative round-trips with all its fields", "[logging][codec]") {
  const auto events = sample_timely_events();
  std::vector<std::size_t> alternatives;
  for (const auto& e : events) {
    INFO("alternative " << e.index());
    CHECK(round_trip(e) == e);
    alternatives.push_back(e.index());
  }
  std::sort(alternatives.begin(), alternatives.end());
  alternatives.erase(std::unique(alternatives.begin(), alternatives.end()), alternatives.end());
  CHECK(alternatives.size() == std::variant_size_v<TimelyEvent>);
}

TEST_CASE("the templated events round-trip for integer, pair, tuple and user timestamps",
          "[logging][codec]") {
  using Pair = std::pair<std::uint64_t, std::uint32_t>;
  ProgressEvent<Pair> progress{true, 2, 7, 99, 4, {{1, 0, {5, 2}, -3}, {0, 1, {0, 0}, 1}}, {}};
  CHECK(round_trip(progress) == progress);
  ProgressEvent<std::uint64_t> empty_progress{};
  CHECK(round_trip(empty_progress) == empty_progress);

  TrackerEvent<std::uint32_t> tracker{true, 3, {{2, 0, 7u, 1}, {2, 0, 8u, -1}}};
  CHECK(round_trip(tracker) == tracker);
  TrackerEvent<std::int64_t> retraction{false, 0, {{1, 1, std::int64_t{-5}, std::int64_t{-2}}}};
  CHECK(round_trip(retraction) == retraction);

  OperatesSummaryEvent<std::uint64_t> summary{5, {{{0, {0, 1}}, {1, {}}}, {}}};
  CHECK(round_trip(summary) == summary);
  // A summary type that encodes to no bytes: the antichains' lengths alone carry the shape.
  OperatesSummaryEvent<std::tuple<>> unit_summary{6, {{{0, {std::tuple<>{}}}}, {{1, {}}}}};
  CHECK(round_trip(unit_summary) == unit_summary);

  FrontierEvent<std::tuple<std::uint64_t, std::int32_t, std::string>> frontier{
      8, 1, true, {{{3, -1, "a"}, 1}, {{3, 2, ""}, -1}}};
  CHECK(round_trip(frontier) == frontier);
  FrontierEvent<std::chrono::nanoseconds> durations{8, 0, false, {{250ms, 1}, {0ns, -1}}};
  CHECK(round_trip(durations) == durations);
}

TEST_CASE("encodings are the documented little-endian bytes", "[logging][codec]") {
  CHECK(bytes_of(std::uint32_t{0x01020304}) == raw({4, 3, 2, 1}));
  CHECK(bytes_of(std::int16_t{-2}) == raw({0xfe, 0xff}));
  CHECK(bytes_of(std::string("ab")) == raw({2, 0, 0, 0, 0, 0, 0, 0, 'a', 'b'}));
  CHECK(bytes_of(std::optional<std::uint8_t>{}) == raw({0}));
  CHECK(bytes_of(std::optional<std::uint8_t>{9}) == raw({1, 9}));
  // Schedule is alternative 4: its index, the id as a u64, then the bool.
  CHECK(bytes_of(TimelyEvent{ScheduleEvent{5, true}}) == raw({4, 5, 0, 0, 0, 0, 0, 0, 0, 1}));
  // Park with a timeout of 3 ns: index 7, park, present, the i64.
  CHECK(bytes_of(TimelyEvent{ParkEvent{true, 3ns}}) == raw({7, 1, 1, 3, 0, 0, 0, 0, 0, 0, 0}));
  CHECK(bytes_of(std::vector<std::uint16_t>{1, 2}) == raw({2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0}));
  // Tuples and pairs of integers are written in one append: the same bytes as field by field.
  CHECK(bytes_of(std::tuple<std::uint8_t, std::int16_t, std::uint32_t>{1, -2, 0x01020304}) ==
        raw({1, 0xfe, 0xff, 4, 3, 2, 1}));
  CHECK(bytes_of(std::pair<std::uint16_t, std::int64_t>{0x0102, -1}) ==
        raw({2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  // A communication event: process, peer (u64s), connected, then four u64 counts.
  const auto comm = bytes_of(CommunicationEvent{1, 2, true, 3, 4, 5, 6});
  REQUIRE(comm.size() == 8 + 8 + 1 + 4 * 8);
  CHECK(std::vector<std::byte>(comm.begin() + 16, comm.begin() + 26) == raw({1, 3, 0, 0, 0, 0, 0, 0, 0, 4}));
  CHECK(round_trip(CommunicationEvent{1, 2, true, 3, 4, 5, 6}) == CommunicationEvent{1, 2, true, 3, 4, 5, 6});
  CHECK(round_trip(CommunicationEvent{0, 1, false, 0, 0, ~0ull, 7}) ==
        CommunicationEvent{0, 1, false, 0, 0, ~0ull, 7});
}

TEST_CASE("codec names follow the stream names' type names", "[logging][codec]") {
  CHECK(EventCodec<std::uint64_t>::name() == "u64");
  CHECK(EventCodec<std::int32_t>::name() == "i32");
  CHECK(EventCodec<bool>::name() == "bool");
  CHECK(EventCodec<std::chrono::nanoseconds>::name() == "Duration");
  CHECK(EventCodec<std::pair<std::uint64_t, std::uint32_t>>::name() == "(u64, u32)");
  CHECK(EventCodec<std::tuple<>>::name() == "()");
  CHECK(EventCodec<std::tuple<std::int8_t, std::string, bool>>::name() == "(i8, String, bool)");
  CHECK(EventCodec<std::vector<std::optional<std::uint16_t>>>::name() == "Vec<Option<u16>>");
  CHECK(EventCodec<TimelyEvent>::name() == "TimelyEvent");
  CHECK(EventCodec<CommunicationEvent>::name() == "CommunicationEvent");
  CHECK(EventCodec<ProgressEvent<std::uint64_t>>::name() == "ProgressEvent<u64>");
  CHECK(EventCodec<TrackerEvent<std::uint32_t>>::name() == "TrackerEvent<u32>");
  CHECK(EventCodec<OperatesSummaryEvent<std::int64_t>>::name() == "OperatesSummaryEvent<i64>");
  CHECK(EventCodec<FrontierEvent<std::pair<std::uint64_t, std::uint64_t>>>::name() ==
        "FrontierEvent<(u64, u64)>");
}

TEST_CASE("bytes no encoder writes are rejected", "[logging][codec]") {
  CHECK_THROWS_AS(from_bytes<bool>(raw({2})), CodecError);
  CHECK_THROWS_AS(from_bytes<TimelyEvent>(raw({9})), CodecError);  // no alternative 9
  CHECK_THROWS_AS(from_bytes<CommChannelKind>(raw({2})), CodecError);
  // A string longer than the bytes that follow, and a vector over the element limit.
  CHECK_THROWS_AS(from_bytes<std::string>(raw({3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b'})), CodecError);
  CHECK_THROWS_AS(from_bytes<std::vector<std::tuple<>>>(raw({1, 0, 0, 0, 1, 0, 0, 0})), CodecError);
  // At the limit, a vector of values without bytes decodes.
  CHECK(from_bytes<std::vector<std::tuple<>>>(raw({3, 0, 0, 0, 0, 0, 0, 0})).size() == 3);
  try {
    from_bytes<std::uint64_t>(raw({1, 2, 3}));
    FAIL("a short integer decoded");
  } catch (const CodecError& e) {
    CHECK_THAT(e.what(), Catch::Contains("needs 8 bytes at byte 0") && Catch::Contains("only 3"));
  }
}

TEST_CASE("every strict prefix of an event's encoding is rejected", "[logging][codec]") {
  for (const auto& e : sample_timely_events()) {
    if (std::holds_alternative<OperatesEvent>(e) && std::get<OperatesEvent>(e).name.size() > 100) continue;
    INFO("alternative " << e.index());
    check_prefixes_rejected(e);
  }
  check_prefixes_rejected(ProgressEvent<std::uint64_t>{true, 1, 2, 3, 4, {{1, 2, 3, 4}}, {{5, 6, 7, -8}}});
  check_prefixes_rejected(FrontierEvent<std::pair<std::uint32_t, std::uint32_t>>{1, 2, true, {{{3, 4}, 5}}});
}

// A timestamp type of the user's own, with its codec specialized beside it.
namespace user {
struct Epoch {
  std::uint32_t round = 0;
  std::string label;
  bool operator==(const Epoch&) const = default;
};
}  // namespace user

template <>
struct timely::logging::EventCodec<user::Epoch> {
  static std::string name() { return "Epoch"; }
  static void put(Encoder& out, const user::Epoch& e) {
    encode(out, e.round);
    encode(out, e.label);
  }
  static user::Epoch get(Decoder& in) {
    user::Epoch e;
    e.round = decode<std::uint32_t>(in);
    e.label = decode<std::string>(in);
    if (e.label.empty()) in.fail("an epoch without a label");
    return e;
  }
};

TEST_CASE("a user's timestamp type plugs in with its EventCodec", "[logging][codec]") {
  static_assert(Encodable<user::Epoch>);
  static_assert(Encodable<FrontierEvent<user::Epoch>>);
  static_assert(!Encodable<FrontierEvent<float>>);  // no codec for float: not encodable
  FrontierEvent<user::Epoch> e{3, 0, false, {{{7, "warmup"}, 1}}};
  CHECK(round_trip(e) == e);
  CHECK(EventCodec<TrackerEvent<user::Epoch>>::name() == "TrackerEvent<Epoch>");
  // The user's check runs inside the event's decoding and names the byte it stopped at.
  FrontierEvent<user::Epoch> bad{3, 0, false, {{{7, ""}, 1}}};
  try {
    round_trip(bad);
    FAIL("an epoch without a label decoded");
  } catch (const CodecError& error) {
    CHECK_THAT(error.what(), Catch::Contains("an epoch without a label"));
  }
}
