// Unordered inputs and ActivateCapability (SEMANTICS.md §4.3, §6 "Sources and inputs").
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/operators/unordered_input.hpp>
#include <timely/execute.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

#include "conformance/capture_common.hpp"
#include "support/catch.hpp"

using namespace timely::dataflow::operators;
using capture_test::record_frontiers;
using capture_test::step_while;
using timely::dataflow::ActivateCapability;
using timely::dataflow::UnorderedHandle;
using Time = std::uint64_t;

TEST_CASE("an unordered input sends at times in any order and the frontier follows held capabilities",
          "[capture][unordered]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    struct Seen {
      std::vector<std::pair<Time, int>> data;
      std::vector<std::vector<Time>> frontiers;
      bool finished = true;
      bool held_at_3 = true;
    };
    auto parts = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      Seen seen;
      const int me = static_cast<int>(worker.index());
      std::optional<UnorderedHandle<Time, int>> handle;
      std::optional<ActivateCapability<Time>> root;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        auto input = new_unordered_input<int>(scope);
        handle.emplace(input.handle);
        root.emplace(std::move(input.capability));
        auto mixed = input.stream | exchange([](const int& x) { return static_cast<std::uint64_t>(x); });
        mixed | inspect_time([&](const Time& t, const int& x) { seen.data.emplace_back(t, x); }) |
            probe_with(probe);
        mixed | record_frontiers<Time, int>(seen.frontiers);
      });
      auto at5 = root->delayed(5);
      auto at3 = root->delayed(3);
      auto at1 = root->delayed(1);
      root->reset();
      handle->session(at5).give(500 + me);
      handle->session(at3).give(300 + me);
      {
        auto session = handle->session(at1);
        session.give(100 + me);
        session.give(110 + me);
      }
      seen.finished &= step_while(worker, [&] { return probe.less_than(1); });
      at1.reset();
      seen.finished &= step_while(worker, [&] { return probe.less_than(3); });
      at5.reset();  // 3 is still held: the frontier stays at 3
      for (int i = 0; i < 200; ++i) worker.step();
      seen.held_at_3 = probe.less_equal(3);
      handle->session(at3).give(301 + me);  // still allowed
      at3.reset();
      seen.finished &= step_while(worker, [&] { return !probe.done(); });
      return seen;
    });
    std::vector<std::pair<Time, int>> all, expected;
    for (auto& seen : parts) {
      CHECK(seen.finished);
      CHECK(seen.held_at_3);
      CHECK(seen.frontiers == std::vector<std::vector<Time>>{{0}, {1}, {3}, {}});
      all.insert(all.end(), seen.data.begin(), seen.data.end());
    }
    for (int w = 0; w < static_cast<int>(workers); ++w)
      for (auto [t, x] : {std::pair<Time, int>{1, 100}, {1, 110}, {3, 300}, {3, 301}, {5, 500}})
        expected.emplace_back(t, x + w);
    std::sort(all.begin(), all.end());
    std::sort(expected.begin(), expected.end());
    CHECK(all == expected);
  }
}

