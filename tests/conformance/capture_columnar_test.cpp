// Capture and replay over any container: a stream of (u64, string) records in std::vector batches
// and in columnar batches, captured on 1, 2 and 4 workers in both progress modes into EventLinks
// and files, then replayed on 1, 2 and 4 workers from the links, through the streaming reader
// and through the mapped reader, in lock step with the original's rounds: the same records and
// exactly the same frontiers; the mapped reader's columnar batches borrow the file's bytes
// (capture.hpp, capture/event.hpp, capture/frames.hpp, capture/mapped.hpp).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/mapped.hpp>
#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/container/columnar.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
using Time = std::uint64_t;
using P = std::pair<std::uint64_t, std::string>;
using Row = std::tuple<Time, std::uint64_t, std::string>;
using VecC = std::vector<P>;
using ColC = timely::container::columnar::Batch<P>;
using capture_test::record_container_frontiers;
using capture_test::step_while;

namespace {

constexpr Time kColumnarRounds = 5;
constexpr std::uint64_t kPerRound = 48;

/// Record `k` of round `round`: empty strings, short ones, and one of 40000 bytes in round 2.
P record_at(Time round, std::uint64_t k) {
  if (round == 2 && k == 5) return {k, std::string(40000, 'L')};
  return {k * 13 + round,
          std::string(static_cast<std::size_t>((k * 5 + round) % 11), static_cast<char>('a' + k % 26))};
}

std::vector<Row> model() {
  std::vector<Row> out;
  for (Time r = 0; r < kColumnarRounds; ++r)
    for (std::uint64_t k = 0; k < kPerRound; ++k) {
      auto [key, text] = record_at(r, k);
      out.emplace_back(r, key, text);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::vector<Time>> expected_columnar_frontiers() {
  std::vector<std::vector<Time>> out;
  for (Time t = 0; t <= kColumnarRounds; ++t) out.push_back({t});
  out.push_back({});
  return out;
}

template <class C>
std::vector<Row> rows_of(const Time& time, const C& batch) {
  std::vector<Row> out;
  for (auto&& r : batch) out.emplace_back(time, std::get<0>(r), std::string(std::get<1>(r)));
  return out;
}

const char* mode_name(timely::ProgressMode mode) {
  return mode == timely::ProgressMode::Eager ? "eager" : "demand";
}

/// What one worker of the capture saw of the original stream.
struct Original {
  std::vector<Row> rows;
  std::vector<std::vector<Time>> frontiers;
  std::size_t borrowed = 0;  // batches that borrow bytes (columnar only)
  bool finished = true;
};

/// One sink writing into a link and a file, which also tells the test the latest time at which
/// the capture recorded a capability.
template <class C>
struct LinkAndFile {
  cap::EventLinkCore<Time, C> link;
  cap::EventWriterCore<Time, C> writer;
  std::shared_ptr<std::atomic<Time>> recorded;

  void push(cap::EventCore<Time, C>&& event) {
    writer.push(event);
    if (const auto* p = std::get_if<cap::ProgressEvent<Time>>(&event))
      for (const auto& [t, diff] : p->changes)
        if (diff > 0 && t > recorded->load()) recorded->store(t);
    link.push(std::move(event));
  }
  void flush() { writer.flush(); }
};

/// Captures an exchanged input stream of containers `C` on `workers` workers, each into
/// `links[i]` and the file `files[i]`. Each round waits until the capture has recorded the
/// frontier's move to the next round, so that every captured stream holds every frontier.
template <class C>
std::vector<Original> capture(std::size_t workers, timely::ProgressMode mode,
                              std::vector<cap::EventLinkCore<Time, C>>& links,
                              const std::vector<std::filesystem::path>& files, bool zerocopy = false) {
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  config.network.zerocopy = zerocopy;
  return timely::execute(config, [&](timely::Worker& worker) {
    Original seen;
    timely::dataflow::InputHandleCore<Time, C> input;
    timely::dataflow::ProbeHandle<Time> probe;
    auto recorded = std::make_shared<std::atomic<Time>>(0);
    worker.dataflow<Time>([&](auto& scope) {
      auto s = input.to_stream(scope) | exchange([](const auto& r) { return std::get<0>(r); });
      s | inspect_container([&](const Time& t, const C& batch) {
        if constexpr (!timely::container::Vector<C>) seen.borrowed += batch.borrowed() ? 1 : 0;
        for (auto& row : rows_of(t, batch)) seen.rows.push_back(std::move(row));
      }) | probe_with(probe);
      s | record_container_frontiers<Time, C>(seen.frontiers);
      s | capture_into(LinkAndFile<C>{
              links[worker.index()], cap::EventWriterCore<Time, C>::create(files[worker.index()]), recorded});
    });
    for (Time round = 0; round < kColumnarRounds; ++round) {
      for (std::uint64_t k = 0; k < kPerRound; ++k)
        if (k % worker.peers() == worker.index()) input.send(record_at(round, k));
      input.advance_to(round + 1);
      seen.finished &=
          step_while(worker, [&] { return probe.less_than(round + 1) || recorded->load() < round + 1; });
    }
    input.close();
    seen.finished &= step_while(worker, [&] { return !probe.done(); });
    return seen;
  });
}

/// An event source that holds back every progress event with an increment beyond `*bound` or a
/// retraction at or beyond it, so that a replay's frontier reaches `*bound` and stays there
/// until the test raises it.
template <class S>
struct Gated {
  using Time = typename S::Time;
  using Container = typename S::Container;

  S source;
  std::shared_ptr<std::atomic<Time>> bound;
  std::optional<cap::EventCore<Time, Container>> held;

  std::optional<cap::EventCore<Time, Container>> next() {
    if (!held) held = source.next();
    if (!held) return std::nullopt;
    if (const auto* p = std::get_if<cap::ProgressEvent<Time>>(&*held))
      for (const auto& [t, diff] : p->changes)
        if (diff > 0 ? t > bound->load() : t >= bound->load()) return std::nullopt;
    auto out = std::move(held);
    held.reset();
    return out;
  }
  bool exhausted() const requires requires(const S& s) { s.exhausted(); }
  { return !held && source.exhausted(); }
};

/// What one worker of a replay saw.
template <class C>
struct WorkerReplay {
  std::vector<Row> rows;
  std::vector<std::vector<Time>> frontiers;
  std::size_t batches = 0;
  std::size_t borrowed = 0;              // batches that borrow bytes (columnar only)
  std::size_t in_mapping = 0;            // batches whose owner is the mapping of one of this worker's files
  std::vector<std::pair<Time, C>> kept;  // copies of replayed batches, kept beyond the replay
  std::vector<std::vector<Row>> kept_rows;
  bool finished = true;
};

/// Replays on `workers` workers the sources `make(i, bound, owners)` gives for every captured
/// stream `i` with `i % workers == index`, round by round: all workers let their sources reach
/// round r + 1 only once every worker has seen the frontier pass round r.
template <class C, class Make>
std::vector<WorkerReplay<C>> replay(std::size_t workers, std::size_t streams, timely::ProgressMode mode,
                                    Make make) {
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  std::vector<std::atomic<std::size_t>> arrived(kColumnarRounds + 2);
  arrived[0] = workers;
  return timely::execute(config, [&](timely::Worker& worker) {
    WorkerReplay<C> seen;
    auto bound = std::make_shared<std::atomic<Time>>(0);
    std::vector<const void*> owners;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      using Source = decltype(make(std::size_t{}, bound, owners));
      std::vector<Source> sources;
      for (std::size_t i = worker.index(); i < streams; i += worker.peers())
        sources.push_back(make(i, bound, owners));
      auto s = replay_into(scope, std::move(sources));
      s | inspect_container([&](const Time& t, const C& batch) {
        ++seen.batches;
        if constexpr (!timely::container::Vector<C>) {
          if (batch.borrowed()) ++seen.borrowed;
          if (std::find(owners.begin(), owners.end(), batch.owner().get()) != owners.end()) ++seen.in_mapping;
        }
        if (seen.kept.size() < 3) {
          seen.kept.emplace_back(t, batch);
          seen.kept_rows.push_back(rows_of(t, batch));
        }
        for (auto& row : rows_of(t, batch)) seen.rows.push_back(std::move(row));
      }) | probe_with(probe);
      s | record_container_frontiers<Time, C>(seen.frontiers);
    });
    for (Time round = 0; round <= kColumnarRounds; ++round) {
      seen.finished &= step_while(worker, [&] { return arrived[round].load() < worker.peers(); });
      if (round < kColumnarRounds) {
        bound->store(round + 1);
        seen.finished &= step_while(worker, [&] { return probe.less_than(round + 1); });
      } else {
        bound->store(std::numeric_limits<Time>::max());
        seen.finished &= step_while(worker, [&] { return !probe.done(); });
      }
      ++arrived[round + 1];
    }
    return seen;
  });
}

/// Checks one replay against the original and the model; `borrowing` says whether every batch
/// must borrow the mapped file (columnar from the mapped reader) or none may (the streaming
/// reader copies).
template <class C>
void check_replay(std::vector<WorkerReplay<C>>& parts, const std::vector<Row>& expected,
                  std::optional<bool> borrowing) {
  std::vector<Row> rows;
  std::size_t batches = 0, borrowed = 0, in_mapping = 0;
  for (auto& part : parts) {
    CHECK(part.finished);
    CHECK(part.frontiers == expected_columnar_frontiers());
    rows.insert(rows.end(), part.rows.begin(), part.rows.end());
    batches += part.batches;
    borrowed += part.borrowed;
    in_mapping += part.in_mapping;
    // The kept batches outlive the replay (and, for the mapped reader, the reader).
    for (std::size_t i = 0; i < part.kept.size(); ++i)
      CHECK(rows_of(part.kept[i].first, part.kept[i].second) == part.kept_rows[i]);
  }
  std::sort(rows.begin(), rows.end());
  CHECK(rows == expected);
  CHECK(batches > 0);
  if (borrowing.has_value()) {
    if (*borrowing) {
      CHECK(borrowed == batches);
      CHECK(in_mapping == batches);
      if constexpr (!timely::container::Vector<C>)
        for (auto& part : parts)
          for (auto& [t, batch] : part.kept) CHECK(batch.borrowed());
    } else {
      CHECK(borrowed == 0);
    }
  }
}

template <class C>
void round_trips() {
  const auto expected = model();
  constexpr bool columnar = !timely::container::Vector<C>;
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t capture_workers : {1u, 2u, 4u}) {
      capture_test::TempDir dir;
      std::vector<std::filesystem::path> files;
      for (std::size_t i = 0; i < capture_workers; ++i)
        files.push_back(dir.file("part-" + std::to_string(i)));
      std::vector<cap::EventLinkCore<Time, C>> links(capture_workers);
      auto original = capture<C>(capture_workers, mode, links, files);
      std::vector<Row> rows;
      for (auto& part : original) {
        CHECK(part.finished);
        CHECK(part.frontiers == expected_columnar_frontiers());
        rows.insert(rows.end(), part.rows.begin(), part.rows.end());
      }
      std::sort(rows.begin(), rows.end());
      REQUIRE(rows == expected);

      for (std::size_t replay_workers : {1u, 2u, 4u}) {
        INFO((columnar ? "columnar" : "vector") << ", " << mode_name(mode) << ", captured on "
                                                << capture_workers << ", replayed on " << replay_workers);
        {
          INFO("mapped reader");
          auto parts =
              replay<C>(replay_workers, capture_workers, mode, [&](std::size_t i, auto bound, auto& owners) {
                auto reader = cap::MappedEventReaderCore<Time, C>::open(files[i]);
                owners.push_back(reader.mapping().get());
                return Gated<cap::MappedEventReaderCore<Time, C>>{std::move(reader), bound, {}};
              });
          check_replay(parts, expected, columnar ? std::optional<bool>(true) : std::nullopt);
        }
        {
          INFO("streaming reader");
          auto parts =
              replay<C>(replay_workers, capture_workers, mode, [&](std::size_t i, auto bound, auto&) {
                return Gated<cap::EventReaderCore<Time, C>>{
                    cap::EventReaderCore<Time, C>::open(files[i]), bound, {}};
              });
          check_replay(parts, expected, columnar ? std::optional<bool>(false) : std::nullopt);
        }
      }
      // A link is read once: replay it on a different number of workers than captured it.
      const std::size_t replay_workers = capture_workers == 4 ? 1 : capture_workers * 2;
      INFO((columnar ? "columnar" : "vector")
           << ", " << mode_name(mode) << ", captured on " << capture_workers << ", replayed from links on "
           << replay_workers);
      auto parts = replay<C>(replay_workers, capture_workers, mode, [&](std::size_t i, auto bound, auto&) {
        return Gated<cap::EventLinkCore<Time, C>>{links[i], bound, {}};
      });
      check_replay(parts, expected, std::nullopt);
      for (auto& link : links) CHECK(link.size() == 0);
    }
}

}  // namespace

