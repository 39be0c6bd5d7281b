// Columnar batches (timely/container/columnar.hpp): round trips of every column kind and
// nesting through owned, borrowed and copied (misaligned) batches, and rebuilt from borrowed
// records; borrowed reads that point into the serialized bytes instead of materializing
// records; the owned/borrowed state changes (copy shares the owner, push and clear turn a view
// into an owned batch, moved-from is empty); byte-sized capacity.
#include <timely/container/columnar.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <random>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "columnar_fixtures.hpp"
#include "support/catch.hpp"

using namespace columnar_test;

namespace {

// The borrowed types the issue names.
static_assert(std::is_same_v<col::RefOf<std::pair<std::uint64_t, std::string>>,
                             std::tuple<std::uint64_t, std::string_view>>);
static_assert(std::is_same_v<col::RefOf<std::optional<std::string>>, std::optional<std::string_view>>);
static_assert(std::is_same_v<col::RefOf<std::vector<std::byte>>, std::span<const std::byte>>);
static_assert(std::is_same_v<col::RefOf<Color>, Color>);
static_assert(std::is_same_v<col::RefOf<Point>, std::tuple<double, std::int32_t>>);
static_assert(std::is_same_v<col::RefOf<std::vector<std::uint32_t>>, col::VectorRef<std::uint32_t>>);
static_assert(std::random_access_iterator<col::Batch<Triple>::iterator>);
static_assert(std::ranges::random_access_range<const col::Batch<Triple>>);
static_assert(std::ranges::random_access_range<col::VectorRef<std::string>>);
static_assert(col::Columnar<Rec> && col::Columnar<std::tuple<>> && col::Columnar<Plain>);
static_assert(!col::Columnar<int*> && !col::Columnar<const int> && !col::Columnar<std::array<int, 2>> &&
              !col::Columnar<std::vector<int*>> && !col::Columnar<std::optional<long double>>);
static_assert(std::is_nothrow_move_constructible_v<col::Batch<Rec>>);

/// Pushes `items`, then checks the batch, a borrowed copy, an owned copy (no owner) and a
/// misaligned copy against `items`, and that re-serializing any of them gives the same bytes.
template <class T>
void round_trip(const std::vector<T>& items) {
  const auto batch = batch_of(items);
  REQUIRE(batch.size() == items.size());
  CHECK(batch.empty() == items.empty());
  CHECK_FALSE(batch.borrowed());
  for (std::size_t i = 0; i < items.size(); ++i) REQUIRE(col::to_owned<T>(batch[i]) == items[i]);

  const auto bytes = serialize(batch);
  CHECK(bytes.size() == batch.serialized_size());
  CHECK(bytes.size() == batch.byte_size());
  CHECK(bytes.size() % 8 == 0);
  const Owned owner = own(bytes);

  const auto borrowed = col::Batch<T>::from_bytes(owner.bytes(), owner.words);
  CHECK(borrowed.borrowed());
  const auto copied = col::Batch<T>::from_bytes(owner.bytes(), nullptr);
  CHECK_FALSE(copied.borrowed());
  std::vector<std::uint8_t> shifted(bytes.size() + 1);
  std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
  const auto misaligned =
      col::Batch<T>::from_bytes(std::span<const std::uint8_t>(shifted).subspan(1), owner.words);
  CHECK_FALSE(misaligned.borrowed());

  for (const auto* b : {&borrowed, &copied, &misaligned}) {
    REQUIRE(b->size() == items.size());
    CHECK(*b == batch);
    std::size_t i = 0;
    for (const auto& ref : *b) REQUIRE(col::to_owned<T>(ref) == items[i++]);
    CHECK(i == items.size());
    CHECK(serialize(*b) == bytes);
  }
  // Pushing the borrowed records (not owned copies) rebuilds the same batch.
  col::Batch<T> from_refs;
  for (const auto& ref : borrowed) from_refs.push_into(ref);
  CHECK(serialize(from_refs) == bytes);
}

}  // namespace

