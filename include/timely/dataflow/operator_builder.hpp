/// \file
/// The generic operator builder: `OperatorBuilder<T>` creates an operator with any number of
/// inputs (each with its own pact) and outputs, then installs user logic that reads
/// `OperatorInputCore`s (containers of records with their `InputCapability`, and the input
/// frontier) and writes to `OperatorOutputCore`s through `SessionCore`s opened with a capability;
/// `OperatorInput<T, D>`, `OperatorOutput<T, D>` and `Session<T, D>` are their vector cases;
/// `new_output` returns an output's handle and stream as a `NewOutput`. All progress
/// bookkeeping (records consumed and produced, capability changes, frontier changes) is done here and handed
/// to the scope after every scheduling as one batch.
///
/// Source: the reference's `dataflow::operators::generic::builder_rc` and `builder_raw`
/// (SEMANTICS.md §5.7). Thread-safety: none; operators live on their worker thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/container.hpp>
#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/error.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

namespace detail {

/// An operator input's state, shared by the user's `OperatorInputCore` handle and the operator core.
template <Timestamp T, class C>
struct InputState {
  std::unique_ptr<MessagePull<T, C>> puller;
  progress::ChangeBatch<T> consumed;
  progress::MutableAntichain<T> frontier;
  InputConnection<T> connection;
};

/// An operator output's state, shared by the user's `OperatorOutputCore` handle and the core.
template <Timestamp T, class CB>
struct OutputState {
  using C = typename CB::Container;
  std::shared_ptr<CapabilityCounts<T>> internal;  // made with the operator's activator
  progress::ChangeBatch<T> produced;
  std::shared_ptr<Tee<T, C>> tee = std::make_shared<Tee<T, C>>();
  CB spare;
  std::size_t index = 0;
  bool dirty = false;

  /// Counts and sends one container. Counting happens here, before the fan-out, so a production
  /// is always reported no later than any capability drop that follows it. `data` is left
  /// holding the container the consumer gave back (its storage, for the builder to fill again;
  /// builders clear what they are given back) or an empty one.
  void send(const T& time, C& data) {
    if (data.empty()) return;
    produced.update(time, static_cast<std::int64_t>(container::record_count(data)));
    Message<T, C> message;
    message.time = time;
    message.data = std::move(data);
    if (auto back = tee->push(std::move(message)))
      data = std::move(back->data);
    else
      data = C{};
    dirty = true;
  }
  void flush() {
    if (dirty) {
      tee->done();
      dirty = false;
    }
  }
};

}  // namespace detail

/// One input of an operator under construction with `OperatorBuilder`: containers `C` of
/// records at times `T`, and the input's frontier. `OperatorInput<T, D>` is the vector case.
template <Timestamp T, class C>
class OperatorInputCore {
 public:
  using Container = C;

  explicit OperatorInputCore(std::shared_ptr<detail::InputState<T, C>> state) : state_(std::move(state)) {}

  /// Calls `f(InputCapability<T>&, C& records)` for every received container, in arrival order.
  /// The container may be moved from or drained. Consumption is counted as containers are taken.
  /// Storage left in the container when `f` returns goes back to its sender in this process,
  /// emptied, for reuse (`communication::Recyclable`): move the container out to keep its
  /// contents.
  template <class F>
  void for_each(F&& f) {
    while (auto& message = state_->puller->pull()) {
      state_->consumed.update(message->time,
                              static_cast<std::int64_t>(container::record_count(message->data)));
      InputCapability<T> cap(message->time, &state_->connection);
      f(cap, message->data);
    }
  }

