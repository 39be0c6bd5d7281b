// Starting workers with the communication library alone (communication::initialize): 1, 2 and
// 4 workers exchange point-to-point and broadcast messages, failures are rethrown, and `-z`
// serializes with Codec or refuses a type without one (SEMANTICS.md §7.2, §7.6-§7.7); processes
// meet at a rendezvous, and each of its failures reaches every process.
// This binary links timely::communication only.
#include <timely/communication/initialize.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/communication/error.hpp>
#include <timely/communication/hostfile.hpp>

#include "support/catch.hpp"
#include "support/loopback.hpp"

using namespace timely::communication;
using namespace std::chrono_literals;

namespace {

/// What one worker saw: its index, the peers, and the (sender, text) pairs and broadcast values
/// it received, sorted.
struct Seen {
  std::size_t index = 0;
  std::size_t peers = 0;
  std::vector<std::pair<std::size_t, std::string>> messages;
  std::vector<int> broadcasts;
};

/// Every worker sends one message to every worker and broadcasts its index; then receives until
/// it has one of each from every worker (or 30 s pass: throws).
Seen exchange_round(Allocator& a) {
  auto [pushers, puller] = a.allocate<std::pair<std::size_t, std::string>>(0);
  auto [bcast, bpull] = a.broadcast<int>(1);
  for (std::size_t t = 0; t < a.peers(); ++t)
    pushers[t]->send({a.index(), "from " + std::to_string(a.index()) + " to " + std::to_string(t)});
  for (auto& p : pushers) p->done();
  bcast->send(static_cast<int>(a.index()));
  bcast->done();
  a.release();
  Seen seen{a.index(), a.peers(), {}, {}};
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (seen.messages.size() < a.peers() || seen.broadcasts.size() < a.peers()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("timed out waiting for messages");
    a.receive();
    a.events().clear();
    while (auto m = puller->recv()) seen.messages.push_back(std::move(*m));
    while (auto b = bpull->recv()) seen.broadcasts.push_back(*b);
    a.await_events(10ms);
  }
  std::sort(seen.messages.begin(), seen.messages.end());
  std::sort(seen.broadcasts.begin(), seen.broadcasts.end());
  return seen;
}

void check_round(const std::vector<Seen>& results, std::size_t workers) {
  REQUIRE(results.size() == workers);
  for (std::size_t w = 0; w < workers; ++w) {
    INFO("worker " << w << " of " << workers);
    CHECK(results[w].index == w);
    CHECK(results[w].peers == workers);
    REQUIRE(results[w].messages.size() == workers);
    REQUIRE(results[w].broadcasts.size() == workers);
    for (std::size_t s = 0; s < workers; ++s) {
      CHECK(results[w].messages[s].first == s);
      CHECK(results[w].messages[s].second == "from " + std::to_string(s) + " to " + std::to_string(w));
      CHECK(results[w].broadcasts[s] == static_cast<int>(s));
    }
  }
}

/// Not encodable: user-declared constructors (not an aggregate), a non-trivial copy.
struct NoCodec {
  NoCodec() = default;
  explicit NoCodec(int x) : value(x) {}
  NoCodec(const NoCodec& other) : value(other.value) {}
  NoCodec& operator=(const NoCodec& other) = default;
  int value = 0;
};
static_assert(!Encodable<NoCodec>);

}  // namespace

TEST_CASE("initialize starts 1, 2 and 4 workers that exchange messages", "[communication][initialize]") {
  const std::size_t workers = GENERATE(1u, 2u, 4u);
  Config config;
  config.workers = workers;
  check_round(initialize(config, exchange_round), workers);
}

TEST_CASE("initialize with -z: 1, 2 and 4 workers exchange encoded frames", "[communication][initialize]") {
  const std::size_t workers = GENERATE(1u, 2u, 4u);
  Config config;
  config.workers = workers;
  config.cluster.zerocopy = true;
  check_round(initialize(config, exchange_round), workers);
}

TEST_CASE("initialize rethrows a worker's error, not the others' abort", "[communication][initialize]") {
  const std::size_t workers = GENERATE(2u, 4u);
  Config config;
  config.workers = workers;
  try {
    initialize(config, [](Allocator& a) {
      if (a.index() == 1) throw std::invalid_argument("worker 1 failed on purpose");
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      while (!a.poisoned()) {
        if (std::chrono::steady_clock::now() > deadline)
          throw std::runtime_error("never told of the failure");
        a.await_events(10ms);
      }
      throw timely::WorkerAborted("worker stopped: another failed");
    });
    FAIL("initialize returned");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) == "worker 1 failed on purpose");
  }
}

