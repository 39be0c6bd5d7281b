/// \file
/// Event-time sources: `stream | event_time(extract, watermark_policy, late_policy)` re-times
/// records that carry their own event time (`extract(const D&) -> T`) and arrive out of order,
/// holding a capability at a *watermark* that a policy advances. It returns
/// `EventTimeStreams<T, D>`: `records` (each at its event time), `late` (the side stream of late
/// records) and `stats` (this worker's counters and watermark).
///
/// The input stream can be any stream of `D` (an `InputHandle`, `to_stream`, a file reader);
/// its own timestamps are ignored, except by `exact_watermark()`. With every other policy the
/// operator's input is *disconnected* from its outputs in the progress graph: the output
/// frontier is exactly the watermark this operator holds (the minimum over the workers), and
/// the capability is released once the input is complete, so the end of the input is exact.
///
/// Watermark policies (the watermark `w` of one worker; the dataflow's is the minimum over the
/// workers, because every worker holds its own capability):
/// - `bounded_out_of_orderness(delay)`: `w = max seen event time - delay` (saturating at the
///   minimum time), advanced after every record, so classification is deterministic for a
///   given sequence of records on a worker (Flink's `forBoundedOutOfOrderness`).
/// - `punctuated(is_watermark)`: a record for which `is_watermark(record)` holds moves `w` to its
///   event time (the record itself is on time); other records never move it.
/// - `periodic(interval, delay, idle_after)`: `max seen - delay`, computed at most once per
///   `interval` of processing time (fewer progress messages; classification then depends on
///   timing). A worker that received no record for `idle_after` declares itself idle: it then
///   follows the least watermark of the workers that are not idle (they announce theirs to
///   every worker through a small broadcast inside the dataflow), or, when all others are idle
///   too, the greatest of theirs, so an idle worker or input does not hold everyone back
///   (Flink's `withIdleness`). When records come again it is active
///   again, and records behind the watermark it followed are late.
/// - `exact_watermark()`: the watermark is the input stream's own frontier (the source knows
///   it exactly: e.g. an `InputHandle` advanced to `t` promises no record before `t`); records
///   whose event time is before their message's time are late.
///
/// Late policies (a record is late when its event time is before the worker's watermark):
/// - `drop_late()`, **the default**: the record is dropped and counted in
///   `stats->late_dropped`. Default because it is the only policy under which every downstream
///   result is final when first emitted and state is dropped as soon as the frontier passes,
///   while the count makes the loss visible (Arroyo's only behaviour; Flink's default drops too,
///   silently).
/// - `late_to_side_stream()`: the record goes to `late`, at the watermark it was late against,
///   and is counted in `stats->late_side`.
/// - `allowed_lateness(L)`: a record no more than `L` behind the watermark goes on `records`
///   at the watermark (its event time stays in the record; count `stats->late_admitted`), where
///   windows built with `.allowed_lateness(L).event_time(extract)` emit again with the update
///   (window.hpp); records further behind are dropped and counted.
///
/// Thread-safety: none; `stats` belongs to its worker (read it on that worker's thread).
/// Source of the idea: the Dataflow Model's watermarks and allowed lateness; Flink's
/// `WatermarkStrategy`; Arroyo's drop-and-count of late data.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/streaming/event_time.hpp>

