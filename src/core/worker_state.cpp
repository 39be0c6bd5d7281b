// WorkerState: its construction, the channel-to-operator map, the receipt of channel events and
// the comparison of dataflow shapes between workers, compiled once here.
#include <timely/worker_state.hpp>

#include <string>
#include <utility>

#include <timely/communication/codec.hpp>

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
  bool shapes = false;
  for (auto channel : events) {
    if (channel < channel_addresses_.size() && channel_addresses_[channel])
      activations_->activate(*channel_addresses_[channel]);
    else if (channel == shape_channel)
      shapes = true;
  }
  events.clear();
  if (shapes) {
    if (shape_pull_)
      receive_shapes();
    else
      shapes_arrived_ = true;  // read once this worker builds its first dataflow
  }
}

namespace {

std::string describe(const DataflowShape& shape) {
  std::string out = "identifiers " + std::to_string(shape.first_identifier) + ".." +
                    std::to_string(shape.first_identifier + shape.identifiers - 1) + " and channels [";
  for (std::size_t i = 0; i < shape.channels.size(); ++i)
    out += (i == 0 ? "" : ", ") + std::to_string(shape.channels[i]);
  return out + "]";
}

}  // namespace

void WorkerState::built_dataflow(std::size_t index, std::size_t first_identifier,
                                 const std::vector<std::size_t>& channels) {
  if (peers() == 1) return;
  if (!shape_pull_) {
    auto [push, pull] = allocator_.broadcast<DataflowShape>(shape_channel);
    shape_push_ = std::move(push);
    shape_pull_ = std::move(pull);
  }
  DataflowShape mine;
  mine.worker = this->index();
  mine.index = index;
  mine.first_identifier = first_identifier;
  mine.identifiers = next_identifier_ - first_identifier;
  mine.channels.assign(channels.begin(), channels.end());
  shape_push_->send(mine);
  shape_push_->done();
  auto& entry = shapes_[index];
  entry.mine = std::move(mine);
  auto early = std::move(entry.early);
  for (const auto& theirs : early) compare(theirs);
  if (shapes_arrived_) {  // events came before the channel was allocated here
    shapes_arrived_ = false;
    receive_shapes();
  }
}

void WorkerState::receive_shapes() {
  while (auto shape = shape_pull_->recv())
    if (shape->worker != index()) compare(*shape);
}

void WorkerState::compare(const DataflowShape& theirs) {
  auto& entry = shapes_[theirs.index];
  if (!entry.mine) {
    entry.early.push_back(theirs);
    return;
  }
  const auto& mine = *entry.mine;
  if (theirs.first_identifier != mine.first_identifier || theirs.identifiers != mine.identifiers ||
      theirs.channels != mine.channels)
    throw DataflowError("timely: worker " + std::to_string(theirs.worker) + " built dataflow " +
                        std::to_string(theirs.index) + " with " + describe(theirs) + ", but worker " +
                        std::to_string(index()) + " built it with " + describe(mine) +
                        ": every worker must build the same dataflows in the same order (do all "
                        "processes run the same program with the same arguments?)");
  if (++entry.compared + 1 == peers()) shapes_.erase(theirs.index);  // every worker agreed
}

}  // namespace timely
