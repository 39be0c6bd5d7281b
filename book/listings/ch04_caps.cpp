// Chapter 4, "capabilities": what a capability allows and what it refuses. An operator with one
// input and two outputs: output 0 is connected to the input with the identity summary, output 1
// with summary +1 (records sent there must be at least one time later than what arrived). On its
// first run it tries a few things with its initial capabilities; then it handles one record.
// Every refusal is a timely::CapabilityError, whose message names the times involved.
//   ch04_caps [-w N]
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

int main(int argc, char** argv) {
  auto parts = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    std::vector<std::string> log;
    auto note = [&log](std::string line) { log.push_back(std::move(line)); };
    auto attempt = [&note](const std::string& what, auto&& action) {
      try {
        action();
        note(what + ": ok");
      } catch (const timely::CapabilityError& e) {
        note(what + ": CapabilityError: " + e.what());
      }
    };

    std::vector<int> one;
    if (worker.index() == 0) one = {10};
    worker.dataflow<Time>([&](auto& scope) {
      timely::OperatorBuilder<Time> builder(scope, "Rules");
      auto input = builder.new_input(to_stream(scope, one), timely::Pipeline{});
      auto output0 = builder.new_output<int>();  // .handle to write to, .stream to read from
      auto output1 = builder.new_output<int>();
      builder.set_connection(0, 1, timely::progress::Antichain<Time>(Time{1}));  // input -> output 1: +1

      builder.build([&, input, out0 = output0.handle,
                     out1 = output1.handle](std::vector<timely::Capability<Time>> initial) mutable {
        std::optional<std::vector<timely::Capability<Time>>> caps(std::move(initial));
        return [&, input, out0, out1, caps]() mutable {
          if (caps && worker.index() == 0) {
            auto& cap = (*caps)[0];  // output 0, time 0
            auto later = cap.delayed(5);
            note("delayed(5) from time 0 gives a capability at " + std::to_string(later.time()));
            attempt("delayed(3) from time 5", [&] { (void)later.delayed(3); });
            attempt("downgrade(2) from time 5", [&] { later.downgrade(2); });
            note(std::string("try_delayed(3) from time 5: ") +
                 (later.try_delayed(3) ? "a capability" : "nullopt"));
            later.downgrade(7);
            note("downgrade(7) from time 5: now at " + std::to_string(later.time()));
            attempt("session on output 1 with output 0's capability", [&] { (void)out1.session(cap); });
          }
          caps.reset();  // release the initial capabilities (on every worker)

          input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<int>& data) {
            attempt("session on output 0 with the input capability",
                    [&] { out0.session(cap).give_vec(data); });
            attempt("session on output 1 with the input capability", [&] { (void)out1.session(cap); });
            auto next = cap.delayed(cap.time() + 1, 1);
            note("input capability at " + std::to_string(cap.time()) + " mints one for output 1 at " +
                 std::to_string(next.time()));
            out1.session(next).give(11);
          });
        };
      });
      output0.stream | inspect_time([&](Time t, int x) {
        note("output 0 sent " + std::to_string(x) + " at time " + std::to_string(t));
      });
      output1.stream | inspect_time([&](Time t, int x) {
        note("output 1 sent " + std::to_string(x) + " at time " + std::to_string(t));
      });
    });
    while (worker.step()) {
    }
    return log;
  });

  for (const auto& part : parts)
    for (const auto& line : part) std::printf("%s\n", line.c_str());
}
