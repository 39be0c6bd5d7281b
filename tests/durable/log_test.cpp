// The durable log's writers, readers and Log (timely/durable/log.hpp) on the POSIX file system
// and the simulated one: dense offsets across rolled segments, positioning by offset and by
// timestamp against a brute-force search, rolling by age, retention and readers in deleted
// segments, one writer per partition, consumer offsets, listings, statistics, verification,
// recovery of damaged tails and indexes, and errors that name what they are about. Over 600
// lines: its cases share the fill/read helpers and the simulated log setup above them.
#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "durable/support.hpp"
#include "support/catch.hpp"

using namespace timely::durable;
using namespace durable_test;

namespace {

WriterOptions small_segments() {
  WriterOptions o;
  o.segment_bytes = 4096;
  o.index_interval_bytes = 256;
  return o;
}

// Appends the deterministic records [from, to) in batches of 1 to 7 records.
void fill(Writer& writer, std::uint64_t from, std::uint64_t to, std::mt19937_64& rng) {
  while (from < to) {
    const std::uint64_t n = std::min<std::uint64_t>(to - from, 1 + rng() % 7);
    REQUIRE(append(writer, deterministic(from, from + n)) == from);
    from += n;
  }
}

void check_all(Reader& reader, std::uint64_t from, std::uint64_t to) {
  const auto got = read_all(reader);
  REQUIRE(got.size() == to - from);
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    INFO("offset " << from + i);
    REQUIRE(got[i].first == from + i);
    REQUIRE(got[i].second == Stored{timestamp_of(from + i), payload(from + i)});
  }
}

std::vector<std::string> segment_files(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("appends get dense offsets and read back in order across rolled segments", "[durable][log]") {
  TempDir dir("dense");
  Log log(dir.path() / "log");
  std::mt19937_64 rng(1);
  {
    Writer writer = log.writer("events", 0, small_segments());
    CHECK(writer.recovery().clean());
    CHECK(writer.end_offset() == 0);
    fill(writer, 0, 400, rng);
    CHECK(writer.end_offset() == 400);
    CHECK(writer.stats().segments > 5);
    writer.close();
  }
  const auto names = segment_files(dir.path() / "log" / "events" / "0");
  CHECK(names.front() == "00000000000000000000.index");
  CHECK(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.ends_with(".log"); }) >
        5);
  CHECK(std::count_if(names.begin(), names.end(),
                      [](const std::string& n) { return n.ends_with(".timeindex"); }) ==
        std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.ends_with(".log"); }));

  Reader reader = log.reader("events", 0, Start::beginning());
  check_all(reader, 0, 400);
  CHECK(reader.position() == 400);
  CHECK_FALSE(reader.next_batch());

  const PartitionStats st = log.stats("events", 0);
  CHECK(st.records == 400);
  CHECK(st.first_offset == 0);
  CHECK(st.end_offset == 400);
  CHECK(st.first_timestamp == timestamp_of(0));
  CHECK(st.last_timestamp == timestamp_of(399));
  std::int64_t max = 0;
  for (std::uint64_t o = 0; o < 400; ++o) max = std::max(max, timestamp_of(o));
  CHECK(st.max_timestamp == max);
  CHECK(st.bytes == [&] {
    std::uint64_t total = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path() / "log" / "events" / "0"))
      if (e.path().extension() == ".log") total += e.file_size();
    return total;
  }());
  const VerifyReport verified = log.verify("events", 0);
  INFO(to_string(verified));
  CHECK(verified.ok());
  CHECK(verified.records == 400);

  // Reopening finds everything in place and continues the offsets.
  Writer again = log.writer("events", 0, small_segments());
  INFO(to_string(again.recovery()));
  CHECK(again.recovery().clean());
  CHECK(again.end_offset() == 400);
  fill(again, 400, 450, rng);
  again.close();
  Reader rest = log.reader("events", 0, Start::at_offset(390));
  check_all(rest, 390, 450);
}

