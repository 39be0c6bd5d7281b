/// \file
/// Channels that log what crosses them: `LogPusher` numbers each batch it sends (`from`, `seq`)
/// and logs a `MessagesEvent` send, `LogPuller` logs a receive for each batch it hands out, and
/// `logged_channel` wraps a pact's pushers and puller in them when the "timely" stream has a
/// logger, leaving them untouched (no cost at all) when it does not.
///
/// Source: the reference's `dataflow::channels::pushers::counter`/`LogPusher` and `LogPuller`
/// (SEMANTICS.md §8.2, Messages). Thread-safety: like the channel ends they wrap, each belongs
/// to one worker thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include <boost/core/demangle.hpp>

#include <timely/communication/push_pull.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/logging/logger.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/worker_state.hpp>

namespace timely::dataflow {

/// Sends batches to worker `target` on `channel` through `inner`, numbering them (`from` = this
/// worker, `seq` = 0, 1, ... per target) and logging each. With `both`, a receive is logged
/// along with the send: the batch reaches its consumer within the same call (enter and leave).
template <class T, class C>
class LogPusher final : public communication::Push<Message<T, C>> {
 public:
  LogPusher(std::unique_ptr<communication::Push<Message<T, C>>> inner, std::size_t channel,
            std::size_t source, std::size_t target, logging::Logger<logging::TimelyEvent> logger,
            bool both = false)
      : inner_(std::move(inner)),
        channel_(channel),
        source_(source),
        target_(target),
        both_(both),
        logger_(std::move(logger)) {}

  void push(std::optional<Message<T, C>>& element) override {
    if (element) {
      element->from = source_;
      element->seq = seq_;
      const auto count = container::record_count(element->data);
      logger_.log(logging::MessagesEvent{true, channel_, source_, target_, seq_, count});
      if (both_) logger_.log(logging::MessagesEvent{false, channel_, source_, target_, seq_, count});
      ++seq_;
    }
    inner_->push(element);
  }

 private:
  std::unique_ptr<communication::Push<Message<T, C>>> inner_;
  std::size_t channel_, source_, target_;
  bool both_;
  std::size_t seq_ = 0;
  logging::Logger<logging::TimelyEvent> logger_;
};

/// Receives batches on `channel` for worker `target` through `inner`, logging each.
template <class T, class C>
class LogPuller final : public communication::Pull<Message<T, C>> {
 public:
  LogPuller(std::unique_ptr<communication::Pull<Message<T, C>>> inner, std::size_t channel,
            std::size_t target, logging::Logger<logging::TimelyEvent> logger)
      : inner_(std::move(inner)), channel_(channel), target_(target), logger_(std::move(logger)) {}

  std::optional<Message<T, C>>& pull() override {
    auto& element = inner_->pull();
    if (element)
      logger_.log(logging::MessagesEvent{false, channel_, element->from, target_, element->seq,
                                         static_cast<std::size_t>(container::record_count(element->data))});
    return element;
  }

 private:
  std::unique_ptr<communication::Pull<Message<T, C>>> inner_;
  std::size_t channel_, target_;
  logging::Logger<logging::TimelyEvent> logger_;
};

/// The "timely" logger of `worker`, if one is registered.
inline std::optional<logging::Logger<logging::TimelyEvent>> timely_logger(WorkerState& worker) {
  return worker.log_registry().get<logging::TimelyEvent>("timely");
}

/// Wraps each of `pushers` (the one to worker i at index i) and `puller` in logging ends when
/// `worker` logs the "timely" stream.
template <class T, class C>
void logged_channel(WorkerState& worker, std::size_t channel,
                    std::vector<std::unique_ptr<communication::Push<Message<T, C>>>>& pushers,
                    std::unique_ptr<communication::Pull<Message<T, C>>>& puller) {
  auto logger = timely_logger(worker);
  if (!logger) return;
  for (std::size_t i = 0; i < pushers.size(); ++i)
    pushers[i] =
        std::make_unique<LogPusher<T, C>>(std::move(pushers[i]), channel, worker.index(), i, *logger);
  puller = std::make_unique<LogPuller<T, C>>(std::move(puller), channel, worker.index(), *logger);
}

/// `logged_channel` for a channel that stays on this worker (pipeline).
template <class T, class C>
void logged_channel(WorkerState& worker, std::size_t channel,
                    std::unique_ptr<communication::Push<Message<T, C>>>& pusher,
                    std::unique_ptr<communication::Pull<Message<T, C>>>& puller) {
  auto logger = timely_logger(worker);
  if (!logger) return;
  pusher =
      std::make_unique<LogPusher<T, C>>(std::move(pusher), channel, worker.index(), worker.index(), *logger);
  puller = std::make_unique<LogPuller<T, C>>(std::move(puller), channel, worker.index(), *logger);
}

/// `pusher`, a channel across a scope boundary on this worker (enter, leave), wrapped to log a
/// send and a receive for each batch when `worker` logs the "timely" stream.
template <class T, class C>
std::unique_ptr<communication::Push<Message<T, C>>> logged_boundary(
    WorkerState& worker, std::size_t channel, std::unique_ptr<communication::Push<Message<T, C>>> pusher) {
  auto logger = timely_logger(worker);
  if (!logger) return pusher;
  return std::make_unique<LogPusher<T, C>>(std::move(pusher), channel, worker.index(), worker.index(),
                                           *logger, true);
}

/// The name a ChannelsEvent gives container type `C`.
template <class C>
std::string container_name() {
  return boost::core::demangle(typeid(C).name());
}

}  // namespace timely::dataflow
