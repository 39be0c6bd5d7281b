// Capture into a durable log and replay from it (timely/durable/operators/capture.hpp): the same
// records and frontiers on 1, 2, 3 and 4 replaying workers for captures on 1, 2 and 4, in both
// progress modes, reading 16 or 1 log batches per scheduling; a bounded replay handing its
// records downstream over many steps; a replay following a running capture in lock step with
// exactly the original's frontiers, never ahead of it, and one that lets its worker park until
// an append wakes it; replay from a time and from offsets against a brute-force model (fixed
// seeds, printed); and the errors of bad logs.
// One file of over 600 lines: its cases share the plan, capture and replay drivers above them.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/operators/capture.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
namespace dur = timely::durable;
namespace dop = timely::durable::operators;
using Time = std::uint64_t;
using D = std::pair<std::string, std::int64_t>;
using C = std::vector<D>;
using capture_test::record_frontiers;
using capture_test::step_while;
using capture_test::TempDir;

namespace {

constexpr timely::ProgressMode kModes[] = {timely::ProgressMode::Demand, timely::ProgressMode::Eager};

timely::Config config(std::size_t workers, timely::ProgressMode mode) {
  auto c = timely::Config::process(workers);
  c.worker.progress_mode = mode;
  return c;
}

std::uint64_t route(const D& d) { return std::hash<std::string>{}(d.first); }

/// The records a capture run sends, in rounds: within a round and across rounds the times do
/// not decrease, so that a worker sends each record after advancing its input to the record's
/// time, and closes round r at the first time of round r + 1 (or one past the last time).
using Plan = std::vector<std::vector<std::pair<Time, D>>>;

Plan fixed_plan() {
  Plan plan(5);
  for (Time round = 0; round < plan.size(); ++round) {
    for (std::size_t k = 0; k < 24; ++k)
      plan[round].emplace_back(
          round * 2 + (k % 3 == 0 ? 1 : 0),
          D{"r" + std::to_string(round) + "-" + std::string(k % 5, 'x') + std::to_string(k),
            static_cast<std::int64_t>(round * 100 + k) - 50});
    std::sort(plan[round].begin(), plan[round].end());
  }
  return plan;
}

Plan random_plan(std::mt19937_64& rng) {
  Plan plan(1 + rng() % 6);
  Time frontier = 0;
  for (auto& round : plan) {
    const std::size_t n = rng() % 20;
    for (std::size_t k = 0; k < n; ++k)
      round.emplace_back(frontier + rng() % 4,
                         D{"k" + std::to_string(rng() % 50), static_cast<std::int64_t>(rng() % 1000)});
    std::sort(round.begin(), round.end());
    frontier += 4 + rng() % 3;
  }
  return plan;
}

/// Where the input's frontier goes at the end of each round.
std::vector<Time> round_frontiers(const Plan& plan) {
  std::vector<Time> out(plan.size());
  Time last = 0;
  for (std::size_t r = 0; r < plan.size(); ++r)
    for (const auto& [t, d] : plan[r]) last = std::max(last, t);
  for (std::size_t r = 0; r < plan.size(); ++r) {
    Time next = last + 1;
    for (std::size_t later = r + 1; later < plan.size() && next == last + 1; ++later)
      if (!plan[later].empty()) next = plan[later].front().first;
    out[r] = next;
  }
  return out;
}

struct Captured {
  std::vector<std::pair<Time, D>> data;  // every record, sorted
  // Each capturing worker's view of the captured stream's frontier, in order (what its
  // partition records).
  std::vector<std::vector<std::vector<Time>>> frontiers;
};

/// Captures the plan's records, exchanged, on `workers` workers into log stream `name`.
Captured capture_plan(const dur::Log& log, const std::string& name, const Plan& plan, std::size_t workers,
                      timely::ProgressMode mode) {
  struct Seen {
    std::vector<std::pair<Time, D>> data;
    std::vector<std::vector<Time>> frontiers;
    bool finished = true;
  };
  const auto closes = round_frontiers(plan);
  auto parts = timely::execute(config(workers, mode), [&](timely::Worker& worker) {
    Seen seen;
    timely::dataflow::InputHandle<Time, D> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope) | exchange([](const D& d) { return route(d); });
      stream | inspect_time([&](const Time& t, const D& d) { seen.data.emplace_back(t, d); }) |
          probe_with(probe);
      stream | record_frontiers<Time, D>(seen.frontiers);
      stream | dop::capture_into_log(log, name);
    });
    for (std::size_t r = 0; r < plan.size(); ++r) {
      for (std::size_t k = 0; k < plan[r].size(); ++k)
        if (k % worker.peers() == worker.index()) {
          input.advance_to(plan[r][k].first);
          input.send(plan[r][k].second);
        }
      input.advance_to(closes[r]);
      seen.finished &= step_while(worker, [&] { return probe.less_than(closes[r]); });
    }
    input.close();
    seen.finished &= step_while(worker, [&] { return !probe.done(); });
    return seen;
  });
  Captured out;
  for (auto& part : parts) {
    REQUIRE(part.finished);
    out.data.insert(out.data.end(), part.data.begin(), part.data.end());
  }
  std::sort(out.data.begin(), out.data.end());
  for (auto& part : parts) out.frontiers.push_back(part.frontiers);
  return out;
}

