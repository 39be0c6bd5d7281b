// The durable log's format (timely/durable/format.hpp): batches round-trip and have the
// documented layout, every cut and every flipped bit of a batch is caught, hostile tables with a
// matching checksum are rejected, index headers and consumer-offset files round-trip and reject
// damage, file names parse.
#include <timely/durable/error.hpp>
#include <timely/durable/format.hpp>

#include <sys/mman.h>
#include <xxhash.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "durable/support.hpp"
#include "support/catch.hpp"

using namespace timely::durable;
using durable_test::bytes_of;

namespace {

std::uint64_t le(const std::vector<std::byte>& b, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(b.at(at + i)) << (8 * i);
  return v;
}

void put(std::vector<std::byte>& b, std::size_t at, std::size_t width, std::uint64_t v) {
  for (std::size_t i = 0; i < width; ++i) b.at(at + i) = static_cast<std::byte>(v >> (8 * i));
}

// The checksum as format.hpp defines it, computed here independently of the library.
std::uint64_t documented_checksum(const std::vector<std::byte>& b) {
  const std::uint64_t seed = XXH3_64bits(b.data(), 56);
  return XXH3_64bits_withSeed(b.data() + 64, b.size() - 64, seed);
}

std::vector<std::byte> encode(std::uint64_t base, const std::vector<durable_test::Stored>& records) {
  std::vector<RecordView> views;
  for (const auto& r : records) views.push_back({r.timestamp, bytes_of(r.bytes)});
  std::vector<std::byte> out(encoded_batch_size(views));
  encode_batch(base, views, out);
  return out;
}

}  // namespace

TEST_CASE("a batch has the documented layout and reads back in place", "[durable][format]") {
  const std::vector<durable_test::Stored> records{{30, "alpha"}, {-5, ""}, {1000, "a longer record"}};
  const auto b = encode(42, records);
  const std::size_t data = 5 + 0 + 15;
  REQUIRE(b.size() == (64 + 16 * 3 + data + 7) / 8 * 8);
  CHECK(std::string(reinterpret_cast<const char*>(b.data()), 4) == "TDLB");
  CHECK(le(b, 4, 2) == 1);
  CHECK(le(b, 6, 2) == 64);
  CHECK(le(b, 8, 4) == b.size());
  CHECK(le(b, 12, 4) == 3);
  CHECK(le(b, 16, 8) == 42);
  CHECK(static_cast<std::int64_t>(le(b, 24, 8)) == 30);
  CHECK(static_cast<std::int64_t>(le(b, 32, 8)) == 1000);
  CHECK(static_cast<std::int64_t>(le(b, 40, 8)) == 1000);
  CHECK(le(b, 48, 4) == data);
  CHECK(le(b, 52, 4) == 0);
  CHECK(le(b, 56, 8) == documented_checksum(b));
  // The record table: timestamp, position in the data area, length.
  CHECK(static_cast<std::int64_t>(le(b, 64 + 16, 8)) == -5);
  CHECK(le(b, 64 + 16 + 8, 4) == 5);
  CHECK(le(b, 64 + 32 + 8, 4) == 5);
  CHECK(le(b, 64 + 32 + 12, 4) == 15);
  for (std::size_t i = 64 + 48 + data; i < b.size(); ++i) CHECK(b[i] == std::byte{0});

  const BatchCheck check = check_batch(b);
  REQUIRE(check.status == BatchCheck::Status::valid);
  const BatchView view = BatchView::from_checked(b, check.header);
  CHECK(view.base_offset() == 42);
  CHECK(view.end_offset() == 45);
  REQUIRE(view.size() == 3);
  std::size_t i = 0;
  for (auto record : view) {
    CHECK(record.timestamp == records[i].timestamp);
    CHECK(record.text() == records[i].bytes);
    // In place: the record's bytes lie inside the batch's.
    if (!record.bytes.empty())
      CHECK((record.bytes.data() >= b.data() && record.bytes.data() < b.data() + b.size()));
    ++i;
  }
  const BatchView tail = view.drop_front(2);
  CHECK(tail.base_offset() == 44);
  CHECK(tail.size() == 1);
  CHECK(tail[0].text() == "a longer record");
  CHECK(view.drop_front(7).empty());
}

