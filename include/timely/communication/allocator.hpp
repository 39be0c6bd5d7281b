/// \file
/// `Allocator`: the allocator a worker holds, one of the three kinds behind the `Allocate`
/// concept (allocate.hpp): `Thread` (one worker, thread.hpp), `Process` (W threads of one
/// process, process.hpp) or `Cluster` (P processes of W threads, cluster.hpp).
/// `communication::initialize` (initialize.hpp) picks the kind from its configuration; the
/// dataflow layer sees only this class.
///
/// Channel element types need a `Codec` (codec.hpp) only when a channel reaches another
/// process (or, under `-z`, another thread): the cluster allocator then throws `ConfigError`
/// for a type without one. Which types can cross processes is a property of the type, the same
/// in every translation unit.
///
/// Source: the reference's `timely_communication::allocator::generic::Generic`, an enum over its
/// allocator kinds (SEMANTICS.md §7.2). The members that do not depend on a channel's type are
/// compiled in the library (src/communication/allocator.cpp). Thread-safety: an `Allocator` and the endpoints
/// it returns belong to their worker thread; `waker()`'s function may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include <timely/communication/allocate.hpp>
#include <timely/communication/cluster.hpp>
#include <timely/communication/codec.hpp>
#include <timely/communication/process.hpp>
#include <timely/communication/thread.hpp>

namespace timely::communication {

/// How a channel was allocated: what the workers of a computation compare, dataflow by
/// dataflow, to find one that was built differently (the core's `DataflowShape`), since a
/// channel allocated as a pipeline on one worker and point-to-point on another, or with other
/// element types, loses or misreads what crosses it.
struct ChannelUse {
  std::size_t channel = 0;
  /// The kind, and for a channel between workers the element type, named by its codec
  /// (`Codec<T>::name()`, the same in every process and with every compiler):
  /// "point-to-point of message<u64,vec<u64>>", "broadcast of ...", "pipeline". A pipeline's type
  /// is not named (it never leaves its worker), nor one without a codec (its channel never leaves
  /// the process, whose workers' types `ProcessShared::rendezvous` compares). A codec name that
  /// holds object bytes (`rawN`) or an enum (`enum:U`) is followed by the type's C++ name in
  /// parentheses, since such names say only a size or an integer type.
  std::string what;
};

/// One worker's allocator: its index among `peers()` workers, its channels, its events. See
/// `Allocate` for what each operation means. Not thread-safe: use it on its worker thread.
class Allocator {
 public:
  explicit Allocator(Thread thread);
  explicit Allocator(Process process);
  explicit Allocator(Cluster cluster);
  /// The process allocator of worker `index` of the single process described by `shared`.
  Allocator(std::size_t index, std::shared_ptr<ProcessShared> shared);

  /// A single-worker (thread) allocator.
  static Allocator thread();

  /// This worker's global index.
  [[nodiscard]] std::size_t index() const noexcept;
  /// The number of workers in the computation.
  [[nodiscard]] std::size_t peers() const noexcept;

  /// Point-to-point channel: `peers()` pushers (entry `i` delivers to worker `i`) and one puller.
  /// \throws ConfigError if the channel reaches another process and `T` has no `Codec`;
  /// DataflowError if the workers of this process allocated `channel` with different types.
  template <class T>
  std::pair<Pushers<T>, PullPtr<T>> allocate(std::size_t channel) {
    note<T>(channel, "point-to-point");
    return std::visit([&](auto& a) { return a.template allocate<T>(channel); }, kind_);
  }
  /// Broadcast channel: one pusher that reaches every worker, this one included.
  /// \throws as `allocate`.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> broadcast(std::size_t channel) {
    note<T>(channel, "broadcast");
    return std::visit([&](auto& a) { return a.template broadcast<T>(channel); }, kind_);
  }
  /// A channel from this worker to itself: a plain queue, whatever the kind.
  template <class T>
  std::pair<std::unique_ptr<Push<T>>, PullPtr<T>> pipeline(std::size_t channel) {
    note<T>(channel, "pipeline");
    return std::visit([&](auto& a) { return a.template pipeline<T>(channel); }, kind_);
  }

  /// Moves channel events from other threads into `events()`.
  void receive();
  /// Publishes buffered outbound data (frames for other processes go to the network).
  void release();
  /// Channel ids with activity since the caller last cleared the list.
  [[nodiscard]] Events& events() noexcept;
  /// Parks the thread until an event arrives or `timeout` passes, unless events are pending.
  void await_events(std::optional<std::chrono::nanoseconds> timeout);
  /// A function that wakes this worker from any thread (for activations from other threads).
  [[nodiscard]] std::function<void()> waker() const;
  /// Whether another worker of this process failed, or a peer process was lost: the worker
  /// should stop. Always false for the thread allocator (there is no one else).
  [[nodiscard]] bool poisoned() const noexcept;
  /// The counters of this process's connections to the other processes (network_stats.hpp;
  /// they outlive the network), or null for a single process.
  [[nodiscard]] std::shared_ptr<const NetworkStats> network_stats() const noexcept;

  /// The channels allocated since the last call, in order, with how (recorded only when there
  /// are other workers to compare with: with one worker this is always empty).
  [[nodiscard]] std::vector<ChannelUse> take_uses() noexcept { return std::exchange(uses_, {}); }

 private:
  template <class T>
  void note(std::size_t channel, std::string kind) {
    if (peers() == 1) return;
    if (kind != "pipeline") {
      if constexpr (Encodable<T>) {
        kind += " of " + Codec<T>::name();
        // Object bytes (`rawN`) and enums (`enum:U`) name only a size or an integer, so two such
        // types encode alike and would be read as each other. Their bytes are this ABI's
        // anyway, so the type's C++ name (one for every compiler of the ABI) tells them apart.
        if (kind.find("raw") != std::string::npos || kind.find("enum:") != std::string::npos)
          kind += " (" + demangled_name(typeid(T)) + ")";
      } else {
        kind += " of a type without a codec";
      }
    }
    uses_.push_back(ChannelUse{channel, std::move(kind)});
  }

  std::variant<Thread, Process, Cluster> kind_;
  std::vector<ChannelUse> uses_;
};

static_assert(Allocate<Allocator>);

}  // namespace timely::communication
