/// \file
/// Capabilities: `Capability<T>` (the right to send data at times `>= time()` on one operator
/// output), `CapabilitySet<T>` (a minimal set of them that can follow a frontier) and
/// `InputCapability<T>` (handed out with each received batch; it mints capabilities for the
/// operator's outputs along the input's path summaries).
///
/// Holding a capability is what keeps downstream frontiers from passing its time: creating,
/// copying and destroying one adds +1/-1 at its time to its output's capability count, which the
/// operator reports to its scope after each scheduling. A moved-from capability is inert.
///
/// Source: Naiad §2.2 (capabilities as pointstamps at operator outputs) and the reference's
/// `dataflow::operators::capability` (SEMANTICS.md §4). Thread-safety: none; a capability
/// belongs to its operator on its worker thread and must not be handed to another operator.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <ranges>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/error.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/connectivity.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::dataflow {

namespace detail {
[[noreturn]] inline void throw_not_beyond(const std::string& what, const std::string& held,
                                          const std::string& requested) {
  throw CapabilityError("timely: attempted to " + what + " a capability for time " + held + " to time " +
                        requested + ", which is not greater or equal");
}
}  // namespace detail

/// The capability changes of one operator output, with a way to schedule the operator they
/// belong to: what every capability for that output shares. The operator reports the changes
/// to its scope after each scheduling; `activate_owner` lets a holder of a capability (a
/// notificator that was handed a request for a time already complete) make sure the operator
/// runs once more, when nothing else would schedule it.
template <Timestamp T>
class CapabilityCounts : public progress::ChangeBatch<T> {
 public:
  /// Changes of an output whose operator cannot be activated (tests, detached capabilities).
  CapabilityCounts() = default;
  /// Changes of an output of the operator that `owner` activates.
  explicit CapabilityCounts(scheduling::Activator owner) : owner_(std::move(owner)) {}
  /// Schedules the owning operator in its worker's next step (nothing if it has no activator).
  void activate_owner() const {
    if (owner_) owner_->activate();
  }

 private:
  std::optional<scheduling::Activator> owner_;
};

/// The right to produce records at times `>= time()` on one output of one operator.
///
/// \tparam T timestamp type of the operator's scope.
template <Timestamp T>
class Capability {
 public:
  using Batch = CapabilityCounts<T>;

  /// Mints a capability at `time` counted in `internal` (the output's capability changes).
  /// Operators get capabilities from their builder or from an `InputCapability`, not from here.
  Capability(T time, std::shared_ptr<Batch> internal)
      : time_(std::move(time)), internal_(std::move(internal)) {
    internal_->update(time_, 1);
  }
  Capability(const Capability& other) : time_(other.time_), internal_(other.internal_) {
    if (internal_) internal_->update(time_, 1);
  }
  Capability(Capability&& other) noexcept
      : time_(std::move(other.time_)), internal_(std::move(other.internal_)) {}
  Capability& operator=(const Capability& other) {
    if (this != &other) {
      Capability copy(other);
      swap(copy);
    }
    return *this;
  }
  Capability& operator=(Capability&& other) noexcept {
    if (this != &other) {
      release();
      time_ = std::move(other.time_);
      internal_ = std::move(other.internal_);
    }
    return *this;
  }
  ~Capability() { release(); }

  /// The time this capability allows sending at (and beyond).
  [[nodiscard]] const T& time() const noexcept { return time_; }
  /// A copy of this capability (the same as the copy constructor).
  [[nodiscard]] Capability clone() const { return *this; }

  /// A new capability at `time` for the same output.
  /// \throws CapabilityError unless `this->time() <= time` in the partial order.
  [[nodiscard]] Capability delayed(const T& time) const {
    if (!valid() || !timely::less_equal(time_, time))
      detail::throw_not_beyond("delay", describe(time_), describe(time));
    return Capability(time, internal_);
  }
  /// `delayed(time)`, or `std::nullopt` instead of throwing.
  [[nodiscard]] std::optional<Capability> try_delayed(const T& time) const {
    if (!valid() || !timely::less_equal(time_, time)) return std::nullopt;
    return Capability(time, internal_);
  }
  /// Moves this capability forward to `time`.
  /// \throws CapabilityError unless `this->time() <= time`; the capability is then unchanged.
  void downgrade(const T& time) {
    if (!valid() || !timely::less_equal(time_, time))
      detail::throw_not_beyond("downgrade", describe(time_), describe(time));
    *this = Capability(time, internal_);
  }
  /// `downgrade(time)`; returns false (and changes nothing) instead of throwing.
  bool try_downgrade(const T& time) {
    if (!valid() || !timely::less_equal(time_, time)) return false;
    *this = Capability(time, internal_);
    return true;
  }

  /// Schedules the operator this capability belongs to in its worker's next step: for a holder
  /// that must be looked at again although no frontier may move (a notificator's request).
  void activate_operator() const {
    if (internal_) internal_->activate_owner();
  }

