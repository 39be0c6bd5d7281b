// Chapter 11, "log": a durable log on its own, in a fresh directory. A writer appends batches of
// readings and rolls 4 KiB segments; readers start at an offset and at a timestamp; a consumer
// commits its offset; recovery cuts a torn tail; a reader meets a damaged batch and fails or
// skips it; retention deletes the oldest segment. No dataflow: the log needs none.
//   ch11_log
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>

namespace durable = timely::durable;
namespace fs = std::filesystem;

// The files of a partition, with their sizes (the lock file's size depends on the host's name).
void list_files(const fs::path& partition) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(partition)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files)
    if (f.filename() == "writer.lock")
      std::printf("  %s\n", f.filename().c_str());
    else
      std::printf("  %-32s %5ju bytes\n", f.filename().c_str(),
                  static_cast<std::uintmax_t>(fs::file_size(f)));
}

// A batch view's offsets and its first three records, as [timestamp text].
void print_batch(const durable::BatchView& batch) {
  std::printf("batch view of offsets %ju to %ju:", static_cast<std::uintmax_t>(batch.base_offset()),
              static_cast<std::uintmax_t>(batch.end_offset() - 1));
  for (std::size_t i = 0; i < std::min<std::size_t>(batch.size(), 3); ++i)
    std::printf(" [%jd %.*s]", static_cast<std::intmax_t>(batch[i].timestamp),
                static_cast<int>(batch[i].bytes.size()), batch[i].text().data());
  std::printf(batch.size() > 3 ? " ...\n" : "\n");
}

int main() {
  const fs::path dir = fs::temp_directory_path() / ("timely-book-ch11-log-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  durable::Log log(dir);
  durable::WriterOptions options;
  options.segment_bytes = 4096;         // small segments, to see one roll
  options.index_interval_bytes = 1024;  // an index entry every 1 KiB of batches

  // 1. Append 12 batches of 10 readings, timestamped in ms; sensor-3's come 1.5 s late.
  auto writer = log.writer("readings", 0, options);
  for (int b = 0; b < 12; ++b) {
    std::string texts[10];
    durable::RecordView batch[10];
    for (int i = 0; i < 10; ++i) {
      const int n = b * 10 + i;
      texts[i] = "sensor-" + std::to_string(n % 4) + " temp=20." + std::to_string(n % 7);
      batch[i] = {1000 * n - (n % 4 == 3 ? 1500 : 0), std::as_bytes(std::span(texts[i]))};
    }
    const std::uint64_t base = writer.append(batch);
    if (b % 4 == 0) std::printf("batch %d appended at offset %ju\n", b, static_cast<std::uintmax_t>(base));
  }
  std::printf("%s\n", durable::to_string(writer.stats()).c_str());
  list_files(dir / "readings" / "0");

  // 2. Read from an offset in the middle of a batch, and from a timestamp.
  auto reader = log.reader("readings", 0, durable::Start::at_offset(57));
  print_batch(*reader.next_batch());
  reader = log.reader("readings", 0, durable::Start::at_timestamp(41500));
  print_batch(*reader.next_batch());

  // 3. A consumer reads three batches and commits; the next run starts where it stopped.
  auto consumer = log.reader("readings", 0, durable::Start::beginning());
  for (int i = 0; i < 3; ++i) (void)consumer.next_batch();
  consumer.commit("dashboard");
  const auto committed = log.committed("readings", 0, "dashboard");
  std::printf("consumer dashboard committed offset %ju\n", static_cast<std::uintmax_t>(*committed));

  // 4. A crash tears the last batch: its last 10 bytes never reached the disk.
  writer.close();
  fs::path active;  // the segment with the highest base offset
  for (const auto& entry : fs::directory_iterator(dir / "readings" / "0")) {
    const auto name = durable::parse_segment_file_name(entry.path().filename().string());
    if (name && name->second == durable::SegmentFile::log && entry.path() > active) active = entry.path();
  }
  fs::resize_file(active, fs::file_size(active) - 10);
  writer = log.writer("readings", 0, options);
  const auto& cut = *writer.recovery().cut;
  std::printf("recovery cut %s at byte %ju: %ju bytes, %ju records (%s); the next offset is %ju\n",
              cut.segment.filename().c_str(), static_cast<std::uintmax_t>(cut.byte_offset),
              static_cast<std::uintmax_t>(cut.bytes), static_cast<std::uintmax_t>(cut.records),
              cut.reason.c_str(), static_cast<std::uintmax_t>(writer.end_offset()));

  // 5. A bad disk changes a byte of the second batch (from byte 408) of the first segment.
  {
    std::fstream file(dir / "readings" / "0" / durable::segment_file_name(0, durable::SegmentFile::log),
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(600);
    file.put('!');
  }
  try {
    auto failing = log.reader("readings", 0, durable::Start::beginning());
    while (auto batch = failing.next_batch()) {
    }
  } catch (const durable::CorruptionError& e) {
    std::printf("CorruptionError: %s at byte %ju: %s\n", e.file().filename().c_str(),
                static_cast<std::uintmax_t>(*e.byte_offset()), e.cause().c_str());
  }
  durable::ReaderOptions skip;
  skip.on_corruption = durable::ReaderOptions::Corruption::skip;
  auto skipping = log.reader("readings", 0, durable::Start::beginning(), skip);
  std::uint64_t read = 0;
  while (auto batch = skipping.next_batch()) read += batch->size();
  for (const auto& damage : skipping.skipped())
    std::printf("skipped %ju bytes at byte %ju, offsets %ju to %ju lost; %ju records read\n",
                static_cast<std::uintmax_t>(damage.bytes), static_cast<std::uintmax_t>(damage.byte_offset),
                static_cast<std::uintmax_t>(damage.lost_begin),
                static_cast<std::uintmax_t>(damage.lost_end - 1), static_cast<std::uintmax_t>(read));

  // 6. Retention: at most 4 KiB of segments. Reopening applies it; the damaged segment goes.
  writer.close();
  options.retention.max_bytes = 4096;
  writer = log.writer("readings", 0, options);
  std::printf("after retention the partition starts at offset %ju\n",
              static_cast<std::uintmax_t>(writer.first_offset()));
  try {
    (void)log.reader("readings", 0, durable::Start::at_offset(committed.value()));
  } catch (const durable::OffsetOutOfRange& e) {
    std::printf("OffsetOutOfRange: %s\n", e.what());
  }
  writer.close();
  fs::remove_all(dir);
}
