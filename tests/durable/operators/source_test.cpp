// The event-time source from plain log records (timely/durable/operators/source.hpp): records at
// their timestamps, late records dropped or emitted at the watermark, against a brute-force model
// (fixed seeds, printed), the same on 1, 2 and 4 workers in both progress modes; its frontier
// while following appends, idle partitions; a following source that lets its worker park until
// an append wakes it; and feeding the streaming library's windows.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/operators/source.hpp>
#include <timely/execute.hpp>
#include <timely/streaming/window.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace dur = timely::durable;
namespace dop = timely::durable::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;
using Rec = std::pair<std::string, std::int64_t>;  // key, value
using capture_test::step_while;
using capture_test::TempDir;

namespace {

constexpr timely::ProgressMode kSourceModes[] = {timely::ProgressMode::Demand, timely::ProgressMode::Eager};

timely::Config source_config(std::size_t workers, timely::ProgressMode mode) {
  auto c = timely::Config::process(workers);
  c.worker.progress_mode = mode;
  return c;
}

Rec parse(const dur::RecordView& r) {
  const auto text = r.text();
  const auto comma = text.find(',');
  Rec out{std::string(text.substr(0, comma)), 0};
  std::from_chars(text.data() + comma + 1, text.data() + text.size(), out.second);
  return out;
}

/// One partition's records as written: `(timestamp, "key,value")`.
using Partition = std::vector<std::pair<std::int64_t, std::string>>;

/// Partitions of records in nondecreasing timestamp order but for about one in `late_every`
/// (placed below the running maximum), written in batches of random sizes.
std::vector<Partition> make_partitions(std::mt19937_64& rng, std::size_t partitions, std::size_t late_every) {
  std::vector<Partition> out(partitions);
  for (auto& part : out) {
    std::int64_t t = static_cast<std::int64_t>(rng() % 5);
    const std::size_t n = 20 + rng() % 60;
    for (std::size_t i = 0; i < n; ++i) {
      t += static_cast<std::int64_t>(rng() % 4);
      std::int64_t at = t;
      if (late_every != 0 && rng() % late_every == 0 && t > 3)
        at = t - 1 - static_cast<std::int64_t>(rng() % 3);
      part.emplace_back(at, "k" + std::to_string(rng() % 7) + "," + std::to_string(rng() % 100));
    }
  }
  return out;
}

void write(const dur::Log& log, const std::string& stream, const std::vector<Partition>& parts,
           std::mt19937_64& rng) {
  for (std::uint32_t p = 0; p < parts.size(); ++p) {
    auto writer = log.writer(stream, p);
    std::size_t i = 0;
    while (i < parts[p].size()) {
      const std::size_t n = std::min<std::size_t>(1 + rng() % 5, parts[p].size() - i);
      std::vector<dur::RecordView> batch;
      for (std::size_t k = i; k < i + n; ++k)
        batch.push_back({parts[p][k].first, std::as_bytes(std::span(parts[p][k].second))});
      writer.append(batch);
      i += n;
    }
    writer.close();
  }
}

struct Model {
  std::vector<std::pair<Time, Rec>> records;  // sorted
  std::uint64_t late = 0;
};

/// Each partition on its own: a record below the running maximum of its partition is late:
/// dropped, or emitted at that maximum.
Model model(const std::vector<Partition>& parts, dop::Lateness lateness) {
  Model m;
  for (const auto& part : parts) {
    std::int64_t watermark = 0;
    for (const auto& [t, text] : part) {
      const std::string_view view(text);
      dur::RecordView r{t, std::as_bytes(std::span(view.data(), view.size()))};
      if (t < watermark) {
        ++m.late;
        if (lateness == dop::Lateness::at_watermark)
          m.records.emplace_back(static_cast<Time>(watermark), parse(r));
        continue;
      }
      watermark = t;
      m.records.emplace_back(static_cast<Time>(t), parse(r));
    }
  }
  std::sort(m.records.begin(), m.records.end());
  return m;
}

struct Run {
  std::vector<std::pair<Time, Rec>> records;
  std::uint64_t late_dropped = 0, late_emitted = 0, read = 0;
  bool finished = true;
};

Run run_source(const dur::Log& log, const std::string& stream, std::size_t workers, timely::ProgressMode mode,
               dop::LogSourceOptions options) {
  struct Part {
    std::vector<std::pair<Time, Rec>> records;
    dop::LogSourceStats stats;
    bool finished = false;
  };
  auto parts = timely::execute(source_config(workers, mode), [&](timely::Worker& worker) {
    Part part;
    timely::dataflow::ProbeHandle<Time> probe;
    std::shared_ptr<const dop::LogSourceStats> stats;
    worker.dataflow<Time>([&](auto& scope) {
      auto s = dop::log_source<Time, Rec>(scope, log, stream, parse, options);
      stats = s.stats;
      s.records | inspect_time([&](const Time& t, const Rec& r) { part.records.emplace_back(t, r); }) |
          probe_with(probe);
    });
    part.finished = step_while(worker, [&] { return !probe.done(); });
    part.stats = *stats;
    return part;
  });
  Run out;
  for (auto& part : parts) {
    out.finished &= part.finished;
    out.records.insert(out.records.end(), part.records.begin(), part.records.end());
    out.late_dropped += part.stats.late_dropped;
    out.late_emitted += part.stats.late_emitted;
    out.read += part.stats.records;
  }
  std::sort(out.records.begin(), out.records.end());
  return out;
}

}  // namespace

