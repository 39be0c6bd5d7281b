// Thread and process allocators: delivery, per-sender FIFO, events, parking (SEMANTICS.md §7).
#include <timely/communication/allocator.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <typeinfo>
#include <utility>
#include <vector>

#include <timely/communication/error.hpp>

#include "support/catch.hpp"

using namespace timely::communication;
using namespace std::chrono_literals;

TEST_CASE("a buzz before park makes park return at once", "[communication]") {
  Buzzer buzzer;
  buzzer.buzz();
  const auto start = std::chrono::steady_clock::now();
  buzzer.park(std::nullopt);  // would hang without token semantics
  CHECK(std::chrono::steady_clock::now() - start < 5s);
  // The token is consumed: a second park waits for its timeout.
  const auto again = std::chrono::steady_clock::now();
  buzzer.park(20ms);
  CHECK(std::chrono::steady_clock::now() - again >= 15ms);
}

TEST_CASE("thread allocator delivers to itself and records events", "[communication]") {
  auto alloc = Allocator::thread();
  CHECK(alloc.peers() == 1);
  auto [pushers, puller] = alloc.allocate<int>(7);
  REQUIRE(pushers.size() == 1);
  pushers[0]->send(1);
  pushers[0]->send(2);
  pushers[0]->done();
  CHECK(alloc.events() == std::vector<std::size_t>{7, 7});
  CHECK(puller->recv() == 1);
  CHECK(puller->recv() == 2);
  CHECK_FALSE(puller->recv().has_value());
}

TEST_CASE("process allocator: every worker receives each sender's values in order", "[communication]") {
  const std::size_t workers = GENERATE(2u, 3u, 4u);
  auto shared = std::make_shared<ProcessShared>(workers);
  constexpr int per_sender = 2000;
  std::vector<std::vector<std::vector<int>>> received(workers, std::vector<std::vector<int>>(workers));
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      Allocator alloc(w, shared);
      auto [pushers, puller] = alloc.allocate<std::pair<std::size_t, int>>(3);
      for (int i = 0; i < per_sender; ++i)
        for (std::size_t t = 0; t < workers; ++t) pushers[t]->send({w, i});
      std::size_t got = 0;
      while (got < per_sender * workers) {
        alloc.receive();
        alloc.events().clear();
        while (auto v = puller->recv()) {
          received[w][v->first].push_back(v->second);
          ++got;
        }
        if (got < per_sender * workers) alloc.await_events(1ms);
      }
    });
  for (auto& t : threads) t.join();
  for (std::size_t w = 0; w < workers; ++w)
    for (std::size_t s = 0; s < workers; ++s) {
      REQUIRE(received[w][s].size() == per_sender);
      for (int i = 0; i < per_sender; ++i) REQUIRE(received[w][s][i] == i);
    }
}

TEST_CASE("a push to a parked worker wakes it", "[communication]") {
  auto shared = std::make_shared<ProcessShared>(2);
  Allocator a(0, shared), b(1, shared);
  auto [pa, qa] = a.allocate<int>(1);
  auto [pb, qb] = b.allocate<int>(1);
  std::atomic<bool> woke{false};
  std::thread parked([&] {
    b.await_events(std::nullopt);  // no timeout: only the push can wake it
    b.receive();
    woke = true;
  });
  std::this_thread::sleep_for(20ms);
  pa[1]->send(42);
  parked.join();
  CHECK(woke);
  CHECK(b.events() == std::vector<std::size_t>{1});
  CHECK(qb->recv() == 42);
}

TEST_CASE("poison wakes parked workers", "[communication]") {
  auto shared = std::make_shared<ProcessShared>(2);
  std::thread parked([&] { shared->park(1, std::nullopt); });
  std::this_thread::sleep_for(10ms);
  shared->poison();
  parked.join();
  CHECK(shared->poisoned());
}

TEST_CASE("allocating one channel with different types on different workers is an error", "[communication]") {
  auto shared = std::make_shared<ProcessShared>(2);
  Allocator a(0, shared), b(1, shared);
  auto first = a.allocate<int>(5);
  CHECK_THROWS_AS(b.allocate<double>(5), timely::DataflowError);
  auto again = a.allocate<int>(6);
  CHECK_THROWS_WITH(b.allocate<double>(6),
                    Catch::Contains("channel 6 with different types (int against double)"));
}

