// Worker::step_or_park: the per-round driver (SEMANTICS.md §5.9).
#include <timely/worker.hpp>

#include <algorithm>
#include <thread>

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
      state_->log_registry().flush();  // nothing happens while parked: publish what we have
      state_->allocator().await_events(delay);
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
    if (it == dataflows_.end()) continue;
    if (!it->second.root->schedule()) {
      for (auto channel : it->second.channels) state_->unregister_channel(channel);
      dataflows_.erase(it);
    }
  }
  state_->allocator().release();
  return has_dataflows();
}

}  // namespace timely
