// The Nexmark source and Q0-Q2 on timely, against the model (model.hpp) over the generator's
// single-worker sequence, on 1, 2 and 4 workers in both progress modes: same records, every
// record at its event time, and the source's frontier never passing a time it still sends.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/streaming/nexmark/generator.hpp>
#include <timely/streaming/nexmark/queries.hpp>
#include <timely/streaming/nexmark/source.hpp>

#include "model.hpp"
#include "query_runner.hpp"
#include "support/catch.hpp"
#include "support/harness.hpp"

namespace nx = timely::streaming::nexmark;
using namespace timely::dataflow::operators;

namespace {
using nexmark_test::kOptions;
using nexmark_test::run_query;
using nexmark_test::sequence;
using nexmark_test::small_config;
}  // namespace

TEST_CASE("the source sends each worker's share at its event times, holding the watermark",
          "[nexmark][dataflow]") {
  for (std::uint64_t group : {1u, 5u}) {
    const auto config = small_config(group);
    INFO("seed " << config.seed << ", group size " << group);
    // (time, event) pairs: the timestamp must be the event's time.
    std::atomic<std::uint64_t> early{0};
    const auto events = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
      std::vector<std::pair<std::uint64_t, nx::Event>> out;
      timely::dataflow::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        nx::source(scope, config, kOptions) |
            inspect_time([&](const std::uint64_t& t, const nx::Event& e) { out.emplace_back(t, e); }) |
            probe_with(probe);
      });
      // Between steps: no record may arrive at a time the frontier has already passed.
      std::uint64_t frontier = 0;
      std::size_t seen = 0;
      while (!probe.done()) {
        worker.step();
        for (; seen < out.size(); ++seen) early += out[seen].first < frontier ? 1u : 0u;
        probe.with_frontier([&](const auto& f) {
          if (!f.empty()) frontier = f[0];
        });
      }
      return out;
    });
    CHECK(early == 0);
    std::vector<std::pair<std::uint64_t, nx::Event>> expected;
    for (const auto& e : sequence(config)) expected.emplace_back(nx::event_time(e), e);
    std::sort(expected.begin(), expected.end());
    CHECK(events == expected);
  }
}

TEST_CASE("Q0, Q1 and Q2 on timely equal the model", "[nexmark][dataflow]") {
  const auto config = small_config(3);
  INFO("seed " << config.seed);
  const auto events = sequence(config);
  std::uint64_t late = 0;

  const auto q0 = harness::same_on_all_worker_counts(
      [&](timely::Worker& w) { return run_query<nx::Event>(w, config, nx::q0(), late); });
  CHECK(q0 == nexmark_model::q0(events));

  const auto q1 = harness::same_on_all_worker_counts(
      [&](timely::Worker& w) { return run_query<nx::Bid>(w, config, nx::q1(), late); });
  CHECK(q1 == nexmark_model::q1(events));
  CHECK(q1.size() == config.events / 50 * 46);

  const auto q2 = harness::same_on_all_worker_counts(
      [&](timely::Worker& w) { return run_query<nx::AuctionPrice>(w, config, nx::q2(), late); });
  CHECK(q2 == nexmark_model::q2(events));
  CHECK(!q2.empty());  // the hot auctions include multiples of 123 (1107, 1230, ...)
  nexmark_model::Params skip;
  skip.auction_skip = 7;
  const auto q2_7 = harness::same_on_all_worker_counts(
      [&](timely::Worker& w) { return run_query<nx::AuctionPrice>(w, config, nx::q2(7), late); });
  CHECK(q2_7 == nexmark_model::q2(events, skip));
  CHECK(late == 0);
}

TEST_CASE("the source and q2 reject bad parameters with ConfigError", "[nexmark][dataflow]") {
  CHECK_THROWS_AS(nx::q2(0), timely::ConfigError);
  auto config = small_config(1);
  config.rate = 0;
  auto run = [&](nx::GeneratorConfig c, nx::SourceOptions o) {
    timely::execute(timely::Config::process(1), [&](timely::Worker& worker) {
      worker.dataflow<std::uint64_t>([&](auto& scope) { nx::source(scope, c, o); });
    });
  };
  CHECK_THROWS_WITH(run(config, {}), Catch::Contains("rate"));
  CHECK_THROWS_WITH(run(small_config(1), nx::SourceOptions{.batch = 0}), Catch::Contains("batch"));
}
