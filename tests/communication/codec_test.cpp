// The serialization customization point (timely/communication/codec.hpp, timely/progress/codecs.hpp):
// round trips of every built-in codec, Boost.PFR aggregates, user specializations, Message and
// ProgressMessage; exact little-endian bytes; typed errors with byte offsets for truncated and
// corrupt input; counts rejected before allocating; a randomized round trip.
// One file over 600 lines on purpose: the cases share one set of fixtures and byte-exact
// expectations, and splitting it by codec would repeat them.
#include <timely/communication/codec.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <timely/dataflow/message.hpp>
#include <timely/error.hpp>
#include <timely/progress/broadcast.hpp>
#include <timely/progress/codecs.hpp>
#include <timely/progress/timestamp.hpp>

#include "support/catch.hpp"

using namespace timely::communication;
using Bytes = std::vector<std::uint8_t>;

namespace {

enum class Color : std::uint16_t { Red = 1, Blue = 0xBEEF };
enum Unscoped { A, B };

/// Trivially copyable: the object-bytes codec.
struct Point {
  std::int32_t x;
  float y;
  friend bool operator==(const Point&, const Point&) = default;
};

/// Aggregates that are not trivially copyable: field by field through Boost.PFR.
struct Record {
  std::uint64_t id = 0;
  std::string name;
  bool flag = false;
  friend bool operator==(const Record&, const Record&) = default;
};
struct Nested {
  Record head;
  std::vector<Record> tail;
  std::optional<std::pair<std::int32_t, std::string>> extra;
  Color color = Color::Red;
  friend bool operator==(const Nested&, const Nested&) = default;
};
struct WithPointer {
  std::string s;
  int* p = nullptr;
};

/// A user type with its own codec (below): validates its values.
struct Celsius {
  double value = 0;
  std::string station;
  friend bool operator==(const Celsius&, const Celsius&) = default;
};

/// A user class template with a partial specialization.
template <class T>
class Box {
 public:
  Box() = default;
  explicit Box(T v) : v_(std::move(v)) {}
  [[nodiscard]] const T& get() const { return v_; }
  friend bool operator==(const Box&, const Box&) = default;

 private:
  T v_{};
};

}  // namespace

template <>
struct timely::communication::Codec<Celsius> {
  static constexpr std::size_t min_size = 8 + 8;
  static void encode(Encoder& e, const Celsius& c) {
    e.put(c.value);
    e.put(c.station);
  }
  static Celsius decode(Decoder& d) {
    const auto at = d.offset();
    Celsius c{d.get<double>(), d.get<std::string>()};
    if (c.value < -273.15) Decoder::fail_at(at, "Celsius", "below absolute zero");
    return c;
  }
  static std::string name() { return "celsius"; }
};

template <class T>
struct timely::communication::Codec<Box<T>> {
  static constexpr std::size_t min_size = codec_min_size<T>();
  static void encode(Encoder& e, const Box<T>& b) { e.put(b.get()); }
  static Box<T> decode(Decoder& d) { return Box<T>(d.get<T>()); }
  static std::string name() { return "box<" + Codec<T>::name() + ">"; }
};

