// Partially ordered timestamps at the top level of a dataflow (SEMANTICS.md §1.2, §5.1): the
// reference allows any `Timestamp` there, `Product` included; input handles, probes,
// notificators and frontier operators work with it. Each program runs on 1, 2 and 4 workers in
// both progress modes, and every worker's observations are checked exactly.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

namespace grid {

/// A user-defined timestamp: points of the plane under the product order (not total), with
/// the lexicographic `operator<` extending it. Its summaries are translations.
struct Point {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
  friend constexpr bool operator==(const Point&, const Point&) = default;
  friend constexpr auto operator<=>(const Point&, const Point&) = default;
};
inline std::string to_string(const Point& p) {
  return "<" + std::to_string(p.x) + "; " + std::to_string(p.y) + ">";
}

}  // namespace grid

template <>
struct timely::PartialOrderTraits<grid::Point> {
  static constexpr bool less_equal(const grid::Point& a, const grid::Point& b) noexcept {
    return a.x <= b.x && a.y <= b.y;
  }
};
template <>
struct timely::PathSummaryTraits<grid::Point, grid::Point> {
  static constexpr std::optional<grid::Point> results_in(const grid::Point& s,
                                                         const grid::Point& t) noexcept {
    std::uint32_t x = 0;
    std::uint32_t y = 0;
    if (__builtin_add_overflow(t.x, s.x, &x) || __builtin_add_overflow(t.y, s.y, &y)) return std::nullopt;
    return grid::Point{x, y};
  }
  static constexpr std::optional<grid::Point> followed_by(const grid::Point& a,
                                                          const grid::Point& b) noexcept {
    return results_in(a, b);
  }
};
template <>
struct timely::TimestampTraits<grid::Point> {
  using Summary = grid::Point;
  static constexpr grid::Point minimum() noexcept { return {}; }
};

namespace {

using namespace timely::dataflow::operators;
using timely::dataflow::Capability;
using timely::dataflow::InputCapability;
using timely::dataflow::InputHandle;
using timely::dataflow::ProbeHandle;

using Product = timely::Product<std::uint64_t, std::uint64_t>;

template <class P>
P at(std::uint32_t a, std::uint32_t b) {
  if constexpr (std::is_same_v<P, Product>)
    return Product{a, b};
  else
    return grid::Point{a, b};
}

// What one worker saw: at each checkpoint the probe frontier (sorted) and how many
// notifications had been delivered, and the notifications its operator received as (time,
// records, sum of values), in delivery order.
template <class P>
struct Observed {
  std::vector<std::vector<P>> frontiers;
  std::vector<std::size_t> delivered;
  std::vector<std::tuple<P, std::int64_t, int>> notified;
  friend bool operator==(const Observed&, const Observed&) = default;
};

template <class P>
std::vector<P> sorted(const timely::progress::Antichain<P>& frontier) {
  auto copy = frontier;
  copy.sort();
  return {copy.begin(), copy.end()};
}

// Two input handles feed one stream; their times move along incomparable paths, so the
// frontier is a two-element antichain. All records go to worker 0, whose notify operator
// counts and sums them per time; every worker's probe must see exactly the expected frontier.
template <class P>
Observed<P> antichain_program(timely::Worker& worker) {
  Observed<P> seen;
  InputHandle<P, int> left;
  InputHandle<P, int> right;
  ProbeHandle<P> probe;
  auto sums = std::make_shared<std::map<P, std::pair<std::int64_t, int>>>();
  auto notified = std::make_shared<std::vector<std::tuple<P, std::int64_t, int>>>();
  worker.dataflow<P>([&](auto& scope) {
    auto merged = left.to_stream(scope) | concat(right.to_stream(scope));
    merged | exchange([](const int&) { return std::uint64_t{0}; }) |
        unary_notify<int>(timely::dataflow::Pipeline{}, "Count", std::vector<P>{},
                          [sums, notified](auto& in, auto&, auto& notificator) {
                            in.for_each([&](const InputCapability<P>& cap, std::vector<int>& data) {
                              auto& entry = (*sums)[cap.time()];
                              entry.first += static_cast<std::int64_t>(data.size());
                              for (int x : data) entry.second += x;
                              notificator.notify_at(cap.retain());
                            });
                            notificator.for_each([&](Capability<P> cap, std::int64_t, auto&) {
                              auto entry = (*sums)[cap.time()];
                              notified->emplace_back(cap.time(), entry.first, entry.second);
                            });
                          }) |
        probe_with(probe);
  });
  const bool sender = worker.index() == 0;
  auto settle = [&](const std::vector<P>& expected) {
    // Steps until the probe shows `expected` (bounded: a hang is reported as a wrong frontier).
    for (std::size_t steps = 0; steps < 200000; ++steps) {
      if (probe.with_frontier([](const auto& f) { return sorted(f); }) == expected) break;
      worker.step();
    }
    seen.frontiers.push_back(probe.with_frontier([](const auto& f) { return sorted(f); }));
    seen.delivered.push_back(notified->size());
  };

  if (sender) {
    left.send(1);
    right.send(2);
  }
  left.advance_to(at<P>(0, 1));
  right.advance_to(at<P>(1, 0));
  settle({at<P>(0, 1), at<P>(1, 0)});  // (0, 0) must be delivered now, and nothing else

  if (sender) {
    left.send(3);
    right.send(4);
  }
  left.advance_to(at<P>(2, 1));
  right.advance_to(at<P>(1, 3));
  settle({at<P>(1, 3), at<P>(2, 1)});
  if (sender) {
    left.send(5);
    right.send(6);
    right.send(7);
  }
  left.close();
  right.close();
  settle({});
  seen.notified = *notified;
  return seen;
}

template <class P>
Observed<P> expected_antichain(std::size_t worker) {
  Observed<P> out;
  out.frontiers = {{at<P>(0, 1), at<P>(1, 0)}, {at<P>(1, 3), at<P>(2, 1)}, {}};
  out.delivered = worker == 0 ? std::vector<std::size_t>{1, 3, 5} : std::vector<std::size_t>{0, 0, 0};
  if (worker == 0)
    out.notified = {{at<P>(0, 0), 2, 3},
                    {at<P>(0, 1), 1, 3},
                    {at<P>(1, 0), 1, 4},
                    {at<P>(1, 3), 2, 13},
                    {at<P>(2, 1), 1, 5}};
  return out;
}

template <class P>
void check_antichain_program() {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      auto parts =
          timely::execute(config, [](timely::Worker& worker) { return antichain_program<P>(worker); });
      REQUIRE(parts.size() == workers);
      for (std::size_t w = 0; w < workers; ++w) {
        INFO("worker " << w);
        CHECK(parts[w].frontiers == expected_antichain<P>(w).frontiers);
        CHECK(parts[w].delivered == expected_antichain<P>(w).delivered);
        CHECK(parts[w].notified == expected_antichain<P>(w).notified);
      }
    }
}

}  // namespace

