// The exactly-once-ready sink (timely/durable/operators/sink.hpp): one batch per time per worker
// partition in a canonical order, byte-identical partitions from re-runs whatever the arrival
// order, and a re-run after a stop that writes only the missing times.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/operators/sink.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace dur = timely::durable;
namespace dop = timely::durable::operators;
using Time = std::uint64_t;
using D = std::pair<std::string, std::int64_t>;
using capture_test::step_while;
using capture_test::TempDir;

namespace {

constexpr timely::ProgressMode kSinkModes[] = {timely::ProgressMode::Demand, timely::ProgressMode::Eager};

/// Records per time, for times 0 .. n-1 (some times empty).
std::vector<std::vector<D>> make_input(std::uint64_t seed, Time times) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<D>> out(times);
  for (auto& at : out) {
    const std::size_t n = rng() % 4 == 0 ? 0 : rng() % 25;
    for (std::size_t k = 0; k < n; ++k)
      at.push_back(D{"k" + std::to_string(rng() % 40), static_cast<std::int64_t>(rng() % 1000) - 500});
  }
  return out;
}

/// A partition as written: per batch, its records `(timestamp, bytes)`.
using Batches = std::vector<std::vector<std::pair<std::int64_t, std::string>>>;

std::vector<Batches> read_all(const dur::Log& log, const std::string& name) {
  std::vector<Batches> out;
  for (auto p : log.partitions(name)) {
    Batches batches;
    auto reader = log.reader(name, p, dur::Start::beginning());
    while (auto batch = reader.next_batch()) {
      batches.emplace_back();
      for (auto r : *batch)
        batches.back().emplace_back(
            r.timestamp, std::string(reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size()));
    }
    out.push_back(std::move(batches));
  }
  return out;
}

/// Runs the input through the sink on `workers` workers. `rotate` changes which worker sends
/// which record (the arrival order at the sink); `stop_after`, if set, drops the dataflow once
/// the frontier has passed that time (a run that stops part way).
std::vector<dop::LogSinkStats> run(const dur::Log& log, const std::string& name,
                                   const std::vector<std::vector<D>>& input, std::size_t workers,
                                   timely::ProgressMode mode, std::size_t rotate,
                                   std::optional<Time> stop_after = std::nullopt) {
  auto c = timely::Config::process(workers);
  c.worker.progress_mode = mode;
  return timely::execute(c, [&](timely::Worker& worker) {
    auto stats = std::make_shared<dop::LogSinkStats>();
    timely::dataflow::InputHandle<Time, D> in;
    timely::dataflow::ProbeHandle<Time> probe;
    const std::size_t index = worker.next_dataflow_index();
    worker.dataflow<Time>([&](auto& scope) {
      auto s = in.to_stream(scope) | probe_with(probe);
      s | dop::write_to_log(log, name, dur::WriterOptions{}, stats);
    });
    for (Time t = 0; t < input.size(); ++t) {
      in.advance_to(t);
      // Reversed order on odd rotations, so that arrival order differs between runs.
      for (std::size_t k = 0; k < input[t].size(); ++k) {
        const std::size_t i = rotate % 2 == 0 ? k : input[t].size() - 1 - k;
        if ((i + rotate) % worker.peers() == worker.index()) in.send(input[t][i]);
      }
      if (stop_after && t == *stop_after + 1) {
        step_while(worker, [&] { return probe.less_than(t); });
        for (int i = 0; i < 20; ++i) worker.step();  // the sink writes what the frontier passed
        worker.drop_dataflow(index);
        return *stats;
      }
    }
    in.close();
    step_while(worker, [&] { return !probe.done(); });
    step_while(worker, [&] { return worker.has_dataflows(); });
    return *stats;
  });
}

}  // namespace