TEST_CASE("an unordered input works with partially ordered times", "[capture][unordered]") {
  using ProductTime = timely::Product<std::uint64_t, std::uint64_t>;
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    struct Seen {
      std::vector<std::vector<ProductTime>> frontiers;
      std::vector<std::pair<ProductTime, int>> data;
      bool finished = true;
    };
    auto parts = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      Seen seen;
      std::optional<UnorderedHandle<ProductTime, int>> handle;
      std::optional<ActivateCapability<ProductTime>> root;
      // Top-level dataflows have totally ordered times here; an iterative scope has products.
      worker.dataflow<Time>([&](auto& outer) {
        outer.template iterative<std::uint64_t>([&](auto& scope) {
          auto input = new_unordered_input<int>(scope);
          handle.emplace(input.handle);
          root.emplace(std::move(input.capability));
          input.stream |
              inspect_time([&](const ProductTime& t, const int& x) { seen.data.emplace_back(t, x); }) |
              record_frontiers<ProductTime, int>(seen.frontiers);
        });
      });
      auto a = root->delayed(ProductTime{1, 0});
      auto b = root->delayed(ProductTime{0, 1});
      root->reset();
      handle->session(b).give(1);
      handle->session(a).give(2);
      const std::vector<ProductTime> both{ProductTime{0, 1}, ProductTime{1, 0}};
      seen.finished &=
          step_while(worker, [&] { return seen.frontiers.empty() || seen.frontiers.back() != both; });
      b.downgrade(ProductTime{2, 1});  // (1,0) alone is minimal now
      seen.finished &= step_while(worker, [&] {
        return seen.frontiers.back() != std::vector<ProductTime>{ProductTime{1, 0}};
      });
      a.reset();
      b.reset();
      seen.finished &= step_while(worker, [&] { return !seen.frontiers.back().empty(); });
      return seen;
    });
    for (auto& seen : parts) {
      CHECK(seen.finished);
      CHECK(seen.frontiers ==
            std::vector<std::vector<ProductTime>>{
                {ProductTime{0, 0}}, {ProductTime{0, 1}, ProductTime{1, 0}}, {ProductTime{1, 0}}, {}});
      CHECK(seen.data ==
            std::vector<std::pair<ProductTime, int>>{{ProductTime{0, 1}, 1}, {ProductTime{1, 0}, 2}});
    }
  }
}

TEST_CASE("ActivateCapability wakes its operator on downgrade and release", "[capture][unordered]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto finished = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      std::optional<ActivateCapability<Time>> cap;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        auto input = new_unordered_input<int>(scope);
        cap.emplace(std::move(input.capability));
        input.stream | probe_with(probe);
      });
      bool ok = true;
      for (Time t = 1; t <= 20; ++t) {
        cap->downgrade(t);  // no session, no other activity: only the activation moves the frontier
        ok &= step_while(worker, [&] { return probe.less_than(t); });
      }
      ActivateCapability<Time> copy = *cap;  // copies hold too
      cap.reset();
      for (int i = 0; i < 100; ++i) worker.step();
      ok &= probe.less_equal(20);
      copy = copy.delayed(25);  // assignment releases the old value (and activates)
      ok &= step_while(worker, [&] { return probe.less_than(25); });
      ok &= probe.less_equal(25);
      copy.reset();
      ok &= step_while(worker, [&] { return !probe.done(); });
      return ok;
    });
    for (bool ok : finished) CHECK(ok);
  }
}

TEST_CASE("unordered input misuse throws CapabilityError", "[capture][unordered]") {
  timely::execute_directly([](timely::Worker& worker) {
    std::optional<UnorderedHandle<Time, int>> handle_a, handle_b;
    std::optional<ActivateCapability<Time>> cap_a, cap_b;
    worker.dataflow<Time>([&](auto& scope) {
      auto a = new_unordered_input<int>(scope);
      auto b = new_unordered_input<int>(scope);
      handle_a.emplace(a.handle);
      handle_b.emplace(b.handle);
      cap_a.emplace(std::move(a.capability));
      cap_b.emplace(std::move(b.capability));
    });
    cap_a->downgrade(4);
    CHECK_THROWS_AS(cap_a->downgrade(2), timely::CapabilityError);
    CHECK(cap_a->time() == 4);
    CHECK_THROWS_AS(cap_a->delayed(3), timely::CapabilityError);
    CHECK_THROWS_AS(handle_a->session(*cap_b), timely::CapabilityError);  // another input's capability
    cap_b->reset();
    CHECK(!cap_b->valid());
    CHECK_THROWS_AS(cap_b->time(), timely::CapabilityError);
    CHECK_THROWS_AS(handle_b->session(*cap_b), timely::CapabilityError);
    cap_b->reset();  // idempotent
    cap_a.reset();
  });
}
