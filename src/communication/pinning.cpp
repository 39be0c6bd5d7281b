// CPU pinning (include/timely/communication/pinning.hpp): the allowed CPUs and their cores from
// hwloc or the operating system, the placement policy, CPU lists, and setting a thread's
// affinity. hwloc stays inside this file.
#include <timely/communication/pinning.hpp>

#include <pthread.h>
#include <sched.h>

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>

#include <timely/communication/error.hpp>

namespace timely::communication {

namespace {

/// Linux accepts CPU numbers up to its configured maximum (8192 at most today); this bounds a
/// list and the affinity masks we ask for.
constexpr unsigned kMaxCpu = 65535;

/// A dynamically sized `cpu_set_t` (CPU_ALLOC), freed when it goes.
class CpuMask {
 public:
  explicit CpuMask(unsigned cpus) : count_(std::max(cpus, 1u)), set_(CPU_ALLOC(count_)) {
    if (set_ == nullptr) throw ConfigError("timely: cannot allocate a CPU mask of " + std::to_string(cpus));
    CPU_ZERO_S(size(), set_);
  }
  CpuMask(CpuMask&& other) noexcept : count_(other.count_), set_(std::exchange(other.set_, nullptr)) {}
  CpuMask(const CpuMask&) = delete;
  CpuMask& operator=(const CpuMask&) = delete;
  CpuMask& operator=(CpuMask&&) = delete;
  ~CpuMask() {
    if (set_ != nullptr) CPU_FREE(set_);
  }

  [[nodiscard]] std::size_t size() const noexcept { return CPU_ALLOC_SIZE(count_); }
  [[nodiscard]] cpu_set_t* get() noexcept { return set_; }
  void add(unsigned cpu) noexcept { CPU_SET_S(cpu, size(), set_); }
  [[nodiscard]] std::vector<unsigned> cpus() const {
    std::vector<unsigned> out;
    // CPU_ALLOC_SIZE rounds up to whole words: every bit of the mask is a CPU number.
    const auto bits = static_cast<unsigned>(size() * 8);
    for (unsigned cpu = 0; cpu < bits; ++cpu)
      if (CPU_ISSET_S(cpu, size(), set_)) out.push_back(cpu);
    return out;
  }

 private:
  unsigned count_;
  cpu_set_t* set_;
};

CpuMask mask_of(std::span<const unsigned> cpus) {
  const unsigned highest = cpus.empty() ? 0 : *std::max_element(cpus.begin(), cpus.end());
  CpuMask mask(highest + 1);
  for (const unsigned cpu : cpus) mask.add(cpu);
  return mask;
}

[[noreturn]] void refused(std::string_view what, std::span<const unsigned> cpus, int error) {
  throw ConfigError("timely: cannot pin " + std::string(what) +
                    (cpus.size() == 1 ? " to CPU " : " to CPUs ") + format_cpu_list(cpus) + ": " +
                    std::strerror(error));
}

void check_pinnable(std::span<const unsigned> cpus, std::string_view what) {
  if (cpus.empty()) throw ConfigError("timely: cannot pin " + std::string(what) + " to no CPU at all");
  for (const unsigned cpu : cpus)
    if (cpu > kMaxCpu)
      throw ConfigError("timely: cannot pin " + std::string(what) + " to CPU " + std::to_string(cpu) +
                        ": CPU numbers end at " + std::to_string(kMaxCpu));
}

/// hwloc's view of `allowed`, or nothing if hwloc cannot load a topology that holds them all.
std::optional<Topology> load_hwloc_topology(const std::vector<unsigned>& allowed) {
  hwloc_topology_t topology = nullptr;
  if (hwloc_topology_init(&topology) != 0) return std::nullopt;
  const std::unique_ptr<std::remove_pointer_t<hwloc_topology_t>, void (*)(hwloc_topology_t)> guard(
      topology, hwloc_topology_destroy);
  if (hwloc_topology_load(topology) != 0) return std::nullopt;
  const std::set<unsigned> wanted(allowed.begin(), allowed.end());
  const int pus = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
  const int cores = std::max(0, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE));
  Topology out{{}, "hwloc"};
  for (int i = 0; i < pus; ++i) {
    const hwloc_obj_t pu = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    if (pu == nullptr || !wanted.contains(pu->os_index)) continue;
    const hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu);
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, pu);
    // A hardware thread with no core above it (some virtual machines) is a core of its own.
    const unsigned core_index =
        core != nullptr ? core->logical_index : static_cast<unsigned>(cores) + pu->logical_index;
    out.cpus.push_back(Cpu{pu->os_index, core_index, package != nullptr ? package->logical_index : 0});
  }
  if (out.cpus.size() != wanted.size()) return std::nullopt;
  return out;
}