TEST_CASE(
    "vector streams replay from links, streamed files and mapped files with the same records and frontiers",
    "[capture][containers]") {
  round_trips<VecC>();
}

TEST_CASE(
    "columnar streams replay from links, streamed files and mapped files with the same records and frontiers",
    "[capture][containers]") {
  round_trips<ColC>();
}

TEST_CASE("extract groups a columnar capture's records by time into one sorted batch each",
          "[capture][containers]") {
  cap::EventLinkCore<Time, ColC> link;
  timely::execute_directly([&](timely::Worker& worker) {
    timely::dataflow::InputHandleCore<Time, ColC> input;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope) | capture_into(link); });
    for (auto x : {P{5, "e"}, P{3, "c"}, P{9, ""}}) input.send(x);
    input.advance_to(4);
    for (auto x : {P{2, "bb"}, P{2, "b"}}) input.send(x);
    input.advance_to(6);
    input.close();
  });
  const auto out = cap::extract(link);
  REQUIRE(out.size() == 2);
  CHECK(out[0].first == 0);
  CHECK(rows_of(0, out[0].second) == std::vector<Row>{{0, 3, "c"}, {0, 5, "e"}, {0, 9, ""}});
  CHECK(out[1].first == 4);
  CHECK(rows_of(4, out[1].second) == std::vector<Row>{{4, 2, "b"}, {4, 2, "bb"}});
}