TEST_CASE("a reader starts at any offset and at the first record at or after any timestamp",
          "[durable][log]") {
  const std::uint64_t seed = 7;
  std::printf("durable log: positioning with seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  // Timestamps out of order within and across batches, so that the time index's running
  // maximum is what finds them.
  std::vector<std::int64_t> ts;
  {
    Writer writer = log.writer("t", 3, small_segments());
    std::uint64_t next = 0;
    while (next < 600) {
      std::vector<Stored> batch;
      const std::uint64_t n = 1 + rng() % 6;
      for (std::uint64_t i = 0; i < n; ++i) {
        const auto t = static_cast<std::int64_t>(next * 5) - static_cast<std::int64_t>(rng() % 40);
        ts.push_back(t);
        batch.push_back({t, payload(next)});
        ++next;
      }
      append(writer, batch);
    }
  }
  const std::uint64_t end = ts.size();
  for (std::uint64_t o = 0; o <= end; o += 1 + rng() % 5) {
    Reader reader = log.reader("t", 3, Start::at_offset(o));
    INFO("offset " << o);
    CHECK(reader.position() == o);
    const auto got = read_all(reader);
    REQUIRE(got.size() == end - o);
    if (!got.empty()) {
      CHECK(got.front().first == o);
      CHECK(got.front().second.bytes == payload(o));
    }
  }
  Reader reader = log.reader("t", 3, Start::at_offset(end));
  CHECK_FALSE(reader.next_batch());
  CHECK_THROWS_AS(log.reader("t", 3, Start::at_offset(end + 1)), OffsetOutOfRange);
  CHECK_THROWS_WITH(log.reader("t", 3, Start::at_offset(end + 1)),
                    Catch::Contains("partition t/3") && Catch::Contains("offset 601 is outside"));
  CHECK_THROWS_AS(reader.seek(end + 5), OffsetOutOfRange);
  CHECK(reader.position() == end);  // a failed seek leaves the reader where it was

  for (std::int64_t t = -50; t <= static_cast<std::int64_t>(end) * 5 + 50;
       t += 1 + static_cast<std::int64_t>(rng() % 9)) {
    const auto first = std::find_if(ts.begin(), ts.end(), [&](std::int64_t x) { return x >= t; });
    const std::uint64_t expected = static_cast<std::uint64_t>(first - ts.begin());
    Reader r = log.reader("t", 3, Start::at_timestamp(t));
    INFO("timestamp " << t);
    CHECK(r.position() == expected);
    auto batch = r.next_batch();
    if (expected == end) {
      CHECK_FALSE(batch);
    } else {
      REQUIRE(batch);
      CHECK(batch->base_offset() == expected);
      CHECK((*batch)[0].timestamp == ts[expected]);
    }
    r.seek_timestamp(t);
    CHECK(r.position() == expected);
  }
}

TEST_CASE("segments roll by the age of their timestamps", "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  WriterOptions o;
  o.segment_age = 1000;
  Writer writer = log.writer("s", 0, o);
  writer.append(5000, bytes_of("a"));
  writer.append(5999, bytes_of("b"));  // 999 after the segment's first: same segment
  CHECK(writer.stats().segments == 1);
  writer.append(6000, bytes_of("c"));  // 1000 after: a new segment
  CHECK(writer.stats().segments == 2);
  CHECK(fs->exists("/log/s/0/00000000000000000002.log"));
  writer.append(100, bytes_of("d"));  // an older timestamp never rolls
  CHECK(writer.stats().segments == 2);
}

TEST_CASE("retention deletes whole sealed segments by size and by age, never the active one",
          "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  SECTION("by size") {
    WriterOptions o = small_segments();
    o.retention.max_bytes = 3 * 4096;
    Writer writer = log.writer("s", 0, o);
    std::mt19937_64 rng(3);
    fill(writer, 0, 300, rng);
    const PartitionStats st = writer.stats();
    CHECK(st.bytes <= 3 * 4096);
    CHECK(st.first_offset > 0);
    CHECK(log.stats("s", 0).first_offset == st.first_offset);
    Reader reader = log.reader("s", 0, Start::beginning());
    check_all(reader, st.first_offset, 300);
    // One batch larger than the limit: the active segment alone is kept.
    const std::string big(5 * 4096, 'x');
    writer.append(0, bytes_of(big));
    writer.append(0, bytes_of("next"));
    CHECK(writer.stats().segments == 1);
    CHECK(writer.first_offset() == writer.end_offset() - 1);
  }
  SECTION("by age, against the partition's newest timestamp or a given now") {
    WriterOptions o;
    o.retention.max_age = 100;
    Writer writer = log.writer("s", 0, o);
    for (std::int64_t t : {0, 50, 120}) {
      writer.append(t, bytes_of("r"));
      writer.roll();
    }
    // Segments with largest timestamps 0, 50, 120 and an empty active one: at newest 120, the
    // segment at 0 is older than 100.
    CHECK(writer.first_offset() == 1);
    CHECK(writer.apply_retention(1000) == std::vector<std::uint64_t>{1, 2});
    CHECK(writer.first_offset() == 3);
    CHECK(writer.stats().segments == 1);
  }
}

