// Column-wise appends of columnar batches: `Batch::fill_from` (what exchange partitions with)
// appends exactly the selected records of every kind and nesting, from owned and borrowed
// sources and into owned and borrowed batches, and stops at the byte capacity;
// `CapacityContainerBuilder::push_gathered` cuts the same records into full batches;
// `expect(shape())` keeps records; `Storage::expect` grows straight to the expected size once
// past a few KiB; `Storage::append` copies every small length exactly (the fixed-size moves for
// up to 16 bytes).
#include <timely/container/columnar.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "columnar_fixtures.hpp"
#include "support/catch.hpp"

using namespace columnar_test;

namespace {

/// Records `items[indices[k]]`, the model of a gather.
template <class T>
std::vector<T> select(const std::vector<T>& items, const std::vector<std::uint32_t>& indices) {
  std::vector<T> out;
  for (const auto i : indices) out.push_back(items[i]);
  return out;
}

template <class T>
std::vector<T> owned_records(const col::Batch<T>& batch) {
  std::vector<T> out;
  for (const auto& r : batch) out.push_back(col::to_owned<T>(r));
  return out;
}

/// Gathers random selections (repeats and any order) of `items` into empty, partly filled and
/// borrowed batches, from an owned and from a borrowed source, and compares with the model.
template <class T>
void gather_matches_model(const std::vector<T>& items, std::mt19937_64& rng) {
  const auto source = batch_of(items);
  const auto bytes = serialize(source);
  const auto held = own(bytes);
  const auto borrowed = col::Batch<T>::from_bytes(held.bytes(), held.words);
  REQUIRE(borrowed.borrowed());
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::uint32_t> indices(rng() % (2 * items.size() + 1));
    for (auto& i : indices) i = static_cast<std::uint32_t>(rng() % items.size());
    const auto want = select(items, indices);
    for (const auto* src : {&source, &borrowed}) {
      col::Batch<T> empty;
      CHECK(empty.fill_from(*src, indices) == indices.size());
      CHECK(owned_records(empty) == want);

      const std::size_t prefix = rng() % items.size();
      std::vector<T> head(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(prefix));
      auto partly = batch_of(head);
      CHECK(partly.fill_from(*src, indices) == indices.size());
      auto expect = head;
      expect.insert(expect.end(), want.begin(), want.end());
      CHECK(owned_records(partly) == expect);

      auto view = col::Batch<T>::from_bytes(held.bytes(), held.words);  // turned into an owned batch
      CHECK(view.fill_from(*src, indices) == indices.size());
      auto all = items;
      all.insert(all.end(), want.begin(), want.end());
      CHECK(owned_records(view) == all);
      CHECK_FALSE(view.borrowed());

      // The gathered batch serializes exactly as one pushed record by record.
      CHECK(serialize(empty) == serialize(batch_of(want)));
    }
  }
}

}  // namespace

