// fuzz_durable: a libFuzzer target for the durable log's segment and index readers
// (timely/durable/reader.hpp, log.hpp, format.hpp), on a partition built from the input in a
// SimulatedFileSystem (layout in durable_input.hpp).
//
// On every input: the decoders run on the raw bytes; Log::verify and Log::stats read the
// partition; a reader that skips damage reads it whole (offsets must rise, every record's bytes
// are touched, so the sanitizers see any access outside the batch); a reader that fails on
// damage reads until CorruptionError; readers start at offsets and timestamps taken from the
// input. The only acceptable exceptions are CorruptionError and OffsetOutOfRange. Then a
// writer opens the partition (recovery): when the input was the only segment, everything left
// must read back with no damage and verify clean; an append must read back after it. Anything
// else aborts.
//
// Build: cmake -DTIMELY_BUILD_FUZZ=ON with clang (scripts/fuzz.sh does it all).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

#include "durable_input.hpp"

namespace {

namespace d = timely::durable;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_durable: %s\n", what.c_str());
  std::abort();
}

std::uint64_t touch(const d::BatchView& batch) {
  std::uint64_t sum = batch.header().checksum;
  for (auto record : batch) {
    sum += static_cast<std::uint64_t>(record.timestamp);
    for (std::byte b : record.bytes) sum += static_cast<std::uint64_t>(b);
  }
  return sum;
}

// Reads to the end; returns the offsets read. Offsets must rise.
std::uint64_t read_through(d::Reader& reader) {
  std::uint64_t records = 0;
  std::uint64_t next = reader.position();
  while (auto batch = reader.next_batch()) {
    if (batch->base_offset() < next)
      finding("a reader went back to offset " + std::to_string(batch->base_offset()));
    if (batch->empty()) finding("a reader handed out an empty batch");
    next = batch->end_offset();
    records += batch->size();
    (void)touch(*batch);
  }
  return records;
}

template <class F>
void tolerating_damage(const char* what, F&& f) {
  try {
    f();
  } catch (const d::CorruptionError&) {
  } catch (const d::OffsetOutOfRange&) {
  } catch (const std::exception& e) {
    finding(std::string(what) + " threw " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::byte> input(reinterpret_cast<const std::byte*>(data), size);
  const durable_fuzz::Files files = durable_fuzz::split(input);
  std::string reason;
  (void)d::check_batch(input);
  (void)d::decode_index_header(files.index, d::SegmentFile::index, &reason);
  (void)d::decode_index_header(files.timeindex, d::SegmentFile::timeindex, &reason);
  (void)d::decode_consumer_offset(input, &reason);

  auto fs = std::make_shared<d::SimulatedFileSystem>();
  d::Log log("/log", {fs});
  log.create_stream("s", 1);
  const std::filesystem::path dir = "/log/s/0";
  const bool sealed = (files.flags & durable_fuzz::kSealedThenActive) != 0;
  fs->write_file(dir / d::segment_file_name(0, d::SegmentFile::log), files.log);
  if ((files.flags & durable_fuzz::kNoIndexes) == 0) {
    fs->write_file(dir / d::segment_file_name(0, d::SegmentFile::index), files.index);
    fs->write_file(dir / d::segment_file_name(0, d::SegmentFile::timeindex), files.timeindex);
  }
  if (sealed) {
    // An active segment after it, holding one valid batch: at the end offset a sealed index
    // header names (where it belongs), else at 64.
    std::uint64_t base = 64;
    if (auto header = d::decode_index_header(files.index, d::SegmentFile::index, &reason);
        header && header->sealed_size != 0 && header->end_offset > 0 && header->end_offset < (1ull << 40))
      base = header->end_offset;
    const std::string text = "after";
    const d::RecordView record{7, std::as_bytes(std::span(text))};
    std::vector<std::byte> batch(d::encoded_batch_size({&record, 1}));
    d::encode_batch(base, {&record, 1}, batch);
    fs->write_file(dir / d::segment_file_name(base, d::SegmentFile::log), batch);
  }

  tolerating_damage("verify", [&] { (void)log.verify("s", 0); });
  tolerating_damage("stats", [&] { (void)log.stats("s", 0); });
  d::ReaderOptions skip;
  skip.on_corruption = d::ReaderOptions::Corruption::skip;
  skip.read_bytes = 4096;
  tolerating_damage("a skipping reader", [&] {
    d::Reader reader = log.reader("s", 0, d::Start::beginning(), skip);
    (void)read_through(reader);
    for (const auto& s : reader.skipped())
      if (s.lost_end < s.lost_begin) finding("a skip report with a negative range of offsets");
  });
  d::ReaderOptions fail;
  fail.read_bytes = 4096;
  tolerating_damage("a failing reader", [&] {
    d::Reader reader = log.reader("s", 0, d::Start::beginning(), fail);
    (void)read_through(reader);
  });
  const std::uint64_t offset = size > 0 ? data[size - 1] : 0;
  const auto timestamp = static_cast<std::int64_t>(size > 1 ? data[size - 2] : 0) * 7 - 100;
  tolerating_damage("a reader at an offset", [&] {
    d::Reader reader = log.reader("s", 0, d::Start::at_offset(offset), skip);
    (void)read_through(reader);
  });
  tolerating_damage("a reader at a timestamp", [&] {
    d::Reader reader = log.reader("s", 0, d::Start::at_timestamp(timestamp), skip);
    (void)read_through(reader);
    reader.seek_timestamp(timestamp + 50);
    (void)read_through(reader);
  });
  tolerating_damage("a reader at the end", [&] { (void)log.reader("s", 0, d::Start::end(), fail); });

  // Recovery: the active segment is cut at its first damage and its indexes rebuilt.
  std::uint64_t end = 0;
  bool exhausted = false;
  tolerating_damage("recovery", [&] {
    d::Writer writer = log.writer("s", 0);
    end = writer.end_offset();
    const std::string text = "appended";
    try {
      if (writer.append(1, std::as_bytes(std::span(text))) != end)
        finding("an append did not get the end offset");
    } catch (const d::ArgumentError& e) {
      // Batches that claim offsets up to 2^64 - 1 leave none to append.
      if (end < UINT64_MAX - 1000) finding(std::string("an append was refused: ") + e.what());
      exhausted = true;
    }
    writer.close();
  });
  if (!sealed && !exhausted) {
    try {
      d::Reader reader = log.reader("s", 0, d::Start::beginning(), fail);
      if (read_through(reader) != end + 1 || reader.position() != end + 1)
        finding("after recovery the partition does not read back to its end");
      const d::VerifyReport report = log.verify("s", 0);
      if (!report.ok()) finding("after recovery verify finds: " + d::to_string(report));
    } catch (const std::exception& e) {
      finding(std::string("after recovery: ") + e.what());
    }
  }
  return 0;
}