TEST_CASE(
    "the log source emits each record at its timestamp and drops or re-times late ones as the model does",
    "[durable]") {
  const std::uint64_t base_seed = 7001;
  const int cases = 4;
  std::cout << "durable log-source model test: seeds " << base_seed << " to " << base_seed + cases - 1
            << "\n";
  for (int c = 0; c < cases; ++c) {
    const std::uint64_t seed = base_seed + static_cast<std::uint64_t>(c);
    std::mt19937_64 rng(seed);
    TempDir dir;
    dur::Log log(dir.file("log"));
    const auto parts = make_partitions(rng, 1 + rng() % 5, c == 0 ? 0 : 6);
    write(log, "in", parts, rng);
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    for (auto lateness : {dop::Lateness::drop, dop::Lateness::at_watermark}) {
      const auto expected = model(parts, lateness);
      if (c != 0) CHECK(expected.late > 0);  // the case tests lateness at all
      dop::LogSourceOptions options;
      options.lateness = lateness;
      for (auto mode : kSourceModes)
        for (std::size_t workers : {1u, 2u, 4u}) {
          INFO("seed " << seed << ", " << parts.size() << " partitions, " << workers << " workers, "
                       << (lateness == dop::Lateness::drop ? "drop" : "at watermark"));
          const auto got = run_source(log, "in", workers, mode, options);
          CHECK(got.finished);
          CHECK(got.records == expected.records);
          CHECK(got.read == total);
          CHECK((lateness == dop::Lateness::drop ? got.late_dropped : got.late_emitted) == expected.late);
        }
    }
  }
}

TEST_CASE("the log source feeds tumbling windows with the brute-force counts", "[durable]") {
  std::mt19937_64 rng(424242);
  std::cout << "durable log-source window test: seed 424242\n";
  TempDir dir;
  dur::Log log(dir.file("log"));
  const auto parts = make_partitions(rng, 3, 0);
  write(log, "w", parts, rng);
  using Result = ts::WindowResult<Time, std::string, std::uint64_t>;
  std::map<std::tuple<std::string, Time>, std::uint64_t> counts;
  for (const auto& part : parts)
    for (const auto& [t, text] : part)
      ++counts[{text.substr(0, text.find(',')), static_cast<Time>(t) / 10 * 10}];
  std::vector<Result> expected;
  for (const auto& [key, n] : counts)
    expected.push_back({std::get<0>(key), std::get<1>(key), std::get<1>(key) + 10, n});
  std::sort(expected.begin(), expected.end());
  for (auto mode : kSourceModes)
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO(workers << " workers");
      auto outs = timely::execute(source_config(workers, mode), [&](timely::Worker& worker) {
        std::vector<Result> out;
        timely::dataflow::ProbeHandle<Time> probe;
        worker.dataflow<Time>([&](auto& scope) {
          auto s = dop::log_source<Time, Rec>(scope, log, "w", parse);
          s.records |
              ts::window(ts::tumbling<Time>(10), ts::by_key([](const Rec& r) { return r.first; }),
                         ts::count()) |
              inspect([&](const Result& r) { out.push_back(r); }) | probe_with(probe);
        });
        step_while(worker, [&] { return !probe.done(); });
        return out;
      });
      std::vector<Result> got;
      for (auto& o : outs) got.insert(got.end(), o.begin(), o.end());
      std::sort(got.begin(), got.end());
      CHECK(got == expected);
    }
}

