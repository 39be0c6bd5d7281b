// A unary operator whose logic reads records of type std::string from a stream of int.
// expect-error: static assertion failed: timely::unary/unary_frontier: the logic the constructor returns must
// be callable as logic\(OperatorInput<T, In>&, OperatorOutput<T, Out>&\) expect-errors: 1
#include <cstdint>
#include <string>

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
          operators::unary<int>(Pipeline{}, "Wrong", [](Capability<Time>, const operators::OperatorInfo&) {
            return [](OperatorInput<Time, std::string>&, OperatorOutput<Time, int>&) {};
          });
      (void)out;
    });
  });
}