struct Replayed {
  std::vector<std::pair<Time, D>> data;
  std::vector<std::vector<std::vector<Time>>> frontiers;  // per worker
};

Replayed replay(const dur::Log& log, const std::string& name, std::size_t workers, timely::ProgressMode mode,
                dop::ReplayOptions<Time> options = {}) {
  struct Seen {
    std::vector<std::pair<Time, D>> data;
    std::vector<std::vector<Time>> frontiers;
    bool finished = false;
  };
  auto parts = timely::execute(config(workers, mode), [&](timely::Worker& worker) {
    Seen seen;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = dop::replay_from_log<Time, C>(scope, log, name, options);
      stream | inspect_time([&](const Time& t, const D& d) { seen.data.emplace_back(t, d); }) |
          probe_with(probe);
      stream | record_frontiers<Time, D>(seen.frontiers);
    });
    seen.finished = step_while(worker, [&] { return !probe.done(); });
    return seen;
  });
  Replayed out;
  for (auto& part : parts) {
    REQUIRE(part.finished);
    out.data.insert(out.data.end(), part.data.begin(), part.data.end());
    out.frontiers.push_back(part.frontiers);
  }
  std::sort(out.data.begin(), out.data.end());
  return out;
}

/// A complete replay may skip frontiers of the original (it applies what it reads at once) and,
/// reading partitions at different paces, show one that only some capturing worker saw (each
/// partition records its worker's view; the replay holds the least of the partitions'), but it
/// never shows a frontier no capturing worker saw, never goes back, and ends empty.
void check_frontiers_follow(const std::vector<std::vector<Time>>& replayed,
                            const std::vector<std::vector<std::vector<Time>>>& original) {
  REQUIRE(!replayed.empty());
  CHECK(replayed.front() == std::vector<Time>{0});
  CHECK(replayed.back().empty());
  auto show = [](const std::vector<std::vector<Time>>& frontiers) {
    std::string out;
    for (const auto& f : frontiers) {
      out += "{";
      for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + std::to_string(f[i]);
      out += "} ";
    }
    return out;
  };
  // Every frontier here is a single time or empty (u64 times): "not back" is "later or empty".
  auto rank = [](const std::vector<Time>& f) {
    return f.empty() ? std::numeric_limits<Time>::max() : *std::min_element(f.begin(), f.end());
  };
  for (std::size_t i = 0; i < replayed.size(); ++i) {
    const auto& f = replayed[i];
    bool seen = false;
    for (const auto& worker : original) seen |= std::find(worker.begin(), worker.end(), f) != worker.end();
    std::string originals;
    for (const auto& worker : original) originals += "[" + show(worker) + "] ";
    INFO("replayed " << show(replayed) << "; captured by each worker " << originals);
    CHECK(seen);
    if (i > 0) CHECK(rank(replayed[i - 1]) < rank(f));
  }
}

}  // namespace

