/// \file
/// `WorkerState`: what every scope and operator of one worker shares: its allocator, its
/// activations, the identifier counter, the map from channel identifier to the address of the
/// operator that consumes it, and the worker configuration. Also `DataflowShape`, what each
/// worker tells the others about every dataflow it builds (and, once its closure returned, how
/// many it built), so that workers that built different dataflows, or different numbers of
/// them, fail with an error instead of waiting for each other for ever.
///
/// Source: the reference's `worker::Worker` internals (SEMANTICS.md §5.1-§5.2, §5.9); the
/// comparison of dataflow shapes is our own (the reference panics or hangs).
/// Thread-safety: none; a worker state lives on its worker thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <timely/communication/allocator.hpp>
#include <timely/communication/error.hpp>
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

/// What one worker built as one top-level dataflow, in the terms every worker must agree on:
/// the identifiers its build took (operators, channels and scopes draw them from one counter,
/// and channels are matched across workers by identifier), the channels its operators read
/// and how each channel was allocated (pact and element type).
/// Operator names are not compared: a program may name operators after their worker.
/// With `last` set it describes no dataflow: the worker's closure returned after it built
/// `index` dataflows, and it builds no more (a worker that builds more fails).
struct DataflowShape {
  std::uint64_t worker = 0;             ///< the worker that built it
  std::uint64_t index = 0;              ///< the dataflow's index (0, 1, ... in build order)
  bool last = false;                    ///< not a dataflow: the worker built `index` in all
  std::uint64_t first_identifier = 0;   ///< the dataflow's own identifier
  std::uint64_t identifiers = 0;        ///< identifiers its build took, its own included
  std::vector<std::uint64_t> channels;  ///< the channels its operators read, in order
  std::string timestamp;                ///< its timestamp type, by encoding (`Codec<T>::name()`)
  /// The channels it allocated, in order, each with its kind and element type
  /// (`communication::ChannelUse`): a pipeline where another worker exchanges, or records of
  /// another type, would otherwise hang or be misread.
  std::vector<std::pair<std::uint64_t, std::string>> allocations;
};

/// The shared state of one worker. Scopes and operators hold a reference to it; the `Worker`
/// owns it and outlives every dataflow it builds.
class WorkerState {
 public:
  WorkerState(communication::Allocator allocator, WorkerConfig config);
  ~WorkerState();
  WorkerState(const WorkerState&) = delete;
  WorkerState& operator=(const WorkerState&) = delete;

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
  /// The channels registered now: those of the dataflows installed, not of every one ever built.
  [[nodiscard]] std::size_t registered_channels() const noexcept;

  /// Receives from the allocator and activates the consumers of every channel that saw activity.
  /// \throws WorkerAborted if another worker of this process failed; DataflowError if another
  /// worker built a dataflow of a different shape than this one's (`built_dataflow`).
  void receive();

  /// Records that this worker built dataflow `index`, whose build took the identifiers from
  /// `first_identifier` to `peek_identifier()` and allocated `channels`, with timestamps whose
  /// codec's name is `timestamp` (`communication::Codec<T>::name()`), and tells the other
  /// workers (over a broadcast channel of its own, identifier `shape_channel`). Each worker
  /// compares every other worker's shape of each dataflow with its own, whichever is built first.
  /// \throws DataflowError naming both shapes if a worker already told a different one.
  void built_dataflow(std::size_t index, std::size_t first_identifier,
                      const std::vector<std::size_t>& channels, std::string timestamp);

  /// Reads and compares the shapes other workers told since the last `receive`. A step that
  /// failed calls it before passing its error on: a progress update or record that a differently
  /// built dataflow sent can fail an operator before `receive` saw the shape sent ahead of it
  /// (operators read their channels directly), and the shapes explain such a failure better.
  /// \throws DataflowError naming both shapes and `failure` (the step's error) on a mismatch.
  void check_shapes(const std::string& failure);

  /// Records that this worker builds no dataflows after the `built` it has (its closure
  /// returned), and tells the other workers, so that one that builds more (or that already has)
  /// fails naming both counts, instead of waiting for ever for this one's share of it.
  /// \throws DataflowError if another worker already told a shape of dataflow `built` or later.
  void finished_building(std::size_t built);

  /// The channel identifier the dataflow shapes travel on: outside the identifiers that
  /// `new_identifier` hands out, so that it changes no dataflow's numbering. Reserved.
  static constexpr std::size_t shape_channel = std::size_t{1} << 62;

 private:
  communication::Allocator allocator_;
  std::shared_ptr<scheduling::Activations> activations_;
  WorkerConfig config_;
  std::size_t next_identifier_ = 0;
  // By channel identifier, erased when a channel goes: identifiers only grow, so a vector
  // indexed by them would grow with every dataflow ever built. A flat hash map (looked up for
  // every channel event), defined in the source file to keep its header out of this one.
  struct ChannelAddresses;
  std::unique_ptr<ChannelAddresses> channel_addresses_;
  logging::Registry log_registry_;

  // Dataflow shapes (several workers only). Allocated with this worker's first dataflow.
  void receive_shapes(const std::string& failure = {});
  // `failure`, if not empty, is an error this worker met that the mismatch explains.
  void compare(const DataflowShape& theirs, const std::string& failure = {});
  void allocate_shape_channel();
  // A worker's closure returned after `finished` dataflows; this one built (at least) `built`.
  [[noreturn]] void too_many(std::uint64_t worker, std::uint64_t finished, std::uint64_t other,
                             std::uint64_t built) const;
  struct Shapes {
    std::optional<DataflowShape> mine;
    std::vector<DataflowShape> early;  // other workers' shapes that came before this one's build
    std::size_t compared = 0;          // other workers' shapes found equal to mine
  };
  std::unique_ptr<communication::Push<DataflowShape>> shape_push_;
  std::unique_ptr<communication::Pull<DataflowShape>> shape_pull_;
  std::map<std::uint64_t, Shapes> shapes_;  // by dataflow index, until every worker's matched
  bool shapes_arrived_ = false;             // an event on shape_channel before it was allocated
  std::uint64_t built_ = 0;                 // dataflows this worker built (the next index)
  std::optional<std::uint64_t> finished_;   // the dataflows this worker built in all, once known
  // Other workers that finished building: (worker, dataflows it built in all).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> peers_finished_;
};

}  // namespace timely