TEST_CASE("an empty batch and an oversized one are refused by name", "[durable][format]") {
  CHECK_THROWS_AS(encoded_batch_size({}), ArgumentError);
  CHECK_THROWS_WITH(encoded_batch_size({}), Catch::Contains("empty batch"));
  // Half the limit twice, in address space that is never touched (only sizes are read).
  void* space =
      ::mmap(nullptr, kMaxBatchBytes / 2, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE(space != MAP_FAILED);
  const std::span<const std::byte> big(static_cast<const std::byte*>(space), kMaxBatchBytes / 2);
  std::vector<RecordView> views{{0, big}, {0, big}};
  CHECK_THROWS_WITH(encoded_batch_size(views),
                    Catch::Contains("exceeds the format's limit of 1073741824 bytes"));
  ::munmap(space, kMaxBatchBytes / 2);
  const std::vector<RecordView> one{{0, bytes_of("x")}};
  std::vector<std::byte> wrong(8);
  CHECK_THROWS_AS(encode_batch(0, one, wrong), ArgumentError);
}

TEST_CASE("every cut of a batch is incomplete and every flipped bit is invalid", "[durable][format]") {
  const auto b = encode(7, durable_test::deterministic(7, 12));
  for (std::size_t n = 0; n < b.size(); ++n) {
    const auto check = check_batch(std::span(b).first(n));
    INFO("cut at " << n);
    CHECK(check.status == BatchCheck::Status::incomplete);
  }
  for (std::size_t byte = 0; byte < b.size(); ++byte) {
    for (unsigned bit = 0; bit < 8; ++bit) {
      auto c = b;
      c[byte] ^= static_cast<std::byte>(1u << bit);
      const auto check = check_batch(c);
      INFO("bit " << bit << " of byte " << byte << ": " << check.reason);
      // A flip in the length may make the batch look longer than the bytes: incomplete, which a
      // reader of a sealed segment reports as damage too. Nothing is ever valid.
      CHECK(check.status != BatchCheck::Status::valid);
    }
  }
}

TEST_CASE("a record table that leaves the batch is rejected even with a matching checksum",
          "[durable][format]") {
  auto b = encode(0, {{1, "abc"}, {2, "defg"}});
  auto reseal = [](std::vector<std::byte>& c) { put(c, 56, 8, documented_checksum(c)); };
  SECTION("a record that starts elsewhere") {
    put(b, 64 + 16 + 8, 4, 100);
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("record 1 at data position 100"));
  }
  SECTION("a record longer than the data area") {
    put(b, 64 + 16 + 12, 4, 1u << 30);
    reseal(b);
    CHECK(check_batch(b).status == BatchCheck::Status::invalid);
  }
  SECTION("a first timestamp that is not record 0's") {
    put(b, 24, 8, 99);
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("first timestamp 99"));
  }
  SECTION("a max timestamp that is not the largest") {
    put(b, 40, 8, 1);
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("max timestamp 1"));
  }
  SECTION("a nonzero padding byte") {
    b.back() = std::byte{1};
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("padding byte"));
  }
  SECTION("another version") {
    put(b, 4, 2, 2);
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("format version 2 (this library reads version 1)"));
  }
  SECTION("a batch that says it holds no record") {
    put(b, 12, 4, 0);
    reseal(b);
    CHECK_THAT(check_batch(b).reason, Catch::Contains("record count 0"));
  }
  CHECK_THROWS_AS(BatchView::from_bytes(b, 4096), CorruptionError);
  CHECK_THROWS_WITH(BatchView::from_bytes(b, 4096), Catch::Contains("byte offset 4096"));
}

TEST_CASE("random bytes are never taken for a batch", "[durable][format]") {
  const std::uint64_t seed = 20240611;
  std::printf("durable format: random bytes with seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> junk(rng() % 300);
    for (auto& x : junk) x = static_cast<std::byte>(rng());
    if (junk.size() >= 4 && rng() % 2 == 0) {  // a valid magic and version, to reach the later checks
      junk[0] = std::byte{'T'}, junk[1] = std::byte{'D'}, junk[2] = std::byte{'L'}, junk[3] = std::byte{'B'};
      if (junk.size() >= 8) put(junk, 4, 2, 1), put(junk, 6, 2, 64);
    }
    INFO("round " << round);
    CHECK(check_batch(junk).status != BatchCheck::Status::valid);
  }
}