TEST_CASE("a stream captured into a log on W workers replays on W' workers with its records and frontiers",
          "[durable]") {
  const Plan plan = fixed_plan();
  for (auto mode : kModes)
    for (std::size_t capture_workers : {1u, 2u, 4u}) {
      TempDir dir;
      dur::Log log(dir.file("log"));
      const auto original = capture_plan(log, "events", plan, capture_workers, mode);
      REQUIRE(original.data.size() == 5 * 24);
      CHECK(log.partitions("events").size() == capture_workers);
      for (std::size_t replay_workers : {1u, 2u, 3u, 4u})
        for (std::size_t batches : {16u, 1u}) {  // the default, and one log batch per scheduling
          INFO("captured on " << capture_workers << ", replayed on " << replay_workers
                              << (mode == timely::ProgressMode::Eager ? ", eager" : ", demand") << ", "
                              << batches << " batches per scheduling");
          dop::ReplayOptions<Time> options;
          options.batches_per_schedule = batches;
          const auto replayed = replay(log, "events", replay_workers, mode, options);
          CHECK(replayed.data == original.data);
          for (const auto& f : replayed.frontiers) check_frontiers_follow(f, original.frontiers);
        }
    }
}

TEST_CASE("a bounded replay hands a scheduling's log batches downstream before it reads more", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  const auto original = capture_plan(log, "events", fixed_plan(), 1, timely::ProgressMode::Demand);
  // The log batches that hold a messages event (kind 2: the first byte of its frame).
  std::size_t log_batches = 0, message_batches = 0;
  {
    auto reader = log.reader("events", 0, dur::Start::beginning());
    while (auto batch = reader.next_batch()) {
      ++log_batches;
      bool messages = false;
      for (auto record : *batch)  // (the header record starts with 'T')
        messages |=
            !record.bytes.empty() && static_cast<std::uint8_t>(record.bytes[0]) == cap::format::kind_messages;
      message_batches += messages ? 1 : 0;
    }
  }
  REQUIRE(message_batches >= 5);
  for (std::size_t batches : {1u, 2u}) {
    INFO(batches << " batches per scheduling, of " << log_batches);
    struct Seen {
      std::vector<std::pair<Time, D>> data;
      std::vector<std::size_t> counts;  // records seen after each step that saw some
      std::vector<std::vector<Time>> frontiers;
    };
    auto parts = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      Seen seen;
      timely::dataflow::ProbeHandle<Time> probe;
      dop::ReplayOptions<Time> options;
      options.batches_per_schedule = batches;
      worker.dataflow<Time>([&](auto& scope) {
        auto stream = dop::replay_from_log<Time, C>(scope, log, "events", options);
        stream | inspect_time([&](const Time& t, const D& d) { seen.data.emplace_back(t, d); }) |
            probe_with(probe);
        stream | record_frontiers<Time, D>(seen.frontiers);
      });
      for (int i = 0; i < 10000 && !probe.done(); ++i) {
        const std::size_t before = seen.data.size();
        worker.step();
        if (seen.data.size() != before) seen.counts.push_back(seen.data.size());
      }
      return seen;
    });
    auto& seen = parts[0];
    std::sort(seen.data.begin(), seen.data.end());
    CHECK(seen.data == original.data);
    check_frontiers_follow(seen.frontiers, original.frontiers);
    // The records arrive over many steps, not all in the first that sees any: with one log
    // batch per scheduling, one step for each batch that holds records.
    INFO("records seen after steps: " << seen.counts.size() << "; log batches with records: "
                                      << message_batches << " of " << log_batches);
    if (batches == 1)
      CHECK(seen.counts.size() == message_batches);
    else
      CHECK(seen.counts.size() >= (message_batches + batches - 1) / batches);
  }
}