TEST_CASE("a type without a codec crosses threads, and is refused where it would be serialized",
          "[communication][initialize]") {
  Config config;
  config.workers = 2;
  // Between the threads of one process values move: no codec needed.
  auto sums = initialize(config, [](Allocator& a) {
    auto [pushers, puller] = a.allocate<NoCodec>(0);
    for (auto& p : pushers) p->send(NoCodec(static_cast<int>(a.index()) + 1));
    int sum = 0;
    for (std::size_t got = 0; got < a.peers();) {
      a.receive();
      while (auto v = puller->recv()) sum += v->value, ++got;
      a.await_events(10ms);
    }
    return sum;
  });
  CHECK(sums == std::vector<int>{3, 3});

  // Under -z every channel is serialized: allocating one of NoCodec is a ConfigError that names
  // the channel.
  config.cluster.zerocopy = true;
  const auto refuse = [&](bool broadcast) {
    try {
      initialize(config, [&](Allocator& a) {
        if (broadcast)
          (void)a.broadcast<NoCodec>(5);
        else
          (void)a.allocate<NoCodec>(5);
      });
      FAIL("initialize returned");
    } catch (const timely::ConfigError& e) {
      const std::string what = e.what();
      CHECK(what.find("channel 5") != std::string::npos);
      CHECK(what.find("without a Codec") != std::string::npos);
    }
  };
  refuse(false);
  refuse(true);
  // The pipeline stays on the thread: fine under -z too.
  auto piped = initialize(config, [](Allocator& a) {
    auto [push, pull] = a.pipeline<NoCodec>(0);
    push->send(NoCodec(7));
    return pull->recv()->value;
  });
  CHECK(piped == std::vector<int>{7, 7});
}

TEST_CASE("initialize rejects zero workers and a process index beyond the processes",
          "[communication][initialize]") {
  Config config;
  config.workers = 0;
  CHECK_THROWS_AS(initialize(config, [](Allocator&) {}), timely::ConfigError);
  config.workers = 1;
  config.cluster.processes = 2;
  config.cluster.process = 2;
  CHECK_THROWS_AS(initialize(config, [](Allocator&) {}), timely::ConfigError);
}

TEST_CASE("default ports past 65535 are an error, not a wrapped-around port", "[communication][initialize]") {
  Config config;
  config.cluster.processes = 63436;  // localhost:2101 .. localhost:65536
  config.cluster.process = 63435;
  CHECK_THROWS_WITH(initialize(config, [](Allocator&) {}),
                    Catch::Contains("63436 processes without a hostfile would listen on localhost:2101 to "
                                    "localhost:65536, past port 65535"));
}

TEST_CASE("waiting for many processes, the error names the first few and counts the rest",
          "[communication][initialize]") {
  auto addresses = support::free_loopback_addresses(1);
  for (std::size_t p = 1; p < 200; ++p) addresses.push_back({"127.0.0.1", static_cast<std::uint16_t>(1)});
  Config config = support::cluster_config(addresses, 0);
  config.cluster.connect_timeout = 200ms;
  try {
    initialize(config, [](Allocator&) {});
    FAIL("process 0 started without the other 199");
  } catch (const NetworkError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("waiting for process 1 (127.0.0.1:1), process 2 (127.0.0.1:1)") != std::string::npos);
    CHECK(what.find("and 191 more to connect") != std::string::npos);
    CHECK(what.size() < 400);
  }
}

namespace {

bool has_line_starting(const std::vector<std::string>& lines, const std::string& prefix) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
}

}  // namespace

