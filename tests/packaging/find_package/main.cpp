// Consumer program for the find_package packaging test: two workers each feed numbers into an
// exchange; every worker counts what it receives and checks that it only gets its own share
// (exchange routes a record to worker `route(record) % peers`). Prints the totals.
#include <cstdint>
#include <exception>
#include <iostream>
#include <vector>

#include <timely/timely.hpp>

namespace {

struct Tally {
  std::uint64_t received = 0;
  std::uint64_t misrouted = 0;
};

constexpr std::uint64_t kRounds = 5;
constexpr std::uint64_t kPerRound = 4;

}  // namespace

int main() {
  using namespace timely::dataflow::operators;
  try {
    std::vector<Tally> tallies = timely::execute(timely::Config::process(2), [](timely::Worker& worker) {
      timely::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::ProbeHandle<std::uint64_t> probe;
      Tally tally;
      const std::uint64_t me = worker.index();
      const std::uint64_t peers = worker.peers();
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) | inspect([&](std::uint64_t x) {
          ++tally.received;
          if (x % peers != me) ++tally.misrouted;
        }) | probe_with(probe);
      });
      for (std::uint64_t round = 0; round < kRounds; ++round) {
        for (std::uint64_t i = 0; i < kPerRound; ++i) input.send(me * 1000 + round * kPerRound + i);
        input.advance_to(round + 1);
        while (probe.less_than(input.time())) worker.step();
      }
      return tally;
    });

    std::uint64_t received = 0;
    std::uint64_t misrouted = 0;
    for (std::size_t w = 0; w < tallies.size(); ++w) {
      std::cout << "worker " << w << " received " << tallies[w].received << "\n";
      received += tallies[w].received;
      misrouted += tallies[w].misrouted;
    }
    std::cout << "workers=" << tallies.size() << " received=" << received << " misrouted=" << misrouted
              << "\n";
    return (received == 2 * kRounds * kPerRound && misrouted == 0) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
