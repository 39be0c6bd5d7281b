// Columnar batches through the cluster allocator (timely/communication/cluster.hpp): received
// from another process over loopback, or from any worker under -z, a batch borrows the receive
// buffer in place (which also shows that its columns landed 8-byte aligned after a 12-byte
// prefix), reads back equal, and the buffers are released once the batches are dropped.
#include <timely/container/columnar.hpp>

#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/communication/initialize.hpp>
#include <timely/communication/network_stats.hpp>

#include "support/catch.hpp"
#include "support/loopback.hpp"

using namespace timely::communication;
using namespace std::chrono_literals;
namespace col = timely::container::columnar;

namespace {

using Record = std::pair<std::uint64_t, std::string>;
using Batch = col::Batch<Record>;
/// Like a data message: from (u64), a 4-byte time, then the batch (which pads to 8 first).
using Msg = std::tuple<std::uint64_t, std::uint32_t, Batch>;

Batch batch_for(std::size_t from, std::size_t to, std::size_t round, std::size_t records) {
  Batch b;
  for (std::size_t i = 0; i < records; ++i)
    b.push_into(
        Record{from * 1'000'000 + to * 1000 + round, std::string(5 + (i + round) % 11, char('a' + i % 26))});
  return b;
}

struct Report {
  std::size_t received = 0;
  std::size_t remote = 0;  // from another process, or any under -z
  std::size_t remote_borrowed = 0;
  std::size_t equal = 0;
  std::size_t owners = 0;  // distinct receive buffers seen
  std::size_t owners_released = 0;
};

/// Every worker sends `rounds` batches to every worker, receives all of them, checks them,
/// drops them, waits at `dropped` for the other workers of its process to drop theirs (under -z
/// a frame buffer holds batches for several of them), and counts which receive buffers are gone.
/// `records_in(round)` records per batch; `per_process` workers per process.
template <class Records>
Report exchange(Allocator& a, bool zerocopy, std::size_t rounds, Records records_in, std::barrier<>& dropped,
                std::size_t per_process = 1) {
  auto [pushers, puller] = a.allocate<Msg>(0);
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t t = 0; t < a.peers(); ++t)
      pushers[t]->send(
          Msg{a.index(), static_cast<std::uint32_t>(r), batch_for(a.index(), t, r, records_in(r))});
    a.release();
  }
  for (auto& p : pushers) p->done();
  a.release();
  Report report;
  std::vector<Msg> kept;
  std::vector<std::weak_ptr<const void>> owners;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (report.received < rounds * a.peers()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("timed out waiting for batches");
    a.receive();
    a.events().clear();
    while (auto m = puller->recv()) {
      ++report.received;
      auto& [from, round, batch] = *m;
      const bool remote = zerocopy || from / per_process != a.index() / per_process;
      if (remote) {
        ++report.remote;
        if (batch.borrowed()) ++report.remote_borrowed;
        const auto owner = batch.owner();
        if (owner) {
          bool seen = false;
          for (const auto& w : owners) seen = seen || (!w.owner_before(owner) && !owner.owner_before(w));
          if (!seen) owners.emplace_back(owner);
        }
      }
      if (batch == batch_for(from, a.index(), round, records_in(round))) ++report.equal;
      kept.push_back(std::move(*m));  // hold every batch until all arrived
    }
    a.await_events(10ms);
  }
  kept.clear();
  (void)puller->recv();  // the inbox lets go of the last message it handed out
  dropped.arrive_and_wait();
  report.owners = owners.size();
  for (const auto& w : owners) report.owners_released += w.expired() ? 1 : 0;
  return report;
}

}  // namespace

TEST_CASE("columnar over -z: every received batch borrows its frame buffer, released when dropped",
          "[container][columnar][cluster]") {
  const std::size_t workers = GENERATE(1u, 2u, 4u);
  INFO(workers << " workers");
  Config config;
  config.workers = workers;
  config.cluster.zerocopy = true;
  std::barrier<> dropped(static_cast<std::ptrdiff_t>(workers));
  const auto reports = initialize(config, [&](Allocator& a) {
    return exchange(
        a, true, 3, [](std::size_t) { return 2000; }, dropped);
  });
  for (const auto& r : reports) {
    CHECK(r.received == 3 * workers);
    CHECK(r.remote == r.received);
    CHECK(r.remote_borrowed == r.remote);
    CHECK(r.equal == r.received);
    CHECK(r.owners >= 1);
    CHECK(r.owners_released == r.owners);  // -z buffers are held by views alone
  }
}

