// Capability misuse throws a CapabilityError naming the times; the try_ twins report instead
// (SEMANTICS.md §4).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using Time = std::uint64_t;

TEST_CASE("capabilities: delayed, downgrade and their try_ twins", "[conformance][capability]") {
  timely::execute_directly([](timely::Worker& worker) {
    worker.dataflow<Time>([&](auto& scope) {
      timely::dataflow::OperatorBuilder<Time> builder(scope, "Caps");
      auto out_made = builder.template new_output<int>();
      builder.build([&](std::vector<timely::dataflow::Capability<Time>> caps) {
        auto cap = std::move(caps[0]);
        CHECK(cap.time() == 0);
        cap.downgrade(5);
        CHECK(cap.time() == 5);
        CHECK_THROWS_AS(cap.downgrade(3), timely::CapabilityError);
        CHECK_THROWS_WITH(cap.downgrade(3), Catch::Contains("time 5") && Catch::Contains("time 3"));
        CHECK(cap.time() == 5);  // unchanged by the failed downgrade
        CHECK_FALSE(cap.try_downgrade(4));
        CHECK(cap.try_downgrade(6));
        CHECK_THROWS_WITH(cap.delayed(2), Catch::Contains("time 6") && Catch::Contains("time 2"));
        CHECK_FALSE(cap.try_delayed(2).has_value());
        auto later = cap.delayed(9);
        CHECK(later.time() == 9);
        auto copy = later.clone();
        CHECK(copy == later);
        auto moved = std::move(copy);
        CHECK_FALSE(copy.valid());  // NOLINT: moved-from capabilities are inert
        CHECK_THROWS_AS(copy.delayed(10), timely::CapabilityError);
        return [] {};
      });
    });
  });
}

TEST_CASE("a capability used on another output throws", "[conformance][capability]") {
  auto run = [](std::size_t workers) {
    timely::execute(timely::Config::process(workers), [](timely::Worker& worker) {
      worker.dataflow<Time>([&](auto& scope) {
        timely::dataflow::OperatorBuilder<Time> builder(scope, "TwoOutputs");
        auto first_made = builder.template new_output<int>();
        auto second_made = builder.template new_output<int>();
        builder.build([&](std::vector<timely::dataflow::Capability<Time>> caps) {
          return [caps = std::move(caps), second = std::move(second_made.handle)]() mutable {
            if (!caps.empty()) {
              auto session = second.session(caps[0]);  // caps[0] belongs to the first output
              session.give(1);
            }
          };
        });
      });
    });
  };
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    CHECK_THROWS_WITH(run(workers), Catch::Contains("not minted for"));
  }
}

TEST_CASE("input capabilities mint along the input's summaries only", "[conformance][capability]") {
  timely::execute_directly([](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    std::vector<std::string> errors;
    worker.dataflow<Time>([&](auto& scope) {
      auto stream = input.to_stream(scope);
      timely::dataflow::OperatorBuilder<Time> builder(scope, "Summaries");
      auto in = builder.new_input(stream, timely::dataflow::Pipeline{});
      auto plus_two_made = builder.template new_output<int>();
      auto unconnected_made = builder.template new_output<int>();
      builder.set_connection(0, 0, timely::progress::Antichain<Time>(2));
      builder.set_connection(0, 1, timely::progress::Antichain<Time>{});
      builder.build([&](std::vector<timely::dataflow::Capability<Time>>) {
        return [&errors, in = std::move(in), plus_two = std::move(plus_two_made.handle)]() mutable {
          in.for_each([&](const timely::dataflow::InputCapability<Time>& cap, std::vector<int>&) {
            CHECK(cap.delayed(cap.time() + 2, 0).time() == cap.time() + 2);
            try {
              (void)cap.delayed(cap.time() + 1, 0);
            } catch (const timely::CapabilityError& e) {
              errors.push_back(e.what());
            }
            try {
              (void)cap.retain(1);
            } catch (const timely::CapabilityError& e) {
              errors.push_back(e.what());
            }
            try {
              (void)plus_two.session(cap);  // summary is not the identity
            } catch (const timely::CapabilityError& e) {
              errors.push_back(e.what());
            }
          });
        };
      });
    });
    input.send(1);
    input.advance_to(4);
    input.close();
    while (worker.step()) {
    }
    REQUIRE(errors.size() == 3);
    CHECK_THAT(errors[0], Catch::Contains("time 0") && Catch::Contains("time 1"));
    CHECK_THAT(errors[1], Catch::Contains("not connected to output 1"));
    CHECK_THAT(errors[2], Catch::Contains("cannot be used directly"));
  });
}
