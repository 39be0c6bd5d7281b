// WorkerState: its construction, the channel-to-operator map, the receipt of channel events and
// the comparison of dataflow shapes between workers, compiled once here.
#include <timely/worker_state.hpp>

#include <algorithm>
#include <string>
#include <utility>

#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/communication/codec.hpp>

namespace timely {

WorkerState::WorkerState(communication::Allocator allocator, WorkerConfig config)
    : allocator_(std::move(allocator)),
      activations_(std::make_shared<scheduling::Activations>(allocator_.waker())),
      config_(config),
      channel_addresses_(std::make_unique<ChannelAddresses>()),
      log_registry_(config.log_start.value_or(std::chrono::steady_clock::now())) {}

struct WorkerState::ChannelAddresses {
  boost::unordered_flat_map<std::size_t, scheduling::Path> map;
};

WorkerState::~WorkerState() = default;

void WorkerState::register_channel(std::size_t channel, scheduling::Path address) {
  channel_addresses_->map.insert_or_assign(channel, std::move(address));
}

void WorkerState::unregister_channel(std::size_t channel) { channel_addresses_->map.erase(channel); }

std::size_t WorkerState::registered_channels() const noexcept { return channel_addresses_->map.size(); }

void WorkerState::receive() {
  if (allocator_.poisoned())
    throw WorkerAborted("timely: worker " + std::to_string(index()) +
                        " stopped because another worker failed");
  allocator_.receive();
  auto& events = allocator_.events();
  bool shapes = false;
  for (auto channel : events) {
    if (const auto it = channel_addresses_->map.find(channel); it != channel_addresses_->map.end())
      activations_->activate(it->second);
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

// At most this many channels are listed: a dataflow may allocate thousands, and the message
// travels to the other processes in an abort frame of bounded size.
constexpr std::size_t channels_shown = 8;

std::string describe(const DataflowShape& shape) {
  std::string out = "timestamp " + shape.timestamp + ", identifiers " +
                    std::to_string(shape.first_identifier) + ".." +
                    std::to_string(shape.first_identifier + shape.identifiers - 1) + " and " +
                    std::to_string(shape.channels.size()) + " channels [";
  const std::size_t shown = std::min(shape.channels.size(), channels_shown);
  for (std::size_t i = 0; i < shown; ++i) out += (i == 0 ? "" : ", ") + std::to_string(shape.channels[i]);
  return out + (shown < shape.channels.size() ? ", ...]" : "]");
}

// Where two shapes first differ, in words ("" if they agree).
std::string first_difference(const DataflowShape& a, const DataflowShape& b) {
  if (a.timestamp != b.timestamp) return "the timestamp types differ";
  if (a.first_identifier != b.first_identifier) return "the first identifiers differ";
  if (a.identifiers != b.identifiers) return "the numbers of identifiers differ";
  const std::size_t common = std::min(a.channels.size(), b.channels.size());
  for (std::size_t i = 0; i < common; ++i)
    if (a.channels[i] != b.channels[i])
      return "channel " + std::to_string(i) + " is " + std::to_string(a.channels[i]) + " against " +
             std::to_string(b.channels[i]);
  if (a.channels.size() != b.channels.size())
    return "the numbers of channels differ (" + std::to_string(a.channels.size()) + " against " +
           std::to_string(b.channels.size()) + ")";
  const std::size_t allocated = std::min(a.allocations.size(), b.allocations.size());
  for (std::size_t i = 0; i < allocated; ++i) {
    const auto& [channel, what] = a.allocations[i];
    const auto& [other_channel, other_what] = b.allocations[i];
    if (channel != other_channel)
      return "allocated channel " + std::to_string(i) + " is " + std::to_string(channel) + " against " +
             std::to_string(other_channel);
    if (what != other_what) {
      // Type names may be long; the message must fit an abort frame and show the difference.
      const auto [mine, theirs] = communication::excerpts_around_difference(what, other_what);
      return "channel " + std::to_string(channel) + " is a " + mine + " against a " + theirs;
    }
  }
  if (a.allocations.size() != b.allocations.size())
    return "the numbers of channels allocated differ (" + std::to_string(a.allocations.size()) + " against " +
           std::to_string(b.allocations.size()) + ")";
  return "";
}

}  // namespace

void WorkerState::allocate_shape_channel() {
  if (shape_pull_) return;
  auto [push, pull] = allocator_.broadcast<DataflowShape>(shape_channel);
  shape_push_ = std::move(push);
  shape_pull_ = std::move(pull);
}

void WorkerState::too_many(std::uint64_t worker, std::uint64_t finished, std::uint64_t other,
                           std::uint64_t built) const {
  throw DataflowError("timely: worker " + std::to_string(worker) + " finished building after " +
                      std::to_string(finished) + " dataflow" + (finished == 1 ? "" : "s") + ", but worker " +
                      std::to_string(other) + " built dataflow " + std::to_string(built - 1) +
                      ": every worker must build the same dataflows in the same order (do all "
                      "processes run the same program with the same arguments?)");
}

void WorkerState::finished_building(std::size_t built) {
  if (peers() == 1) return;
  allocate_shape_channel();
  finished_ = built;
  DataflowShape last;
  last.worker = index();
  last.index = built;
  last.last = true;
  shape_push_->send(last);
  shape_push_->done();
  // Sent now: a worker with no dataflow left does not step again, and a channel that crosses
  // the network (-z, other processes) sends what it buffered only when its worker steps.
  allocator_.release();
  // Shapes of dataflows this worker will never build, already told.
  for (const auto& [dataflow, entry] : shapes_)
    if (dataflow >= built && !entry.early.empty())
      too_many(index(), built, entry.early.front().worker, dataflow + 1);
  if (shapes_arrived_) {
    shapes_arrived_ = false;
    receive_shapes();
  }
}

void WorkerState::built_dataflow(std::size_t index, std::size_t first_identifier,
                                 const std::vector<std::size_t>& channels, std::string timestamp) {
  built_ = std::max<std::uint64_t>(built_, index + 1);
  if (peers() == 1) return;
  for (const auto& [worker, finished] : peers_finished_)
    if (index >= finished) too_many(worker, finished, this->index(), index + 1);
  allocate_shape_channel();
  DataflowShape mine;
  mine.worker = this->index();
  mine.index = index;
  mine.first_identifier = first_identifier;
  mine.identifiers = next_identifier_ - first_identifier;
  mine.channels.assign(channels.begin(), channels.end());
  mine.timestamp = std::move(timestamp);
  // Channels allocated outside any dataflow's identifiers (this shape channel, the monitor's)
  // are the worker's own, not the dataflow's.
  for (auto& use : allocator_.take_uses())
    if (use.channel >= first_identifier && use.channel < next_identifier_)
      mine.allocations.emplace_back(use.channel, std::move(use.what));
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

void WorkerState::check_shapes(const std::string& failure) {
  if (shape_pull_) receive_shapes(failure);
}

void WorkerState::receive_shapes(const std::string& failure) {
  while (auto shape = shape_pull_->recv()) {
    if (shape->worker == index()) continue;
    if (!shape->last) {
      compare(*shape, failure);
    } else {
      if (built_ > shape->index) too_many(shape->worker, shape->index, index(), built_);
      peers_finished_.emplace_back(shape->worker, shape->index);
    }
  }
}

void WorkerState::compare(const DataflowShape& theirs, const std::string& failure) {
  if (finished_ && theirs.index >= *finished_) too_many(index(), *finished_, theirs.worker, theirs.index + 1);
  auto& entry = shapes_[theirs.index];
  if (!entry.mine) {
    entry.early.push_back(theirs);
    return;
  }
  const auto& mine = *entry.mine;
  if (const std::string difference = first_difference(theirs, mine); !difference.empty())
    throw DataflowError("timely: worker " + std::to_string(theirs.worker) + " built dataflow " +
                        std::to_string(theirs.index) + " with " + describe(theirs) + ", but worker " +
                        std::to_string(index()) + " built it with " + describe(mine) + " (" + difference +
                        "): every worker must build the same dataflows in the same order (do all "
                        "processes run the same program with the same arguments?)" +
                        (failure.empty() ? "" : "; this worker then failed: " + failure));
  if (++entry.compared + 1 == peers()) shapes_.erase(theirs.index);  // every worker agreed
}

}  // namespace timely