TEST_CASE("a following replay lets its worker park, and an append wakes it", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  const auto original = capture_plan(log, "whole", fixed_plan(), 1, timely::ProgressMode::Demand);
  // The same records but the last (the final retraction), as a capture still running; the
  // last record is appended later, from another thread.
  std::optional<dur::Writer> writer(log.writer("cut", 0));
  std::optional<std::pair<std::int64_t, std::vector<std::byte>>> last;
  {
    auto reader = log.reader("whole", 0, dur::Start::beginning());
    const auto end = log.stats("whole", 0).end_offset;
    std::uint64_t offset = 0;
    while (auto batch = reader.next_batch())
      for (auto record : *batch) {
        if (offset++ + 1 < end)
          writer->append(record.timestamp, record.bytes);
        else
          last.emplace(record.timestamp, std::vector<std::byte>(record.bytes.begin(), record.bytes.end()));
      }
  }
  REQUIRE(last);
  const bool watched = dur::posix_file_system()->watch(dir.file("log") / "cut" / "0") != nullptr;
  auto results = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
    timely::dataflow::ProbeHandle<Time> probe;
    std::vector<std::pair<Time, D>> data;
    dop::ReplayOptions<Time> options;
    options.follow = true;
    worker.dataflow<Time>([&](auto& scope) {
      dop::replay_from_log<Time, C>(scope, log, "cut", options) |
          inspect_time([&](const Time& t, const D& d) { data.emplace_back(t, d); }) | probe_with(probe);
    });
    const bool caught_up = step_while(
        worker, [&] { return data.size() < original.data.size() || probe.less_than(10); },
        std::chrono::seconds(10));
    // Nothing to read: the worker parks for its whole timeout (the longest of a few parks, as a
    // wake-up left from earlier appends may end one at once).
    auto longest = std::chrono::steady_clock::duration::zero();
    for (int i = 0; i < 5; ++i) {
      const auto start = std::chrono::steady_clock::now();
      worker.step_or_park(std::chrono::milliseconds(200));
      longest = std::max(longest, std::chrono::steady_clock::now() - start);
    }
    const bool held = probe.less_equal(10) && !probe.less_than(10);
    // The last record, appended from another thread, wakes the parked worker and completes it.
    std::thread appender([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      writer->append(last->first, last->second);
    });
    const auto start = std::chrono::steady_clock::now();
    while (!probe.done() && std::chrono::steady_clock::now() - start < std::chrono::seconds(30))
      worker.step_or_park(std::chrono::seconds(10));
    const auto waited = std::chrono::steady_clock::now() - start;
    appender.join();
    std::sort(data.begin(), data.end());
    return std::vector<bool>{caught_up, held, longest >= std::chrono::milliseconds(150),
                             probe.done() && waited < std::chrono::seconds(5), data == original.data};
  });
  for (std::size_t i = 0; i < results[0].size(); ++i) {
    INFO("check " << i);
    CHECK((results[0][i] || (i == 2 && !watched)));
  }
}

