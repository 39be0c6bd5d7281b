/// \file
/// CPU pinning (`--pin`, `Config::pin`): the CPUs this process may run on and their physical
/// cores (`Topology`: hwloc, or else the operating system), where the placement policy puts this
/// process's worker threads and network threads (`place_threads`), CPU lists (`parse_cpu_list`,
/// `format_cpu_list`), and pinning one thread (`pin_current_thread`, `pin_thread`).
/// `communication::initialize` applies a `Placement` when `Config::pin` asks for one.
///
/// # The policy of `--pin` (`Pinning::Mode::Cores`)
/// 1. The allowed CPUs are those the thread that starts the computation may run on
///    (`sched_getaffinity`). `taskset`, a cgroup's cpuset (`docker --cpuset-cpus`, systemd's
///    `AllowedCPUs`), Slurm's and mpirun's bindings all narrow that set; pinning never leaves it.
/// 2. They are put in order: one CPU of each physical core, core after core (package after
///    package, so that neighbouring workers share a last-level cache), then the second hardware
///    thread of each core, and so on. The first workers get physical cores of their own;
///    hyperthreads are used only when a host's workers outnumber its cores.
/// 3. The processes of the computation that run on this host (those this process reaches over
///    loopback or over one of the host's own addresses) take consecutive slices of that order, by
///    their local index l among them (ordered by process index): local worker w of that process
///    goes to position l * W + w (W workers per process). When the host's L processes have more
///    workers than there are allowed CPUs (L * W > n), positions wrap around, modulo n. Each
///    process still gives its own workers distinct CPUs, and processes that a launcher or
///    `taskset` gave CPUs of their own use those; processes that share one set share CPUs, and
///    `-r` says so.
/// 4. More workers in one process than allowed CPUs (W > n) is a `ConfigError`: two of its
///    workers would take turns on one CPU, which is what pinning is asked to prevent. Run fewer
///    workers or leave out `--pin`.
/// 5. The network threads (a send and a receive thread per peer process) may run on every allowed
///    CPU that no worker of this host was given (positions L * W to n - 1); when none is left, on
///    this process's workers' CPUs, shared with the workers they serve (they sleep in `poll` and
///    `recv` most of the time). They are confined to that set, not pinned one CPU each, so that
///    the scheduler balances them.
///
/// # An explicit list (`Pinning::Mode::List`, `--pin=LIST`)
/// The listed CPUs, in the order given, replace the order of step 2; steps 3 to 5 apply to the
/// list as they apply to the allowed set. Every listed CPU must be allowed, and appear once.
/// A list longer than the workers leaves CPUs to the network threads: `--pin=0-3 -w 2` runs the
/// workers on CPUs 0 and 1 and the network threads on 2 and 3.
///
/// # What is not pinned
/// The thread that calls `initialize` or `execute`, the live monitor's server thread, and log
/// connections run where the operating system puts them.
///
/// # Where the topology comes from
/// hwloc (Debian libhwloc) groups the allowed CPUs by core and package. If hwloc cannot load the
/// topology, or its topology lacks an allowed CPU, each allowed CPU counts as a core of its own
/// (`os_topology`, source "os"): workers still get distinct CPUs, but the hyperthreads of one
/// core are not told apart.
///
/// Errors: `ConfigError` naming the value for a malformed CPU list, a listed CPU outside the
/// allowed set or listed twice, more workers than CPUs, or a thread the operating system would
/// not pin (naming the thread, the CPUs and the system's reason).
///
/// Source: not in the reference, which leaves threads to the operating system. The policy is
/// OpenMP's `OMP_PLACES=cores` with `OMP_PROC_BIND=close` (one thread per core, on consecutive
/// cores) kept inside the process's affinity mask, as thread-per-core servers such as Seastar
/// do with hwloc; separate places for worker and communication threads, and telling hosts apart
/// by their addresses, follow Charm++'s `+pemap` and `+commap`. Thread-safety: every function
/// may be called from any thread; `pin_current_thread` acts on the calling thread only.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace timely::communication {

/// One logical CPU (a hardware thread) that this process may run on.
struct Cpu {
  unsigned index = 0;    ///< the operating system's number (as in `taskset`, `/proc/cpuinfo`)
  unsigned core = 0;     ///< its physical core: hardware threads of one core have the same `core`
  unsigned package = 0;  ///< its package (socket)
  friend bool operator==(const Cpu&, const Cpu&) = default;
};