  /// Takes every received container, groups them by time (in `T`'s total order) and calls
  /// `f(InputCapability<T>&, std::vector<C>& batches)` once per distinct time.
  template <class F>
  void for_each_time(F&& f) {
    staged_.clear();
    while (auto& message = state_->puller->pull()) {
      state_->consumed.update(message->time,
                              static_cast<std::int64_t>(container::record_count(message->data)));
      staged_.push_back(std::move(*message));
    }
    std::stable_sort(staged_.begin(), staged_.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
    std::vector<C> group;
    for (std::size_t i = 0; i < staged_.size();) {
      std::size_t j = i;
      group.clear();
      while (j < staged_.size() && staged_[j].time == staged_[i].time)
        group.push_back(std::move(staged_[j++].data));
      InputCapability<T> cap(staged_[i].time, &state_->connection);
      f(cap, group);
      i = j;
    }
    staged_.clear();
  }

  /// The input frontier: times at which records may still arrive on this input.
  [[nodiscard]] const progress::MutableAntichain<T>& frontier() const noexcept { return state_->frontier; }

 private:
  std::shared_ptr<detail::InputState<T, C>> state_;
  std::vector<Message<T, C>> staged_;
};

/// An input of `std::vector<D>` batches: `for_each` hands the logic a `std::vector<D>&`.
template <Timestamp T, class D>
using OperatorInput = OperatorInputCore<T, std::vector<D>>;

/// Sends records at one time on one output, through the output's container builder `CB`: items
/// are pushed into containers that are sent as the builder completes them (for vectors,
/// `container::default_capacity<D>()` records; for columnar batches, about 1 MiB), and the rest
/// when the session is destroyed. Open one session per time, not one per record.
template <Timestamp T, class CB>
class SessionCore {
 public:
  using Container = typename CB::Container;

  SessionCore(detail::OutputState<T, CB>* output, T time)
      : output_(output), time_(std::move(time)), builder_(std::move(output_->spare)) {}
  SessionCore(const SessionCore&) = delete;
  SessionCore& operator=(const SessionCore&) = delete;
  SessionCore(SessionCore&& other) noexcept
      : output_(std::exchange(other.output_, nullptr)),
        time_(std::move(other.time_)),
        builder_(std::move(other.builder_)) {}
  SessionCore& operator=(SessionCore&&) = delete;
  ~SessionCore() {
    if (output_) {
      flush();
      output_->spare = std::move(builder_);
    }
  }

  /// The time records are sent at.
  [[nodiscard]] const T& time() const noexcept { return time_; }

  /// Sends one record of a vector output (any value convertible to the record type, braces too).
  void give(container::VectorRecord<Container> record) requires container::Vector<Container> {
    builder_.push_into(std::move(record));
    while (Container* full = builder_.extract()) output_->send(time_, *full);
  }
  /// Sends one record (anything the container can absorb: for a columnar batch, an owned value
  /// or a borrowed reference).
  template <class X>
  requires requires(CB& b, X&& x) { b.push_into(std::forward<X>(x)); }
  void give(X&& record) {
    builder_.push_into(std::forward<X>(record));
    while (Container* full = builder_.extract()) output_->send(time_, *full);
  }
  /// Anything the output cannot absorb: one readable error instead of a list of candidates.
  template <class X>
  requires(!requires(CB & b, X&& x) { b.push_into(std::forward<X>(x)); } &&
           !std::is_convertible_v<X, container::VectorRecord<Container>>) void give(X&&) {
    static_assert(!std::is_same_v<X, X>,
                  "timely: session.give: the output's container cannot absorb this value. A "
                  "std::vector<D> output takes a D (or a value convertible to D), and a columnar::Batch<T> "
                  "output takes a T or its borrowed reference type (columnar::RefOf<T>)");
  }
  /// Sends every record of `range`.
  template <class Range>
  void give_iterator(Range&& range) {
    for (auto&& r : range) give(std::forward<decltype(r)>(r));
  }
  /// Sends a whole container at once, leaving `batch` empty. Buffered records are sent first.
  void give_container(Container& batch) {
    flush();
    output_->send(time_, batch);
    batch.clear();  // it may hold a container given back, with its storage
  }
  /// Sends a whole vector at once (vector outputs), leaving `batch` empty.
  template <class V = Container>
  requires container::Vector<V>
  void give_vec(V& batch) { give_container(batch); }
  /// Sends the buffered records now.
  void flush() {
    while (Container* rest = builder_.finish()) output_->send(time_, *rest);
  }

 private:
  detail::OutputState<T, CB>* output_;
  T time_;
  CB builder_;
};

/// A session of a vector output.
template <Timestamp T, class D>
using Session = SessionCore<T, container::CapacityContainerBuilder<std::vector<D>>>;

/// One output of an operator under construction with `OperatorBuilder`, filled through container
/// builder `CB`. `OperatorOutput<T, D>` is the vector case.
template <Timestamp T, class CB>
class OperatorOutputCore {
 public:
  using Builder = CB;
  using Container = typename CB::Container;

