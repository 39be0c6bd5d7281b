// Reading columnar batches validates them once (timely/container/columnar.hpp): every truncation
// and every trailing byte is rejected; every corrupted header field, offset, tag and padding
// byte is rejected exactly when a brute-force model of the layout says the result is invalid,
// and otherwise reads in bounds; errors name the column path, the byte offset and the problem.
// The codec bridge (timely/communication/codec_columnar.hpp) pads after a 12-byte prefix,
// borrows when the decoder has an owner, and reports layout errors as CodecErrors at absolute
// offsets.
#include <timely/container/columnar.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <timely/communication/codec.hpp>

#include "columnar_fixtures.hpp"
#include "support/catch.hpp"

using namespace columnar_test;
using timely::communication::CodecError;
using timely::communication::Decoder;
using timely::communication::Encoder;

namespace {

using TB = col::Batch<Triple>;

TB sample_triples() {
  return batch_of<Triple>({{1, "alpha", std::vector<std::uint32_t>{1, 2, 3}},
                           {2, "", std::nullopt},
                           {3, "gamma!", std::vector<std::uint32_t>{}},
                           {4, "d", std::vector<std::uint32_t>{4}},
                           {5, "", std::nullopt}});
}

std::uint64_t word(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void set_word(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
  std::memcpy(b.data() + at, &v, 8);
}

/// Where the buffers of a serialized Triple batch are (an independent reading of layout.hpp).
struct TripleLayout {
  std::size_t count = 0;
  std::size_t offset[6] = {};
  std::size_t size[6] = {};
  explicit TripleLayout(const std::vector<std::uint8_t>& b) {
    count = word(b, 8);
    std::size_t at = 8 * (3 + 6);
    for (int j = 0; j < 6; ++j) {
      size[j] = word(b, 24 + 8 * j);
      offset[j] = at;
      at += (size[j] + 7) / 8 * 8;
    }
  }
};

/// The model: is a Triple batch with this (unchanged-length) layout valid? Buffers: 0 u64
/// values, 1 string ends, 2 string bytes, 3 tags, 4 vector ends, 5 u32 values.
bool model_valid(const std::vector<std::uint8_t>& b, const TripleLayout& l) {
  auto ends_ok = [&](int j, std::uint64_t child_len, std::vector<std::uint64_t>& ends) {
    std::uint64_t prev = 0;
    for (std::size_t i = 0; i < l.count; ++i) {
      const std::uint64_t e = word(b, l.offset[j] + 8 * i);
      if (e < prev) return false;
      ends.push_back(e);
      prev = e;
    }
    return prev == child_len;
  };
  std::vector<std::uint64_t> s_ends, v_ends;
  if (!ends_ok(1, l.size[2], s_ends)) return false;
  if (!ends_ok(4, l.size[5] / 4, v_ends)) return false;
  for (std::size_t i = 0; i < l.count; ++i) {
    const std::uint8_t tag = b[l.offset[3] + i];
    if (tag > 1) return false;
    const std::uint64_t start = i == 0 ? 0 : v_ends[i - 1];
    if (tag == 0 && v_ends[i] != start) return false;
  }
  return true;
}

/// Reads every item of `batch` (so that a sanitizer sees any out-of-bounds read).
std::size_t read_all(const TB& batch) {
  std::size_t sum = 0;
  for (const auto& [n, s, v] : batch) {
    sum += n + s.size();
    for (char c : s) sum += static_cast<unsigned char>(c);
    if (v)
      for (std::uint32_t x : *v) sum += x;
  }
  return sum;
}

/// `bytes` is accepted iff `expect_valid`; if rejected, by a LayoutError with a path and offset.
void expect_verdict(const std::vector<std::uint8_t>& bytes, bool expect_valid) {
  const Owned owner = own(bytes);
  try {
    const auto batch = TB::from_bytes(owner.bytes(), owner.words);
    CHECK(expect_valid);
    (void)read_all(batch);
    CHECK(serialize(batch) == bytes);
  } catch (const col::LayoutError& e) {
    INFO(e.what());
    CHECK_FALSE(expect_valid);
    CHECK(!e.column().empty());
    CHECK(e.offset() <= bytes.size());
    CHECK_THAT(e.what(), Catch::Contains(e.column()) && Catch::Contains(std::to_string(e.offset())) &&
                             Catch::Contains(e.problem()));
  }
}

}  // namespace

TEST_CASE("columnar validation: truncation at every byte offset and trailing bytes are rejected",
          "[container][columnar]") {
  auto check_type = [](const auto& batch) {
    using B = std::remove_cvref_t<decltype(batch)>;
    const auto full = serialize(batch);
    for (std::size_t k = 0; k < full.size(); ++k) {
      INFO("truncated to " << k << " of " << full.size() << " bytes");
      const Owned owner =
          own(std::vector<std::uint8_t>(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(k)));
      CHECK_THROWS_AS(B::from_bytes(owner.bytes(), owner.words), col::LayoutError);
      CHECK_THROWS_AS(B::from_bytes(owner.bytes(), nullptr), col::LayoutError);
    }
    for (std::size_t extra : {1, 7, 8}) {
      INFO(extra << " trailing bytes");
      auto longer = full;
      longer.resize(full.size() + extra, 0);
      const Owned owner = own(longer);
      CHECK_THROWS_AS(B::from_bytes(owner.bytes(), owner.words), col::LayoutError);
    }
    const Owned owner = own(full);
    CHECK(B::from_bytes(owner.bytes(), owner.words) == batch);
  };
  check_type(sample_triples());
  check_type(TB{});
  check_type(batch_of<Rec>({{1, "r", std::vector<Point>{{1, 2}}, Color::red, plain_b, true, {5}},
                            {2, "", std::nullopt, Color::green, plain_a, false, {}}}));
  check_type(batch_of<std::vector<std::string>>({{"a", "bc"}, {}, {""}}));
  check_type(batch_of<bool>({true}));
}

TEST_CASE("columnar validation: corrupted header fields are rejected", "[container][columnar]") {
  const auto full = serialize(sample_triples());
  constexpr std::uint64_t seed = 0xC01'0000'0002;
  std::printf("columnar header corruption: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (std::size_t field = 0; field < 3 + 6; ++field) {
    const std::uint64_t original = word(full, 8 * field);
    for (int round = 0; round < 40; ++round) {
      std::uint64_t v;
      switch (round) {
        case 0:
          v = original + 1;
          break;
        case 1:
          v = original - 1;
          break;
        case 2:
          v = 0;
          break;
        case 3:
          v = ~std::uint64_t{0};
          break;
        case 4:
          v = original + 8;
          break;
        case 5:
          v = original ^ (std::uint64_t{1} << 63);
          break;
        default:
          v = round % 2 ? rng() : original + rng() % 64 - 32;
      }
      if (v == original) continue;
      INFO("header word " << field << " set from " << original << " to " << v);
      auto bad = full;
      set_word(bad, 8 * field, v);
      expect_verdict(bad, false);
    }
  }
  // A buffer length that grows into its zero padding keeps the batch's extent; the column
  // check catches it and names the column.
  auto bad = full;
  REQUIRE(word(full, 24 + 8 * 2) % 8 != 0);
  set_word(bad, 24 + 8 * 2, word(full, 24 + 8 * 2) + 1);
  const Owned owner = own(bad);
  try {
    (void)TB::from_bytes(owner.bytes(), owner.words);
    FAIL("accepted");
  } catch (const col::LayoutError& e) {
    INFO(e.what());
    CHECK(e.column() == "tuple.1.bytes");
  }
}

TEST_CASE("columnar validation: corrupted offsets, tags and padding match the model",
          "[container][columnar]") {
  const auto full = serialize(sample_triples());
  const TripleLayout layout(full);
  REQUIRE(layout.count == 5);
  REQUIRE(model_valid(full, layout));
  constexpr std::uint64_t seed = 0xC01'0000'0003;
  std::printf("columnar offset corruption: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::size_t rejected = 0, accepted = 0;
  for (int j : {1, 4}) {  // the two offset buffers, every entry
    for (std::size_t i = 0; i < layout.count; ++i) {
      const std::size_t at = layout.offset[j] + 8 * i;
      const std::uint64_t original = word(full, at);
      for (int round = 0; round < 30; ++round) {
        const std::uint64_t v = round == 0   ? original + 1
                                : round == 1 ? original - 1
                                : round == 2 ? ~std::uint64_t{0}
                                : round < 12 ? rng() % 16
                                             : rng() >> (rng() % 64);
        if (v == original) continue;
        INFO("buffer " << j << " entry " << i << " set from " << original << " to " << v);
        auto bad = full;
        set_word(bad, at, v);
        const bool valid = model_valid(bad, layout);
        (valid ? accepted : rejected) += 1;
        expect_verdict(bad, valid);
      }
    }
  }
  for (std::size_t i = 0; i < layout.count; ++i) {  // every tag, every value
    for (int v = 0; v < 256; ++v) {
      INFO("tag " << i << " set to " << v);
      auto bad = full;
      bad[layout.offset[3] + i] = static_cast<std::uint8_t>(v);
      const bool valid = model_valid(bad, layout);
      (valid ? accepted : rejected) += 1;
      expect_verdict(bad, valid);
    }
  }
  for (int j = 0; j < 6; ++j) {  // every padding byte
    for (std::size_t k = layout.offset[j] + layout.size[j];
         k < layout.offset[j] + (layout.size[j] + 7) / 8 * 8; ++k) {
      INFO("padding byte " << k << " of buffer " << j);
      auto bad = full;
      bad[k] = static_cast<std::uint8_t>(1 + rng() % 255);
      expect_verdict(bad, false);
      ++rejected;
    }
  }
  // The magic word, every byte.
  for (std::size_t k = 0; k < 8; ++k) {
    auto bad = full;
    bad[k] ^= 0x20;
    expect_verdict(bad, false);
  }
  CHECK(accepted > 0);  // the model and the reader agree on both sides
  CHECK(rejected > 0);
}

TEST_CASE("columnar validation: errors name the column, offset and problem", "[container][columnar]") {
  const auto full = serialize(sample_triples());
  const TripleLayout layout(full);
  auto expect = [](const std::vector<std::uint8_t>& bytes, const std::string& column, std::size_t offset) {
    const Owned owner = own(bytes);
    try {
      (void)TB::from_bytes(owner.bytes(), owner.words);
      FAIL("accepted");
    } catch (const col::LayoutError& e) {
      INFO(e.what());
      CHECK(e.column() == column);
      CHECK(e.offset() == offset);
      CHECK_THAT(e.what(), Catch::Contains("column " + column) &&
                               Catch::Contains("byte offset " + std::to_string(offset)));
    }
  };
  auto bad = full;
  set_word(bad, layout.offset[1] + 8, 0);  // string end of item 1 below item 0's
  expect(bad, "tuple.1.offsets", layout.offset[1] + 8);
  bad = full;
  set_word(bad, layout.offset[1] + 8 * 4,
           word(full, layout.offset[1] + 8 * 4) + 1);  // last end past the bytes
  expect(bad, "tuple.1.bytes", layout.offset[2]);
  bad = full;
  bad[layout.offset[3] + 2] = 2;
  expect(bad, "tuple.2.tags", layout.offset[3] + 2);
  bad = full;
  bad[layout.offset[3] + 1] = 1;  // item 1 absent -> present: its slot is empty, so valid
  expect_verdict(bad, true);
  bad = full;
  set_word(bad, layout.offset[4],
           word(full, layout.offset[4]) - 1);  // absent item 1 gets item 0's last value
  expect(bad, "tuple.2.tags", layout.offset[3] + 1);
  bad = full;
  set_word(bad, 16, 5);
  expect(bad, "header", 16);
}

TEST_CASE("columnar codec: a batch after a 12-byte prefix pads, borrows and reports offsets",
          "[container][columnar][codec]") {
  using timely::communication::Codec;
  const TB batch = sample_triples();
  CHECK(Codec<TB>::name() == "columnar<tuple<u64,string,optional<vec<u32>>>>");
  static_assert(timely::communication::Encodable<TB>);
  std::vector<std::uint8_t> buf;
  Encoder e(buf);
  e.put_u64(17);  // like Message: from, then a 4-byte time
  e.put_u32(3);
  e.put(batch);
  e.put_u32(0xABCD);
  const std::size_t batch_at = 12 + 4 + 8;
  REQUIRE(buf.size() == batch_at + batch.serialized_size() + 4);
  CHECK(std::all_of(buf.begin() + 12, buf.begin() + 16, [](std::uint8_t b) { return b == 0; }));

  const Owned owner = own(buf);
  constexpr std::uint64_t base = 1000;
  {
    Decoder d(owner.bytes(), base, owner.words);
    CHECK(d.get_u64() == 17);
    CHECK(d.get_u32() == 3);
    const TB back = d.get<TB>();
    CHECK(back.borrowed());
    CHECK(back == batch);
    CHECK(d.get_u32() == 0xABCD);
    CHECK(d.remaining() == 0);
  }
  {
    Decoder d(owner.bytes(), base);  // no owner: an owned copy
    (void)d.get_u64();
    (void)d.get_u32();
    const TB back = d.get<TB>();
    CHECK_FALSE(back.borrowed());
    CHECK(back == batch);
  }
  auto decode_error = [&](const std::vector<std::uint8_t>& bytes) -> CodecError {
    const Owned o = own(bytes);
    Decoder d(o.bytes(), base, o.words);
    (void)d.get_u64();
    (void)d.get_u32();
    try {
      (void)d.get<TB>();
    } catch (const CodecError& err) {
      return err;
    }
    FAIL("accepted");
    return CodecError(0, "", "");
  };
  auto bad = buf;
  bad[14] = 9;
  auto err = decode_error(bad);
  CHECK(err.offset() == base + 14);
  CHECK(err.reading() == "columnar padding");

  const TripleLayout layout(std::vector<std::uint8_t>(buf.begin() + batch_at, buf.end() - 4));
  bad = buf;
  set_word(bad, batch_at + layout.offset[1] + 8, 0);
  err = decode_error(bad);
  INFO(err.what());
  CHECK(err.offset() == base + batch_at + layout.offset[1] + 8);
  CHECK(err.reading() == "columnar column tuple.1.offsets");

  bad = buf;
  set_word(bad, 16, ~std::uint64_t{0});  // the length word
  err = decode_error(bad);
  CHECK(err.offset() == base + 24);
  CHECK(err.reading() == "columnar batch");

  // Through encode_bytes/decode_bytes, with other codecs around it.
  using Pair = std::pair<std::uint32_t, TB>;
  const auto bytes = timely::communication::encode_bytes(Pair{5, batch});
  const auto back = timely::communication::decode_bytes<Pair>(bytes);
  CHECK(back.first == 5);
  CHECK(back.second == batch);
}

TEST_CASE("columnar codec: an encoder that keeps column buffers by address encodes the same bytes",
          "[container][columnar][codec]") {
  using timely::communication::LastingBytes;
  constexpr std::uint64_t seed = 0xC01'0000'0009;
  std::printf("columnar lasting encoder: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<TB> batches{TB{}, sample_triples()};
  for (const std::size_t n : {1u, 7u, 300u, 5000u}) {
    TB b;
    for (std::size_t i = 0; i < n; ++i) {
      std::optional<std::vector<std::uint32_t>> tail;
      if (rng() % 3 != 0) tail = std::vector<std::uint32_t>(rng() % 5, static_cast<std::uint32_t>(rng()));
      b.push_into(Triple{rng(), std::string(rng() % 23, static_cast<char>('a' + rng() % 26)), tail});
    }
    batches.push_back(std::move(b));
  }
  // Two batches between a 12-byte prefix and a 4-byte suffix, as in a frame.
  auto encode_all = [&](Encoder& e, const TB& a, const TB& b) {
    e.put_u64(17);
    e.put_u32(3);
    e.put(a);
    e.put(b);
    e.put_u32(0xABCD);
  };
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const TB& a = batches[i];
    const TB& b = batches[(i + 3) % batches.size()];
    INFO("batches of " << a.size() << " and " << b.size() << " items");
    std::vector<std::uint8_t> plain;
    Encoder copying(plain);
    encode_all(copying, a, b);
    for (const std::size_t threshold :
         {std::size_t{0}, std::size_t{1}, std::size_t{8}, std::size_t{100}, std::size_t{4096}, SIZE_MAX}) {
      INFO("threshold " << threshold);
      std::vector<std::uint8_t> buf{0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE};  // bytes before
      std::vector<LastingBytes> lasting;
      Encoder e(buf, lasting, threshold);
      encode_all(e, a, b);
      CHECK(e.size() == 8 + plain.size());
      // The buffer with each kept piece inserted where it belongs is the plain encoding.
      std::vector<std::uint8_t> joined;
      std::size_t at = 0;
      for (const auto& piece : lasting) {
        REQUIRE(piece.at >= at);
        REQUIRE(piece.at <= buf.size());
        CHECK(piece.size >= std::max<std::size_t>(threshold, 1));
        joined.insert(joined.end(), buf.begin() + static_cast<std::ptrdiff_t>(at),
                      buf.begin() + static_cast<std::ptrdiff_t>(piece.at));
        CHECK((joined.size() - 8) % 8 == 0);  // a column buffer starts 8-aligned, as in the layout
        joined.insert(joined.end(), piece.data, piece.data + piece.size);
        at = piece.at;
      }
      joined.insert(joined.end(), buf.begin() + static_cast<std::ptrdiff_t>(at), buf.end());
      REQUIRE(joined.size() == 8 + plain.size());
      CHECK(std::equal(plain.begin(), plain.end(), joined.begin() + 8));
      if (threshold == SIZE_MAX) CHECK(lasting.empty());
      if (threshold <= 1 && !a.empty()) CHECK_FALSE(lasting.empty());  // the batch's own columns
      for (const auto& piece : lasting) {  // pieces point into the batches, not the buffer
        const bool in_buffer = piece.data >= buf.data() && piece.data < buf.data() + buf.size();
        CHECK_FALSE(in_buffer);
      }
    }
  }
}

TEST_CASE("columnar validation: types without data cannot claim unbounded items", "[container][columnar]") {
  // Nothing in the bytes bounds how many empty tuples there are; the count is capped instead.
  auto words_of = [](std::vector<std::uint64_t> words) {
    std::vector<std::uint8_t> bytes(words.size() * 8);
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return own(bytes);
  };
  const auto empties = words_of({col::magic_version, std::uint64_t{1} << 62, 0});
  CHECK_THROWS_AS(col::Batch<std::tuple<>>::from_bytes(empties.bytes(), empties.words), col::LayoutError);
  const auto fine = words_of({col::magic_version, 1000, 0});
  CHECK(col::Batch<std::tuple<>>::from_bytes(fine.bytes(), fine.words).size() == 1000);
  // One vector claiming 2^61 empty tuples through its end offset.
  const auto vectors = words_of({col::magic_version, 1, 1, 8, std::uint64_t{1} << 61});
  CHECK_THROWS_AS(col::Batch<std::vector<std::tuple<>>>::from_bytes(vectors.bytes(), vectors.words),
                  col::LayoutError);
  const auto small = words_of({col::magic_version, 1, 1, 8, 3});
  CHECK(col::Batch<std::vector<std::tuple<>>>::from_bytes(small.bytes(), small.words)[0].size() == 3);
}

TEST_CASE("columnar validation: bytes that are not a batch say what their first word is",
          "[container][columnar]") {
  std::vector<std::uint8_t> bytes(24, 0);
  bytes[0] = 1;  // what a vector-encoded message of one record might start with
  const auto owned = own(bytes);
  try {
    (void)col::Batch<std::pair<std::uint64_t, std::string>>::from_bytes(owned.bytes(), owned.words);
    FAIL("bytes that are not a batch were accepted");
  } catch (const col::LayoutError& e) {
    CHECK_THAT(e.what(), Catch::Contains("the first word is 0x0000000000000001, not 0x314c4f43594c4d54") &&
                             Catch::Contains("not a columnar batch"));
  }
}
