// Logs as timely streams (timely/dataflow/operators/batch_logger.hpp): BatchLogger's events for
// known batches, the Codec of log events, and a dataflow's "timely" stream captured through
// BatchLogger and replayed into a second dataflow, on 1, 2 and 4 workers in both progress modes:
// the replayed records are the logged events in order, no record arrives at a time its frontier
// has passed, and each replayed stream's frontier reaches the last `now` and then closes.
#include <timely/dataflow/operators/batch_logger.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/capture/reader.hpp>
#include <timely/capture/writer.hpp>
#include <timely/dataflow/operators/capture.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
namespace lg = timely::logging;
namespace comm = timely::communication;
using timely::dataflow::BatchLogger;
using timely::dataflow::LogRecord;
using Duration = lg::Duration;
using Record = LogRecord<lg::TimelyEvent>;
using Link = cap::EventLink<Duration, Record>;
using Event = cap::Event<Duration, Record>;

namespace {

std::vector<std::uint8_t> bytes_of(const Record& r) { return comm::encode_bytes(r); }

std::vector<std::vector<std::uint8_t>> bytes_of(const std::vector<Record>& rs) {
  std::vector<std::vector<std::uint8_t>> out;
  for (const auto& r : rs) out.push_back(bytes_of(r));
  return out;
}

std::vector<std::pair<Duration, std::int64_t>> progress_of(const Event& e) {
  REQUIRE(std::holds_alternative<cap::ProgressEvent<Duration>>(e));
  return std::get<cap::ProgressEvent<Duration>>(e).changes;
}

lg::TimelyEvent text(const std::string& s) { return lg::TextEvent{s}; }

/// An event source over a complete link that yields at most one event per `next()` loop of the
/// replay operator (every other call says "nothing now"), so that a replay applies one event per
/// scheduling, and holds the link's last event (the logger's final retraction) back until
/// `*release` is set.
struct OneAtATime {
  using Time = Duration;
  using Container = std::vector<Record>;
  Link link;
  std::shared_ptr<bool> release;
  bool pause = false;
  std::optional<Event> next() {
    if (std::exchange(pause, false)) return std::nullopt;
    if (link.size() == 1 && !*release) return std::nullopt;
    auto event = link.next();
    pause = event.has_value();
    return event;
  }
};

}  // namespace

TEST_CASE("BatchLogger: messages at the previous time, progress to now, retraction at the end",
          "[batch_logger]") {
  Link link;
  std::vector<Record> batch;
  {
    BatchLogger<lg::TimelyEvent, Link> logger(link);
    auto copy = logger;  // copies share the capability
    batch = {{Duration(3), text("a")}, {Duration(5), text("b")}};
    logger(Duration(7), batch);
    CHECK(batch.empty());
    CHECK(copy.time() == Duration(7));
    std::vector<Record> empty;
    copy(Duration(7), empty);  // nothing new: no event
    copy(Duration(9), empty);  // a flush: progress only
    batch = {{Duration(9), text("c")}};
    logger(Duration(9), batch);  // events, no progress
  }
  REQUIRE(link.size() == 5);
  auto e = *link.next();
  REQUIRE(std::holds_alternative<cap::MessagesEvent<Duration, Record>>(e));
  const auto& first = std::get<cap::MessagesEvent<Duration, Record>>(e);
  CHECK(first.time == Duration(0));
  REQUIRE(first.data.size() == 2);
  CHECK(bytes_of(first.data) ==
        bytes_of(std::vector<Record>{{Duration(3), text("a")}, {Duration(5), text("b")}}));
  CHECK(progress_of(*link.next()) ==
        std::vector<std::pair<Duration, std::int64_t>>{{Duration(7), 1}, {Duration(0), -1}});
  CHECK(progress_of(*link.next()) ==
        std::vector<std::pair<Duration, std::int64_t>>{{Duration(9), 1}, {Duration(7), -1}});
  e = *link.next();
  REQUIRE(std::holds_alternative<cap::MessagesEvent<Duration, Record>>(e));
  CHECK(std::get<cap::MessagesEvent<Duration, Record>>(e).time == Duration(9));
  CHECK(progress_of(*link.next()) == std::vector<std::pair<Duration, std::int64_t>>{{Duration(9), -1}});
  CHECK(!link.next());
}

namespace {
/// A sink whose pushes fail after `good` of them.
struct FailingSink {
  std::shared_ptr<std::size_t> pushes = std::make_shared<std::size_t>(0);
  std::size_t good = 0;
  void push(Event&&) {
    if (++*pushes > good) throw cap::FormatError(cap::FormatErrorKind::Io, 0, "the collector went away");
  }
};
}  // namespace