TEST_CASE("a replay following a running capture has exactly its frontiers and is never ahead of it",
          "[durable]") {
  constexpr Time kRounds = 5;
  for (auto mode : kModes)
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? ", eager" : ", demand"));
      TempDir dir;
      dur::Log log(dir.file("log"));
      struct Seen {
        std::vector<std::pair<Time, D>> original, replayed;
        std::vector<std::vector<Time>> original_frontiers, replayed_frontiers;
        bool finished = true, never_ahead = true;
      };
      auto parts = timely::execute(config(workers, mode), [&](timely::Worker& worker) {
        Seen seen;
        timely::dataflow::InputHandle<Time, D> input;
        timely::dataflow::ProbeHandle<Time> probe, replay_probe;
        worker.dataflow<Time>([&](auto& scope) {
          auto stream = input.to_stream(scope) | exchange([](const D& d) { return route(d); });
          stream | inspect_time([&](const Time& t, const D& d) { seen.original.emplace_back(t, d); }) |
              probe_with(probe);
          stream | record_frontiers<Time, D>(seen.original_frontiers);
          stream | dop::capture_into_log(log, "live");
        });
        worker.dataflow<Time>([&](auto& scope) {
          dop::ReplayOptions<Time> options;
          options.follow = true;
          auto stream = dop::replay_from_log<Time, C>(scope, log, "live", options);
          stream | inspect_time([&](const Time& t, const D& d) { seen.replayed.emplace_back(t, d); }) |
              probe_with(replay_probe);
          stream | record_frontiers<Time, D>(seen.replayed_frontiers);
        });
        for (Time round = 0; round < kRounds; ++round) {
          for (std::size_t k = 0; k < 30; ++k)
            if (k % worker.peers() == worker.index())
              input.send(
                  D{"w" + std::to_string(round) + "-" + std::to_string(k), static_cast<std::int64_t>(k)});
          // Before the input advances, the replay may not pass the round however long it runs.
          for (int i = 0; i < 50; ++i) {
            worker.step();
            seen.never_ahead &= !replay_probe.less_than(round) && replay_probe.less_equal(round);
          }
          input.advance_to(round + 1);
          seen.finished &= step_while(worker, [&] { return probe.less_than(round + 1); });
          seen.finished &= step_while(worker, [&] { return replay_probe.less_than(round + 1); });
        }
        input.close();
        seen.finished &= step_while(worker, [&] { return !probe.done() || !replay_probe.done(); });
        return seen;
      });
      std::vector<std::pair<Time, D>> original, replayed;
      std::vector<std::vector<Time>> expected;
      for (Time t = 0; t <= kRounds; ++t) expected.push_back({t});
      expected.push_back({});
      for (auto& part : parts) {
        CHECK(part.finished);
        CHECK(part.never_ahead);
        CHECK(part.original_frontiers == expected);
        CHECK(part.replayed_frontiers == part.original_frontiers);
        original.insert(original.end(), part.original.begin(), part.original.end());
        replayed.insert(replayed.end(), part.replayed.begin(), part.replayed.end());
      }
      std::sort(original.begin(), original.end());
      std::sort(replayed.begin(), replayed.end());
      CHECK(original.size() == kRounds * 30);
      CHECK(replayed == original);
    }
}