TEST_CASE("columnar: integers of every width, floats, bools and enums round trip", "[container][columnar]") {
  round_trip<std::int8_t>({0, -1, 127, -128});
  round_trip<std::uint8_t>({0, 1, 255});
  round_trip<std::int16_t>({0, -32768, 32767});
  round_trip<std::uint16_t>({0, 65535});
  round_trip<std::int32_t>({0, std::numeric_limits<std::int32_t>::min(), 42});
  round_trip<std::uint32_t>({0, 0xFFFFFFFFu});
  round_trip<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -1, 0, 1});
  round_trip<std::uint64_t>({0, ~std::uint64_t{0}});
  round_trip<char>({'a', '\0', '\xff'});
  round_trip<char32_t>({U'x', U'\U0010FFFF'});
  round_trip<float>(
      {0.0f, -0.0f, 1.5f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()});
  round_trip<double>(
      {0.0, -2.25, std::numeric_limits<double>::max(), -std::numeric_limits<double>::infinity()});
  round_trip<bool>({true, false, false, true, true});
  round_trip<Color>({Color::red, Color::blue, static_cast<Color>(12345)});
  round_trip<Plain>({plain_a, plain_b});
  CHECK(col::layout_name<Color>() == "enum:u16");
  CHECK(col::layout_name<std::int8_t>() == "i8");
  CHECK(col::layout_name<float>() == "f32");
}

TEST_CASE("columnar: strings and bytes round trip, empty, long and binary", "[container][columnar]") {
  round_trip<std::string>({});
  round_trip<std::string>({""});
  round_trip<std::string>({"", "", ""});
  round_trip<std::string>({"a", "", "timely", std::string("\0\x01\xff", 3), std::string(1000, 'x')});
  round_trip<std::vector<std::uint8_t>>({{}, {0, 1, 2}, {255}});
  round_trip<std::vector<std::byte>>({{std::byte{7}}, {}});

  SECTION("a 16 MiB string") {
    std::string big(std::size_t{16} << 20, '\0');
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 2654435761u >> 13);
    round_trip<std::string>({"before", big, "after"});
  }
}

TEST_CASE("columnar: vectors, optionals, tuples and aggregates nest", "[container][columnar]") {
  round_trip<std::vector<std::uint32_t>>({{}, {1, 2, 3}, {}, {4}});
  round_trip<std::vector<std::string>>({{"a", ""}, {}, {"bc"}});
  round_trip<std::vector<std::vector<std::int64_t>>>({{{1}, {}, {2, 3}}, {}, {{}}});
  round_trip<std::vector<bool>>({{true, false}, {}, {false}});
  round_trip<std::optional<std::int32_t>>({std::nullopt, 5, std::nullopt, -1});
  round_trip<std::optional<std::string>>({"x", std::nullopt, ""});
  round_trip<std::optional<std::optional<std::uint8_t>>>(
      {std::nullopt, std::optional<std::uint8_t>{}, std::optional<std::uint8_t>{9}});
  round_trip<std::optional<std::vector<std::optional<std::string>>>>(
      {std::nullopt, std::vector<std::optional<std::string>>{},
       std::vector<std::optional<std::string>>{"a", {}},
       std::vector<std::optional<std::string>>{std::nullopt}});
  round_trip<std::pair<std::uint64_t, std::string>>({{1, "one"}, {2, ""}, {~std::uint64_t{0}, "max"}});
  round_trip<std::tuple<>>({{}, {}, {}});
  round_trip<std::tuple<bool, double, std::string, std::vector<std::pair<std::int8_t, std::string>>>>(
      {{true, 1.5, "s", {{-1, "neg"}, {0, ""}}}, {false, 0.0, "", {}}});
  round_trip<Triple>(
      {{1, "a", std::nullopt}, {2, "", std::vector<std::uint32_t>{}}, {3, "ccc", {{7, 8, 9}}}});
  round_trip<Point>({{1.0, 2}, {-0.5, -3}});
  round_trip<Rec>({{1, "first", std::vector<Point>{{1, 2}, {3, 4}}, Color::green, plain_b, true, {1, 2, 3}},
                   {2, "", std::nullopt, Color::red, plain_a, false, {}},
                   {3, "third", std::vector<Point>{}, Color::blue, plain_a, true, {0}}});
  round_trip<std::vector<Rec>>({{}, {{9, "nested", std::nullopt, Color::red, plain_a, false, {}}}});
  CHECK(col::layout_name<Triple>() == "tuple<u64,string,optional<vec<u32>>>");
  CHECK(col::layout_name<Point>() == "struct{f64,i32}");
  CHECK(col::layout_name<std::pair<std::uint64_t, std::string>>() == "tuple<u64,string>");
}

