// An operator that keeps a copy of the InputCapability it was handed, to use it later.
// expect-error: use of deleted function .*InputCapability<T>::InputCapability\(const
// timely::dataflow::InputCapability<T>&\) expect-errors: 1
#include <cstdint>
#include <optional>
#include <vector>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/execute.hpp>

using Time = std::uint64_t;
using namespace timely::dataflow;

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    InputHandle<Time, int> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto out =
          input.to_stream(scope) |
          operators::unary<int>(Pipeline{}, "Keeps", [](Capability<Time>, const operators::OperatorInfo&) {
            return [](OperatorInput<Time, int>& in, OperatorOutput<Time, int>&) {
              in.for_each([&](const InputCapability<Time>& cap, std::vector<int>&) {
                InputCapability<Time> kept = cap;  // to call kept.retain() in a later scheduling
                (void)kept;
              });
            };
          });
      (void)out;
    });
  });
}
