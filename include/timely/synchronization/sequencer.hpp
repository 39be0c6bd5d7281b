/// \file
/// `timely::synchronization::Sequencer<T>`: every worker may `push` elements; every worker
/// receives all pushed elements, from `next()`, in one total order that is the same on every
/// worker. Useful to agree on a sequence of commands (e.g. which dataflows to build next).
///
/// Use (every worker constructs its sequencer at the same point, like any dataflow):
///     timely::synchronization::Sequencer<std::string> sequencer(worker);
///     sequencer.push("command");
///     while (...) { worker.step(); while (auto x = sequencer.next()) apply(*x); }
///
/// How (SEMANTICS.md §10.4): a dataflow with `std::uint64_t` timestamps. Its source holds a
/// capability; when activated it sends each queued element to every worker (one copy per
/// worker, exchanged by target) as `(sender worker, sender's counter, element)` at its current
/// time, then moves its capability forward to `max(now, latest time seen + 1)`, where `now` is
/// the nanoseconds since this worker created the sequencer. Its sink stashes what arrives and,
/// once its input frontier has passed a time, releases the elements at or before it sorted by
/// `(time, sender, counter)`. The key is unique, so every worker sorts identically (the
/// reference's key uses the receiving worker instead of the sender; see §12 item 36). Whenever
/// the sink sees a time at or after the local source's time it activates the source, which then
/// moves past it: every worker's source catches up, so frontiers pass and elements are released
/// even on workers that push nothing.
///
/// Holds the queue of elements to send, the queue of released elements, and the dataflow's
/// shared state. `T` must be copyable (one copy per worker) and movable across threads.
/// Elements arrive only while the worker steps; `next()` never steps. Destroying the sequencer
/// sends what was pushed and not yet sent, then releases its capability (in the worker's next
/// step); elements released afterwards are discarded. The dataflow completes once every worker
/// destroyed its sequencer.
///
/// Source of the idea: the reference's `synchronization::sequence::Sequencer`.
/// Thread-safety: none; use a sequencer on its worker's thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/scheduling/activations.hpp>
#include <timely/worker.hpp>

namespace timely::synchronization {

namespace detail {

/// One copy of one pushed element, on its way to worker `target`.
template <class T>
struct SequencedRecord {
  std::size_t target = 0;
  std::size_t sender = 0;
  std::uint64_t counter = 0;
  T element;
};

/// What a sequencer shares with its source and sink operators (one worker).
template <class T>
struct SequencerState {
  std::deque<T> outbound;  // pushed, not yet sent
  std::deque<T> inbound;   // released, in the agreed order
  std::optional<scheduling::Activator> source;
  std::uint64_t source_time = 0;  // the source's capability time
  std::uint64_t max_seen = 0;     // largest time the sink received
  bool seen_any = false;
  bool closed = false;  // the sequencer was destroyed
};

}  // namespace detail

/// A total order of elements pushed by all workers, identical on every worker (see the file
/// comment).
template <class T>
class Sequencer {
 public:
  /// Builds the sequencer's dataflow in `worker`. Every worker must construct its sequencer at
  /// the same point of its program.
  explicit Sequencer(Worker& worker) : state_(std::make_shared<State>()) {
    using namespace dataflow;
    using namespace dataflow::operators;
    using Record = detail::SequencedRecord<T>;
    const auto start = std::chrono::steady_clock::now();
    const std::size_t index = worker.index();
    const std::size_t peers = worker.peers();
    worker.dataflow_named<std::uint64_t>("Sequencer", [&](Scope<std::uint64_t>& scope) {
      auto sent = source<Record>(
          scope, "SequencerSource",
          [state = state_, start, index, peers](Capability<std::uint64_t> initial, const OperatorInfo& info) {
            state->source = info.activator;
            return [state, start, index, peers,
                    cap = std::optional<Capability<std::uint64_t>>(std::move(initial)),
                    counter = std::uint64_t{0}](OperatorOutput<std::uint64_t, Record>& output) mutable {
              if (!cap) return;
              if (!state->outbound.empty()) {
                auto session = output.session(*cap);
                while (!state->outbound.empty()) {
                  for (std::size_t target = 0; target < peers; ++target)
                    session.give(Record{target, index, counter, state->outbound.front()});
                  state->outbound.pop_front();
                  ++counter;
                }
              }
              if (state->closed) {
                cap.reset();
                return;
              }
              const auto now =
                  static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                 std::chrono::steady_clock::now() - start)
                                                 .count());
              std::uint64_t next = std::max(cap->time(), now);
              if (state->seen_any) next = std::max(next, state->max_seen + 1);
              cap->downgrade(next);
              state->source_time = next;
            };
          });
      sent |
          sink(Exchange{[](const Record& r) { return static_cast<std::uint64_t>(r.target); }},
               "SequencerSink", [state = state_](const OperatorInfo&) {
                 using Key = std::tuple<std::uint64_t, std::size_t, std::uint64_t>;
                 return [state, stash = std::vector<std::pair<Key, T>>()](
                            OperatorInput<std::uint64_t, Record>& input) mutable {
                   input.for_each([&](const InputCapability<std::uint64_t>& cap, std::vector<Record>& data) {
                     for (auto& r : data) {
                       if (!state->closed)
                         stash.emplace_back(Key{cap.time(), r.sender, r.counter}, std::move(r.element));
                     }
                     if (!state->seen_any || cap.time() > state->max_seen) state->max_seen = cap.time();
                     state->seen_any = true;
                   });
                   // Make the local source move past every time seen, so frontiers pass it.
                   if (state->seen_any && state->max_seen >= state->source_time && !state->closed &&
                       state->source)
                     state->source->activate();
                   const auto& frontier = input.frontier();
                   auto ready = std::partition(stash.begin(), stash.end(), [&](const auto& entry) {
                     return frontier.less_equal(std::get<0>(entry.first));
                   });
                   if (ready == stash.end()) return;
                   std::sort(ready, stash.end(),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
                   for (auto it = ready; it != stash.end(); ++it)
                     state->inbound.push_back(std::move(it->second));
                   stash.erase(ready, stash.end());
                 };
               });
    });
  }

  Sequencer(const Sequencer&) = delete;
  Sequencer& operator=(const Sequencer&) = delete;
  Sequencer(Sequencer&&) noexcept = default;
  Sequencer& operator=(Sequencer&&) = delete;

  /// Sends what is queued and releases the sequencer's capability (in the worker's next step).
  ~Sequencer() {
    if (!state_) return;
    state_->closed = true;
    state_->inbound.clear();
    if (state_->source) {
      try {
        state_->source->activate();
      } catch (...) {
      }
    }
  }

  /// Queues `element` to be sequenced; it is sent in the worker's next step.
  void push(T element) {
    state_->outbound.push_back(std::move(element));
    if (state_->source) state_->source->activate();
  }

  /// The next element in the agreed order, if one has been released; never steps the worker.
  std::optional<T> next() {
    if (state_->inbound.empty()) return std::nullopt;
    std::optional<T> out(std::move(state_->inbound.front()));
    state_->inbound.pop_front();
    return out;
  }

 private:
  using State = detail::SequencerState<T>;
  std::shared_ptr<State> state_;
};

}  // namespace timely::synchronization