/// The CPUs this process may run on, with their cores and packages.
struct Topology {
  /// The allowed CPUs in the topology's order: package by package, core by core, and the
  /// hardware threads of a core together.
  std::vector<Cpu> cpus;
  /// How the cores were known: "hwloc", or "os" (each CPU a core of its own); for `-r`.
  std::string source;
};

/// The CPUs the calling thread may run on (`sched_getaffinity`), ascending.
/// \throws ConfigError if the system will not say.
std::vector<unsigned> current_thread_cpus();

/// The allowed CPUs (`current_thread_cpus`) grouped by core and package with hwloc, or
/// `os_topology` if hwloc cannot load a topology that holds them all.
Topology detect_topology();

/// The allowed CPUs (`current_thread_cpus`), each counted as a core of its own, in the package
/// 0, ascending; source "os". The fallback of `detect_topology`.
Topology os_topology();

/// How to pin this process's threads (`Config::pin`).
struct Pinning {
  enum class Mode {
    Off,    ///< no pinning (the default)
    Cores,  ///< `--pin`: the policy in the file comment, over the allowed CPUs
    List,   ///< `--pin=LIST`: the policy over `cpus`, in their order
  };
  Mode mode = Mode::Off;
  /// Mode::List: the CPUs in order (see `parse_cpu_list`).
  std::vector<unsigned> cpus;
  /// The topology to place on; empty: `detect_topology()` when the computation starts. For
  /// tests, and for a program that wants to place on fewer CPUs than it may use.
  std::optional<Topology> topology;
};

/// Parses a CPU list: comma-separated items, each a CPU number or an ascending range `A-B`
/// (`0-3,8,10-11`), in the order written (ranges ascending). `what` names the text in errors
/// ("--pin"). \throws ConfigError naming `what`, the text and the bad item for an empty list or
/// item, anything but digits and one `-` in an item, a range whose end is below its start, a
/// CPU number above 65535, or a CPU given twice.
std::vector<unsigned> parse_cpu_list(std::string_view text, std::string_view what);

/// `cpus` as a CPU list: ascending runs of consecutive numbers become ranges, in their order
/// (`{0, 1, 2, 5, 4}` is "0-2,5,4"); empty: "none".
std::string format_cpu_list(std::span<const unsigned> cpus);

/// Where the policy puts this process's threads.
struct Placement {
  /// The CPU of each local worker, in local worker order.
  std::vector<unsigned> workers;
  /// The CPUs the network threads may run on, ascending.
  std::vector<unsigned> network;
  /// True when the network threads share the workers' CPUs (no CPU was left for them).
  bool network_shares_workers = false;
  /// The CPUs in policy order (step 2 of the file comment, or the list): position p is `order[p]`.
  std::vector<unsigned> order;
  /// This process's index among the processes on its host, and how many there are (L).
  std::size_t local_process = 0;
  std::size_t local_processes = 1;
  /// True when the host's workers outnumber `order` and positions wrap around.
  bool wraps = false;
  /// The topology placed on.
  Topology topology;

  /// Lines for `-r`, one per fact: what was placed on (the CPUs, cores and source), each
  /// worker's CPU and core (workers numbered from `first_worker`, their index in the whole
  /// computation), the network threads' CPUs if there are `network_threads`, and a wrap-around
  /// if there is one.
  [[nodiscard]] std::vector<std::string> describe(std::size_t first_worker, bool network_threads) const;
};

/// Applies the policy of the file comment: places `workers` worker threads (W) of the process
/// with local index `local_process` among the `local_processes` processes (L) on its host, over
/// `topology`. Mode::Off gives an empty placement. Pure: no thread is pinned.
/// \throws ConfigError if `topology` holds no CPU; if a listed CPU is not in it (naming the CPU
/// and the allowed ones) or is listed twice; if `workers` exceeds the CPUs placed on (naming
/// both); if `local_process >= local_processes`.
Placement place_threads(const Pinning& pinning, const Topology& topology, std::size_t workers,
                        std::size_t local_process, std::size_t local_processes);

/// Confines the calling thread to `cpus` (`sched_setaffinity`; one CPU pins it). `what` names
/// the thread in errors ("worker 3"). \throws ConfigError naming `what`, the CPUs and the
/// system's reason if the system refuses (a CPU this thread may not use, or none at all).
void pin_current_thread(std::span<const unsigned> cpus, std::string_view what);

/// Confines the running `thread` to `cpus` (`pthread_setaffinity_np`); as `pin_current_thread`.
void pin_thread(std::thread& thread, std::span<const unsigned> cpus, std::string_view what);

}  // namespace timely::communication
