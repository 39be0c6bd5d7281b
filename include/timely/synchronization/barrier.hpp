/// \file
/// `timely::synchronization::Barrier`: a barrier across all workers of a computation, built on
/// a tiny dataflow. `wait()` returns on a worker only once every worker has called `wait()` as
/// many times; meanwhile it keeps stepping the worker, so every other dataflow makes progress.
///
/// Use (every worker constructs its barrier at the same point, like any dataflow):
///     timely::synchronization::Barrier barrier(worker);
///     for (...) { do_round(); barrier.wait(); }
///
/// How: the barrier owns an `InputHandle<std::uint64_t, Unit>` feeding a probe. Round r's
/// `wait()` advances the input to r + 1 and steps the worker until the probe's frontier reaches
/// r + 1, which happens only when every worker's input has reached r + 1. No records are sent.
///
/// Holds the worker (by reference: the barrier must not outlive it), the input handle and the
/// probe. Every worker must call `wait()` the same number of times; a worker that stops calling
/// it makes the others wait forever. Destroying the barrier closes its input, and the dataflow
/// completes once every worker destroyed its barrier.
///
/// The barrier's dataflow is compiled once, in the library (src/core/barrier.cpp): a program that
/// includes this header does not instantiate the input, probe and subgraph templates it uses.
///
/// Source of the idea: the reference's `synchronization::barrier` (SEMANTICS.md §10.4).
/// Thread-safety: none; use a barrier on its worker's thread.
#pragma once

#include <cstdint>
#include <memory>

namespace timely {
class Worker;
}  // namespace timely

namespace timely::synchronization {

/// A worker-wide barrier (see the file comment).
class Barrier {
 public:
  /// Builds the barrier's dataflow in `worker`. Every worker must construct its barrier at the
  /// same point of its program.
  explicit Barrier(Worker& worker);
  Barrier(const Barrier&) = delete;
  Barrier& operator=(const Barrier&) = delete;
  Barrier(Barrier&&) noexcept;
  Barrier& operator=(Barrier&&) noexcept;
  /// Closes the barrier's input (see the file comment).
  ~Barrier();

  /// Waits, stepping the worker, until every worker has called `wait()` this many times.
  /// \throws whatever stepping the worker throws (e.g. `WorkerAborted` when another worker failed).
  void wait();

  /// Starts the next round without waiting for it (`wait()` is `advance()` then stepping until
  /// `reached()`).
  void advance();

  /// Whether every worker has started the current round (the probe is not behind this worker's
  /// input).
  [[nodiscard]] bool reached() const;

  /// Number of rounds this worker has started.
  [[nodiscard]] std::uint64_t rounds() const noexcept;

 private:
  struct State;
  Worker* worker_;
  std::unique_ptr<State> state_;
};

}  // namespace timely::synchronization
