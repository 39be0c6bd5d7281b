/// \file
/// Keyed state and event-time timers: `TimerSet<T, Payload>` (pending timers grouped by time,
/// one held capability per distinct time, not per key), `Global` (the key of unkeyed windows),
/// `KeyedStats` and `keyed_process(key_of, on_record, on_timer)`, an operator in the shape of
/// Flink's `KeyedProcessFunction`.
///
/// `stream | keyed_process<State, Out>(key_of, on_record, on_timer)` on a `Stream<T, D>`:
/// records are exchanged by `boost::hash` of `key_of(record)` (so each key lives on one worker),
/// each key has one `State` (value-initialized when first touched) in a
/// `boost::unordered_flat_map<K, State>`, and
/// - `on_record(const K&, D record, State&, KeyedContext<T, K, Out>&)` runs for each record
///   once every earlier time is complete (records of one key are seen in time order; within
///   one time in arrival order);
/// - `on_timer(const K&, const T& time, State&, KeyedContext<T, K, Out>&)` runs for each timer
///   set with `ctx.set_timer(t)` once the frontier has passed `t` (after the records at `t`).
/// The context sends output at its time (`ctx.emit(out)`), sets timers at or after its time
/// (`ctx.set_timer(t)`, \throws StreamingError naming both times otherwise) and drops the
/// key's state (`ctx.clear_state()`, applied after the callback returns).
///
/// Held capabilities: one per distinct time with pending records or timers, released as the
/// frontier passes, so `stats->held_times` is small even with millions of keys.
///
/// Source of the idea: Flink's keyed state and timer service (timers deduplicated per key and
/// time); the capability-per-time discipline of the reference's `FrontierNotificator`.
/// Thread-safety: none; `stats` belongs to its worker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/streaming/event_time.hpp>

namespace timely::streaming {

/// The single key of global (unkeyed) windows; all its records go to worker 0.
struct Global {
  friend bool operator==(Global, Global) = default;
  friend auto operator<=>(Global, Global) = default;
  friend std::size_t hash_value(Global) { return 0; }
};

/// Pending timers by time: each distinct time holds one `Capability<T>` and a `Payload` (what
/// is to be done then, e.g. the keys whose timers are due). Times are ready once the frontier
/// has passed them (no frontier element `<=` the time).
template <EventTime T, class Payload>
class TimerSet {
 public:
  /// The payload at `time`, created (with a capability minted by `from.delayed(time)`, from an
  /// `InputCapability` or a `Capability` at or before `time`) if none is pending there.
  template <class From>
  Payload& at(const T& time, const From& from) {
    auto it = timers_.find(time);
    if (it == timers_.end()) it = timers_.emplace(time, Entry{from.delayed(time), Payload{}}).first;
    return it->second.payload;
  }
  /// The earliest pending time if the frontier has passed it, removed with its capability.
  std::optional<std::pair<dataflow::Capability<T>, Payload>> pop_ready(
      const progress::MutableAntichain<T>& frontier) {
    if (timers_.empty() || frontier.less_equal(timers_.begin()->first)) return std::nullopt;
    auto node = timers_.extract(timers_.begin());
    return std::pair{std::move(node.mapped().cap), std::move(node.mapped().payload)};
  }
  /// The earliest pending timer with its capability, removed. \pre `!empty()`.
  std::pair<dataflow::Capability<T>, Payload> pop_earliest() {
    auto node = timers_.extract(timers_.begin());
    return std::pair{std::move(node.mapped().cap), std::move(node.mapped().payload)};
  }
  /// The earliest pending time, if any.
  [[nodiscard]] std::optional<T> earliest() const {
    if (timers_.empty()) return std::nullopt;
    return timers_.begin()->first;
  }
  /// The number of distinct pending times (= capabilities held).
  [[nodiscard]] std::size_t size() const noexcept { return timers_.size(); }
  [[nodiscard]] bool empty() const noexcept { return timers_.empty(); }

 private:
  struct Entry {
    dataflow::Capability<T> cap;
    Payload payload;
  };
  std::map<T, Entry> timers_;
};

/// Live state of a keyed operator on one worker.
struct KeyedStats {
  /// Keys with state.
  std::size_t keys = 0;
  /// Window panes or sessions with state (windows only).
  std::size_t panes = 0;
  /// Distinct times at which capabilities are held (for `keyed_process`: pending timers' times
  /// plus the times of records received ahead of the input frontier).
  std::size_t held_times = 0;
  /// Distinct times with pending timers (`keyed_process` only). Unlike `held_times` this does
  /// not depend on how far other workers' records run ahead of this worker's frontier.
  std::size_t timer_times = 0;
  /// Records ignored because every window they belong to was complete (windows only).
  std::uint64_t late_dropped = 0;
};

/// What `keyed_process` callbacks use to act at their time.
template <EventTime T, class K, class Out>
class KeyedContext {
 public:
  KeyedContext(const K& key, const dataflow::Capability<T>& cap, dataflow::Session<T, Out>& session,
               TimerSet<T, boost::unordered_flat_set<K, boost::hash<K>>>& timers)
      : key_(key), cap_(cap), session_(session), timers_(timers) {}

