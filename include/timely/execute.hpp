/// \file
/// Entry points: `Config` (how many workers and processes, which progress mode), `Config::from_args`
/// (the worker arguments `-w N`, `-n P`, `-p I`, `-h FILE`, `-r`, `--pin[=LIST]`,
/// `--connect-timeout S`, `--progress-mode eager|demand`, `--log-file PATTERN`, `--monitor HOST:PORT`,
/// `--monitor-linger SECONDS`, `--launcher NAME`, `--rendezvous HOST:PORT`, `--listen-port PORT`,
/// `--help`), `execute(config, closure)`,
/// `execute_from_args(argc, argv, closure)`, `execute_directly(closure)`, and `run(argc, argv,
/// closure)`, which is `execute_from_args` with a program's reporting of errors and `--help`.
///
/// `execute` starts `config.workers` worker threads in this process (connecting first to the
/// other `config.processes - 1` processes if there are several); each runs `closure(Worker&)`
/// and then keeps stepping until all of its dataflows are complete (having told the other
/// workers how many dataflows it built, so that one that builds more fails with a
/// `DataflowError` instead of waiting for it). It returns the closures'
/// results of this process's workers in worker order. If any worker throws, every worker (of
/// every process) stops at its next step and `execute` rethrows the first error (the original
/// exception, not the `WorkerAborted` of the others; on other processes a `NetworkError` that
/// quotes it). A lost peer process makes `execute` throw `NetworkError` naming it.
///
/// The threads, the connections and the failure handling are the communication library's
/// (`communication::initialize`, timely/communication/initialize.hpp); `execute` gives each
/// worker thread a `Worker` over its allocator.
///
/// # Log sinks
///
/// Before a worker runs the closure (so before it builds any dataflow: loggers are looked up
/// when a scope is built), `execute` registers these, as the reference does:
/// - `TIMELY_WORKER_LOG_ADDR=host:port` in the environment: each worker connects there (one
///   connection per worker, retried within `network.connect_timeout`) and streams its "timely"
///   events through `dataflow::BatchLogger` and an `EventWriter` (the capture format,
///   capture/format.hpp; records `LogRecord<logging::TimelyEvent>` on `Duration` times), so a
///   collector can replay them (examples/logging_recv.cpp).
/// - `TIMELY_PROGRESS_LOG_ADDR=host:port`: the same for "timely/progress/u64", the progress
///   batches of the `std::uint64_t`-timed scopes (dataflows on `u64` times; nested scopes with
///   other timestamps are not streamed), records `LogRecord<logging::ProgressEvent<u64>>`.
/// - `TIMELY_COMM_LOG_ADDR=host:port`: local worker 0 of each process (one connection per
///   process) streams "communication", its process's connection states and the bytes and
///   frames sent to and received from each other process (`logging::CommunicationEvent`, records
///   `LogRecord<logging::CommunicationEvent>`; communication_log.hpp). A single process logs no
///   such events: its stream opens and closes empty. The last events come after the
///   connections closed, from the thread that called `execute`.
/// - `Config::log_file` (`--log-file PATTERN`): each worker writes "timely" and the `u64`
///   streams ("timely/progress/u64", "timely/reachability/u64", "timely/summary/u64",
///   "timely/frontier/u64") and "communication" to a `logging::FileSink` at PATTERN with
///   `{process}` replaced by the process index and `{worker}` by the worker's index (in the
///   whole computation); read it back with `logging::FileReader`. Files are written at most
///   every 10 ms (and at the end), so logging costs little per step.
/// A stream with a file and a connection goes to both. `execute_directly` registers none.
/// Errors: a malformed address is a `ConfigError`, and a connection not made in time a
/// `NetworkError`, each naming the variable and the address; a pattern that would give two
/// workers one file (no `{worker}` with several workers per process, neither `{worker}` nor
/// `{process}` with several processes) is a `ConfigError`; a file that cannot be created or
/// written throws `logging::LogFileError` from that worker, and a connection that fails later
/// (the collector went away) `capture::FormatError` from its next step.
///
/// # Live monitor
///
/// `Config::monitor` (`--monitor HOST:PORT`; port 0: the system picks one, see
/// `Config::monitor_ready`) starts an `observe::Monitor` (timely/observe/monitor.hpp) before the
/// workers: an HTTP server on its own thread serving a page at `/` (the dataflow graph with
/// records/s per edge, frontiers and capabilities, worker time, a timeline of schedulings),
/// the state as JSON at `/api/state` and Prometheus metrics at `/metrics` (metrics.hpp). Each
/// worker registers the monitor's actions for "timely" and "timely/frontier/u64" next to the
/// sinks above (a stream with a file, a collector and the monitor goes to all three); after the
/// computation it keeps serving the final state for `Config::monitor_linger`
/// (`--monitor-linger SECONDS`; `execute` returns after it), then stops. Off (empty) by default: then nothing
/// listens and nothing is registered. With several processes every process must be given `--monitor` (all or
/// none: it allocates a channel on every worker); process 0 listens at its address and shows every process's
/// workers, which local worker 0 of each other process sends it every 500 ms (and at the end) over the
/// computation's own connections; the other processes' addresses are not read. Errors: `ConfigError` naming
/// the address if it is not HOST:PORT, `communication::NetworkError` naming it if it cannot be listened on
/// (port in use).
///
/// Source: the reference's `execute` module and `Config` (SEMANTICS.md §7.7). Thread-safety:
/// `execute` may be called from any thread; the closure runs on each worker thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/communication/allocator.hpp>
#include <timely/communication/error.hpp>
#include <timely/communication/hostfile.hpp>
#include <timely/communication/initialize.hpp>
#include <timely/communication/launcher.hpp>
#include <timely/worker.hpp>
#include <timely/worker_state.hpp>