TEST_CASE("the log sink writes one sorted batch per time per partition, the same bytes on every re-run",
          "[durable]") {
  const std::uint64_t seed = 99;
  std::cout << "durable sink test: seed " << seed << "\n";
  const auto input = make_input(seed, 12);
  std::vector<std::pair<std::int64_t, std::string>> union_one;
  for (auto mode : kSinkModes)
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO(workers << " workers");
      TempDir dir;
      dur::Log first(dir.file("a")), second(dir.file("b"));
      run(first, "out", input, workers, mode, 0);
      run(second, "out", input, workers, mode, 1);
      const auto a = read_all(first, "out");
      const auto b = read_all(second, "out");
      REQUIRE(a.size() == workers);
      CHECK(a == b);
      // Canonical: one time per batch, times increasing, records sorted; all records there.
      std::vector<std::pair<std::int64_t, std::string>> all;
      for (const auto& part : a) {
        std::int64_t previous = -1;
        for (const auto& batch : part) {
          REQUIRE(!batch.empty());
          CHECK(batch.front().first > previous);
          previous = batch.front().first;
          for (const auto& r : batch) CHECK(r.first == batch.front().first);
          CHECK(std::is_sorted(batch.begin(), batch.end()));
          all.insert(all.end(), batch.begin(), batch.end());
        }
      }
      std::sort(all.begin(), all.end());
      std::size_t total = 0;
      for (const auto& at : input) total += at.size();
      CHECK(all.size() == total);
      if (union_one.empty())
        union_one = all;
      else
        CHECK(all == union_one);  // the same records whatever the number of workers
    }
}

TEST_CASE("a re-run after a stopped run writes only the missing times and ends with the same log",
          "[durable]") {
  const std::uint64_t seed = 1234;
  std::cout << "durable sink re-run test: seed " << seed << "\n";
  const auto input = make_input(seed, 10);
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO(workers << " workers");
    TempDir dir;
    dur::Log whole(dir.file("whole")), resumed(dir.file("resumed"));
    run(whole, "out", input, workers, timely::ProgressMode::Demand, 0);
    const auto partial = run(resumed, "out", input, workers, timely::ProgressMode::Demand, 1, Time{4});
    std::uint64_t written_first = 0;
    for (const auto& s : partial) written_first += s.times_written;
    CHECK(written_first > 0);
    const auto rerun = run(resumed, "out", input, workers, timely::ProgressMode::Eager, 0);
    std::uint64_t skipped = 0, written_again = 0, all_times = 0;
    for (const auto& s : rerun) {
      skipped += s.skipped_times;
      written_again += s.times_written;
    }
    for (const auto& part : read_all(whole, "out")) all_times += part.size();
    CHECK(skipped == written_first);
    CHECK(written_first + written_again == all_times);
    CHECK(read_all(resumed, "out") == read_all(whole, "out"));
  }
}

TEST_CASE("a re-run with another number of workers is refused, naming the stream and both counts",
          "[durable]") {
  const auto input = make_input(7, 6);
  for (std::size_t first : {1u, 2u, 4u})
    for (std::size_t again : {1u, 2u, 4u}) {
      if (first == again) continue;
      INFO(first << " workers, then " << again);
      TempDir dir;
      dur::Log log(dir.file("log"));
      run(log, "out", input, first, timely::ProgressMode::Demand, 0);
      const auto before = read_all(log, "out");
      try {
        run(log, "out", input, again, timely::ProgressMode::Demand, 0);
        FAIL("the re-run was not refused");
      } catch (const dur::ArgumentError& e) {
        const std::string what = e.what();
        INFO(what);
        CHECK(what.find("write_to_log on " + std::to_string(again) + " workers") != std::string::npos);
        CHECK(what.find(first > again ? "a run of more workers" : "a run of fewer workers") !=
              std::string::npos);
        CHECK(e.partition().rfind("out/", 0) == 0);
      }
      // Nothing was written by the refused run; the same count still completes it.
      const auto after = read_all(log, "out");
      CHECK(after == before);
      const auto rerun = run(log, "out", input, first, timely::ProgressMode::Eager, 1);
      std::uint64_t written = 0;
      for (const auto& s : rerun) written += s.times_written;
      CHECK(written == 0);
    }
}