TEST_CASE("a reader whose offsets retention deleted fails or moves on, as told", "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  WriterOptions o = small_segments();
  Writer writer = log.writer("s", 0, o);
  std::mt19937_64 rng(4);
  fill(writer, 0, 200, rng);
  std::vector<std::uint64_t> bases;
  for (const auto& name : fs->list("/log/s/0"))
    if (auto parsed = parse_segment_file_name(name); parsed && parsed->second == SegmentFile::log)
      bases.push_back(parsed->first);
  std::sort(bases.begin(), bases.end());
  REQUIRE(bases.size() > 4);
  const std::uint64_t first_end = bases[1];  // where the first segment ends
  // Both readers open the first segment now, before retention deletes it.
  Reader failing = log.reader("s", 0, Start::beginning());
  Reader skipping =
      log.reader("s", 0, Start::beginning(), {.on_deleted = ReaderOptions::Deleted::skip_to_first});
  o.retention.max_bytes = 2 * 4096;
  writer.close();
  writer = log.writer("s", 0, o);  // retention applies on opening
  const std::uint64_t first = writer.first_offset();
  REQUIRE(first > first_end);
  // A reader reads its open segment to the end, then finds the next one gone.
  std::uint64_t read = 0;
  try {
    while (auto batch = failing.next_batch()) read += batch->size();
    FAIL("the reader went past deleted offsets");
  } catch (const OffsetOutOfRange& e) {
    CHECK(e.requested() == first_end);
    CHECK(e.first() == first);
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("partition s/0") && Catch::Contains("retention deleted it"));
  }
  CHECK(read == first_end);
  const auto got = read_all(skipping);
  REQUIRE(got.size() == first_end + (200 - first));
  CHECK(got[first_end - 1].first == first_end - 1);
  CHECK(got[first_end].first == first);
  CHECK(skipping.offsets_missed() == first - first_end);
  CHECK_THROWS_AS(log.reader("s", 0, Start::at_offset(0)), OffsetOutOfRange);
  CHECK(log.reader("s", 0, Start::at_offset(0), {.on_deleted = ReaderOptions::Deleted::skip_to_first})
            .position() == first);
  Reader late = log.reader("s", 0, Start::beginning());
  CHECK(late.position() == first);
}

TEST_CASE("a second writer of a partition is refused, naming the partition and the holder",
          "[durable][log]") {
  TempDir dir("busy");
  Log log(dir.path());
  Writer first = log.writer("orders", 2);
  try {
    (void)log.writer("orders", 2);
    FAIL("a second writer was allowed");
  } catch (const WriterBusy& e) {
    CHECK(e.partition() == "orders/2");
    CHECK_THAT(e.holder(), Catch::StartsWith("pid " + std::to_string(::getpid()) + " on "));
    CHECK_THAT(std::string(e.what()), Catch::Contains("partition orders/2") &&
                                          Catch::Contains("writer.lock") &&
                                          Catch::Contains("has a writer already"));
  }
  Writer other = log.writer("orders", 3);  // another partition is free
  first.close();
  Writer second = log.writer("orders", 2);  // closing released it
  CHECK(second.end_offset() == 0);

  auto fs = std::make_shared<SimulatedFileSystem>();
  Log simulated("/log", {fs});
  Writer a = simulated.writer("s", 0);
  CHECK_THROWS_AS(simulated.writer("s", 0), WriterBusy);
}