TEST_CASE("columnar batches that borrow receive buffers (-z) capture and replay the same",
          "[capture][containers]") {
  const auto expected = model();
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers << " with the serializing allocator");
    capture_test::TempDir dir;
    std::vector<std::filesystem::path> files;
    for (std::size_t i = 0; i < workers; ++i) files.push_back(dir.file("part-" + std::to_string(i)));
    std::vector<cap::EventLinkCore<Time, ColC>> links(workers);
    auto original = capture<ColC>(workers, timely::ProgressMode::Demand, links, files, true);
    std::vector<Row> rows;
    std::size_t borrowed = 0;
    for (auto& part : original) {
      CHECK(part.finished);
      CHECK(part.frontiers == expected_columnar_frontiers());
      rows.insert(rows.end(), part.rows.begin(), part.rows.end());
      borrowed += part.borrowed;
    }
    std::sort(rows.begin(), rows.end());
    REQUIRE(rows == expected);
    CHECK(borrowed > 0);  // the captured batches were read in place from the receive buffers
    // The links hold batches that may borrow the (released) computation's buffers.
    auto from_links =
        replay<ColC>(workers, workers, timely::ProgressMode::Demand, [&](std::size_t i, auto bound, auto&) {
          return Gated<cap::EventLinkCore<Time, ColC>>{links[i], bound, {}};
        });
    check_replay(from_links, expected, std::nullopt);
    auto mapped = replay<ColC>(
        workers, workers, timely::ProgressMode::Demand, [&](std::size_t i, auto bound, auto& owners) {
          auto reader = cap::MappedEventReaderCore<Time, ColC>::open(files[i]);
          owners.push_back(reader.mapping().get());
          return Gated<cap::MappedEventReaderCore<Time, ColC>>{std::move(reader), bound, {}};
        });
    check_replay(mapped, expected, true);
  }
}
