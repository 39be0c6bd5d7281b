/// \file
/// Event-time joins of two keyed streams: `window_join` (both records in the same tumbling or
/// sliding window), `interval_join` (the right record within `[left - before, left + after]` of
/// the left one) and `ttl_join` (an updating equi-join whose state lives `ttl` in event time).
/// All three exchange both inputs by `boost::hash` of the key (so each key lives on one
/// worker), keep per-key state in a `boost::unordered_flat_map`, and drop state once the
/// frontier says no record can still match it.
///
/// Shapes, on `left: Stream<T, L>` and `right: Stream<T, R>` with `key_left(const L&) -> K`,
/// `key_right(const R&) -> K` (the same `K`) and `joiner(const L&, const R&) -> Out`:
/// - `left | window_join(right, windows, key_left, key_right, joiner[, stats])` with `windows`
///   from `tumbling(w)` or `sliding(w, s)` (window.hpp) gives a `Stream<T,
///   WindowResult<T, K, Out>>`: for each window `[start, end)` and key, `joiner(l, r)` for every
///   pair of records of that key whose times are both in the window (a pair in two overlapping
///   windows is emitted once for each). A window is emitted at time `end - 1` once both input
///   frontiers have passed `end - 1`; it holds one capability per distinct pending window end
///   (a `TimerSet`), not per key. Records are kept in panes of `gcd(width, slide)` and a pane
///   is dropped once its last window has been emitted. Flink: `DataStream.join(...).window(...)`.
/// - `left | interval_join(right, before, after, key_left, key_right, joiner[, stats])` gives a
///   `Stream<T, Out>`: `joiner(l, r)` for every pair of one key with
///   `t_l - before <= t_r <= t_l + after` (both bounds inclusive), at time `max(t_l, t_r)`,
///   emitted as soon as the second record of the pair arrives (no buffering, so it holds no
///   capabilities). A left record is dropped once the right frontier has passed
///   `t_l + after`, a right record once the left frontier has passed `t_r + before`.
///   Flink: `KeyedStream.intervalJoin(...).between(-before, after)`.
/// - `left | ttl_join(right, ttl, key_left, key_right, joiner[, stats])`: the updating
///   equi-join of two unbounded streams whose state expires `ttl` after its event time: each
///   record is joined, as it arrives, with every stored record of the other side that has not
///   expired, and stored until the other side's frontier has passed `t + ttl`. So that the
///   result does not depend on arrival order, a pair matches exactly when
///   `|t_l - t_r| <= ttl` (the interval join with `before = after = ttl`); `ttl = max_time<T>()`
///   keeps everything (an unbounded join, Nexmark Q3). Flink: a regular join with
///   `table.exec.state.ttl`, in event time instead of processing time.
/// Event time is the records' message time (the frontier is the watermark, watermark.hpp).
///
/// `stats` (a `JoinStats`, optional) is kept up to date with this worker's keys with state,
/// stored records per side and held capabilities, so a test can see state dropped: once both
/// inputs are complete all of it is zero.
///
/// \throws StreamingError naming the argument if `before`, `after` or `ttl` is negative (for
/// signed times such as `std::chrono` durations); the window kinds throw `WindowError`.
/// Source of the idea: Flink's window join and interval join (`IntervalJoinOperator`: state per
/// side, cleanup timers at `t + bound`), and its state TTL. Thread-safety: none; operators run
/// on their worker's thread and `stats` belongs to its worker.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/streaming/event_time.hpp>
#include <timely/streaming/keyed.hpp>
#include <timely/streaming/window.hpp>

