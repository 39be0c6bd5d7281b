// Capture and replay round trips: in memory and through files, on 1, 2 and 4 workers, with the
// same records and the same frontier behaviour (SEMANTICS.md §10.2-§10.3, §12 item 22).
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
using Time = std::uint64_t;
using capture_test::record_frontiers;
using capture_test::step_while;

namespace {

constexpr Time kRounds = 5;

std::uint64_t route(const std::string& s) { return std::hash<std::string>{}(s); }
std::uint64_t route(const std::pair<std::string, std::int64_t>& p) {
  return std::hash<std::string>{}(p.first);
}

/// What one worker saw of the original stream and of its replay.
template <class D>
struct Observed {
  std::vector<std::pair<Time, D>> original, replayed;
  std::vector<std::vector<Time>> original_frontiers, replayed_frontiers;
  bool finished = true;        // every bounded wait ended
  bool replay_in_step = true;  // after each round both frontiers were exactly {round + 1}
};

std::vector<std::vector<Time>> expected_frontiers() {
  std::vector<std::vector<Time>> out;
  for (Time t = 0; t <= kRounds; ++t) out.push_back({t});
  out.push_back({});
  return out;
}

std::pair<std::string, std::int64_t> make_record(Time round, std::size_t k) {
  return {"r" + std::to_string(round) + "-" + std::string(k % 7, 'x') + std::to_string(k),
          static_cast<std::int64_t>(round * 1000 + k) - 500};
}

/// Runs one worker of a live round trip: dataflow 1 captures an exchanged input stream into
/// `make_sink(index)`, dataflow 2 replays `make_source(index)` while dataflow 1 runs. Each round
/// waits until the original frontier reaches the next round, then until the replay does too.
template <class D, class MakeSink, class MakeSource>
Observed<D> live_round_trip(timely::Worker& worker, MakeSink make_sink, MakeSource make_source) {
  Observed<D> obs;
  const std::size_t index = worker.index();
  timely::dataflow::InputHandle<Time, D> input;
  timely::dataflow::ProbeHandle<Time> probe, replay_probe;
  worker.dataflow<Time>([&](auto& scope) {
    auto stream = input.to_stream(scope) | exchange([](const D& d) { return route(d); });
    stream | inspect_time([&](const Time& t, const D& d) { obs.original.emplace_back(t, d); }) |
        probe_with(probe);
    stream | record_frontiers<Time, D>(obs.original_frontiers);
    stream | capture_into(make_sink(index));
  });
  worker.dataflow<Time>([&](auto& scope) {
    auto stream = replay_into(scope, make_source(index));
    stream | inspect_time([&](const Time& t, const D& d) { obs.replayed.emplace_back(t, d); }) |
        probe_with(replay_probe);
    stream | record_frontiers<Time, D>(obs.replayed_frontiers);
  });
  for (Time round = 0; round < kRounds; ++round) {
    for (std::size_t k = 0; k < 40; ++k)
      if (k % worker.peers() == index) input.send(make_record(round, k));
    input.advance_to(round + 1);
    obs.finished &= step_while(worker, [&] { return probe.less_than(round + 1); });
    obs.finished &= step_while(worker, [&] { return replay_probe.less_than(round + 1); });
    obs.replay_in_step &= probe.less_equal(round + 1) && replay_probe.less_equal(round + 1);
  }
  input.close();
  obs.finished &= step_while(worker, [&] { return !probe.done() || !replay_probe.done(); });
  return obs;
}

/// Checks the observations of all workers of one live round trip (main thread only).
template <class D>
void check_round_trip(std::vector<Observed<D>>& parts) {
  std::vector<std::pair<Time, D>> original, replayed;
  for (auto& obs : parts) {
    CHECK(obs.finished);
    CHECK(obs.replay_in_step);
    CHECK(obs.original_frontiers == expected_frontiers());
    CHECK(obs.replayed_frontiers == obs.original_frontiers);
    original.insert(original.end(), obs.original.begin(), obs.original.end());
    replayed.insert(replayed.end(), obs.replayed.begin(), obs.replayed.end());
  }
  std::sort(original.begin(), original.end());
  std::sort(replayed.begin(), replayed.end());
  CHECK(original.size() == kRounds * 40);
  CHECK(replayed == original);
}

}  // namespace