  explicit OperatorOutputCore(std::shared_ptr<detail::OutputState<T, CB>> state) : state_(std::move(state)) {}

  /// A session at `cap.time()`. \throws CapabilityError if `cap` belongs to another output.
  [[nodiscard]] SessionCore<T, CB> session(const Capability<T>& cap) {
    if (!cap.valid_for(state_->internal))
      throw CapabilityError("timely: capability for time " + describe(cap.time()) + " used on output " +
                            std::to_string(state_->index) + ", which it was not minted for");
    return SessionCore<T, CB>(state_.get(), cap.time());
  }
  /// A session at the time of received records; allowed when the input reaches this output with
  /// the identity summary. \throws CapabilityError otherwise.
  [[nodiscard]] SessionCore<T, CB> session(const InputCapability<T>& cap) {
    if (!cap.identity_for(state_->index))
      throw CapabilityError("timely: the capability of an input batch at time " + describe(cap.time()) +
                            " cannot be used directly on output " + std::to_string(state_->index) +
                            "; mint one with delayed()/retain()");
    return SessionCore<T, CB>(state_.get(), cap.time());
  }

 private:
  std::shared_ptr<detail::OutputState<T, CB>> state_;
};

/// An output of `std::vector<D>` batches.
template <Timestamp T, class D>
using OperatorOutput = OperatorOutputCore<T, container::CapacityContainerBuilder<std::vector<D>>>;

namespace detail {

/// The part of an installed operator that does not depend on its logic: its ports, the progress
/// it publishes and its scheduling. Compiled once per timestamp (and in the library for
/// `std::uint64_t`), not once per operator.
template <Timestamp T>
class OperatorCoreBase : public progress::Operate<T> {
 public:
  OperatorCoreBase(std::string name, std::size_t peers, std::size_t outputs,
                   progress::Connectivity<SummaryOf<T>> connectivity,
                   std::vector<progress::FrontierInterest> notify,
                   std::vector<std::function<void(progress::SharedProgress<T>&)>> publishers,
                   std::vector<progress::MutableAntichain<T>*> frontiers,
                   std::vector<std::function<void()>> flushers);

  const std::string& name() const override;
  std::size_t inputs() const override;
  std::size_t outputs() const override;
  progress::Connectivity<SummaryOf<T>> connectivity() const override;
  std::vector<progress::FrontierInterest> notify_me() const override;
  progress::SharedProgress<T>& progress() override;

  /// Moves the input frontiers, runs the logic (`run_logic`), flushes the outputs and publishes
  /// the progress of this scheduling.
  bool schedule() final;

 protected:
  /// Runs the user's logic once; returns whether it has outstanding work.
  virtual bool run_logic() = 0;