TEST_CASE("BatchLogger: a failing sink throws from flushes only, and then drops everything",
          "[batch_logger]") {
  FailingSink sink{std::make_shared<std::size_t>(0), 1};
  auto pushes = sink.pushes;
  {
    BatchLogger<lg::TimelyEvent, FailingSink> logger(sink);
    std::vector<Record> batch{{Duration(1), text("a")}};
    CHECK_NOTHROW(logger(Duration(2), batch));  // the messages go; the progress fails, silently
    CHECK(*pushes == 2);
    batch = {{Duration(3), text("b")}};
    CHECK_NOTHROW(logger(Duration(4), batch));  // events never throw (a Logger's destructor publishes)
    CHECK(batch.empty());
    std::vector<Record> empty;
    CHECK_THROWS_WITH(logger(Duration(5), empty), Catch::Matchers::Contains("the collector went away"));
    CHECK_THROWS_AS(logger(Duration(6), empty), cap::FormatError);
    CHECK(*pushes == 2);  // nothing was pushed after the failure
  }
  CHECK(*pushes == 2);  // nor at destruction
}

TEST_CASE("log events have a communication::Codec that delegates to their EventCodec", "[batch_logger]") {
  const lg::TimelyEvent ops = lg::OperatesEvent{4, {0, 2, 1}, "Map"};
  const auto bytes = comm::encode_bytes(ops);
  std::vector<std::byte> direct;
  lg::Encoder enc(direct);
  lg::encode(enc, ops);
  // A u64 count, then the log-file bytes.
  REQUIRE(bytes.size() == 8 + direct.size());
  CHECK(bytes[0] == direct.size());
  CHECK(std::equal(direct.begin(), direct.end(), bytes.begin() + 8,
                   [](std::byte a, std::uint8_t b) { return std::to_integer<std::uint8_t>(a) == b; }));
  const auto back = comm::decode_bytes<lg::TimelyEvent>(bytes);
  REQUIRE(std::holds_alternative<lg::OperatesEvent>(back));
  CHECK(std::get<lg::OperatesEvent>(back).name == "Map");
  CHECK(std::get<lg::OperatesEvent>(back).address == std::vector<std::size_t>{0, 2, 1});
  CHECK(comm::Codec<lg::TimelyEvent>::name() == "log<TimelyEvent>");
  CHECK(comm::Codec<lg::ProgressEvent<std::uint64_t>>::name() == "log<ProgressEvent<u64>>");

  // Bytes the encoder cannot have written are a CodecError at their offset.
  auto bad = bytes;
  bad[8] = 200;  // no such alternative
  CHECK_THROWS_AS(comm::decode_bytes<lg::TimelyEvent>(bad), comm::CodecError);
  auto longer = bytes;
  longer[0] = static_cast<std::uint8_t>(longer[0] + 1);  // claims a byte it does not use
  longer.push_back(0);
  CHECK_THROWS_AS(comm::decode_bytes<lg::TimelyEvent>(longer), comm::CodecError);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    CHECK_THROWS_AS(comm::decode_bytes<lg::TimelyEvent>(std::span(bytes).first(n)), comm::CodecError);
  }

  // Through the binary event format: a BatchLogger writing to an EventWriter reads back.
  std::stringstream stream;
  {
    cap::EventWriter<Duration, Record> writer(stream);
    BatchLogger<lg::TimelyEvent, cap::EventWriter<Duration, Record>> logger(std::move(writer));
    std::vector<Record> batch{{Duration(1), ops}, {Duration(2), text("t")}};
    logger(Duration(3), batch);
  }
  cap::EventReader<Duration, Record> reader(stream);
  std::vector<Event> events;
  while (auto event = reader.next()) events.push_back(std::move(*event));
  CHECK(reader.exhausted());
  REQUIRE(events.size() == 3);
  const auto& messages = std::get<cap::MessagesEvent<Duration, Record>>(events[0]);
  CHECK(bytes_of(messages.data) ==
        bytes_of(std::vector<Record>{{Duration(1), ops}, {Duration(2), text("t")}}));
  CHECK(progress_of(events[1]) ==
        std::vector<std::pair<Duration, std::int64_t>>{{Duration(3), 1}, {Duration(0), -1}});
  CHECK(progress_of(events[2]) == std::vector<std::pair<Duration, std::int64_t>>{{Duration(3), -1}});
}

