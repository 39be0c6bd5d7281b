// WorkerState: its construction, the channel-to-operator map and the receipt of channel events,
// compiled once here.
#include <timely/worker_state.hpp>

#include <string>
#include <utility>

namespace timely {

WorkerState::WorkerState(communication::Allocator allocator, WorkerConfig config)
    : allocator_(std::move(allocator)),
      activations_(std::make_shared<scheduling::Activations>(allocator_.waker())),
      config_(config),
      log_registry_(config.log_start.value_or(std::chrono::steady_clock::now())) {}

void WorkerState::register_channel(std::size_t channel, scheduling::Path address) {
  if (channel_addresses_.size() <= channel) channel_addresses_.resize(channel + 1);
  channel_addresses_[channel] = std::move(address);
}

void WorkerState::unregister_channel(std::size_t channel) {
  if (channel < channel_addresses_.size()) channel_addresses_[channel].reset();
}

void WorkerState::receive() {
  if (allocator_.poisoned())
    throw WorkerAborted("timely: worker " + std::to_string(index()) +
                        " stopped because another worker failed");
  allocator_.receive();
  auto& events = allocator_.events();
  for (auto channel : events)
    if (channel < channel_addresses_.size() && channel_addresses_[channel])
      activations_->activate(*channel_addresses_[channel]);
  events.clear();
}

}  // namespace timely