namespace timely {

/// How to run a computation.
struct Config {
  /// Worker threads in this process (>= 1); every process of a computation has the same number.
  std::size_t workers = 1;
  /// Processes in the computation (P >= 1) and this one's index (< P).
  std::size_t processes = 1;
  std::size_t process_index = 0;
  /// Where each process listens (`host:port`, one per process; see `communication::read_hostfile`).
  /// Empty means `localhost:2101`, `localhost:2102`, ... as the reference does.
  std::vector<communication::Address> addresses;
  /// Start-up patience, heartbeats, frame limit and `-r` reporting of the cluster transport
  /// (its `processes`, `process` and `addresses` are taken from the fields above).
  communication::ClusterConfig network{};
  /// Where the worker and network threads run (`--pin`, `--pin=LIST`; communication/pinning.hpp);
  /// off by default.
  communication::Pinning pin{};
  /// Settings every worker gets.
  WorkerConfig worker{};
  /// Where each worker writes its log streams (see "Log sinks" above); empty: nowhere.
  std::string log_file;
  /// Where the live monitor listens, "HOST:PORT" (see "Live monitor" above); empty: no monitor.
  std::string monitor;
  /// How long the monitor keeps serving after the computation ends.
  std::chrono::milliseconds monitor_linger{0};
  /// Called with the address the monitor listens on ("HOST:PORT", the system's port for port
  /// 0) before the workers start, on process 0 only (may be empty).
  std::function<void(const std::string& address)> monitor_ready;
  /// The launcher `from_args` detected (communication/launcher.hpp); none by default. Its index,
  /// count and rendezvous are already in the fields above; `-r` reports it.
  communication::Launch launch;
  /// Positional arguments `from_args` did not interpret, in order (the program's own).
  std::vector<std::string> positional;

