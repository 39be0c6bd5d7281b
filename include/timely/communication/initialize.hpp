/// \file
/// Starting workers without the dataflow layer: `ClusterConfig` (how the processes of a
/// computation find each other), `Config` (W worker threads in each of P processes) and
/// `initialize(config, closure)`, which connects to the other processes, starts this process's
/// worker threads, gives each its `Allocator` and waits for them.
///
/// The kind of allocator follows from the configuration: `Thread` for one worker in one
/// process, `Process` for W > 1 threads in one process, `Cluster` for several processes or
/// `-z` (`ClusterConfig::zerocopy`).
///
/// Pinning (`Config::pin`, pinning.hpp): each worker thread pins itself to its CPU before it
/// runs the closure, and the network threads are confined to theirs before `initialize` starts
/// any worker; with `ClusterConfig::report` set, the placement is reported (one line per thread).
///
/// Failure: if a worker's closure throws, the others are told through their allocator's
/// `poisoned()` (a `Worker` checks it every step and throws `WorkerAborted`), and `initialize`
/// rethrows the first error after all threads joined: the original exception, not the
/// `WorkerAborted` of the others (on other processes, a `NetworkError` that quotes it). A lost
/// peer process makes `initialize` throw `NetworkError` naming it. No thread outlives the call.
///
/// Source: the reference's `timely_communication::initialize` and its `Config` and
/// `WorkerGuards` (SEMANTICS.md §7.7); where it returns guards that join when dropped, this
/// blocks until the workers are done and returns their results. Thread-safety: `initialize`
/// may be called from any thread; the closure runs on each worker thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/communication/allocator.hpp>
#include <timely/communication/error.hpp>
#include <timely/communication/hostfile.hpp>
#include <timely/communication/pinning.hpp>

namespace timely::communication {

/// How the processes of a computation find each other.
struct ClusterConfig {
  std::size_t processes = 1;       ///< P
  std::size_t process = 0;         ///< this process's index, < P
  std::vector<Address> addresses;  ///< where process i listens, for i < P
  /// Where process 0 serves the rendezvous (`--rendezvous HOST:PORT`): when set, `addresses` is
  /// not read; each process listens on `listen_port`, registers its address there and receives
  /// every process's (the `Rendezvous` section of the book's chapter 10). Process 0 listens on
  /// this address, so it must be one of process 0's host.
  std::optional<Address> rendezvous;
  /// Under a rendezvous, the port this process listens on for its peers; 0: the system chooses.
  std::uint16_t listen_port = 0;
  /// How long start-up may take: connecting (with retries and back-off) and handshakes.
  std::chrono::milliseconds connect_timeout{60'000};
  /// An idle connection sends a heartbeat this often.
  std::chrono::milliseconds heartbeat_interval{500};
  /// A peer silent for this long is declared lost.
  std::chrono::milliseconds heartbeat_timeout{5'000};
  /// Most payload bytes of one message (one frame); larger messages fail with an error.
  std::uint32_t max_payload = 1u << 30;
  /// Receives each connection event during start-up (listening, connected, accepted), one line
  /// without a newline, on the thread that called `initialize`; empty: events are dropped. The
  /// `-r` flag of `execute_from_args` sets one that prints them to standard error.
  std::function<void(const std::string&)> report;
  /// Serialize messages between the workers of this process too (the `-z` flag): they travel as
  /// frames in memory, exactly as they would between processes. Allowed with one process.
  bool zerocopy = false;
};

/// How to start the workers of one process of a computation.
struct Config {
  /// Worker threads in this process (W >= 1); every process of a computation has the same W.
  std::size_t workers = 1;
  /// The processes (P, this one's index, their addresses; empty addresses mean
  /// `localhost:2101`, `localhost:2102`, ... as the reference does), start-up patience,
  /// heartbeats, the frame limit, `-r` and `-z`.
  ClusterConfig cluster{};
  /// Where the worker and network threads run (`--pin`, pinning.hpp); off by default. The
  /// processes on one host are those connected over loopback or one of the host's addresses.
  Pinning pin{};
};

namespace detail {
/// Starts the allocators and `config.workers` threads, runs `body(allocator)` on each, joins
/// them all, and rethrows the first error (see the file comment).
void run_workers(const Config& config, const std::function<void(Allocator&)>& body);
}  // namespace detail

/// Runs `closure(Allocator&)` on each of this process's `config.workers` worker threads and
/// waits for them. \returns the closures' results in worker order (nothing for `void`).
/// \throws ConfigError if `config.workers` is 0 or the cluster settings are bad (also a type
/// without a codec on a channel that leaves the process), or the pinning cannot be done
/// (pinning.hpp); NetworkError if the processes cannot connect or one is lost; the first
/// exception a closure threw.
template <class F>
auto initialize(const Config& config, F&& closure) {
  using R = std::invoke_result_t<F&, Allocator&>;
  if (config.workers == 0) throw ConfigError("timely: a computation needs at least one worker (workers = 0)");
  if constexpr (std::is_void_v<R>) {
    detail::run_workers(config, [&](Allocator& a) { closure(a); });
  } else {
    std::vector<std::optional<R>> slots(config.workers);
    detail::run_workers(config, [&](Allocator& a) {
      const std::size_t slot = a.index() % config.workers;  // before `closure` may move `a` away
      slots[slot].emplace(closure(a));
    });
    std::vector<R> results;
    results.reserve(slots.size());
    for (auto& s : slots) results.push_back(std::move(*s));
    return results;
  }
}

}  // namespace timely::communication