TEST_CASE("a following log source holds its frontier at the least partition watermark", "[durable]") {
  for (auto mode : kSourceModes) {
    TempDir dir;
    dur::Log log(dir.file("log"));
    log.create_stream("f", 2);
    auto w0 = log.writer("f", 0);
    auto w1 = log.writer("f", 1);
    auto append = [](dur::Writer& w, std::int64_t t) {
      const std::string text = "k,1";
      w.append(t, std::as_bytes(std::span(text)));
    };
    auto results = timely::execute(source_config(1, mode), [&](timely::Worker& worker) {
      timely::dataflow::ProbeHandle<Time> probe;
      std::vector<std::pair<Time, Rec>> seen;
      dop::LogSourceOptions options;
      options.follow = true;
      const std::size_t index = worker.next_dataflow_index();
      worker.dataflow<Time>([&](auto& scope) {
        dop::log_source<Time, Rec>(scope, log, "f", parse, options).records |
            inspect_time([&](const Time& t, const Rec& r) { seen.emplace_back(t, r); }) | probe_with(probe);
      });
      std::vector<bool> ok;
      auto settle = [&] {
        for (int i = 0; i < 20; ++i) worker.step();
      };
      auto at = [&](Time t) { return probe.less_equal(t) && !probe.less_than(t); };
      append(w0, 5);
      settle();
      ok.push_back(at(0));  // partition 1 has nothing yet: it holds the frontier at the minimum
      append(w1, 3);
      ok.push_back(step_while(
          worker, [&] { return !at(3); }, std::chrono::seconds(10)));
      append(w1, 12);
      ok.push_back(step_while(
          worker, [&] { return !at(5); }, std::chrono::seconds(10)));
      append(w0, 9);
      ok.push_back(step_while(
          worker, [&] { return !at(9); }, std::chrono::seconds(10)));
      settle();
      ok.push_back(at(9));
      ok.push_back(seen.size() == 4);
      worker.drop_dataflow(index);
      return ok;
    });
    for (std::size_t i = 0; i < results[0].size(); ++i) {
      INFO("check " << i);
      CHECK(results[0][i]);
    }
  }
}

TEST_CASE("an idle partition stops holding the frontier after the idle timeout", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  log.create_stream("i", 2);
  auto w0 = log.writer("i", 0);
  const std::string text = "k,1";
  w0.append(20, std::as_bytes(std::span(text)));
  auto results = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
    timely::dataflow::ProbeHandle<Time> probe;
    dop::LogSourceOptions options;
    options.follow = true;
    options.idle_timeout = std::chrono::milliseconds(50);
    const std::size_t index = worker.next_dataflow_index();
    std::shared_ptr<const dop::LogSourceStats> stats;
    // Before the build: the source's idle clock starts when it is built.
    const auto start = std::chrono::steady_clock::now();
    worker.dataflow<Time>([&](auto& scope) {
      auto s = dop::log_source<Time, Rec>(scope, log, "i", parse, options);
      stats = s.stats;
      s.records | probe_with(probe);
    });
    const bool reached = step_while(
        worker, [&] { return probe.less_than(20); }, std::chrono::seconds(10));
    const auto waited = std::chrono::steady_clock::now() - start;
    // A record behind the frontier the idle partition let pass is late.
    {
      auto w1 = log.writer("i", 1);
      w1.append(4, std::as_bytes(std::span(text)));
      w1.close();
    }
    const bool counted = step_while(
        worker, [&] { return stats->late_dropped == 0; }, std::chrono::seconds(10));
    worker.drop_dataflow(index);
    return std::vector<bool>{reached, waited >= std::chrono::milliseconds(50), counted};
  });
  CHECK(results[0][0]);
  CHECK(results[0][1]);
  CHECK(results[0][2]);
}

TEST_CASE("a following log source lets its worker park, and an append wakes it", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  log.create_stream("p", 1);
  auto writer = log.writer("p", 0);
  const std::string text = "k,1";
  writer.append(1, std::as_bytes(std::span(text)));
  // Without a directory watch the source also looks every poll interval (10 ms): no long park.
  const bool watched = dur::posix_file_system()->watch(dir.file("log") / "p" / "0") != nullptr;
  auto results = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
    timely::dataflow::ProbeHandle<Time> probe;
    std::size_t seen = 0;
    dop::LogSourceOptions options;
    options.follow = true;
    const std::size_t index = worker.next_dataflow_index();
    worker.dataflow<Time>([&](auto& scope) {
      dop::log_source<Time, Rec>(scope, log, "p", parse, options).records |
          inspect([&](const Rec&) { ++seen; }) | probe_with(probe);
    });
    const bool caught_up = step_while(
        worker, [&] { return seen < 1 || probe.less_than(1); }, std::chrono::seconds(10));
    // Nothing to read: nothing is activated, so the worker parks for its whole timeout (the
    // longest of a few parks, as a wake-up left from earlier appends may end one at once).
    auto longest = std::chrono::steady_clock::duration::zero();
    for (int i = 0; i < 5; ++i) {
      const auto start = std::chrono::steady_clock::now();
      worker.step_or_park(std::chrono::milliseconds(200));
      longest = std::max(longest, std::chrono::steady_clock::now() - start);
    }
    // An append from another thread wakes the parked worker long before its timeout.
    std::thread appender([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      writer.append(2, std::as_bytes(std::span(text)));
    });
    const auto start = std::chrono::steady_clock::now();
    while (seen < 2 && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
      worker.step_or_park(std::chrono::seconds(10));
    const auto waited = std::chrono::steady_clock::now() - start;
    appender.join();
    worker.drop_dataflow(index);
    return std::vector<bool>{caught_up, longest >= std::chrono::milliseconds(150),
                             seen == 2 && waited < std::chrono::seconds(5)};
  });
  CHECK(results[0][0]);
  CHECK((results[0][1] || !watched));
  CHECK(results[0][2]);
}
