/// \file
/// Launchers: what a cluster's process starter (Slurm's `srun`, Open MPI's and MPICH's `mpirun`,
/// a Kubernetes StatefulSet) tells each process about itself through its environment, read into a
/// `Launch`: this process's index and the number of processes, the hosts of the processes where
/// the launcher says, and the rendezvous address that process 0 serves (rendezvous.hpp's
/// start-up, so that no hostfile is needed).
///
/// Shapes (each variable's value, as the launcher sets it):
/// - Slurm: `SLURM_PROCID` (index), `SLURM_STEP_NUM_TASKS` or else `SLURM_NTASKS` (count),
///   `SLURM_STEP_NODELIST` or else `SLURM_JOB_NODELIST` (a host list such as
///   `node[01-04,07],gpu-a[1-2]`: see `expand_slurm_nodelist`), `SLURM_STEP_TASKS_PER_NODE` or
///   else `SLURM_TASKS_PER_NODE` (such as `2(x3),1`: see `expand_slurm_tasks_per_node`),
///   `SLURM_JOB_ID` and `SLURM_STEP_ID` (or `SLURM_STEPID`), which only srun's tasks have: a
///   batch script run by sbatch has `SLURM_PROCID=0` and the job's `SLURM_NTASKS` too, but is
///   not detected (it is one process). Tasks are placed in blocks (Slurm's
///   default distribution): the first node's tasks are 0, 1, ..., so process 0 runs on the first
///   node. The rendezvous is that node at a port derived from the job and step ids (see
///   `derived_port`).
/// - Open MPI: `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_SIZE`, `OMPI_COMM_WORLD_LOCAL_SIZE`,
///   `OMPI_MCA_ess_base_jobid` (or `PMIX_NAMESPACE`). MPICH and other PMI launchers: `PMI_RANK`,
///   `PMI_SIZE`, `MPI_LOCALNRANKS`, `PMI_KVSNAME` (or `PMIX_NAMESPACE`). MPI does not say where
///   rank 0 runs: when every rank is on this node (local size = size) the rendezvous is
///   127.0.0.1 at a port derived from the job's id; across nodes `TIMELY_RENDEZVOUS` must name it.
/// - Kubernetes StatefulSet: the pod's name `NAME-ORDINAL` (`HOSTNAME`, which Kubernetes sets to
///   it), `TIMELY_PROCESSES` (the replicas), `TIMELY_SERVICE` (the headless Service; process i
///   is `NAME-i.SERVICE`), and `KUBERNETES_SERVICE_HOST` for automatic detection. The
///   rendezvous is `NAME-0.SERVICE:2100` (`TIMELY_RENDEZVOUS_PORT` changes the port).
///
/// Errors: a malformed value is a `ConfigError` naming the variable and its value; so is an
/// explicitly chosen launcher whose variables are missing. Thread-safety: pure functions but
/// `current_environment`, which reads the process environment (do not modify it concurrently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <timely/communication/hostfile.hpp>

namespace timely::communication {

/// Environment variables by name; injectable so that detection can be tested.
using Environment = std::map<std::string, std::string, std::less<>>;

/// The variables of this process's environment.
Environment current_environment();

/// Which process starter to read: `--launcher auto|slurm|mpi|k8s|none`.
enum class Launcher { Auto, None, Slurm, Mpi, Kubernetes };

/// "auto", "none", "slurm", "mpi", "k8s".
std::string_view launcher_name(Launcher launcher);
/// The inverse of `launcher_name`. \throws ConfigError naming `text`.
Launcher parse_launcher(std::string_view text);

/// A number a launcher gave, with where it came from ("SLURM_NTASKS=2"), for messages.
struct LaunchValue {
  std::size_t value = 0;
  std::string source;
};

/// What a launcher told this process. `launcher` is `None` when nothing was detected; then the
/// other fields are empty.
struct Launch {
  Launcher launcher = Launcher::None;
  /// "Slurm", "Open MPI", "MPICH/PMI", "Kubernetes StatefulSet" (empty for none).
  std::string name;
  std::optional<LaunchValue> processes;
  std::optional<LaunchValue> process;
  /// The host of process i, for each i, where the launcher says (Slurm with a node list and
  /// tasks per node, Kubernetes); empty otherwise.
  std::vector<std::string> hosts;
  /// Where process 0 serves the rendezvous, when it follows from the environment.
  std::optional<Address> rendezvous;
  /// How `rendezvous` was found, or why it could not be (for messages and `-r`).
  std::string rendezvous_source;

  /// One line for `-r`: "Slurm: process 1 of 3 (SLURM_PROCID=1, SLURM_STEP_NUM_TASKS=3); ...".
  [[nodiscard]] std::string describe() const;
};

/// Reads the launcher `choice` from `env` (`Auto`: the first of Slurm, Open MPI, MPICH/PMI and
/// Kubernetes whose variables are present; `None`: nothing).
/// \throws ConfigError naming the variable and value for a malformed or inconsistent value (an
/// index not below the count, a node list whose tasks do not add up to the count), and for an
/// explicit choice whose variables are missing.
Launch detect_launch(Launcher choice, const Environment& env);

/// Expands a Slurm host list: comma-separated names, each with any number of bracketed range
/// lists (`node[01-04,07]`, `rack[1-2]-n[1-2]`), zero padding kept (the width of a range's lower
/// bound when it starts with 0). `what` names the text in errors ("SLURM_JOB_NODELIST").
/// \throws ConfigError for empty names, unbalanced or nested brackets, a bound that is not a
/// number, a range whose upper bound is below its lower one, or more than 65536 hosts.
std::vector<std::string> expand_slurm_nodelist(std::string_view text, std::string_view what);

/// Expands Slurm's tasks per node: comma-separated counts, each optionally repeated with `(xN)`
/// (`2(x3),1` is 2, 2, 2, 1). \throws ConfigError naming `what` and the text for anything
/// else, a count of 0, or more than 65536 nodes.
std::vector<std::size_t> expand_slurm_tasks_per_node(std::string_view text, std::string_view what);

/// The range of `derived_port`: below Linux's ephemeral ports (32768 to 60999 by default) and
/// IANA's dynamic ones (from 49152), so that no outgoing connection on the node holds the port.
inline constexpr std::uint16_t kFirstDerivedPort = 20000;
inline constexpr std::uint16_t kEndDerivedPort = 32768;

/// The port process 0 serves the rendezvous on when a launcher gives only a job's identity:
/// `kFirstDerivedPort` + (FNV-1a hash of `key`) mod 12768, so that concurrent jobs on one node
/// rarely meet (if they do, process 0 cannot listen and says so, naming the port and
/// `--rendezvous`).
std::uint16_t derived_port(std::string_view key);

}  // namespace timely::communication