/// `allowed`, each CPU a core of its own (what the operating system alone tells us).
Topology each_cpu_a_core(const std::vector<unsigned>& allowed) {
  Topology out{{}, "os"};
  for (const unsigned cpu : allowed) out.cpus.push_back(Cpu{cpu, cpu, 0});
  return out;
}

/// The CPUs of `topology` in the policy's order: the first hardware thread of every core, core
/// by core in the topology's order, then every core's second, and so on.
std::vector<unsigned> spread_order(const Topology& topology) {
  std::vector<unsigned> core_order;                   // cores in order of first appearance
  std::map<unsigned, std::vector<unsigned>> by_core;  // core -> its CPUs in the topology's order
  for (const Cpu& cpu : topology.cpus) {
    auto& threads = by_core[cpu.core];
    if (threads.empty()) core_order.push_back(cpu.core);
    threads.push_back(cpu.index);
  }
  std::vector<unsigned> order;
  order.reserve(topology.cpus.size());
  for (std::size_t rank = 0; order.size() < topology.cpus.size(); ++rank)
    for (const unsigned core : core_order)
      if (const auto& threads = by_core[core]; rank < threads.size()) order.push_back(threads[rank]);
  return order;
}

std::size_t count_cores(const Topology& topology) {
  std::set<unsigned> cores;
  for (const Cpu& cpu : topology.cpus) cores.insert(cpu.core);
  return cores.size();
}

