// The reachability builder and tracker on small hand-made graphs (SEMANTICS.md §3.4-§3.5).
#include <timely/progress/reachability.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

#include "support/catch.hpp"

using namespace timely::progress;
using T = std::uint64_t;

namespace {
// A ring of three operators 1 -> 2 -> 3 -> 1, where operator 3 advances time by one.
Builder<T> ring() {
  Builder<T> b;
  b.add_node(0, 0, 0, {});
  b.add_node(1, 1, 1, identity_connectivity<T>(1, 1));
  b.add_node(2, 1, 1, identity_connectivity<T>(1, 1));
  b.add_node(3, 1, 1, Connectivity<T>{{{0, Antichain<T>(1)}}});
  b.add_edge(Source{1, 0}, Target{2, 0});
  b.add_edge(Source{2, 0}, Target{3, 0});
  b.add_edge(Source{3, 0}, Target{1, 0});
  return b;
}
}  // namespace

TEST_CASE("a capability implies times around a ring", "[progress][reachability]") {
  auto builder = ring();
  REQUIRE_FALSE(builder.non_advancing_cycle().has_value());
  auto tracker = builder.build().first;
  tracker.update_source(Source{1, 0}, 17, 1);
  tracker.propagate_all();
  CHECK(tracker.implications(Location::of(Target{2, 0})) == Antichain<T>(17));
  CHECK(tracker.implications(Location::of(Target{3, 0})) == Antichain<T>(17));
  CHECK(tracker.implications(Location::of(Target{1, 0})) == Antichain<T>(18));
  CHECK(tracker.implications(Location::of(Source{3, 0})) == Antichain<T>(18));
  // Pushed changes are exactly the three input frontiers.
  auto& pushed = tracker.pushed_changes();
  std::vector<std::tuple<std::size_t, std::size_t, T>> keys;
  pushed.drain([&](const auto& key, std::int64_t d) {
    CHECK(d == 1);
    keys.push_back(key);
  });
  CHECK(keys == std::vector<std::tuple<std::size_t, std::size_t, T>>{{1, 0, 18}, {2, 0, 17}, {3, 0, 17}});
  CHECK(tracker.tracking_anything());

  tracker.update_source(Source{1, 0}, 17, -1);
  tracker.propagate_all();
  CHECK(tracker.implications(Location::of(Target{1, 0})).empty());
  CHECK(tracker.implications(Location::of(Target{2, 0})).empty());
  CHECK_FALSE(tracker.tracking_anything());
  std::int64_t net = 0;
  tracker.pushed_changes().drain([&](const auto&, std::int64_t d) { net += d; });
  CHECK(net == -3);
}

TEST_CASE("a cycle without advancement is reported", "[progress][reachability]") {
  Builder<T> b;
  b.add_node(0, 0, 0, {});
  b.add_node(1, 1, 1, identity_connectivity<T>(1, 1));
  b.add_node(2, 1, 1, identity_connectivity<T>(1, 1));
  b.add_edge(Source{1, 0}, Target{2, 0});
  b.add_edge(Source{2, 0}, Target{1, 0});
  auto cycle = b.non_advancing_cycle();
  REQUIRE(cycle.has_value());
  CHECK_THAT(*cycle, Catch::Contains("1, 2"));
}

TEST_CASE("disconnected inputs do not hold outputs back", "[progress][reachability]") {
  Builder<T> b;
  b.add_node(0, 0, 0, {});
  b.add_node(1, 0, 1, {});                           // a source
  b.add_node(2, 0, 1, {});                           // another source
  Connectivity<T> conn{{{0, Antichain<T>(0)}}, {}};  // input 1 reaches nothing
  b.add_node(3, 2, 1, conn);
  b.add_node(4, 1, 0, identity_connectivity<T>(1, 0));
  b.add_edge(Source{1, 0}, Target{3, 0});
  b.add_edge(Source{2, 0}, Target{3, 1});
  b.add_edge(Source{3, 0}, Target{4, 0});
  auto tracker = b.build().first;
  tracker.update_source(Source{1, 0}, 5, 1);
  tracker.update_source(Source{2, 0}, 1, 1);
  tracker.propagate_all();
  CHECK(tracker.implications(Location::of(Target{3, 1})) == Antichain<T>(1));
  CHECK(tracker.implications(Location::of(Target{4, 0})) == Antichain<T>(5));
}

TEST_CASE("scope summaries and output projections", "[progress][reachability]") {
  // Scope input 0 -> op 1 (+2) -> scope output 0; scope input 1 reaches nothing.
  Builder<T> b;
  b.add_node(0, 1, 2, {});
  b.add_node(1, 1, 1, Connectivity<T>{{{0, Antichain<T>(2)}}});
  b.add_edge(Source{0, 0}, Target{1, 0});
  b.add_edge(Source{1, 0}, Target{0, 0});
  auto [tracker, summary] = b.build();
  REQUIRE(summary.size() == 2);
  CHECK(summary[0] == PortConnectivity<T>{{0, Antichain<T>(2)}});
  CHECK(summary[1].empty());                   // not connected: no entry at all
  tracker.update_source(Source{1, 0}, 10, 1);  // a capability inside
  tracker.update_target(Target{1, 0}, 3, 1);   // a message inside
  tracker.propagate_all();
  MutableAntichain<T> out;
  out.update_iter(tracker.output_changes(0).take());
  CHECK(out.frontier() == Antichain<T>(5));
  // Pointstamps at the scope's own inputs are the parent's business: not projected.
  tracker.update_source(Source{0, 0}, 0, 1);
  tracker.propagate_all();
  CHECK(tracker.output_changes(0).empty());
  CHECK(tracker.implications(Location::of(Target{1, 0})) == Antichain<T>(0));
}

TEST_CASE("malformed graphs are rejected with a message", "[progress][reachability]") {
  Builder<T> b;
  b.add_node(0, 0, 0, {});
  CHECK_THROWS_AS(b.add_node(1, 2, 1, identity_connectivity<T>(1, 1)), timely::Error);
  b.add_node(1, 1, 1, identity_connectivity<T>(1, 1));
  CHECK_THROWS_WITH(b.add_edge(Source{1, 3}, Target{1, 0}), Catch::Contains("output port 3 of node 1"));
  CHECK_THROWS_WITH(b.add_node(2, 1, 1, Connectivity<T>{{{1, Antichain<T>(0)}}}),
                    Catch::Contains("connects input 0 to output 1, but it has 1 outputs"));
}