namespace timely::streaming {

/// Live state of a join on one worker.
struct JoinStats {
  /// Keys with stored records.
  std::size_t keys = 0;
  /// Stored records of the left and the right input.
  std::size_t left_records = 0;
  std::size_t right_records = 0;
  /// Window panes with records (window_join only).
  std::size_t panes = 0;
  /// Distinct times at which capabilities are held.
  std::size_t held_times = 0;
};

namespace detail {

/// True once no element of `frontier` is `<= t`: nothing at or before `t` can still arrive.
template <class T>
bool passed(const progress::MutableAntichain<T>& frontier, const T& t) {
  return !frontier.less_equal(t);
}

template <class K, class KeyOf, class D>
auto join_pact(KeyOf key_of) {
  return dataflow::Exchange{[key_of](const D& d) -> std::uint64_t {
    return static_cast<std::uint64_t>(boost::hash<K>{}(key_of(d)));
  }};
}

template <EventTime T>
void check_bound(const T& value, const char* name, const char* op) {
  if constexpr (!std::is_unsigned_v<T>)
    if (value < T{})
      throw StreamingError(std::string("timely::streaming::") + op + ": argument '" + name +
                           "' must not be negative (got " + describe(value) + ")");
}

template <Timestamp T, class R, class KL, class KR, class J>
struct WindowJoinOp {
  dataflow::Stream<T, R> right;
  SlidingWindows<T> spec;
  KL key_left;
  KR key_right;
  J joiner;
  std::shared_ptr<JoinStats> stats;

  template <class L>
  auto operator()(const dataflow::Stream<T, L>& left) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    static_assert(EventTime<T>, "timely::streaming::window_join: the timestamp must be an EventTime");
    using K = std::decay_t<std::invoke_result_t<const KL&, const L&>>;
    static_assert(std::is_same_v<K, std::decay_t<std::invoke_result_t<const KR&, const R&>>>,
                  "timely::streaming::window_join: key_left and key_right must return the same key type");
    using Out = std::decay_t<std::invoke_result_t<const J&, const L&, const R&>>;
    using Result = WindowResult<T, K, Out>;
    struct Pane {
      std::vector<L> left;
      std::vector<R> right;
    };
    return left |
           binary_frontier<Result>(
               right, join_pact<K, KL, L>(key_left), join_pact<K, KR, R>(key_right), "WindowJoin",
               [op = *this](auto, const auto&) {
                 return [op, state = boost::unordered_flat_map<K, std::map<T, Pane>, boost::hash<K>>{},
                         timers = TimerSet<T, std::vector<std::pair<K, T>>>{}, live_panes = std::size_t{0},
                         lefts = std::size_t{0},
                         rights = std::size_t{0}](OperatorInput<T, L>& in1, OperatorInput<T, R>& in2,
                                                  OperatorOutput<T, Result>& output) mutable {
                   const auto& s = op.spec;
                   const T one = one_tick<T>();
                   auto last_end = [&](const T& ps) {
                     return saturating_add(align_down(ps, s.slide), s.width);
                   };
                   // The pane of `key` holding time `t`, registering the fire of every window
                   // that gets its first pane.
                   auto pane_at = [&](const K& key, const T& t, const InputCapability<T>& cap) -> Pane& {
                     const T ps = align_down(t, s.pane);
                     auto& panes = state[key];
                     auto [it, fresh] = panes.try_emplace(ps);
                     if (fresh) {
                       ++live_panes;
                       for (T start = align_down(ps, s.slide);;) {
                         if (!(ps < saturating_add(start, s.width))) break;
                         const T end = saturating_add(start, s.width);
                         auto other = panes.lower_bound(start);
                         if (other != panes.end() && other->first == ps) ++other;
                         if (other == panes.end() || !(other->first < end))
                           timers.at(end - one, cap).emplace_back(key, start);
                         if (start < s.slide) break;
                         start = start - s.slide;
                       }
                     }
                     return it->second;
                   };
                   in1.for_each([&](const InputCapability<T>& cap, std::vector<L>& batch) {
                     for (auto& l : batch) {
                       pane_at(op.key_left(l), cap.time(), cap).left.push_back(std::move(l));
                       ++lefts;
                     }
                   });
                   in2.for_each([&](const InputCapability<T>& cap, std::vector<R>& batch) {
                     for (auto& r : batch) {
                       pane_at(op.key_right(r), cap.time(), cap).right.push_back(std::move(r));
                       ++rights;
                     }
                   });
                   while (auto due = timers.earliest()) {
                     if (!passed(in1.frontier(), *due) || !passed(in2.frontier(), *due)) break;
                     auto [cap, fires] = timers.pop_earliest();
                     const T tau = cap.time();
                     auto session = output.session(cap);
                     for (const auto& [key, start] : fires) {
                       auto found = state.find(key);
                       if (found == state.end()) continue;
                       auto& panes = found->second;
                       const T end = saturating_add(start, s.width);
                       for (auto a = panes.lower_bound(start); a != panes.end() && a->first < end; ++a)
                         for (const auto& l : a->second.left)
                           for (auto b = panes.lower_bound(start); b != panes.end() && b->first < end; ++b)
                             for (const auto& r : b->second.right)
                               session.give(Result{key, start, end, op.joiner(l, r)});
                       // Panes whose last window is this one or earlier are no longer needed.
                       while (!panes.empty() && !(tau < last_end(panes.begin()->first) - one)) {
                         lefts -= panes.begin()->second.left.size();
                         rights -= panes.begin()->second.right.size();
                         panes.erase(panes.begin());
                         --live_panes;
                       }
                       if (panes.empty()) state.erase(found);
                     }
                   }
                   if (op.stats) {
                     op.stats->keys = state.size();
                     op.stats->left_records = lefts;
                     op.stats->right_records = rights;
                     op.stats->panes = live_panes;
                     op.stats->held_times = timers.size();
                   }
                 };
               });
  }
};

template <Timestamp T, class R, class KL, class KR, class J>
struct IntervalJoinOp {
  dataflow::Stream<T, R> right;
  T before;
  T after;
  KL key_left;
  KR key_right;
  J joiner;
  std::shared_ptr<JoinStats> stats;
  const char* name;

