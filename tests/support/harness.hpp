// Test harness: run one dataflow program on several worker counts and compare the results.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include <timely/execute.hpp>

#include "support/catch.hpp"

namespace harness {

/// Runs `program(Worker&) -> std::vector<R>` on `workers` threads and returns all workers'
/// records merged and sorted.
template <class F>
auto run(std::size_t workers, timely::ProgressMode mode, F&& program) {
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  auto parts = timely::execute(config, program);
  std::decay_t<decltype(parts[0])> all;
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  return all;
}

/// Runs `program` on 1, 2 and 4 workers in both progress modes; requires identical sorted
/// results, and returns them.
template <class F>
auto same_on_all_worker_counts(F&& program) {
  auto expected = run(1, timely::ProgressMode::Demand, program);
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      REQUIRE(run(workers, mode, program) == expected);
    }
  return expected;
}

}  // namespace harness
