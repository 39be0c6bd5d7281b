// flights: event-time windows over the 3 M US domestic flights of January to June 2001
// (vega-datasets `flights-3m`, fetched into data/flights-3m.csv by scripts/fetch-flights.sh).
//   flights [--file F] [--limit N] [--shuffle M] [--seed S] [--delay D] [--out FILE] [worker args]
// Event time is the scheduled departure in minutes since 2001-01-01 00:00 (naive local time).
// Three computations share one event-time source with a bounded-out-of-orderness watermark
// (max seen - D minutes, default 30):
//   mean     mean departure delay per origin airport per hour (tumbling 60 min windows);
//   busiest  the three busiest routes in sliding windows of one day every hour (route counts
//            per window by key, then the top three of each window, globally);
//   session  departure sessions per origin airport: departures with gaps under an hour.
// --limit N reads the first N records; --shuffle M shuffles the records within each M-minute
// bucket of event time (seeded by --seed, per bucket, so the order is the same on any number of
// workers), which displaces none by M minutes or more: with --delay at least M - 1 no record is
// late and every result is the same as in order; with a smaller delay the late records are
// dropped and counted. Each worker takes every P-th bucket of the file (P workers).
// --out FILE writes every result, one per line and sorted, for comparison (with P processes,
// process p writes FILE.p). Prints records, late records, results per kind, the busiest routes
// of the busiest day, seconds and records/s.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/streaming/streaming.hpp>
#include <timely/timely.hpp>

#include "common.hpp"
#include "flights_common.hpp"

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;

namespace {

constexpr const char* kUsage =
    "[--file F] [--limit N] [--shuffle MINUTES] [--seed S] [--delay MINUTES] [--out FILE] [worker args]";
constexpr const char* kOptions =
    "  --file F             the flights CSV (default: the source tree's data/flights-3m.csv)\n"
    "  --limit N            read the first N records only\n"
    "  --shuffle MINUTES    shuffle the records within each bucket of MINUTES of event time\n"
    "  --seed S             the shuffle's seed (default 1)\n"
    "  --delay MINUTES      the watermark trails the largest event time seen by this much (default 30)\n"
    "  --out FILE           write every result, sorted, to FILE (with several processes, process p\n"
    "                       writes FILE.p)\n";

using flights::Airport;
using flights::airport_name;
using flights::date_name;
using flights::Flight;
using flights::FlightsFileError;
using flights::parse;
using flights::Route;
using flights::route_name;
using flights::Time;

/// This worker's records of the file's first `limit` records: every `peers`-th `bucket`-minute
/// bucket of event time (the file is in time order), each shuffled if `shuffle`.
std::vector<Flight> read_share(const std::string& file, std::uint64_t limit, Time bucket, bool shuffle,
                               std::uint64_t seed, std::size_t index, std::size_t peers) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw FlightsFileError("cannot open '" + file + "' (run scripts/fetch-flights.sh)");
  // Every worker parses the time of every line (cheap) so that shares are cut identically.
  std::vector<Flight> all;
  std::string line;
  std::uint64_t number = 0;
  Time last_time = 0;
  std::vector<std::pair<std::uint64_t, Time>> bucket_starts;  // (record index, bucket) where a bucket begins
  while (number < limit && std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const Flight f = parse(line, file, number);
    if (f.at < last_time)
      throw FlightsFileError(file + ", line " + std::to_string(number) +
                             ": records must be in time order (the shuffle and the shares rely on it)");
    if (all.empty() || f.at / bucket != last_time / bucket)
      bucket_starts.emplace_back(all.size(), f.at / bucket);
    last_time = f.at;
    all.push_back(f);
  }
  if (in.bad()) throw FlightsFileError("reading '" + file + "' failed");
  if (all.empty()) throw FlightsFileError("'" + file + "' holds no records");
  // Buckets dealt out round-robin, so that the workers' watermarks advance together (with
  // contiguous runs of buckets, the last worker's records would wait in window state for the
  // first worker's watermark to reach them).
  std::vector<Flight> share;
  share.reserve(all.size() / peers + 1);
  for (std::size_t b = 0; b < bucket_starts.size(); ++b) {
    if (b % peers != index) continue;
    const std::size_t end = b + 1 < bucket_starts.size() ? bucket_starts[b + 1].first : all.size();
    share.insert(share.end(), all.begin() + static_cast<std::ptrdiff_t>(bucket_starts[b].first),
                 all.begin() + static_cast<std::ptrdiff_t>(end));
  }
  if (shuffle) {
    for (std::size_t b = 0; b < share.size();) {
      std::size_t e = b;
      while (e < share.size() && share[e].at / bucket == share[b].at / bucket) ++e;
      std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + share[b].at / bucket);
      std::shuffle(share.begin() + static_cast<std::ptrdiff_t>(b),
                   share.begin() + static_cast<std::ptrdiff_t>(e), rng);
      b = e;
    }
  }
  return share;
}

