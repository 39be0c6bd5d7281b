// logflow: the flights of 2001 through a durable log and back (timely/durable/operators/).
//   logflow --log DIR [--file F] [--limit N] [--partitions P] [--out FILE] [worker args]
// 1. load: the first N records of the flights CSV (data/flights-3m.csv, fetched by
//    scripts/fetch-flights.sh) go into log stream `flights` of DIR, P partitions (default 4)
//    by origin airport, each in event-time order (minutes since 2001-01-01 00:00, the record's
//    log timestamp); worker w writes the partitions p with p % workers == w.
// 2. aggregate: an event-time source reads `flights` (its frontier from the partitions'
//    timestamps), tumbling one-hour windows compute the mean departure delay per origin (the
//    `mean` lines of the flights example), and the results go to stream `means` through the
//    exactly-once-ready sink (one sorted batch per hour and worker partition) and, as a
//    captured stream, to `means-capture`.
// 3. replay: the capture is replayed into the same sink as stream `means-replayed`, whose
//    partitions must hold byte for byte what `means` holds.
// Prints one summary line (from global worker 0) and, with --out FILE, writes the `means`
// stream's records, one per line and sorted (from process 0). DIR must not hold these streams
// (a fresh directory per run).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <timely/durable/log.hpp>
#include <timely/durable/operators/capture.hpp>
#include <timely/durable/operators/sink.hpp>
#include <timely/durable/operators/source.hpp>
#include <timely/streaming/streaming.hpp>
#include <timely/synchronization/barrier.hpp>
#include <timely/timely.hpp>

#include "common.hpp"
#include "flights_common.hpp"

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;
namespace dur = timely::durable;
namespace dop = timely::durable::operators;
using flights::Flight;
using flights::Time;

namespace {

constexpr const char* kUsage = "--log DIR [--file F] [--limit N] [--partitions P] [--out FILE] [worker args]";
constexpr const char* kOptions =
    "  --log DIR          the durable log's directory (a fresh one per run)\n"
    "  --file F           the flights CSV (default: the source tree's data/flights-3m.csv)\n"
    "  --limit N          load the first N records only\n"
    "  --partitions P     partitions of the flights stream (default 4)\n"
    "  --out FILE         write the means stream's records, sorted, to FILE\n";

/// Loads the partitions `p % peers == index` of stream `flights`: each holds the records of the
/// origins `o` with `o % partitions == p`, in file order (the file is in time order). Returns
/// the records written.
std::uint64_t load(const dur::Log& log, const std::string& file, std::uint64_t limit,
                   std::uint32_t partitions, std::size_t index, std::size_t peers) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw flights::FlightsFileError("cannot open '" + file + "' (run scripts/fetch-flights.sh)");
  std::vector<std::vector<std::string>> lines(partitions);
  std::string line;
  std::uint64_t number = 0;
  Time last = 0;
  while (number < limit && std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Flight f = flights::parse(line, file, number);
    if (f.at < last)
      throw flights::FlightsFileError(file + ", line " + std::to_string(number) +
                                      ": records must be in time order");
    last = f.at;
    const std::uint32_t p = f.origin % partitions;
    if (p % peers == index) lines[p].push_back(line);
  }
  if (in.bad()) throw flights::FlightsFileError("reading '" + file + "' failed");
  std::uint64_t written = 0;
  for (std::uint32_t p = 0; p < partitions; ++p) {
    if (p % peers != index) continue;
    dur::WriterOptions options;
    options.durability = dur::Durability::os();  // a bulk load: synced once, at close
    auto writer = log.writer("flights", p, options);
    if (writer.end_offset() != 0)
      throw timely::ConfigError("the log already holds stream 'flights' (partition " + std::to_string(p) +
                                " has " + std::to_string(writer.end_offset()) +
                                " records): use a new --log directory");
    constexpr std::size_t kBatch = 1024;
    std::vector<dur::RecordView> batch;
    for (std::size_t i = 0; i < lines[p].size(); i += kBatch) {
      batch.clear();
      for (std::size_t j = i; j < std::min(lines[p].size(), i + kBatch); ++j) {
        Flight f = flights::parse(lines[p][j], file, 0);
        batch.push_back({static_cast<std::int64_t>(f.at), std::as_bytes(std::span(lines[p][j]))});
      }
      writer.append(batch);
    }
    writer.close();
    written += lines[p].size();
  }
  return written;
}