TEST_CASE("segment file names are the base offset in 20 digits", "[durable][format]") {
  CHECK(segment_file_name(0, SegmentFile::log) == "00000000000000000000.log");
  CHECK(segment_file_name(1024, SegmentFile::index) == "00000000000000001024.index");
  CHECK(segment_file_name(UINT64_MAX, SegmentFile::timeindex) == "18446744073709551615.timeindex");
  CHECK(parse_segment_file_name("00000000000000001024.timeindex") ==
        std::pair{std::uint64_t{1024}, SegmentFile::timeindex});
  CHECK_FALSE(parse_segment_file_name("99999999999999999999.log"));  // above 2^64 - 1
  CHECK_FALSE(parse_segment_file_name("0000000000000000102.log"));
  CHECK_FALSE(parse_segment_file_name("00000000000000001024.log.tmp"));
  CHECK_FALSE(parse_segment_file_name("writer.lock"));
  CHECK(valid_name("orders.v2_eu-1"));
  CHECK_FALSE(valid_name(""));
  CHECK_FALSE(valid_name(".hidden"));
  CHECK_FALSE(valid_name("a/b"));
  CHECK_FALSE(valid_name(std::string(201, 'a')));
}

TEST_CASE("index headers and consumer offsets round-trip and reject damage", "[durable][format]") {
  std::vector<std::byte> file(kIndexHeaderSize + 2 * kTimeIndexEntrySize);
  encode_time_entry({100, 3, 4096}, std::span<std::byte, kTimeIndexEntrySize>(file.data() + 64, 16));
  encode_time_entry({250, 9, 8192}, std::span<std::byte, kTimeIndexEntrySize>(file.data() + 80, 16));
  IndexHeader h{SegmentFile::timeindex, 512, 12000, 600, -3, 7, 250, 0};
  encode_index_header(h, std::span(file).subspan(64), std::span<std::byte, 64>(file.data(), 64));
  CHECK(std::string(reinterpret_cast<const char*>(file.data()), 4) == "TDLT");
  std::string reason;
  const auto back = decode_index_header(file, SegmentFile::timeindex, &reason);
  REQUIRE(back);
  CHECK(back->base_offset == 512);
  CHECK(back->sealed_size == 12000);
  CHECK(back->end_offset == 600);
  CHECK(back->max_timestamp == 250);
  CHECK(decode_time_entry(std::span<const std::byte, 16>(file.data() + 80, 16)) ==
        TimeIndexEntry{250, 9, 8192});
  CHECK_FALSE(decode_index_header(file, SegmentFile::index, &reason));
  CHECK_THAT(reason, Catch::Contains("magic"));
  for (std::size_t byte = 0; byte < file.size(); ++byte) {
    if (byte >= 56 && byte < 64) continue;  // the checksum field itself: caught as a mismatch below
    auto c = file;
    c[byte] ^= std::byte{0x10};
    const auto damaged = decode_index_header(c, SegmentFile::timeindex, &reason);
    INFO("byte " << byte);
    CHECK_FALSE(damaged);
  }
  auto c = file;
  c[60] ^= std::byte{1};
  CHECK_FALSE(decode_index_header(c, SegmentFile::timeindex, &reason));
  CHECK_FALSE(decode_index_header(std::span(file).first(70), SegmentFile::timeindex, &reason));

  std::byte offset[kConsumerOffsetSize];
  encode_consumer_offset(123456789, offset);
  CHECK(decode_consumer_offset(offset, &reason) == 123456789u);
  for (std::size_t byte = 0; byte < kConsumerOffsetSize; ++byte) {
    std::byte d[kConsumerOffsetSize];
    std::copy(std::begin(offset), std::end(offset), d);
    d[byte] ^= std::byte{4};
    CHECK_FALSE(decode_consumer_offset(d, &reason));
  }
}