namespace {

/// The brute-force model of a replay from offsets: every partition read record by record,
/// each event decoded on its own, a messages event's records kept iff its offset is at least
/// the partition's start offset.
std::vector<std::pair<Time, D>> model_from_offsets(const dur::Log& log, const std::string& name,
                                                   const std::vector<std::uint64_t>& starts,
                                                   std::vector<std::uint64_t>* ends) {
  std::vector<std::pair<Time, D>> out;
  for (auto p : log.partitions(name)) {
    auto reader = log.reader(name, p, dur::Start::beginning());
    std::uint64_t offset = 0;
    while (auto batch = reader.next_batch()) {
      for (auto record : *batch) {
        if (offset > 0) {
          std::vector<std::uint8_t> bytes(record.bytes.size());
          std::memcpy(bytes.data(), record.bytes.data(), bytes.size());
          const std::size_t total = cap::detail::frame_total(bytes.data(), 0, bytes.size());
          auto event = cap::detail::decode_frame<Time, C>(std::span(bytes).first(total), 0, nullptr);
          if (auto* m = std::get_if<cap::MessagesEventCore<Time, C>>(&event))
            if (p >= starts.size() || offset >= starts[p])
              for (auto& d : m->data) out.emplace_back(m->time, d);
        }
        ++offset;
      }
    }
    if (ends) ends->push_back(offset);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("replay from a time and from offsets gives the model's records and the original's frontiers",
          "[durable]") {
  const std::uint64_t base_seed = 20261203;
  const int cases = 12;
  std::cout << "durable replay-from model test: seeds " << base_seed << " to " << base_seed + cases - 1
            << "\n";
  for (int c = 0; c < cases; ++c) {
    const std::uint64_t seed = base_seed + static_cast<std::uint64_t>(c);
    std::mt19937_64 rng(seed);
    const Plan plan = random_plan(rng);
    const std::size_t capture_workers = std::size_t{1} << (rng() % 3);
    const std::size_t replay_workers = 1 + rng() % 4;
    const auto mode = kModes[rng() % 2];
    INFO("seed " << seed << ": captured on " << capture_workers << ", replayed on " << replay_workers);
    TempDir dir;
    dur::Log log(dir.file("log"));
    const auto original = capture_plan(log, "s", plan, capture_workers, mode);

    // From a time.
    const Time from =
        original.data.empty() ? 0 : original.data[rng() % original.data.size()].first + rng() % 2;
    std::vector<std::pair<Time, D>> expected;
    for (const auto& [t, d] : original.data)
      if (t >= from) expected.emplace_back(t, d);
    dop::ReplayOptions<Time> by_time;
    by_time.from = dop::ReplayFrom<Time>::time(from);
    const auto at_time = replay(log, "s", replay_workers, mode, by_time);
    INFO("from time " << from);
    CHECK(at_time.data == expected);
    for (const auto& f : at_time.frontiers) check_frontiers_follow(f, original.frontiers);

    // From offsets: one random start per partition, fewer starts than partitions at times.
    std::vector<std::uint64_t> ends;
    (void)model_from_offsets(log, "s", {}, &ends);
    std::vector<std::uint64_t> starts;
    const std::size_t given = rng() % (ends.size() + 1);
    for (std::size_t p = 0; p < given; ++p) starts.push_back(rng() % (ends[p] + 1));
    dop::ReplayOptions<Time> by_offsets;
    by_offsets.from = dop::ReplayFrom<Time>::offsets(starts);
    const auto at_offsets = replay(log, "s", replay_workers, mode, by_offsets);
    CHECK(at_offsets.data == model_from_offsets(log, "s", starts, nullptr));
    for (const auto& f : at_offsets.frontiers) check_frontiers_follow(f, original.frontiers);
    // From offset 0 everywhere is the whole stream.
    CHECK(model_from_offsets(log, "s", {}, nullptr) == original.data);
  }
}

TEST_CASE("capture and replay errors name the partition and what is wrong", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  const Plan plan = fixed_plan();
  (void)capture_plan(log, "done", plan, 2, timely::ProgressMode::Demand);

  SECTION("a capture into a partition that holds records") {
    try {
      (void)capture_plan(log, "done", plan, 1, timely::ProgressMode::Demand);
      FAIL("no error");
    } catch (const dur::ArgumentError& e) {
      CHECK(e.partition() == "done/0");
      CHECK(std::string(e.what()).find("empty partition") != std::string::npos);
    }
  }
  SECTION("a replay with another record type") {
    auto parts = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      try {
        worker.dataflow<Time>(
            [&](auto& scope) { (void)dop::replay_from_log<Time, std::vector<int>>(scope, log, "done"); });
      } catch (const cap::FormatError& e) {
        return std::make_pair(e.kind(), std::string(e.what()));
      }
      return std::make_pair(cap::FormatErrorKind::Io, std::string());
    });
    CHECK(parts[0].first == cap::FormatErrorKind::SchemaMismatch);
    CHECK(parts[0].second.find("done/0") != std::string::npos);
  }
  SECTION("a replay of a missing stream") {
    auto parts = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      try {
        worker.dataflow<Time>(
            [&](auto& scope) { (void)dop::replay_from_log<Time, C>(scope, log, "missing"); });
      } catch (const dur::ArgumentError&) {
        return true;
      }
      return false;
    });
    CHECK(parts[0]);
  }
  SECTION("a partition missing below the capture's worker count") {
    std::filesystem::remove_all(dir.file("log") / "done" / "1");
    auto parts = timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      try {
        worker.dataflow<Time>([&](auto& scope) { (void)dop::replay_from_log<Time, C>(scope, log, "done"); });
      } catch (const cap::FormatError& e) {
        return std::string(e.what());
      }
      return std::string();
    });
    INFO(parts[0]);
    CHECK(parts[0].find("ran on 2 workers") != std::string::npos);
    CHECK(parts[0].find("missing: 1") != std::string::npos);
  }
  SECTION("an incomplete capture, and a record that is not an event") {
    {
      auto writer = log.writer("done", 1);
      const std::string junk = "not an event frame at all";
      writer.append(7, std::as_bytes(std::span(junk)));
      writer.close();
    }
    // Worker 1 reads partition 1, where the junk follows the completed stream's last event;
    // execute rethrows the first worker's exception.
    std::string message;
    try {
      timely::execute(timely::Config::process(2), [&](timely::Worker& worker) {
        timely::dataflow::ProbeHandle<Time> probe;
        worker.dataflow<Time>(
            [&](auto& scope) { dop::replay_from_log<Time, C>(scope, log, "done") | probe_with(probe); });
        step_while(
            worker, [&] { return !probe.done(); }, std::chrono::seconds(20));
      });
    } catch (const cap::FormatError& e) {
      message = e.what();
    }
    CHECK(message.find("done/1") != std::string::npos);
    const auto end = log.stats("done", 1).end_offset;
    CHECK(message.find("log offset " + std::to_string(end - 1)) != std::string::npos);
  }
}