TEST_CASE("consumers commit offsets durably", "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  Writer writer = log.writer("s", 0);
  std::mt19937_64 rng(5);
  fill(writer, 0, 50, rng);
  CHECK_FALSE(log.committed("s", 0, "billing"));
  Reader reader = log.reader("s", 0, Start::beginning());
  for (int i = 0; i < 3; ++i) reader.next_batch();
  reader.commit("billing");
  log.commit("s", 0, "audit", 17);
  fs->crash();  // a power loss keeps both commits
  Log again("/log", {fs});
  CHECK(again.committed("s", 0, "billing") == reader.position());
  CHECK(again.committed("s", 0, "audit") == 17u);
  CHECK(again.consumers("s", 0) == std::vector<std::string>{"audit", "billing"});
  // A commit that fails at its rename leaves the previous one.
  fs->inject({.operation = SimulatedFileSystem::Operation::rename, .error = EIO});
  CHECK_THROWS_WITH(again.commit("s", 0, "audit", 40),
                    Catch::Contains("partition s/0") && Catch::Contains("Input/output error"));
  fs->crash();
  CHECK(again.committed("s", 0, "audit") == 17u);
  CHECK_THROWS_AS(again.commit("s", 0, "../x", 1), ArgumentError);
  // A damaged offset file is named.
  fs->flip_bit("/log/s/0/consumers/audit.offset", 9, 2);
  CHECK_THROWS_AS(again.committed("s", 0, "audit"), CorruptionError);
  CHECK_THROWS_WITH(again.committed("s", 0, "audit"), Catch::Contains("audit.offset"));
}

TEST_CASE("streams and partitions are listed, bad names and missing partitions refused by name",
          "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/data/log", {fs});
  log.create_stream("orders", 3);
  log.create_stream("clicks", 1);
  fs->create_directory("/data/log/.trash");
  CHECK(log.streams() == std::vector<std::string>{"clicks", "orders"});
  CHECK(log.partitions("orders") == std::vector<std::uint32_t>{0, 1, 2});
  CHECK_THROWS_WITH(log.partitions("nope"), Catch::Contains("stream 'nope' does not exist"));
  CHECK_THROWS_WITH(log.writer("a b", 0), Catch::Contains("stream name 'a b'"));
  CHECK_THROWS_WITH(log.reader("orders", 7, Start::beginning()),
                    Catch::Contains("partition orders/7") && Catch::Contains("does not exist"));
  CHECK_THROWS_AS(log.writer("orders", 7, {.create = false}), ArgumentError);
  CHECK_THROWS_WITH(log.writer("orders", 0, {.segment_bytes = 10}), Catch::Contains("segment_bytes 10"));
  CHECK_THROWS_AS(Log("/nowhere", {fs, false}), ArgumentError);
  CHECK_THROWS_WITH(Log("", {fs}), Catch::Contains("empty path"));
  CHECK_THROWS_WITH(log.create_stream("none", 0), Catch::Contains("0 partitions"));
  CHECK_FALSE(fs->exists("/data/log/none"));
  // Input quoted in messages: control bytes escaped, long input cut.
  CHECK_THROWS_WITH(log.writer("a\x1b[31mred", 0), Catch::Contains("'a\\x1b[31mred'"));
  CHECK_THROWS_WITH(log.partitions(std::string(5000, '/')),
                    Catch::Contains("... (5000 bytes)") && !Catch::Contains(std::string(100, '/')));
  CHECK_THROWS_WITH(log.commit("orders", 0, "bad\nname", 1), Catch::Contains("'bad\\x0aname'"));
  // A reader of a partition no writer has opened yet sees nothing, then what is appended.
  Reader reader = log.reader("orders", 1, Start::beginning());
  CHECK_FALSE(reader.next_batch());
  Writer writer = log.writer("orders", 1);
  writer.append(1, bytes_of("first"));
  auto batch = reader.next_batch();
  REQUIRE(batch);
  CHECK((*batch)[0].text() == "first");
}

