// rc: records that share ownership (std::shared_ptr) flow through a pipeline untouched; they stay
// on their worker (no exchange), so nothing needs to be serializable.
//   rc [-w N]
#include <cstdio>
#include <memory>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

struct Test {
  std::shared_ptr<std::uint64_t> field;
};

int main(int argc, char** argv) {
  return examples::guarded_main("rc", "[-w N]", [&] {
    timely::execute(examples::config_without_positionals(argc, argv), [](timely::Worker& worker) {
      const auto index = worker.index();
      timely::InputHandle<std::uint64_t, Test> input;
      timely::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | inspect([index](const Test& t) {
          std::printf("worker %zu:\thello %llu (shared by %ld)\n", index,
                      static_cast<unsigned long long>(*t.field), t.field.use_count());
        }) | probe_with(probe);
      });
      for (std::uint64_t round = 0; round < 10; ++round) {
        input.send(Test{std::make_shared<std::uint64_t>(round)});
        input.advance_to(round + 1);
        worker.step_while([&] { return probe.less_than(input.time()); });
      }
    });
  });
}