TEST_CASE("a capture that did not complete is reported as incomplete by a bounded replay", "[durable]") {
  TempDir dir;
  dur::Log log(dir.file("log"));
  (void)capture_plan(log, "whole", fixed_plan(), 1, timely::ProgressMode::Demand);
  // The same records but the last (the final retraction), as a capture that stopped there.
  {
    auto reader = log.reader("whole", 0, dur::Start::beginning());
    auto writer = log.writer("cut", 0);
    const auto end = log.stats("whole", 0).end_offset;
    std::uint64_t offset = 0;
    while (auto batch = reader.next_batch())
      for (auto record : *batch)
        if (offset++ + 1 < end) writer.append(record.timestamp, record.bytes);
    writer.close();
  }
  std::optional<cap::FormatError> error;
  try {
    timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>(
          [&](auto& scope) { dop::replay_from_log<Time, C>(scope, log, "cut") | probe_with(probe); });
      step_while(
          worker, [&] { return !probe.done(); }, std::chrono::seconds(20));
    });
  } catch (const cap::FormatError& e) {
    error = e;
  }
  REQUIRE(error);
  CHECK(error->kind() == cap::FormatErrorKind::Incomplete);
  CHECK(std::string(error->what()).find("cut/0") != std::string::npos);
  CHECK(std::string(error->what()).find("{10}") != std::string::npos);
  // Following instead, the replay waits at the cut without finishing or failing.
  auto waits = timely::execute(timely::Config::process(2), [&](timely::Worker& worker) {
    timely::dataflow::ProbeHandle<Time> probe;
    dop::ReplayOptions<Time> options;
    options.follow = true;
    const std::size_t index = worker.next_dataflow_index();
    worker.dataflow<Time>(
        [&](auto& scope) { dop::replay_from_log<Time, C>(scope, log, "cut", options) | probe_with(probe); });
    const bool done = step_while(
        worker, [&] { return !probe.done(); }, std::chrono::milliseconds(300));
    const bool held = probe.less_equal(10) && !probe.less_than(10);  // the last round's close
    worker.drop_dataflow(index);
    return !done && held;
  });
  CHECK(waits[0]);
  CHECK(waits[1]);
}
