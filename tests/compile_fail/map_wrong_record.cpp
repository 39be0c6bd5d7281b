// A `map` whose function takes a std::string, applied to a stream of int.
// expect-error: static assertion failed: timely::map: f cannot take the stream's records
// expect-errors: 1
#include <cstdint>
#include <string>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/execute.hpp>

int main() {
  timely::execute_directly([](timely::Worker& worker) {
    timely::dataflow::InputHandle<std::uint64_t, int> input;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      auto out =
          input.to_stream(scope) | timely::dataflow::operators::map([](std::string s) { return s.size(); });
      (void)out;
    });
  });
}