  /// One worker.
  static Config thread() { return Config{}; }
  /// `workers` worker threads sharing this process.
  static Config process(std::size_t workers) {
    Config c;
    c.workers = workers;
    return c;
  }
  /// `processes` processes of `workers` threads each, this one being `process`, listening at
  /// `addresses[i]`.
  static Config cluster(std::size_t workers, std::size_t processes, std::size_t process,
                        std::vector<communication::Address> addresses) {
    Config c;
    c.workers = workers;
    c.processes = processes;
    c.process_index = process;
    c.addresses = std::move(addresses);
    return c;
  }
  /// Parses worker arguments: `-w N`/`--workers N` (also `--threads N`), `-n P`/`--processes P`,
  /// `-p I`/`--process I`, `-h FILE`/`--hostfile FILE` (one `host:port` a line), `-r`/`--report`,
  /// `--pin` or `--pin=LIST` (workers on cores of their own, or on the listed CPUs in order; a
  /// flag, so a list follows `=`: see communication/pinning.hpp), `--connect-timeout SECONDS`,
  /// `--progress-mode eager|demand`, `--log-file PATTERN`, `--monitor HOST:PORT`,
  /// `--monitor-linger SECONDS` (0 to 86400), `--launcher auto|slurm|mpi|k8s|none`,
  /// `--rendezvous HOST:PORT`, `--listen-port PORT`, `--help`.
  ///
  /// Without `-n`/`-p`, a launcher's environment gives them (`--launcher`, auto by default:
  /// Slurm's srun, Open MPI's or MPICH's mpirun, a Kubernetes StatefulSet; see launcher.hpp),
  /// and with several processes and no hostfile its rendezvous address (process 0's) becomes
  /// `network.rendezvous`; `--rendezvous` or the environment variable `TIMELY_RENDEZVOUS` give
  /// one explicitly. With no launcher variables set, nothing changes.
  /// Positional arguments are collected in `positional` and left to the program. `argv[0]` is
  /// the program name.
  /// `-r` sets `network.report` to write the transport's connection reports (with `--monitor`,
  /// the address the monitor serves; with `--pin`, each thread's CPU) to standard error,
  /// "timely: ..." a line: the only output of the library, and only on this request (replace
  /// `network.report` to send them elsewhere).
  /// \throws ConfigError naming the bad argument (unknown flag, missing or non-numeric value,
  /// zero workers, a process index not below P, a malformed `--pin` list, an unreadable or
  /// malformed hostfile, a malformed launcher variable naming it and its value, `-n` or `-p`
  /// that differ from the launcher's naming both, a hostfile and a rendezvous together, a
  /// launcher that does not say where process 0 is); HelpRequested with the usage text for
  /// `--help`.
  static Config from_args(int argc, const char* const* argv);
  /// `from_args` reading the launcher variables and `TIMELY_RENDEZVOUS` from `env` instead of
  /// the process environment (for tests, and for programs that launch others).
  static Config from_args(int argc, const char* const* argv, const communication::Environment& env);
  /// The usage text of the worker arguments.
  static std::string usage(const std::string& program);

