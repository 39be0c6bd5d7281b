// The Nexmark queries with state, windows and joins (Q3-Q9, Q11) on timely, against the model
// (model.hpp) over the generator's single-worker sequence, exactly, on 1, 2 and 4 workers in
// both progress modes; and their parameter checks.
#include <cstdint>
#include <vector>

#include <timely/streaming/nexmark/windowed_queries.hpp>

#include "model.hpp"
#include "query_runner.hpp"
#include "support/catch.hpp"
#include "support/harness.hpp"

namespace nx = timely::streaming::nexmark;
using nexmark_test::run_query;
using nexmark_test::sequence;
using nexmark_test::small_config;

namespace {

/// 6'000 events at 10 per ms (600 ms of event time), out of order in groups of 3, with windows
/// of 50 ms every 10 ms and sessions closed after 20 ms, so every query has many windows.
nx::GeneratorConfig config() { return small_config(3, 10'000); }

nx::QueryParams params() {
  nx::QueryParams p;
  p.window_size_ms = 50;
  p.window_period_ms = 10;
  p.session_gap_ms = 20;
  p.q6_last = 3;
  return p;
}

/// Runs `query` on 1, 2 and 4 workers in both modes; requires the model's result, some records
/// and none before the frontier.
template <class Record, class Query>
void check_query(const Query& query, const std::vector<Record>& expected,
                 const nx::GeneratorConfig& generator = config()) {
  std::uint64_t late = 0;
  const auto got = harness::same_on_all_worker_counts(
      [&](timely::Worker& w) { return run_query<Record>(w, generator, query, late); });
  CHECK(!expected.empty());
  CHECK(got.size() == expected.size());
  CHECK(got == expected);
  CHECK(late == 0);
}

}  // namespace

TEST_CASE("Q3 (local item suggestion) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q3(), nexmark_model::q3(sequence(config())));
}

TEST_CASE("Q9 (winning bids) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q9(), nexmark_model::q9(sequence(config())));
}

TEST_CASE("Q4 (average price per category) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q4(params()), nexmark_model::q4(sequence(config()), params()));
}

TEST_CASE("Q5 (hot items) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q5(params()), nexmark_model::q5(sequence(config()), params()));
}

TEST_CASE("Q6 (average selling price by seller) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q6(params()), nexmark_model::q6(sequence(config()), params()));
}

TEST_CASE("Q7 (highest bid) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q7(params()), nexmark_model::q7(sequence(config()), params()));
}

TEST_CASE("Q8 (new users) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q8(params()), nexmark_model::q8(sequence(config()), params()));
}

TEST_CASE("Q11 (user sessions) on timely equals the model", "[nexmark][windowed]") {
  INFO("seed " << config().seed);
  check_query(nx::q11(params()), nexmark_model::q11(sequence(config()), params()));
}

TEST_CASE("Q3-Q9 and Q11 equal the model on a denser configuration", "[nexmark][windowed]") {
  // 100 events per ms (60 ms in all), out of order in groups of 5; windows of 8 ms every 2 ms,
  // sessions closed after 1 ms, a seller's last 2 winning prices.
  nx::GeneratorConfig generator = small_config(5, 100'000);
  generator.seed = 77;
  INFO("seed " << generator.seed);
  nx::QueryParams p;
  p.window_size_ms = 8;
  p.window_period_ms = 2;
  p.session_gap_ms = 1;
  p.q6_last = 2;
  const auto events = sequence(generator);
  check_query(nx::q3(), nexmark_model::q3(events), generator);
  check_query(nx::q9(), nexmark_model::q9(events), generator);
  check_query(nx::q4(p), nexmark_model::q4(events, p), generator);
  check_query(nx::q5(p), nexmark_model::q5(events, p), generator);
  check_query(nx::q6(p), nexmark_model::q6(events, p), generator);
  check_query(nx::q7(p), nexmark_model::q7(events, p), generator);
  check_query(nx::q8(p), nexmark_model::q8(events, p), generator);
  check_query(nx::q11(p), nexmark_model::q11(events, p), generator);
}

TEST_CASE("the windowed queries reject zero and inconsistent parameters with ConfigError",
          "[nexmark][windowed]") {
  auto with = [](auto change) {
    nx::QueryParams p;
    change(p);
    return p;
  };
  CHECK_THROWS_WITH(nx::q4(with([](auto& p) { p.window_size_ms = 0; })), Catch::Contains("window_size_ms"));
  CHECK_THROWS_WITH(nx::q5(with([](auto& p) { p.window_period_ms = 0; })),
                    Catch::Contains("window_period_ms"));
  CHECK_THROWS_WITH(nx::q5(with([](auto& p) { p.window_period_ms = p.window_size_ms + 1; })),
                    Catch::Contains("window_period_ms"));
  CHECK_THROWS_AS(nx::q6(with([](auto& p) { p.q6_last = 0; })), timely::ConfigError);
  CHECK_THROWS_AS(nx::q7(with([](auto& p) { p.window_size_ms = 0; })), timely::ConfigError);
  CHECK_THROWS_AS(nx::q8(with([](auto& p) { p.window_size_ms = 0; })), timely::ConfigError);
  CHECK_THROWS_WITH(nx::q11(with([](auto& p) { p.session_gap_ms = 0; })), Catch::Contains("session_gap_ms"));
  CHECK_NOTHROW(nx::q4());
  CHECK_NOTHROW(nx::q5());
  CHECK_NOTHROW(nx::q6());
  CHECK_NOTHROW(nx::q7());
  CHECK_NOTHROW(nx::q8());
  CHECK_NOTHROW(nx::q11());
}