 private:
  std::string name_;
  progress::Connectivity<SummaryOf<T>> connectivity_;
  std::vector<progress::FrontierInterest> notify_;
  progress::SharedProgress<T> progress_;
  std::vector<std::function<void(progress::SharedProgress<T>&)>> publishers_;
  std::vector<progress::MutableAntichain<T>*> frontiers_;
  std::vector<std::function<void()>> flushers_;
};

// Defined outside the class, so that the `extern template` declarations below keep an optimizing
// compiler from instantiating them again in every program.
template <Timestamp T>
OperatorCoreBase<T>::OperatorCoreBase(
    std::string name, std::size_t peers, std::size_t outputs,
    progress::Connectivity<SummaryOf<T>> connectivity, std::vector<progress::FrontierInterest> notify,
    std::vector<std::function<void(progress::SharedProgress<T>&)>> publishers,
    std::vector<progress::MutableAntichain<T>*> frontiers, std::vector<std::function<void()>> flushers)
    : name_(std::move(name)),
      connectivity_(std::move(connectivity)),
      notify_(std::move(notify)),
      progress_(notify_.size(), outputs),
      publishers_(std::move(publishers)),
      frontiers_(std::move(frontiers)),
      flushers_(std::move(flushers)) {
  for (auto& internal : progress_.internals)
    internal.update(timely::minimum<T>(), static_cast<std::int64_t>(peers));
}

template <Timestamp T>
const std::string& OperatorCoreBase<T>::name() const {
  return name_;
}
template <Timestamp T>
std::size_t OperatorCoreBase<T>::inputs() const {
  return notify_.size();
}
template <Timestamp T>
std::size_t OperatorCoreBase<T>::outputs() const {
  return progress_.internals.size();
}
template <Timestamp T>
progress::Connectivity<SummaryOf<T>> OperatorCoreBase<T>::connectivity() const {
  return connectivity_;
}
template <Timestamp T>
std::vector<progress::FrontierInterest> OperatorCoreBase<T>::notify_me() const {
  return notify_;
}
template <Timestamp T>
progress::SharedProgress<T>& OperatorCoreBase<T>::progress() {
  return progress_;
}

template <Timestamp T>
bool OperatorCoreBase<T>::schedule() {
  for (std::size_t i = 0; i < frontiers_.size(); ++i)
    if (!progress_.frontiers[i].empty()) {
      frontiers_[i]->update_iter(progress_.frontiers[i].view());
      progress_.frontiers[i].clear();
    }
  const bool incomplete = run_logic();
  for (auto& flush : flushers_) flush();
  for (auto& publish : publishers_) publish(progress_);
  return incomplete;
}

// Only for `std::uint64_t`: an explicit instantiation declaration instantiates the class in every
// program that includes this header, which costs more than it saves where the type goes unused.
extern template class OperatorCoreBase<std::uint64_t>;

/// The operator the builder installs: `OperatorCoreBase` running `Logic`.
template <Timestamp T, class Logic>
class OperatorCore final : public OperatorCoreBase<T> {
 public:
  OperatorCore(std::string name, std::size_t peers, std::size_t outputs,
               progress::Connectivity<SummaryOf<T>> connectivity,
               std::vector<progress::FrontierInterest> notify,
               std::vector<std::function<void(progress::SharedProgress<T>&)>> publishers,
               std::vector<progress::MutableAntichain<T>*> frontiers,
               std::vector<std::function<void()>> flushers, Logic logic)
      : OperatorCoreBase<T>(std::move(name), peers, outputs, std::move(connectivity), std::move(notify),
                            std::move(publishers), std::move(frontiers), std::move(flushers)),
        logic_(std::move(logic)) {}

 private:
  bool run_logic() override {
    if constexpr (std::is_same_v<std::invoke_result_t<Logic&>, bool>) {
      return logic_();
    } else {
      logic_();
      return false;
    }
  }

  Logic logic_;
};

}  // namespace detail

/// What `OperatorBuilder::new_output` returns: `handle`, which the operator's logic writes to
/// through sessions, and `stream`, which carries what it writes to the operators downstream.
/// Named members rather than a pair, so that operator code says which is which; a lambda can
/// capture `made.handle` directly, where clang before 16 cannot capture a structured binding
/// (`auto [handle, stream] = ...` still works elsewhere).
template <Timestamp T, class CB>
struct NewOutput {
  OperatorOutputCore<T, CB> handle;
  StreamCore<T, typename CB::Container> stream;
};

/// Builds one operator in scope `Scope<T>`: declare inputs and outputs, then `build` it with a
/// constructor that receives one initial capability per output (at the minimum time) and
/// returns the logic to run at each scheduling.
///
/// Connectivity defaults to the identity summary from every input to every output, whatever
/// order they were added in; `new_input_connection` and `new_output_connection` declare an input's
/// or an output's connections instead (stored sparsely: an operator whose k inputs each reach
/// one output costs k entries, not k * k). Frontier interest defaults to `Always` (the logic
/// runs whenever an input frontier moves).
template <Timestamp T>
class OperatorBuilder {
 public:
  using Summary = SummaryOf<T>;

  /// Reserves the operator's index in `scope`.
  OperatorBuilder(Scope<T> scope, std::string name)
      : scope_(scope),
        name_(std::move(name)),
        index_(scope.builder().reserve_operator()),
        global_(scope.worker().new_identifier()) {}

