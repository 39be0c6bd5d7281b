/// \file
/// The Nexmark source operator: `nexmark::source(scope, config, options)` generates this
/// worker's share of the events (generator.hpp: blocks of 50 positions, block b on worker
/// b % peers) into a `Stream<std::uint64_t, Event>` whose timestamps are the events' event
/// times in milliseconds, holding its capability at the generator's watermark (the least event
/// time it may still send), so the stream's frontier is an exact watermark.
///
/// Use:
///     worker.dataflow<std::uint64_t>([&](auto& scope) {
///       nexmark::source(scope, config) | ... | probe_with(probe);
///     });
///
/// Each scheduling generates at most `options.batch` events (then activates itself again and
/// yields, so downstream operators run between slices), in pieces of `options.batch_size`: a
/// piece whose events share one time (the usual case: at 10 M events/s a millisecond holds 10'000
/// events) is sent as the vector it was generated into, without a copy; otherwise it is split
/// by time. In delivery order the times of a share never decrease when
/// `out_of_order_group_size` is 1; otherwise each piece is sorted by time (stable) first. With
/// `options.paced` it releases only the events due on the wall clock (the first scheduling is
/// event time `base_time`, then `rate` events per second), for latency runs.
///
/// There is no back-pressure: a downstream that cannot keep up queues the slices (as any timely
/// source without a probe-driven flow control does).
///
/// \throws ConfigError (from the dataflow's construction) if the config is invalid.
/// Thread-safety: the operator runs on its worker's thread. Source of the idea: the reference's
/// `generic::source` pattern, and Nexmark sources of timely-dataflow studies (Megaphone's
/// nexmark generator).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/streaming/nexmark/event.hpp>
#include <timely/streaming/nexmark/generator.hpp>

namespace timely::streaming::nexmark {

/// How the source slices its work.
struct SourceOptions {
  /// Most events generated per scheduling (> 0).
  std::size_t batch = 16 * 1024;
  /// Most events per vector sent (> 0).
  std::size_t batch_size = 1024;
  /// Release events only when due on the wall clock at `rate` events per second.
  bool paced = false;
  /// Paced: the instant at which event time `base_time` is due. The workers of a process should
  /// share one, so that their shares are released together (each worker's first scheduling
  /// differs by the time it took to build its dataflow). Unset: this source's first scheduling.
  std::optional<std::chrono::steady_clock::time_point> start{};
};

namespace detail {

/// The source's state: the generator, its capability and the buffers reused between slices.
class SourceLogic {
 public:
  SourceLogic(Generator generator, std::size_t peers, SourceOptions options,
              dataflow::Capability<std::uint64_t> cap, scheduling::Activator activator)
      : generator_(std::move(generator)),
        peers_(peers),
        options_(options),
        cap_(std::move(cap)),
        activator_(std::move(activator)) {
    if (generator_.done()) {
      cap_.reset();
    } else {
      cap_->downgrade(generator_.watermark());
    }
  }

  template <class Output>
  void operator()(Output& output) {
    if (!cap_) return;
    std::uint64_t due = 0;  // paced: the first global position not yet due
    if (options_.paced) {
      const auto now = std::chrono::steady_clock::now();
      if (!start_) start_ = options_.start.value_or(now);
      const auto elapsed_us =
          now <= *start_ ? std::uint64_t{0}
                         : static_cast<std::uint64_t>(
                               std::chrono::duration_cast<std::chrono::microseconds>(now - *start_).count());
      const std::uint64_t rate = generator_.config().rate;
      due = elapsed_us / 1'000'000 * rate + elapsed_us % 1'000'000 * rate / 1'000'000;
    }
    // Pieces of at most batch_size events, each sent as it is made (no copy when a piece holds
    // one time, the common case), up to `batch` events per scheduling.
    std::size_t budget = options_.batch;
    while (budget > 0 && !generator_.done()) {
      chunk_.clear();
      const std::size_t piece = std::min(budget, options_.batch_size);
      const std::size_t made =
          options_.paced
              ? generator_.next_until(chunk_, std::min(due, generator_.position() + piece * peers_))
              : generator_.next(chunk_, piece);
      if (made == 0) break;
      send(output);
      budget -= std::min(budget, made);
    }
    if (generator_.done()) {
      cap_.reset();
      return;
    }
    cap_->downgrade(generator_.watermark());
    activator_.activate();
  }

 private:
  template <class Output>
  void send(Output& output) {
    if (chunk_.empty()) return;
    if (generator_.config().out_of_order_group_size > 1)
      std::stable_sort(chunk_.begin(), chunk_.end(),
                       [](const Event& a, const Event& b) { return event_time(a) < event_time(b); });
    if (event_time(chunk_.front()) == event_time(chunk_.back())) {  // one time: send it whole
      auto session = output.session(
          cap_->time() == event_time(chunk_.front()) ? *cap_ : cap_->delayed(event_time(chunk_.front())));
      session.give_vec(chunk_);
      return;
    }
    std::size_t i = 0;
    while (i < chunk_.size()) {
      const std::uint64_t time = event_time(chunk_[i]);
      std::size_t j = i + 1;
      while (j < chunk_.size() && event_time(chunk_[j]) == time) ++j;
      std::vector<Event> run;
      run.reserve(j - i);
      std::move(chunk_.begin() + static_cast<std::ptrdiff_t>(i),
                chunk_.begin() + static_cast<std::ptrdiff_t>(j), std::back_inserter(run));
      auto session = output.session(cap_->time() == time ? *cap_ : cap_->delayed(time));
      session.give_vec(run);
      i = j;
    }
  }

  Generator generator_;
  std::size_t peers_;
  SourceOptions options_;
  std::optional<dataflow::Capability<std::uint64_t>> cap_;
  scheduling::Activator activator_;
  std::vector<Event> chunk_;
  std::optional<std::chrono::steady_clock::time_point> start_;
};

}  // namespace detail

/// This worker's share of the Nexmark events of `config`, timestamped with their event times
/// (ms). \throws ConfigError if `config` is invalid or an option is 0.
inline dataflow::Stream<std::uint64_t, Event> source(dataflow::Scope<std::uint64_t>& scope,
                                                     const GeneratorConfig& config,
                                                     SourceOptions options = {}) {
  if (options.batch == 0 || options.batch_size == 0)
    throw ConfigError("nexmark::source: SourceOptions batch and batch_size must be positive");
  Generator generator(config, scope.index(), scope.peers());
  const std::size_t peers = scope.peers();
  return dataflow::operators::source<Event>(
      scope, "NexmarkSource",
      [generator = std::move(generator), peers, options](
          dataflow::Capability<std::uint64_t> cap, const dataflow::operators::OperatorInfo& info) mutable {
        return detail::SourceLogic(std::move(generator), peers, options, std::move(cap), info.activator);
      });
}

}  // namespace timely::streaming::nexmark
