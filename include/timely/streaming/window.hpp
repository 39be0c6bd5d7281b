/// \file
/// Windows by key or global over event time: `stream | window(kind, keys, aggregate)` on a
/// `Stream<T, D>` returns a `Stream<T, WindowResult<T, K, R>>`, one result per key and window,
/// carrying the window's bounds `[start, end)`.
///
/// Kinds (errors: `WindowError` naming the argument):
/// - `tumbling(width)`: `[k*width, (k+1)*width)`. \throws if `width` is zero.
/// - `sliding(width, slide)` (hopping): windows of `width` starting every `slide`. Computed over
///   panes of `gcd(width, slide)`: a record is added to its one pane, a window merges its
///   `width / pane` panes when it fires (no pane, no gain). \throws if either is zero or
///   `slide > width` (windows with gaps would silently drop records).
/// - `session(gap)`: per key, records closer than `gap` form one session `[first, last + gap)`;
///   a record that bridges two sessions merges them. \throws if `gap` is zero.
/// - `count_window(size[, slide])`: per key, every `slide` records (default `size`) the last
///   `size` records, taken in time order (within one time in the records' `<` order, when `D` has
///   one, so the result does not depend on arrival order). Bounds: `[first record's time, last
///   record's time + 1)`. A window that never fills is never emitted. \throws if either is zero
///   or `slide > size`.
/// Keys: `by_key(f)` with `f(const D&) -> K` (records are exchanged by `boost::hash<K>`) or
/// `global()` (key `Global`, all records to worker 0). Aggregates: aggregate.hpp.
///
/// When results come: a window `[start, end)` is emitted at time `end - 1` once the input
/// frontier has passed `end - 1` (no record of the window can still come); a session at its
/// `end - 1`; a count window at the time of its last record, once that time is complete.
/// Options (time windows):
/// - `.event_time(f)`: the record's event time is `f(record)` instead of its message time
///   (needed with sources forwarding late records, watermark.hpp `allowed_lateness`).
/// - `.allowed_lateness(L)` (tumbling and sliding): a record whose message time `tau` is after
///   its window's end (`end <= tau <= end - 1 + L`) updates the window, which is emitted again
///   at `tau` with every record up to `tau` (after records at `tau` are all in); the state of a
///   window is kept until the frontier passes `end - 1 + L`. Records later than that for every
///   window they belong to are counted in `stats->late_dropped`.
/// - `.stats(ptr)`: keeps a `KeyedStats` up to date with this worker's live keys, panes (or
///   sessions, or count panes) and held times; once the frontier has passed every window (and
///   its lateness) they are zero.
/// State is dropped when the frontier says so: a pane once its last window is past its
/// lateness, a session once emitted.
///
/// Source of the idea: Flink's window assigners and allowed lateness; Li et al., "No pane, no
/// gain" (SIGMOD Record 2005) for panes. Thread-safety: none; `stats` belongs to its worker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/streaming/aggregate.hpp>
#include <timely/streaming/event_time.hpp>
#include <timely/streaming/keyed.hpp>

