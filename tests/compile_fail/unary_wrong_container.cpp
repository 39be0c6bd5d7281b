// A unary operator whose logic reads vector batches from a stream of columnar batches.
// expect-error: static assertion failed: timely::unary/unary_frontier: the logic the constructor returns must
// be callable as logic\(OperatorInput<T, In>&, OperatorOutput<T, Out>&\) expect-errors: 1
#include <cstdint>
#include <string>
#include <utility>

#include <timely/container/columnar.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/execute.hpp>

using Time = std::uint64_t;
using Record = std::pair<std::uint64_t, std::string>;
using namespace timely::dataflow;

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    InputHandleCore<Time, timely::container::columnar::Batch<Record>> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto out =
          input.to_stream(scope) |
          operators::unary<Record>(Pipeline{}, "Wrong", [](Capability<Time>, const operators::OperatorInfo&) {
            return [](OperatorInput<Time, Record>&, OperatorOutput<Time, Record>&) {};
          });
      (void)out;
    });
  });
}