/// "1 CPU", "2 CPUs".
std::string counted(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::vector<unsigned> indices(const Topology& topology) {
  std::vector<unsigned> out;
  for (const Cpu& cpu : topology.cpus) out.push_back(cpu.index);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<unsigned> current_thread_cpus() {
  // The kernel refuses a mask smaller than its own (EINVAL): double until it fits.
  for (unsigned capacity = 1024; capacity <= 2 * (kMaxCpu + 1); capacity *= 2) {
    CpuMask mask(capacity);
    if (sched_getaffinity(0, mask.size(), mask.get()) == 0) return mask.cpus();
    if (errno != EINVAL) break;
  }
  throw ConfigError(std::string("timely: cannot read the CPUs this thread may run on (sched_getaffinity): ") +
                    std::strerror(errno));
}

Topology os_topology() { return each_cpu_a_core(current_thread_cpus()); }

Topology detect_topology() {
  const auto allowed = current_thread_cpus();
  if (auto topology = load_hwloc_topology(allowed)) return std::move(*topology);
  return each_cpu_a_core(allowed);
}

std::vector<unsigned> parse_cpu_list(std::string_view text, std::string_view what) {
  const auto bad = [&](const std::string& why) {
    return ConfigError("timely: bad CPU list '" + std::string(text) + "' (" + std::string(what) +
                       "): " + why);
  };
  const auto number = [&](std::string_view item, std::string_view digits) {
    if (digits.empty() || digits.size() > 5 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos)
      throw bad("'" + std::string(item) + "' is not a CPU number or a range A-B");
    const unsigned long value = std::stoul(std::string(digits));
    if (value > kMaxCpu) throw bad("CPU " + std::string(digits) + " is above " + std::to_string(kMaxCpu));
    return static_cast<unsigned>(value);
  };
  if (text.empty()) throw bad("it names no CPU");
  std::vector<unsigned> out;
  std::set<unsigned> seen;
  std::size_t at = 0;
  while (true) {
    const auto comma = text.find(',', at);
    const auto item = text.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at);
    if (item.empty()) throw bad("an empty item");
    const auto dash = item.find('-');
    const unsigned first = number(item, item.substr(0, dash));
    const unsigned last = dash == std::string_view::npos ? first : number(item, item.substr(dash + 1));
    if (last < first) throw bad("the range '" + std::string(item) + "' ends below its start");
    for (unsigned cpu = first; cpu <= last; ++cpu) {
      if (!seen.insert(cpu).second) throw bad("CPU " + std::to_string(cpu) + " is given twice");
      out.push_back(cpu);
    }
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return out;
}

std::string format_cpu_list(std::span<const unsigned> cpus) {
  if (cpus.empty()) return "none";
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Placement place_threads(const Pinning& pinning, const Topology& topology, std::size_t workers,
                        std::size_t local_process, std::size_t local_processes) {
  Placement out;
  out.local_process = local_process;
  out.local_processes = local_processes;
  out.topology = topology;
  if (pinning.mode == Pinning::Mode::Off) return out;
  if (local_process >= local_processes)
    throw ConfigError("timely: pinning: local process index " + std::to_string(local_process) +
                      " must be less than the processes on this host, " + std::to_string(local_processes));
  if (topology.cpus.empty()) throw ConfigError("timely: --pin: this process may run on no CPU at all");
  const auto allowed = indices(topology);
  if (const auto twice = std::adjacent_find(allowed.begin(), allowed.end()); twice != allowed.end())
    throw ConfigError("timely: --pin: the topology (" + topology.source + ") lists CPU " +
                      std::to_string(*twice) + " twice");
  std::string placed_on;  // what the workers are placed on, for the error below
  if (pinning.mode == Pinning::Mode::Cores) {
    out.order = spread_order(topology);
    placed_on = "this process may run on (" + format_cpu_list(allowed) + ")";
  } else {
    const std::string list = format_cpu_list(pinning.cpus);
    if (pinning.cpus.empty()) throw ConfigError("timely: --pin=LIST: the list names no CPU");
    std::set<unsigned> seen;
    for (const unsigned cpu : pinning.cpus) {
      if (!std::binary_search(allowed.begin(), allowed.end(), cpu))
        throw ConfigError("timely: --pin=" + list + ": CPU " + std::to_string(cpu) +
                          " is not one this process may run on (" + format_cpu_list(allowed) + ")");
      if (!seen.insert(cpu).second)
        throw ConfigError("timely: --pin=" + list + ": CPU " + std::to_string(cpu) + " is given twice");
    }
    out.order = pinning.cpus;
    placed_on = "in the list " + list;
  }
  const std::size_t n = out.order.size();
  if (workers > n)
    throw ConfigError("timely: --pin: " + std::to_string(workers) + " workers in this process, but only " +
                      std::to_string(n) + (n == 1 ? " CPU " : " CPUs ") + placed_on +
                      ": two workers would take turns on one CPU (run fewer workers, or leave out --pin)");
  const std::size_t host_workers = local_processes * workers;
  out.wraps = host_workers > n;
  for (std::size_t w = 0; w < workers; ++w)
    out.workers.push_back(out.order[(local_process * workers + w) % n]);
  if (host_workers < n) {
    out.network.assign(out.order.begin() + static_cast<std::ptrdiff_t>(host_workers), out.order.end());
  } else {
    out.network = out.workers;
    out.network_shares_workers = true;
  }
  std::sort(out.network.begin(), out.network.end());
  out.network.erase(std::unique(out.network.begin(), out.network.end()), out.network.end());
  return out;
}

std::vector<std::string> Placement::describe(std::size_t first_worker, bool network_threads) const {
  std::vector<std::string> lines;
  if (workers.empty()) return lines;
  std::map<unsigned, Cpu> by_index;
  for (const Cpu& cpu : topology.cpus) by_index[cpu.index] = cpu;
  const auto allowed = indices(topology);
  lines.push_back("pin: " + counted(allowed.size(), "CPU") + " allowed (" + format_cpu_list(allowed) +
                  ") on " + counted(count_cores(topology), "core") + " (" + topology.source +
                  "), placed in the order " + format_cpu_list(order) + "; this process is " +
                  std::to_string(local_process + 1) + " of " + std::to_string(local_processes) +
                  " on this host");
  for (std::size_t w = 0; w < workers.size(); ++w) {
    const Cpu& cpu = by_index[workers[w]];
    lines.push_back("pin: worker " + std::to_string(first_worker + w) + " on CPU " +
                    std::to_string(cpu.index) + " (core " + std::to_string(cpu.core) + ", package " +
                    std::to_string(cpu.package) + ")");
  }
  if (network_threads)
    lines.push_back(std::string("pin: network threads on ") + (network.size() == 1 ? "CPU " : "CPUs ") +
                    format_cpu_list(network) +
                    (network_shares_workers ? " (shared with this process's workers: no CPU left over)"
                                            : " (left over by the workers of this host)"));
  if (wraps)
    lines.push_back("pin: this host's " + std::to_string(local_processes) + " processes have " +
                    std::to_string(local_processes * workers.size()) + " workers for " +
                    counted(order.size(), "CPU") +
                    ": positions wrap around (processes that share these CPUs put workers on the same ones)");
  return lines;
}

void pin_current_thread(std::span<const unsigned> cpus, std::string_view what) {
  check_pinnable(cpus, what);
  auto mask = mask_of(cpus);
  if (const int error = pthread_setaffinity_np(pthread_self(), mask.size(), mask.get()); error != 0)
    refused(what, cpus, error);
}

void pin_thread(std::thread& thread, std::span<const unsigned> cpus, std::string_view what) {
  check_pinnable(cpus, what);
  auto mask = mask_of(cpus);
  if (const int error = pthread_setaffinity_np(thread.native_handle(), mask.size(), mask.get()); error != 0)
    refused(what, cpus, error);
}

}  // namespace timely::communication