namespace timely::streaming {

/// One window's result: `key`, bounds `[start, end)` in event time, and the aggregate's value.
template <class T, class K, class R>
struct WindowResult {
  K key;
  T start;
  T end;
  R value;
  friend bool operator==(const WindowResult&, const WindowResult&) = default;
  friend auto operator<=>(const WindowResult&, const WindowResult&) = default;
};

/// Tumbling and sliding windows: `width`, `slide`, the pane (their gcd) and the lateness.
template <EventTime T>
struct SlidingWindows {
  T width;
  T slide;
  T pane;
  T lateness{};
};
/// Session windows with a gap.
template <EventTime T>
struct SessionWindows {
  T gap;
};
/// Count windows: `size` records every `slide` records, in panes of their gcd.
struct CountWindows {
  std::size_t size;
  std::size_t slide;
  std::size_t pane;
};

/// `[k*width, (k+1)*width)`. \throws WindowError naming `width` if it is zero.
template <EventTime T>
SlidingWindows<T> tumbling(T width) {
  if (!(T{} < width))
    detail::throw_window("timely::streaming::tumbling: argument 'width' must be positive (got " +
                         describe(width) + ")");
  return {width, width, width};
}
/// Windows of `width` every `slide`. \throws WindowError naming `width` or `slide` if zero, or
/// `slide` if it exceeds `width`.
template <EventTime T>
SlidingWindows<T> sliding(T width, T slide) {
  if (!(T{} < width))
    detail::throw_window("timely::streaming::sliding: argument 'width' must be positive (got " +
                         describe(width) + ")");
  if (!(T{} < slide))
    detail::throw_window("timely::streaming::sliding: argument 'slide' must be positive (got " +
                         describe(slide) + ")");
  if (width < slide)
    detail::throw_window("timely::streaming::sliding: argument 'slide' (" + describe(slide) +
                         ") must not exceed argument 'width' (" + describe(width) + ")");
  return {width, slide, gcd_time(width, slide)};
}
/// Sessions closed by `gap` without records. \throws WindowError naming `gap` if zero.
template <EventTime T>
SessionWindows<T> session(T gap) {
  if (!(T{} < gap))
    detail::throw_window("timely::streaming::session: argument 'gap' must be positive (got " + describe(gap) +
                         ")");
  return {gap};
}
/// The last `size` records every `slide` records (default: `size`, tumbling).
/// \throws WindowError naming `size` or `slide` if zero, or `slide` if it exceeds `size`.
inline CountWindows count_window(std::size_t size, std::size_t slide = 0) {
  if (size == 0)
    detail::throw_window("timely::streaming::count_window: argument 'size' must be positive (got 0)");
  if (slide == 0) slide = size;
  if (slide > size)
    detail::throw_window("timely::streaming::count_window: argument 'slide' (" + std::to_string(slide) +
                         ") must not exceed argument 'size' (" + std::to_string(size) + ")");
  std::size_t a = size, b = slide;
  while (b != 0) a = std::exchange(b, a % b);
  return {size, slide, a};
}

/// Windows per key `f(record)`.
template <class F>
struct ByKey {
  F f;
};
template <class F>
ByKey<F> by_key(F f) {
  return {std::move(f)};
}
/// One window sequence over all records (key `Global`, on worker 0).
struct GlobalWindows {};
inline GlobalWindows global() { return {}; }

/// The event time of a record is its message's time (the default).
struct MessageTime {};

namespace detail {

template <class Keys, class D>
auto key_of(const Keys& keys, const D& d) {
  if constexpr (std::is_same_v<Keys, GlobalWindows>)
    return Global{};
  else
    return keys.f(d);
}

template <class Keys, class D>
auto window_pact(const Keys& keys) {
  using K = std::decay_t<decltype(key_of(keys, std::declval<const D&>()))>;
  if constexpr (std::is_same_v<Keys, GlobalWindows>)
    return dataflow::Exchange{[](const D&) -> std::uint64_t { return 0; }};
  else
    return dataflow::Exchange{[keys](const D& d) -> std::uint64_t {
      return static_cast<std::uint64_t>(boost::hash<K>{}(keys.f(d)));
    }};
}

template <class Spec, class Keys, class Agg, class TimeOf>
struct WindowOp {
  Spec spec;
  Keys keys;
  Agg agg;
  TimeOf time_of;
  std::shared_ptr<KeyedStats> stats_ptr;

  /// Records' event time from `f(record)` instead of their message time.
  template <class F>
  WindowOp<Spec, Keys, Agg, F> event_time(F f) const {
    return {spec, keys, agg, std::move(f), stats_ptr};
  }
  /// Keep windows for `lateness` after their end and emit them again on late records.
  /// \throws StreamingError for session and count windows.
  template <class L>
  WindowOp allowed_lateness(L lateness) const {
    WindowOp op = *this;
    if constexpr (requires { op.spec.lateness = lateness; })
      op.spec.lateness = lateness;
    else
      throw StreamingError(
          "timely::streaming::window: allowed_lateness is supported by tumbling and sliding "
          "windows only");
    return op;
  }
  /// Keeps `stats` up to date with this worker's live state.
  WindowOp stats(std::shared_ptr<KeyedStats> stats) const {
    WindowOp op = *this;
    op.stats_ptr = std::move(stats);
    return op;
  }

  template <class T, class D>
  T event_of(const D& d, const T& message) const {
    if constexpr (std::is_same_v<TimeOf, MessageTime>)
      return message;
    else
      return static_cast<T>(time_of(d));
  }

