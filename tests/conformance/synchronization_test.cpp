// Barrier and Sequencer (SEMANTICS.md §10.4, §12 item 36).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <timely/execute.hpp>
#include <timely/synchronization/barrier.hpp>
#include <timely/synchronization/sequencer.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

TEST_CASE("a barrier releases each round only after every worker reached it", "[capture][sync]") {
  constexpr std::size_t rounds = 25;
  for (std::size_t workers : {1u, 2u, 3u, 4u}) {
    INFO("workers " << workers);
    std::vector<std::atomic<std::size_t>> arrived(rounds);
    auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      std::vector<std::size_t> seen;  // arrivals observed right after each wait
      timely::synchronization::Barrier barrier(worker);
      for (std::size_t r = 0; r < rounds; ++r) {
        // Uneven work: the worker whose turn it is arrives late.
        if (r % workers == worker.index()) std::this_thread::sleep_for(std::chrono::microseconds(300));
        arrived[r].fetch_add(1);
        barrier.wait();
        seen.push_back(arrived[r].load());
      }
      return std::make_pair(barrier.rounds(), seen);
    });
    for (auto& [count, seen] : parts) {
      CHECK(count == rounds);
      CHECK(seen == std::vector<std::size_t>(rounds, workers));
    }
  }
}

TEST_CASE("a sequencer yields the same total order of all pushes on every worker", "[capture][sync]") {
  constexpr std::size_t per_worker = 24;
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      timely::synchronization::Sequencer<std::string> sequencer(worker);
      std::vector<std::string> order;
      const std::size_t total = per_worker * worker.peers();
      std::size_t pushed = 0;
      for (std::size_t steps = 0; order.size() < total && steps < 2'000'000; ++steps) {
        // Pushes in bursts of varying size, interleaved with steps and with the other workers.
        if (pushed < per_worker && steps % (3 + worker.index()) == 0) {
          for (std::size_t k = 0; k < 1 + (steps % 4) && pushed < per_worker; ++k, ++pushed)
            sequencer.push("w" + std::to_string(worker.index()) + "-" + std::to_string(pushed));
        }
        worker.step();
        while (auto x = sequencer.next()) order.push_back(*x);
      }
      return order;
    });
    const auto& first = parts[0];
    REQUIRE(first.size() == per_worker * workers);
    for (const auto& order : parts) CHECK(order == first);
    // Everything exactly once, and each worker's pushes in the order it pushed them.
    std::vector<std::string> expected;
    for (std::size_t w = 0; w < workers; ++w)
      for (std::size_t k = 0; k < per_worker; ++k)
        expected.push_back("w" + std::to_string(w) + "-" + std::to_string(k));
    auto sorted = first;
    std::sort(sorted.begin(), sorted.end());
    std::sort(expected.begin(), expected.end());
    CHECK(sorted == expected);
    for (std::size_t w = 0; w < workers; ++w) {
      std::vector<std::size_t> ks;
      const std::string prefix = "w" + std::to_string(w) + "-";
      for (const auto& x : first)
        if (x.rfind(prefix, 0) == 0) ks.push_back(std::stoul(x.substr(prefix.size())));
      CHECK(std::is_sorted(ks.begin(), ks.end()));
    }
  }
}

TEST_CASE("a sequencer on which only one worker pushes still releases everywhere", "[capture][sync]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto parts = timely::execute(timely::Config::process(workers), [&](timely::Worker& worker) {
      timely::synchronization::Sequencer<std::uint64_t> sequencer(worker);
      if (worker.index() + 1 == worker.peers())
        for (std::uint64_t x = 0; x < 10; ++x) sequencer.push(x * x);
      std::vector<std::uint64_t> order;
      for (std::size_t steps = 0; order.size() < 10 && steps < 2'000'000; ++steps) {
        worker.step();
        while (auto x = sequencer.next()) order.push_back(*x);
      }
      return order;
    });
    for (const auto& order : parts)
      CHECK(order == std::vector<std::uint64_t>{0, 1, 4, 9, 16, 25, 36, 49, 64, 81});
  }
}
