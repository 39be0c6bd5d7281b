// The runtime's log sinks (timely/execute.hpp, "Log sinks"): with TIMELY_WORKER_LOG_ADDR and
// TIMELY_PROGRESS_LOG_ADDR set, every worker streams its "timely" and "timely/progress/u64"
// events to a collector listening on a free loopback port, as complete capture streams; an
// unreachable or malformed address is a typed error naming the variable; `--log-file PATTERN`
// gives each worker a log file that FileReader reads back; two processes over loopback log their
// connections' bytes and frames ("communication"), to files and to TIMELY_COMM_LOG_ADDR, and what
// one reports sent the other reports received. On 1, 2 and 4 workers in both modes.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <timely/capture/reader.hpp>
#include <timely/dataflow/operators/batch_logger.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/logging/file.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"
#include "support/loopback.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
namespace lg = timely::logging;
using boost::asio::ip::tcp;
using Duration = lg::Duration;
using timely::dataflow::LogRecord;

namespace {

const std::set<std::string> kOperators{"Dataflow", "Input", "Exchange", "InspectBatch", "Probe"};

/// Input -> exchange -> inspect -> probe, three rounds of ten records from every worker.
void small_dataflow(timely::Worker& worker) {
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
}

/// Sets an environment variable for the life of the guard.
struct EnvGuard {
  std::string name;
  EnvGuard(std::string n, const std::string& value) : name(std::move(n)) {
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;
  ~EnvGuard() { ::unsetenv(name.c_str()); }
};

/// The events of one connection, read to its end.
template <class E>
using Events = std::vector<cap::Event<Duration, LogRecord<E>>>;

/// Accepts `n` connections on a free loopback port and reads each to its end on its own
/// thread, as capture streams of `LogRecord<E>` on `Duration`.
template <class E>
class Collector {
 public:
  explicit Collector(std::size_t n) : acceptor_(context_, tcp::endpoint(tcp::v4(), 0)), streams_(n) {
    acceptor_.set_option(tcp::acceptor::reuse_address(true));
    accepting_ = std::thread([this] {
      for (auto& events : streams_) {
        auto stream = std::make_shared<tcp::iostream>();
        boost::system::error_code error;
        acceptor_.accept(stream->socket(), error);
        if (error) return;
        readers_.emplace_back([stream, &events] {
          cap::EventReader<Duration, LogRecord<E>> reader(*stream);
          try {
            while (auto event = reader.next()) events.push_back(std::move(*event));
          } catch (const std::exception& e) {
            events.clear();  // a bad stream shows as an empty one
          }
        });
      }
    });
  }
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;
  ~Collector() { finish(); }
  /// "127.0.0.1:PORT".
  [[nodiscard]] std::string address() const {
    return "127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }
  /// Waits for all connections to end; returns their events.
  std::vector<Events<E>>& finish() {
    if (accepting_.joinable()) accepting_.join();
    for (auto& r : readers_)
      if (r.joinable()) r.join();
    return streams_;
  }

 private:
  boost::asio::io_context context_;
  tcp::acceptor acceptor_;
  std::vector<Events<E>> streams_;
  std::thread accepting_;
  std::vector<std::thread> readers_;
};

/// Checks `events` as a complete capture stream: every batch at a time a held count allows,
/// every increment too, and all counts back to zero at the end. Returns its records.
template <class E>
std::vector<LogRecord<E>> check_complete(const Events<E>& events) {
  std::map<Duration, std::int64_t> counts{{Duration(0), 1}};
  auto allowed = [&](Duration t) {
    for (auto& [time, count] : counts)
      if (count > 0 && time <= t) return true;
    return false;
  };
  std::vector<LogRecord<E>> records;
  for (const auto& event : events) {
    if (auto* p = std::get_if<cap::ProgressEvent<Duration>>(&event)) {
      for (auto& [time, diff] : p->changes)
        if (diff > 0) CHECK(allowed(time));
      for (auto& [time, diff] : p->changes)
        if ((counts[time] += diff) == 0) counts.erase(time);
    } else {
      auto& m = std::get<cap::MessagesEvent<Duration, LogRecord<E>>>(event);
      CHECK(allowed(m.time));
      for (auto& r : m.data) {
        CHECK(r.first >= m.time);  // logged at or after the batch's time
        records.push_back(r);
      }
    }
  }
  CHECK(counts.empty());
  return records;
}

std::set<std::string> operator_names(const std::vector<LogRecord<lg::TimelyEvent>>& records) {
  std::set<std::string> names;
  for (auto& [time, event] : records)
    if (auto* op = std::get_if<lg::OperatesEvent>(&event)) names.insert(op->name);
  return names;
}

/// Runs `small_dataflow` on two processes of `workers` threads each, as two threads of this
/// program over loopback, each process's `Config` passed through `adjust` first.
void run_two_processes(std::size_t workers, timely::ProgressMode mode,
                       const std::function<void(timely::Config&)>& adjust) {
  const auto addresses = support::free_loopback_addresses(2);
  std::vector<std::exception_ptr> errors(2);
  std::vector<std::thread> processes;
  for (std::size_t p = 0; p < 2; ++p)
    processes.emplace_back([&, p] {
      try {
        auto config = timely::Config::cluster(workers, 2, p, addresses);
        config.worker.progress_mode = mode;
        config.network.connect_timeout = std::chrono::seconds(20);
        adjust(config);
        timely::execute(config, small_dataflow);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  for (auto& t : processes) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Checks one process's "communication" events, in logging order: all about `process` and its
/// one peer, connected first, closed last, counts never decreasing, and at least one data frame
/// each way (40-byte headers: at least 40 bytes a frame). Returns the last event.
lg::CommunicationEvent check_connection(const std::vector<lg::CommunicationEvent>& events,
                                        std::size_t process) {
  REQUIRE(events.size() >= 2);
  CHECK(events.front().connected);
  CHECK(!events.back().connected);
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    CHECK(e.process == process);
    CHECK(e.peer == 1 - process);
    if (i > 0) {
      const auto& before = events[i - 1];
      CHECK(e.bytes_sent >= before.bytes_sent);
      CHECK(e.frames_sent >= before.frames_sent);
      CHECK(e.bytes_received >= before.bytes_received);
      CHECK(e.frames_received >= before.frames_received);
      CHECK((before.connected || !e.connected));  // never reconnects
    }
  }
  const auto& last = events.back();
  CHECK(last.frames_sent > 0);
  CHECK(last.frames_received > 0);
  CHECK(last.bytes_sent >= 40 * last.frames_sent);
  CHECK(last.bytes_received >= 40 * last.frames_received);
  return last;
}

/// What process 0 sent, process 1 received, and the other way round.
void check_counts_agree(const lg::CommunicationEvent& zero, const lg::CommunicationEvent& one) {
  CHECK(zero.bytes_sent == one.bytes_received);
  CHECK(zero.frames_sent == one.frames_received);
  CHECK(one.bytes_sent == zero.bytes_received);
  CHECK(one.frames_sent == zero.frames_received);
}

}  // namespace

TEST_CASE("TIMELY_WORKER_LOG_ADDR and TIMELY_PROGRESS_LOG_ADDR stream each worker's logs", "[log_sinks]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      Collector<lg::TimelyEvent> timely_logs(workers);
      Collector<lg::ProgressEvent<std::uint64_t>> progress_logs(workers);
      {
        EnvGuard a("TIMELY_WORKER_LOG_ADDR", timely_logs.address());
        EnvGuard b("TIMELY_PROGRESS_LOG_ADDR", progress_logs.address());
        auto config = timely::Config::process(workers);
        config.worker.progress_mode = mode;
        timely::execute(config, small_dataflow);
      }
      auto& timely_streams = timely_logs.finish();
      REQUIRE(timely_streams.size() == workers);
      for (auto& events : timely_streams) {
        REQUIRE(!events.empty());
        const auto records = check_complete<lg::TimelyEvent>(events);
        CHECK(operator_names(records) == kOperators);
      }
      std::size_t sends = 0, receives = 0;
      for (auto& events : progress_logs.finish()) {
        REQUIRE(!events.empty());
        for (auto& [time, e] : check_complete<lg::ProgressEvent<std::uint64_t>>(events))
          ++(e.is_send ? sends : receives);
      }
      CHECK(sends > 0);
      CHECK(receives > 0);  // a worker receives its own batches too
    }
}

TEST_CASE("a log address that cannot be reached, or parsed, is a typed error naming it", "[log_sinks]") {
  // A port nobody listens on: bind one, note it, close it.
  std::string address;
  {
    boost::asio::io_context context;
    tcp::acceptor acceptor(context, tcp::endpoint(tcp::v4(), 0));
    address = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  }
  auto config = timely::Config::process(2);
  config.network.connect_timeout = std::chrono::milliseconds(200);
  {
    EnvGuard guard("TIMELY_WORKER_LOG_ADDR", address);
    try {
      timely::execute(config, small_dataflow);
      FAIL("execute did not throw");
    } catch (const timely::communication::NetworkError& e) {
      const std::string what = e.what();
      CHECK(what.find("TIMELY_WORKER_LOG_ADDR") != std::string::npos);
      CHECK(what.find(address) != std::string::npos);
      CHECK(what.find("200 ms") != std::string::npos);
    }
  }
  {
    EnvGuard guard("TIMELY_PROGRESS_LOG_ADDR", "no-port-here");
    try {
      timely::execute(config, small_dataflow);
      FAIL("execute did not throw");
    } catch (const timely::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find("TIMELY_PROGRESS_LOG_ADDR") != std::string::npos);
      CHECK(what.find("no-port-here") != std::string::npos);
    }
  }
}

TEST_CASE("a collector that goes away fails the computation with the writer's error", "[log_sinks]") {
  boost::asio::io_context context;
  tcp::acceptor acceptor(context, tcp::endpoint(tcp::v4(), 0));
  const std::string address = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  std::thread closer([&] {
    tcp::socket socket(context);
    boost::system::error_code error;
    acceptor.accept(socket, error);
    socket.close(error);  // accepts, then hangs up
  });
  EnvGuard guard("TIMELY_WORKER_LOG_ADDR", address);
  auto run = [](timely::Worker& worker) {
    timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
    timely::dataflow::ProbeHandle<std::uint64_t> probe;
    worker.dataflow<std::uint64_t>([&](auto& scope) { input.to_stream(scope) | probe_with(probe); });
    for (std::uint64_t round = 0; round < 2000; ++round) {
      input.send(round);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
  };
  CHECK_THROWS_AS(timely::execute(timely::Config::thread(), run), cap::FormatError);
  closer.join();
}

TEST_CASE("the --log-file pattern writes each worker's streams to its own file", "[log_sinks]") {
  capture_test::TempDir dir;
  const std::string pattern = dir.file("log-{process}-{worker}.tlog").string();
  {
    const char* argv[] = {"prog", "--log-file", pattern.c_str(), "-w", "2"};
    CHECK(timely::Config::from_args(5, argv).log_file == pattern);
  }
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      config.log_file = pattern;
      timely::execute(config, small_dataflow);
      for (std::size_t w = 0; w < workers; ++w) {
        const auto path = dir.file("log-0-" + std::to_string(w) + ".tlog");
        INFO(path.string());
        lg::FileReader reader(path);
        std::set<std::string> names;
        std::size_t progress = 0;
        reader.on<lg::TimelyEvent>("timely", [&](Duration, lg::TimelyEvent& e) {
          if (auto* op = std::get_if<lg::OperatesEvent>(&e)) names.insert(op->name);
        });
        reader.on<lg::ProgressEvent<std::uint64_t>>(
            "timely/progress/u64", [&](Duration, lg::ProgressEvent<std::uint64_t>&) { ++progress; });
        reader.run();
        CHECK(reader.closed());
        CHECK(reader.header().worker == w);
        CHECK(names == kOperators);
        CHECK(progress > 0);
        std::set<std::string> streams;
        for (auto& s : reader.streams()) streams.insert(s.name);
        CHECK(streams == std::set<std::string>{"timely", "timely/progress/u64", "timely/reachability/u64",
                                               "timely/summary/u64", "timely/frontier/u64", "communication"});
        std::filesystem::remove(path);
      }
    }
  // Two workers, one file: refused before anything runs.
  auto config = timely::Config::process(2);
  config.log_file = dir.file("shared.tlog").string();
  CHECK_THROWS_AS(timely::execute(config, small_dataflow), timely::ConfigError);
  CHECK(!std::filesystem::exists(dir.file("shared.tlog")));
}

TEST_CASE("a stream with a log file and a connection goes to both", "[log_sinks]") {
  capture_test::TempDir dir;
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      Collector<lg::TimelyEvent> collector(workers);
      {
        EnvGuard guard("TIMELY_WORKER_LOG_ADDR", collector.address());
        auto config = timely::Config::process(workers);
        config.worker.progress_mode = mode;
        config.log_file = dir.file("both-{worker}.tlog").string();
        timely::execute(config, small_dataflow);
      }
      std::multiset<std::size_t> streamed, filed;  // each worker's count of events
      for (auto& events : collector.finish()) {
        const auto records = check_complete<lg::TimelyEvent>(events);
        CHECK(operator_names(records) == kOperators);
        streamed.insert(records.size());
      }
      for (std::size_t w = 0; w < workers; ++w) {
        lg::FileReader reader(dir.file("both-" + std::to_string(w) + ".tlog"));
        std::size_t events = 0;
        reader.on<lg::TimelyEvent>("timely", [&](Duration, lg::TimelyEvent&) { ++events; });
        reader.run();
        filed.insert(events);
      }
      CHECK(streamed == filed);
      CHECK(streamed.size() == workers);
    }
}

TEST_CASE("two processes log their connection to each other; each receives what the other sent",
          "[log_sinks][communication]") {
  capture_test::TempDir dir;
  const std::string pattern = dir.file("comm-{process}-{worker}.tlog").string();
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      run_two_processes(workers, mode, [&](timely::Config& config) { config.log_file = pattern; });
      std::vector<lg::CommunicationEvent> last;
      for (std::size_t p = 0; p < 2; ++p)
        for (std::size_t w = 0; w < workers; ++w) {
          const auto global = p * workers + w;
          const auto path = dir.file("comm-" + std::to_string(p) + "-" + std::to_string(global) + ".tlog");
          INFO(path.string());
          lg::FileReader reader(path);
          std::vector<lg::CommunicationEvent> events;
          Duration previous{0};
          reader.on<lg::CommunicationEvent>("communication", [&](Duration time, lg::CommunicationEvent& e) {
            CHECK(time >= previous);
            previous = time;
            events.push_back(e);
          });
          reader.run();
          CHECK(reader.closed());
          if (w == 0)
            last.push_back(check_connection(events, p));  // local worker 0 logs its process's
          else
            CHECK(events.empty());
          std::filesystem::remove(path);
        }
      check_counts_agree(last.at(0), last.at(1));
    }
}

TEST_CASE("TIMELY_COMM_LOG_ADDR streams each process's connection events from its first worker",
          "[log_sinks][communication]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      Collector<lg::CommunicationEvent> collector(2);  // one connection per process
      {
        EnvGuard guard("TIMELY_COMM_LOG_ADDR", collector.address());
        run_two_processes(workers, mode, [](timely::Config&) {});
      }
      std::vector<std::vector<lg::CommunicationEvent>> by_process(2);
      for (auto& events : collector.finish()) {
        const auto records = check_complete<lg::CommunicationEvent>(events);
        REQUIRE(!records.empty());
        const auto process = records.front().second.process;
        REQUIRE(process < 2);
        CHECK(by_process[process].empty());  // one stream per process
        for (const auto& [time, event] : records) by_process[process].push_back(event);
      }
      check_counts_agree(check_connection(by_process[0], 0), check_connection(by_process[1], 1));
    }
  // One process has no connections: its first worker's stream opens and closes with no events.
  Collector<lg::CommunicationEvent> collector(1);
  {
    EnvGuard guard("TIMELY_COMM_LOG_ADDR", collector.address());
    timely::execute(timely::Config::process(2), small_dataflow);
  }
  CHECK(check_complete<lg::CommunicationEvent>(collector.finish().at(0)).empty());
}
