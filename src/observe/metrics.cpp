// metrics_text: a Snapshot in the Prometheus text exposition format (see metrics.hpp).
#include <timely/observe/metrics.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace timely::observe {

std::string escape_label_value(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

namespace {

using Labels = std::vector<std::pair<const char*, std::string>>;

std::string joined(const std::vector<std::size_t>& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += '.';
    out += std::to_string(path[i]);
  }
  return out;
}

std::string seconds(Nanos t) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9f", static_cast<double>(t.count()) / 1e9);
  return text;
}

class Writer {
 public:
  void family(const char* name, const char* type, const char* help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += help;
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
  }
  void sample(const char* name, const Labels& labels, const std::string& value) {
    out_ += name;
    if (!labels.empty()) {
      out_ += '{';
      for (std::size_t i = 0; i < labels.size(); ++i) {
        if (i > 0) out_ += ',';
        out_ += labels[i].first;
        out_ += "=\"";
        out_ += escape_label_value(labels[i].second);
        out_ += '"';
      }
      out_ += '}';
    }
    out_ += ' ';
    out_ += value;
    out_ += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

Labels operator_labels(const OperatorState& op) {
  return {{"worker", std::to_string(op.worker)},
          {"operator", std::to_string(op.id)},
          {"address", joined(op.address)},
          {"name", op.name}};
}

Labels channel_labels(const ChannelState& ch) {
  return {{"channel", std::to_string(ch.id)},
          {"scope", joined(ch.scope_address)},
          {"source", std::to_string(ch.source.first) + ":" + std::to_string(ch.source.second)},
          {"target", std::to_string(ch.target.first) + ":" + std::to_string(ch.target.second)}};
}

template <class F>
void per_operator(Writer& w, const Snapshot& s, const char* name, const char* type, const char* help,
                  F value) {
  w.family(name, type, help);
  for (const auto& op : s.operators) w.sample(name, operator_labels(op), value(op));
}

}  // namespace

std::string metrics_text(const Snapshot& s) {
  Writer w;
  for (const auto& [name, help, records] :
       {std::tuple{"timely_channel_records_total", "Records sent on a channel, summed over workers.", true},
        std::tuple{"timely_channel_batches_total", "Batches sent on a channel, summed over workers.",
                   false}}) {
    w.family(name, "counter", help);
    for (const auto& ch : s.channels)
      w.sample(name, channel_labels(ch), std::to_string(records ? ch.records : ch.batches));
  }
  per_operator(w, s, "timely_operator_schedules_total", "counter", "Completed schedulings of an operator.",
               [](const OperatorState& op) { return std::to_string(op.schedules); });
  per_operator(w, s, "timely_operator_schedule_seconds_total", "counter", "Time an operator was scheduled.",
               [](const OperatorState& op) { return seconds(op.busy); });
  per_operator(w, s, "timely_operator_received_records_total", "counter",
               "Records an operator received on its inputs.",
               [](const OperatorState& op) { return std::to_string(op.records_in); });
  per_operator(w, s, "timely_operator_sent_records_total", "counter",
               "Records an operator sent from its outputs.",
               [](const OperatorState& op) { return std::to_string(op.records_out); });

  // The most advanced frontier element anywhere: the reference point of every input's lag.
  std::optional<std::uint64_t> latest;
  for (const auto& op : s.operators)
    for (const auto& frontier : op.input_frontiers)
      for (auto t : frontier) latest = latest ? std::max(*latest, t) : t;
  w.family("timely_operator_input_frontier_lag", "gauge",
           "Timestamp units by which an input's frontier trails the largest frontier element of any input.");
  for (const auto& op : s.operators)
    for (std::size_t port = 0; port < op.input_frontiers.size(); ++port) {
      const auto& frontier = op.input_frontiers[port];
      if (frontier.empty() || !latest) continue;
      auto labels = operator_labels(op);
      labels.emplace_back("port", std::to_string(port));
      w.sample("timely_operator_input_frontier_lag", labels,
               std::to_string(*latest - *std::min_element(frontier.begin(), frontier.end())));
    }
  w.family("timely_operator_capabilities", "gauge", "Capabilities an operator holds at an output.");
  for (const auto& op : s.operators)
    for (std::size_t port = 0; port < op.capabilities.size(); ++port) {
      std::int64_t held = 0;
      for (const auto& [time, count] : op.capabilities[port]) held += count;
      auto labels = operator_labels(op);
      labels.emplace_back("port", std::to_string(port));
      w.sample("timely_operator_capabilities", labels, std::to_string(held));
    }

  w.family("timely_worker_busy_seconds_total", "counter", "Time a worker spent scheduling dataflows.");
  for (const auto& wk : s.workers)
    w.sample("timely_worker_busy_seconds_total", {{"worker", std::to_string(wk.worker)}}, seconds(wk.busy));
  w.family("timely_worker_parked_seconds_total", "counter", "Time a worker spent parked, waiting for work.");
  for (const auto& wk : s.workers)
    w.sample("timely_worker_parked_seconds_total", {{"worker", std::to_string(wk.worker)}},
             seconds(wk.parked));

  using Field = std::uint64_t PeerState::*;
  for (const auto& [name, help, field] :
       {std::tuple<const char*, const char*, Field>{"timely_peer_sent_bytes_total",
                                                    "Bytes sent to a peer process.", &PeerState::bytes_sent},
        std::tuple<const char*, const char*, Field>{"timely_peer_received_bytes_total",
                                                    "Bytes received from a peer process.",
                                                    &PeerState::bytes_received},
        std::tuple<const char*, const char*, Field>{
            "timely_peer_sent_frames_total", "Frames sent to a peer process.", &PeerState::frames_sent},
        std::tuple<const char*, const char*, Field>{"timely_peer_received_frames_total",
                                                    "Frames received from a peer process.",
                                                    &PeerState::frames_received}}) {
    w.family(name, "counter", help);
    for (const auto& p : s.peers)
      w.sample(name, {{"process", std::to_string(p.process)}, {"peer", std::to_string(p.peer)}},
               std::to_string(p.*field));
  }
  w.family("timely_peer_connected", "gauge",
           "Whether the connection to a peer process is up (1) or not (0).");
  for (const auto& p : s.peers)
    w.sample("timely_peer_connected",
             {{"process", std::to_string(p.process)}, {"peer", std::to_string(p.peer)}},
             p.connected ? "1" : "0");

  w.family("timely_log_time_seconds", "gauge", "The latest time any worker reported, on the logging clock.");
  w.sample("timely_log_time_seconds", {}, seconds(s.now));
  return w.take();
}

}  // namespace timely::observe