  /// The time of the record or timer being handled.
  [[nodiscard]] const T& time() const noexcept { return cap_.time(); }
  /// Sends `out` at `time()`.
  void emit(Out out) { session_.give(std::move(out)); }
  /// Calls `on_timer` for this key once the frontier has passed `t` (once per key and time).
  /// \throws StreamingError naming both times if `t < time()`.
  void set_timer(const T& t) {
    if (t < cap_.time())
      throw StreamingError("timely::streaming::keyed_process: set_timer(" + describe(t) +
                           ") is before the "
                           "current time " +
                           describe(cap_.time()));
    timers_.at(t, cap_).insert(key_);
  }
  /// Drops this key's state once the callback returns.
  void clear_state() noexcept { clear_ = true; }
  [[nodiscard]] bool cleared() const noexcept { return clear_; }

 private:
  const K& key_;
  const dataflow::Capability<T>& cap_;
  dataflow::Session<T, Out>& session_;
  TimerSet<T, boost::unordered_flat_set<K, boost::hash<K>>>& timers_;
  bool clear_ = false;
};

namespace detail {

template <class State, class Out, class KeyOf, class OnRecord, class OnTimer>
struct KeyedProcessOp {
  KeyOf key_of;
  OnRecord on_record;
  OnTimer on_timer;
  std::shared_ptr<KeyedStats> stats;

  template <Timestamp T, class D>
  dataflow::Stream<T, Out> operator()(const dataflow::Stream<T, D>& stream) const {
    using namespace timely::dataflow;
    using namespace timely::dataflow::operators;
    static_assert(EventTime<T>, "timely::streaming::keyed_process: the timestamp must be an EventTime");
    using K = std::decay_t<std::invoke_result_t<const KeyOf&, const D&>>;
    using Ctx = KeyedContext<T, K, Out>;
    static_assert(std::is_invocable_v<OnRecord&, const K&, D&&, State&, Ctx&>,
                  "keyed_process: on_record must be callable as on_record(const K&, D, State&, "
                  "KeyedContext<T, K, Out>&)");
    static_assert(std::is_invocable_v<OnTimer&, const K&, const T&, State&, Ctx&>,
                  "keyed_process: on_timer must be callable as on_timer(const K&, const T&, State&, "
                  "KeyedContext<T, K, Out>&)");
    auto route = [key_of = key_of](const D& d) {
      return static_cast<std::uint64_t>(boost::hash<K>{}(key_of(d)));
    };
    return stream | unary_frontier<Out>(Exchange{route}, "KeyedProcess", [op = *this](auto, const auto&) {
             return [op, states = boost::unordered_flat_map<K, State, boost::hash<K>>{},
                     held = TimerSet<T, std::vector<D>>{},
                     timers = TimerSet<T, boost::unordered_flat_set<K, boost::hash<K>>>{}](
                        OperatorInput<T, D>& input, OperatorOutput<T, Out>& output) mutable {
               input.for_each([&](const InputCapability<T>& cap, std::vector<D>& batch) {
                 auto& records = held.at(cap.time(), cap);
                 for (auto& r : batch) records.push_back(std::move(r));
               });
               const auto& frontier = input.frontier();
               // Records at t once no time before t can arrive; timers at t once t is complete.
               // Records at t go before timers at t.
               while (true) {
                 const auto rt = held.earliest();
                 const auto tt = timers.earliest();
                 const bool records_ready = rt && !frontier.less_than(*rt) && (!tt || !(*tt < *rt));
                 if (records_ready) {
                   auto [cap, records] = held.pop_earliest();
                   auto session = output.session(cap);
                   for (auto& r : records) {
                     K key = op.key_of(r);
                     auto state = states.try_emplace(key).first;
                     Ctx ctx(state->first, cap, session, timers);
                     op.on_record(state->first, std::move(r), state->second, ctx);
                     if (ctx.cleared()) states.erase(state);
                   }
                   continue;
                 }
                 auto due = timers.pop_ready(frontier);
                 if (!due) break;
                 auto& [cap, keys] = *due;
                 auto session = output.session(cap);
                 for (const auto& key : keys) {
                   auto state = states.try_emplace(key).first;
                   Ctx ctx(state->first, cap, session, timers);
                   op.on_timer(state->first, cap.time(), state->second, ctx);
                   if (ctx.cleared()) states.erase(state);
                 }
               }
               if (op.stats) {
                 op.stats->keys = states.size();
                 op.stats->held_times = held.size() + timers.size();
                 op.stats->timer_times = timers.size();
               }
             };
           });
  }
};

}  // namespace detail

/// `stream | keyed_process<State, Out>(key_of, on_record, on_timer[, stats])`: see the file
/// comment. `stats`, if given, is kept up to date with this worker's live keys and held times.
template <class State, class Out, class KeyOf, class OnRecord, class OnTimer>
auto keyed_process(KeyOf key_of, OnRecord on_record, OnTimer on_timer,
                   std::shared_ptr<KeyedStats> stats = {}) {
  return detail::KeyedProcessOp<State, Out, KeyOf, OnRecord, OnTimer>{std::move(key_of), std::move(on_record),
                                                                      std::move(on_timer), std::move(stats)};
}

}  // namespace timely::streaming
