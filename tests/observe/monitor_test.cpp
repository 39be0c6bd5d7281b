// The live monitor through `execute` (Config::monitor on port 0): a dataflow with an exchange and
// a region runs on 1, 2 and 4 workers in both progress modes while the test fetches /api/state,
// /metrics, / and another path over HTTP (a plain Beast client); the operator names, the records
// of each operator and channel equal what the test sent, the metrics agree, other paths are 404,
// and when the computation is over nothing listens. With a log file too, the file's events give
// the same final state as the monitor's. With the monitor off, no socket of this
// process listens and nothing is registered for the streams. Bad and busy addresses throw
// errors naming them; --monitor and --monitor-linger parse. metrics_text is checked on a
// hand-made snapshot (escaping, frontier lag, families).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/logging/file.hpp>
#include <timely/observe/metrics.hpp>
#include <timely/observe/model.hpp>
#include <timely/observe/monitor.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;
namespace ob = timely::observe;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using Time = std::uint64_t;

namespace {

constexpr std::uint64_t kRecords = 40;  // per round, sent by worker 0
constexpr Time kRounds = 4;

struct Reply {
  unsigned status = 0;
  std::string content_type;
  std::string body;
};

/// GET `path` from "HOST:PORT". \throws boost::system::system_error if nothing answers.
Reply get(const std::string& address, const std::string& path) {
  const auto colon = address.rfind(':');
  boost::asio::io_context io;
  tcp::resolver resolver(io);
  boost::beast::tcp_stream stream(io);
  stream.expires_after(std::chrono::seconds(20));
  stream.connect(resolver.resolve(address.substr(0, colon), address.substr(colon + 1)));
  http::request<http::empty_body> request(http::verb::get, path, 11);
  request.set(http::field::host, address);
  http::write(stream, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(stream, buffer, response);
  boost::beast::error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  return {response.result_int(), std::string(response[http::field::content_type]), response.body()};
}

/// Sockets of this process in the LISTEN state (from /proc/net/tcp{,6} and /proc/self/fd).
std::size_t listening_sockets() {
  std::set<std::string> inodes;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(fd.path(), ec).string();
    if (!ec && target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::size_t count = 0;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      if (state == "0A" && inodes.count(inode)) ++count;
    }
  }
  return count;
}

// Input -> exchange -> Tally (inspect) -> region(enter, Double (map), leave) -> Probe.
void build_and_run(timely::Worker& worker) {
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    auto tallied = input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) |
                   inspect([](const std::uint64_t&) {});
    scope.region([&](auto& region) {
      return tallied | enter(region) | map([](std::uint64_t x) { return x * 2; }) | leave(scope);
    }) | probe_with(probe);
  });
  for (Time round = 0; round < kRounds; ++round) {
    if (worker.index() == 0)
      for (std::uint64_t i = 0; i < kRecords; ++i) input.send(round * kRecords + i);
    input.advance_to(round + 1);
    while (probe.less_than(input.time())) worker.step();
  }
}

std::uint64_t sum_named(const ob::Snapshot& s, const std::string& name, bool in) {
  std::uint64_t total = 0;
  for (const auto& o : s.operators)
    if (o.name == name) total += in ? o.records_in : o.records_out;
  return total;
}

/// The sum of the samples of `family` whose labels include `label`.
double metric_sum(const std::string& text, const std::string& family, const std::string& label) {
  double total = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(family + "{", 0) == 0 && line.find(label) != std::string::npos)
      total += std::stod(line.substr(line.rfind(' ') + 1));
  return total;
}

/// The state the monitor at `address` shows once every one of `workers` dataflows shut down.
ob::Snapshot final_state(const std::string& address, std::size_t workers) {
  ob::Snapshot state;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    const auto reply = get(address, "/api/state");
    REQUIRE(reply.status == 200);
    REQUIRE(reply.content_type == "application/json");
    state = ob::snapshot_from_json(reply.body);
    // Every dataflow shut down, and every input frontier empty: a worker's frontier events
    // travel in a log stream of their own, which may reach the monitor after the shutdown.
    std::size_t done = 0;
    bool frontiers_empty = true;
    for (const auto& o : state.operators) {
      done += o.address.size() == 1 && o.shut_down;
      for (const auto& f : o.input_frontiers) frontiers_empty = frontiers_empty && f.empty();
    }
    if ((done == workers && frontiers_empty) || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return state;
}

}  // namespace

