// What the Nexmark dataflow tests share: the generator's single-worker sequence (the model's
// input), a small configuration, and `run_query`, which runs a query behind the source.
#pragma once

#include <cstdint>
#include <vector>

#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/streaming/nexmark/generator.hpp>
#include <timely/streaming/nexmark/source.hpp>

namespace nexmark_test {

namespace nx = timely::streaming::nexmark;

/// The events of `config` in generation order, as one worker generates them.
inline std::vector<nx::Event> sequence(const nx::GeneratorConfig& config) {
  std::vector<nx::Event> out;
  for (std::uint64_t n = 0; n < config.events; ++n)
    out.push_back(nx::make_event(config, nx::event_id_at(config, n)));
  return out;
}

/// 6'000 events at 100 per ms (seed 21), delivered out of order in groups of `group`.
inline nx::GeneratorConfig small_config(std::uint64_t group, std::uint64_t rate = 100'000) {
  nx::GeneratorConfig config;
  config.events = 6'000;
  config.seed = 21;
  config.rate = rate;
  config.out_of_order_group_size = group;
  return config;
}

/// Small slices, so that the source runs many times and the frontier moves in steps.
inline const nx::SourceOptions kOptions{.batch = 97, .batch_size = 13, .paced = false};

/// Runs `query` behind the source on `worker`; returns its records, each checked to carry a
/// timestamp no earlier than the probe's frontier when it was seen (else `late` is counted).
template <class Record, class Query>
std::vector<Record> run_query(timely::Worker& worker, const nx::GeneratorConfig& config, Query query,
                              std::uint64_t& late) {
  using namespace timely::dataflow::operators;
  std::vector<Record> out;
  timely::dataflow::ProbeHandle<std::uint64_t> probe;
  worker.dataflow<std::uint64_t>([&](auto& scope) {
    nx::source(scope, config, kOptions) | query | inspect_time([&](const std::uint64_t& t, const Record& r) {
      // The probe's frontier is at or behind every record still in flight.
      if (!probe.less_equal(t)) ++late;
      out.push_back(r);
    }) | probe_with(probe);
  });
  while (!probe.done()) worker.step();
  return out;
}

}  // namespace nexmark_test
