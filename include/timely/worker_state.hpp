/// \file
/// `WorkerState`: what every scope and operator of one worker shares: its allocator, its
/// activations, the identifier counter, the map from channel identifier to the address of the
/// operator that consumes it, and the worker configuration.
///
/// Source: the reference's `worker::Worker` internals (SEMANTICS.md §5.1-§5.2, §5.9).
/// Thread-safety: none; a worker state lives on its worker thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/allocator.hpp>
#include <timely/error.hpp>
#include <timely/logging/logger.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely {

/// When a scope broadcasts its progress updates to the other workers.
enum class ProgressMode {
  /// After every scheduling of the scope: lowest latency, most traffic.
  Eager,
  /// Only when an update could advance some frontier (a decrement at a pointstamp that may be
  /// the last one holding a frontier back), or concerns the scope boundary. The reference's
  /// default since 0.12 (SEMANTICS.md §3.9).
  Demand,
};

/// Per-worker settings.
struct WorkerConfig {
  ProgressMode progress_mode = ProgressMode::Demand;
  /// The instant log events are timed from (`logging::Duration` since it). `execute` sets it
  /// once for all the workers of a process, so their events share one clock; unset, each
  /// worker starts its own clock when it is made.
  std::optional<std::chrono::steady_clock::time_point> log_start;
};

/// The shared state of one worker. Scopes and operators hold a reference to it; the `Worker`
/// owns it and outlives every dataflow it builds.
class WorkerState {
 public:
  WorkerState(communication::Allocator allocator, WorkerConfig config);

  /// This worker's index in `0..peers()`.
  [[nodiscard]] std::size_t index() const noexcept { return allocator_.index(); }
  /// The number of workers in the computation.
  [[nodiscard]] std::size_t peers() const noexcept { return allocator_.peers(); }
  /// A fresh identifier for an operator, channel or scope (the same sequence on every worker).
  std::size_t new_identifier() noexcept { return next_identifier_++; }
  [[nodiscard]] std::size_t peek_identifier() const noexcept { return next_identifier_; }

  [[nodiscard]] communication::Allocator& allocator() noexcept { return allocator_; }
  [[nodiscard]] const std::shared_ptr<scheduling::Activations>& activations() const noexcept {
    return activations_;
  }
  [[nodiscard]] const WorkerConfig& config() const noexcept { return config_; }
  /// This worker's log streams; register actions before building the dataflows to observe.
  [[nodiscard]] logging::Registry& log_registry() noexcept { return log_registry_; }

  /// Records that activity on `channel` should activate the operator at `address`.
  void register_channel(std::size_t channel, scheduling::Path address);
  /// Forgets `channel` (its dataflow was dropped); late events for it are ignored.
  void unregister_channel(std::size_t channel);

  /// Receives from the allocator and activates the consumers of every channel that saw activity.
  /// \throws WorkerAborted if another worker of this process failed.
  void receive();

 private:
  communication::Allocator allocator_;
  std::shared_ptr<scheduling::Activations> activations_;
  WorkerConfig config_;
  std::size_t next_identifier_ = 0;
  std::vector<std::optional<scheduling::Path>> channel_addresses_;
  logging::Registry log_registry_;
};

}  // namespace timely