TEST_CASE("Product times at the top level: inputs, probes and notifications on a 2-D antichain",
          "[conformance][partial_order]") {
  check_antichain_program<Product>();
}

TEST_CASE("a user-defined partially ordered timestamp at the top level", "[conformance][partial_order]") {
  STATIC_REQUIRE_FALSE(timely::TotalOrder<grid::Point>);
  check_antichain_program<grid::Point>();
}

TEST_CASE("an input handle with partially ordered times rejects an incomparable or earlier time",
          "[conformance][partial_order]") {
  timely::execute(timely::Config::process(1), [](timely::Worker& worker) {
    InputHandle<Product, int> input;
    worker.dataflow<Product>([&](auto& scope) { (void)input.to_stream(scope); });
    input.advance_to(Product{1, 2});
    // (2, 1) is incomparable with (1, 2): moving there would release times below it that the
    // handle still promised nothing about.
    CHECK_THROWS_AS(input.advance_to(Product{2, 1}), timely::InputError);
    CHECK_THROWS_WITH(input.advance_to(Product{2, 1}),
                      "timely: input handle cannot go back from time (1, 2) to (2, 1)");
    CHECK_THROWS_AS(input.advance_to(Product{0, 5}), timely::InputError);
    input.advance_to(Product{3, 2});
    CHECK(input.time() == Product{3, 2});
    input.close();
    return 0;
  });
}

TEST_CASE(
    "unary_frontier over Product times keeps capabilities for an antichain and releases each once passed",
    "[conformance][partial_order]") {
  // Each worker stashes the records it receives per time and emits a count per time once the
  // frontier has passed it; times are (round, part) and the inputs move along both axes.
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      auto parts = timely::execute(config, [](timely::Worker& worker) {
        InputHandle<Product, int> left;
        InputHandle<Product, int> right;
        ProbeHandle<Product> probe;
        auto released = std::make_shared<std::vector<std::pair<Product, std::size_t>>>();
        worker.dataflow<Product>([&](auto& scope) {
          (left.to_stream(scope) | concat(right.to_stream(scope))) |
              exchange([](const int& x) { return static_cast<std::uint64_t>(x); }) |
              unary_frontier<std::size_t>(
                  timely::dataflow::Pipeline{}, "Stash",
                  [](Capability<Product>, const auto&) {
                    return [stash = std::map<Product, std::pair<Capability<Product>, std::size_t>>{}](
                               auto& in, auto& out) mutable {
                      in.for_each([&](const InputCapability<Product>& cap, std::vector<int>& data) {
                        auto it = stash.find(cap.time());
                        if (it == stash.end())
                          it = stash.emplace(cap.time(), std::pair{cap.retain(), 0}).first;
                        it->second.second += data.size();
                      });
                      for (auto it = stash.begin(); it != stash.end();) {
                        if (!in.frontier().less_equal(it->first)) {
                          out.session(it->second.first).give(it->second.second);
                          it = stash.erase(it);
                        } else {
                          ++it;
                        }
                      }
                    };
                  }) |
              inspect_time(
                  [released](const Product& t, const std::size_t& n) { released->emplace_back(t, n); }) |
              probe_with(probe);
        });
        for (std::uint64_t round = 0; round < 3; ++round) {
          left.send(static_cast<int>(worker.index() + 10 * round));
          right.send(static_cast<int>(worker.index() + 10 * round + 1));
          left.advance_to(Product{round, round + 1});
          right.advance_to(Product{round + 1, round});
          while (probe.less_than(Product{round, round + 1}) || probe.less_than(Product{round + 1, round}))
            worker.step();
        }
        left.close();
        right.close();
        while (!probe.done()) worker.step();
        return *released;
      });
      // Per time, every worker's records were counted once across the workers.
      std::map<Product, std::size_t> total;
      for (auto& part : parts)
        for (auto& [t, n] : part) total[t] += n;
      std::map<Product, std::size_t> expected;
      expected[Product{0, 0}] = 2 * workers;
      expected[Product{0, 1}] = workers;
      expected[Product{1, 0}] = workers;
      expected[Product{1, 2}] = workers;
      expected[Product{2, 1}] = workers;
      CHECK(total == expected);
    }
}
