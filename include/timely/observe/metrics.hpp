/// \file
/// `metrics_text`: a `Snapshot` (model.hpp) in the Prometheus text exposition format (0.0.4),
/// as the monitor serves it at `/metrics`. Every family has `# HELP` and `# TYPE` lines; names
/// start with `timely_`, counters end in `_total`, times are seconds; label values are escaped
/// (backslash, double quote, newline). The families:
/// - `timely_channel_records_total`, `timely_channel_batches_total` {channel, scope, source,
///   target}: records and batches sent on each channel (summed over workers; `scope` is the
///   scope's address joined by '.', `source`/`target` are "NODE:PORT" within it);
/// - `timely_operator_schedules_total`, `timely_operator_schedule_seconds_total`,
///   `timely_operator_received_records_total`, `timely_operator_sent_records_total` {worker,
///   operator, address, name}: completed schedulings, time scheduled, records in and out, per
///   operator and worker (`operator` is the worker-unique id, `address` joined by '.');
/// - `timely_operator_input_frontier_lag` {worker, operator, address, name, port}, a gauge in
///   timestamp units: the largest frontier element of any operator input in the snapshot minus
///   the least element of this input's frontier (how far this input trails the most advanced
///   one; inputs whose frontier is empty, i.e. complete, have no sample);
/// - `timely_operator_capabilities` {worker, operator, address, name, port}: capabilities held
///   at each output (the sum of their counts);
/// - `timely_worker_busy_seconds_total`, `timely_worker_parked_seconds_total` {worker};
/// - `timely_peer_sent_bytes_total`, `timely_peer_received_bytes_total`,
///   `timely_peer_sent_frames_total`, `timely_peer_received_frames_total`, and the gauge
///   `timely_peer_connected` {process, peer}: from `Snapshot::peers` (no samples when empty);
/// - `timely_log_time_seconds`: the snapshot's `now`, the logging clock (seconds since start).
///
/// Source: the Prometheus exposition format and naming conventions (prometheus.io/docs).
/// Thread-safety: a pure function.
#pragma once

#include <string>

#include <timely/observe/model.hpp>

namespace timely::observe {

/// The Prometheus text of `snapshot` (families as listed above, each once, in that order).
[[nodiscard]] std::string metrics_text(const Snapshot& snapshot);

/// `value` escaped for a label value of the text format: `\` -> `\\`, `"` -> `\"`, newline ->
/// `\n`.
[[nodiscard]] std::string escape_label_value(const std::string& value);

}  // namespace timely::observe