  /// The communication part of this configuration: `workers`, `pin`, and `network` with
  /// `processes`, `process_index` and `addresses` filled in.
  [[nodiscard]] communication::Config communication_config() const {
    communication::Config c;
    c.workers = workers;
    c.cluster = network;
    c.cluster.processes = processes;
    c.cluster.process = process_index;
    c.cluster.addresses = addresses;
    c.pin = pin;
    return c;
  }
};

namespace detail {
/// Runs `body(worker)` on `config.workers` threads (`communication::initialize`), then steps
/// each worker until its dataflows complete; rethrows the first worker error after all threads
/// joined.
void run_workers(const Config& config, const std::function<void(Worker&)>& body);
}  // namespace detail

/// Runs `closure(Worker&)` on every worker of `config` and waits for all dataflows to complete.
/// \returns `std::vector` of the closures' results in worker order (nothing for `void`).
/// \throws ConfigError if `config.workers` is 0 or the cluster settings are bad; NetworkError
/// if the processes cannot connect or one is lost; the first exception any worker threw.
template <class F>
auto execute(const Config& config, F&& closure) {
  using R = std::invoke_result_t<F&, Worker&>;
  if (config.workers == 0) throw ConfigError("timely: a computation needs at least one worker (workers = 0)");
  if constexpr (std::is_void_v<R>) {
    detail::run_workers(config, [&](Worker& w) { closure(w); });
  } else {
    std::vector<std::optional<R>> slots(config.workers);
    detail::run_workers(config, [&](Worker& w) { slots[w.index() % config.workers].emplace(closure(w)); });
    std::vector<R> results;
    results.reserve(slots.size());
    for (auto& s : slots) results.push_back(std::move(*s));
    return results;
  }
}

/// Parses the worker arguments of `argv` (see `Config::from_args`) and runs `execute`.
/// \throws ConfigError / HelpRequested before any thread starts, and whatever `execute` throws.
template <class F>
auto execute_from_args(int argc, const char* const* argv, F&& closure) {
  return execute(Config::from_args(argc, argv), std::forward<F>(closure));
}

namespace detail {
/// Runs `body()` and turns what it throws into a message and an exit status, as `run` says;
/// `program` names the program in the messages.
int run_reporting(const char* program, const std::function<void()>& body) noexcept;
/// The error `run` reports for positional arguments its closure cannot take.
[[noreturn]] void throw_unexpected_positional(const std::vector<std::string>& positional);
}  // namespace detail

/// Runs a whole program: parses the worker arguments of `argv` and runs `closure` on every
/// worker (`execute_from_args`), then returns the status for `main` to return, so that
/// `int main(int argc, char** argv) { return timely::run(argc, argv, closure); }` is complete.
///
/// `closure` is called as `closure(Worker&)`, or as `closure(Worker&, const Config&)` with the
/// configuration the arguments gave, whose `positional` holds the program's own arguments in
/// order; its results are dropped. With the first form, any positional argument is a bad
/// argument.
///
/// Returns 0 after the computation completes, and after `--help`, whose usage text it prints
/// to standard output; 2 for bad arguments (`ConfigError`, from the arguments or from the
/// configuration they make, such as an unusable `--log-file` pattern); 1 for any other failure
/// (a worker's exception, a lost process, `DataflowError`, any `std::exception` or other
/// exception). For 1 and 2 it prints one message to standard error, "PROGRAM: MESSAGE", with
/// PROGRAM the last part of `argv[0]`. Printing is otherwise left to the program: this is the
/// one function of the library that prints, because a program asks for it by calling it.
/// Never throws.
///
/// Thread-safety: as `execute`; call it from one thread (the main thread, normally).
/// Source: our own; the reference's examples `unwrap` the result of `execute_from_args`, which
/// panics with the error (status 101).
template <class F>
int run(int argc, const char* const* argv, F&& closure) {
  constexpr bool plain = std::is_invocable_v<F&, Worker&>;
  constexpr bool with_config = std::is_invocable_v<F&, Worker&, const Config&>;
  static_assert(plain || with_config,
                "timely::run: the closure must be callable as closure(Worker&) or as "
                "closure(Worker&, const timely::Config&)");
  const char* program = argc > 0 && argv[0] != nullptr ? argv[0] : "timely";
  return detail::run_reporting(program, [&] {
    const Config config = Config::from_args(argc, argv);
    if constexpr (plain) {
      if (!config.positional.empty()) detail::throw_unexpected_positional(config.positional);
      (void)execute(config, closure);
    } else if constexpr (with_config) {
      (void)execute(config, [&](Worker& worker) { return closure(worker, config); });
    }
  });
}

/// Runs `closure(Worker&)` with a single worker on the calling thread, then steps until its
/// dataflows complete. Returns the closure's result.
template <class F>
decltype(auto) execute_directly(F&& closure) {
  Worker worker(communication::Allocator::thread());
  using R = std::invoke_result_t<F&, Worker&>;
  if constexpr (std::is_void_v<R>) {
    closure(worker);
    while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
  } else {
    R result = closure(worker);
    while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
    return result;
  }
}

}  // namespace timely