namespace timely::streaming {

/// Watermark policy: `max seen - delay` after every record.
template <EventTime T>
struct BoundedOutOfOrderness {
  T delay;
};
/// Watermark policy: a record for which `is_watermark(record)` holds moves the watermark to
/// its event time.
template <class Pred>
struct Punctuated {
  Pred is_watermark;
};
/// Watermark policy: `max seen - delay` once per `interval`; idle after `idle_after` without
/// records (then following the other workers).
template <EventTime T>
struct Periodic {
  std::chrono::nanoseconds interval;
  T delay;
  std::chrono::nanoseconds idle_after;
};
/// Watermark policy: the input stream's own frontier.
struct ExactWatermark {};

/// `max seen event time - delay`. \throws nothing (any delay, zero included, is valid).
template <EventTime T>
BoundedOutOfOrderness<T> bounded_out_of_orderness(T delay) {
  return {delay};
}
/// Punctuated watermarks: `is_watermark(const D&) -> bool`.
template <class Pred>
Punctuated<Pred> punctuated(Pred is_watermark) {
  return {std::move(is_watermark)};
}
/// Periodic bounded out-of-orderness with idle detection.
/// \throws StreamingError naming `interval` or `idle_after` if either is not positive.
template <EventTime T, class R1, class P1, class R2, class P2>
Periodic<T> periodic(std::chrono::duration<R1, P1> interval, T delay,
                     std::chrono::duration<R2, P2> idle_after) {
  if (interval <= interval.zero())
    throw StreamingError("timely::streaming::periodic: argument 'interval' must be positive");
  if (idle_after <= idle_after.zero())
    throw StreamingError("timely::streaming::periodic: argument 'idle_after' must be positive");
  return {std::chrono::duration_cast<std::chrono::nanoseconds>(interval), delay,
          std::chrono::duration_cast<std::chrono::nanoseconds>(idle_after)};
}
/// The watermark is the input's frontier.
inline ExactWatermark exact_watermark() { return {}; }

/// Late policy: drop and count (the default).
struct DropLate {};
/// Late policy: send to the `late` side stream.
struct LateToSideStream {};
/// Late policy: forward records up to `lateness` behind the watermark, at the watermark.
template <EventTime T>
struct AllowedLateness {
  T lateness;
};
inline DropLate drop_late() { return {}; }
inline LateToSideStream late_to_side_stream() { return {}; }
template <EventTime T>
AllowedLateness<T> allowed_lateness(T lateness) {
  return {lateness};
}

/// One worker's view of its event-time source.
template <EventTime T>
struct SourceStats {
  /// Records dropped as late (policy `drop_late`, or too late for `allowed_lateness`).
  std::uint64_t late_dropped = 0;
  /// Records sent to the side stream.
  std::uint64_t late_side = 0;
  /// Late records forwarded under `allowed_lateness`.
  std::uint64_t late_admitted = 0;
  /// Records forwarded at their event time.
  std::uint64_t on_time = 0;
  /// This worker's current watermark (the time of the capability it holds).
  T watermark = timely::minimum<T>();
  /// Whether this worker's source declared itself idle (periodic policy).
  bool idle = false;
  /// Whether the input is complete and the capability released.
  bool done = false;
};

/// What `event_time` returns.
template <EventTime T, class D>
struct EventTimeStreams {
  /// On-time records at their event time (and admitted late records at the watermark).
  dataflow::Stream<T, D> records;
  /// Late records at the watermark they were late against (policy `late_to_side_stream`).
  dataflow::Stream<T, D> late;
  /// This worker's counters; updated as the operator runs.
  std::shared_ptr<SourceStats<T>> stats;
};

namespace detail {

/// A worker's announcement of its watermark, sent to every worker (idle detection).
template <class T>
struct WatermarkAnnouncement {
  std::size_t target = 0;
  std::size_t from = 0;
  T watermark{};
  bool idle = false;  // idle or done: not to be waited for
};

/// What the idle-detection sink tells its worker's source.
template <class T>
struct WatermarkBoard {
  std::vector<std::optional<std::pair<T, bool>>> peers;  // (watermark, idle) by worker
  std::optional<scheduling::Activator> source;
};

template <class T>
struct IsPeriodic : std::false_type {};
template <class T>
struct IsPeriodic<Periodic<T>> : std::true_type {};

// Emits `(time, record)` pairs sorted by time, one session per distinct time.
template <class T, class D, class Output, class MakeCap>
void emit_by_time(std::vector<std::pair<T, D>>& items, Output& output, MakeCap&& make_cap) {
  if (items.empty()) return;
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < items.size();) {
    auto cap = make_cap(items[i].first);
    auto session = output.session(cap);
    std::size_t j = i;
    for (; j < items.size() && items[j].first == items[i].first; ++j)
      session.give(std::move(items[j].second));
    i = j;
  }
  items.clear();
}

template <class Extract, class Policy, class Late>
struct EventTimeOp {
  Extract extract;
  Policy policy;
  Late late;

  template <Timestamp T, class D>
  EventTimeStreams<T, D> operator()(const dataflow::Stream<T, D>& stream) const {
    static_assert(EventTime<T>,
                  "timely::streaming::event_time: the scope's timestamp must be an EventTime "
                  "(unsigned integer or std::chrono::duration)");
    static_assert(std::is_invocable_r_v<T, const Extract&, const D&>,
                  "timely::streaming::event_time: extract must be callable as extract(const D&) -> T");
    if constexpr (std::is_same_v<Policy, ExactWatermark>)
      return exact(stream);
    else
      return heuristic(stream);
  }

