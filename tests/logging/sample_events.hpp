// For the logging tests: field-by-field equality of the events of
// timely/logging/timely_events.hpp (plain structs without comparisons; in the events' namespace,
// so that std::variant's == and Catch's CHECK find them), and sample events of every kind.
#pragma once

#include <timely/logging/timely_events.hpp>

#include <chrono>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

namespace timely::logging {

inline bool operator==(const OperatesEvent& a, const OperatesEvent& b) {
  return std::tie(a.id, a.address, a.name) == std::tie(b.id, b.address, b.name);
}
inline bool operator==(const ChannelsEvent& a, const ChannelsEvent& b) {
  return std::tie(a.id, a.scope_address, a.source, a.target, a.container) ==
         std::tie(b.id, b.scope_address, b.source, b.target, b.container);
}
inline bool operator==(const PushProgressEvent& a, const PushProgressEvent& b) { return a.op_id == b.op_id; }
inline bool operator==(const MessagesEvent& a, const MessagesEvent& b) {
  return std::tie(a.is_send, a.channel, a.source, a.target, a.seq_no, a.record_count) ==
         std::tie(b.is_send, b.channel, b.source, b.target, b.seq_no, b.record_count);
}
inline bool operator==(const ScheduleEvent& a, const ScheduleEvent& b) {
  return std::tie(a.id, a.start) == std::tie(b.id, b.start);
}
inline bool operator==(const ShutdownEvent& a, const ShutdownEvent& b) { return a.id == b.id; }
inline bool operator==(const CommChannelsEvent& a, const CommChannelsEvent& b) {
  return std::tie(a.identifier, a.kind) == std::tie(b.identifier, b.kind);
}
inline bool operator==(const ParkEvent& a, const ParkEvent& b) {
  return std::tie(a.park, a.timeout) == std::tie(b.park, b.timeout);
}
inline bool operator==(const TextEvent& a, const TextEvent& b) { return a.text == b.text; }

template <class T>
bool operator==(const ProgressEvent<T>& a, const ProgressEvent<T>& b) {
  return std::tie(a.is_send, a.source, a.channel, a.seq_no, a.identifier, a.messages, a.internal) ==
         std::tie(b.is_send, b.source, b.channel, b.seq_no, b.identifier, b.messages, b.internal);
}
template <class T>
bool operator==(const TrackerEvent<T>& a, const TrackerEvent<T>& b) {
  return std::tie(a.is_source, a.tracker_id, a.updates) == std::tie(b.is_source, b.tracker_id, b.updates);
}
template <class S>
bool operator==(const OperatesSummaryEvent<S>& a, const OperatesSummaryEvent<S>& b) {
  return std::tie(a.id, a.summary) == std::tie(b.id, b.summary);
}
template <class T>
bool operator==(const FrontierEvent<T>& a, const FrontierEvent<T>& b) {
  return std::tie(a.id, a.port, a.is_input, a.updates) == std::tie(b.id, b.port, b.is_input, b.updates);
}

/// Events of the "timely" stream: every alternative, with empty, extreme and long fields.
inline std::vector<TimelyEvent> sample_timely_events() {
  using namespace std::chrono_literals;
  const std::string long_name(70000, 'x');  // longer than a u16 length would hold
  return {
      OperatesEvent{7, {0, 3, 1}, "Map"},
      OperatesEvent{0, {}, ""},
      OperatesEvent{std::numeric_limits<std::size_t>::max(), {5}, long_name},
      ChannelsEvent{12, {0, 3}, {1, 0}, {2, 4}, "Vec<u64>"},
      ChannelsEvent{0, {}, {0, 0}, {0, 0}, ""},
      PushProgressEvent{42},
      MessagesEvent{true, 3, 0, 1, 17, 1024},
      MessagesEvent{false, 3, 1, 0, 0, 0},
      ScheduleEvent{9, true},
      ScheduleEvent{9, false},
      ShutdownEvent{11},
      CommChannelsEvent{5, CommChannelKind::Progress},
      CommChannelsEvent{6, CommChannelKind::Data},
      ParkEvent{true, 1500us},
      ParkEvent{true, std::nullopt},
      ParkEvent{false, std::nullopt},
      TextEvent{"hello, log"},
      TextEvent{""},
  };
}

}  // namespace timely::logging
