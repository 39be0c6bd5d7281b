// Barrier: its dataflow (an input feeding a probe) is built here, so that programs including
// timely/synchronization/barrier.hpp do not instantiate it.
#include <timely/synchronization/barrier.hpp>

#include <chrono>
#include <utility>

#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/worker.hpp>

namespace timely::synchronization {

// The input is declared first so that it is destroyed last, after the probe, as before.
struct Barrier::State {
  dataflow::InputHandle<std::uint64_t, Unit> input;
  dataflow::ProbeHandle<std::uint64_t> probe;
};

Barrier::Barrier(Worker& worker) : worker_(&worker), state_(std::make_unique<State>()) {
  worker.dataflow_named<std::uint64_t>("Barrier", [&](dataflow::Scope<std::uint64_t>& scope) {
    state_->input.to_stream(scope) | dataflow::operators::probe_with(state_->probe);
  });
}

Barrier::Barrier(Barrier&&) noexcept = default;
Barrier& Barrier::operator=(Barrier&&) noexcept = default;
Barrier::~Barrier() = default;

void Barrier::wait() {
  advance();
  while (!reached()) worker_->step_or_park(std::chrono::milliseconds(1));
}

void Barrier::advance() { state_->input.advance_to(state_->input.time() + 1); }

bool Barrier::reached() const { return !state_->probe.less_than(state_->input.time()); }

std::uint64_t Barrier::rounds() const noexcept { return state_->input.time(); }

}  // namespace timely::synchronization
