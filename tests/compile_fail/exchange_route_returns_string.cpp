// An exchange whose route takes the records but returns a std::string, not an integer.
// expect-error: static assertion failed: timely::exchange: the route takes the stream.s records but does not
// expect-errors: 1
#include <cstdint>
#include <string>

#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/execute.hpp>

using Time = std::uint64_t;
using namespace timely::dataflow;

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto out = input.to_stream(scope) |
                 operators::exchange([](const std::uint64_t& x) { return std::to_string(x); });
      (void)out;
    });
  });
}
