// durable_seeds OUTDIR: writes the seed corpus of fuzz_durable (layout in durable_input.hpp):
// partitions written by the library itself on a SimulatedFileSystem (small index interval, so
// that the indexes have entries): an active segment, a sealed one with sealed indexes, one with
// a torn last batch, one with timestamps out of order, one without indexes, and an empty one.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

#include "durable_input.hpp"

namespace d = timely::durable;

namespace {

int written = 0;

void save(const std::string& dir, const durable_fuzz::Files& files) {
  const auto bytes = durable_fuzz::join(files);
  std::ofstream out(dir + "/seed-" + std::to_string(written++), std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A partition of `batches` batches; returns its first segment's files.
durable_fuzz::Files partition(int batches, bool roll, bool disorder) {
  auto fs = std::make_shared<d::SimulatedFileSystem>();
  d::Log log("/log", {fs});
  d::WriterOptions options;
  options.index_interval_bytes = 96;
  d::Writer writer = log.writer("s", 0, options);
  for (int b = 0; b < batches; ++b) {
    std::vector<std::string> texts;
    std::vector<d::RecordView> records;
    for (int r = 0; r <= b % 3; ++r)
      texts.push_back(std::string(static_cast<std::size_t>(3 + 5 * r), 'a' + b % 26));
    for (std::size_t r = 0; r < texts.size(); ++r)
      records.push_back({disorder ? (b * 37 % 11) * 10 - static_cast<std::int64_t>(r)
                                  : b * 10 + static_cast<std::int64_t>(r),
                         std::as_bytes(std::span(texts[r]))});
    writer.append(records);
  }
  if (roll) writer.roll();
  writer.close();
  durable_fuzz::Files f;
  const std::string dir = "/log/s/0/";
  f.log = fs->read_file(dir + d::segment_file_name(0, d::SegmentFile::log));
  f.index = fs->read_file(dir + d::segment_file_name(0, d::SegmentFile::index));
  f.timeindex = fs->read_file(dir + d::segment_file_name(0, d::SegmentFile::timeindex));
  f.flags = roll ? durable_fuzz::kSealedThenActive : 0;
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: durable_seeds OUTDIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  save(dir, partition(6, false, false));
  save(dir, partition(6, true, false));
  save(dir, partition(12, false, true));
  auto torn = partition(5, false, false);
  torn.log.resize(torn.log.size() - 11);
  save(dir, torn);
  auto bare = partition(4, false, false);
  bare.flags |= durable_fuzz::kNoIndexes;
  save(dir, bare);
  save(dir, durable_fuzz::Files{});
  std::printf("durable_seeds: %d seeds in %s\n", written, dir.c_str());
  return 0;
}