  template <class L>
  auto operator()(const dataflow::Stream<T, L>& left) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    static_assert(EventTime<T>, "timely::streaming::interval_join: the timestamp must be an EventTime");
    using K = std::decay_t<std::invoke_result_t<const KL&, const L&>>;
    static_assert(std::is_same_v<K, std::decay_t<std::invoke_result_t<const KR&, const R&>>>,
                  "timely::streaming::interval_join: key_left and key_right must return the same key type");
    using Out = std::decay_t<std::invoke_result_t<const J&, const L&, const R&>>;
    struct Sides {
      std::map<T, std::vector<L>> left;
      std::map<T, std::vector<R>> right;
    };
    return left | binary_frontier<Out>(
                      right, join_pact<K, KL, L>(key_left), join_pact<K, KR, R>(key_right), name,
                      [op = *this](auto, const auto&) {
                        return [op, state = boost::unordered_flat_map<K, Sides, boost::hash<K>>{},
                                left_expiry = std::map<T, std::vector<K>>{},
                                right_expiry = std::map<T, std::vector<K>>{}, lefts = std::size_t{0},
                                rights = std::size_t{0}, out = std::map<T, std::vector<Out>>{}](
                                   OperatorInput<T, L>& in1, OperatorInput<T, R>& in2,
                                   OperatorOutput<T, Out>& output) mutable {
                          // Sends the matches of one input batch, each at max(t_l, t_r).
                          auto flush = [&](const InputCapability<T>& cap) {
                            for (auto& [t, records] : out) {
                              auto session = output.session(cap.delayed(t));
                              session.give_vec(records);
                            }
                            out.clear();
                          };
                          // A pair is found by whichever of its records arrives second.
                          in1.for_each([&](const InputCapability<T>& cap, std::vector<L>& batch) {
                            const T t = cap.time();
                            const T lo = saturating_sub(t, op.before), hi = saturating_add(t, op.after);
                            for (auto& l : batch) {
                              K key = op.key_left(l);
                              auto& sides = state[key];
                              for (auto it = sides.right.lower_bound(lo);
                                   it != sides.right.end() && !(hi < it->first); ++it)
                                for (const auto& r : it->second)
                                  out[std::max(t, it->first)].push_back(op.joiner(l, r));
                              auto [at, fresh] = sides.left.try_emplace(t);
                              if (fresh) left_expiry[hi].push_back(key);
                              at->second.push_back(std::move(l));
                              ++lefts;
                            }
                            flush(cap);
                          });
                          in2.for_each([&](const InputCapability<T>& cap, std::vector<R>& batch) {
                            const T t = cap.time();
                            const T lo = saturating_sub(t, op.after), hi = saturating_add(t, op.before);
                            for (auto& r : batch) {
                              K key = op.key_right(r);
                              auto& sides = state[key];
                              for (auto it = sides.left.lower_bound(lo);
                                   it != sides.left.end() && !(hi < it->first); ++it)
                                for (const auto& l : it->second)
                                  out[std::max(t, it->first)].push_back(op.joiner(l, r));
                              auto [at, fresh] = sides.right.try_emplace(t);
                              if (fresh) right_expiry[hi].push_back(key);
                              at->second.push_back(std::move(r));
                              ++rights;
                            }
                            flush(cap);
                          });
                          // Left records can only meet right records still to come, and vice versa.
                          auto expire = [&](auto& expiry, const auto& frontier, auto side, const T& bound,
                                            std::size_t& count) {
                            while (!expiry.empty() && passed(frontier, expiry.begin()->first)) {
                              for (const auto& key : expiry.begin()->second) {
                                auto found = state.find(key);
                                if (found == state.end()) continue;
                                auto& records = found->second.*side;
                                while (!records.empty() &&
                                       passed(frontier, saturating_add(records.begin()->first, bound))) {
                                  count -= records.begin()->second.size();
                                  records.erase(records.begin());
                                }
                                if (found->second.left.empty() && found->second.right.empty())
                                  state.erase(found);
                              }
                              expiry.erase(expiry.begin());
                            }
                          };
                          expire(left_expiry, in2.frontier(), &Sides::left, op.after, lefts);
                          expire(right_expiry, in1.frontier(), &Sides::right, op.before, rights);
                          if (op.stats) {
                            op.stats->keys = state.size();
                            op.stats->left_records = lefts;
                            op.stats->right_records = rights;
                            op.stats->held_times = 0;
                          }
                        };
                      });
  }
};

}  // namespace detail

