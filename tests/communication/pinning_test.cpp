// CPU pinning (communication/pinning.hpp): CPU lists; the placement policy against injected
// topologies (hyperthread siblings numbered apart or adjacent, two packages, a restricted
// set, several processes on one host, wrap-around, explicit lists), and randomized topologies
// checked against the policy's invariants; then real pinning through communication::initialize on
// this machine, read back with sched_getaffinity on each worker thread, within a narrowed
// allowed set, and for two processes on one host with their network threads.
// This binary links timely::communication only.
#include <timely/communication/pinning.hpp>

#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/communication/initialize.hpp>

#include "support/catch.hpp"
#include "support/loopback.hpp"

using namespace timely::communication;
using timely::ConfigError;
using Mode = Pinning::Mode;

namespace {

/// `packages` packages of `cores` cores of `threads` hardware threads. Siblings `apart`: Linux's
/// numbering on most Intel machines (CPU = thread * all cores + core); otherwise adjacent, as
/// on many AMD machines (CPU = core * threads + thread). In hwloc's order (package, core, thread).
Topology machine(unsigned packages, unsigned cores, unsigned threads, bool apart) {
  Topology t{{}, "test"};
  const unsigned all_cores = packages * cores;
  for (unsigned p = 0; p < packages; ++p)
    for (unsigned c = 0; c < cores; ++c)
      for (unsigned h = 0; h < threads; ++h) {
        const unsigned core = p * cores + c;
        t.cpus.push_back(Cpu{apart ? h * all_cores + core : core * threads + h, core, p});
      }
  return t;
}

/// `t` with only the CPUs in `keep` (as taskset or a cgroup would leave them).
Topology only(const Topology& t, const std::set<unsigned>& keep) {
  Topology out{{}, t.source};
  for (const Cpu& cpu : t.cpus)
    if (keep.contains(cpu.index)) out.cpus.push_back(cpu);
  return out;
}

Pinning cores() { return Pinning{Mode::Cores, {}, std::nullopt}; }
Pinning list(std::vector<unsigned> cpus) { return Pinning{Mode::List, std::move(cpus), std::nullopt}; }

using Cpus = std::vector<unsigned>;

/// Restores the calling thread's allowed CPUs when it goes (tests narrow them, as taskset would).
struct AffinityGuard {
  Cpus saved = current_thread_cpus();
  ~AffinityGuard() { pin_current_thread(saved, "the test thread"); }
};

}  // namespace

TEST_CASE("CPU lists parse in the order written and name what is wrong", "[communication][pinning]") {
  CHECK(parse_cpu_list("0-3,8,10-11", "--pin") == Cpus{0, 1, 2, 3, 8, 10, 11});
  CHECK(parse_cpu_list("5,1,3", "--pin") == Cpus{5, 1, 3});
  CHECK(parse_cpu_list("7", "--pin") == Cpus{7});
  CHECK(parse_cpu_list("65535", "--pin") == Cpus{65535});
  CHECK(parse_cpu_list("2-2", "--pin") == Cpus{2});
  const auto bad = [](const char* text, const char* named) {
    INFO(text);
    CHECK_THROWS_AS(parse_cpu_list(text, "--pin"), ConfigError);
    CHECK_THROWS_WITH(parse_cpu_list(text, "--pin"),
                      Catch::Contains(std::string("'") + text + "' (--pin)") && Catch::Contains(named));
  };
  bad("", "names no CPU");
  bad("1,,2", "an empty item");
  bad("1,", "an empty item");
  bad("x", "'x' is not a CPU number");
  bad("0-3,a-b", "'a-b' is not a CPU number");
  bad("3-1", "'3-1' ends below its start");
  bad("1-2-3", "'1-2-3'");
  bad("0-", "'0-'");
  bad(" 1", "' 1'");
  bad("-1", "'-1'");
  bad("65536", "CPU 65536 is above 65535");
  bad("123456789", "'123456789'");
  bad("1,0-2", "CPU 1 is given twice");
  CHECK(format_cpu_list(Cpus{0, 1, 2, 5, 4}) == "0-2,5,4");
  CHECK(format_cpu_list(Cpus{7}) == "7");
  CHECK(format_cpu_list(Cpus{}) == "none");
  CHECK(format_cpu_list(Cpus{3, 4, 8, 9, 10, 1}) == "3-4,8-10,1");
}

