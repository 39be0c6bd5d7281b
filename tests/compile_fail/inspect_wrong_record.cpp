// inspect with a closure taking another type than the stream's records.
// expect-error: static assertion failed: timely::inspect: f must be callable as f\(const D& record\)
// expect-errors: 1
#include <cstdint>
#include <string>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/execute.hpp>

using Time = std::uint64_t;
using namespace timely::dataflow;

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto out = input.to_stream(scope) | operators::inspect([](const std::string& s) { (void)s; });
      (void)out;
    });
  });
}