TEST_CASE("the monitor serves the state, metrics and page of a running computation", "[monitor]") {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      config.monitor = "127.0.0.1:0";
      config.monitor_linger = std::chrono::milliseconds(2000);
      std::promise<std::string> ready;
      config.monitor_ready = [&](const std::string& address) { ready.set_value(address); };
      std::thread run([&] { timely::execute(config, build_and_run); });
      const std::string address = ready.get_future().get();
      REQUIRE(address.rfind("127.0.0.1:", 0) == 0);
      REQUIRE(address != "127.0.0.1:0");

      // Once every worker's dataflow has shut down its state is final.
      const auto state = final_state(address, workers);
      REQUIRE(state.workers.size() == workers);
      std::set<std::string> names;
      for (const auto& o : state.operators) names.insert(o.name);
      for (const char* name : {"Input", "Exchange", "InspectBatch", "Region", "Map", "Probe"}) {
        INFO(name);
        CHECK(names.count(name) == 1);
      }
      const std::uint64_t sent = kRecords * kRounds;
      CHECK(sum_named(state, "Input", false) == sent);
      CHECK(sum_named(state, "InspectBatch", true) == sent);
      CHECK(sum_named(state, "Map", true) == sent);
      CHECK(sum_named(state, "Probe", true) == sent);
      // Channels into the region's Map and out of it, inside the region's scope (address length 2).
      std::uint64_t in_region = 0;
      for (const auto& c : state.channels)
        if (c.scope_address.size() == 2) in_region += c.records;
      CHECK(in_region == 2 * sent);
      for (const auto& w : state.workers) CHECK(w.busy.count() > 0);
      CHECK(!state.timeline.empty());

      const auto metrics = get(address, "/metrics");
      REQUIRE(metrics.status == 200);
      CHECK(metrics.content_type.rfind("text/plain; version=0.0.4", 0) == 0);
      CHECK(metric_sum(metrics.body, "timely_operator_received_records_total", "name=\"InspectBatch\"") ==
            static_cast<double>(sent));
      CHECK(metric_sum(metrics.body, "timely_operator_schedules_total", "name=\"Probe\"") > 0);
      CHECK(metrics.body.find("# TYPE timely_worker_parked_seconds_total counter") != std::string::npos);

      const auto page = get(address, "/");
      CHECK(page.status == 200);
      CHECK(page.content_type == "text/html; charset=utf-8");
      CHECK(page.body == std::string(ob::monitor_page()));
      CHECK(page.body.find("<title>timely monitor</title>") != std::string::npos);
      CHECK(get(address, "/api/other").status == 404);
      CHECK(get(address, "/metrics/x").status == 404);

      run.join();
      CHECK(listening_sockets() == 0);
      CHECK_THROWS(get(address, "/"));
    }
}

TEST_CASE("a log file and the monitor get the same events", "[monitor]") {
  const auto dir = std::filesystem::temp_directory_path() / ("timely-monitor-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      config.log_file = (dir / "log-{worker}.bin").string();
      config.monitor = "127.0.0.1:0";
      config.monitor_linger = std::chrono::milliseconds(1500);
      std::promise<std::string> ready;
      config.monitor_ready = [&](const std::string& address) { ready.set_value(address); };
      std::vector<std::string> reported;  // what `-r` would print
      config.network.report = [&](const std::string& line) { reported.push_back(line); };
      std::thread run([&] { timely::execute(config, build_and_run); });
      const auto address = ready.get_future().get();
      const auto shown = final_state(address, workers);
      run.join();
      CHECK(std::count(reported.begin(), reported.end(), "monitor serving http://" + address + "/") == 1);
      // The files, read back into models of their own, give the same operators and channels.
      ob::Snapshot read;
      for (std::size_t w = 0; w < workers; ++w) {
        ob::Model model;
        timely::logging::FileReader reader(dir / ("log-" + std::to_string(w) + ".bin"));
        reader.on<timely::logging::TimelyEvent>(
            "timely",
            [&](timely::logging::Duration t, timely::logging::TimelyEvent& e) { model.add(w, t, e); });
        reader.on<timely::logging::FrontierEvent<Time>>(
            "timely/frontier/u64", [&](timely::logging::Duration t, timely::logging::FrontierEvent<Time>& e) {
              model.add(w, t, e);
            });
        reader.run();
        ob::merge(read, model.snapshot());
      }
      REQUIRE(read.operators.size() == shown.operators.size());
      for (std::size_t i = 0; i < read.operators.size(); ++i) {
        const auto &a = read.operators[i], &b = shown.operators[i];
        INFO("operator " << a.name << " on worker " << a.worker);
        CHECK(std::tie(a.worker, a.id, a.address, a.name, a.schedules, a.busy, a.records_in, a.records_out,
                       a.input_frontiers, a.capabilities, a.shut_down) ==
              std::tie(b.worker, b.id, b.address, b.name, b.schedules, b.busy, b.records_in, b.records_out,
                       b.input_frontiers, b.capabilities, b.shut_down));
      }
      CHECK(read.channels == shown.channels);
    }
  std::filesystem::remove_all(dir);
}