TEST_CASE("columnar: every kind round trips empty", "[container][columnar]") {
  round_trip<std::uint64_t>({});
  round_trip<bool>({});
  round_trip<std::vector<std::vector<std::string>>>({});
  round_trip<std::optional<std::vector<std::uint32_t>>>({});
  round_trip<Rec>({});
  round_trip<std::tuple<>>({});
  const col::Batch<Triple> empty;
  CHECK(empty.serialized_size() == col::header_bytes(col::Batch<Triple>::buffers()));
  CHECK(col::Batch<Triple>::buffers() == 6);
}

TEST_CASE("columnar: a million (u64, string) records round trip", "[container][columnar]") {
  constexpr std::uint64_t seed = 0xC01'0000'0001;
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::pair<std::uint64_t, std::string>> items(1'000'000);
  for (auto& [n, s] : items) {
    n = rng();
    s.assign(5 + rng() % 11, static_cast<char>('a' + rng() % 26));
  }
  round_trip(items);
}

TEST_CASE("columnar: borrowed reads point into the serialized bytes", "[container][columnar]") {
  const auto batch = batch_of<Triple>({{1, "alpha", {{1, 2}}}, {2, "beta", std::nullopt}, {3, "", {{}}}});
  const auto bytes = serialize(batch);
  const Owned owner = own(bytes);
  const auto view = col::Batch<Triple>::from_bytes(owner.bytes(), owner.words);
  REQUIRE(view.borrowed());
  const auto* lo = owner.bytes().data();
  const auto* hi = lo + owner.bytes().size();
  auto inside = [&](const void* p) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    return b >= lo && b <= hi;
  };
  const auto [n, name, path] = view[0];
  CHECK(n == 1);
  CHECK(name == "alpha");
  CHECK(inside(name.data()));
  REQUIRE(path.has_value());
  CHECK(path->size() == 2);
  CHECK((*path)[1] == 2u);
  CHECK(std::vector<std::uint32_t>(path->begin(), path->end()) == std::vector<std::uint32_t>{1, 2});
  CHECK_FALSE(std::get<2>(view[1]).has_value());
  CHECK(std::get<2>(view[2])->empty());

  // Iterators: random access, yield Refs by value.
  auto it = view.begin();
  CHECK(std::get<1>(it[1]) == "beta");
  CHECK(inside(std::get<1>(*(it + 1)).data()));
  CHECK(view.end() - view.begin() == 3);
  CHECK(std::ranges::count_if(view, [](const auto& r) { return std::get<1>(r).empty(); }) == 1);
  auto last = view.end();
  --last;
  CHECK(std::get<0>(*last) == 3);
  CHECK(it < last);
}