TEST_CASE("an allocator records how each channel was allocated, when there are other workers",
          "[communication]") {
  auto shared = std::make_shared<ProcessShared>(2);
  Allocator a(0, shared), b(1, shared);
  using Local = std::unique_ptr<int>;  // no codec: never leaves the process
  auto p = a.allocate<std::vector<std::uint64_t>>(3);
  auto q = a.broadcast<std::string>(4);
  auto r = a.pipeline<std::int64_t>(5);
  auto s = a.allocate<Local>(6);
  const auto uses = a.take_uses();
  REQUIRE(uses.size() == 4);
  CHECK((uses[0].channel == 3 && uses[0].what == "point-to-point of vec<u64>"));
  CHECK((uses[1].channel == 4 && uses[1].what == "broadcast of string"));
  CHECK((uses[2].channel == 5 && uses[2].what == "pipeline"));
  CHECK((uses[3].channel == 6 && uses[3].what == "point-to-point of a type without a codec"));
  CHECK(a.take_uses().empty());  // taken
  // Object bytes and enums name the type too: two structs of one size encode alike.
  struct RawA {
    std::uint32_t a;
    float b;
  };
  enum class Colour : std::uint64_t { red };
  auto raw = a.allocate<RawA>(7);
  auto colour = a.broadcast<Colour>(8);
  const auto named = a.take_uses();
  REQUIRE(named.size() == 2);
  CHECK(named[0].what == "point-to-point of raw8 (" + demangled_name(typeid(RawA)) + ")");
  CHECK(named[1].what == "broadcast of enum:u64 (" + demangled_name(typeid(Colour)) + ")");
  CHECK_THAT(named[0].what, Catch::Contains("RawA"));
  // With one worker there is no one to compare with, and nothing is kept.
  auto alone = Allocator::thread();
  auto t = alone.allocate<std::uint64_t>(3);
  CHECK(alone.take_uses().empty());
}

TEST_CASE("two long names are cut around where they first differ", "[communication]") {
  const std::string head(5000, 'a');
  const auto [x, y] = excerpts_around_difference(head + "<u64>" + std::string(3000, 'z'),
                                                 head + "<i64>" + std::string(3000, 'z'), 240);
  CHECK(x.size() <= 246);
  CHECK(y.size() <= 246);
  CHECK_THAT(x, Catch::StartsWith("...") && Catch::Contains("<u64>") && Catch::EndsWith("..."));
  CHECK_THAT(y, Catch::Contains("<i64>"));
  // Short names stay whole, and so does a name that differs at its start.
  CHECK(excerpts_around_difference("vec<u64>", "vec<i64>", 240) ==
        std::pair<std::string, std::string>{"vec<u64>", "vec<i64>"});
  const auto [p, q] =
      excerpts_around_difference("u" + std::string(1000, 'z'), "i" + std::string(1000, 'z'), 240);
  CHECK((p.substr(0, 2) == "uz" && q.substr(0, 2) == "iz" && p.size() == 243));
}

TEST_CASE("broadcast reaches every worker including the sender", "[communication]") {
  auto shared = std::make_shared<ProcessShared>(3);
  std::vector<Allocator> allocs;
  for (std::size_t i = 0; i < 3; ++i) allocs.emplace_back(i, shared);
  std::vector<std::unique_ptr<Push<int>>> pushers;
  std::vector<std::unique_ptr<Pull<int>>> pullers;
  for (auto& a : allocs) {
    auto [push, pull] = a.broadcast<int>(9);
    pushers.push_back(std::move(push));
    pullers.push_back(std::move(pull));
  }
  pushers[1]->send(11);
  for (auto& p : pullers) CHECK(p->recv() == 11);
}

TEST_CASE("a process of zero worker threads is a configuration error", "[communication]") {
  CHECK_THROWS_AS(ProcessShared(0), timely::ConfigError);
}

namespace {
// A value with storage that channels pass back once consumed (`Recyclable`), like a message.
struct Buffer {
  std::vector<int> data;
  bool recycle() {
    data.clear();
    return data.capacity() != 0;
  }
};
static_assert(Recyclable<Buffer>);

// Sends {1, 2, 3} and then {4} from `push` to `pull`, consuming each in its slot as operators do:
// the second push leaves the first's storage behind, emptied.
void check_passed_back(Push<Buffer>& push, Pull<Buffer>& pull) {
  std::optional<Buffer> slot(Buffer{{1, 2, 3}});
  const int* storage = slot->data.data();
  push.push(slot);
  CHECK_FALSE(slot.has_value());  // nothing consumed yet, nothing to give back
  auto& first = pull.pull();
  REQUIRE(first.has_value());
  CHECK(first->data == std::vector<int>{1, 2, 3});
  CHECK_FALSE(pull.pull().has_value());  // consumes the first: it goes back to the senders
  std::optional<Buffer> second(Buffer{{4}});
  push.push(second);
  REQUIRE(second.has_value());
  CHECK(second->data.empty());
  CHECK(second->data.data() == storage);
  CHECK(pull.recv()->data == std::vector<int>{4});
}
}  // namespace