  template <Timestamp T, class D>
  auto operator()(const dataflow::Stream<T, D>& stream) const {
    static_assert(EventTime<T>, "timely::streaming::window: the timestamp must be an EventTime");
    using K = std::decay_t<decltype(key_of(keys, std::declval<const D&>()))>;
    using Acc = std::decay_t<decltype(agg.template init<D>())>;
    static_assert(
        requires(Acc & a, const Acc& b, const D& d) {
          agg.add(a, d);
          agg.merge(a, b);
          agg.finish(b);
        },
        "timely::streaming::window: the aggregate needs init<D>(), add(Acc&, const D&), merge(Acc&, const "
        "Acc&) "
        "and finish(const Acc&) (aggregate.hpp)");
    using R = std::decay_t<decltype(agg.finish(std::declval<const Acc&>()))>;
    using Result = WindowResult<T, K, R>;
    if constexpr (std::is_same_v<Spec, CountWindows>)
      return counted<T, D, K, Acc, Result>(stream);
    else if constexpr (std::is_same_v<Spec, SessionWindows<T>>)
      return sessions<T, D, K, Acc, Result>(stream);
    else
      return panes<T, D, K, Acc, Result>(stream);
  }

  // Tumbling and sliding windows over panes.
  template <class T, class D, class K, class Acc, class Result>
  dataflow::Stream<T, Result> panes(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    struct Actions {
      std::vector<D> late;                 // records to apply at this time (message time after their window)
      std::vector<std::pair<K, T>> fires;  // (key, window start) to emit
      std::vector<K> cleanups;             // keys whose passed panes to drop
    };
    return stream |
           unary_frontier<Result>(window_pact<Keys, D>(keys), "Window", [op = *this](auto, const auto&) {
             return [op, state = boost::unordered_flat_map<K, std::map<T, Acc>, boost::hash<K>>{},
                     timers = TimerSet<T, Actions>{}, live_panes = std::size_t{0},
                     late_dropped = std::uint64_t{0}](OperatorInput<T, D>& input,
                                                      OperatorOutput<T, Result>& output) mutable {
               const auto& s = op.spec;
               const T one = one_tick<T>();
               // The last window containing the pane starting at `ps` ends at `last_end(ps)`.
               auto last_end = [&](const T& ps) { return saturating_add(align_down(ps, s.slide), s.width); };
               auto first_end = [&](const T& ps) {
                 T start = align_down(ps, s.slide);
                 while (!(start < s.slide) && ps < start - s.slide + s.width) start = start - s.slide;
                 return saturating_add(start, s.width);
               };
               // Adds `record` (event time `e`) at time `tau`; new timers at `tau` go to `current`.
               auto apply = [&](D&& record, const T& e, const T& tau, const auto& from, Actions* current,
                                boost::unordered_flat_map<K, std::vector<T>, boost::hash<K>>* dirty) {
                 const T ps = align_down(e, s.pane);
                 const T cleanup = saturating_add(last_end(ps) - one, s.lateness);
                 if (cleanup < tau) {
                   ++late_dropped;
                   return;
                 }
                 K key = key_of(op.keys, record);
                 auto& panes = state[key];
                 auto [it, fresh] = panes.try_emplace(ps, op.agg.template init<D>());
                 op.agg.add(it->second, std::as_const(record));
                 auto at = [&](const T& t) -> Actions& {
                   if (current && t == tau) return *current;
                   return timers.at(t, from);
                 };
                 if (fresh) {
                   ++live_panes;
                   at(cleanup).cleanups.push_back(key);
                 }
                 // Windows containing the pane: starts from align_down(ps, slide) down.
                 T start = align_down(ps, s.slide);
                 while (true) {
                   if (!(ps < saturating_add(start, s.width))) break;
                   const T end = saturating_add(start, s.width);
                   if (!(end - one < tau)) {
                     if (fresh) {
                       auto other = panes.lower_bound(start);
                       if (other != panes.end() && other->first == ps) ++other;
                       if (other == panes.end() || !(other->first < end))
                         at(end - one).fires.emplace_back(key, start);
                     }
                   } else if (dirty && !(saturating_add(end - one, s.lateness) < tau)) {
                     (*dirty)[key].push_back(start);
                   }
                   if (start < s.slide) break;
                   start = start - s.slide;
                 }
               };
               auto emit = [&](Session<T, Result>& session, const K& key, const T& start) {
                 auto found = state.find(key);
                 if (found == state.end()) return;
                 const T end = saturating_add(start, s.width);
                 Acc acc = op.agg.template init<D>();
                 bool any = false;
                 for (auto it = found->second.lower_bound(start);
                      it != found->second.end() && it->first < end; ++it) {
                   op.agg.merge(acc, it->second);
                   any = true;
                 }
                 if (any) session.give(Result{key, start, end, op.agg.finish(acc)});
               };

               input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
                 for (auto& batch : batches)
                   for (auto& record : batch) {
                     const T e = op.event_of(record, cap.time());
                     // On time for every window it belongs to: apply now. Otherwise apply once
                     // the frontier has passed its message time, in time order with the windows.
                     if (cap.time() < first_end(align_down(e, s.pane)))
                       apply(std::move(record), e, cap.time(), cap, nullptr, nullptr);
                     else
                       timers.at(cap.time(), cap).late.push_back(std::move(record));
                   }
               });
               while (auto due = timers.pop_ready(input.frontier())) {
                 auto& cap = due->first;
                 Actions& actions = due->second;
                 const T tau = cap.time();
                 boost::unordered_flat_map<K, std::vector<T>, boost::hash<K>> dirty;
                 for (std::size_t i = 0; i < actions.late.size(); ++i) {
                   D record = std::move(actions.late[i]);
                   const T e = op.event_of(record, tau);
                   apply(std::move(record), e, tau, cap, &actions, &dirty);
                 }
                 auto session = output.session(cap);
                 for (const auto& [key, start] : actions.fires) emit(session, key, start);
                 for (auto& [key, starts] : dirty) {
                   std::sort(starts.begin(), starts.end());
                   starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
                   for (const auto& start : starts) emit(session, key, start);
                 }
                 for (const auto& key : actions.cleanups) {
                   auto found = state.find(key);
                   if (found == state.end()) continue;
                   auto& panes = found->second;
                   while (!panes.empty() &&
                          !(tau < saturating_add(last_end(panes.begin()->first) - one, s.lateness))) {
                     panes.erase(panes.begin());
                     --live_panes;
                   }
                   if (panes.empty()) state.erase(found);
                 }
               }
               if (op.stats_ptr) {
                 op.stats_ptr->keys = state.size();
                 op.stats_ptr->panes = live_panes;
                 op.stats_ptr->held_times = timers.size();
                 op.stats_ptr->late_dropped = late_dropped;
               }
             };
           });
  }