TEST_CASE("recovery cuts a torn or damaged tail at the last valid batch", "[durable][log][recovery]") {
  TempDir dir("tail");
  Log log(dir.path());
  std::mt19937_64 rng(6);
  {
    Writer writer = log.writer("s", 0);
    fill(writer, 0, 30, rng);
  }
  const auto segment = dir.path() / "s" / "0" / "00000000000000000000.log";
  const auto size = std::filesystem::file_size(segment);
  SECTION("a batch cut short") {
    Writer writer = log.writer("s", 0);
    append(writer, deterministic(30, 33));
    writer.close();
    std::filesystem::resize_file(segment, std::filesystem::file_size(segment) - 9);
    Writer again = log.writer("s", 0);
    const auto& report = again.recovery();
    REQUIRE(report.cut);
    CHECK(report.cut->byte_offset == size);
    CHECK(report.cut->records == 3);
    CHECK(report.cut->segment == segment);
    CHECK_THAT(report.cut->reason, Catch::Contains("torn batch"));
    CHECK(std::filesystem::file_size(segment) == size);
    CHECK(again.end_offset() == 30);
    append(again, deterministic(30, 40));
    again.close();
    Reader reader = log.reader("s", 0, Start::beginning());
    check_all(reader, 0, 40);
  }
  SECTION("a batch torn inside its header") {
    Writer writer = log.writer("s", 0);
    append(writer, deterministic(30, 33));
    writer.close();
    std::filesystem::resize_file(segment, size + 20);
    Writer again = log.writer("s", 0);
    REQUIRE(again.recovery().cut);
    CHECK(again.recovery().cut->bytes == 20);
    CHECK_THAT(again.recovery().cut->reason,
               Catch::Equals("a torn batch header: 20 of its 64 bytes in the file"));
    CHECK(again.end_offset() == 30);
  }
  SECTION("zeros after the last batch, as a power loss leaves them") {
    {
      std::ofstream out(segment, std::ios::app | std::ios::binary);
      const std::string zeros(1000, '\0');
      out << zeros;
    }
    Writer again = log.writer("s", 0);
    REQUIRE(again.recovery().cut);
    CHECK(again.recovery().cut->bytes == 1000);
    CHECK(again.recovery().cut->records == 0);
    CHECK(again.end_offset() == 30);
  }
  SECTION("a flipped bit in the last batch, and the intact batch after it") {
    Writer writer = log.writer("s", 0);
    append(writer, deterministic(30, 32));
    append(writer, deterministic(32, 35));
    writer.close();
    {
      std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size + 70));
      f.put('\x5a');
    }
    Writer again = log.writer("s", 0);
    REQUIRE(again.recovery().cut);
    CHECK(again.recovery().cut->byte_offset == size);
    CHECK(again.recovery().cut->records == 2 + 3);
    CHECK_THAT(again.recovery().cut->reason, Catch::Contains("checksum"));
    CHECK(again.end_offset() == 30);
    CHECK(to_string(again.recovery()).find("cut '") != std::string::npos);
  }
  CHECK(log.verify("s", 0).ok());
}

TEST_CASE("recovery rebuilds missing and stale indexes and removes orphaned ones",
          "[durable][log][recovery]") {
  TempDir dir("indexes");
  Log log(dir.path());
  std::mt19937_64 rng(8);
  {
    Writer writer = log.writer("s", 0, small_segments());
    fill(writer, 0, 200, rng);
  }
  const auto pdir = dir.path() / "s" / "0";
  const auto sealed = pdir / "00000000000000000000.index";
  const auto sealed_time = pdir / "00000000000000000000.timeindex";
  std::filesystem::remove(sealed);
  { std::ofstream(sealed_time, std::ios::app | std::ios::binary) << "junk!!!!"; }
  { std::ofstream(pdir / "00000000000099999999.index") << "left over"; }
  const VerifyReport before = log.verify("s", 0);
  CHECK_FALSE(before.ok());
  CHECK(to_string(before).find("index file is missing") != std::string::npos);
  Writer writer = log.writer("s", 0, small_segments());
  const auto& report = writer.recovery();
  INFO(to_string(report));
  CHECK(std::count(report.indexes_rebuilt.begin(), report.indexes_rebuilt.end(), sealed) == 1);
  CHECK(std::count(report.indexes_rebuilt.begin(), report.indexes_rebuilt.end(), sealed_time) == 1);
  CHECK(report.removed == std::vector<std::filesystem::path>{pdir / "00000000000099999999.index"});
  CHECK_FALSE(report.cut);
  const VerifyReport after = log.verify("s", 0);
  INFO(to_string(after));
  CHECK(after.ok());
  Reader reader = log.reader("s", 0, Start::at_offset(57));
  check_all(reader, 57, 200);
}