TEST_CASE("capture then replay in memory, on another worker thread, keeps data and frontiers", "[capture]") {
  using D = std::pair<std::string, std::int64_t>;
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      std::vector<cap::EventLink<Time, D>> links(workers);
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      auto parts = timely::execute(config, [&](timely::Worker& worker) {
        // Worker i replays what worker i + 1 captured.
        return live_round_trip<D>(
            worker, [&](std::size_t i) { return links[i]; },
            [&](std::size_t i) { return links[(i + 1) % workers]; });
      });
      check_round_trip(parts);
    }
}

TEST_CASE("capture into a file while replaying it live keeps data and frontiers", "[capture]") {
  using D = std::pair<std::string, std::int64_t>;
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    capture_test::TempDir dir;
    std::vector<std::filesystem::path> paths;
    for (std::size_t i = 0; i < workers; ++i) {
      paths.push_back(dir.file("part-" + std::to_string(i) + ".events"));
      std::ofstream(paths.back(), std::ios::binary);  // exists (empty) before any reader opens it
    }
    auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      return live_round_trip<D>(
          worker, [&](std::size_t i) { return cap::EventWriter<Time, D>::create(paths[i]); },
          [&](std::size_t i) {
            return cap::EventReader<Time, D>::open(paths[(i + 1) % workers],
                                                   cap::ReaderOptions{.live = true});
          });
    });
    check_round_trip(parts);
  }
}

namespace {

/// Captures an exchanged input stream on `workers` workers into one file per worker; returns
/// the records and the frontiers worker 0 saw.
std::pair<std::vector<std::pair<Time, std::string>>, std::vector<std::vector<Time>>> capture_to_files(
    std::size_t workers, const std::vector<std::filesystem::path>& paths) {
  using D = std::string;
  struct Seen {
    std::vector<std::pair<Time, D>> data;
    std::vector<std::vector<Time>> frontiers;
  };
  auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
    Seen seen;
    timely::dataflow::InputHandle<Time, D> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope) | exchange([](const D& d) { return route(d); });
      stream | inspect_time([&](const Time& t, const D& d) { seen.data.emplace_back(t, d); }) |
          probe_with(probe);
      stream | record_frontiers<Time, D>(seen.frontiers);
      stream | capture_into(cap::EventWriter<Time, D>::create(paths[worker.index()]));
    });
    for (Time round = 0; round < kRounds; ++round) {
      for (std::size_t k = 0; k < 30; ++k)
        if (k % worker.peers() == worker.index()) input.send(make_record(round, k).first);
      input.advance_to(round + 2);  // skips every other time
      step_while(worker, [&] { return probe.less_than(round + 2); });
    }
    input.close();
    step_while(worker, [&] { return !probe.done(); });  // the recorder writes into `seen`
    return seen;
  });
  std::vector<std::pair<Time, std::string>> all;
  for (auto& part : parts) all.insert(all.end(), part.data.begin(), part.data.end());
  std::sort(all.begin(), all.end());
  return {all, parts[0].frontiers};
}

}  // namespace

TEST_CASE("files captured on W workers replay on W' workers", "[capture]") {
  using D = std::string;
  for (std::size_t capture_workers : {1u, 2u, 4u}) {
    capture_test::TempDir dir;
    std::vector<std::filesystem::path> paths;
    for (std::size_t i = 0; i < capture_workers; ++i) paths.push_back(dir.file("w" + std::to_string(i)));
    const auto [expected, original_frontiers] = capture_to_files(capture_workers, paths);
    REQUIRE(expected.size() == kRounds * 30);
    REQUIRE(original_frontiers.front() == std::vector<Time>{0});
    REQUIRE(original_frontiers.back().empty());

    for (std::size_t replay_workers : {1u, 2u, 3u, 4u}) {
      INFO("captured on " << capture_workers << ", replayed on " << replay_workers);
      struct Seen {
        std::vector<std::pair<Time, D>> data;
        std::vector<std::vector<Time>> frontiers;
        bool finished = false;
      };
      auto parts = timely::execute(timely::Config::process(replay_workers), [&](timely::Worker& worker) {
        Seen seen;
        timely::dataflow::ProbeHandle<Time> probe;
        worker.dataflow<Time>([&](auto& scope) {
          std::vector<cap::EventReader<Time, D>> readers;
          for (std::size_t i = 0; i < paths.size(); ++i)
            if (i % worker.peers() == worker.index())
              readers.push_back(cap::EventReader<Time, D>::open(paths[i]));
          auto stream = replay_into(scope, std::move(readers));
          stream | inspect_time([&](const Time& t, const D& d) { seen.data.emplace_back(t, d); }) |
              probe_with(probe);
          stream | record_frontiers<Time, D>(seen.frontiers);
        });
        seen.finished = step_while(worker, [&] { return !probe.done(); });
        return seen;
      });
      std::vector<std::pair<Time, D>> replayed;
      for (auto& part : parts) {
        CHECK(part.finished);
        // Replaying a complete file may skip intermediate frontiers, never invent or reorder them.
        CHECK(part.frontiers.front() == std::vector<Time>{0});
        CHECK(part.frontiers.back().empty());
        auto it = original_frontiers.begin();
        for (const auto& f : part.frontiers) {
          it = std::find(it, original_frontiers.end(), f);
          CHECK(it != original_frontiers.end());
        }
        replayed.insert(replayed.end(), part.data.begin(), part.data.end());
      }
      std::sort(replayed.begin(), replayed.end());
      CHECK(replayed == expected);
    }
  }
}

