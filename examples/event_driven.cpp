// event_driven: many dataflows, each a chain of LENGTH map operators inside a region; rounds
// feed one dataflow at a time, so only a small part of the graph has work. Shows that idle
// operators cost nothing per step.
//   event_driven DATAFLOWS LENGTH [record] [--rounds R] [-w N]   (R defaults to 10,000)
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;

int main(int argc, char** argv) {
  return examples::guarded_main("event_driven", "DATAFLOWS LENGTH [record] [--rounds R] [-w N]", [&] {
    // --rounds is ours; everything else goes to timely's argument parser.
    std::uint64_t rounds = 10000;
    std::vector<const char*> rest;
    for (int i = 0; i < argc; ++i) {
      if (std::string(argv[i]) == "--rounds") {
        if (i + 1 >= argc) throw timely::ConfigError("--rounds needs a value");
        rounds = examples::parse_count(argv[++i], "--rounds");
      } else {
        rest.push_back(argv[i]);
      }
    }
    auto config = timely::Config::from_args(static_cast<int>(rest.size()), rest.data());
    if (config.positional.size() < 2 || config.positional.size() > 3)
      throw examples::positional_error(config.positional, "expected DATAFLOWS LENGTH [record]");
    const auto dataflows = examples::parse_count(config.positional[0], "DATAFLOWS");
    const auto length = examples::parse_count(config.positional[1], "LENGTH");
    const bool record = config.positional.size() == 3 && config.positional[2] == "record";
    if (dataflows == 0) throw timely::ConfigError("DATAFLOWS must be positive");
    timely::execute(config, [&](timely::Worker& worker) {
      const auto start = std::chrono::steady_clock::now();
      auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      };
      std::vector<std::unique_ptr<timely::InputHandle<std::uint64_t, int>>> inputs;
      std::vector<timely::ProbeHandle<std::uint64_t>> probes(dataflows);
      for (std::uint64_t d = 0; d < dataflows; ++d) {
        inputs.push_back(std::make_unique<timely::InputHandle<std::uint64_t, int>>());
        worker.dataflow<std::uint64_t>([&](auto& scope) {
          auto stream = inputs.back()->to_stream(scope);
          auto out = scope.region([&](auto& inner) {
            auto s = stream | enter(inner);
            for (std::uint64_t step = 0; step < length; ++step) s = s | map([](int x) { return x; });
            return s | leave(scope);
          });
          out | probe_with(probes[d]);
        });
      }
      if (worker.index() == 0)
        std::printf("%.6f s\tdataflows built (%llu x %llu)\n", elapsed(),
                    static_cast<unsigned long long>(dataflows), static_cast<unsigned long long>(length));
      for (std::uint64_t round = 1; round <= rounds; ++round) {
        const auto d = round % dataflows;
        if (record) inputs[d]->send(1);
        inputs[d]->advance_to(round);
        std::uint64_t steps = 0;
        while (probes[d].less_than(round)) {
          worker.step();
          ++steps;
        }
        if (worker.index() == 0 && round % 1000 == 0)
          std::printf("%.6f s\tround %llu complete in %llu steps\n", elapsed(),
                      static_cast<unsigned long long>(round), static_cast<unsigned long long>(steps));
      }
    });
  });
}