TEST_CASE("with the monitor off nothing listens and nothing is registered", "[monitor]") {
  for (std::size_t workers : {1u, 2u}) {
    auto config = timely::Config::process(workers);
    std::vector<std::size_t> listening(workers), registered(workers);
    timely::execute(config, [&](timely::Worker& worker) {
      listening[worker.index()] = listening_sockets();
      registered[worker.index()] =
          worker.log_register().get<timely::logging::TimelyEvent>("timely").has_value() +
          worker.log_register().get<timely::logging::FrontierEvent<Time>>("timely/frontier/u64").has_value();
      build_and_run(worker);
    });
    for (std::size_t w = 0; w < workers; ++w) {
      CHECK(listening[w] == 0);
      CHECK(registered[w] == 0);
    }
    // The same check sees the monitor when it is on.
    config.monitor = "127.0.0.1:0";
    std::size_t on = 0;
    timely::execute(config, [&](timely::Worker& worker) {
      if (worker.index() == 0) on = listening_sockets();
      build_and_run(worker);
    });
    CHECK(on == 1);
  }
}

TEST_CASE("monitor addresses: malformed ones and busy ports throw errors naming them", "[monitor]") {
  for (const char* bad :
       {"localhost", "127.0.0.1:", ":80", "127.0.0.1:65536", "127.0.0.1:http", "::1:80", "[::1]80"}) {
    INFO(bad);
    auto config = timely::Config::thread();
    config.monitor = bad;
    try {
      timely::execute(config, [](timely::Worker&) {});
      FAIL("no error");
    } catch (const timely::ConfigError& e) {
      CHECK(std::string(e.what()).find(std::string("'") + bad + "'") != std::string::npos);
    }
  }
  boost::asio::io_context io;
  tcp::acceptor taken(io, tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  const std::string busy = "127.0.0.1:" + std::to_string(taken.local_endpoint().port());
  auto config = timely::Config::thread();
  config.monitor = busy;
  try {
    timely::execute(config, [](timely::Worker&) {});
    FAIL("no error");
  } catch (const timely::communication::NetworkError& e) {
    CHECK(std::string(e.what()).find("'" + busy + "'") != std::string::npos);
  }
}

TEST_CASE("the --monitor and --monitor-linger arguments parse, and bad values are refused", "[monitor]") {
  const char* args[] = {"prog", "--monitor", "127.0.0.1:0", "--monitor-linger", "2.5", "file"};
  const auto config = timely::Config::from_args(6, args);
  CHECK(config.monitor == "127.0.0.1:0");
  CHECK(config.monitor_linger == std::chrono::milliseconds(2500));
  CHECK(config.positional == std::vector<std::string>{"file"});
  CHECK(timely::Config::from_args(1, args).monitor.empty());
  const auto refused = [](std::vector<const char*> argv, const std::string& says) {
    INFO(argv[1] << " " << (argv.size() > 2 ? argv[2] : ""));
    argv.insert(argv.begin(), "prog");
    try {
      (void)timely::Config::from_args(static_cast<int>(argv.size()), argv.data());
      FAIL("accepted");
    } catch (const timely::ConfigError& e) {
      CHECK_THAT(e.what(), Catch::Contains(says));
    }
  };
  refused({"--monitor-linger", "1e6"}, "--monitor-linger: expects seconds from 0 to 86400, got '1e6'");
  refused({"--monitor-linger", "abc"}, "--monitor-linger: expects a number of seconds, got 'abc'");
  refused({"--monitor-linger", "nan"}, "--monitor-linger: expects a number of seconds, got 'nan'");
  refused({"--monitor-linger", "inf"}, "--monitor-linger: expects a number of seconds, got 'inf'");
  refused({"--monitor-linger", "2s"}, "--monitor-linger: expects a number of seconds, got '2s'");
  refused({"--monitor-linger", "0x10"}, "--monitor-linger: expects a number of seconds, got '0x10'");
  refused({"--connect-timeout", "0"}, "--connect-timeout: expects seconds from 0.001 to 86400, got '0'");
  refused({"--connect-timeout", "NaN"}, "--connect-timeout: expects a number of seconds, got 'NaN'");
  refused({"--monitor", ""}, "--monitor: expects HOST:PORT, got an empty value");
  refused({"--log-file", ""}, "--log-file: expects PATTERN, got an empty value");
  CHECK(timely::Config::usage("prog").find("--monitor HOST:PORT") != std::string::npos);
}

TEST_CASE("metrics_text: families, escaping and frontier lag", "[monitor]") {
  ob::Snapshot s;
  s.now = std::chrono::milliseconds(1500);
  ob::OperatorState a;
  a.worker = 1;
  a.id = 3;
  a.address = {0, 2};
  a.name = "odd \"name\"\\\nhere";
  a.schedules = 7;
  a.busy = std::chrono::microseconds(2500);
  a.input_frontiers = {{4}, {}, {9}};
  a.capabilities = {{{4, 2}, {6, 1}}};
  s.operators.push_back(a);
  ob::OperatorState b;
  b.id = 5;
  b.address = {0, 3};
  b.name = "Probe";
  b.input_frontiers = {{12}};
  s.operators.push_back(b);
  s.channels.push_back(ob::ChannelState{8, {0}, {2, 0}, {3, 0}, "Vec<u64>", 100, 3});
  s.workers.push_back(ob::WorkerState{1, std::chrono::seconds(2), std::chrono::milliseconds(250), {}, false});
  s.peers.push_back(ob::PeerState{0, 1, 1000, 2000, 3, 4, true});
  const auto text = ob::metrics_text(s);
  const std::string labels =
      "worker=\"1\",operator=\"3\",address=\"0.2\",name=\"odd \\\"name\\\"\\\\\\nhere\"";
  CHECK(text.find("timely_operator_schedules_total{" + labels + "} 7\n") != std::string::npos);
  CHECK(text.find("timely_operator_schedule_seconds_total{" + labels + "} 0.002500000\n") !=
        std::string::npos);
  // The largest frontier element is 12: input 0 trails by 8, input 2 by 3, input 1 is complete.
  CHECK(text.find("timely_operator_input_frontier_lag{" + labels + ",port=\"0\"} 8\n") != std::string::npos);
  CHECK(text.find("timely_operator_input_frontier_lag{" + labels + ",port=\"2\"} 3\n") != std::string::npos);
  CHECK(text.find("port=\"1\"} ") == std::string::npos);
  CHECK(text.find("name=\"Probe\",port=\"0\"} 0\n") != std::string::npos);
  CHECK(text.find("timely_operator_capabilities{" + labels + ",port=\"0\"} 3\n") != std::string::npos);
  CHECK(text.find(
            "timely_channel_records_total{channel=\"8\",scope=\"0\",source=\"2:0\",target=\"3:0\"} 100\n") !=
        std::string::npos);
  CHECK(text.find(
            "timely_channel_batches_total{channel=\"8\",scope=\"0\",source=\"2:0\",target=\"3:0\"} 3\n") !=
        std::string::npos);
  CHECK(text.find("timely_worker_parked_seconds_total{worker=\"1\"} 0.250000000\n") != std::string::npos);
  CHECK(text.find("timely_peer_received_bytes_total{process=\"0\",peer=\"1\"} 2000\n") != std::string::npos);
  CHECK(text.find("timely_log_time_seconds 1.500000000\n") != std::string::npos);
  // Every family has HELP and TYPE lines, once.
  std::istringstream in(text);
  std::string line;
  std::set<std::string> helped, typed;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) CHECK(helped.insert(line.substr(7, line.find(' ', 7) - 7)).second);
    if (line.rfind("# TYPE ", 0) == 0) CHECK(typed.insert(line.substr(7, line.find(' ', 7) - 7)).second);
  }
  CHECK(helped == typed);
  CHECK(helped.size() == 16);
  CHECK(ob::escape_label_value("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}
