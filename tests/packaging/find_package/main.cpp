// Consumer program for the find_package, build-tree and pkg-config packaging tests: two workers
// each feed numbers into an exchange; every worker counts what it receives and checks that it
// only gets its own share (exchange routes a record to worker `route(record) % peers`). Prints
// the version from <timely/version.hpp>, the totals, the bids among 500 Nexmark events (the
// streaming library), the records of a durable log written and read back (the durable
// library) and the capture format's CRC-32 of "123456789" (zlib, which a static timely::core
// hands on to the consumer's link); fails if that version differs from
// TIMELY_CONSUMER_EXPECTED_VERSION, the one the package metadata (CMake or pkg-config) reported.
#include <cstdint>
#include <exception>
#include <iostream>
#include <span>
#include <string_view>
#include <vector>

#include <timely/timely.hpp>
#include <timely/version.hpp>

#ifndef TIMELY_CONSUMER_EXPECTED_VERSION
#error "the consumer's build must define TIMELY_CONSUMER_EXPECTED_VERSION"
#endif

std::uint64_t nexmark_bids(std::uint64_t events);  // streaming_check.cpp
std::uint64_t durable_records();                   // durable_check.cpp

namespace {

struct Tally {
  std::uint64_t received = 0;
  std::uint64_t misrouted = 0;
};

constexpr std::uint64_t kRounds = 5;
constexpr std::uint64_t kNexmarkEvents = 500;
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
    const bool version_matches = std::string_view(timely::version_string) == TIMELY_CONSUMER_EXPECTED_VERSION;
    std::cout << "package version " << TIMELY_CONSUMER_EXPECTED_VERSION << "\n";
    const std::uint64_t bids = nexmark_bids(kNexmarkEvents);
    const std::uint64_t durable = durable_records();
    constexpr std::string_view check = "123456789";
    const std::uint32_t crc =
        timely::capture::crc32(std::span(reinterpret_cast<const std::uint8_t*>(check.data()), check.size()));
    std::cout << "version=" << timely::version_string << " workers=" << tallies.size()
              << " received=" << received << " misrouted=" << misrouted << " nexmark_bids=" << bids
              << " durable_records=" << durable << " capture_crc=" << std::hex << crc << std::dec << "\n";
    return (version_matches && received == 2 * kRounds * kPerRound && misrouted == 0 &&
            bids == kNexmarkEvents / 50 * 46 && durable == 6 && crc == 0xCBF43926u)
               ? 0
               : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