  /// Whether this capability was minted for the output whose capability changes are `internal`.
  [[nodiscard]] bool valid_for(const std::shared_ptr<Batch>& internal) const noexcept {
    return internal_ && internal_ == internal;
  }
  /// False only for a moved-from capability.
  [[nodiscard]] bool valid() const noexcept { return internal_ != nullptr; }
  /// Whether both were minted for the same output.
  [[nodiscard]] bool same_output(const Capability& other) const noexcept {
    return internal_ && internal_ == other.internal_;
  }

  void swap(Capability& other) noexcept {
    using std::swap;
    swap(time_, other.time_);
    swap(internal_, other.internal_);
  }

  /// Equal when for the same output and the same time.
  friend bool operator==(const Capability& a, const Capability& b) {
    return a.internal_ == b.internal_ && a.time_ == b.time_;
  }

 private:
  void release() noexcept {
    if (internal_) {
      internal_->update(time_, -1);
      internal_.reset();
    }
  }

  T time_;
  std::shared_ptr<Batch> internal_;
};

/// A set of capabilities kept minimal: no member's time is `<=` another's on the same output.
/// It holds the right to send at every time some member allows, as one value, so that an
/// operator whose output times follow its input frontier can keep its capabilities with
/// `downgrade(input.frontier())` instead of a hand-made map (the reference's `CapabilitySet`;
/// SEMANTICS.md §4.3). Members for different outputs never dominate each other.
///
/// Iteration visits the members in no particular order. Thread-safety: none, like `Capability`.
template <Timestamp T>
class CapabilitySet {
 public:
  using const_iterator = typename std::vector<Capability<T>>::const_iterator;

  CapabilitySet() = default;
  /// A set holding `cap`.
  explicit CapabilitySet(Capability<T> cap) { elements_.push_back(std::move(cap)); }

  /// Adds `cap` unless a member for the same output has a time `<=` it; members it dominates
  /// (same output, later or equal time) are dropped, so the set stays minimal.
  void insert(Capability<T> cap) {
    if (!cap.valid()) throw CapabilityError("timely: CapabilitySet::insert of a moved-from capability");
    insert_into(elements_, std::move(cap));
  }

  /// A capability at `time` minted from the first member whose time is `<= time`.
  /// \throws CapabilityError naming `time` and the members' times if no member is `<= time`.
  [[nodiscard]] Capability<T> delayed(const T& time) const {
    if (auto cap = try_delayed(time)) return std::move(*cap);
    throw CapabilityError("timely: CapabilitySet holds no capability at or before time " + describe(time) +
                          " (it holds " + describe_times() + ")");
  }
  /// `delayed(time)`, or `std::nullopt` instead of throwing.
  [[nodiscard]] std::optional<Capability<T>> try_delayed(const T& time) const {
    for (const auto& c : elements_)
      if (timely::less_equal(c.time(), time)) return c.delayed(time);
    return std::nullopt;
  }

  /// Replaces the members with capabilities at the times of `frontier` (a range of `T`, such as
  /// an `Antichain<T>` or a `MutableAntichain<T>`'s frontier), each minted from a member `<=` it;
  /// an empty frontier releases everything.
  /// \throws CapabilityError if some time of `frontier` is not `>=` any member; the set is then
  /// unchanged.
  template <std::ranges::input_range Frontier>
  requires std::convertible_to < std::ranges::range_reference_t<const Frontier&>,
  const T& > void downgrade(const Frontier& frontier) {
    std::vector<Capability<T>> next;
    for (const T& time : frontier) {
      auto cap = try_delayed(time);
      if (!cap)
        throw CapabilityError("timely: cannot downgrade a CapabilitySet holding " + describe_times() +
                              " to a frontier containing " + describe(time) +
                              ", which is not greater or equal to any of them");
      insert_into(next, std::move(*cap));
    }
    elements_ = std::move(next);
  }
  /// `downgrade(frontier.frontier())`: follows an input frontier.
  void downgrade(const progress::MutableAntichain<T>& frontier) { downgrade(frontier.frontier()); }
  /// `downgrade(frontier)`; returns false (and changes nothing) instead of throwing.
  template <class Frontier>
  bool try_downgrade(const Frontier& frontier) {
    try {
      downgrade(frontier);
      return true;
    } catch (const CapabilityError&) {
      return false;
    }
  }

  /// A member (the oldest inserted that is still held). \throws CapabilityError if empty.
  [[nodiscard]] const Capability<T>& first() const {
    if (elements_.empty()) throw CapabilityError("timely: CapabilitySet::first on an empty set");
    return elements_.front();
  }
  [[nodiscard]] const_iterator begin() const noexcept { return elements_.begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return elements_.end(); }
  [[nodiscard]] std::size_t size() const noexcept { return elements_.size(); }
  [[nodiscard]] bool empty() const noexcept { return elements_.empty(); }
  /// Releases every member.
  void clear() noexcept { elements_.clear(); }

