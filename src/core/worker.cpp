// Worker::step_or_park, the per-round driver (SEMANTICS.md §5.9), and the dataflow bookkeeping.
#include <timely/worker.hpp>

#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace timely {

bool Worker::step_or_park(std::optional<std::chrono::nanoseconds> timeout) {
  auto& activations = *state_->activations();
  state_->receive();
  activations.advance();

  if (activations.idle()) {
    // Park for at most `timeout`, and no longer than until the next delayed activation.
    std::optional<std::chrono::nanoseconds> delay = timeout;
    if (auto until = activations.empty_for()) {
      const auto next = std::chrono::duration_cast<std::chrono::nanoseconds>(*until);
      delay = delay ? std::min(*delay, next) : next;
    }
    if (!delay || delay->count() > 0) {
      if (logger_) logger_->log(logging::ParkEvent{true, delay});
      flush_logs();  // nothing happens while parked: publish what we have
      state_->allocator().await_events(delay);
      if (logger_) logger_->log(logging::ParkEvent{false, std::nullopt});
    } else {
      // A caller polling with step() has nothing to do now: give the core to another thread
      // (with more workers than cores, spinning would starve the ones that have work).
      std::this_thread::yield();
    }
    return has_dataflows();
  }

  active_.clear();
  const scheduling::Path root;
  activations.for_extensions(root, [&](std::size_t index) { active_.push_back(index); });
  for (auto index : active_) {
    auto it = dataflows_.find(index);
    if (it == dataflows_.end()) continue;  // a path of a completed or dropped dataflow
    scheduling_ = index;
    bool incomplete = false;
    const std::size_t id = it->second.id;
    if (logger_) logger_->log(logging::ScheduleEvent{id, true});
    try {
      incomplete = it->second.root->schedule();
    } catch (const std::exception& e) {
      scheduling_.reset();
      // A dataflow built differently elsewhere explains the failure better than its symptom.
      state_->check_shapes(e.what());
      throw;
    } catch (...) {
      scheduling_.reset();
      throw;
    }
    if (logger_) logger_->log(logging::ScheduleEvent{id, false});
    scheduling_.reset();
    if (!incomplete) {
      for (auto channel : it->second.channels) state_->unregister_channel(channel);
      dataflows_.erase(it);
      if (logger_) logger_->log(logging::ShutdownEvent{id});
    }
  }
  state_->allocator().release();
  flush_logs();  // a step's events are published at its end
  return has_dataflows();
}

std::vector<std::size_t> Worker::installed_dataflows() const {
  std::vector<std::size_t> out;
  out.reserve(dataflows_.size());
  for (const auto& entry : dataflows_) out.push_back(entry.first);
  return out;
}

void Worker::drop_dataflow(std::size_t index) {
  auto it = dataflows_.find(index);
  if (it == dataflows_.end())
    throw DataflowError("timely: worker " + std::to_string(this->index()) + " has no dataflow " +
                        std::to_string(index) + " to drop (next index " + std::to_string(next_dataflow_) +
                        ": never built, already complete or already dropped)");
  if (scheduling_ == index)
    throw DataflowError("timely: dataflow " + std::to_string(index) +
                        " cannot be dropped by one of its own operators while it is scheduled");
  // Forget the channels first: events for them (late records, progress from the other
  // workers) are ignored from now on. Then the operators go, and with them their capabilities.
  for (auto channel : it->second.channels) state_->unregister_channel(channel);
  auto dropped = std::move(it->second.root);
  const std::size_t id = it->second.id;
  dataflows_.erase(it);
  dropped.reset();
  if (logger_) logger_->log(logging::ShutdownEvent{id});
}

void Worker::log_dataflow(std::size_t id, std::size_t index, const std::string& name) {
  auto& registry = state_->log_registry();
  logger_ = registry.get<logging::TimelyEvent>("timely");
  if (logger_) logger_->log(logging::OperatesEvent{id, {index}, name});
  if (comm_log_) return;
  // Local worker 0 of each process of a cluster logs its process's connections.
  auto stats = state_->allocator().network_stats();
  if (!stats || this->index() != stats->process() * stats->workers()) return;
  if (auto logger = registry.get<logging::CommunicationEvent>("communication"))
    comm_log_ = std::make_shared<CommunicationLog>(std::move(stats), std::move(*logger));
}

void Worker::flush_logs() {
  auto& registry = state_->log_registry();
  if (!comm_log_) {
    registry.flush();
    return;
  }
  const auto now = registry.now();
  comm_log_->poll(now);
  registry.flush(now);
}

}  // namespace timely