struct WorkerResult {
  std::uint64_t records = 0, late = 0, means = 0, tops = 0, sessions = 0;
  std::vector<std::string> lines;                                                      // --out
  std::vector<std::pair<Time, std::vector<std::pair<std::uint64_t, Route>>>> busiest;  // per window
  double seconds = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("flights", kUsage, kOptions, [&] {
    std::vector<char*> args(argv, argv + argc);
    const std::string file = examples::take_text(args, "--file").value_or(TIMELY_DEFAULT_FLIGHTS);
    const std::uint64_t limit = examples::take_count(args, "--limit").value_or(UINT64_MAX);
    const auto shuffle = examples::take_count(args, "--shuffle");
    const std::uint64_t seed = examples::take_count(args, "--seed").value_or(1);
    const Time delay = examples::take_count(args, "--delay").value_or(30);
    const auto out = examples::take_text(args, "--out");
    auto config = timely::Config::from_args(static_cast<int>(args.size()), args.data());
    if (!config.positional.empty())
      throw timely::ConfigError("unexpected argument '" + config.positional[0] + "'");
    if (limit == 0) throw timely::ConfigError("--limit must be positive");
    if (shuffle && *shuffle == 0) throw timely::ConfigError("--shuffle must be positive (minutes)");
    const Time bucket = shuffle.value_or(30);

    const auto results = timely::execute(config, [&](timely::Worker& worker) {
      WorkerResult result;
      const std::vector<Flight> share =
          read_share(file, limit, bucket, shuffle.has_value(), seed, worker.index(), worker.peers());
      result.records = share.size();
      timely::dataflow::InputHandle<Time, Flight> input;
      timely::ProbeHandle<Time> probe;
      std::shared_ptr<ts::SourceStats<Time>> stats;
      worker.dataflow<Time>([&](auto& scope) {
        auto timed = input.to_stream(scope) | ts::event_time([](const Flight& f) { return f.at; },
                                                             ts::bounded_out_of_orderness<Time>(delay));
        stats = timed.stats;
        auto origin = ts::by_key([](const Flight& f) { return f.origin; });
        timed.records |
            ts::window(ts::tumbling<Time>(60), origin,
                       ts::mean([](const Flight& f) { return std::int64_t{f.delay}; })) |
            inspect([&](const auto& r) {
              ++result.means;
              if (out) {
                char text[96];
                std::snprintf(text, sizeof text, "mean %s %llu %.4f", airport_name(r.key).c_str(),
                              static_cast<unsigned long long>(r.start), r.value);
                result.lines.emplace_back(text);
              }
            }) |
            probe_with(probe);
        timed.records |
            ts::window(ts::sliding<Time>(24 * 60, 60),
                       ts::by_key([](const Flight& f) { return (Route{f.origin} << 32) | f.destination; }),
                       ts::count()) |
            // Every route's count of one window is at the window's last minute: the top three of
            // each such minute, over all workers.
            ts::window(ts::tumbling<Time>(1), ts::global(),
                       ts::top_k(3,
                                 [](const auto& r) {
                                   return std::pair{r.value, r.key};
                                 })) |
            inspect([&](const auto& r) {
              ++result.tops;
              const Time start = r.start + 1 - 24 * 60;  // the day window ends where this one does
              if (out)
                for (std::size_t i = 0; i < r.value.size(); ++i)
                  result.lines.push_back("busiest " + std::to_string(start) + " " + std::to_string(i + 1) +
                                         " " + std::to_string(r.value[i].first) + " " +
                                         route_name(r.value[i].second));
              result.busiest.emplace_back(start, r.value);
            }) |
            probe_with(probe);
        timed.records | ts::window(ts::session<Time>(60), origin, ts::count()) | inspect([&](const auto& r) {
          ++result.sessions;
          if (out)
            result.lines.push_back("session " + airport_name(r.key) + " " + std::to_string(r.start) + " " +
                                   std::to_string(r.end) + " " + std::to_string(r.value));
        }) | probe_with(probe);
      });
      timely::synchronization::Barrier(worker).wait();  // time the dataflow, not the reading
      const auto start = std::chrono::steady_clock::now();
      constexpr std::size_t kBatch = 4096;
      for (std::size_t i = 0; i < share.size(); i += kBatch) {
        for (std::size_t j = i; j < std::min(share.size(), i + kBatch); ++j) input.send(share[j]);
        worker.step();
      }
      input.close();
      while (!probe.done()) worker.step_or_park(std::chrono::milliseconds(10));  // woken by data and progress
      result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      result.late = stats->late_dropped;
      return result;
    });

    WorkerResult total;
    for (const auto& r : results) {
      total.records += r.records;
      total.late += r.late;
      total.means += r.means;
      total.tops += r.tops;
      total.sessions += r.sessions;
      total.seconds = std::max(total.seconds, r.seconds);
      total.lines.insert(total.lines.end(), r.lines.begin(), r.lines.end());
      total.busiest.insert(total.busiest.end(), r.busiest.begin(), r.busiest.end());
    }
    std::printf(
        "flights: %llu records (%s), %llu late (dropped; watermark max seen - %llu min), results: %llu "
        "hourly "
        "means, %llu daily top-3s, %llu sessions; on %zu workers in %.3f s: %.3e records/s\n",
        static_cast<unsigned long long>(total.records),
        shuffle ? ("shuffled within " + std::to_string(*shuffle) + "-minute buckets").c_str()
                : "in time order",
        static_cast<unsigned long long>(total.late), static_cast<unsigned long long>(delay),
        static_cast<unsigned long long>(total.means), static_cast<unsigned long long>(total.tops),
        static_cast<unsigned long long>(total.sessions), results.size(), total.seconds,
        total.seconds > 0 ? static_cast<double>(total.records) / total.seconds : 0.0);
    // The busiest day window (by its top route's count) that this process saw.
    const auto best =
        std::max_element(total.busiest.begin(), total.busiest.end(),
                         [](const auto& a, const auto& b) { return a.second.front() < b.second.front(); });
    if (best != total.busiest.end()) {
      std::printf("busiest day window: from %s to %s:", date_name(best->first).c_str(),
                  date_name(best->first + 24 * 60).c_str());
      for (const auto& [count, route] : best->second)
        std::printf(" %s %llu", route_name(route).c_str(), static_cast<unsigned long long>(count));
      std::printf("\n");
    }
    if (out) {
      std::sort(total.lines.begin(), total.lines.end());
      const std::string path =
          config.processes > 1 ? *out + "." + std::to_string(config.process_index) : *out;
      std::ofstream o(path);
      for (const auto& l : total.lines) o << l << '\n';
      o.flush();
      if (!o) throw FlightsFileError("cannot write '" + path + "'");
    }
  });
}