  /// The operator's index in its scope (1, 2, ...).
  [[nodiscard]] std::size_t index() const noexcept { return index_; }
  /// The operator's worker-wide identifier.
  [[nodiscard]] std::size_t global() const noexcept { return global_; }
  [[nodiscard]] const Scope<T>& scope() const noexcept { return scope_; }
  /// An activator that schedules this operator in its worker's next step.
  [[nodiscard]] scheduling::Activator activator() const {
    return scheduling::Activator(scope_.worker().activations(), scope_.address_of(index_));
  }
  /// An activator for this operator usable from any thread (it wakes the worker if parked).
  [[nodiscard]] scheduling::SyncActivator sync_activator() const {
    return scheduling::SyncActivator(scope_.worker().activations()->sync(), scope_.address_of(index_));
  }

  /// Adds an input reading `stream` through `pact`, connected to every existing output with the
  /// identity summary (and to outputs added later by `new_output`).
  /// \throws BuildError if `stream` belongs to another scope.
  template <class C, class Pact>
  OperatorInputCore<T, C> new_input(const StreamCore<T, C>& stream, const Pact& pact) {
    progress::PortConnectivity<Summary> connection;
    for (std::size_t o = 0; o < outputs_; ++o) connection.insert(o, Summary{});
    return new_input_connection(stream, pact, std::move(connection));
  }

  /// Adds an input reading `stream` through `pact` that reaches exactly the outputs named in
  /// `connection`, `{{output, summaries}, ...}`, along those summaries; the outputs may be added
  /// before or after it (as the reference's `new_input_connection`). Outputs added later with
  /// `new_output` connect from it with the identity, as from every input.
  /// \throws BuildError if `stream` belongs to another scope; `build` throws BuildError if
  /// `connection` names an output that was never added.
  template <class C, class Pact>
  OperatorInputCore<T, C> new_input_connection(const StreamCore<T, C>& stream, const Pact& pact,
                                               progress::PortConnectivity<Summary> connection) {
    if (!(stream.scope() == scope_))
      throw BuildError("operator '" + name_ + "': input stream belongs to another scope; use enter/leave");
    const std::size_t channel = scope_.worker().new_identifier();
    auto [pusher, puller] = pact.template connect<T, C>(scope_.worker(), channel);
    const std::size_t port = notify_.size();
    stream.connect_to(progress::Target{index_, port}, std::move(pusher), channel);
    scope_.builder().register_channel(channel, index_);
    auto state = std::make_shared<detail::InputState<T, C>>();
    state->puller = std::move(puller);
    notify_.push_back(progress::FrontierInterest::Always);
    connectivity_.push_back(std::move(connection));
    frontiers_.push_back(&state->frontier);
    connections_.push_back(&state->connection);
    publishers_.push_back(
        [state, port](progress::SharedProgress<T>& p) { state->consumed.drain_into(p.consumeds[port]); });
    return OperatorInputCore<T, C>(std::move(state));
  }

  /// Adds an output, reached from every existing input with the identity summary; returns the
  /// handle the logic writes to and the stream it produces, as `NewOutput::handle` and
  /// `NewOutput::stream`. `Out` is a record type (the output carries `std::vector<Out>`) or a
  /// container builder (`container::BuilderFor`).
  template <class Out>
  auto new_output() {
    progress::PortConnectivity<Summary> connection;
    for (std::size_t i = 0; i < connectivity_.size(); ++i) connection.insert(i, Summary{});
    return new_output_connection<Out>(std::move(connection));
  }

  /// Adds an output reached from exactly the existing inputs named in `connection`,
  /// `{{input, summaries}, ...}`, along those summaries (as the reference's
  /// `new_output_connection`); returns the handle the logic writes to and the stream it produces
  /// (`NewOutput::handle`, `NewOutput::stream`).
  /// \throws BuildError if `connection` names an input that does not exist yet.
  template <class Out, class CB = container::BuilderFor<Out>>
  NewOutput<T, CB> new_output_connection(progress::PortConnectivity<Summary> connection) {
    if (connection.port_bound() > connectivity_.size())
      throw BuildError("operator '" + name_ + "': output connection names input " +
                       std::to_string(connection.port_bound() - 1) + ", but the operator has " +
                       std::to_string(connectivity_.size()) + " inputs");
    auto state = std::make_shared<detail::OutputState<T, CB>>();
    state->internal = std::make_shared<CapabilityCounts<T>>(activator());
    const std::size_t port = outputs_++;
    state->index = port;
    for (const auto& [input, summaries] : connection) connectivity_[input].add_port(port, summaries);
    internals_.push_back(state->internal);
    flushers_.push_back([state] { state->flush(); });
    publishers_.push_back([state, port](progress::SharedProgress<T>& p) {
      state->internal->drain_into(p.internals[port]);
      state->produced.drain_into(p.produceds[port]);
    });
    StreamCore<T, typename CB::Container> stream(scope_, progress::Source{index_, port}, state->tee);
    return NewOutput<T, CB>{OperatorOutputCore<T, CB>(std::move(state)), std::move(stream)};
  }