TEST_CASE("columnar: copies share the owner, push and clear turn a view into an owned batch",
          "[container][columnar]") {
  using B = col::Batch<std::pair<std::uint64_t, std::string>>;
  const auto original = batch_of<std::pair<std::uint64_t, std::string>>({{1, "a"}, {2, "bb"}});
  const Owned owner = own(serialize(original));
  const long base = owner.words.use_count();

  B view = B::from_bytes(owner.bytes(), owner.words);
  CHECK(owner.words.use_count() == base + 1);
  B copy = view;  // shares the bytes
  CHECK(copy.borrowed());
  CHECK(owner.words.use_count() == base + 2);
  CHECK(std::get<1>(copy[1]).data() == std::get<1>(view[1]).data());

  copy.push_into({3, "ccc"});  // copies the two items into owned columns, releases the owner
  CHECK_FALSE(copy.borrowed());
  CHECK(owner.words.use_count() == base + 1);
  REQUIRE(copy.size() == 3);
  CHECK(col::to_owned<std::pair<std::uint64_t, std::string>>(copy[0]) ==
        std::pair<std::uint64_t, std::string>{1, "a"});
  CHECK(std::get<1>(copy[2]) == "ccc");
  CHECK(std::get<1>(copy[1]).data() != std::get<1>(view[1]).data());

  B pushed_ref = B::from_bytes(owner.bytes(), owner.words);
  pushed_ref.push_into(view[0]);  // a Ref of another batch
  CHECK(pushed_ref.size() == 3);
  CHECK(std::get<1>(pushed_ref[2]) == "a");

  B cleared = view;
  CHECK(owner.words.use_count() == base + 2);
  cleared.clear();
  CHECK(owner.words.use_count() == base + 1);
  CHECK(cleared.empty());
  CHECK_FALSE(cleared.borrowed());
  cleared.push_into({5, "e"});
  CHECK(cleared.size() == 1);

  B moved = std::move(view);
  CHECK(moved.borrowed());
  CHECK(owner.words.use_count() == base + 1);
  CHECK(view.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty and usable
  CHECK_FALSE(view.borrowed());
  view.push_into({9, "nine"});
  CHECK(view.size() == 1);
  CHECK(moved == original);

  B assigned;
  assigned = moved;
  CHECK(owner.words.use_count() == base + 2);
  assigned = B{};
  CHECK(owner.words.use_count() == base + 1);

  // Refs of an owned batch survive a move of the batch (the columns move, not the bytes).
  B owned = original;
  const auto ref = owned[1];
  B target = std::move(owned);
  CHECK(std::get<1>(ref) == "bb");
  CHECK(std::get<1>(target[1]).data() == std::get<1>(ref).data());
  CHECK(owned.empty());
}

TEST_CASE("columnar: capacity is measured in serialized bytes", "[container][columnar]") {
  col::Batch<std::pair<std::uint64_t, std::string>> b;
  CHECK(b.capacity_bytes() == col::default_capacity_bytes);
  CHECK(col::default_capacity_bytes == std::size_t{1} << 20);
  b.set_capacity_bytes(200);
  std::size_t pushed = 0;
  while (!b.at_capacity()) {
    CHECK(b.byte_size() < 200);
    b.push_into({pushed, std::string(10, 'x')});
    ++pushed;
  }
  CHECK(b.byte_size() >= 200);
  // header (3 + 3 lengths) and per record 8 (u64) + 8 (end offset) + 10 bytes, padded.
  CHECK(b.byte_size() == 48 + col::pad8(8 * pushed) + col::pad8(8 * pushed) + col::pad8(10 * pushed));
  b.clear();
  CHECK(b.empty());
  CHECK_FALSE(b.at_capacity());
  CHECK(b.capacity_bytes() == 200);
}

TEST_CASE("columnar: append_to needs an 8-aligned buffer end and appends after it", "[container][columnar]") {
  const auto batch = batch_of<std::string>({"x", "yz"});
  std::vector<std::uint8_t> out(3, 0xAA);
  CHECK_THROWS_AS(batch.append_to(out), std::invalid_argument);
  CHECK(out.size() == 3);
  out.resize(8, 0);
  batch.append_to(out);
  batch.append_to(out);
  const std::size_t n = batch.serialized_size();
  REQUIRE(out.size() == 8 + 2 * n);
  const auto second =
      col::Batch<std::string>::from_bytes(std::span<const std::uint8_t>(out).subspan(8 + n), nullptr);
  CHECK(second == batch);
}
