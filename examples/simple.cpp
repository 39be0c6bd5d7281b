// simple: the smallest dataflow. Every worker sends 0..9 through an inspect that prints them.
//   simple [-w N]
#include <cstdio>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("simple", "[-w N]", [&] {
    timely::execute(examples::config_without_positionals(argc, argv), [](timely::Worker& worker) {
      worker.dataflow<std::uint64_t>([](auto& scope) {
        std::vector<std::uint64_t> numbers{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        to_stream(scope, numbers) |
            inspect([](std::uint64_t x) { std::printf("seen: %llu\n", static_cast<unsigned long long>(x)); });
      });
    });
  });
}
