/// \file
/// The events of the "timely" log stream: what the runtime reports about operators when a
/// program registers an action for that name before building its dataflows.
///
/// Use: `worker.log_register().insert<timely::logging::TimelyEvent>("timely", action);`
/// Source: the reference's `logging::TimelyEvent` (SEMANTICS.md §8.2): the events this runtime emits.
/// Thread-safety: plain values.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace timely::logging {

/// An operator was created: its worker-wide identifier, its address (dataflow index, then the
/// operator's index in each enclosing scope) and its name.
struct OperatesEvent {
  std::size_t id = 0;
  std::vector<std::size_t> address;
  std::string name;
};

/// An operator started (`start == true`) or finished one scheduling.
struct ScheduleEvent {
  std::size_t id = 0;
  bool start = false;
};

/// One event of the "timely" stream.
using TimelyEvent = std::variant<OperatesEvent, ScheduleEvent>;

}  // namespace timely::logging