TEST_CASE("a capture of an empty stream replays as an empty, complete stream", "[capture]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    std::vector<cap::EventLink<Time, int>> links(workers);
    auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      timely::dataflow::InputHandle<Time, int> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>(
          [&](auto& scope) { input.to_stream(scope) | capture_into(links[worker.index()]); });
      std::vector<int> seen;
      worker.dataflow<Time>([&](auto& scope) {
        replay_into(scope, links[worker.index()]) | inspect([&](const int& x) { seen.push_back(x); }) |
            probe_with(probe);
      });
      input.close();
      const bool finished = step_while(worker, [&] { return !probe.done(); });
      return std::make_pair(finished, seen);
    });
    for (auto& [finished, seen] : parts) {
      CHECK(finished);
      CHECK(seen.empty());
    }
  }
}

TEST_CASE("replay with no streams on any worker completes at once", "[capture]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto finished = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        replay_into(scope, std::vector<cap::EventLink<Time, int>>{}) | probe_with(probe);
      });
      return step_while(worker, [&] { return !probe.done(); });
    });
    for (bool f : finished) CHECK(f);
  }
}

TEST_CASE("extract groups a finished capture's records by time", "[capture]") {
  cap::EventLink<Time, int> link;
  timely::execute_directly([&](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | capture_into(link); });
    for (int x : {5, 3, 9}) input.send(x);
    input.advance_to(4);
    for (int x : {2, 1}) input.send(x);
    input.advance_to(6);  // an empty time in between
    input.close();
  });
  auto out = cap::extract(link);
  CHECK(out == std::vector<std::pair<Time, std::vector<int>>>{{0, {3, 5, 9}}, {4, {1, 2}}});
  CHECK(link.size() == 0);
}

TEST_CASE("the capture records progress relative to one capability at the minimum", "[capture]") {
  cap::EventLink<Time, int> link;
  timely::execute_directly([&](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      stream | capture_into(link);
      stream | probe_with(probe);
    });
    input.send(7);
    input.advance_to(3);
    step_while(worker, [&] { return probe.less_than(3); });
    input.close();
  });
  // Sum of all progress changes, starting from +1 at the minimum, is zero; the first event with
  // changes moves the minimum to 3.
  timely::progress::ChangeBatch<Time> counts(0, 1);
  std::vector<cap::ProgressEvent<Time>> progress;
  std::vector<cap::MessagesEvent<Time, int>> messages;
  while (auto e = link.next()) {
    if (auto* p = std::get_if<cap::ProgressEvent<Time>>(&*e)) {
      progress.push_back(*p);
      for (auto& [t, d] : p->changes) counts.update(t, d);
    } else {
      messages.push_back(std::get<cap::MessagesEvent<Time, int>>(*e));
    }
  }
  CHECK(counts.empty());
  REQUIRE(!progress.empty());
  CHECK(progress.front().changes == std::vector<std::pair<Time, std::int64_t>>{{0, -1}, {3, 1}});
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].time == 0);
  CHECK(messages[0].data == std::vector<int>{7});
}