/// `left | window_join(right, windows, key_left, key_right, joiner[, stats])`: see the file
/// comment. `windows` is `tumbling(w)` or `sliding(w, s)` (their allowed lateness is not used).
template <Timestamp T, class R, class KL, class KR, class J>
auto window_join(dataflow::Stream<T, R> right, SlidingWindows<T> windows, KL key_left, KR key_right, J joiner,
                 std::shared_ptr<JoinStats> stats = {}) {
  return detail::WindowJoinOp<T, R, KL, KR, J>{std::move(right),     windows,           std::move(key_left),
                                               std::move(key_right), std::move(joiner), std::move(stats)};
}

/// `left | interval_join(right, before, after, key_left, key_right, joiner[, stats])`: pairs
/// with `t_l - before <= t_r <= t_l + after`. \throws StreamingError naming `before` or `after`
/// if negative.
template <Timestamp T, class R, class KL, class KR, class J>
auto interval_join(dataflow::Stream<T, R> right, T before, T after, KL key_left, KR key_right, J joiner,
                   std::shared_ptr<JoinStats> stats = {}) {
  detail::check_bound(before, "before", "interval_join");
  detail::check_bound(after, "after", "interval_join");
  return detail::IntervalJoinOp<T, R, KL, KR, J>{
      std::move(right),  before,           after,         std::move(key_left), std::move(key_right),
      std::move(joiner), std::move(stats), "IntervalJoin"};
}

/// `left | ttl_join(right, ttl, key_left, key_right, joiner[, stats])`: the updating equi-join
/// whose state expires `ttl` after its event time (`max_time<T>()`: never). \throws
/// StreamingError naming `ttl` if negative.
template <Timestamp T, class R, class KL, class KR, class J>
auto ttl_join(dataflow::Stream<T, R> right, T ttl, KL key_left, KR key_right, J joiner,
              std::shared_ptr<JoinStats> stats = {}) {
  detail::check_bound(ttl, "ttl", "ttl_join");
  return detail::IntervalJoinOp<T, R, KL, KR, J>{
      std::move(right), ttl,      ttl, std::move(key_left), std::move(key_right), std::move(joiner),
      std::move(stats), "TtlJoin"};
}

}  // namespace timely::streaming
