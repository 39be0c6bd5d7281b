// Randomized dataflows with loops and nested scopes: a seed picks a pipeline of stages (maps,
// filters, exchanges, iterative loops inside regions, splits that are concatenated again) and
// random inputs over random times. The output, and the sequence of times each round completes,
// must equal a sequential evaluation on 1, 2 and 4 workers in both progress modes.
// Fixed seeds, printed on failure.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <tuple>
#include <vector>

#include <timely/dataflow/operators/branch.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/feedback.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Value = std::uint64_t;

namespace {

struct Stage {
  int kind;  // 0 map, 1 filter, 2 exchange, 3 loop in region, 4 split and concat
  Value a, b;
};

std::vector<Stage> make_stages(std::mt19937_64& rng) {
  std::vector<Stage> stages(2 + rng() % 5);
  for (auto& s : stages) s = Stage{static_cast<int>(rng() % 5), 1 + rng() % 7, rng() % 11};
  return stages;
}

// The loop stage: halve (or step down) until below a threshold.
Value loop_step(Value v, Value a) { return v % 2 == 0 ? v / 2 : v - (v > a ? a : 1); }
bool loop_again(Value v, Value b) { return v > b + 3; }

// What the pipeline does to one record, sequentially. Returns the records it becomes.
std::vector<Value> evaluate(const std::vector<Stage>& stages, Value v) {
  std::vector<Value> values{v};
  for (const auto& s : stages) {
    std::vector<Value> next;
    for (auto x : values) switch (s.kind) {
        case 0:
          next.push_back((x * s.a + s.b) % 1000);
          break;
        case 1:
          if (x % (s.a + 1) != 0) next.push_back(x);
          break;
        case 2:
          next.push_back(x);
          break;
        case 3:
          while (loop_again(x, s.b)) x = loop_step(x, s.a);
          next.push_back(x);
          break;
        default:
          next.push_back(x % 2 == 0 ? x + s.b : x * s.a % 1000);
          break;
      }
    values = std::move(next);
  }
  return values;
}

template <class S>
auto apply(S stream, const Stage& s, auto& scope) -> S {
  switch (s.kind) {
    case 0:
      return stream | map([s](Value x) { return (x * s.a + s.b) % 1000; });
    case 1:
      return stream | filter([s](const Value& x) { return x % (s.a + 1) != 0; });
    case 2:
      return stream | exchange([](const Value& x) { return x * 2654435761u; });
    case 3:
      return scope.region([&](auto& region) {
        auto inside = stream | enter(region);
        auto looped = region.template iterative<std::uint32_t>([&](auto& loop) {
          auto [handle, cycle] = loop_variable<Value>(loop);
          auto body = inside | enter(loop) | concat(cycle);
          auto [stop, go] = body | branch([s](const auto&, const Value& x) { return loop_again(x, s.b); });
          go | map([s](Value x) { return loop_step(x, s.a); }) | exchange([](const Value& x) { return x; }) |
              connect_loop(handle);
          return stop | leave(region);
        });
        return looped | leave(scope);
      });
    default: {
      auto [odd, even] = stream | branch([](const Time&, const Value& x) { return x % 2 == 0; });
      return even | map([s](Value x) { return x + s.b; }) |
             concat(odd | map([s](Value x) { return x * s.a % 1000; }));
    }
  }
}

}  // namespace

TEST_CASE("random dataflows with loops and nested scopes agree with a sequential evaluation",
          "[conformance][random]") {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u}) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    const auto stages = make_stages(rng);
    std::vector<std::pair<Time, std::vector<Value>>> rounds;
    Time t = 0;
    for (int r = 0; r < 6; ++r) {
      t += rng() % 3;
      std::vector<Value> values(rng() % 30);
      for (auto& v : values) v = rng() % 1000;
      rounds.emplace_back(t, std::move(values));
    }
    std::vector<std::tuple<Time, Value>> expected;
    for (const auto& [time, values] : rounds)
      for (auto v : values)
        for (auto out : evaluate(stages, v)) expected.emplace_back(time, out);
    std::sort(expected.begin(), expected.end());

    auto program = [&](timely::Worker& worker) {
      std::vector<std::tuple<Time, Value>> out;
      timely::dataflow::InputHandle<Time, Value> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        auto stream = input.to_stream(scope);
        for (const auto& s : stages) stream = apply(stream, s, scope);
        stream | inspect_time([&](const Time& time, const Value& v) { out.emplace_back(time, v); }) |
            probe_with(probe);
      });
      for (const auto& [time, values] : rounds) {
        input.advance_to(time);
        for (std::size_t i = 0; i < values.size(); ++i)
          if (i % worker.peers() == worker.index()) input.send(values[i]);
        worker.step();
      }
      input.close();
      while (!probe.done()) worker.step();
      return out;
    };
    CHECK(harness::same_on_all_worker_counts(program) == expected);
  }
}
