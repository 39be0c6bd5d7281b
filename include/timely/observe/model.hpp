/// \file
/// The observation model behind the live monitor and the offline report: `Model` takes the
/// "timely" and "timely/frontier/u64" events of any number of workers (`TimelyEvent`,
/// `FrontierEvent<std::uint64_t>`, timely/logging/timely_events.hpp) and keeps what the pictures
/// show: the dataflow graph (operators by address, scopes as nested groups, channels as edges),
/// records and batches per channel, schedulings and busy time per operator and worker, each
/// operator's input frontiers and held capabilities, worker busy/parked time, and a timeline of
/// schedulings. `Snapshot` is a copy of it at one moment, mergeable across processes, with a JSON
/// form (`to_json` / `snapshot_from_json`, Boost.JSON) that the monitor page and the report read.
///
/// Units: times are nanoseconds on the logging clock (since the computation started, one clock
/// per process); counts are records or batches. Worker indices are the computation's (global).
///
/// Source: the reference's logging streams (SEMANTICS.md §8) and the `tdiag` tool's graph and
/// profile views, extended with frontiers and capabilities. Thread-safety: a `Model` is not
/// synchronized (the monitor keeps one per worker and copies under its own lock); `Snapshot`
/// is a plain value.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <timely/error.hpp>
#include <timely/logging/timely_events.hpp>

namespace timely::observe {

using Nanos = std::chrono::nanoseconds;

/// One operator on one worker (a top-level dataflow counts as an operator with a one-index
/// address: it is scheduled as a unit).
struct OperatorState {
  std::size_t worker = 0;
  std::size_t id = 0;  ///< worker-unique identifier (OperatesEvent::id)
  std::vector<std::size_t> address;
  std::string name;
  std::uint64_t schedules = 0;    ///< completed schedulings
  Nanos busy{0};                  ///< total time scheduled
  std::uint64_t records_in = 0;   ///< records received on its inputs (MessagesEvent, !is_send)
  std::uint64_t records_out = 0;  ///< records sent from its outputs (MessagesEvent, is_send)
  /// Per input port: the frontier (antichain minima of the counts FrontierEvent reported;
  /// empty: complete).
  std::vector<std::vector<std::uint64_t>> input_frontiers;
  /// Per output port: the capabilities held, `(time, count)` with count > 0, ascending time.
  std::vector<std::vector<std::pair<std::uint64_t, std::int64_t>>> capabilities;
  bool shut_down = false;

  friend bool operator==(const OperatorState&, const OperatorState&) = default;
};

/// One channel, summed over the workers that reported it.
struct ChannelState {
  std::size_t id = 0;
  std::vector<std::size_t> scope_address;
  std::pair<std::size_t, std::size_t> source;  ///< (node index in scope, output port)
  std::pair<std::size_t, std::size_t> target;  ///< (node index in scope, input port)
  std::string container;
  std::uint64_t records = 0;  ///< records sent on it
  std::uint64_t batches = 0;  ///< batches sent on it

  friend bool operator==(const ChannelState&, const ChannelState&) = default;
};

/// One worker's time: busy (inside schedulings of top-level dataflows), parked, and the rest.
struct WorkerState {
  std::size_t worker = 0;
  Nanos busy{0};
  Nanos parked{0};      ///< including a park still going on, up to `last_event`
  Nanos last_event{0};  ///< time of the latest event or flush seen
  bool is_parked = false;

  friend bool operator==(const WorkerState&, const WorkerState&) = default;
};

/// One completed scheduling of operator `id` on `worker`.
struct ScheduleSpan {
  std::size_t worker = 0;
  std::size_t id = 0;
  Nanos start{0};
  Nanos stop{0};

  friend bool operator==(const ScheduleSpan&, const ScheduleSpan&) = default;
};

/// Bytes and frames exchanged with one peer process, from the "communication" stream.
struct PeerState {
  std::size_t process = 0;  ///< this process
  std::size_t peer = 0;
  std::uint64_t bytes_sent = 0, bytes_received = 0, frames_sent = 0, frames_received = 0;
  bool connected = false;

  friend bool operator==(const PeerState&, const PeerState&) = default;
};

/// A copy of a model at one moment.
struct Snapshot {
  Nanos now{0};                          ///< the latest time any worker reported
  std::vector<WorkerState> workers;      ///< ascending worker
  std::vector<OperatorState> operators;  ///< ascending (worker, id)
  std::vector<ChannelState> channels;    ///< ascending id
  std::vector<ScheduleSpan> timeline;    ///< ascending start, within the model's window
  std::vector<PeerState> peers;

  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

/// Aggregates events of any number of workers. Feed each worker's events in the order that
/// worker logged them.
class Model {
 public:
  /// `timeline_window`: keep the schedule spans that stopped within this much of the latest
  /// time (`std::nullopt`: keep all, for a report).
  explicit Model(std::optional<Nanos> timeline_window = std::nullopt);

  void add(std::size_t worker, Nanos time, const logging::TimelyEvent& event);
  void add(std::size_t worker, Nanos time, const logging::FrontierEvent<std::uint64_t>& event);
  void add_peer(const PeerState& peer);
  /// A flush at `now` from `worker`: no events of it before `now` are still to come.
  void advance(std::size_t worker, Nanos now);

  [[nodiscard]] Snapshot snapshot() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

/// `into` with `other`'s workers, operators, timeline and peers added (they come from other
/// workers) and channel counts summed by id; `now` the later of the two.
void merge(Snapshot& into, const Snapshot& other);

/// The JSON form (an object with `now_ns`, `workers`, `operators`, `channels`, `timeline`,
/// `peers`; field names as above with `_ns` on times).
[[nodiscard]] std::string to_json(const Snapshot& snapshot);
/// A snapshot's JSON that is not one: the message names the field and what is wrong with it.
class SnapshotFormatError : public timely::Error {
 public:
  using timely::Error::Error;
};

/// \throws SnapshotFormatError naming what is missing or malformed.
[[nodiscard]] Snapshot snapshot_from_json(std::string_view json);

}  // namespace timely::observe
