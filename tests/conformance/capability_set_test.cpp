// CapabilitySet: a minimal set of capabilities that can follow a frontier (SEMANTICS.md §4.3).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/frontier.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using timely::dataflow::Capability;
using timely::dataflow::CapabilityCounts;
using timely::dataflow::CapabilitySet;
using timely::dataflow::InputCapability;
using timely::progress::Antichain;
using timely::progress::ChangeBatch;
using Time = std::uint64_t;

namespace {

// The capability counts an output's batch holds, as time -> count.
template <class T>
std::map<T, std::int64_t> held(ChangeBatch<T>& batch) {
  std::map<T, std::int64_t> out;
  for (const auto& [t, d] : batch.view()) out[t] = d;
  return out;
}

template <class Set>
std::vector<Time> times_of(const Set& set) {
  std::vector<Time> out;
  for (const auto& cap : set) out.push_back(cap.time());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("capability set: insert keeps the set minimal", "[conformance][capability_set]") {
  auto internal = std::make_shared<CapabilityCounts<Time>>();
  CapabilitySet<Time> set;
  CHECK(set.empty());
  set.insert(Capability<Time>(5, internal));
  set.insert(Capability<Time>(7, internal));  // dominated by 5: not kept
  CHECK(times_of(set) == std::vector<Time>{5});
  set.insert(Capability<Time>(3, internal));  // dominates 5: replaces it
  CHECK(times_of(set) == std::vector<Time>{3});
  CHECK(set.size() == 1);
  CHECK(set.first().time() == 3);
  CHECK(held(*internal) == std::map<Time, std::int64_t>{{3, 1}});

  // Members for different outputs never dominate each other.
  auto other = std::make_shared<CapabilityCounts<Time>>();
  set.insert(Capability<Time>(4, other));
  CHECK(times_of(set) == std::vector<Time>{3, 4});

  // With a partial order, incomparable times are both kept until one time below both arrives.
  using P = timely::Product<Time, Time>;
  auto pi = std::make_shared<CapabilityCounts<P>>();
  CapabilitySet<P> product;
  product.insert(Capability<P>(P{0, 1}, pi));
  product.insert(Capability<P>(P{1, 0}, pi));
  CHECK(product.size() == 2);
  product.insert(Capability<P>(P{1, 1}, pi));
  CHECK(product.size() == 2);
  product.insert(Capability<P>(P{0, 0}, pi));
  REQUIRE(product.size() == 1);
  CHECK(product.first().time() == P{0, 0});
  CHECK(held(*pi) == std::map<P, std::int64_t>{{P{0, 0}, 1}});
  product.clear();
  CHECK(pi->empty());
}

TEST_CASE("capability set: delayed and try_delayed mint from a member at or before the time",
          "[conformance][capability_set]") {
  auto internal = std::make_shared<CapabilityCounts<Time>>();
  CapabilitySet<Time> set(Capability<Time>(3, internal));
  auto later = set.delayed(5);
  CHECK(later.time() == 5);
  CHECK(later.same_output(set.first()));
  CHECK_THROWS_AS(set.delayed(2), timely::CapabilityError);
  CHECK_THROWS_WITH(set.delayed(2), Catch::Contains("time 2") && Catch::Contains("at 3"));
  CHECK_FALSE(set.try_delayed(2).has_value());
  REQUIRE(set.try_delayed(3).has_value());
  CapabilitySet<Time> none;
  CHECK_THROWS_AS(none.delayed(0), timely::CapabilityError);
  CHECK_THROWS_AS(none.first(), timely::CapabilityError);
  auto kept = std::move(later);
  CHECK_THROWS_AS(none.insert(std::move(later)), timely::CapabilityError);  // NOLINT: moved-from
  none.insert(std::move(kept));
  CHECK(times_of(none) == std::vector<Time>{5});
}

TEST_CASE("capability set: downgrade follows a frontier, and refuses one it does not dominate",
          "[conformance][capability_set]") {
  auto internal = std::make_shared<CapabilityCounts<Time>>();
  CapabilitySet<Time> set(Capability<Time>(0, internal));
  set.downgrade(Antichain<Time>(Time{2}));
  CHECK(times_of(set) == std::vector<Time>{2});
  CHECK(held(*internal) == std::map<Time, std::int64_t>{{2, 1}});

  CHECK_THROWS_AS(set.downgrade(std::vector<Time>{1}), timely::CapabilityError);
  CHECK_THROWS_WITH(set.downgrade(std::vector<Time>{1}), Catch::Contains("at 2") && Catch::Contains("1"));
  CHECK(times_of(set) == std::vector<Time>{2});  // unchanged by the failed downgrade
  CHECK_FALSE(set.try_downgrade(std::vector<Time>{1}));
  CHECK(held(*internal) == std::map<Time, std::int64_t>{{2, 1}});

  timely::progress::MutableAntichain<Time> frontier;
  frontier.update_iter(std::vector<std::pair<Time, std::int64_t>>{{Time{4}, 1}});
  CHECK(set.try_downgrade(frontier));
  CHECK(times_of(set) == std::vector<Time>{4});

  set.downgrade(std::vector<Time>{});  // an empty frontier releases everything
  CHECK(set.empty());
  CHECK(internal->empty());
}

TEST_CASE("capability set: an operator that keeps capabilities by following its input frontier",
          "[conformance][capability_set]") {
  // Sums per time, sent once the time is complete, from capabilities that track the input
  // frontier (the initial capability, downgraded) instead of one retained per time.
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::uint64_t&) { return 0; }) |
          unary_frontier<std::pair<Time, std::uint64_t>>(
              timely::dataflow::Pipeline{}, "SumPerTime",
              [](Capability<Time> initial, const auto&) {
                return [caps = CapabilitySet<Time>(std::move(initial)),
                        sums = std::map<Time, std::uint64_t>{}](auto& in, auto& output) mutable {
                  in.for_each([&](const InputCapability<Time>& cap, std::vector<std::uint64_t>& data) {
                    for (auto x : data) sums[cap.time()] += x;
                  });
                  while (!sums.empty() && !in.frontier().less_equal(sums.begin()->first)) {
                    output.session(caps.delayed(sums.begin()->first)).give(*sums.begin());
                    sums.erase(sums.begin());
                  }
                  caps.downgrade(in.frontier());
                };
              }) |
          inspect([&](const std::pair<Time, std::uint64_t>& p) { out.push_back(p); }) | probe_with(probe);
    });
    for (Time t = 0; t < 6; ++t) {
      input.advance_to(t);
      if (worker.index() == 0)
        for (std::uint64_t x = 0; x < 10; ++x) input.send(x * (t + 1));
      if (t % 2 == 1)
        while (probe.less_than(t)) worker.step();  // let some times finish while others are open
    }
    input.close();
    while (!probe.done()) worker.step();
    return out;
  });
  std::vector<std::pair<Time, std::uint64_t>> expected;
  for (Time t = 0; t < 6; ++t) expected.emplace_back(t, 45 * (t + 1));
  REQUIRE(result == expected);
}
