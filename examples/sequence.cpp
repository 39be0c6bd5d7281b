// sequence: the Sequencer. Every worker pushes "worker I, round R" every (I + 1) x PERIOD_MS
// milliseconds, and every worker prints the elements in the order the sequencer releases them:
// the same order on every worker. With ROUNDS = 0 (the default, like the reference) it runs until
// interrupted; otherwise each worker pushes ROUNDS elements, waits until it has received all
// ROUNDS x workers of them, and the program checks that every worker saw one and the same order.
//   sequence [ROUNDS [PERIOD_MS]] [-w N]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"

int main(int argc, char** argv) {
  return examples::guarded_main("sequence", "[ROUNDS [PERIOD_MS]] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() > 2)
      throw examples::positional_error(config.positional, "expected at most ROUNDS and PERIOD_MS");
    const std::uint64_t rounds =
        config.positional.size() > 0 ? examples::parse_count(config.positional[0], "ROUNDS") : 0;
    const std::uint64_t period_ms =
        config.positional.size() > 1 ? examples::parse_count(config.positional[1], "PERIOD_MS") : 1000;
    if (period_ms > 3'600'000) throw timely::ConfigError("PERIOD_MS must be at most 3600000 (an hour)");

    const auto results = timely::execute(config, [&](timely::Worker& worker) {
      using clock = std::chrono::steady_clock;
      const std::size_t index = worker.index();
      const auto start = clock::now();
      const auto period = std::chrono::milliseconds(period_ms * (index + 1));
      timely::synchronization::Sequencer<std::string> sequencer(worker);
      std::vector<std::string> received;
      const std::uint64_t expected = rounds * worker.peers();
      std::uint64_t round = 0;
      auto next_push = start + period;
      while (rounds == 0 || received.size() < expected) {
        // Push when due; in between keep the worker stepping (parked while nothing happens).
        const auto now = clock::now();
        if ((rounds == 0 || round < rounds) && now >= next_push) {
          sequencer.push("worker " + std::to_string(index) + ", round " + std::to_string(round));
          ++round;
          next_push += period;
        }
        while (auto element = sequencer.next()) {
          const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
          std::printf("%.3fs\tWorker %zu:\trecv'd: %s\n", elapsed, index, element->c_str());
          received.push_back(std::move(*element));
        }
        const bool pushing = rounds == 0 || round < rounds;
        worker.step_or_park(pushing ? std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::max(next_push - clock::now(), clock::duration::zero()))
                                    : std::chrono::nanoseconds(std::chrono::milliseconds(10)));
      }
      return received;
    });

    // Only reached with ROUNDS > 0: every worker must have received the same sequence, holding
    // each pushed element exactly once.
    std::vector<std::string> pushed;
    const std::size_t peers = config.workers * config.processes;  // every worker of every process pushes
    for (std::size_t w = 0; w < peers; ++w)
      for (std::uint64_t r = 0; r < rounds; ++r)
        pushed.push_back("worker " + std::to_string(w) + ", round " + std::to_string(r));
    auto sorted = results.at(0);
    std::sort(pushed.begin(), pushed.end());
    std::sort(sorted.begin(), sorted.end());
    if (sorted != pushed)
      throw std::runtime_error("worker 0 did not receive each pushed element exactly once");
    for (std::size_t w = 1; w < results.size(); ++w)
      if (results[w] != results[0])
        throw std::runtime_error("worker " + std::to_string(w) + " received another order than worker 0");
    std::printf("sequence: all %zu workers received the same %zu elements in the same order\n", peers,
                results.empty() ? std::size_t{0} : results[0].size());
  });
}
