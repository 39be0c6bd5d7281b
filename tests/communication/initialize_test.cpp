// Starting workers with the communication library alone (communication::initialize): 1, 2 and
// 4 workers exchange point-to-point and broadcast messages, failures are rethrown, and `-z`
// serializes with Codec or refuses a type without one (SEMANTICS.md §7.2, §7.6-§7.7).
// This binary links timely::communication only.
#include <timely/communication/initialize.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
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
  std::vector<std::exception_ptr> errors(2);
  std::vector<std::thread> processes;
  for (std::size_t p = 0; p < 2; ++p) {
    processes.emplace_back([&, p] {
      try {
        Config config;
        config.workers = 1;
        config.cluster.processes = 2;
        config.cluster.process = p;
        config.cluster.addresses = addresses;
        config.cluster.connect_timeout = 20s;
        config.cluster.report = [&lines, p](const std::string& line) { lines[p].push_back(line); };
        auto results = initialize(config, [](Allocator& a) { return exchange_round(a); });
        seen[p] = std::move(results.at(0));
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  }
  for (auto& t : processes) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
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