  // Session windows, per key, merging.
  template <class T, class D, class K, class Acc, class Result>
  dataflow::Stream<T, Result> sessions(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    struct Open {
      T end;
      Acc acc;
    };
    return stream | unary_frontier<
                        Result>(window_pact<Keys, D>(keys), "SessionWindow", [op = *this](auto, const auto&) {
             return [op, state = boost::unordered_flat_map<K, std::map<T, Open>, boost::hash<K>>{},
                     timers = TimerSet<T, std::vector<K>>{}, live = std::size_t{0}](
                        OperatorInput<T, D>& input, OperatorOutput<T, Result>& output) mutable {
               const T gap = op.spec.gap;
               const T one = one_tick<T>();
               input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
                 for (auto& batch : batches)
                   for (auto& record : batch) {
                     const T e = op.event_of(record, cap.time());
                     K key = key_of(op.keys, record);
                     auto& open = state[key];
                     T start = e, end = saturating_add(e, gap);
                     Acc acc = op.agg.template init<D>();
                     op.agg.add(acc, std::as_const(record));
                     std::optional<T> old_end;  // the latest end among merged sessions (it has a timer)
                     // Sessions overlapping [e, e + gap) are contiguous: those starting before
                     // e + gap whose end is after e.
                     auto it = open.lower_bound(end);
                     while (it != open.begin()) {
                       auto prev = std::prev(it);
                       if (!(e < prev->second.end)) break;
                       start = std::min(start, prev->first);
                       end = std::max(end, prev->second.end);
                       if (!old_end || *old_end < prev->second.end) old_end = prev->second.end;
                       op.agg.merge(acc, prev->second.acc);
                       it = open.erase(prev);
                       --live;
                     }
                     open.emplace(start, Open{end, std::move(acc)});
                     ++live;
                     if (!old_end || *old_end != end)
                       timers.at(std::max(end - one, cap.time()), cap).push_back(key);
                   }
               });
               while (auto due = timers.pop_ready(input.frontier())) {
                 auto& cap = due->first;
                 auto session = output.session(cap);
                 for (const auto& key : due->second) {
                   auto found = state.find(key);
                   if (found == state.end()) continue;
                   auto& open = found->second;
                   for (auto it = open.begin(); it != open.end();) {
                     if (!(cap.time() < it->second.end - one)) {
                       session.give(Result{key, it->first, it->second.end, op.agg.finish(it->second.acc)});
                       it = open.erase(it);
                       --live;
                     } else {
                       ++it;
                     }
                   }
                   if (open.empty()) state.erase(found);
                 }
               }
               if (op.stats_ptr) {
                 op.stats_ptr->keys = state.size();
                 op.stats_ptr->panes = live;
                 op.stats_ptr->held_times = timers.size();
               }
             };
           });
  }

  // Count windows, per key, in time order.
  template <class T, class D, class K, class Acc, class Result>
  dataflow::Stream<T, Result> counted(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    struct Pane {
      Acc acc;
      T first;
      T last;
      std::size_t records = 0;
    };
    struct Counted {
      std::deque<Pane> panes;
      std::uint64_t seen = 0;
    };
    return stream |
           unary_frontier<Result>(window_pact<Keys, D>(keys), "CountWindow", [op = *this](auto, const auto&) {
             return [op, state = boost::unordered_flat_map<K, Counted, boost::hash<K>>{},
                     held = TimerSet<T, std::vector<D>>{}, live = std::size_t{0}](
                        OperatorInput<T, D>& input, OperatorOutput<T, Result>& output) mutable {
               const auto& s = op.spec;
               input.for_each_time([&](const InputCapability<T>& cap, std::vector<std::vector<D>>& batches) {
                 auto& records = held.at(cap.time(), cap);
                 for (auto& batch : batches)
                   for (auto& record : batch) records.push_back(std::move(record));
               });
               while (auto due = held.pop_ready(input.frontier())) {
                 auto& cap = due->first;
                 auto& records = due->second;
                 if constexpr (std::totally_ordered<D>) std::sort(records.begin(), records.end());
                 const T t = cap.time();
                 auto session = output.session(cap);
                 for (const auto& record : records) {
                   K key = key_of(op.keys, record);
                   auto& c = state[key];
                   if (c.panes.empty() || c.panes.back().records == s.pane) {
                     c.panes.push_back(Pane{op.agg.template init<D>(), op.event_of(record, t), t, 0});
                     ++live;
                   }
                   auto& pane = c.panes.back();
                   op.agg.add(pane.acc, record);
                   pane.last = op.event_of(record, t);
                   ++pane.records;
                   ++c.seen;
                   if (c.seen >= s.size && (c.seen - s.size) % s.slide == 0) {
                     const std::size_t n = s.size / s.pane;
                     Acc acc = op.agg.template init<D>();
                     for (std::size_t i = c.panes.size() - n; i < c.panes.size(); ++i)
                       op.agg.merge(acc, c.panes[i].acc);
                     session.give(Result{key, c.panes[c.panes.size() - n].first,
                                         saturating_add(c.panes.back().last, one_tick<T>()),
                                         op.agg.finish(acc)});
                     // Keep the panes the next windows still need.
                     const std::size_t keep = (s.size - s.slide) / s.pane;
                     while (c.panes.size() > keep) {
                       c.panes.pop_front();
                       --live;
                     }
                     // Tumbling: nothing of this key is needed any more (its count restarts).
                     if (c.panes.empty()) state.erase(key);
                   }
                 }
               }
               if (op.stats_ptr) {
                 op.stats_ptr->keys = state.size();
                 op.stats_ptr->panes = live;
                 op.stats_ptr->held_times = held.size();
               }
             };
           });
  }
};

}  // namespace detail

/// `stream | window(kind, keys, aggregate)`: see the file comment. Returns an operator with
/// `.event_time(f)`, `.allowed_lateness(L)` and `.stats(ptr)`.
template <class Spec, class Keys, class Agg>
auto window(Spec spec, Keys keys, Agg agg) {
  return detail::WindowOp<Spec, Keys, Agg, MessageTime>{std::move(spec), std::move(keys), std::move(agg),
                                                        MessageTime{}, nullptr};
}

}  // namespace timely::streaming
