// Sparse connectivity (SEMANTICS.md §3.1, §3.4): `PortConnectivity` as a map, and the
// reachability builder and tracker on an operator with 10,000 inputs and outputs where input i
// reaches only output i, which must build and propagate in time linear in its ports.
#include <timely/progress/connectivity.hpp>
#include <timely/progress/reachability.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "support/catch.hpp"

using namespace timely::progress;
using T = std::uint64_t;

TEST_CASE("port connectivity is a sorted map without empty entries", "[progress][connectivity]") {
  PortConnectivity<T> c;
  CHECK(c.empty());
  CHECK(c.port_bound() == 0);
  CHECK(c.insert(5, 2));
  CHECK(c.insert(1, 0));
  CHECK_FALSE(c.insert(5, 3));    // 2 <= 3: the antichain keeps 2
  CHECK(c.insert(5, 1));          // 1 < 2 replaces it
  c.add_port(3, Antichain<T>{});  // empty: not connected, not stored
  REQUIRE(c.size() == 2);
  std::vector<std::size_t> ports;
  for (const auto& [port, summaries] : c) ports.push_back(port);
  CHECK(ports == std::vector<std::size_t>{1, 5});
  REQUIRE(c.get(5) != nullptr);
  CHECK(*c.get(5) == Antichain<T>(1));
  CHECK(c.get(3) == nullptr);
  CHECK(c.port_bound() == 6);
  c.set_port(5, Antichain<T>{});  // disconnects
  CHECK(c.get(5) == nullptr);
  c.set_port(0, Antichain<T>(7));
  CHECK(c == PortConnectivity<T>{{0, Antichain<T>(7)}, {1, Antichain<T>(0)}});
  CHECK(identity_connectivity<T>(2, 3)[1] ==
        PortConnectivity<T>{{0, Antichain<T>(0)}, {1, Antichain<T>(0)}, {2, Antichain<T>(0)}});
}

namespace {
// Scope boundary 0 with k inputs and k outputs, and one operator (node 1) with k inputs and k
// outputs where input i reaches output i only (with summary i % 3); scope input i feeds
// operator input i and operator output i feeds scope output i. Returns the build time.
double diagonal(std::size_t k) {
  const auto start = std::chrono::steady_clock::now();
  Builder<T> b;
  b.add_node(0, k, k, {});
  Connectivity<T> conn(k);
  for (std::size_t i = 0; i < k; ++i) conn[i].insert(i, i % 3);
  b.add_node(1, k, k, std::move(conn));
  for (std::size_t i = 0; i < k; ++i) {
    b.add_edge(Source{0, i}, Target{1, i});
    b.add_edge(Source{1, i}, Target{0, i});
  }
  REQUIRE_FALSE(b.non_advancing_cycle());
  auto [tracker, summary] = b.build();
  // The scope's own summary is the diagonal too.
  REQUIRE(summary.size() == k);
  for (std::size_t i = 0; i < k; ++i) REQUIRE(summary[i] == PortConnectivity<T>{{i, Antichain<T>(i % 3)}});

  // A capability at every operator output at time 10 is implied at its own scope output only.
  for (std::size_t i = 0; i < k; ++i) tracker.update_source(Source{1, i}, 10, 1);
  // Scope input frontiers at 0: pointstamps at the boundary reach operator input i only.
  for (std::size_t i = 0; i < k; ++i) tracker.update_source(Source{0, i}, 0, 1);
  tracker.propagate_all();
  for (std::size_t j = 0; j < k; ++j) {
    MutableAntichain<T> out;
    out.update_iter(tracker.output_changes(j).take());
    REQUIRE(out.frontier() == Antichain<T>(10));
  }
  (void)tracker.pushed_changes().take();
  // Closing scope input 0 alone empties operator input 0's frontier, and moves no port but the
  // zeroth ones (operator input 0, and scope output 0 from 0 to 10).
  tracker.update_source(Source{0, 0}, 0, -1);
  tracker.propagate_all();
  CHECK(tracker.implications(Location::of(Target{1, 0})).empty());
  CHECK(tracker.implications(Location::of(Target{0, 0})) == Antichain<T>(10));
  for (std::size_t i = 1; i < k; ++i)
    REQUIRE(tracker.implications(Location::of(Target{1, i})) == Antichain<T>(0));
  std::size_t changes = 0;
  tracker.pushed_changes().drain([&](const auto& key, std::int64_t) {
    CHECK(std::get<1>(key) == 0);
    ++changes;
  });
  CHECK(changes == 3);  // (1, 0, 0) -1; (0, 0, 0) -1; (0, 0, 10) +1
  // Dropping operator output 0's capability moves scope output 0 only.
  tracker.update_source(Source{1, 0}, 10, -1);
  tracker.propagate_all();
  const auto dropped = tracker.output_changes(0).take();
  REQUIRE(dropped.size() == 1);
  CHECK(dropped[0] == std::pair<T, std::int64_t>{10, -1});
  for (std::size_t j = 1; j < k; ++j) REQUIRE(tracker.output_changes(j).empty());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

TEST_CASE("a 10,000-port diagonal operator builds and propagates in linear time",
          "[progress][connectivity][scale]") {
  const double small = diagonal(1'000);
  const double large = diagonal(10'000);
  INFO("k = 1000: " << small << " s, k = 10000: " << large << " s");
  // A dense k x k table would make the tenfold operator a hundred times slower (and need
  // gigabytes); linear work is about ten times slower. Generous bounds for a loaded machine.
  CHECK(large < 30 * small + 1.0);
  CHECK(large < 20.0);
}
