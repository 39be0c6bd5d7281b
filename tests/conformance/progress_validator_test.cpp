// The debug-mode progress validator (SEMANTICS.md §3.10, progress/validate.hpp): operators that
// break the progress protocol, written against the raw `progress::Operate` interface, make the
// computation fail with a `ProgressError` naming the operator, the port, the time and the counts,
// on 1, 2 and 4 workers in both progress modes. Only built programs with the validator on
// (`TIMELY_VALIDATE_PROGRESS`, Debug builds and the dev, asan and tsan presets) check this.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/execute.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/validate.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

#ifdef TIMELY_VALIDATE_PROGRESS

namespace {

using Time = std::uint64_t;

enum class Fault {
  // Drops its initial capability, then keeps reporting records produced at time 5.
  ProducesWithoutCapability,
  // Drops its initial capability, then keeps reporting new capabilities, each at a time before
  // the ones it reported so far (so only the initial capabilities could justify them).
  CapabilityFromNothing,
  // Drops its initial capability twice.
  DropsTwice,
  // Well behaved: downgrades its capability to 5, produces there, then drops it.
  None,
};

// An operator with no inputs and one output that reports exactly what `fault` says.
class Faulty final : public timely::progress::Operate<Time> {
 public:
  Faulty(Fault fault, std::size_t peers, timely::scheduling::Activator activator)
      : fault_(fault), activator_(std::move(activator)), progress_(0, 1) {
    progress_.internals[0].update(0, static_cast<std::int64_t>(peers));
  }
  const std::string& name() const override { return name_; }
  std::size_t inputs() const override { return 0; }
  std::size_t outputs() const override { return 1; }
  timely::progress::Connectivity<Time> connectivity() const override { return {}; }
  std::vector<timely::progress::FrontierInterest> notify_me() const override { return {}; }
  timely::progress::SharedProgress<Time>& progress() override { return progress_; }
  bool schedule() override {
    ++runs_;
    auto& internal = progress_.internals[0];
    auto& produced = progress_.produceds[0];
    switch (fault_) {
      case Fault::ProducesWithoutCapability:
      case Fault::CapabilityFromNothing:
        // Wrong once every worker's drop is visible: nothing holds these times back any more.
        if (runs_ == 1) {
          internal.update(0, -1);
        } else if (runs_ < kPatience) {
          if (fault_ == Fault::ProducesWithoutCapability) {
            produced.update(5, 1);
          } else {
            internal.update(kPatience - runs_, 1);
            minted_.push_back(kPatience - runs_);
          }
        } else {
          for (auto t : minted_) internal.update(t, -1);  // out of patience: leave nothing held
          minted_.clear();
        }
        if (runs_ < kPatience) activator_.activate();
        return false;
      case Fault::DropsTwice:
        // Stays incomplete (and scheduled) so that this worker keeps folding the others' drops:
        // with the count at 0 after its own, the dataflow would otherwise complete here.
        if (runs_ == 1) internal.update(0, -2);
        if (runs_ >= kPatience) return false;
        activator_.activate();
        return true;
      case Fault::None:
        if (runs_ == 1) {
          internal.update(5, 1);
          internal.update(0, -1);
          activator_.activate();
        } else if (runs_ == 2) {
          produced.update(5, 1);
          internal.update(5, -1);
        }
        return false;
    }
    return false;
  }

