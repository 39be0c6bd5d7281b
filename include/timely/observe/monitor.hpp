/// \file
/// The live monitor: `Monitor` keeps one observation `Model` (model.hpp) per local worker, fed by
/// logging actions the worker registers for "timely" and "timely/frontier/u64" (and
/// "communication", for bytes per peer), and serves them
/// over HTTP/1.1 on its own thread: `/` a self-contained page (graph, frontiers and
/// capabilities, worker time, a timeline of schedulings; it polls the JSON once a second),
/// `/api/state` the merged `Snapshot` as JSON (`to_json`), `/metrics` the Prometheus text
/// format (`metrics_text`, metrics.hpp); anything else is 404. `execute` starts one for
/// `Config::monitor` (`--monitor HOST:PORT`, execute.hpp).
///
/// Cost on the workers: an action takes its worker's model mutex with `try_lock` once per batch
/// of events and adds them to the model; if a request holds the lock it keeps the batch for the
/// next one instead, so a worker never waits for the HTTP thread. Flushes (empty batches) are
/// noted and folded in at most once a millisecond of log time. A request takes each model's
/// mutex for the time of one `Model::snapshot()`.
///
/// Several processes: the monitor of process 0 listens; the others are made with
/// `Options::listen = false` and their local snapshots (`local_snapshot`) are carried to process
/// 0 by the caller, which hands them over with `set_remote` (execute does this over the
/// computation's own connections).
///
/// Source: Flink's and Arroyo's web consoles and the reference's `tdiag` (SEMANTICS.md §8), on
/// the reference's logging streams. Thread-safety: the actions of worker `w` must run on one
/// thread at a time (its worker thread); every other member may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/observe/model.hpp>

namespace timely::observe {

/// An HTTP server showing the state of this process's workers (and, on process 0, of the
/// other processes' snapshots it is given).
class Monitor {
 public:
  struct Options {
    /// This process's workers are `first_worker .. first_worker + workers - 1` (global indices).
    std::size_t workers = 1;
    std::size_t first_worker = 0;
    /// Whether to listen (process 0) or only collect (the other processes).
    bool listen = true;
    /// How much of the schedule timeline is kept per worker (the page shows the last seconds),
    /// and at most how many spans (the latest): a worker that schedules a million times a
    /// second would otherwise keep millions and send megabytes a second.
    Nanos timeline_window = std::chrono::seconds(10);
    std::size_t timeline_limit = 4000;
  };

  /// Starts listening at `address`, "HOST:PORT" (IPv6 as "[ADDR]:PORT"; port 0: one the system
  /// picks, see `port()`), unless `options.listen` is false (then `address` is only checked).
  /// \throws ConfigError naming `address` if it is not HOST:PORT with a port 0..65535 or the
  /// host does not resolve; communication::NetworkError naming it if it cannot be listened on
  /// (the port is in use, say).
  Monitor(const std::string& address, Options options);
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;
  /// Stops the server (open connections are closed) and joins its thread.
  ~Monitor();

  /// The port listened on (the system's choice for port 0); 0 when not listening.
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// "HOST:PORT" as listened on (the resolved address and `port()`); empty when not listening.
  [[nodiscard]] std::string address() const;

  /// The actions to register for local worker `worker` (global index) under "timely" and
  /// "timely/frontier/u64". `take`: the action may move the events out of the batch (it is
  /// the batch's last reader); otherwise it copies them. \throws ConfigError if `worker` is not
  /// one of this process's.
  [[nodiscard]] logging::Action<logging::TimelyEvent> timely_action(std::size_t worker, bool take);
  [[nodiscard]] logging::Action<logging::FrontierEvent<std::uint64_t>> frontier_action(std::size_t worker,
                                                                                       bool take);
  /// The action to register for "communication" on the worker that logs it (local worker 0 of
  /// a cluster process): each event replaces that peer's `PeerState` (its counts are cumulative).
  /// It may run on any thread, also after `finish` (the runtime's last events come after the
  /// connections closed). \throws ConfigError as `timely_action`.
  [[nodiscard]] logging::Action<logging::CommunicationEvent> communication_action(std::size_t worker);
  /// Folds in what worker `worker`'s actions buffered, waiting for the lock; afterwards its
  /// actions fold every batch at once. Call on that worker's thread after its last step.
  void finish(std::size_t worker);

  /// This process's workers, merged.
  [[nodiscard]] Snapshot local_snapshot() const;
  /// Replaces what process `process` last reported (its `local_snapshot`).
  void set_remote(std::size_t process, Snapshot snapshot);
  /// Everything: this process's workers and the remote snapshots, merged.
  [[nodiscard]] Snapshot snapshot() const;
  /// Requests answered so far (any path).
  [[nodiscard]] std::uint64_t requests() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The monitor page: one HTML document with its style and script inline (no network access).
[[nodiscard]] std::string_view monitor_page();

}  // namespace timely::observe