TEST_CASE("columnar gather: fill_from appends exactly the selected records of every kind",
          "[container][columnar][gather]") {
  constexpr std::uint64_t seed = 0xC01'0000'0101;
  std::printf("columnar gather: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  gather_matches_model<std::uint64_t>({1, 2, 3, ~std::uint64_t{0}}, rng);
  gather_matches_model<bool>({true, false, false}, rng);
  gather_matches_model<Color>({Color::red, Color::blue}, rng);
  gather_matches_model<std::string>({"", "a", "sixteen bytes!!!", std::string(40, 'z'), "seven b"}, rng);
  gather_matches_model<std::vector<std::byte>>({{}, {std::byte{1}, std::byte{2}}}, rng);
  gather_matches_model<std::vector<std::uint32_t>>({{}, {1, 2, 3}, {}, {4}}, rng);
  gather_matches_model<std::vector<std::vector<std::string>>>({{{"a"}, {}, {"b", "c"}}, {}, {{}}}, rng);
  gather_matches_model<std::optional<std::string>>({"x", std::nullopt, ""}, rng);
  gather_matches_model<std::optional<std::optional<std::uint8_t>>>(
      {std::nullopt, std::optional<std::uint8_t>{}, std::optional<std::uint8_t>{9}}, rng);
  gather_matches_model<std::pair<std::uint64_t, std::string>>({{1, "one"}, {2, ""}, {3, "three"}}, rng);
  gather_matches_model<std::tuple<>>({{}, {}}, rng);
  gather_matches_model<Triple>(
      {{1, "a", std::nullopt}, {2, "", std::vector<std::uint32_t>{}}, {3, "ccc", {{7, 8}}}}, rng);
  gather_matches_model<Rec>(
      {{1, "first", std::vector<Point>{{1, 2}, {3, 4}}, Color::green, plain_b, true, {1, 2}},
       {2, "", std::nullopt, Color::red, plain_a, false, {}}},
      rng);
}

/// Cuts `items` (in the order of `indices`) into batches of `capacity` bytes with fill_from,
/// and checks each batch ends as pushing one by one would end it: at capacity, and below it
/// without its last record (and the records all arrive, in order).
template <class T>
void fill_cuts_like_pushes(const std::vector<T>& items, const std::vector<std::uint32_t>& indices,
                           std::size_t capacity) {
  const auto source = batch_of(items);
  std::vector<T> seen;
  std::span<const std::uint32_t> rest(indices);
  while (!rest.empty()) {
    col::Batch<T> b;
    b.set_capacity_bytes(capacity);
    const std::size_t took = b.fill_from(source, rest);
    REQUIRE(took >= 1);
    REQUIRE(took == b.size());
    rest = rest.subspan(took);
    auto got = owned_records(b);
    if (!rest.empty()) CHECK(b.at_capacity());
    // Without its last record the batch is below capacity: it passed it by one record at most.
    got.pop_back();
    CHECK(batch_of(got).byte_size() < capacity);
    got.push_back(col::to_owned<T>(b[b.size() - 1]));
    // A full batch takes nothing more.
    if (b.at_capacity()) CHECK(b.fill_from(source, indices) == 0);
    seen.insert(seen.end(), got.begin(), got.end());
  }
  CHECK(seen == select(items, indices));
}

TEST_CASE("columnar gather: fill_from passes the byte capacity by one record at most, as pushes do",
          "[container][columnar][gather]") {
  constexpr std::uint64_t seed = 0xC01'0000'0102;
  std::printf("columnar gather capacity: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  using P = std::pair<std::uint64_t, std::string>;
  std::vector<P> items;
  for (std::uint64_t i = 0; i < 5000; ++i) items.push_back({i, std::string(5 + rng() % 11, 'a')});
  items[1234].second = std::string(100000, 'x');  // one record far above the capacity
  std::vector<std::uint32_t> indices(items.size());
  for (std::uint32_t i = 0; i < indices.size(); ++i) indices[i] = i;
  fill_cuts_like_pushes(items, indices, 4096);
  fill_cuts_like_pushes(items, indices, 1 << 16);

  // Records far larger than the source's average all go to one target: its batches must not
  // take them all in one step (the source averages about 250 bytes a record).
  std::vector<P> skewed;
  for (std::uint64_t i = 0; i < 20000; ++i) skewed.push_back({i, "small"});
  std::vector<std::uint32_t> big;
  for (std::uint32_t i = 0; i < 20; ++i) {
    big.push_back(static_cast<std::uint32_t>(skewed.size()));
    skewed.push_back({i, std::string(300000 + i, static_cast<char>('a' + i))});
  }
  fill_cuts_like_pushes(skewed, big, 1 << 20);
  std::vector<std::uint32_t> mixed;  // big and small interleaved, in random order
  for (std::uint32_t i = 0; i < skewed.size(); i += 97) mixed.push_back(i);
  mixed.insert(mixed.end(), big.begin(), big.end());
  std::shuffle(mixed.begin(), mixed.end(), rng);
  fill_cuts_like_pushes(skewed, mixed, 1 << 20);
  fill_cuts_like_pushes(skewed, mixed, 1000);

  const auto source = batch_of(items);
  // Below the header size, every batch still takes one record.
  col::Batch<P> tiny;
  tiny.set_capacity_bytes(1);
  CHECK(tiny.fill_from(source, indices) == 1);
  CHECK(tiny.fill_from(source, indices) == 0);
}

TEST_CASE("columnar gather: push_gathered cuts the records as push_into would",
          "[container][columnar][gather]") {
  using P = std::pair<std::uint64_t, std::string>;
  using B = col::Builder<P, 2048>;
  std::vector<P> items;
  for (std::uint64_t i = 0; i < 3000; ++i) items.push_back({i * 7, std::string(i % 23, 'q')});
  const auto source = batch_of(items);
  std::vector<std::uint32_t> evens;
  for (std::uint32_t i = 0; i < items.size(); i += 2) evens.push_back(i);

  B gathered;
  gathered.push_gathered(source, std::span<const std::uint32_t>(evens).first(700));
  gathered.push_gathered(source, std::span<const std::uint32_t>(evens).subspan(700));
  std::vector<P> got;
  std::size_t full = 0;
  while (auto* b = gathered.extract()) {
    CHECK(b->at_capacity());
    CHECK(b->capacity_bytes() == 2048);
    auto r = owned_records(*b);
    got.insert(got.end(), r.begin(), r.end());
    ++full;
  }
  while (auto* b = gathered.finish()) {
    auto r = owned_records(*b);
    got.insert(got.end(), r.begin(), r.end());
  }
  CHECK(got == select(items, evens));
  CHECK(full >= 10);
  CHECK(gathered.idle());
}

TEST_CASE("columnar: expect(shape) keeps the records and the state", "[container][columnar][gather]") {
  using P = std::pair<std::uint64_t, std::string>;
  const std::vector<P> items{{1, "one"}, {2, "two"}, {3, ""}, {4, std::string(100, 'f')}};
  const auto full = batch_of(items);
  const auto shape = full.shape();
  CHECK(shape == col::Batch<P>::Shape{32, 32, 106});

  col::Batch<P> next;
  next.expect(shape);
  CHECK(next.empty());
  for (const auto& x : items) next.push_into(x);
  CHECK(next == full);
  CHECK(next.shape() == shape);

  auto partly = batch_of(std::vector<P>{{9, "nine"}});
  partly.expect(shape);
  CHECK(owned_records(partly) == std::vector<P>{{9, "nine"}});

  // A read-only view ignores it (it stays a view), and so does an impossible shape.
  const auto held = own(serialize(full));
  auto view = col::Batch<P>::from_bytes(held.bytes(), held.words);
  view.expect(shape);
  CHECK(view.borrowed());
  CHECK(owned_records(view) == items);
  col::Batch<P> huge;
  huge.expect(col::Batch<P>::Shape{SIZE_MAX, 2, SIZE_MAX});
  huge.push_into(P{1, "x"});
  CHECK(owned_records(huge) == std::vector<P>{{1, "x"}});
}

TEST_CASE("columnar: Storage::expect jumps to the expected size past a few KiB, and small stays small",
          "[container][columnar]") {
  col::Storage<std::uint64_t> s;
  s.expect(100000);
  for (std::uint64_t i = 0; i < 10; ++i) s.push_back(i);
  CHECK(s.capacity() * 8 < col::Storage<std::uint64_t>::jump_bytes);  // a small batch stays small
  // The first capacity of at least the jump size is already the expected size.
  std::size_t first_large = 0;
  for (std::uint64_t i = 10; i < 100000; ++i) {
    s.push_back(i);
    if (first_large == 0 && s.capacity() * 8 >= col::Storage<std::uint64_t>::jump_bytes)
      first_large = s.capacity();
  }
  CHECK(first_large >= 100000);
  bool ok = true;
  for (std::uint64_t i = 0; i < 100000; ++i) ok = ok && s[i] == i;
  CHECK(ok);
  s.truncate(7);
  CHECK(s.size() == 7);
  CHECK(s.back() == 6);
  s.truncate(100);
  CHECK(s.size() == 7);
}

TEST_CASE("columnar: Storage appends every small length exactly and copies and moves",
          "[container][columnar]") {
  std::vector<unsigned char> source(64);
  for (std::size_t i = 0; i < source.size(); ++i) source[i] = static_cast<unsigned char>(i * 37 + 1);
  col::Storage<unsigned char> s;
  std::vector<unsigned char> model;
  for (std::size_t n = 0; n <= 40; ++n)
    for (std::size_t at = 0; at + n <= source.size(); at += 5) {
      s.append(source.data() + at, n);
      model.insert(model.end(), source.begin() + static_cast<std::ptrdiff_t>(at),
                   source.begin() + static_cast<std::ptrdiff_t>(at + n));
    }
  REQUIRE(s.size() == model.size());
  CHECK(std::equal(model.begin(), model.end(), s.data()));
  CHECK(s.capacity() >= s.size());

  auto copy = s;
  CHECK(copy.size() == s.size());
  CHECK(std::equal(model.begin(), model.end(), copy.data()));
  auto moved = std::move(copy);
  CHECK(copy.empty());
  CHECK(copy.capacity() == 0);
  CHECK(std::equal(model.begin(), model.end(), moved.data()));

  col::Storage<std::uint64_t> words;
  for (std::uint64_t i = 0; i < 100000; ++i) words.push_back(i * i);
  bool ok = true;
  for (std::uint64_t i = 0; i < 100000; ++i) ok = ok && words[i] == i * i;
  CHECK(ok);
  auto* tail = words.append_uninitialized(3);
  tail[0] = 1, tail[1] = 2, tail[2] = 3;
  CHECK(words.size() == 100003);
  CHECK(words.back() == 3);
  words.clear();
  CHECK(words.empty());
  CHECK(words.capacity() >= 100003);
}
