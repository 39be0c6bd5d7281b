// Consumer program for the add_subdirectory packaging test: two workers each feed the numbers
// 1..20 through map (doubling) and exchange; every worker sums what it receives. Prints the
// version from <timely/version.hpp>, the number of records and their sum over all workers; fails
// if that version differs from TIMELY_CONSUMER_EXPECTED_VERSION (timely's project() version).
#include <cstdint>
#include <exception>
#include <iostream>
#include <string_view>
#include <utility>
#include <vector>

#include <timely/timely.hpp>
#include <timely/version.hpp>

#ifndef TIMELY_CONSUMER_EXPECTED_VERSION
#error "the consumer's build must define TIMELY_CONSUMER_EXPECTED_VERSION"
#endif

int main() {
  using namespace timely::dataflow::operators;
  constexpr std::uint64_t kCount = 20;
  try {
    auto per_worker = timely::execute(timely::Config::process(2), [](timely::Worker& worker) {
      timely::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::ProbeHandle<std::uint64_t> probe;
      std::uint64_t records = 0;
      std::uint64_t sum = 0;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | map([](std::uint64_t x) { return 2 * x; }) |
            exchange([](std::uint64_t x) { return x / 2; }) | inspect([&](std::uint64_t x) {
              ++records;
              sum += x;
            }) |
            probe_with(probe);
      });
      for (std::uint64_t x = 1; x <= kCount; ++x) {
        input.send(x);
        input.advance_to(x);
        while (probe.less_than(input.time())) worker.step();
      }
      return std::pair{records, sum};
    });

    std::uint64_t records = 0;
    std::uint64_t sum = 0;
    for (const auto& [r, s] : per_worker) {
      records += r;
      sum += s;
    }
    const bool version_matches = std::string_view(timely::version_string) == TIMELY_CONSUMER_EXPECTED_VERSION;
    std::cout << "version=" << timely::version_string << " workers=" << per_worker.size()
              << " records=" << records << " sum=" << sum << "\n";
    // Each of the 2 workers sends 2 * (1 + ... + 20) = 420 in total.
    return (version_matches && records == 2 * kCount && sum == 2 * kCount * (kCount + 1)) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
