// Shared helpers of the operator tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <utility>

#include <timely/execute.hpp>

namespace optest {

using Time = std::uint64_t;

/// Whether this worker sends record `i` (the records are spread over the workers, so that the
/// whole computation sees each one once whatever the number of workers).
inline bool mine(const timely::Worker& worker, std::size_t i) { return i % worker.peers() == worker.index(); }

/// Runs `program` on 1, 2 and 4 workers in both progress modes and calls
/// `check(workers, per-worker results)` on the calling thread after each run (for results that
/// depend on the number of workers, which `harness::same_on_all_worker_counts` cannot compare).
template <class F, class C>
void on_each_configuration(F&& program, C&& check) {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      auto config = timely::Config::process(workers);
      config.worker.progress_mode = mode;
      auto parts = timely::execute(config, program);
      check(workers, mode, parts);
    }
}

}  // namespace optest