namespace {

template <class X>
X round_trip(const X& x) {
  static_assert(Encodable<X>);
  const Bytes bytes = encode_bytes(x);
  CHECK(bytes.size() >= codec_min_size<X>());
  // Through the explicit API, at a non-zero base, with the convenience calls.
  Bytes buf = {0xAB};
  Encoder e(buf);
  e.put(x);
  CHECK(Bytes(buf.begin() + 1, buf.end()) == bytes);
  Decoder d(std::span<const std::uint8_t>(buf).subspan(1), 1);
  X y = Codec<X>::decode(d);
  CHECK(d.remaining() == 0);
  CHECK(d.offset() == 1 + bytes.size());
  // Decoding and encoding again gives the same bytes.
  CHECK(encode_bytes(decode_bytes<X>(bytes)) == bytes);
  return y;
}

template <class X>
void check_round_trip(const X& x) {
  CHECK(round_trip(x) == x);
}

/// Decoding `bytes` as an X (at `base`) throws a CodecError at absolute offset `offset`.
template <class X>
void expect_codec_error(const Bytes& bytes, std::uint64_t base, std::uint64_t offset) {
  try {
    (void)decode_bytes<X>(bytes, base);
    FAIL("no error; expected a CodecError at byte offset " << offset << " decoding " << Codec<X>::name()
                                                           << " from " << bytes.size() << " bytes");
  } catch (const CodecError& e) {
    INFO(e.what());
    CHECK(e.offset() == offset);
    CHECK(!e.reading().empty());
    CHECK(!e.problem().empty());
    CHECK_THAT(e.what(), Catch::Contains("byte offset " + std::to_string(offset)));
  }
}

/// Truncating the encoding of `x` to every length k < size throws at `base + expected(k)`.
template <class X, class F>
void expect_truncations(const X& x, F expected) {
  const Bytes full = encode_bytes(x);
  constexpr std::uint64_t base = 1000;
  for (std::size_t k = 0; k < full.size(); ++k) {
    INFO("truncated to " << k << " of " << full.size() << " bytes");
    expect_codec_error<X>(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(k)), base,
                          base + expected(k));
  }
  CHECK(decode_bytes<X>(full, base) == x);
}

Bytes le(std::uint64_t v, std::size_t width) {
  Bytes out;
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return out;
}
Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