 private:
  // A bound on how long a broken operator keeps misbehaving, so a build that misses the error
  // fails the test instead of hanging.
  static constexpr std::size_t kPatience = 200000;
  Fault fault_;
  timely::scheduling::Activator activator_;
  timely::progress::SharedProgress<Time> progress_;
  std::string name_ = "Faulty";
  std::size_t runs_ = 0;
  std::vector<Time> minted_;
};

// Builds one dataflow holding a `Faulty` operator (operator 1 of dataflow 0) and runs it to
// completion.
void run_faulty(Fault fault, std::size_t workers, timely::ProgressMode mode) {
  auto config = timely::Config::process(workers);
  config.worker.progress_mode = mode;
  timely::execute(config, [fault](timely::Worker& worker) {
    worker.dataflow<Time>([&](timely::dataflow::Scope<Time>& scope) {
      const std::size_t index = scope.builder().reserve_operator();
      const std::size_t global = scope.worker().new_identifier();
      timely::scheduling::Activator activator(scope.worker().activations(), scope.address_of(index));
      scope.builder().add_operator(index, global, std::make_unique<Faulty>(fault, scope.peers(), activator));
    });
  });
}

// The message of the ProgressError that `run_faulty` throws, or what it did instead.
std::string progress_error(Fault fault, std::size_t workers, timely::ProgressMode mode) {
  try {
    run_faulty(fault, workers, mode);
  } catch (const timely::ProgressError& error) {
    return error.what();
  } catch (const std::exception& error) {
    return std::string("another error: ") + error.what();
  }
  return "no error";
}

template <class F>
void on_every_configuration(F&& check) {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      check(workers, mode);
    }
}

}  // namespace

TEST_CASE("the validator rejects records produced at a time the operator holds no capability for",
          "[conformance][validator]") {
  on_every_configuration([](std::size_t workers, timely::ProgressMode mode) {
    CHECK(
        progress_error(Fault::ProducesWithoutCapability, workers, mode) ==
        "timely: progress error in scope 'Dataflow': operator 'Faulty' at [0, 1] reports +1 records produced "
        "at "
        "output 0, time 5, which nothing justifies: no connected input consumed at or before it in the same "
        "batch (consumed: none), and neither a capability nor an implication at that output is at or before "
        "it "
        "(implications: {})");
  });
}

TEST_CASE("the validator rejects a capability created from nothing", "[conformance][validator]") {
  on_every_configuration([](std::size_t workers, timely::ProgressMode mode) {
    CHECK_THAT(
        progress_error(Fault::CapabilityFromNothing, workers, mode),
        Catch::Matchers::StartsWith("timely: progress error in scope 'Dataflow': operator 'Faulty' at [0, 1] "
                                    "reports +1 capabilities at output 0, time ") &&
            Catch::Matchers::Contains(", which nothing justifies"));
  });
}

TEST_CASE("the validator rejects a capability dropped twice (a negative count)", "[conformance][validator]") {
  on_every_configuration([](std::size_t workers, timely::ProgressMode mode) {
    // Every worker drops 2 of the 1 it holds: once more than half of the drops are folded, the
    // count at (output 0, time 0) is negative.
    CHECK_THAT(
        progress_error(Fault::DropsTwice, workers, mode),
        Catch::Matchers::StartsWith("timely: progress error in scope 'Dataflow': operator 'Faulty' at [0, 1] "
                                    "holds -") &&
            Catch::Matchers::EndsWith(" capabilities at output 0, time 0 (a capability dropped more often "
                                      "than it was created)"));
  });
}

TEST_CASE("the validator accepts the same operator when it keeps the protocol", "[conformance][validator]") {
  on_every_configuration([](std::size_t workers, timely::ProgressMode mode) {
    CHECK_NOTHROW(run_faulty(Fault::None, workers, mode));
  });
}

TEST_CASE("the validator accepts an input handle's and a probe's reports", "[conformance][validator]") {
  // A positive control through the ordinary operators: advancing, sending and closing.
  on_every_configuration([](std::size_t workers, timely::ProgressMode mode) {
    auto config = timely::Config::process(workers);
    config.worker.progress_mode = mode;
    CHECK_NOTHROW(timely::execute(config, [](timely::Worker& worker) {
      timely::dataflow::InputHandle<Time, int> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>(
          [&](auto& scope) { input.to_stream(scope) | timely::dataflow::operators::probe_with(probe); });
      for (Time t = 0; t < 10; ++t) {
        input.send(static_cast<int>(t));
        input.advance_to(t + 1);
        while (probe.less_than(t + 1)) worker.step();
      }
      input.close();
    }));
  });
}

#endif  // TIMELY_VALIDATE_PROGRESS