TEST_CASE("damage in a sealed segment: readers fail or skip it, verify and recovery report it",
          "[durable][log][corruption]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  std::mt19937_64 rng(9);
  {
    Writer writer = log.writer("s", 0, small_segments());
    fill(writer, 0, 200, rng);
  }
  const std::filesystem::path first = "/log/s/0/00000000000000000000.log";
  REQUIRE(fs->exists("/log/s/0/00000000000000000000.index"));
  const auto bytes = fs->read_file(first);
  // A bit in the middle of the first segment: a batch whose checksum fails.
  const std::uint64_t at = bytes.size() / 2;
  fs->flip_bit(first, at, 3);

  Reader failing = log.reader("s", 0, Start::beginning());
  std::uint64_t delivered = 0;
  try {
    while (auto batch = failing.next_batch()) delivered += batch->size();
    FAIL("the damaged batch was not reported");
  } catch (const CorruptionError& e) {
    CHECK(e.partition() == "s/0");
    CHECK(e.file() == first);
    REQUIRE(e.byte_offset());
    CHECK(*e.byte_offset() <= at);
    CHECK_THAT(std::string(e.what()), Catch::Contains("partition s/0") &&
                                          Catch::Contains("00000000000000000000.log") &&
                                          Catch::Contains("checksum"));
  }
  const auto stuck = failing.position();
  CHECK(stuck == delivered);
  CHECK_THROWS_AS(failing.next_batch(), CorruptionError);  // again, from the same place
  CHECK(failing.position() == stuck);

  // A seek by timestamp that has to read the damaged batch throws and leaves the reader where
  // it was (every record up to `stuck` has a timestamp below this one).
  Reader seeking = log.reader("s", 0, Start::beginning());
  CHECK_THROWS_AS(seeking.seek_timestamp(timestamp_of(stuck) + 23), CorruptionError);
  CHECK(seeking.position() == 0);
  const auto first_batch = seeking.next_batch();
  REQUIRE(first_batch);
  CHECK(first_batch->base_offset() == 0);

  Reader skipping =
      log.reader("s", 0, Start::beginning(), {.on_corruption = ReaderOptions::Corruption::skip});
  const auto got = read_all(skipping);
  REQUIRE(skipping.skipped().size() == 1);
  const CorruptionReport& skipped = skipping.skipped().front();
  CHECK(skipped.file == first);
  CHECK(skipped.lost_begin == stuck);
  CHECK(skipped.lost_end > stuck);
  CHECK(got.size() == 200 - (skipped.lost_end - skipped.lost_begin));
  for (const auto& [offset, record] : got) CHECK(record.bytes == payload(offset));
  CHECK(got.back().first == 199);

  const VerifyReport verified = log.verify("s", 0);
  INFO(to_string(verified));
  REQUIRE(verified.problems.size() == 1);
  CHECK(verified.problems.front().byte_offset == skipped.byte_offset);

  // The index of that segment is stale now: recovery rebuilds it and reports the damage.
  fs->write_file("/log/s/0/00000000000000000000.index", {});
  Writer writer = log.writer("s", 0, small_segments());
  REQUIRE(writer.recovery().corruption.size() == 1);
  CHECK(writer.recovery().corruption.front().byte_offset == skipped.byte_offset);
  CHECK(writer.end_offset() == 200);  // a sealed segment is never cut
}

TEST_CASE("a commit that fails leaves no temporary file, and the last commit stands",
          "[durable][log][errors]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  log.create_stream("s", 1);
  log.commit("s", 0, "c", 5);
  for (const auto op : {SimulatedFileSystem::Operation::write, SimulatedFileSystem::Operation::sync}) {
    fs->inject({.operation = op, .error = ENOSPC, .path_contains = ".tmp"});
    CHECK_THROWS_AS(log.commit("s", 0, "c", 9), IoError);
    fs->clear_faults();
    CHECK(fs->list("/log/s/0/consumers") == std::vector<std::string>{"c.offset"});
    CHECK(log.committed("s", 0, "c") == 5);
  }
}

