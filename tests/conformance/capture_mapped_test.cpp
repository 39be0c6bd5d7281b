// Columnar batches in the event format and the mapped reader (capture/frames.hpp,
// capture/mapped.hpp): batches start 8-byte aligned in the file; the mapped reader reads what the
// streaming reader reads, its columnar batches borrowing the mapping; anything that cannot be
// mapped, and every truncation and corruption of a mapped file, is a FormatError naming the file
// and the byte offset, the same as the streaming reader reports (randomized with printed seeds).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/mapped.hpp>
#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/container/columnar.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
using Kind = cap::FormatErrorKind;
using Time = std::uint64_t;
using Bytes = std::vector<std::uint8_t>;
using P = std::pair<std::uint64_t, std::string>;
using ColC = timely::container::columnar::Batch<P>;
using ColEvent = cap::EventCore<Time, ColC>;

namespace {

ColC batch_of(std::initializer_list<P> records) {
  ColC batch;
  for (const auto& r : records) batch.push_into(r);
  return batch;
}

/// A valid columnar stream, the offsets at which its events start (the last entry: its
/// length), and the events.
struct ColumnarSample {
  Bytes bytes;
  std::vector<std::size_t> boundaries;
  std::vector<ColEvent> events;
};

ColumnarSample columnar_sample() {
  ColumnarSample s;
  s.events.emplace_back(cap::ProgressEvent<Time>{{{0, -1}, {2, 1}}});
  s.events.emplace_back(
      cap::MessagesEventCore<Time, ColC>{2, batch_of({{1, "alpha"}, {2, ""}, {3, "beta"}})});
  s.events.emplace_back(cap::MessagesEventCore<Time, ColC>{2, batch_of({{7, "a somewhat longer string"}})});
  s.events.emplace_back(cap::ProgressEvent<Time>{{{2, -1}, {5, 1}}});
  s.events.emplace_back(cap::MessagesEventCore<Time, ColC>{5, batch_of({{9, "x"}, {10, "yz"}})});
  s.events.emplace_back(cap::MessagesEventCore<Time, ColC>{5, ColC{}});
  s.events.emplace_back(cap::ProgressEvent<Time>{{{5, -1}}});
  std::ostringstream out;
  cap::EventWriterCore<Time, ColC> writer(out);
  for (const auto& e : s.events) {
    s.boundaries.push_back(writer.offset());
    writer.push(e);
  }
  s.boundaries.push_back(writer.offset());
  writer.flush();
  const std::string str = out.str();
  s.bytes.assign(str.begin(), str.end());
  return s;
}

void write_file(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::uint64_t load_u64(const Bytes& b, std::size_t at) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

void fix_frame_crc(Bytes& b, std::size_t at) {
  const std::uint64_t len = load_u64(b, at + 1);
  std::uint32_t crc = cap::crc32(std::span<const std::uint8_t>(b.data() + at, 9));
  crc = cap::crc32(std::span<const std::uint8_t>(b.data() + at + 13, len), crc);
  for (std::size_t i = 0; i < 4; ++i) b[at + 9 + i] = static_cast<std::uint8_t>(crc >> (8 * i));
}

/// What reading a stream to its end gave: the events, or the error's kind, offset and source.
struct Outcome {
  std::vector<ColEvent> events;
  bool failed = false;
  Kind kind{};
  std::uint64_t offset = 0;
  std::string source;
  std::string what;
};

Outcome read_mapped(const std::filesystem::path& path) {
  Outcome out;
  try {
    auto reader = cap::MappedEventReaderCore<Time, ColC>::open(path);
    while (auto e = reader.next()) out.events.push_back(std::move(*e));
    CHECK(reader.exhausted());
  } catch (const cap::FormatError& e) {
    out.failed = true;
    out.kind = e.kind();
    out.offset = e.offset();
    out.source = e.source();
    out.what = e.what();
  }
  return out;
}

Outcome read_streamed(const Bytes& bytes) {
  Outcome out;
  try {
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    cap::EventReaderCore<Time, ColC> reader(in);
    while (auto e = reader.next()) out.events.push_back(std::move(*e));
  } catch (const cap::FormatError& e) {
    out.failed = true;
    out.kind = e.kind();
    out.offset = e.offset();
    out.what = e.what();
  }
  return out;
}

/// The mapped reader failed as the streaming reader did, naming the file and the offset.
void check_same_failure(const Outcome& mapped, const Outcome& streamed, const std::filesystem::path& path) {
  INFO("mapped: " << mapped.what << "\nstreamed: " << streamed.what);
  REQUIRE(mapped.failed);
  REQUIRE(streamed.failed);
  CHECK(mapped.kind == streamed.kind);
  CHECK(mapped.offset == streamed.offset);
  CHECK(mapped.source == path.string());
  CHECK_THAT(mapped.what, Catch::Contains("'" + path.string() + "'"));
  CHECK_THAT(mapped.what, Catch::Contains("byte offset " + std::to_string(mapped.offset)));
}

}  // namespace

TEST_CASE("a columnar batch is written 8-byte aligned in the file, as the batch serializes itself",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  std::size_t messages = 0;
  for (std::size_t e = 0; e < s.events.size(); ++e) {
    const auto* batch = std::get_if<cap::MessagesEventCore<Time, ColC>>(&s.events[e]);
    if (!batch) continue;
    ++messages;
    INFO("event " << e << " at offset " << s.boundaries[e]);
    const std::size_t at = s.boundaries[e];
    REQUIRE(s.bytes[at] == 2);
    const std::size_t body = at + 13;
    CHECK(load_u64(s.bytes, body) == batch->time);
    const std::size_t after_time = body + 8;
    const std::size_t length_at = (after_time + 7) / 8 * 8;
    for (std::size_t i = after_time; i < length_at; ++i) CHECK(s.bytes[i] == 0);
    Bytes expected;
    batch->data.append_to(expected);
    CHECK(load_u64(s.bytes, length_at) == expected.size());
    const std::size_t start = length_at + 8;
    CHECK(start % 8 == 0);
    CHECK(Bytes(s.bytes.begin() + static_cast<std::ptrdiff_t>(start),
                s.bytes.begin() + static_cast<std::ptrdiff_t>(start + expected.size())) == expected);
    CHECK(start + expected.size() == s.boundaries[e + 1]);  // the batch ends the body
    CHECK(load_u64(s.bytes, at + 1) == s.boundaries[e + 1] - body);
  }
  CHECK(messages == 4);
  // The frames start at offsets of every residue: the padding differs from frame to frame.
  std::vector<std::size_t> residues;
  for (std::size_t e = 0; e < s.events.size(); ++e) residues.push_back((s.boundaries[e] + 21) % 8);
  std::sort(residues.begin(), residues.end());
  CHECK(std::unique(residues.begin(), residues.end()) - residues.begin() > 1);
}

TEST_CASE("the mapped reader reads what the streaming reader reads, borrowing the mapping",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  capture_test::TempDir dir;
  const auto path = dir.file("sample.events");
  write_file(path, s.bytes);
  std::vector<ColC> kept;
  {
    auto reader = cap::MappedEventReaderCore<Time, ColC>::open(path);
    const void* mapping = reader.mapping().get();
    CHECK(reader.path() == path.string());
    std::vector<ColEvent> events;
    while (auto e = reader.next()) {
      CHECK(reader.event_offset() == s.boundaries[events.size()]);
      events.push_back(std::move(*e));
    }
    CHECK(reader.exhausted());
    CHECK(reader.offset() == s.bytes.size());
    CHECK(events == s.events);
    for (auto& e : events)
      if (auto* m = std::get_if<cap::MessagesEventCore<Time, ColC>>(&e)) {
        if (m->data.empty()) continue;
        CHECK(m->data.borrowed());
        CHECK(m->data.owner().get() == mapping);
        kept.push_back(m->data);
      }
    CHECK(read_streamed(s.bytes).events == s.events);
  }
  // The reader is gone; the batches keep the mapping alive.
  REQUIRE(kept.size() == 3);
  CHECK(kept[0] == batch_of({{1, "alpha"}, {2, ""}, {3, "beta"}}));
  CHECK(kept[2] == batch_of({{9, "x"}, {10, "yz"}}));
  CHECK(kept[1][0] == std::tuple<std::uint64_t, std::string_view>{7, "a somewhat longer string"});

  // Vector files read through a mapping too.
  const auto vpath = dir.file("vector.events");
  {
    auto writer = cap::EventWriter<Time, std::string>::create(vpath);
    writer.push(cap::ProgressEvent<Time>{{{0, -1}, {1, 1}}});
    writer.push(cap::MessagesEvent<Time, std::string>{1, {"one", "", "three"}});
    writer.push(cap::ProgressEvent<Time>{{{1, -1}}});
  }
  auto vreader = cap::MappedEventReader<Time, std::string>::open(vpath);
  std::vector<cap::Event<Time, std::string>> vevents;
  while (auto e = vreader.next()) vevents.push_back(std::move(*e));
  REQUIRE(vevents.size() == 3);
  CHECK(std::get<cap::MessagesEvent<Time, std::string>>(vevents[1]).data ==
        std::vector<std::string>{"one", "", "three"});
}

TEST_CASE("what cannot be mapped, or is not a stream of the reader's types, is an error naming the file",
          "[capture][format][containers]") {
  capture_test::TempDir dir;
  const auto expect = [](const std::filesystem::path& path, Kind kind, std::uint64_t offset,
                         const char* says) {
    INFO(path);
    try {
      auto reader = cap::MappedEventReaderCore<Time, ColC>::open(path);
      while (reader.next()) {
      }
      FAIL("no error");
    } catch (const cap::FormatError& e) {
      INFO(e.what());
      CHECK(e.kind() == kind);
      CHECK(e.offset() == offset);
      CHECK(e.source() == path.string());
      CHECK_THAT(e.what(), Catch::Contains("'" + path.string() + "'"));
      CHECK_THAT(e.what(), Catch::Contains(says));
    }
  };
  expect(dir.file("absent.events"), Kind::Io, 0, "No such file or directory");
  std::filesystem::create_directories(dir.file("a-directory"));
  expect(dir.file("a-directory"), Kind::Io, 0, "not a regular file");
  write_file(dir.file("empty.events"), {});
  expect(dir.file("empty.events"), Kind::Truncated, 0, "stream header");
  { auto writer = cap::EventWriter<Time, P>::create(dir.file("vector.events")); }
  expect(dir.file("vector.events"), Kind::SchemaMismatch, 23, "columnar<");
}

TEST_CASE("every truncation of a mapped file is detected or ends at an event boundary",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  capture_test::TempDir dir;
  const auto path = dir.file("cut.events");
  for (std::size_t len = 0; len < s.bytes.size(); ++len) {
    INFO("length " << len);
    const Bytes b(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(len));
    write_file(path, b);
    const auto mapped = read_mapped(path);
    const auto boundary = std::find(s.boundaries.begin(), s.boundaries.end(), len);
    if (boundary != s.boundaries.end()) {
      CHECK(!mapped.failed);
      CHECK(mapped.events ==
            std::vector<ColEvent>(s.events.begin(), s.events.begin() + (boundary - s.boundaries.begin())));
    } else {
      check_same_failure(mapped, read_streamed(b), path);
      CHECK(mapped.kind == Kind::Truncated);
      CHECK(mapped.offset == len);
    }
  }
}

TEST_CASE("every single-byte change of a mapped file is detected, as the streaming reader detects it",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  capture_test::TempDir dir;
  const auto path = dir.file("flipped.events");
  const std::uint32_t seed = 0x5eed0001;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> mask(1, 255);
  for (std::size_t i = 0; i < s.bytes.size(); ++i) {
    Bytes b = s.bytes;
    const int m = mask(rng);
    b[i] = static_cast<std::uint8_t>(b[i] ^ m);
    INFO("byte " << i << " xor " << m);
    write_file(path, b);
    check_same_failure(read_mapped(path), read_streamed(b), path);
  }
}

TEST_CASE("corrupt columnar batches under valid checksums are rejected or read, never out of bounds",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  capture_test::TempDir dir;
  const auto path = dir.file("forged.events");
  const std::uint32_t seed = 0x5eed0002;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> mask(1, 255);
  std::size_t rejected = 0, read = 0;
  for (std::size_t e = 0; e < s.events.size(); ++e) {
    if (!std::holds_alternative<cap::MessagesEventCore<Time, ColC>>(s.events[e])) continue;
    const std::size_t at = s.boundaries[e];
    for (std::size_t i = at + 13; i < s.boundaries[e + 1]; ++i) {
      for (int round = 0; round < 2; ++round) {
        Bytes b = s.bytes;
        const int m = mask(rng);
        b[i] = static_cast<std::uint8_t>(b[i] ^ m);
        fix_frame_crc(b, at);
        INFO("event " << e << ", byte " << i << " xor " << m);
        write_file(path, b);
        const auto mapped = read_mapped(path);
        const auto streamed = read_streamed(b);
        if (mapped.failed) {
          check_same_failure(mapped, streamed, path);
          CHECK(mapped.kind == Kind::BadPayload);
          CHECK(mapped.offset >= at + 13);
          CHECK(mapped.offset <= s.boundaries[e + 1]);
          ++rejected;
        } else {
          CHECK(!streamed.failed);
          CHECK(mapped.events == streamed.events);
          CHECK(mapped.events.size() == s.events.size());
          ++read;
        }
      }
    }
  }
  // Headers, lengths and padding are checked; string bytes and keys may take any value.
  CHECK(rejected > 0);
  CHECK(read > 0);
  // The batch's magic word is always checked.
  const std::size_t first = s.boundaries[1];
  const std::size_t start = (first + 21 + 7) / 8 * 8 + 8;  // after the time, the padding and the length
  for (std::size_t i : {start, start + 3}) {
    Bytes b = s.bytes;
    b[i] ^= 0x10;
    fix_frame_crc(b, first);
    write_file(path, b);
    const auto mapped = read_mapped(path);
    CHECK(mapped.failed);
    CHECK(mapped.kind == Kind::BadPayload);
    CHECK_THAT(mapped.what, Catch::Contains("columnar"));
  }
}

TEST_CASE("replaying a mapped file that ends before the stream completes names the file",
          "[capture][format][containers]") {
  const ColumnarSample s = columnar_sample();
  capture_test::TempDir dir;
  const auto path = dir.file("incomplete.events");
  write_file(path, Bytes(s.bytes.begin(), s.bytes.begin() + static_cast<std::ptrdiff_t>(s.boundaries[6])));
  try {
    timely::execute_directly([&](timely::Worker& worker) {
      worker.dataflow<Time>(
          [&](auto& scope) { replay_into(scope, cap::MappedEventReaderCore<Time, ColC>::open(path)); });
    });
    FAIL("no error");
  } catch (const cap::FormatError& e) {
    INFO(e.what());
    CHECK(e.kind() == Kind::Incomplete);
    CHECK(e.offset() == s.boundaries[6]);
    CHECK(e.source() == path.string());
  }
}
