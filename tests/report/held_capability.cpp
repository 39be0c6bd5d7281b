// A run whose log ends with an unfinished frontier, for timely-report's test: a source "Holder"
// sends one record at 0 and then keeps a capability at time kHeld, so the probe behind it (past
// a region with an inspect inside) waits at kHeld.
//   held_capability drop [timely options]   drops the dataflow while the capability is held,
//                                            then finishes normally (the logs are closed)
//   held_capability hang [timely options]   prints "holding" once every worker holds it, then
//                                            steps until killed (the logs stay unclosed)
// With --log-file, every worker's log shows the Holder's capability at kHeld to the end.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
constexpr Time kHeld = 7;

int main(int argc, char** argv) {
  if (argc < 2 || (std::string(argv[1]) != "drop" && std::string(argv[1]) != "hang")) {
    std::fprintf(stderr, "usage: held_capability drop|hang [timely options]\n");
    return 2;
  }
  const bool hang = std::string(argv[1]) == "hang";
  try {
    auto config = timely::Config::from_args(argc - 1, argv + 1);
    std::atomic<std::size_t> holding{0};
    timely::execute(config, [&](timely::Worker& worker) {
      timely::dataflow::ProbeHandle<Time> probe;
      const std::size_t index = worker.next_dataflow_index();
      worker.dataflow<Time>([&](auto& scope) {
        auto held =
            source<int>(scope, "Holder", [](timely::dataflow::Capability<Time> cap, const OperatorInfo&) {
              return [cap = std::optional<timely::dataflow::Capability<Time>>(std::move(cap))](
                         timely::dataflow::OperatorOutput<Time, int>& output) mutable {
                if (cap->time() < kHeld) {
                  output.session(*cap).give(1);
                  cap->downgrade(kHeld);  // and kept: the dataflow cannot complete
                }
              };
            });
        // Through a region, so that the graph has a nested scope.
        scope.region([&](auto& region) {
          return held | enter(region) | inspect([](const int&) {}) | leave(scope);
        }) | probe_with(probe);
      });
      // Until the probe sees the frontier stop at kHeld (the record at 0 is through).
      while (probe.less_than(kHeld)) worker.step();
      if (hang) {
        if (holding.fetch_add(1) + 1 == worker.peers()) {
          std::printf("holding\n");
          std::fflush(stdout);
        }
        while (true) worker.step_or_park(std::chrono::milliseconds(5));
      }
      worker.drop_dataflow(index);
      while (worker.step_or_park(std::chrono::milliseconds(1))) {
      }
    });
    std::printf("dropped\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "held_capability: %s\n", e.what());
    return 1;
  }
}