TEST_CASE("consumed values go back to their senders with their storage, emptied", "[communication]") {
  SECTION("thread allocator") {
    auto alloc = Allocator::thread();
    auto [pushers, puller] = alloc.allocate<Buffer>(0);
    check_passed_back(*pushers[0], *puller);
  }
  SECTION("process allocator, from a worker to itself") {
    auto shared = std::make_shared<ProcessShared>(2);
    Allocator worker0(0, shared), worker1(1, shared);
    auto [pushers0, puller0] = worker0.allocate<Buffer>(0);
    auto [pushers1, puller1] = worker1.allocate<Buffer>(0);
    check_passed_back(*pushers1[1], *puller1);
  }
  SECTION("process allocator: each consumed value goes back to the worker that wrote it") {
    // Worker 1 writes to itself and worker 0 to it, interleaved: each writer's next push hands
    // back the storage of its own value that worker 1 consumed, and each writer's values
    // arrive in the order written.
    auto shared = std::make_shared<ProcessShared>(2);
    Allocator worker0(0, shared), worker1(1, shared);
    auto [pushers0, puller0] = worker0.allocate<Buffer>(0);
    auto [pushers1, puller1] = worker1.allocate<Buffer>(0);
    std::vector<std::vector<int>> received;
    const int* theirs_storage = nullptr;
    const int* mine_storage = nullptr;
    for (int round = 0; round < 4; ++round) {
      std::optional<Buffer> theirs(Buffer{{round}});
      const int* const theirs_now = theirs->data.data();
      pushers0[1]->push(theirs);
      std::optional<Buffer> mine(Buffer{{100 + round, 0}});
      const int* const mine_now = mine->data.data();
      pushers1[1]->push(mine);
      if (round == 0) {
        CHECK_FALSE(theirs.has_value());
        CHECK_FALSE(mine.has_value());
      } else {  // the previous round's values, consumed, come back emptied to their writers
        REQUIRE(theirs.has_value());
        CHECK(theirs->data.empty());
        CHECK(theirs->data.capacity() == 1);
        CHECK(theirs->data.data() == theirs_storage);
        REQUIRE(mine.has_value());
        CHECK(mine->data.empty());
        CHECK(mine->data.capacity() == 2);
        CHECK(mine->data.data() == mine_storage);
      }
      theirs_storage = theirs_now;
      mine_storage = mine_now;
      while (auto& got = puller1->pull()) received.push_back(got->data);
    }
    std::vector<std::vector<int>> from0, from1;
    for (auto& r : received) (r.size() == 1 ? from0 : from1).push_back(r);
    CHECK(from0 == std::vector<std::vector<int>>{{0}, {1}, {2}, {3}});
    CHECK(from1 == std::vector<std::vector<int>>{{100, 0}, {101, 0}, {102, 0}, {103, 0}});
  }
  SECTION("process allocator: a writer keeps at most returned_per_writer of others' values") {
    // Worker 0 sends 100 values to each of workers 1 and 2 before either reads; once both have
    // read them all, worker 0's next pushes (to any worker) hand back that many, and no more.
    constexpr std::size_t limit = returned_per_writer;
    auto shared = std::make_shared<ProcessShared>(3);
    Allocator worker0(0, shared), worker1(1, shared), worker2(2, shared);
    auto [pushers0, puller0] = worker0.allocate<Buffer>(0);
    auto [pushers1, puller1] = worker1.allocate<Buffer>(0);
    auto [pushers2, puller2] = worker2.allocate<Buffer>(0);
    for (int i = 0; i < 100; ++i) {
      for (std::size_t target : {1, 2}) {
        std::optional<Buffer> value(Buffer{{i, i, i}});
        pushers0[target]->push(value);
        CHECK_FALSE(value.has_value());
      }
    }
    std::size_t read = 0;
    while (puller1->pull()) ++read;
    while (puller2->pull()) ++read;
    CHECK(read == 200);
    std::size_t handed_back = 0;
    for (std::size_t i = 0; i < 2 * limit; ++i) {
      std::optional<Buffer> value(Buffer{{-1}});
      pushers0[1 + i % 2]->push(value);
      if (value) {
        CHECK(value->data.empty());
        CHECK(value->data.capacity() == 3);
        ++handed_back;
      }
    }
    CHECK(handed_back == limit);
  }
  SECTION("a value without storage is not passed back") {
    auto alloc = Allocator::thread();
    auto [pushers, puller] = alloc.allocate<Buffer>(0);
    pushers[0]->send(Buffer{{1}});
    auto& got = puller->pull();
    REQUIRE(got.has_value());
    got->data = std::vector<int>{};  // taken by the consumer: no storage left
    CHECK_FALSE(puller->pull().has_value());
    std::optional<Buffer> slot(Buffer{{2}});
    pushers[0]->push(slot);
    CHECK_FALSE(slot.has_value());
  }
}