TEST_CASE("pinning puts workers on distinct physical cores first, then on hyperthreads",
          "[communication][pinning]") {
  // 2 packages of 4 cores of 2 threads; siblings numbered apart (CPU c and c + 8 share a core).
  const auto apart = machine(2, 4, 2, true);
  auto p = place_threads(cores(), apart, 4, 0, 1);
  CHECK(p.order == Cpus{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(p.workers == Cpus{0, 1, 2, 3});  // the four cores of package 0, not two cores' siblings
  CHECK(p.network == Cpus{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(!p.network_shares_workers);
  CHECK(!p.wraps);
  // Siblings adjacent (CPU 2c and 2c + 1 share core c): every other CPU first.
  const auto adjacent = machine(2, 4, 2, false);
  p = place_threads(cores(), adjacent, 3, 0, 1);
  CHECK(p.order == Cpus{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15});
  CHECK(p.workers == Cpus{0, 2, 4});
  // More workers than cores: the hyperthreads, in core order, once every core has one.
  p = place_threads(cores(), adjacent, 10, 0, 1);
  CHECK(p.workers == Cpus{0, 2, 4, 6, 8, 10, 12, 14, 1, 3});
  CHECK(p.network == Cpus{5, 7, 9, 11, 13, 15});
  // Every CPU a worker's: the network threads share the workers' CPUs.
  p = place_threads(cores(), adjacent, 16, 0, 1);
  CHECK(p.network_shares_workers);
  CHECK(p.network.size() == 16);
}

TEST_CASE("pinning stays inside the allowed CPUs", "[communication][pinning]") {
  // taskset -c 2,3,10,11 on the machine with siblings apart: cores 2 and 3, each with its sibling.
  const auto narrowed = only(machine(2, 4, 2, true), {2, 3, 10, 11});
  auto p = place_threads(cores(), narrowed, 2, 0, 1);
  CHECK(p.order == Cpus{2, 3, 10, 11});
  CHECK(p.workers == Cpus{2, 3});
  CHECK(p.network == Cpus{10, 11});
  // An odd set: the second thread of core 1 (CPU 9) and the whole of core 4 (CPUs 4 and 12, in
  // package 1): cores first, in the topology's order.
  p = place_threads(cores(), only(machine(2, 4, 2, true), {4, 9, 12}), 2, 0, 1);
  CHECK(p.order == Cpus{9, 4, 12});
  CHECK(p.workers == Cpus{9, 4});
  // More workers than allowed CPUs: an error naming both counts and the set.
  CHECK_THROWS_WITH(
      place_threads(cores(), narrowed, 5, 0, 1),
      Catch::Contains("5 workers in this process, but only 4 CPUs") && Catch::Contains("(2-3,10-11)"));
  CHECK_THROWS_WITH(place_threads(cores(), Topology{{}, "test"}, 1, 0, 1), Catch::Contains("no CPU at all"));
  CHECK_THROWS_WITH(place_threads(cores(), Topology{{Cpu{3, 0, 0}, Cpu{3, 1, 0}}, "test"}, 1, 0, 1),
                    Catch::Contains("the topology (test) lists CPU 3 twice"));
}

TEST_CASE("processes on one host take consecutive shares, and wrap around when they outnumber the CPUs",
          "[communication][pinning]") {
  const auto adjacent = machine(1, 8, 2, false);  // 8 cores, siblings adjacent: order 0,2,...,14,1,3,...
  // Two processes of 3 workers: positions 0-2 and 3-5; the network threads get positions 6-15.
  const auto p0 = place_threads(cores(), adjacent, 3, 0, 2);
  const auto p1 = place_threads(cores(), adjacent, 3, 1, 2);
  CHECK(p0.workers == Cpus{0, 2, 4});
  CHECK(p1.workers == Cpus{6, 8, 10});
  CHECK(p0.network == Cpus{1, 3, 5, 7, 9, 11, 12, 13, 14, 15});
  CHECK(p1.network == p0.network);
  CHECK(p1.local_process == 1);
  CHECK(p1.local_processes == 2);
  // Three processes of 6 workers on 16 CPUs: the third starts at position 12 and wraps to 0, 1.
  const auto p2 = place_threads(cores(), adjacent, 6, 2, 3);
  CHECK(p2.wraps);
  CHECK(p2.workers == Cpus{9, 11, 13, 15, 0, 2});
  CHECK(p2.network_shares_workers);
  CHECK(p2.network == Cpus{0, 2, 9, 11, 13, 15});
  // Two processes that a launcher bound to one core each (their allowed set is that core): both
  // use their own core, whatever their local index.
  const auto bound0 = only(machine(1, 2, 1, false), {0});
  const auto bound1 = only(machine(1, 2, 1, false), {1});
  CHECK(place_threads(cores(), bound0, 1, 0, 2).workers == Cpus{0});
  CHECK(place_threads(cores(), bound1, 1, 1, 2).workers == Cpus{1});
  CHECK_THROWS_AS(place_threads(cores(), adjacent, 1, 2, 2), ConfigError);
}

TEST_CASE("a pin list (--pin=LIST) places in the list's order and checks every CPU",
          "[communication][pinning]") {
  const auto t = machine(1, 4, 2, true);  // CPUs 0-7, siblings c and c + 4
  auto p = place_threads(list({5, 1, 6}), t, 2, 0, 1);
  CHECK(p.order == Cpus{5, 1, 6});
  CHECK(p.workers == Cpus{5, 1});  // the order given, not the cores' order
  CHECK(p.network == Cpus{6});
  p = place_threads(list({5, 1}), t, 1, 1, 2);
  CHECK(p.workers == Cpus{1});
  CHECK(p.network_shares_workers);
  CHECK_THROWS_WITH(place_threads(list({1, 9}), t, 1, 0, 1),
                    Catch::Contains("--pin=1,9: CPU 9 is not one this process may run on (0-7)"));
  CHECK_THROWS_WITH(place_threads(list({1, 2, 1}), t, 1, 0, 1), Catch::Contains("CPU 1 is given twice"));
  CHECK_THROWS_WITH(place_threads(list({1, 2}), t, 3, 0, 1),
                    Catch::Contains("3 workers in this process, but only 2 CPUs in the list 1-2"));
  CHECK_THROWS_WITH(place_threads(list({}), t, 1, 0, 1), Catch::Contains("names no CPU"));
  // Off: nothing placed.
  p = place_threads(Pinning{}, t, 4, 0, 1);
  CHECK(p.workers.empty());
  CHECK(p.network.empty());
}

TEST_CASE("the placement's report names every worker's CPU and core, the network threads and a wrap",
          "[communication][pinning]") {
  const auto p = place_threads(cores(), machine(1, 2, 2, false), 2, 1, 3);
  const auto lines = p.describe(4, true);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] ==
        "pin: 4 CPUs allowed (0-3) on 2 cores (test), placed in the order 0,2,1,3; this process is 2 "
        "of 3 on this host");
  CHECK(lines[1] == "pin: worker 4 on CPU 1 (core 0, package 0)");
  CHECK(lines[2] == "pin: worker 5 on CPU 3 (core 1, package 0)");
  CHECK(lines[3] ==
        "pin: network threads on CPUs 1,3 (shared with this process's workers: no CPU left over)");
  CHECK(lines[4] ==
        "pin: this host's 3 processes have 6 workers for 4 CPUs: positions wrap around (processes that "
        "share these CPUs put workers on the same ones)");
  // No network threads (one process): no line for them.
  const auto alone = place_threads(cores(), machine(1, 2, 2, false), 1, 0, 1).describe(0, false);
  REQUIRE(alone.size() == 2);
  CHECK(alone[1] == "pin: worker 0 on CPU 0 (core 0, package 0)");
}

TEST_CASE("randomized topologies keep the policy's promises", "[communication][pinning]") {
  const unsigned seed = 20240613;
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    const auto pick = [&](unsigned lo, unsigned hi) {
      return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
    };
    const auto whole = machine(pick(1, 3), pick(1, 6), pick(1, 4), pick(0, 1) == 1);
    std::set<unsigned> keep;
    for (const Cpu& cpu : whole.cpus)
      if (pick(0, 3) != 0) keep.insert(cpu.index);
    if (keep.empty()) keep.insert(whole.cpus.front().index);
    const auto t = only(whole, keep);
    const std::size_t n = t.cpus.size();
    std::set<unsigned> cores_of;
    std::map<unsigned, unsigned> core;
    for (const Cpu& cpu : t.cpus) {
      core[cpu.index] = cpu.core;
      cores_of.insert(cpu.core);
    }
    const std::size_t w = pick(1, static_cast<unsigned>(n));
    const std::size_t locals = pick(1, 4);
    std::vector<unsigned> host;  // every worker's CPU on this host, process by process
    for (std::size_t l = 0; l < locals; ++l) {
      const auto p = place_threads(cores(), t, w, l, locals);
      REQUIRE(p.workers.size() == w);
      CHECK(std::set<unsigned>(p.workers.begin(), p.workers.end()).size() == w);  // distinct in a process
      for (const unsigned cpu : p.workers) CHECK(keep.contains(cpu));
      for (const unsigned cpu : p.network) CHECK(keep.contains(cpu));
      CHECK(p.wraps == (locals * w > n));
      host.insert(host.end(), p.workers.begin(), p.workers.end());
      if (locals * w < n) {
        for (const unsigned cpu : p.network)  // the network threads avoid every worker of the host
          CHECK(std::find(host.begin(), host.end(), cpu) == host.end());
        CHECK(p.network.size() == n - locals * w);
      } else {
        CHECK(p.network == [&] {
          auto v = p.workers;
          std::sort(v.begin(), v.end());
          return v;
        }());
      }
    }
    // Without wrap-around no two workers of the host share a CPU, and the first workers (as many
    // as there are cores) have a core each.
    if (locals * w <= n) CHECK(std::set<unsigned>(host.begin(), host.end()).size() == host.size());
    std::set<unsigned> first_cores;
    for (std::size_t i = 0; i < std::min(host.size(), cores_of.size()); ++i)
      first_cores.insert(core[host[i]]);
    CHECK(first_cores.size() == std::min(host.size(), cores_of.size()));
  }
}

TEST_CASE("the topology holds the allowed CPUs, from hwloc or each its own core",
          "[communication][pinning]") {
  const auto allowed = current_thread_cpus();
  REQUIRE(!allowed.empty());
  const auto os = os_topology();
  CHECK(os.source == "os");
  REQUIRE(os.cpus.size() == allowed.size());
  for (std::size_t i = 0; i < allowed.size(); ++i) CHECK(os.cpus[i] == Cpu{allowed[i], allowed[i], 0});
  const auto detected = detect_topology();
  CHECK(detected.source == "hwloc");  // hwloc is a dependency, and loads on Linux with /sys
  Cpus seen;
  for (const Cpu& cpu : detected.cpus) seen.push_back(cpu.index);
  std::sort(seen.begin(), seen.end());
  CHECK(seen == allowed);
  // Narrowed to one CPU (taskset -c X), both see only that one.
  AffinityGuard guard;
  pin_current_thread(Cpus{allowed.back()}, "the test thread");
  CHECK(current_thread_cpus() == Cpus{allowed.back()});
  const auto one = detect_topology();
  REQUIRE(one.cpus.size() == 1);
  CHECK(one.cpus[0].index == allowed.back());
  CHECK(os_topology().cpus.size() == 1);
}

TEST_CASE("hwloc's cores are the topology's, and a topology that lacks an allowed CPU falls back to the OS",
          "[communication][pinning]") {
  // hwloc reads HWLOC_SYNTHETIC at each load: a made-up machine of two hardware threads per
  // core, numbered so that CPUs 2c and 2c + 1 are core c, covering every allowed CPU.
  struct Synthetic {
    explicit Synthetic(const std::string& description) {
      ::setenv("HWLOC_SYNTHETIC", description.c_str(), 1);
    }
    ~Synthetic() { ::unsetenv("HWLOC_SYNTHETIC"); }
  };
  const auto allowed = current_thread_cpus();
  {
    const Synthetic pairs("pack:1 core:" + std::to_string(allowed.back() / 2 + 1) + " pu:2");
    const auto t = detect_topology();
    CHECK(t.source == "hwloc");
    REQUIRE(t.cpus.size() == allowed.size());
    for (const Cpu& cpu : t.cpus) CHECK(cpu.core == cpu.index / 2);
  }
  // One hardware thread, CPU 0: a process allowed another CPU is not covered.
  const auto other = std::find_if(allowed.begin(), allowed.end(), [](unsigned cpu) { return cpu != 0; });
  if (other == allowed.end()) {
    WARN("this machine allows CPU 0 alone: the fallback is not exercised");
    return;
  }
  AffinityGuard guard;
  pin_current_thread(Cpus{*other}, "the test thread");
  const Synthetic single("pack:1 core:1 pu:1");
  const auto t = detect_topology();
  CHECK(t.source == "os");
  CHECK(t.cpus == std::vector<Cpu>{Cpu{*other, *other, 0}});
  // Pinning goes on over the fallback.
  Config config;
  config.pin = cores();
  CHECK(initialize(config, [](Allocator&) { return current_thread_cpus(); }).front() == Cpus{*other});
}

TEST_CASE("initialize pins each worker to its CPU, read back on the worker thread",
          "[communication][pinning]") {
  const auto allowed = current_thread_cpus();
  const std::size_t workers = std::min<std::size_t>(2, allowed.size());
  Config config;
  config.workers = workers;
  config.pin = cores();
  std::vector<std::string> reports;
  config.cluster.report = [&](const std::string& line) { reports.push_back(line); };
  const auto seen = initialize(config, [](Allocator&) { return current_thread_cpus(); });
  const auto expected = place_threads(cores(), detect_topology(), workers, 0, 1).workers;
  REQUIRE(seen.size() == workers);
  std::set<unsigned> distinct;
  for (std::size_t i = 0; i < workers; ++i) {
    CHECK(seen[i] == Cpus{expected[i]});  // one CPU, the policy's
    distinct.insert(seen[i].front());
  }
  CHECK(distinct.size() == workers);
  CHECK(std::any_of(reports.begin(), reports.end(), [&](const std::string& line) {
    return line.starts_with("pin: worker 0 on CPU " + std::to_string(expected[0]) + " ");
  }));
  // The thread that called initialize is left as it was.
  CHECK(current_thread_cpus() == allowed);
  // Unpinned, the workers may run anywhere allowed.
  config.pin = Pinning{};
  for (const auto& cpus : initialize(config, [](Allocator&) { return current_thread_cpus(); }))
    CHECK(cpus == allowed);
}

TEST_CASE("initialize pins within a narrowed set, to a list, and refuses what cannot be pinned",
          "[communication][pinning]") {
  const auto allowed = current_thread_cpus();
  AffinityGuard guard;
  pin_current_thread(Cpus{allowed.back()}, "the test thread");  // as `taskset -c X` would
  Config config;
  config.pin = cores();
  CHECK(initialize(config, [](Allocator&) { return current_thread_cpus(); }).front() == Cpus{allowed.back()});
  config.workers = 2;
  CHECK_THROWS_WITH(initialize(config, [](Allocator&) {}),
                    Catch::Contains("2 workers in this process, but only 1 CPU this process may run on (" +
                                    std::to_string(allowed.back()) + ")"));
  pin_current_thread(allowed, "the test thread");
  config.workers = 1;
  config.pin = list({allowed.back()});
  CHECK(initialize(config, [](Allocator&) { return current_thread_cpus(); }).front() == Cpus{allowed.back()});
  // A CPU outside the allowed set (4095 is not among this machine's), named.
  const unsigned outside = 4095;
  REQUIRE(!std::binary_search(allowed.begin(), allowed.end(), outside));
  config.pin = list({outside});
  CHECK_THROWS_AS(initialize(config, [](Allocator&) {}), ConfigError);
  CHECK_THROWS_WITH(initialize(config, [](Allocator&) {}),
                    Catch::Contains("CPU 4095 is not one this process may run on"));
  // An injected topology the system will not honour: the worker's pinning fails, named, and
  // initialize rethrows it.
  config.pin = Pinning{Mode::Cores, {}, Topology{{Cpu{outside, 0, 0}}, "test"}};
  CHECK_THROWS_WITH(initialize(config, [](Allocator&) {}),
                    Catch::Contains("cannot pin worker 0 to CPU 4095"));
}

TEST_CASE("two processes on one host take their shares, and their network threads are confined",
          "[communication][pinning]") {
  const auto allowed = current_thread_cpus();
  const auto addresses = support::free_loopback_addresses(2);
  // Both processes over loopback: one host. Each places one worker with the real topology.
  std::vector<Cpus> worker_cpus(2);
  std::vector<std::vector<std::string>> reports(2);
  std::vector<std::exception_ptr> errors(2);
  const auto run = [&](std::size_t process, const Pinning& pin, auto&& inside) {
    Config config;
    config.workers = 1;
    config.pin = pin;
    config.cluster.processes = 2;
    config.cluster.process = process;
    config.cluster.addresses = addresses;
    config.cluster.report = [&, process](const std::string& line) { reports[process].push_back(line); };
    try {
      initialize(config, [&](Allocator& a) {
        worker_cpus[process] = current_thread_cpus();
        inside(a);
      });
    } catch (...) {
      errors[process] = std::current_exception();
    }
  };
  {
    std::thread one([&] { run(1, cores(), [](Allocator&) {}); });
    run(0, cores(), [](Allocator&) {});
    one.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  const auto order = place_threads(cores(), detect_topology(), 1, 0, 1).order;
  CHECK(worker_cpus[0] == Cpus{order[0]});
  CHECK(worker_cpus[1] == Cpus{order[1 % order.size()]});  // local index 1: the next position
  if (allowed.size() >= 2) CHECK(worker_cpus[0] != worker_cpus[1]);
  CHECK(std::any_of(reports[1].begin(), reports[1].end(), [](const std::string& line) {
    return line.find("this process is 2 of 2 on this host") != std::string::npos;
  }));

  reports = {{}, {}};
  // Every thread of both processes on one listed CPU: 2 workers and, per process, one send and
  // one receive thread. Count the threads of this program confined to that CPU while the
  // workers are inside their closures.
  const unsigned cpu = allowed.back();
  std::atomic<int> arrived{0};
  std::atomic<int> counted{-1};
  const auto count_confined = [&] {
    int n = 0;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
      std::ifstream status(task.path() / "status");
      for (std::string line; std::getline(status, line);)
        if (line == "Cpus_allowed_list:\t" + std::to_string(cpu)) ++n;
    }
    return n;
  };
  const auto meet = [&](Allocator& a) {
    ++arrived;
    while (arrived.load() < 2) std::this_thread::yield();
    if (a.index() == 0) counted = count_confined();
    while (counted.load() < 0) std::this_thread::yield();
  };
  {
    std::thread one([&] { run(1, list({cpu}), meet); });
    run(0, list({cpu}), meet);
    one.join();
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  CHECK(worker_cpus[0] == Cpus{cpu});
  CHECK(worker_cpus[1] == Cpus{cpu});
  if (allowed.size() > 1) CHECK(counted.load() == 6);  // with one CPU, every thread shows it
  CHECK(std::any_of(reports[0].begin(), reports[0].end(), [&](const std::string& line) {
    return line == "pin: network threads on CPU " + std::to_string(cpu) +
                       " (shared with this process's workers: no CPU left over)";
  }));
}