namespace {

/// What a logging worker logged: every record, and the last `now` its BatchLogger saw.
struct Logged {
  std::vector<Record> records;
  Duration last_now{0};
};

/// Runs a small dataflow on each worker of `config` with its "timely" stream going, through a
/// BatchLogger, to `links[worker]`, and keeps a copy of what was logged.
std::vector<Logged> run_logged(const timely::Config& config, std::vector<Link>& links) {
  std::vector<Logged> logged(config.workers);
  timely::execute(config, [&](timely::Worker& worker) {
    auto& mine = logged[worker.index()];
    BatchLogger<lg::TimelyEvent, Link> batch_logger(links[worker.index()]);
    worker.log_register().insert<lg::TimelyEvent>(
        "timely", [&mine, batch_logger](Duration now, std::vector<Record>& batch) mutable {
          mine.records.insert(mine.records.end(), batch.begin(), batch.end());
          mine.last_now = std::max(mine.last_now, now);
          batch_logger(now, batch);
        });
    timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
    timely::dataflow::ProbeHandle<std::uint64_t> probe;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) |
          inspect([](const std::uint64_t&) {}) | probe_with(probe);
    });
    for (std::uint64_t round = 0; round < 3; ++round) {
      for (std::uint64_t i = 0; i < 10; ++i) input.send(round * 10 + i);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
  });
  return logged;
}

/// What the worker replaying one log stream saw of it.
struct Replayed {
  std::vector<Record> records;
  std::vector<std::vector<Duration>> frontiers;  // each distinct frontier, in order
  bool early = false;                            // a record at a time its frontier had passed
  bool reached = false;  // the frontier was {last now} while the retraction was held back
};

}  // namespace

TEST_CASE("a dataflow's timely log replays as a stream of another dataflow", "[batch_logger]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      std::vector<Link> links(workers);
      const auto logged = run_logged(config, links);

      // Replay stream i (one replay per stream, so its frontier is its own) on worker i % peers.
      // seen[w][i]: what worker w saw of the replay of stream i.
      std::vector<std::vector<Replayed>> seen(workers, std::vector<Replayed>(workers));
      timely::execute(config, [&](timely::Worker& worker) {
        std::vector<timely::dataflow::ProbeHandle<Duration>> probes(workers);
        std::vector<std::shared_ptr<bool>> release(workers);
        worker.dataflow<Duration>([&](auto& scope) {
          for (std::size_t i = 0; i < workers; ++i) {
            std::vector<OneAtATime> sources;
            release[i] = std::make_shared<bool>(false);
            if (i % worker.peers() == worker.index()) sources.push_back(OneAtATime{links[i], release[i]});
            auto& out = seen[worker.index()][i];
            auto stream = replay_into(scope, std::move(sources));
            stream | probe_with(probes[i]);
            stream | sink(timely::dataflow::Pipeline{}, "Check", [&out](const auto&) {
              return [&out](timely::dataflow::OperatorInput<Duration, Record>& input) {
                input.for_each(
                    [&](const timely::dataflow::InputCapability<Duration>& c, std::vector<Record>& d) {
                      if (!input.frontier().less_equal(c.time())) out.early = true;
                      out.records.insert(out.records.end(), d.begin(), d.end());
                    });
                std::vector<Duration> now(input.frontier().frontier().begin(),
                                          input.frontier().frontier().end());
                if (out.frontiers.empty() || out.frontiers.back() != now) out.frontiers.push_back(now);
              };
            });
          }
        });
        // Each stream this worker replays: its frontier must reach the last now while the
        // retraction is held back (and never pass it), then close once it is let through.
        for (std::size_t i = worker.index(); i < workers; i += worker.peers()) {
          const std::vector<Duration> last{logged[i].last_now};
          auto frontier = [&] {
            return probes[i].with_frontier(
                [](const auto& f) { return std::vector<Duration>(f.begin(), f.end()); });
          };
          for (std::size_t k = 0; k < 1'000'000 && frontier() != last; ++k) {
            const auto now = frontier();
            if (now.size() != 1 || now[0] > last[0]) break;
            worker.step();
          }
          seen[worker.index()][i].reached = frontier() == last;
          *release[i] = true;
        }
      });

      for (std::size_t i = 0; i < workers; ++i) {
        INFO("log stream of worker " << i);
        const auto& r = seen[i % workers][i];
        for (std::size_t w = 0; w < workers; ++w) {
          CHECK(seen[w][i].frontiers.back().empty());
          if (w != i % workers) CHECK(seen[w][i].records.empty());
        }
        REQUIRE(!logged[i].records.empty());
        CHECK(bytes_of(r.records) == bytes_of(logged[i].records));
        CHECK(!r.early);
        CHECK(r.reached);
        REQUIRE(r.frontiers.size() >= 3);
        CHECK(r.frontiers.back().empty());
        // The frontier rose through the logger's nows to the last one, and closed from there.
        CHECK(r.frontiers[r.frontiers.size() - 2] == std::vector<Duration>{logged[i].last_now});
        for (std::size_t k = 1; k + 1 < r.frontiers.size(); ++k) {
          REQUIRE(r.frontiers[k].size() == 1);
          if (!r.frontiers[k - 1].empty()) CHECK(r.frontiers[k - 1][0] < r.frontiers[k][0]);
        }
      }
    }
}