/// Counts the bytes it allocates.
template <class T>
struct CountingAlloc {
  using value_type = T;
  static inline std::size_t allocated = 0;
  CountingAlloc() = default;
  template <class U>
  CountingAlloc(const CountingAlloc<U>&) noexcept {}
  T* allocate(std::size_t n) {
    allocated += n * sizeof(T);
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
  friend bool operator==(const CountingAlloc&, const CountingAlloc&) = default;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

static_assert(Encodable<std::uint64_t> && Encodable<bool> && Encodable<Color> && Encodable<Point>);
static_assert(Encodable<Record> && Encodable<Nested> && Encodable<Celsius> && Encodable<Box<std::string>>);
static_assert(!Encodable<int*> && !Encodable<Unscoped> && !Encodable<const int> && !Encodable<int[3]>);
static_assert(!Encodable<std::vector<int*>> && !Encodable<std::pair<int, int*>> && !Encodable<WithPointer>);
static_assert(!Encodable<std::optional<Unscoped>> && !Encodable<std::variant<int, int*>>);
static_assert(codec_min_size<std::uint32_t>() == 4 && codec_min_size<std::string>() == 8);
static_assert(codec_min_size<Record>() == 8 + 8 + 1 && codec_min_size<std::optional<Record>>() == 1);
static_assert(codec_min_size<std::variant<std::uint8_t, std::string>>() == 4 + 1);
static_assert(codec_min_size<timely::progress::Location>() == 17);

TEST_CASE("built-in codecs round-trip numbers, enums and strings", "[communication][codec]") {
  check_round_trip(true);
  check_round_trip(false);
  check_round_trip('z');
  check_round_trip(std::int8_t{-128});
  check_round_trip(std::uint8_t{255});
  check_round_trip(std::int16_t{-32768});
  check_round_trip(std::uint16_t{0xBEEF});
  check_round_trip(std::int32_t{std::numeric_limits<std::int32_t>::min()});
  check_round_trip(std::uint32_t{0xDEADBEEF});
  check_round_trip(std::int64_t{std::numeric_limits<std::int64_t>::min()});
  check_round_trip(std::uint64_t{std::numeric_limits<std::uint64_t>::max()});
  check_round_trip(std::size_t{12345});
  check_round_trip(char32_t{0x1F600});
  check_round_trip(1.5f);
  check_round_trip(-0.0);
  check_round_trip(std::numeric_limits<double>::infinity());
  check_round_trip(std::numeric_limits<double>::denorm_min());
  CHECK(std::isnan(round_trip(std::numeric_limits<double>::quiet_NaN())));
  CHECK(std::signbit(round_trip(-0.0)));
  check_round_trip(Color::Blue);
  check_round_trip(static_cast<Color>(7));  // any underlying value is a valid scoped-enum value
  check_round_trip(std::string());
  check_round_trip(std::string("hello, world"));
  check_round_trip(std::string("a\0b\xff", 4));
  check_round_trip(std::string(100000, 'q'));
  check_round_trip(Point{-1, 2.5f});
  check_round_trip(std::chrono::milliseconds(-42));
  check_round_trip(std::chrono::nanoseconds(std::numeric_limits<std::int64_t>::max()));
  check_round_trip(std::chrono::duration<double>(0.25));

  CHECK(Codec<bool>::name() == "bool");
  CHECK(Codec<char>::name() == "char");
  CHECK(Codec<std::int8_t>::name() == "i8");
  CHECK(Codec<std::uint16_t>::name() == "u16");
  CHECK(Codec<std::int32_t>::name() == "i32");
  CHECK(Codec<std::uint64_t>::name() == "u64");
  CHECK(Codec<float>::name() == "f32");
  CHECK(Codec<double>::name() == "f64");
  CHECK(Codec<Color>::name() == "enum:u16");
  CHECK(Codec<std::string>::name() == "string");
  CHECK(Codec<Point>::name() == "raw8");
  CHECK(Codec<std::chrono::milliseconds>::name() == "duration<i64,1/1000>");
}

TEST_CASE("built-in codecs round-trip containers, tuples, optionals and variants", "[communication][codec]") {
  check_round_trip(std::vector<std::uint64_t>{});
  check_round_trip(std::vector<std::uint64_t>{1, 2, std::numeric_limits<std::uint64_t>::max()});
  check_round_trip(std::vector<std::int16_t>{-32768, 32767, 0});
  check_round_trip(std::vector<double>{1e300, -0.5, 0.0});
  check_round_trip(std::vector<bool>{true, false, true});
  check_round_trip(std::vector<std::string>{"a", "", "bc"});
  check_round_trip(std::vector<Color>{Color::Red, Color::Blue});
  check_round_trip(std::vector<Point>{{1, 2.0f}, {3, 4.0f}});
  check_round_trip(std::vector<std::vector<std::uint8_t>>{{}, {1, 2}, {3}});
  check_round_trip(std::vector<timely::Unit>(5));
  check_round_trip(timely::container::SmallVector<std::uint32_t, 2>{1, 2, 3, 4});
  check_round_trip(timely::container::SmallVector<std::string, 1>{"x", "yz"});
  check_round_trip(std::array<std::int32_t, 3>{-1, 0, 1 << 30});
  check_round_trip(std::array<std::string, 2>{"left", "right"});
  check_round_trip(std::array<std::uint8_t, 0>{});
  check_round_trip(std::pair<std::string, std::uint64_t>{"key", 7});
  check_round_trip(std::tuple<>{});
  check_round_trip(
      std::tuple<std::string, double, bool, std::vector<std::int16_t>, char>{"t", 0.5, true, {1}, 'c'});
  check_round_trip(std::optional<std::uint32_t>{});
  check_round_trip(std::optional<std::uint32_t>{5});
  check_round_trip(std::optional<std::string>{"present"});
  check_round_trip(std::variant<std::uint8_t, std::string>{std::uint8_t{9}});
  check_round_trip(std::variant<std::uint8_t, std::string>{std::string("alt")});
  check_round_trip(std::variant<std::int32_t, std::int32_t>{std::in_place_index<1>, 3});
  CHECK(round_trip(std::variant<std::int32_t, std::int32_t>{std::in_place_index<1>, 3}).index() == 1);
  check_round_trip(std::variant<std::monostate, std::vector<std::string>>{});

  // Nested.
  using Deep = std::vector<
      std::pair<std::string, std::optional<std::vector<std::variant<std::uint16_t, std::string>>>>>;
  check_round_trip(
      Deep{{"a", std::nullopt}, {"b", std::vector<std::variant<std::uint16_t, std::string>>{7, "x"}}});
  check_round_trip(std::tuple<std::array<std::optional<Color>, 2>, std::pair<Point, std::chrono::seconds>>{
      {Color::Blue, std::nullopt}, {Point{5, -1.0f}, std::chrono::seconds(3)}});

  CHECK(Codec<std::vector<std::uint64_t>>::name() == "vec<u64>");
  CHECK(Codec<timely::container::SmallVector<std::uint64_t, 2>>::name() == "vec<u64>");
  CHECK(Codec<std::array<std::int32_t, 3>>::name() == "array<i32,3>");
  CHECK(Codec<std::pair<std::string, std::uint64_t>>::name() == "pair<string,u64>");
  CHECK(Codec<std::tuple<bool, std::int8_t>>::name() == "tuple<bool,i8>");
  CHECK(Codec<std::optional<std::int32_t>>::name() == "optional<i32>");
  CHECK(Codec<std::variant<std::uint8_t, std::string>>::name() == "variant<u8,string>");
  CHECK(Codec<Deep>::name() == "vec<pair<string,optional<vec<variant<u16,string>>>>>");
}

TEST_CASE("aggregates round-trip field by field through Boost.PFR", "[communication][codec]") {
  check_round_trip(Record{42, "answer", true});
  check_round_trip(Record{});
  // The head is built on its own: GCC 12 at -O3 warns (falsely) that a string of a nested
  // brace-initialized aggregate may be used uninitialized.
  const Record head{1, "head", false};
  check_round_trip(
      Nested{head, {{2, "x", true}, {3, "", false}}, std::pair{-7, std::string("e")}, Color::Blue});
  check_round_trip(std::vector<Record>{{1, "a", true}, {2, "b", false}});
  CHECK(Codec<Record>::name() == "{u64,string,bool}");
  CHECK(Codec<Nested>::name() ==
        "{{u64,string,bool},vec<{u64,string,bool}>,optional<pair<i32,string>>,enum:u16}");
  // Field by field: exactly the fields' encodings, in declaration order, no padding.
  CHECK(encode_bytes(Record{1, "ab", true}) == cat({le(1, 8), le(2, 8), {'a', 'b'}, {1}}));
  // A bool field is checked.
  Bytes bad = encode_bytes(Record{1, "ab", true});
  bad.back() = 2;
  expect_codec_error<Record>(bad, 0, 18);
}

TEST_CASE("user specializations: a full and a partial one", "[communication][codec]") {
  check_round_trip(Celsius{21.5, "Oslo"});
  check_round_trip(Box<std::string>(std::string("boxed")));
  check_round_trip(std::vector<Box<std::uint16_t>>{Box<std::uint16_t>(1), Box<std::uint16_t>(2)});
  check_round_trip(std::pair<Celsius, Box<Celsius>>{{1, "a"}, Box<Celsius>(Celsius{2, "b"})});
  CHECK(Codec<Box<Celsius>>::name() == "box<celsius>");
  // The user codec rejects a bad value at the offset it names.
  const Bytes bad = cat({le(0xFF, 1), encode_bytes(Celsius{-300, "Mars"})});
  try {
    Decoder d(bad, 50);
    (void)d.get_u8();
    (void)d.get<Celsius>();
    FAIL("no error");
  } catch (const CodecError& e) {
    CHECK(e.offset() == 51);
    CHECK(e.reading() == "Celsius");
    CHECK_THAT(e.what(), Catch::Contains("below absolute zero"));
  }
}

TEST_CASE("core types: Product, Unit, Location, Message, ProgressMessage", "[communication][codec]") {
  using timely::Product;
  using timely::progress::Location;
  check_round_trip(timely::Unit{});
  check_round_trip(Product<std::uint64_t, std::uint32_t>{3, 9});
  check_round_trip(Product<Product<std::uint64_t, std::uint64_t>, std::uint32_t>{{1, 2}, 3});
  check_round_trip(Location{3, 4, true});
  CHECK(Codec<timely::Unit>::name() == "unit");
  CHECK(Codec<Product<std::uint64_t, std::uint32_t>>::name() == "product<u64,u32>");
  CHECK(encode_bytes(timely::Unit{}).empty());
  CHECK(encode_bytes(Product<std::uint32_t, std::uint8_t>{1, 2}) == Bytes{1, 0, 0, 0, 2});
  CHECK(encode_bytes(Location{3, 4, true}) == cat({le(3, 8), le(4, 8), {1}}));

  using M = timely::dataflow::Message<Product<std::uint64_t, std::uint32_t>, std::vector<std::string>>;
  M m;
  m.time = {5, 1};
  m.data = {"alpha", "", "gamma"};
  m.from = 3;
  m.seq = 17;
  const M back = round_trip(m);
  CHECK(back.time == m.time);
  CHECK(back.data == m.data);
  CHECK(back.from == 3);
  CHECK(back.seq == 17);
  CHECK(encode_bytes(m) == cat({le(3, 8),
                                le(17, 8),
                                le(5, 8),
                                le(1, 4),
                                le(3, 8),  //
                                le(5, 8),
                                {'a', 'l', 'p', 'h', 'a'},
                                le(0, 8),
                                le(5, 8),
                                {'g', 'a', 'm', 'm', 'a'}}));
  CHECK(Codec<M>::name() == "message<product<u64,u32>,vec<string>>");

  using P = timely::progress::ProgressMessage<std::uint64_t>;
  P p;
  p.from = 1;
  p.seq = 2;
  auto updates = std::make_shared<P::Updates>();
  updates->emplace_back(std::pair{Location{1, 0, true}, std::uint64_t{4}}, -1);
  updates->emplace_back(std::pair{Location{2, 1, false}, std::uint64_t{5}}, 3);
  p.updates = updates;
  const P q = decode_bytes<P>(encode_bytes(p));
  CHECK(q.from == 1);
  CHECK(q.seq == 2);
  REQUIRE(q.updates);
  CHECK(*q.updates == *updates);
  CHECK(Codec<P>::name() == "progress<u64>");
  CHECK(encode_bytes(p) == cat({le(1, 8),
                                le(2, 8),
                                le(2, 8),  //
                                le(1, 8),
                                le(0, 8),
                                {1},
                                le(4, 8),
                                le(-1, 8),  //
                                le(2, 8),
                                le(1, 8),
                                {0},
                                le(5, 8),
                                le(3, 8)}));
  // A null update list encodes as no entries and decodes to an empty, non-null one.
  P empty;
  const P empty_back = decode_bytes<P>(encode_bytes(empty));
  REQUIRE(empty_back.updates);
  CHECK(empty_back.updates->empty());
  using PP = timely::progress::ProgressMessage<Product<std::uint64_t, std::uint64_t>>;
  PP pp;
  pp.updates = std::make_shared<PP::Updates>(
      1, std::pair{std::pair{Location{}, Product<std::uint64_t, std::uint64_t>{1, 2}}, std::int64_t{1}});
  CHECK(*decode_bytes<PP>(encode_bytes(pp)).updates == *pp.updates);
}

TEST_CASE("encodings are little-endian and fixed-width, byte for byte", "[communication][codec]") {
  CHECK(encode_bytes(true) == Bytes{1});
  CHECK(encode_bytes(false) == Bytes{0});
  CHECK(encode_bytes(std::uint32_t{0x01020304}) == Bytes{4, 3, 2, 1});
  CHECK(encode_bytes(std::int16_t{-2}) == Bytes{0xFE, 0xFF});
  CHECK(encode_bytes(std::int64_t{-1}) == Bytes(8, 0xFF));
  CHECK(encode_bytes(std::uint64_t{0x0102030405060708}) == Bytes{8, 7, 6, 5, 4, 3, 2, 1});
  CHECK(encode_bytes(1.0) == Bytes{0, 0, 0, 0, 0, 0, 0xF0, 0x3F});
  CHECK(encode_bytes(-2.0f) == Bytes{0, 0, 0, 0xC0});
  CHECK(encode_bytes(Color::Blue) == Bytes{0xEF, 0xBE});
  CHECK(encode_bytes(std::string("ab")) == Bytes{2, 0, 0, 0, 0, 0, 0, 0, 'a', 'b'});
  CHECK(encode_bytes(std::vector<std::uint16_t>{1, 0x0203}) == Bytes{2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 3, 2});
  CHECK(encode_bytes(std::vector<bool>{true, false}) == Bytes{2, 0, 0, 0, 0, 0, 0, 0, 1, 0});
  CHECK(encode_bytes(std::array<std::uint16_t, 2>{1, 2}) == Bytes{1, 0, 2, 0});
  CHECK(encode_bytes(std::pair<std::uint8_t, std::int32_t>{7, -2}) == Bytes{7, 0xFE, 0xFF, 0xFF, 0xFF});
  CHECK(encode_bytes(std::optional<std::uint8_t>{}) == Bytes{0});
  CHECK(encode_bytes(std::optional<std::uint8_t>{7}) == Bytes{1, 7});
  CHECK(encode_bytes(std::variant<std::uint8_t, std::uint16_t>{std::uint16_t{0x0102}}) ==
        Bytes{1, 0, 0, 0, 2, 1});
  CHECK(encode_bytes(std::chrono::milliseconds(258)) == Bytes{2, 1, 0, 0, 0, 0, 0, 0});
  // The low-level calls the capture format uses.
  Bytes buf;
  Encoder e(buf);
  e.put_u8(0xAA);
  e.put_u16(0x0102);
  e.put_le(0x030405, 3);
  e.put_size(9);
  e.put_bytes("xy", 2);
  CHECK(buf == cat({{0xAA, 2, 1, 5, 4, 3}, le(9, 8), {'x', 'y'}}));
  CHECK(e.size() == buf.size());
  Decoder d(buf, 10);
  CHECK(d.get_u8() == 0xAA);
  CHECK(d.get_u16() == 0x0102);
  CHECK(d.get_le(3, "u24") == 0x030405);
  CHECK(d.get_size("size") == 9);
  CHECK(d.offset() == 10 + 14);
  CHECK(d.get_bytes(2, "tail").size() == 2);
  d.expect_end("all");
}

TEST_CASE("truncation at every byte offset throws CodecError at the failed read", "[communication][codec]") {
  // A u64: the read at 0.
  expect_truncations(std::uint64_t{0x1122334455667788}, [](std::size_t) { return 0; });
  // pair<u32, string>: u32 at 0, length at 4, bytes at 12..17; a length the remaining bytes
  // cannot hold is rejected at the length.
  expect_truncations(std::pair<std::uint32_t, std::string>{7, "hello"},
                     [](std::size_t k) -> std::uint64_t { return k < 4 ? 0 : 4; });
  // vector<u64>: a count of 3 needs 24 more bytes; rejected at the count.
  expect_truncations(std::vector<std::uint64_t>{1, 2, 3}, [](std::size_t) { return 0; });
  // tuple<u8, optional<u16>, variant<u32, string>>: u8 at 0, tag at 1, u16 at 2, index at 4,
  // length at 8, bytes at 16..18.
  using T = std::tuple<std::uint8_t, std::optional<std::uint16_t>, std::variant<std::uint32_t, std::string>>;
  expect_truncations(T{7, 0x0102, std::string("xy")}, [](std::size_t k) -> std::uint64_t {
    if (k < 1) return 0;
    if (k < 2) return 1;
    if (k < 4) return 2;
    if (k < 8) return 4;
    return 8;
  });
  // Record {u64, string, bool}: id at 0, length at 8, bytes at 16..18, flag at 18.
  expect_truncations(Record{1, "ab", true}, [](std::size_t k) -> std::uint64_t {
    if (k < 8) return 0;
    if (k < 18) return 8;
    return 18;
  });
  // Message<u64, u32>: from at 0, seq at 8, time at 16, count at 24, records at 32..40.
  using M = timely::dataflow::Message<std::uint64_t, std::vector<std::uint32_t>>;
  M m;
  m.time = 5;
  m.data = {1, 2};
  m.from = 1;
  m.seq = 2;
  const Bytes full = encode_bytes(m);
  REQUIRE(full.size() == 40);
  for (std::size_t k = 0; k < full.size(); ++k)
    expect_codec_error<M>(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(k)), 100,
                          100 + std::min<std::size_t>(k / 8 * 8, 24));
  // ProgressMessage<u64> with two entries of 33 bytes: from at 0, seq at 8, count at 16.
  using P = timely::progress::ProgressMessage<std::uint64_t>;
  P p;
  p.updates = std::make_shared<P::Updates>(
      2, std::pair{std::pair{timely::progress::Location{1, 2, true}, std::uint64_t{3}}, std::int64_t{4}});
  const Bytes pfull = encode_bytes(p);
  REQUIRE(pfull.size() == 24 + 2 * 33);
  for (std::size_t k = 0; k < pfull.size(); ++k)
    expect_codec_error<P>(Bytes(pfull.begin(), pfull.begin() + static_cast<std::ptrdiff_t>(k)), 0,
                          std::min<std::size_t>(k / 8 * 8, 16));
}

TEST_CASE("corrupt tags and trailing bytes throw CodecError", "[communication][codec]") {
  expect_codec_error<bool>({2}, 5, 5);
  expect_codec_error<std::pair<std::uint8_t, bool>>({0, 0xFF}, 0, 1);
  expect_codec_error<std::optional<std::uint8_t>>({2, 7}, 0, 0);
  expect_codec_error<std::variant<std::uint8_t, std::uint16_t>>({2, 0, 0, 0, 1}, 0, 0);
  expect_codec_error<std::variant<std::uint8_t, std::uint16_t>>({0xFF, 0xFF, 0xFF, 0xFF, 1}, 0, 0);
  expect_codec_error<std::uint16_t>({1, 2, 3}, 0, 2);  // one byte left over
  expect_codec_error<std::vector<bool>>(cat({le(2, 8), {1, 3}}), 0, 9);
  try {
    (void)decode_bytes<std::variant<std::uint8_t, std::uint16_t>>(Bytes{9, 0, 0, 0, 1});
    FAIL("no error");
  } catch (const CodecError& e) {
    CHECK(e.reading() == "variant index");
    CHECK_THAT(e.what(), Catch::Contains("alternative 9"));
  }
  try {
    (void)decode_bytes<std::uint64_t>(Bytes{1, 2, 3}, 40);
    FAIL("no error");
  } catch (const timely::Error& e) {  // a timely::Error
    CHECK_THAT(e.what(), Catch::Contains("u64") && Catch::Contains("byte offset 40") &&
                             Catch::Contains("needs 8 bytes but only 3 remain"));
  }
}

TEST_CASE("an oversized count is rejected before anything is allocated", "[communication][codec]") {
  using V = std::vector<std::uint64_t, CountingAlloc<std::uint64_t>>;
  CountingAlloc<std::uint64_t>::allocated = 0;
  // 2^60 elements claimed, 16 bytes present.
  expect_codec_error<V>(cat({le(std::uint64_t{1} << 60, 8), le(1, 8), le(2, 8)}), 0, 0);
  // One more element than the bytes hold.
  expect_codec_error<V>(cat({le(3, 8), le(1, 8), le(2, 8)}), 0, 0);
  CHECK(CountingAlloc<std::uint64_t>::allocated == 0);
  const V decoded = decode_bytes<V>(cat({le(2, 8), le(1, 8), le(2, 8)}));
  CHECK(CountingAlloc<std::uint64_t>::allocated == 16);  // exactly the two elements
  CHECK(decoded == V{1, 2});

  // Strings take at least 8 bytes each: 2^40 strings cannot be in 100 bytes.
  using VS = std::vector<std::string, CountingAlloc<std::string>>;
  CountingAlloc<std::string>::allocated = 0;
  expect_codec_error<VS>(cat({le(std::uint64_t{1} << 40, 8), Bytes(100, 0)}), 0, 0);
  expect_codec_error<VS>(cat({le(13, 8), Bytes(100, 0)}), 0, 0);
  CHECK(CountingAlloc<std::string>::allocated == 0);
  expect_codec_error<std::string>(cat({le(std::uint64_t{1} << 62, 8), Bytes(3, 'x')}), 0, 0);

  // Elements that may encode to nothing are limited by max_empty_count().
  const Bytes eleven = le(11, 8);
  Decoder d(eleven);
  d.set_max_empty_count(10);
  CHECK_THROWS_AS(d.get<std::vector<timely::Unit>>(), CodecError);
  Decoder d2(eleven);
  CHECK(d2.get<std::vector<timely::Unit>>().size() == 11);
  expect_codec_error<std::vector<timely::Unit>>(le(std::uint64_t{1} << 33, 8), 0, 0);
}

namespace {

using Random = std::tuple<std::uint64_t, std::string, std::optional<std::int32_t>,
                          std::variant<std::uint8_t, std::string, std::vector<std::uint16_t>>, double, bool,
                          Record, std::vector<std::pair<std::string, std::uint64_t>>>;

Random random_value(std::mt19937_64& rng) {
  auto below = [&](std::uint64_t n) { return static_cast<std::size_t>(rng() % n); };
  auto str = [&] {
    std::string s(below(20), '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
  };
  Random r;
  std::get<0>(r) = rng() >> below(64);
  std::get<1>(r) = str();
  if (below(2)) std::get<2>(r) = static_cast<std::int32_t>(rng());
  switch (below(3)) {
    case 0:
      std::get<3>(r) = static_cast<std::uint8_t>(rng());
      break;
    case 1:
      std::get<3>(r) = str();
      break;
    default: {
      std::vector<std::uint16_t> v(below(10));
      for (auto& x : v) x = static_cast<std::uint16_t>(rng());
      std::get<3>(r) = v;
    }
  }
  std::get<4>(r) = std::uniform_real_distribution<double>(-1e9, 1e9)(rng);
  std::get<5>(r) = below(2) == 1;
  std::get<6>(r) = Record{rng(), str(), below(2) == 1};
  for (std::size_t i = below(5); i > 0; --i) std::get<7>(r).emplace_back(str(), rng());
  return r;
}

}  // namespace

TEST_CASE("randomized round trips, truncations and corruptions", "[communication][codec]") {
  const std::uint64_t seed = 0x5EED'C0DEC;
  std::printf("codec randomized test: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    std::vector<Random> values(rng() % 4);
    for (auto& v : values) v = random_value(rng);
    const Bytes bytes = encode_bytes(values);
    REQUIRE(decode_bytes<std::vector<Random>>(bytes) == values);
    // Every strict prefix throws a CodecError at an offset inside it.
    const std::size_t k = static_cast<std::size_t>(rng() % bytes.size());
    try {
      (void)decode_bytes<std::vector<Random>>(std::span<const std::uint8_t>(bytes.data(), k), 7);
      FAIL("a prefix of " << k << " bytes decoded");
    } catch (const CodecError& e) {
      CHECK(e.offset() >= 7);
      CHECK(e.offset() <= 7 + k);
    }
    // A flipped byte decodes to something or throws a CodecError; never anything else.
    Bytes corrupt = bytes;
    corrupt[rng() % corrupt.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    try {
      (void)decode_bytes<std::vector<Random>>(corrupt);
    } catch (const CodecError&) {
    }
  }
}
