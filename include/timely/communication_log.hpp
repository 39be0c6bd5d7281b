/// \file
/// `CommunicationLog`: turns a process's connection counters (`communication::NetworkStats`)
/// into the "communication" log stream's `logging::CommunicationEvent`s (timely_events.hpp).
/// Local worker 0 of each process of a cluster holds one when "communication" is registered
/// (`Worker` looks it up with the other loggers, when a dataflow is built), polls it at the end
/// of every step and before parking, and the runtime calls `finish()` once the connections have
/// closed (`execute`, after the network's shutdown), so that the stream's last events carry the
/// final counts.
///
/// Rate: an event per peer whose counters changed, at most every `kInterval`, and at once for a
/// peer whose connection state changed. Polling reads five relaxed atomics per peer; with
/// nothing changed it logs nothing.
///
/// The communication layer cannot log itself (it sits below logging: ARCHITECTURE.md §1), so
/// the counters live there and the events here. Source: our own (the reference's communication
/// layer logs per message; SEMANTICS.md §8.2). Thread-safety: one thread at a time (a worker's,
/// then, for `finish()`, the thread that joined it).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <timely/communication/network_stats.hpp>
#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>

namespace timely {

class CommunicationLog {
 public:
  /// Events at most this often per peer, unless its state changed.
  static constexpr logging::Duration kInterval = std::chrono::milliseconds(10);

  CommunicationLog(std::shared_ptr<const communication::NetworkStats> stats,
                   logging::Logger<logging::CommunicationEvent> logger)
      : stats_(std::move(stats)), logger_(std::move(logger)), logged_(stats_->processes()) {}

  /// Logs the peers whose counters changed since they were last logged, if a state changed or
  /// `kInterval` has passed since the last events. `now`: the logging clock (ns since the
  /// registry's start).
  void poll(logging::Duration now) { log_changes(now, false); }

  /// Logs every change, whatever the interval, and flushes the logger: after the network closed,
  /// these are the final counts.
  void finish() {
    log_changes(logging::Duration::max(), true);
    logger_.flush();
  }

 private:
  void log_changes(logging::Duration now, bool force) {
    bool changed = false;
    bool state_changed = false;
    for (std::size_t peer = 0; peer < logged_.size(); ++peer) {
      const auto current = stats_->peer(peer);
      if (current == logged_[peer]) continue;
      changed = true;
      state_changed = state_changed || current.state != logged_[peer].state;
    }
    if (!changed || (!force && !state_changed && last_ && now - *last_ < kInterval)) return;
    for (std::size_t peer = 0; peer < logged_.size(); ++peer) {
      const auto current = stats_->peer(peer);
      if (current == logged_[peer]) continue;
      logged_[peer] = current;
      logger_.log(logging::CommunicationEvent{
          stats_->process(), peer, current.state == communication::ConnectionState::Connected,
          current.bytes_sent, current.frames_sent, current.bytes_received, current.frames_received});
    }
    last_ = now;
  }

  std::shared_ptr<const communication::NetworkStats> stats_;
  logging::Logger<logging::CommunicationEvent> logger_;
  std::vector<communication::PeerStats> logged_;  // what the last event of each peer said
  std::optional<logging::Duration> last_;         // when events were last logged
};

}  // namespace timely