TEST_CASE("two processes connect over loopback and report their connection events to the callback",
          "[communication][initialize]") {
  const auto addresses = support::free_loopback_addresses(2);
  std::vector<std::vector<std::string>> lines(2);
  std::vector<Seen> seen(2);
  support::run_processes(2, [&](std::size_t p) {
    Config config = support::cluster_config(addresses, p);
    config.cluster.report = [&lines, p](const std::string& line) { lines[p].push_back(line); };
    auto results = initialize(config, [](Allocator& a) { return exchange_round(a); });
    seen[p] = std::move(results.at(0));
  });
  for (std::size_t p = 0; p < 2; ++p) {
    INFO("process " << p);
    CHECK(seen[p].index == p);
    CHECK(seen[p].peers == 2);
    CHECK(seen[p].messages.size() == 2);
    CHECK(seen[p].broadcasts == std::vector<int>{0, 1});
    CHECK(has_line_starting(lines[p],
                            "process " + std::to_string(p) + " listening on " + addresses[p].to_string()));
  }
  // The one link between them: one process connected, the other accepted.
  CHECK(has_line_starting(lines[0], "connected to") != has_line_starting(lines[1], "connected to"));
  CHECK(has_line_starting(lines[0], "accepted") != has_line_starting(lines[1], "accepted"));
  CHECK(has_line_starting(lines[0], "connected to") != has_line_starting(lines[0], "accepted"));
}

TEST_CASE("the network keeps a queue per open channel and not one per channel ever opened",
          "[communication][initialize]") {
  // Two processes of 1 and 2 workers open 200 channels one after the other, as dataflows that
  // come and go do: each worker sends on one to every worker, receives from every worker and
  // closes it. The receive side's queues must follow the channels open (a few: the fast
  // workers' next ones), not grow by one per channel and worker.
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    const auto addresses = support::free_loopback_addresses(2);
    std::vector<std::vector<std::vector<std::size_t>>> counts(2);
    support::run_processes(2, [&](std::size_t p) {
      counts[p] = initialize(support::cluster_config(addresses, p, workers), [](Allocator& a) {
        const auto stats = a.network_stats();
        std::vector<std::size_t> seen;
        for (std::size_t channel = 10; channel < 210; ++channel) {
          auto [pushers, puller] = a.allocate<std::uint64_t>(channel);
          for (auto& push : pushers) {
            push->send(channel);
            push->done();
          }
          a.release();
          std::size_t got = 0;
          const auto deadline = std::chrono::steady_clock::now() + 30s;
          while (got < a.peers()) {
            if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("timed out");
            a.receive();
            a.events().clear();
            while (auto m = puller->recv()) {
              if (*m != channel) throw std::runtime_error("a message of another channel");
              ++got;
            }
            a.await_events(10ms);
          }
          if (channel == 20 || channel == 209) seen.push_back(stats->inbound_queues());
        }
        return seen;
      });
    });
    for (std::size_t p = 0; p < 2; ++p)
      for (const auto& seen : counts[p]) {
        INFO("process " << p << ": " << seen[0] << " queues after 11 channels, " << seen[1] << " after 200");
        REQUIRE(seen.size() == 2);
        CHECK(seen[1] <= seen[0] + 2 * workers);
        CHECK(seen[1] <= 4 * workers);
      }
  }
}

// --- Start-up through a rendezvous (src/communication/rendezvous.hpp): no hostfile.

