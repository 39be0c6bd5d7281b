/// \file
/// The events the runtime logs, by stream:
/// - "timely" (`TimelyEvent`): operators, channels, schedulings, messages, parking, shutdown;
/// - "timely/progress/<T>" (`ProgressEvent<T>`): progress batches sent and received;
/// - "timely/reachability/<T>" (`TrackerEvent<T>`): pointstamp changes a scope's tracker applies;
/// - "timely/summary/<S>" (`OperatesSummaryEvent<S>`): each operator's internal path summaries;
/// - "timely/frontier/<T>" (`FrontierEvent<T>`, not in the reference): each operator's input
///   frontier changes and the capabilities it holds, as this worker sees them;
/// - "communication" (`CommunicationEvent`): the state of each connection to another process,
///   and the bytes and frames it carried, logged by local worker 0 of each process.
///
/// `<T>` is the timestamp's name (`timely::timestamp_name<T>()`: `u64`, `Product<u64, u32>`, ...),
/// `<S>` its summary's. Use: register before building the dataflows to watch,
/// `worker.log_register().insert<timely::logging::TimelyEvent>("timely", action);`.
///
/// Identifiers: an operator's `id` is unique on its worker (a top-level dataflow has one too: it
/// is scheduled and shut down as a unit); a channel's `id` is the identifier its messages travel
/// under (the same on every worker). Addresses are paths: the dataflow's index, then the
/// operator's index in each enclosing scope (index 0 of a scope is its boundary: a channel from
/// node 0 port i is the scope's input i, one to node 0 port j its output j).
///
/// Source: the reference's `logging::TimelyEvent`, `TimelyProgressEvent`, `TrackerEvent` and
/// `OperatesSummaryEvent` (SEMANTICS.md §8.2), with the same names and fields; the reference's
/// `CommunicationEvent` logs each message and connection state change, ours the counters of
/// `communication::NetworkStats` (a message per event would cost what the messages do).
/// Thread-safety: plain values.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace timely::logging {

/// An operator was built (or a dataflow: its address is one index long): its worker-unique
/// identifier, its address and its name.
struct OperatesEvent {
  std::size_t id = 0;
  std::vector<std::size_t> address;
  std::string name;
};

/// A channel was connected, in the scope at `scope_address`, from output `source.second` of
/// node `source.first` to input `target.second` of node `target.first`; `container` names the
/// type of its batches.
struct ChannelsEvent {
  std::size_t id = 0;
  std::vector<std::size_t> scope_address;
  std::pair<std::size_t, std::size_t> source;
  std::pair<std::size_t, std::size_t> target;
  std::string container;
};

/// Frontier changes are pending at operator `op_id`: the next scheduling will see them.
struct PushProgressEvent {
  std::size_t op_id = 0;
};

/// A batch of `record_count` records was sent (`is_send`) or received on `channel`, from worker
/// `source` to worker `target`, as the sender's `seq_no`-th batch to that target on the channel.
struct MessagesEvent {
  bool is_send = false;
  std::size_t channel = 0;
  std::size_t source = 0;
  std::size_t target = 0;
  std::size_t seq_no = 0;
  std::size_t record_count = 0;
};

/// Operator (or dataflow) `id` started (`start == true`) or stopped one scheduling.
struct ScheduleEvent {
  std::size_t id = 0;
  bool start = false;
};

/// Operator (or dataflow) `id` was shut down: it completed, or its dataflow was dropped.
struct ShutdownEvent {
  std::size_t id = 0;
};

/// What a communication channel carries.
enum class CommChannelKind : std::uint8_t { Progress, Data };

/// A communication channel was allocated under `identifier` (each scope's progress channel).
struct CommChannelsEvent {
  std::size_t identifier = 0;
  CommChannelKind kind = CommChannelKind::Progress;
};

/// The worker parked (`park == true`, for at most `timeout`, none meaning until woken) or
/// woke up.
struct ParkEvent {
  bool park = false;
  std::optional<std::chrono::nanoseconds> timeout;
};

/// A line of the program's own.
struct TextEvent {
  std::string text;
};

/// One event of the "timely" stream.
using TimelyEvent = std::variant<OperatesEvent, ChannelsEvent, PushProgressEvent, MessagesEvent,
                                 ScheduleEvent, ShutdownEvent, CommChannelsEvent, ParkEvent, TextEvent>;

/// Process `process`'s connection to process `peer`: whether it is `connected` (its handshake
/// done, not yet closed or lost), and what it carried since the handshake, cumulative: bytes
/// and frames (wire.hpp, headers included; heartbeats and end-of-stream frames too) sent to
/// `peer` and received from it. Logged by local worker 0 of each process, one event per peer
/// whose counters or state changed: when it connects, at the end of a step at most every 10 ms,
/// on a state change, and once after the connections closed (the last events of the stream:
/// then what one side reports sent equals what the other reports received).
struct CommunicationEvent {
  std::size_t process = 0;
  std::size_t peer = 0;
  bool connected = false;
  std::uint64_t bytes_sent = 0;
  std::uint64_t frames_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t frames_received = 0;

  friend bool operator==(const CommunicationEvent&, const CommunicationEvent&) = default;
};

/// A pointstamp change at input or output `port` of `node`: `(node, port, time, diff)`.
template <class T>
using PointUpdate = std::tuple<std::size_t, std::size_t, T, std::int64_t>;

/// A progress batch of the scope with identifier `identifier` (the scope's operator id; a
/// dataflow's for a top-level scope), sent (`is_send`) by worker `source` or received from it on
/// progress channel `channel` as its `seq_no`-th batch: record counts at operator inputs
/// (`messages`) and capability changes at operator outputs (`internal`).
template <class T>
struct ProgressEvent {
  bool is_send = false;
  std::size_t source = 0;
  std::size_t channel = 0;
  std::size_t seq_no = 0;
  std::size_t identifier = 0;
  std::vector<PointUpdate<T>> messages;
  std::vector<PointUpdate<T>> internal;
};

/// Changes applied to the reachability tracker of the scope `tracker_id`, at operator outputs
/// (`is_source`: capabilities) or inputs (records in flight), at each propagation. A tracker
/// torn down with live counts (its dataflow dropped) retracts them, so a stream sums to zero.
template <class T>
struct TrackerEvent {
  bool is_source = false;
  std::size_t tracker_id = 0;
  std::vector<PointUpdate<T>> updates;
};

/// Operator `id`'s internal summaries, once when its scope is built: for each input, the
/// outputs it reaches and the antichain of path summaries along which it does.
template <class S>
struct OperatesSummaryEvent {
  std::size_t id = 0;
  std::vector<std::vector<std::pair<std::size_t, std::vector<S>>>> summary;
};

/// Operator `id` sees its input `port`'s frontier change (`is_input`: the counts of pointstamps
/// that could reach it, whose minima are the frontier) or changes the capabilities it holds at
/// output `port` (its own, on this worker), by `updates` of `(time, diff)`.
template <class T>
struct FrontierEvent {
  std::size_t id = 0;
  std::size_t port = 0;
  bool is_input = false;
  std::vector<std::pair<T, std::int64_t>> updates;
};

}  // namespace timely::logging