  // Where a late record goes; `at` is the watermark it was late against. Returns whether it
  // is forwarded on the main output (allowed lateness).
  template <class T, class D>
  bool route_late(const T& event, const T& at, D&& record, std::vector<std::pair<T, D>>& side,
                  SourceStats<T>& stats) const {
    if constexpr (std::is_same_v<Late, LateToSideStream>) {
      side.emplace_back(at, std::forward<D>(record));
      ++stats.late_side;
      return false;
    } else if constexpr (std::is_same_v<Late, DropLate>) {
      ++stats.late_dropped;
      return false;
    } else {
      if (event < saturating_sub(at, late.lateness)) {
        ++stats.late_dropped;
        return false;
      }
      ++stats.late_admitted;
      return true;
    }
  }

  template <class T, class D>
  EventTimeStreams<T, D> exact(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    OperatorBuilder<T> builder(stream.scope(), "EventTimeExact");
    auto input = builder.new_input(stream, Pipeline{});
    auto made = builder.template new_output<D>();
    auto late_made = builder.template new_output<D>();
    auto stats = std::make_shared<SourceStats<T>>();
    builder.build([&](std::vector<Capability<T>>) {
      return [self = *this, input = std::move(input), out = std::move(made.handle),
              side_out = std::move(late_made.handle), stats]() mutable {
        std::vector<std::pair<T, D>> on_time, side;
        input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
          for (auto& batch : batches)
            for (auto& record : batch) {
              const T event = self.extract(record);
              if (!(event < cap.time())) {
                on_time.emplace_back(event, std::move(record));
                ++stats->on_time;
              } else if (self.route_late(event, cap.time(), std::move(record), side, *stats)) {
                on_time.emplace_back(cap.time(), std::move(record));
              }
            }
          emit_by_time(on_time, out, [&](const T& t) { return cap.delayed(t, 0); });
          emit_by_time(side, side_out, [&](const T& t) { return cap.delayed(t, 1); });
        });
        const auto& frontier = input.frontier().frontier();
        stats->done = frontier.empty();
        if (!frontier.empty()) stats->watermark = *frontier.begin();
      };
    });
    return {std::move(made.stream), std::move(late_made.stream), std::move(stats)};
  }

  template <class T, class D>
  EventTimeStreams<T, D> heuristic(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    using Clock = std::chrono::steady_clock;
    using Announcement = WatermarkAnnouncement<T>;
    constexpr bool idle_detection = IsPeriodic<Policy>::value;
    const std::size_t peers = stream.scope().peers();
    const std::size_t index = stream.scope().index();
    auto board = std::make_shared<WatermarkBoard<T>>();
    board->peers.resize(peers);
    auto stats = std::make_shared<SourceStats<T>>();

    OperatorBuilder<T> builder(stream.scope(), "EventTime");
    // Disconnected: the outputs' frontier is the watermark this operator holds, not the input's.
    auto input = builder.new_input_connection(stream, Pipeline{}, progress::PortConnectivity<SummaryOf<T>>{});
    auto made = builder.template new_output_connection<D>({});
    auto late_made = builder.template new_output_connection<D>({});
    auto announce_made = builder.template new_output_connection<Announcement>({});
    const auto activator = builder.activator();
    board->source = activator;
    builder.build([&](std::vector<Capability<T>> caps) {
      return [self = *this, input = std::move(input), out = std::move(made.handle),
              side_out = std::move(late_made.handle), announce = std::move(announce_made.handle),
              caps = std::move(caps), stats, board, activator, peers, index, max_seen = std::optional<T>{},
              last_record = Clock::now(), last_tick = Clock::now(),
              announced = std::optional<std::pair<T, bool>>{}]() mutable {
        (void)peers;  // used by idle detection only
        (void)index;
        if (caps.empty()) {
          // Done: drain whatever still arrives; it is behind everything.
          input.for_each(
              [&](const InputCapability<T>&, std::vector<D>& batch) { stats->late_dropped += batch.size(); });
          return;
        }
        const auto now = Clock::now();
        T watermark = caps[0].time();
        std::vector<std::pair<T, D>> on_time, side;
        bool received = false;
        input.for_each([&](const InputCapability<T>&, std::vector<D>& batch) {
          received = received || !batch.empty();
          for (auto& record : batch) {
            const T event = self.extract(record);
            if constexpr (std::is_same_v<Policy, BoundedOutOfOrderness<T>> || idle_detection) {
              if (!max_seen || *max_seen < event) max_seen = event;
            }
            if (event < watermark) {
              if (self.route_late(event, watermark, std::move(record), side, *stats))
                on_time.emplace_back(watermark, std::move(record));
            } else {
              bool punctuation = false;
              if constexpr (!std::is_same_v<Policy, BoundedOutOfOrderness<T>> && !idle_detection)
                punctuation = static_cast<bool>(self.policy.is_watermark(std::as_const(record)));
              on_time.emplace_back(event, std::move(record));
              ++stats->on_time;
              if (punctuation) watermark = event;
            }
            if constexpr (std::is_same_v<Policy, BoundedOutOfOrderness<T>>)
              watermark = std::max(watermark, saturating_sub(*max_seen, self.policy.delay));
          }
        });
        // Sessions are opened from the capability we still hold (at or before every time sent).
        emit_by_time(on_time, out, [&](const T& t) { return caps[0].delayed(t); });
        emit_by_time(side, side_out, [&](const T& t) { return caps[1].delayed(t); });
        if constexpr (idle_detection) {
          if (received) {
            last_record = now;
            stats->idle = false;
          }
          if (now - last_tick >= self.policy.interval) {
            last_tick = now;
            if (max_seen) watermark = std::max(watermark, saturating_sub(*max_seen, self.policy.delay));
          }
          if (!stats->idle && now - last_record >= self.policy.idle_after) stats->idle = true;
          if (stats->idle) {
            // Follow the least watermark of the workers that are not idle, once every worker
            // has announced; if every other worker is idle too, the greatest of theirs (their
            // watermarks come from records they saw; ours would hold everyone back).
            std::optional<T> least, greatest;
            bool unknown = false;
            for (std::size_t p = 0; p < peers; ++p) {
              if (p == index) continue;
              const auto& entry = board->peers[p];
              if (!entry) {
                unknown = true;
                continue;
              }
              if (entry->second) {
                if (!greatest || *greatest < entry->first) greatest = entry->first;
              } else if (!least || entry->first < *least) {
                least = entry->first;
              }
            }
            if (!unknown && least) watermark = std::max(watermark, *least);
            if (!unknown && !least && greatest) watermark = std::max(watermark, *greatest);
          }
        }
        if (input.frontier().frontier().empty()) {
          stats->done = true;
          if constexpr (idle_detection) {
            auto session = announce.session(caps[2]);
            for (std::size_t p = 0; p < peers; ++p) session.give(Announcement{p, index, watermark, true});
          }
          caps.clear();
          return;
        }
        for (auto& cap : caps) cap.downgrade(watermark);
        stats->watermark = watermark;
        if constexpr (idle_detection) {
          const std::pair<T, bool> mine{watermark, stats->idle};
          if (!announced || *announced != mine) {
            announced = mine;
            auto session = announce.session(caps[2]);
            for (std::size_t p = 0; p < peers; ++p)
              session.give(Announcement{p, index, watermark, stats->idle});
          }
          activator.activate_after(self.policy.interval);
        }
      };
    });
    if constexpr (idle_detection) {
      // The announcements of every worker reach every worker's board.
      OperatorBuilder<T> sink(stream.scope(), "WatermarkBoard");
      auto announcements = sink.new_input(announce_made.stream, Exchange{[](const Announcement& a) {
                                            return static_cast<std::uint64_t>(a.target);
                                          }});
      sink.set_notify(0, progress::FrontierInterest::Never);
      sink.build([&](std::vector<Capability<T>>) {
        return [announcements = std::move(announcements), board]() mutable {
          bool any = false;
          announcements.for_each([&](const InputCapability<T>&, std::vector<Announcement>& batch) {
            for (const auto& a : batch) {
              auto& entry = board->peers[a.from];
              // Announcements from one worker may be reordered by time; keep the latest.
              if (!entry || entry->first <= a.watermark) entry = std::pair<T, bool>{a.watermark, a.idle};
              any = true;
            }
          });
          if (any && board->source) board->source->activate();
        };
      });
    }
    return {std::move(made.stream), std::move(late_made.stream), std::move(stats)};
  }
};

}  // namespace detail

/// `stream | event_time(extract, policy, late)`: see the file comment. `extract(const D&) -> T`
/// gives a record's event time; `policy` is one of `bounded_out_of_orderness`, `punctuated`,
/// `periodic`, `exact_watermark`; `late` one of `drop_late` (default), `late_to_side_stream`,
/// `allowed_lateness`.
template <class Extract, class Policy, class Late = DropLate>
auto event_time(Extract extract, Policy policy, Late late = {}) {
  return detail::EventTimeOp<Extract, Policy, Late>{std::move(extract), std::move(policy), std::move(late)};
}

}  // namespace timely::streaming
