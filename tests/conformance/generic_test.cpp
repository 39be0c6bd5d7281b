// Generic operators: binary, notificators, sources (SEMANTICS.md §5.7, §5.10).
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/feedback.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

TEST_CASE("unary_notify delivers each complete time once, in order", "[conformance][generic]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::uint64_t>> out;
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::uint64_t&) { return 0; }) |
          unary_notify<std::pair<Time, std::uint64_t>>(
              timely::dataflow::Pipeline{}, "CountPerTime", std::vector<Time>{},
              [counts = std::map<Time, std::uint64_t>{}](auto& in, auto& output, auto& notificator) mutable {
                in.for_each([&](const timely::dataflow::InputCapability<Time>& cap,
                                std::vector<std::uint64_t>& data) {
                  counts[cap.time()] += data.size();
                  notificator.notify_at(cap.retain());
                });
                notificator.for_each([&](timely::dataflow::Capability<Time> cap, std::int64_t, auto&) {
                  output.session(cap).give({cap.time(), counts[cap.time()]});
                  counts.erase(cap.time());
                });
              }) |
          inspect([&](const std::pair<Time, std::uint64_t>& p) { out.push_back(p); }) | probe_with(probe);
    });
    for (Time t = 0; t < 5; ++t) {
      if (worker.index() == 0)
        for (std::uint64_t i = 0; i <= t; ++i) input.send(i);
      input.advance_to(2 * (t + 1));  // skip every other time
    }
    input.close();
    while (!probe.done()) worker.step();
    return out;
  });
  CHECK(result == std::vector<std::pair<Time, std::uint64_t>>{{0, 1}, {2, 2}, {4, 3}, {6, 4}, {8, 5}});
}

TEST_CASE("a barrier loop delivers one notification per round", "[conformance][generic]") {
  for (std::size_t workers : {1u, 2u, 3u}) {
    INFO("workers " << workers);
    auto parts = timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      std::vector<Time> delivered;
      worker.dataflow<Time>([&](auto& scope) {
        auto [handle, cycle] = feedback<int>(scope, Time{1});
        cycle |
            unary_notify<int>(timely::dataflow::Pipeline{}, "Barrier", std::vector<Time>{0},
                              [&delivered](auto&, auto&, auto& notificator) {
                                while (auto cap = notificator.next()) {
                                  delivered.push_back(cap->time());
                                  if (cap->time() + 1 < 50)
                                    notificator.notify_at(cap->delayed(cap->time() + 1));
                                }
                              }) |
            connect_loop(handle);
      });
      while (worker.step()) {
      }
      return delivered;
    });
    for (auto& delivered : parts) {
      REQUIRE(delivered.size() == 50);
      for (Time t = 0; t < 50; ++t) CHECK(delivered[t] == t);
    }
  }
}

TEST_CASE("binary_frontier joins two inputs per complete time", "[conformance][generic]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, std::int64_t>> out;
    timely::dataflow::InputHandle<Time, std::int64_t> left, right;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto route = [](const std::int64_t&) { return 0; };
      auto r = right.to_stream(scope);
      left.to_stream(scope) |
          binary_frontier<std::pair<Time, std::int64_t>>(
              r, timely::dataflow::Exchange{route}, timely::dataflow::Exchange{route}, "ProductOfSums",
              [](auto, const auto&) {
                std::map<Time, std::pair<std::optional<timely::dataflow::Capability<Time>>,
                                         std::pair<std::int64_t, std::int64_t>>>
                    state;
                return [state](auto& a, auto& b, auto& output) mutable {
                  a.for_each(
                      [&](const timely::dataflow::InputCapability<Time>& cap, std::vector<std::int64_t>& d) {
                        auto& s = state[cap.time()];
                        if (!s.first) s.first = cap.retain();
                        for (auto x : d) s.second.first += x;
                      });
                  b.for_each(
                      [&](const timely::dataflow::InputCapability<Time>& cap, std::vector<std::int64_t>& d) {
                        auto& s = state[cap.time()];
                        if (!s.first) s.first = cap.retain();
                        for (auto x : d) s.second.second += x;
                      });
                  for (auto it = state.begin(); it != state.end();) {
                    if (a.frontier().less_equal(it->first) || b.frontier().less_equal(it->first)) break;
                    output.session(*it->second.first)
                        .give({it->first, it->second.second.first * it->second.second.second});
                    it = state.erase(it);
                  }
                };
              }) |
          inspect([&](const std::pair<Time, std::int64_t>& p) { out.push_back(p); }) | probe_with(probe);
    });
    for (Time t = 0; t < 4; ++t) {
      if (worker.index() == 0) {
        left.send(static_cast<std::int64_t>(t + 1));
        right.send(10);
      }
      left.advance_to(t + 1);
      if (t % 2 == 1) right.advance_to(t + 1);  // the right input lags
    }
    left.close();
    right.close();
    while (!probe.done()) worker.step();
    return out;
  });
  // The right input sends 10 twice at time 0 and twice at time 2 (it advances every other round).
  CHECK(result == std::vector<std::pair<Time, std::int64_t>>{{0, 20}, {1, 0}, {2, 60}, {3, 0}});
}

TEST_CASE("a source runs when activated and completes when it drops its capability",
          "[conformance][generic]") {
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    std::vector<std::pair<Time, int>> out;
    worker.dataflow<Time>([&](auto& scope) {
      source<int>(scope, "Counter",
                  [index = worker.index()](timely::dataflow::Capability<Time> cap, const OperatorInfo& info) {
                    return [index, cap = std::optional<timely::dataflow::Capability<Time>>(std::move(cap)),
                            info, next = 0](timely::dataflow::OperatorOutput<Time, int>& output) mutable {
                      if (!cap) return;
                      if (index == 0) output.session(*cap).give(next);
                      if (++next == 5) {
                        cap.reset();
                      } else {
                        cap->downgrade(static_cast<Time>(next));
                        info.activator.activate();
                      }
                    };
                  }) |
          inspect_time([&](const Time& t, const int& x) { out.emplace_back(t, x); });
    });
    while (worker.step()) {
    }
    return out;
  });
  CHECK(result == std::vector<std::pair<Time, int>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}});
}