TEST_CASE("columnar between two processes: batches borrow the receive slab, which is released",
          "[container][columnar][cluster]") {
  const auto addresses = support::free_loopback_addresses(2);
  std::vector<Report> reports(2);
  // 32 rounds of ~160 KiB batches per direction: more than one 4 MiB receive slab.
  constexpr std::size_t rounds = 32, records = 6000;
  support::run_processes(2, [&](std::size_t p) {
    std::barrier<> dropped(1);
    reports[p] = initialize(support::cluster_config(addresses, p), [&](Allocator& a) {
                   return exchange(
                       a, false, rounds, [](std::size_t) { return records; }, dropped);
                 }).at(0);
  });
  for (std::size_t p = 0; p < 2; ++p) {
    INFO("process " << p);
    const auto& r = reports[p];
    INFO(r.owners << " receive slabs, " << r.owners_released << " released");
    CHECK(r.received == 2 * rounds);
    CHECK(r.remote == rounds);
    CHECK(r.remote_borrowed == rounds);
    CHECK(r.equal == r.received);
    CHECK(r.owners >= 2);
    // The receive thread may still be filling its current slab; every other one was given back.
    CHECK(r.owners_released + 1 >= r.owners);
    CHECK(r.owners_released >= 1);
  }
}

// Batches whose columns pass ClusterLinks::lasting_min (64 KiB) are written from their own
// column buffers with a gather write (between processes) or copied into one buffer (-z, and
// when the send thread has frames queued), between small batches that share a buffer.
// 40,000 records: u64 column 320,000 bytes, string offsets 320,000, string bytes ~400,000.
constexpr std::size_t big_records = 40'000;
std::size_t mixed_records(std::size_t round) { return round % 3 == 0 ? big_records : 1 + round % 7 * 50; }

TEST_CASE("columnar over -z: large batches between small ones arrive equal and in order",
          "[container][columnar][cluster]") {
  const std::size_t workers = GENERATE(1u, 2u);
  INFO(workers << " workers");
  Config config;
  config.workers = workers;
  config.cluster.zerocopy = true;
  std::barrier<> dropped(static_cast<std::ptrdiff_t>(workers));
  const auto reports =
      initialize(config, [&](Allocator& a) { return exchange(a, true, 7, mixed_records, dropped); });
  for (const auto& r : reports) {
    CHECK(r.received == 7 * workers);
    CHECK(r.remote_borrowed == r.remote);
    CHECK(r.equal == r.received);
    CHECK(r.owners_released == r.owners);
  }
}

TEST_CASE("columnar between two processes: large batches are written from their columns, in order",
          "[container][columnar][cluster]") {
  const std::size_t workers = GENERATE(1u, 2u);
  INFO(workers << " workers per process");
  const auto addresses = support::free_loopback_addresses(2);
  constexpr std::size_t rounds = 13;
  std::vector<std::vector<Report>> reports(2);
  std::vector<std::shared_ptr<const NetworkStats>> stats(2);
  support::run_processes(2, [&](std::size_t p) {
    std::barrier<> dropped(static_cast<std::ptrdiff_t>(workers));
    const auto config = support::cluster_config(addresses, p, workers);
    reports[p] = initialize(config, [&](Allocator& a) {
      if (a.index() % workers == 0) stats[p] = a.network_stats();
      return exchange(a, false, rounds, mixed_records, dropped, workers);
    });
  });
  for (std::size_t p = 0; p < 2; ++p) {
    INFO("process " << p);
    for (const auto& r : reports[p]) {
      CHECK(r.received == 2 * workers * rounds);
      CHECK(r.remote == workers * rounds);
      CHECK(r.remote_borrowed == r.remote);
      CHECK(r.equal == r.received);  // batch_for names sender, receiver and round: order and routing
    }
    // What one side wrote, counted frame by frame over the gathered pieces, the other read.
    REQUIRE(stats[p] != nullptr);
    REQUIRE(stats[1 - p] != nullptr);
    const auto sent = stats[p]->peer(1 - p);
    const auto received = stats[1 - p]->peer(p);
    CHECK(sent.bytes_sent == received.bytes_received);
    CHECK(sent.frames_sent == received.frames_received);
    constexpr std::size_t big_rounds = (rounds + 2) / 3;  // rounds 0, 3, 6, ...
    CHECK(sent.bytes_sent > workers * workers * big_rounds * big_records * 8);
  }
}