TEST_CASE("a FIFO where a segment belongs is reported, not waited on", "[durable][log][errors]") {
  TempDir dir("fifo");
  Log log(dir.path() / "log");
  {
    Writer writer = log.writer("s", 0);
    writer.append(1, bytes_of("one"));
  }
  const auto segment = dir.path() / "log" / "s" / "0" / "00000000000000000000.log";
  std::filesystem::remove(segment);
  REQUIRE(::mkfifo(segment.c_str(), 0644) == 0);
  CHECK_THROWS_WITH(log.reader("s", 0, Start::beginning()),
                    Catch::Contains("00000000000000000000.log") && Catch::Contains("not a regular file"));
  CHECK_THROWS_AS(log.stats("s", 0), CorruptionError);
  CHECK_THROWS_AS(log.writer("s", 0), CorruptionError);
  // A FIFO as the partition's lock file: reported as such, not as a failed ftruncate.
  const auto lock = dir.path() / "log" / "s" / "0" / "writer.lock";
  std::filesystem::remove(lock);
  REQUIRE(::mkfifo(lock.c_str(), 0644) == 0);
  CHECK_THROWS_WITH(log.writer("s", 0),
                    Catch::Contains("writer.lock") && Catch::Contains("not a regular file"));
}

TEST_CASE("a write past the file size limit (ulimit -f) fails with EFBIG, not SIGXFSZ",
          "[durable][log][errors]") {
  TempDir dir("fsize");
  Log log(dir.path() / "log");
  rlimit saved{};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
  rlimit lowered = saved;
  lowered.rlim_cur = 8192;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &lowered) == 0);
  std::uint64_t appended = 0;
  std::string error;
  try {
    Writer writer = log.writer("s", 0, {.durability = Durability::os()});
    const std::string record(1000, 'r');
    for (int i = 0; i < 100; ++i) {
      writer.append(i, bytes_of(record));
      ++appended;
    }
  } catch (const IoError& e) {
    error = e.what();
    CHECK(e.code() == std::errc::file_too_large);
  }
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &saved) == 0);
  INFO(error);
  CHECK_THAT(error, Catch::Contains("partition s/0") && Catch::Contains("File too large"));
  CHECK(appended > 0);
  CHECK(appended < 10);
  // What was appended before the limit is all there.
  Writer again = log.writer("s", 0);
  CHECK(again.end_offset() == appended);
}

TEST_CASE("I/O errors name the partition, the file and the system's reason", "[durable][log][errors]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  Writer writer = log.writer("s", 0);
  writer.append(1, bytes_of("one"));
  fs->inject({.operation = SimulatedFileSystem::Operation::write,
              .error = ENOSPC,
              .path_contains = ".log",
              .partial_bytes = 30});
  try {
    writer.append(2, bytes_of("two"));
    FAIL("the full disk went unnoticed");
  } catch (const IoError& e) {
    CHECK(e.code() == std::errc::no_space_on_device);
    CHECK(e.partition() == "s/0");
    CHECK_THAT(std::string(e.what()),
               Catch::Contains("partition s/0") && Catch::Contains("00000000000000000000.log") &&
                   Catch::Contains("No space left on device") && Catch::Contains("write"));
  }
  // The partial write was taken back: the next append continues from the valid end.
  CHECK(writer.append(3, bytes_of("three")) == 1);
  fs->inject({.operation = SimulatedFileSystem::Operation::sync, .error = EIO});
  CHECK_THROWS_WITH(writer.append(4, bytes_of("four")),
                    Catch::Contains("fdatasync") && Catch::Contains("Input/output error"));
  // After a failed sync the writer stops; reopening recovers.
  CHECK_THROWS_WITH(writer.append(5, bytes_of("five")), Catch::Contains("fdatasync"));
  CHECK_THROWS_AS(log.writer("s", 0), WriterBusy);  // the stopped writer holds the partition
  // close() throws the failure too (a failed writer vouches for nothing), but releases the lock.
  CHECK_THROWS_WITH(writer.close(), Catch::Contains("partition s/0") && Catch::Contains("fdatasync"));
  Writer again = log.writer("s", 0);
  CHECK(again.end_offset() == 3);  // "four" is there: its write succeeded, only its sync failed
}