 private:
  // Whether `a` allows everything `b` allows: the same output and `a.time() <= b.time()`.
  static bool dominates(const Capability<T>& a, const Capability<T>& b) {
    return a.same_output(b) && timely::less_equal(a.time(), b.time());
  }
  static void insert_into(std::vector<Capability<T>>& elements, Capability<T> cap) {
    for (const auto& c : elements)
      if (dominates(c, cap)) return;
    std::erase_if(elements, [&](const Capability<T>& c) { return dominates(cap, c); });
    elements.push_back(std::move(cap));
  }
  std::string describe_times() const {
    if (elements_.empty()) return "no capabilities";
    std::string out = "capabilities at";
    for (const auto& c : elements_) out += " " + describe(c.time());
    return out;
  }

  std::vector<Capability<T>> elements_;
};

/// What an operator input knows about the outputs it can mint capabilities for: for each output
/// it reaches (only those, so k inputs each reaching one output cost k entries), that output's
/// capability changes and the path summaries from this input to it.
template <Timestamp T>
struct InputConnection {
  /// `(output, its capability changes)`, by increasing output.
  std::vector<std::pair<std::size_t, std::shared_ptr<CapabilityCounts<T>>>> internals;
  progress::PortConnectivity<SummaryOf<T>> summaries;
  /// The operator's number of outputs.
  std::size_t outputs = 0;

  /// The capability changes of `output`, or null if this input does not reach it.
  [[nodiscard]] const std::shared_ptr<CapabilityCounts<T>>* internal(std::size_t output) const {
    auto it = std::lower_bound(internals.begin(), internals.end(), output,
                               [](const auto& e, std::size_t o) { return e.first < o; });
    return it != internals.end() && it->first == output ? &it->second : nullptr;
  }
};

/// The capability that comes with a batch of received records at time `time()`. It can mint a
/// `Capability` for any output this input is connected to, at any time the path summary allows.
///
/// Valid only during the call that received the batch: the batch's records count as consumed
/// once the call returns, so a capability minted later could send at a time the consumers'
/// frontiers have passed. It therefore cannot be copied or moved; to keep the right to send,
/// keep a `Capability` from `retain()` or `delayed()` (the reference bounds it by a lifetime).
template <Timestamp T>
class InputCapability {
 public:
  InputCapability(T time, const InputConnection<T>* connection)
      : time_(std::move(time)), connection_(connection) {}
  InputCapability(const InputCapability&) = delete;
  InputCapability& operator=(const InputCapability&) = delete;
  InputCapability(InputCapability&&) = delete;
  InputCapability& operator=(InputCapability&&) = delete;
  ~InputCapability() = default;

  /// The time of the received records.
  [[nodiscard]] const T& time() const noexcept { return time_; }

  /// A capability for output `output` at `time`.
  /// \throws CapabilityError if the output does not exist, is not connected to this input, or
  /// no path summary `s` from this input to it has `s(this->time()) <= time`.
  [[nodiscard]] Capability<T> delayed(const T& time, std::size_t output = 0) const {
    if (output >= connection_->outputs)
      throw CapabilityError("timely: operator has no output " + std::to_string(output) +
                            " to mint a capability for");
    const auto* summaries = connection_->summaries.get(output);
    if (summaries == nullptr)
      throw CapabilityError("timely: input is not connected to output " + std::to_string(output) +
                            "; cannot mint a capability at " + describe(time));
    for (const auto& summary : *summaries)
      if (auto reached = timely::results_in<T>(summary, time_); reached && timely::less_equal(*reached, time))
        return Capability<T>(time, *connection_->internal(output));
    // Name the earliest times the summaries allow, so the fix is obvious (e.g. a +1 connection).
    std::string earliest;
    for (const auto& summary : *summaries) {
      auto reached = timely::results_in<T>(summary, time_);
      earliest +=
          (earliest.empty() ? "" : " or ") + (reached ? describe(*reached) : std::string("(overflow)"));
    }
    throw CapabilityError("timely: attempted to delay a capability for input time " + describe(time_) +
                          " to time " + describe(time) + " on output " + std::to_string(output) +
                          ", but the input's path summaries to that output allow only times at or after " +
                          earliest);
  }
  /// A capability for output `output` at this batch's own time (`delayed(time(), output)`).
  [[nodiscard]] Capability<T> retain(std::size_t output = 0) const { return delayed(time_, output); }

  /// Whether a session on output `output` may use this capability directly: the input reaches
  /// that output with exactly the identity summary.
  [[nodiscard]] bool identity_for(std::size_t output) const {
    const auto* summaries = connection_->summaries.get(output);
    if (summaries == nullptr) return false;
    const SummaryOf<T> identity{};
    for (const auto& s : *summaries)
      if (s == identity) return true;
    return false;
  }

 private:
  T time_;
  const InputConnection<T>* connection_;
};

}  // namespace timely::dataflow
