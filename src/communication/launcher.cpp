// Launcher detection (include/timely/communication/launcher.hpp).
#include <timely/communication/launcher.hpp>

#include <charconv>
#include <numeric>
#include <utility>

#include <timely/communication/error.hpp>

extern char** environ;  // NOLINT: POSIX names it so

namespace timely::communication {

namespace {

constexpr std::size_t kMostHosts = 65536;  // as many as `-n` allows
constexpr std::uint16_t kKubernetesRendezvousPort = 2100;

[[noreturn]] void malformed(std::string_view what, std::string_view text, const std::string& why) {
  throw ConfigError("timely: " + std::string(what) + "='" + std::string(text) + "' is malformed: " + why);
}

/// A whole decimal number (digits only, at most 9 of them), or nothing.
std::optional<std::size_t> whole(std::string_view text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  std::size_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

const std::string* find(const Environment& env, std::string_view name) {
  const auto it = env.find(name);
  return it == env.end() ? nullptr : &it->second;
}

/// The first of `names` present in `env`: (name, value).
std::optional<std::pair<std::string, std::string>> first_of(const Environment& env,
                                                            std::initializer_list<std::string_view> names) {
  for (const auto name : names)
    if (const auto* value = find(env, name)) return std::pair{std::string(name), *value};
  return std::nullopt;
}

/// The number in variable `name` = `value`, at least `least`. \throws ConfigError naming both.
LaunchValue number(const std::string& name, const std::string& value, std::size_t least,
                   const char* meaning) {
  const auto n = whole(value);
  if (!n || *n < least || *n > kMostHosts)
    malformed(name, value,
              std::string("expected ") + meaning + ", a whole number from " + std::to_string(least) + " to " +
                  std::to_string(kMostHosts));
  return LaunchValue{*n, name + "=" + value};
}

/// Index below count, or a ConfigError naming both.
void check_index(const Launch& launch) {
  if (launch.process->value >= launch.processes->value)
    throw ConfigError("timely: " + launch.name + " gave process index " + launch.process->source +
                      ", not below the number of processes " + launch.processes->source);
}

std::optional<Launch> slurm(const Environment& env, bool required) {
  const auto* procid = find(env, "SLURM_PROCID");
  const auto count = first_of(env, {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_NPROCS"});
  // A task of an srun step has a step id; the batch script itself (sbatch) has SLURM_PROCID=0
  // and the job's SLURM_NTASKS but none, and is one process, not task 0 of several.
  const auto step = first_of(env, {"SLURM_STEP_ID", "SLURM_STEPID"});
  if (!procid || !count || !step) {
    if (!required) return std::nullopt;
    throw ConfigError(
        "timely: --launcher slurm, but SLURM_PROCID, SLURM_STEP_ID and SLURM_STEP_NUM_TASKS (or "
        "SLURM_NTASKS) are "
        "not all set: this is not a task of a job step; start the processes with srun");
  }
  Launch launch;
  launch.launcher = Launcher::Slurm;
  launch.name = "Slurm";
  launch.process = number("SLURM_PROCID", *procid, 0, "a process index");
  launch.processes = number(count->first, count->second, 1, "a number of tasks");
  check_index(launch);
  const auto nodes_var = first_of(env, {"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST", "SLURM_NODELIST"});
  const auto tasks_var = first_of(env, {"SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"});
  std::vector<std::string> nodes;
  if (nodes_var) nodes = expand_slurm_nodelist(nodes_var->second, nodes_var->first);
  if (nodes_var && tasks_var) {
    const auto tasks = expand_slurm_tasks_per_node(tasks_var->second, tasks_var->first);
    if (tasks.size() != nodes.size())
      throw ConfigError("timely: " + tasks_var->first + "='" + tasks_var->second + "' gives tasks for " +
                        std::to_string(tasks.size()) + " nodes, but " + nodes_var->first + "='" +
                        nodes_var->second + "' lists " + std::to_string(nodes.size()));
    const auto total = std::accumulate(tasks.begin(), tasks.end(), std::size_t{0});
    if (total != launch.processes->value)
      throw ConfigError("timely: " + tasks_var->first + "='" + tasks_var->second + "' adds up to " +
                        std::to_string(total) + " tasks, but " + launch.processes->source);
    for (std::size_t n = 0; n < nodes.size(); ++n)
      launch.hosts.insert(launch.hosts.end(), tasks[n], nodes[n]);
  }
  const auto* job = find(env, "SLURM_JOB_ID");
  if (nodes.empty()) {
    launch.rendezvous_source = "Slurm gave no node list (SLURM_STEP_NODELIST or SLURM_JOB_NODELIST)";
  } else if (!job) {
    launch.rendezvous_source = "Slurm gave no job id (SLURM_JOB_ID)";
  } else {
    const auto key = *job + "." + step->second;
    launch.rendezvous = Address{nodes.front(), derived_port("slurm " + key)};
    launch.rendezvous_source = "the first node of " + nodes_var->first + ", port from job.step " + key;
  }
  return launch;
}

std::optional<Launch> mpi(const Environment& env, bool required) {
  struct Flavour {
    const char* name;
    const char* rank;
    const char* size;
    const char* local_size;
    std::initializer_list<std::string_view> job;
  };
  static const Flavour flavours[] = {
      {"Open MPI",
       "OMPI_COMM_WORLD_RANK",
       "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_SIZE",
       {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE"}},
      {"MPICH/PMI", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS", {"PMI_KVSNAME", "PMIX_NAMESPACE"}},
  };
  for (const auto& flavour : flavours) {
    const auto* rank = find(env, flavour.rank);
    const auto* size = find(env, flavour.size);
    if (!rank && !size) continue;
    if (!rank || !size)  // half an MPI environment: running as one process would be silently wrong
      throw ConfigError("timely: " + std::string(rank ? flavour.rank : flavour.size) + " is set but " +
                        (rank ? flavour.size : flavour.rank) + " is not: an incomplete " + flavour.name +
                        " environment (start the processes with mpirun, or unset it)");
    Launch launch;
    launch.launcher = Launcher::Mpi;
    launch.name = flavour.name;
    launch.process = number(flavour.rank, *rank, 0, "a rank");
    launch.processes = number(flavour.size, *size, 1, "a number of ranks");
    check_index(launch);
    const auto* local = find(env, flavour.local_size);
    const auto job = first_of(env, flavour.job);
    const bool one_node =
        local && number(flavour.local_size, *local, 1, "a number of ranks").value == launch.processes->value;
    if (one_node && job) {
      launch.rendezvous = Address{"127.0.0.1", derived_port("mpi " + job->second)};
      launch.rendezvous_source = "every rank on this node (" + std::string(flavour.local_size) + "=" +
                                 *local + "), port from " + job->first + "=" + job->second;
    } else {
      launch.rendezvous_source = std::string(flavour.name) +
                                 " does not say where rank 0 runs: set TIMELY_RENDEZVOUS=HOST:PORT (rank 0's "
                                 "host) for every rank, e.g. mpirun -x TIMELY_RENDEZVOUS=...";
    }
    return launch;
  }
  if (required)
    throw ConfigError(
        "timely: --launcher mpi, but neither OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE nor PMI_RANK and "
        "PMI_SIZE are set: start the processes with mpirun");
  return std::nullopt;
}

std::optional<Launch> kubernetes(const Environment& env, bool required) {
  const auto* service = find(env, "TIMELY_SERVICE");
  const auto* count = find(env, "TIMELY_PROCESSES");
  // In a pod, either of our variables means a StatefulSet of ours: one missing is an error, not
  // one process computing everything alone.
  if (!required && !((service || count) && find(env, "KUBERNETES_SERVICE_HOST"))) return std::nullopt;
  const auto* pod = find(env, "HOSTNAME");
  if (!service || !count || !pod)
    throw ConfigError(
        "timely: a Kubernetes StatefulSet needs TIMELY_SERVICE (its headless Service), TIMELY_PROCESSES (its "
        "replicas) and HOSTNAME (the pod's name, NAME-ORDINAL), but " +
        std::string(!service ? "TIMELY_SERVICE"
                    : !count ? "TIMELY_PROCESSES"
                             : "HOSTNAME") +
        " is not set");
  if (service->empty() || service->find_first_of(" \t/:") != std::string::npos)
    malformed("TIMELY_SERVICE", *service, "expected the name of a headless Service");
  // A StatefulSet's pod is NAME-ORDINAL; HOSTNAME may be the fully qualified name.
  const auto short_name = std::string_view(*pod).substr(0, pod->find('.'));
  const auto dash = short_name.rfind('-');
  const auto ordinal = dash == std::string_view::npos ? std::nullopt : whole(short_name.substr(dash + 1));
  if (!ordinal || dash == 0)
    malformed("HOSTNAME", *pod, "expected a StatefulSet pod's name, NAME-ORDINAL (such as wordcount-2)");
  Launch launch;
  launch.launcher = Launcher::Kubernetes;
  launch.name = "Kubernetes StatefulSet";
  launch.process = LaunchValue{*ordinal, "the ordinal of HOSTNAME=" + *pod};
  launch.processes = number("TIMELY_PROCESSES", *count, 1, "the StatefulSet's replicas");
  check_index(launch);
  const auto name = std::string(short_name.substr(0, dash));
  for (std::size_t i = 0; i < launch.processes->value; ++i)
    launch.hosts.push_back(name + "-" + std::to_string(i) + "." + *service);
  auto port = kKubernetesRendezvousPort;
  std::string port_source = "the default port";
  if (const auto* text = find(env, "TIMELY_RENDEZVOUS_PORT")) {
    const auto n = whole(*text);
    if (!n || *n < 1 || *n > 65535) malformed("TIMELY_RENDEZVOUS_PORT", *text, "expected a port, 1 to 65535");
    port = static_cast<std::uint16_t>(*n);
    port_source = "TIMELY_RENDEZVOUS_PORT=" + *text;
  }
  launch.rendezvous = Address{launch.hosts.front(), port};
  launch.rendezvous_source = "pod 0 of the Service (" + port_source + ")";
  return launch;
}

/// Calls `f(item)` for each comma-separated item of `text` (empty items too).
template <class F>
void for_each_item(std::string_view text, F&& f) {
  for (std::size_t start = 0; start <= text.size();) {
    auto end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    f(text.substr(start, end - start));
    start = end + 1;
  }
}

/// Appends `item` (one name of a host list, with its brackets) expanded to `out`.
void expand_item(std::string_view item, std::string_view text, std::string_view what, std::string prefix,
                 std::vector<std::string>& out) {
  const auto open = item.find('[');
  if (open == std::string_view::npos) {
    if (item.find(']') != std::string_view::npos) malformed(what, text, "a ']' without its '['");
    out.push_back(prefix + std::string(item));
    if (out.size() > kMostHosts) malformed(what, text, "more than " + std::to_string(kMostHosts) + " hosts");
    return;
  }
  const auto close = item.find(']', open);
  if (close == std::string_view::npos) malformed(what, text, "a '[' without its ']'");
  const auto head = item.substr(0, open);
  if (head.find(']') != std::string_view::npos) malformed(what, text, "a ']' without its '['");
  const auto inside = item.substr(open + 1, close - open - 1);
  if (inside.find('[') != std::string_view::npos) malformed(what, text, "nested brackets");
  if (inside.empty()) malformed(what, text, "empty brackets");
  const auto rest = item.substr(close + 1);
  for_each_item(inside, [&](std::string_view range) {
    const auto dash = range.find('-');
    const auto low_text = range.substr(0, dash);
    const auto high_text = dash == std::string_view::npos ? low_text : range.substr(dash + 1);
    const auto low = whole(low_text);
    const auto high = whole(high_text);
    if (!low || !high)
      malformed(what, text,
                "'" + std::string(range) + "' in brackets is not a number or a range A-B of numbers");
    if (*high < *low) malformed(what, text, "the range '" + std::string(range) + "' runs backwards");
    if (*high - *low >= kMostHosts)
      malformed(what, text, "more than " + std::to_string(kMostHosts) + " hosts");
    // Slurm pads to the width of the lower bound as written: node[08-10] is node08, node09, node10.
    const std::size_t width = low_text.size() > 1 && low_text.front() == '0' ? low_text.size() : 0;
    for (auto n = *low; n <= *high; ++n) {
      auto digits = std::to_string(n);
      if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
      expand_item(rest, text, what, prefix + std::string(head) + digits, out);
    }
  });
}

}  // namespace

Environment current_environment() {
  Environment env;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string_view text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    env.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  return env;
}

std::string_view launcher_name(Launcher launcher) {
  switch (launcher) {
    case Launcher::Auto:
      return "auto";
    case Launcher::None:
      return "none";
    case Launcher::Slurm:
      return "slurm";
    case Launcher::Mpi:
      return "mpi";
    case Launcher::Kubernetes:
      return "k8s";
  }
  return "none";
}

Launcher parse_launcher(std::string_view text) {
  for (const auto l : {Launcher::Auto, Launcher::None, Launcher::Slurm, Launcher::Mpi, Launcher::Kubernetes})
    if (launcher_name(l) == text) return l;
  throw ConfigError("timely: unknown launcher '" + std::string(text) +
                    "' (expected auto, slurm, mpi, k8s or none)");
}

std::string Launch::describe() const {
  if (launcher == Launcher::None) return "launcher: none detected";
  std::string out = "launcher: " + name + ", process " + std::to_string(process->value) + " of " +
                    std::to_string(processes->value) + " (" + process->source + ", " + processes->source +
                    ")";
  if (!hosts.empty()) out += ", on " + hosts[process->value];
  if (rendezvous)
    out += "; rendezvous " + rendezvous->to_string() + " (" + rendezvous_source + ")";
  else
    out += "; no rendezvous: " + rendezvous_source;
  return out;
}

Launch detect_launch(Launcher choice, const Environment& env) {
  const bool any = choice == Launcher::Auto;
  if (choice == Launcher::None) return {};
  if (any || choice == Launcher::Slurm)
    if (auto l = slurm(env, !any)) return *l;
  if (any || choice == Launcher::Mpi)
    if (auto l = mpi(env, !any)) return *l;
  if (any || choice == Launcher::Kubernetes)
    if (auto l = kubernetes(env, !any)) return *l;
  return {};
}

std::vector<std::string> expand_slurm_nodelist(std::string_view text, std::string_view what) {
  if (text.empty()) malformed(what, text, "an empty host list");
  std::vector<std::string> out;
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) malformed(what, text, "a ']' without its '['");
    if (c != ',' || depth > 0) continue;
    const auto item = text.substr(start, i - start);
    if (item.empty()) malformed(what, text, "an empty host name");
    if (item.find_first_of(" \t") != std::string_view::npos) malformed(what, text, "a space in a host name");
    expand_item(item, text, what, "", out);
    start = i + 1;
  }
  if (depth != 0) malformed(what, text, "a '[' without its ']'");
  return out;
}

std::vector<std::size_t> expand_slurm_tasks_per_node(std::string_view text, std::string_view what) {
  if (text.empty()) malformed(what, text, "empty");
  std::vector<std::size_t> out;
  for_each_item(text, [&](std::string_view item) {
    const auto paren = item.find('(');
    const auto tasks = whole(item.substr(0, paren));
    std::optional<std::size_t> repeat = 1;
    if (paren != std::string_view::npos) {
      const auto inner = item.substr(paren + 1);
      repeat = inner.size() >= 3 && inner.front() == 'x' && inner.back() == ')'
                   ? whole(inner.substr(1, inner.size() - 2))
                   : std::nullopt;
    }
    if (!tasks || !repeat || *tasks == 0 || *repeat == 0)
      malformed(what, text,
                "'" + std::string(item) + "' is not a count of tasks N or N(xM), N and M above 0");
    if (out.size() + *repeat > kMostHosts)
      malformed(what, text, "more than " + std::to_string(kMostHosts) + " nodes");
    out.insert(out.end(), *repeat, *tasks);
  });
  return out;
}

std::uint16_t derived_port(std::string_view key) {
  std::uint32_t hash = 2166136261u;  // FNV-1a: a stable hash, the same in every process
  for (const char c : key) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 16777619u;
  }
  return static_cast<std::uint16_t>(kFirstDerivedPort + hash % (kEndDerivedPort - kFirstDerivedPort));
}

}  // namespace timely::communication