/// Every record of `stream`, as `(partition, batch, timestamp, bytes)` in log order.
std::vector<std::string> dump(const dur::Log& log, const std::string& stream, bool with_layout) {
  std::vector<std::string> out;
  for (auto p : log.partitions(stream)) {
    auto reader = log.reader(stream, p, dur::Start::beginning());
    std::size_t batch_index = 0;
    while (auto batch = reader.next_batch()) {
      for (auto r : *batch)
        out.push_back(with_layout ? std::to_string(p) + " " + std::to_string(batch_index) + " " +
                                        std::to_string(r.timestamp) + " " + std::string(r.text())
                                  : std::string(r.text()));
      ++batch_index;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("logflow", kUsage, kOptions, [&] {
    std::vector<char*> args(argv, argv + argc);
    const auto dir = examples::take_text(args, "--log");
    const std::string file = examples::take_text(args, "--file").value_or(TIMELY_DEFAULT_FLIGHTS);
    const std::uint64_t limit = examples::take_count(args, "--limit").value_or(UINT64_MAX);
    const std::uint64_t partitions = examples::take_count(args, "--partitions").value_or(4);
    const auto out = examples::take_text(args, "--out");
    auto config = timely::Config::from_args(static_cast<int>(args.size()), args.data());
    if (!config.positional.empty())
      throw timely::ConfigError("unexpected argument '" + config.positional[0] + "'");
    if (!dir) throw timely::ConfigError("--log DIR is required");
    if (limit == 0) throw timely::ConfigError("--limit must be positive");
    if (partitions == 0 || partitions > 1024)
      throw timely::ConfigError("--partitions must be from 1 to 1024");
    // --out is written at the end of the run; a path that cannot be written fails now, not then,
    // and the check leaves an existing file as it is.
    if (out && config.process_index == 0) {
      const std::filesystem::path path(*out);
      const auto parent = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
      const bool writable =
          std::filesystem::exists(path)
              ? !std::filesystem::is_directory(path) && ::access(path.c_str(), W_OK) == 0
              : std::filesystem::is_directory(parent) && ::access(parent.c_str(), W_OK) == 0;
      if (!writable) throw timely::ConfigError("--out '" + *out + "' cannot be written");
    }
    const dur::Log log(*dir);

    struct Summary {
      bool replay_equal = false;
      std::size_t workers = 0;
    };
    const auto results = timely::execute(config, [&](timely::Worker& worker) {
      Summary summary;
      summary.workers = worker.peers();
      (void)load(log, file, limit, static_cast<std::uint32_t>(partitions), worker.index(), worker.peers());
      timely::synchronization::Barrier(worker).wait();  // every partition is loaded

      std::shared_ptr<const dop::LogSourceStats> source_stats;
      auto as_text = [](const std::string& s) { return s; };
      // Results are synced when each writer closes, at the end of its input, not per batch:
      // a crash loses at most what a re-run writes again (the sink skips what is there).
      dur::WriterOptions unsynced;
      unsynced.durability = dur::Durability::os();
      worker.dataflow<Time>([&](auto& scope) {
        auto source = dop::log_source<Time, Flight>(scope, log, "flights", [&](const dur::RecordView& r) {
          return flights::parse(std::string(r.text()), "log stream flights", 0);
        });
        source_stats = source.stats;
        auto means =
            source.records |
            ts::window(ts::tumbling<Time>(60), ts::by_key([](const Flight& f) { return f.origin; }),
                       ts::mean([](const Flight& f) { return std::int64_t{f.delay}; })) |
            map([](const auto& r) {
              char text[96];
              std::snprintf(text, sizeof text, "mean %s %llu %.4f", flights::airport_name(r.key).c_str(),
                            static_cast<unsigned long long>(r.start), r.value);
              return std::string(text);
            });
        means | dop::write_to_log(log, "means", as_text, unsynced);
        means | dop::capture_into_log(log, "means-capture", unsynced);
      });
      while (worker.has_dataflows()) worker.step_or_park(std::chrono::milliseconds(10));
      if (source_stats->late_dropped != 0)  // partitions in time order: none can be late
        throw std::runtime_error(std::to_string(source_stats->late_dropped) + " records were late");

      worker.dataflow<Time>([&](auto& scope) {
        dop::replay_from_log<Time, std::vector<std::string>>(scope, log, "means-capture") |
            dop::write_to_log(log, "means-replayed", as_text, unsynced);
      });
      while (worker.has_dataflows()) worker.step_or_park(std::chrono::milliseconds(10));
      timely::synchronization::Barrier(worker).wait();  // every partition is written
      if (worker.index() == 0)
        summary.replay_equal = dump(log, "means", true) == dump(log, "means-replayed", true);
      return summary;
    });

    bool replay_equal = false;
    for (const auto& r : results) replay_equal |= r.replay_equal;
    if (config.process_index == 0) {
      // Counts from the log itself, so that every layout of processes prints the same.
      std::uint64_t loaded = 0, means = 0, batches = 0;
      for (auto p : log.partitions("flights")) loaded += log.stats("flights", p).records;
      for (auto p : log.partitions("means")) {
        auto reader = log.reader("means", p, dur::Start::beginning());
        while (auto batch = reader.next_batch()) {
          ++batches;
          means += batch->size();
        }
      }
      std::printf(
          "logflow: %llu records loaded into %llu partitions; %llu hourly means in %llu batches on %zu "
          "workers; replay of the capture %s\n",
          static_cast<unsigned long long>(loaded), static_cast<unsigned long long>(partitions),
          static_cast<unsigned long long>(means), static_cast<unsigned long long>(batches),
          results.empty() ? std::size_t{0} : results[0].workers, replay_equal ? "byte-identical" : "DIFFERS");
      if (!replay_equal) throw std::runtime_error("the replayed results differ from the originals");
      if (out) {
        auto lines = dump(log, "means", false);
        std::sort(lines.begin(), lines.end());
        std::ofstream o(*out);
        for (const auto& l : lines) o << l << '\n';
        o.flush();
        if (!o) throw std::runtime_error("cannot write '" + *out + "'");
      }
    }
  });
}