TEST_CASE("a reader past damage that recovery then cuts meets it as damage", "[durable][log][corruption]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  std::optional<Writer> writer(log.writer("s", 0));
  for (std::uint64_t o = 0; o < 8; o += 2) append(*writer, deterministic(o, o + 2));
  const std::filesystem::path segment = "/log/s/0/00000000000000000000.log";
  // Damage in the second batch of the active segment.
  std::uint64_t second = 0;
  {
    Reader probe = log.reader("s", 0, Start::beginning());
    second = probe.next_batch()->bytes().size();
  }
  fs->flip_bit(segment, second + 70, 1);
  Reader skipping =
      log.reader("s", 0, Start::beginning(), {.on_corruption = ReaderOptions::Corruption::skip});
  Reader failing = log.reader("s", 0, Start::beginning());
  CHECK(read_all(skipping).size() == 6);  // the damaged batch's 2 records are skipped
  CHECK(skipping.position() == 8);
  REQUIRE(failing.next_batch());
  writer.reset();
  writer.emplace(log.writer("s", 0));  // recovery cuts at the damage: offsets 2 on are gone
  REQUIRE(writer->recovery().cut);
  CHECK(writer->end_offset() == 2);
  CHECK(read_all(failing).empty());  // it stopped before the damage: the cut is its end
  CHECK(read_all(skipping).empty());
  CHECK_THAT(skipping.skipped().back().reason, Catch::Contains("was cut at byte"));
  for (std::uint64_t o = 2; o < 12; ++o) append(*writer, {{timestamp_of(o), "new " + std::to_string(o)}});
  const auto rest = read_all(skipping);  // it goes on from its position, 8
  REQUIRE(rest.size() == 4);
  CHECK(rest.front().first == 8);
  CHECK(rest.front().second.bytes == "new 8");
  const auto all = read_all(failing);
  REQUIRE(all.size() == 10);
  CHECK(all.front().second.bytes == "new 2");
}

TEST_CASE("every member of a moved-from writer or reader throws ArgumentError, accessors included",
          "[durable][log]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  log.create_stream("s", 1);
  const auto moved_from = [](const std::string& what) { return Catch::Contains("a moved-from " + what); };
  Writer writer = log.writer("s", 0);
  REQUIRE(append(writer, deterministic(0, 3)) == 0);
  Writer taken = std::move(writer);
  CHECK(taken.end_offset() == 3);
  CHECK_THROWS_AS(writer.end_offset(), ArgumentError);  // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_WITH(writer.end_offset(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.first_offset(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.stats(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.recovery(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.partition(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.append(deterministic(3, 4)[0].timestamp, bytes_of("x")), moved_from("writer"));
  CHECK_THROWS_WITH(writer.sync(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.roll(), moved_from("writer"));
  CHECK_THROWS_WITH(writer.apply_retention(), moved_from("writer"));
  CHECK_NOTHROW(writer.close());  // a moved-from writer has nothing to close

  Reader reader = log.reader("s", 0, Start::beginning());
  Reader other = std::move(reader);
  CHECK(other.position() == 0);
  CHECK_THROWS_AS(reader.position(), ArgumentError);  // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_WITH(reader.position(), moved_from("reader"));
  CHECK_THROWS_WITH(reader.skipped(), moved_from("reader"));
  CHECK_THROWS_WITH(reader.offsets_missed(), moved_from("reader"));
  CHECK_THROWS_WITH(reader.partition(), moved_from("reader"));
  CHECK_THROWS_WITH(reader.next_batch(), moved_from("reader"));
  CHECK_THROWS_WITH(reader.next_batch(std::chrono::milliseconds(1)), moved_from("reader"));
  CHECK_THROWS_WITH(reader.wait(std::chrono::milliseconds(1)), moved_from("reader"));
  CHECK_THROWS_WITH(reader.seek(0), moved_from("reader"));
  CHECK_THROWS_WITH(reader.seek_timestamp(0), moved_from("reader"));
  CHECK_THROWS_WITH(reader.commit("c"), moved_from("reader"));
  taken.close();
}