  /// Sets when frontier changes at `input` schedule the operator.
  void set_notify(std::size_t input, progress::FrontierInterest interest) { notify_.at(input) = interest; }
  /// Replaces the path summaries from `input` to `output` (empty: not connected).
  /// \throws BuildError if either port does not exist.
  void set_connection(std::size_t input, std::size_t output, progress::Antichain<Summary> summaries) {
    if (input >= connectivity_.size() || output >= outputs_)
      throw BuildError("operator '" + name_ + "': set_connection(" + std::to_string(input) + ", " +
                       std::to_string(output) + ") names a missing port; the operator has " +
                       std::to_string(connectivity_.size()) + " inputs and " + std::to_string(outputs_) +
                       " outputs");
    connectivity_[input].set_port(output, std::move(summaries));
  }

  /// Installs the operator. `ctor(std::vector<Capability<T>> initial)` receives one capability
  /// per output at the minimum time and returns the logic, a callable run at each scheduling.
  /// Logic returning `bool` reports outstanding work that keeps the operator alive even when it
  /// holds no capability (the reference's `build_reschedule`); logic returning `void` lets the
  /// operator shut down once it holds nothing and its inputs are complete.
  template <class Ctor>
  void build(Ctor&& ctor) {
    for (std::size_t i = 0; i < connectivity_.size(); ++i)
      if (connectivity_[i].port_bound() > outputs_)
        throw BuildError("operator '" + name_ + "': input " + std::to_string(i) + " is connected to output " +
                         std::to_string(connectivity_[i].port_bound() - 1) + ", but the operator has " +
                         std::to_string(outputs_) + " outputs");
    // Each input's capabilities mint only for the outputs it reaches.
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      connections_[i]->internals.clear();
      for (const auto& [o, summaries] : connectivity_[i])
        connections_[i]->internals.emplace_back(o, internals_[o]);
      connections_[i]->summaries = connectivity_[i];
      connections_[i]->outputs = outputs_;
    }
    std::vector<Capability<T>> initial;
    initial.reserve(internals_.size());
    for (auto& internal : internals_) initial.emplace_back(timely::minimum<T>(), internal);
    // The initial capabilities are already counted (peers() per output, common knowledge).
    for (auto& internal : internals_) internal->clear();
    auto logic = std::forward<Ctor>(ctor)(std::move(initial));
    using Logic = decltype(logic);
    static_assert(std::is_invocable_v<Logic&>,
                  "OperatorBuilder::build: the constructor must return a logic callable with no "
                  "arguments, returning void or bool");
    auto op = std::make_unique<detail::OperatorCore<T, Logic>>(name_, scope_.peers(), outputs_, connectivity_,
                                                               notify_, std::move(publishers_), frontiers_,
                                                               std::move(flushers_), std::move(logic));
    scope_.builder().add_operator(index_, global_, std::move(op));
  }

 private:
  Scope<T> scope_;
  std::string name_;
  std::size_t index_;
  std::size_t global_;
  std::size_t outputs_ = 0;
  std::vector<progress::FrontierInterest> notify_;
  progress::Connectivity<Summary> connectivity_;
  std::vector<progress::MutableAntichain<T>*> frontiers_;
  std::vector<InputConnection<T>*> connections_;
  std::vector<std::shared_ptr<CapabilityCounts<T>>> internals_;
  std::vector<std::function<void(progress::SharedProgress<T>&)>> publishers_;
  std::vector<std::function<void()>> flushers_;
};

}  // namespace timely::dataflow
