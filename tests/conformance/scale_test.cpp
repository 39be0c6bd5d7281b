// Scale: a chain of many operators in one scope builds and runs in time linear in its length
// (SEMANTICS.md §12, the reference's 10^5-operator test), checked by comparing two lengths.
#include <chrono>
#include <cstdint>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

using namespace timely::dataflow::operators;

namespace {
// Builds a chain of `length` map operators, sends one record through, waits for completion.
// Returns seconds taken and the record seen at the end.
std::pair<double, std::uint64_t> run_chain(std::size_t length) {
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t seen = 0;
  timely::execute_directly([&](timely::Worker& worker) {
    timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      for (std::size_t i = 0; i < length; ++i) stream = stream | map([](std::uint64_t x) { return x + 1; });
      stream | inspect([&](const std::uint64_t& x) { seen = x; });
    });
    input.send(0);
    input.close();
    while (worker.step()) {
    }
  });
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), seen};
}
}  // namespace

TEST_CASE("a chain of 100,000 operators builds and completes in linear time", "[conformance][scale]") {
  const auto small = run_chain(10'000);
  const auto large = run_chain(100'000);
  CHECK(small.second == 10'000);
  CHECK(large.second == 100'000);
  INFO("10k: " << small.first << " s, 100k: " << large.first << " s");
  // Quadratic behaviour would make the tenfold chain a hundred times slower; allow 30x for noise.
  CHECK(large.first < 30 * small.first + 1.0);
}
