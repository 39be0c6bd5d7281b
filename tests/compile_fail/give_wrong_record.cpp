// A unary operator that gives its vector output a value of another type than its records.
// expect-error: static assertion failed: timely: session.give: the output.s container cannot absorb
// expect-errors: 1
#include <cstdint>
#include <string>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/execute.hpp>

using Time = std::uint64_t;
using namespace timely::dataflow;

struct Other {};

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto out =
          input.to_stream(scope) |
          operators::unary<std::string>(
              Pipeline{}, "Wrong", [](Capability<Time>, const operators::OperatorInfo&) {
                return [](OperatorInput<Time, std::uint64_t>& in, OperatorOutput<Time, std::string>& output) {
                  in.for_each([&](const InputCapability<Time>& cap, std::vector<std::uint64_t>&) {
                    output.session(cap).give(Other{});
                  });
                };
              });
      (void)out;
    });
  });
}
