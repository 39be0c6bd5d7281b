// The pact contract: a pact delivers every record it is given exactly once, since progress
// counts records where they are produced and where they are consumed (SEMANTICS.md §5.6).
// `Distribute` runs a user's distributor and rejects one that drops, duplicates or merges
// records with a PactError.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/error.hpp>
#include <timely/execute.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

namespace {

// Sends 0..29 at times 0, 1 and 2 (10 per time, from worker 0) through `pact` into an operator
// that reports (time, record, receiving worker's parity of record) for every record it receives.
template <class Pact>
std::vector<std::pair<Time, std::uint64_t>> through(timely::Worker& worker, Pact pact) {
  std::vector<std::pair<Time, std::uint64_t>> out;
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | unary<std::uint64_t>(pact, "Receive", [](auto, const auto&) {
      return [](auto& in, auto& output) {
        in.for_each(
            [&](const auto& cap, std::vector<std::uint64_t>& data) { output.session(cap).give_vec(data); });
      };
    }) | inspect_time([&](const Time& t, const std::uint64_t& x) {
      out.emplace_back(t, x);
    }) | probe_with(probe);
  });
  for (Time t = 0; t < 3; ++t) {
    input.advance_to(t);
    if (worker.index() == 0)
      for (std::uint64_t x = 0; x < 10; ++x) input.send(10 * t + x / 2);  // pairs of equal records
  }
  input.close();
  while (!probe.done()) worker.step();
  return out;
}

}  // namespace

TEST_CASE("a distributor that routes every record once is a pact", "[conformance][pact]") {
  // Reversed routing (record r to worker peers - 1 - r % peers), reordering within a batch.
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    const std::size_t me = worker.index();
    auto pact = timely::dataflow::Distribute{[](const Time&, std::vector<std::uint64_t>& records,
                                                std::vector<std::vector<std::uint64_t>>& per_worker) {
      const std::size_t peers = per_worker.size();
      for (auto it = records.rbegin(); it != records.rend(); ++it)
        per_worker[peers - 1 - *it % peers].push_back(*it);
    }};
    auto out = through(worker, pact);
    // Every record arrived at the worker the distributor chose (a stray one fails the comparison
    // below; Catch2's assertions are not for worker threads).
    for (auto& [t, x] : out)
      if (worker.peers() - 1 - x % worker.peers() != me) t = 1000 + me;
    return out;
  });
  std::vector<std::pair<Time, std::uint64_t>> expected;
  for (Time t = 0; t < 3; ++t)
    for (std::uint64_t x = 0; x < 10; ++x) expected.emplace_back(t, 10 * t + x / 2);
  std::sort(expected.begin(), expected.end());
  REQUIRE(result == expected);
}

TEST_CASE("a distributor that consolidates records is rejected with a PactError", "[conformance][pact]") {
  // Merging equal records (as a consolidating exchange would) passes on fewer records than it
  // was given; progress would then wait for ever for the merged ones.
  auto consolidating = [](const Time&, std::vector<std::uint64_t>& records,
                          std::vector<std::vector<std::uint64_t>>& per_worker) {
    std::sort(records.begin(), records.end());
    records.erase(std::unique(records.begin(), records.end()), records.end());
    for (auto r : records) per_worker[r % per_worker.size()].push_back(r);
  };
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers);
      REQUIRE_THROWS_AS(harness::run(workers, mode,
                                     [&](timely::Worker& worker) {
                                       return through(worker, timely::dataflow::Distribute{consolidating});
                                     }),
                        timely::PactError);
      REQUIRE_THROWS_WITH(harness::run(workers, mode,
                                       [&](timely::Worker& worker) {
                                         return through(worker, timely::dataflow::Distribute{consolidating});
                                       }),
                          Catch::Contains("given 10 record(s) at time 0") && Catch::Contains("passed on 5") &&
                              Catch::Contains("exactly once"));
    }
}

TEST_CASE("a distributor that duplicates records is rejected with a PactError", "[conformance][pact]") {
  auto duplicating = [](const Time&, std::vector<std::uint64_t>& records,
                        std::vector<std::vector<std::uint64_t>>& per_worker) {
    for (auto r : records)
      for (auto& buffer : per_worker) buffer.push_back(r);  // a broadcast is an operator, not a pact
  };
  // With one worker a copy per worker is one copy: the contract holds.
  auto one = harness::run(1, timely::ProgressMode::Demand, [&](timely::Worker& worker) {
    return through(worker, timely::dataflow::Distribute{duplicating});
  });
  CHECK(one.size() == 30);
  for (std::size_t workers : {2u, 4u}) {
    INFO("workers " << workers);
    REQUIRE_THROWS_WITH(harness::run(workers, timely::ProgressMode::Demand,
                                     [&](timely::Worker& worker) {
                                       return through(worker, timely::dataflow::Distribute{duplicating});
                                     }),
                        Catch::Contains("passed on " + std::to_string(10 * workers)));
  }
}
