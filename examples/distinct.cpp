// distinct: each worker sends a few numbers; an exchange-partitioned operator forwards each value
// the first time it is seen at a time, and every worker prints the values it owns.
//   distinct [-w N]
#include <cstdio>
#include <map>

#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

int main(int argc, char** argv) {
  return examples::guarded_main("distinct", "[-w N]", [&] {
    timely::execute(examples::config_without_positionals(argc, argv), [](timely::Worker& worker) {
      const auto index = worker.index();
      timely::InputHandle<Time, std::uint64_t> input;
      timely::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) |
            unary<std::uint64_t>(
                timely::Exchange{[](const std::uint64_t& x) { return x; }}, "Distinct",
                [](auto, const auto&) {
                  std::map<Time, boost::unordered_flat_map<std::uint64_t, std::uint64_t>> seen;
                  return [seen](auto& in, auto& out) mutable {
                    in.for_each([&](const timely::InputCapability<Time>& cap, auto& data) {
                      auto& counts = seen[cap.time()];
                      auto session = out.session(cap);
                      for (auto x : data)
                        if (counts[x]++ == 0) session.give(x);
                    });
                  };
                }) |
            inspect([index](const std::uint64_t& x) {
              std::printf("worker %zu:\tvalue %llu\n", index, static_cast<unsigned long long>(x));
            }) |
            probe_with(probe);
      });
      const std::uint64_t first[] = {0, 1, 2, 2, 2, 3, 3, 4};
      const std::uint64_t second[] = {0, 0, 3, 4, 4, 5, 7, 7};
      if (index == 0)
        for (auto x : first) input.send(x);
      if (index == 1 % worker.peers())
        for (auto x : second) input.send(x);
      input.advance_to(1);
      while (probe.less_than(input.time())) worker.step();
    });
  });
}