namespace {

struct Outcome {
  std::optional<Seen> seen;
  std::string error;       // what() of the exception, if any
  std::string error_type;  // "config", "network" or "other"
  double seconds = 0;      // from the start of the test to the end of this process
  std::vector<std::string> lines;
};

/// Runs "processes" in threads, process i as `indices[i]` of `processes` with `workers[i]`
/// workers, all told the rendezvous `where`; `before(i)` runs in process i's thread first.
std::vector<Outcome> run_rendezvous(const Address& where, std::size_t processes,
                                    std::vector<std::size_t> indices, std::vector<std::size_t> workers,
                                    std::chrono::milliseconds timeout,
                                    const std::function<void(std::size_t)>& before = {}) {
  std::vector<Outcome> out(indices.size());
  std::vector<std::thread> threads;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < indices.size(); ++i) {
    threads.emplace_back([&, i] {
      if (before) before(i);
      try {
        Config config;
        config.workers = workers[i];
        config.cluster.processes = processes;
        config.cluster.process = indices[i];
        config.cluster.rendezvous = where;
        config.cluster.connect_timeout = timeout;
        config.cluster.report = [&out, i](const std::string& line) { out[i].lines.push_back(line); };
        auto results = initialize(config, [](Allocator& a) { return exchange_round(a); });
        out[i].seen = std::move(results.at(0));
      } catch (const timely::ConfigError& e) {
        out[i].error = e.what();
        out[i].error_type = "config";
      } catch (const NetworkError& e) {
        out[i].error = e.what();
        out[i].error_type = "network";
      } catch (const std::exception& e) {
        out[i].error = e.what();
        out[i].error_type = "other";
      }
      out[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  }
  for (auto& t : threads) t.join();
  return out;
}

}  // namespace

TEST_CASE("three processes meet at a rendezvous and exchange messages", "[communication][rendezvous]") {
  const auto where = support::free_loopback_addresses(1).at(0);
  const auto out = run_rendezvous(where, 3, {0, 1, 2}, {1, 1, 1}, 20s);
  for (std::size_t p = 0; p < 3; ++p) {
    INFO("process " << p << ": " << out[p].error);
    REQUIRE(out[p].error.empty());
    CHECK(out[p].seen->index == p);
    CHECK(out[p].seen->peers == 3);
    CHECK(out[p].seen->broadcasts == std::vector<int>{0, 1, 2});
  }
  CHECK(has_line_starting(out[0].lines, "process 0 serving the rendezvous at " + where.to_string()));
  CHECK(has_line_starting(out[0].lines, "registered process 1 at 127.0.0.1:"));
  CHECK(has_line_starting(out[2].lines, "received the addresses of 3 processes"));
  // Then the hostfile path's handshake, unchanged: process 2 connects to 0 and 1.
  CHECK(has_line_starting(out[2].lines, "connected to process 1 (127.0.0.1:"));
}

TEST_CASE("rendezvous failures are errors on every process", "[communication][rendezvous]") {
  const auto where = support::free_loopback_addresses(1).at(0);
  SECTION("another -w") {
    const auto out = run_rendezvous(where, 2, {0, 1}, {1, 2}, 20s);
    for (const auto& o : out) {
      INFO(o.error);
      CHECK(o.error_type == "config");
      CHECK_THAT(o.error, Catch::Contains("was started with -w 2, process 0 with -w 1"));
      CHECK(o.seconds < 10);
    }
  }
  SECTION("two processes with one index") {
    // The claimants hear it at once; process 0 keeps telling latecomers (here the missing
    // process 2) until the deadline.
    const auto out = run_rendezvous(where, 3, {0, 1, 1}, {1, 1, 1}, 4s);
    for (std::size_t i = 0; i < 3; ++i) {
      INFO("process " << i << ": " << out[i].error);
      CHECK(out[i].error_type == "config");
      CHECK_THAT(out[i].error, Catch::Contains("two processes claim index 1"));
      CHECK(out[i].seconds < (i == 0 ? 7 : 3));
    }
  }
  SECTION("a process missing at the deadline") {
    const auto out = run_rendezvous(where, 3, {0, 1}, {1, 1}, 1500ms);
    for (const auto& o : out) {
      INFO(o.error);
      CHECK(o.error_type == "network");
      CHECK_THAT(o.error, Catch::Contains("timed out after 1500 ms waiting for process(es) 2 to register"));
      CHECK(o.seconds < 6);
    }
  }
  SECTION("the rendezvous cannot be reached") {
    const auto out = run_rendezvous(where, 2, {1}, {1}, 1s);
    INFO(out[0].error);
    CHECK(out[0].error_type == "network");
    CHECK_THAT(out[0].error, Catch::Contains("could not connect to the rendezvous at " + where.to_string() +
                                             " (process 0) within 1000 ms"));
    CHECK(out[0].seconds < 4);
  }
  SECTION("a stranger at the rendezvous") {
    // Process 0 starts; a stranger sends it an HTTP request; then process 1 comes and hears why.
    std::atomic<bool> stranger_done{false};
    const auto out = run_rendezvous(where, 2, {0, 1}, {1, 1}, 10s, [&](std::size_t i) {
      if (i == 0) return;
      support::connect_and_send(where, "GET / HTTP/1.0\r\n\r\n");
      stranger_done = true;
    });
    CHECK(stranger_done);
    for (const auto& o : out) {
      INFO(o.error);
      CHECK(o.error_type == "network");
      CHECK_THAT(o.error, Catch::Contains("a stranger at the rendezvous") && Catch::Contains("'GET / HT'"));
      CHECK(o.seconds < 8);
    }
  }
}

TEST_CASE("connections that send nothing to the rendezvous are dropped, not taken for strangers",
          "[communication][rendezvous]") {
  // A port check connects and closes; a silent client holds its connection past the first-byte
  // wait. Neither fails the computation, and process 1, which comes after them, registers.
  const auto where = support::free_loopback_addresses(1).at(0);
  std::atomic<int> probes{0};
  const auto out = run_rendezvous(where, 2, {0, 1}, {1, 1}, 20s, [&](std::size_t i) {
    if (i == 0) return;
    support::connect_and_send(where, "");
    support::connect_and_send(where, "", 2500ms);
    probes = 2;
  });
  CHECK(probes == 2);
  for (const auto& o : out) {
    INFO(o.error);
    REQUIRE(o.error.empty());
  }
  CHECK(std::count_if(out[0].lines.begin(), out[0].lines.end(), [](const std::string& line) {
          return line.find("ignored a connection from") != std::string::npos;
        }) == 2);
}

TEST_CASE("process 0 cannot serve a rendezvous on a port in use", "[communication][rendezvous]") {
  const auto where = support::free_loopback_addresses(1).at(0);
  const int squatter = support::listen_on(where);
  const auto out = run_rendezvous(where, 2, {0}, {1}, 2s);
  support::close_socket(squatter);
  INFO(out[0].error);
  CHECK(out[0].error_type == "config");
  CHECK_THAT(out[0].error, Catch::Contains("process 0 cannot serve the rendezvous at " + where.to_string()) &&
                               Catch::Contains("in use"));
}

TEST_CASE("process 0 waits for its rendezvous name to resolve, then says so", "[communication][rendezvous]") {
  const Address nowhere{"no-such-host.invalid", 4321};
  const auto out = run_rendezvous(nowhere, 2, {0}, {1}, 1s);
  INFO(out[0].error);
  CHECK(out[0].error_type == "config");
  CHECK_THAT(
      out[0].error,
      Catch::Contains("cannot resolve the rendezvous address no-such-host.invalid:4321 within 1000 ms"));
  CHECK(out[0].seconds >= 0.8);
  CHECK(out[0].seconds < 5);
}

TEST_CASE("a rendezvous at the unspecified address is refused on every process",
          "[communication][rendezvous]") {
  for (const auto* host : {"0.0.0.0", "::"}) {
    const auto out = run_rendezvous(Address{host, 7000}, 2, {0, 1}, {1, 1}, 5s);
    for (const auto& o : out) {
      INFO(host << ": " << o.error);
      CHECK(o.error_type == "config");
      CHECK_THAT(o.error, Catch::Contains("is no address the processes can reach"));
      CHECK(o.seconds < 1);
    }
  }
}

TEST_CASE("a rendezvous at this host's name, which may be loopback only here",
          "[communication][rendezvous]") {
  // On Debian a host's name maps to 127.0.1.1 (/etc/hosts) on the host itself; elsewhere it is
  // the host's network address. Listening on loopback would then reach no other host: a process
  // listens on every interface and registers the name instead.
  char name[256] = {};
  REQUIRE(::gethostname(name, sizeof name - 1) == 0);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  REQUIRE(::getaddrinfo(name, nullptr, &hints, &found) == 0);
  const bool loopback =
      found->ai_family == AF_INET &&
      (ntohl(reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr.s_addr) >> 24) == 127;
  ::freeaddrinfo(found);
  const Address where{name, support::free_loopback_addresses(1).at(0).port};
  const auto out = run_rendezvous(where, 3, {0, 1, 2}, {1, 1, 1}, 20s);
  for (std::size_t p = 0; p < 3; ++p) {
    INFO("process " << p << ": " << out[p].error);
    REQUIRE(out[p].error.empty());
    CHECK(out[p].seen->broadcasts == std::vector<int>{0, 1, 2});
  }
  INFO("this host is " << name << (loopback ? ", loopback here" : ""));
  CHECK(has_line_starting(out[0].lines, "process 0 serving the rendezvous at " + where.to_string() +
                                            (loopback ? " (every interface: " : ", listening on")));
  if (loopback) {
    CHECK(has_line_starting(out[0].lines, "registered process 1 at " + std::string(name) + ":"));
    CHECK(has_line_starting(out[2].lines, "connected to process 1 (" + std::string(name) + ":"));
  }
}
