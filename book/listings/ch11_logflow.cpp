// Chapter 11, "logflow": a dataflow fed from a durable log and writing one. Page views go into
// log stream `views`, two partitions, each in event-time order but for one late view. The log's
// event-time source reads them, tumbling windows of 10 s count the views per page, and the
// exactly-once-ready sink writes the counts to log stream `counts`. A second run from the same
// offsets writes nothing; after a crash that tears the last batch of every `counts` partition,
// a third run writes what the torn batches held, and nothing else.
//   ch11_logflow [-w N]
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <timely/durable/log.hpp>
#include <timely/durable/operators/sink.hpp>
#include <timely/durable/operators/source.hpp>
#include <timely/streaming/streaming.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace durable = timely::durable;
namespace dop = timely::durable::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;  // event time in seconds: the records' log timestamps
using Count = ts::WindowResult<Time, std::string, std::uint64_t>;

struct Totals {
  std::uint64_t late = 0, written = 0, skipped = 0;
};

// One run on every worker of `config`, from the beginning of every partition of `views`.
Totals run(const timely::Config& config, const durable::Log& log) {
  auto stats = timely::execute(config, [&](timely::Worker& worker) {
    std::shared_ptr<const dop::LogSourceStats> source;
    auto sink = std::make_shared<dop::LogSinkStats>();
    worker.dataflow<Time>([&](auto& scope) {
      auto views = dop::log_source<Time, std::string>(
          scope, log, "views", [](const durable::RecordView& r) { return std::string(r.text()); });
      source = views.stats;
      views.records |
          ts::window(ts::tumbling<Time>(10), ts::by_key([](const std::string& page) { return page; }),
                     ts::count()) |
          map([](const Count& c) {
            return c.key + " [" + std::to_string(c.start) + ", " + std::to_string(c.end) +
                   "): " + std::to_string(c.value);
          }) |
          dop::write_to_log(
              log, "counts", [](const std::string& s) { return s; }, durable::WriterOptions{}, sink);
    });
    while (worker.step()) {
    }
    return std::make_pair(*source, *sink);
  });
  Totals totals;
  for (const auto& [source, sink] : stats) {
    totals.late += source.late_dropped;
    totals.written += sink.records_written;
    totals.skipped += sink.skipped_records;
  }
  return totals;
}

// Every record of `counts` as (timestamp, text), sorted.
std::vector<std::pair<std::int64_t, std::string>> counts(const durable::Log& log) {
  std::vector<std::pair<std::int64_t, std::string>> out;
  for (auto p : log.partitions("counts")) {
    auto reader = log.reader("counts", p, durable::Start::beginning());
    while (auto batch = reader.next_batch())
      for (auto r : *batch) out.emplace_back(r.timestamp, r.text());
  }
  std::sort(out.begin(), out.end());
  return out;
}

int main(int argc, char** argv) {
  const auto config = timely::Config::from_args(argc, argv);
  const auto dir =
      std::filesystem::temp_directory_path() / ("timely-book-ch11-logflow-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const durable::Log log(dir);

  // (second, page) per partition; in partition 1 the view at 7 comes after one at 12: it is late.
  const std::vector<std::pair<Time, std::string>> views[] = {
      {{1, "home"}, {4, "docs"}, {9, "home"}, {15, "home"}, {21, "docs"}, {28, "home"}},
      {{2, "docs"}, {12, "home"}, {7, "docs"}, {18, "docs"}, {25, "home"}}};
  for (std::uint32_t p = 0; p < 2; ++p) {
    auto writer = log.writer("views", p);
    std::vector<durable::RecordView> batch;
    for (const auto& [at, page] : views[p])
      batch.push_back({static_cast<std::int64_t>(at), std::as_bytes(std::span(page))});
    writer.append(batch);
  }

  Totals first = run(config, log);
  const auto written = counts(log);
  std::printf("first run: %ju late view dropped, %ju counts written\n",
              static_cast<std::uintmax_t>(first.late), static_cast<std::uintmax_t>(first.written));
  for (const auto& [at, text] : written)
    std::printf("  at %jd: %s\n", static_cast<std::intmax_t>(at), text.c_str());

  Totals second = run(config, log);
  std::printf("second run: %ju written, %ju skipped (their times were written already)\n",
              static_cast<std::uintmax_t>(second.written), static_cast<std::uintmax_t>(second.skipped));

  // A crash in the middle of each partition's last append: its last 8 bytes never reached the
  // disk. (On more workers than records some partitions hold nothing.)
  std::uint64_t torn = 0;
  for (auto p : log.partitions("counts")) {
    const auto segment =
        dir / "counts" / std::to_string(p) / durable::segment_file_name(0, durable::SegmentFile::log);
    if (std::filesystem::file_size(segment) == 0) continue;
    std::filesystem::resize_file(segment, std::filesystem::file_size(segment) - 8);
    auto writer = log.writer("counts", p);  // recovery cuts the torn batch
    torn += writer.recovery().cut->records;
  }
  Totals third = run(config, log);
  std::printf("after the crash: recovery cut %ju counts; the third run wrote %ju, skipped %ju\n",
              static_cast<std::uintmax_t>(torn), static_cast<std::uintmax_t>(third.written),
              static_cast<std::uintmax_t>(third.skipped));
  std::printf("counts now: %s\n", counts(log) == written ? "the same as after the first run" : "DIFFERENT");
  std::filesystem::remove_all(dir);
}
