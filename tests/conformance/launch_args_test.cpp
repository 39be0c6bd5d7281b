// The worker arguments under launchers (Config::from_args with an injected environment): -n and
// -p from Slurm, MPI and Kubernetes when not given, given ones winning but never silently
// disagreeing, the rendezvous from --rendezvous, TIMELY_RENDEZVOUS or the launcher, and nothing
// changed when no launcher variable is set.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/communication/launcher.hpp>
#include <timely/execute.hpp>

#include "support/catch.hpp"

using timely::Config;
using timely::ConfigError;
using timely::communication::Environment;
using timely::communication::Launcher;

namespace {

Config parse(std::initializer_list<const char*> args, const Environment& env) {
  std::vector<const char*> argv{"program"};
  argv.insert(argv.end(), args.begin(), args.end());
  return Config::from_args(static_cast<int>(argv.size()), argv.data(), env);
}

/// What srun -n 3 gives task 1 on host vm.
Environment srun(const char* task = "1") {
  return {{"SLURM_PROCID", task},
          {"SLURM_STEP_NUM_TASKS", "3"},
          {"SLURM_NTASKS", "3"},
          {"SLURM_STEP_NODELIST", "vm"},
          {"SLURM_STEP_TASKS_PER_NODE", "3"},
          {"SLURM_JOB_ID", "12"},
          {"SLURM_STEP_ID", "0"},
          {"PATH", "/usr/bin"}};
}

}  // namespace

TEST_CASE("without launcher variables the worker arguments mean what they did", "[conformance][launch]") {
  const Environment plain{{"PATH", "/usr/bin"}, {"HOME", "/root"}};
  const auto c = parse({"-n", "2", "-p", "1", "-w", "3", "input.txt"}, plain);
  CHECK(c.processes == 2);
  CHECK(c.process_index == 1);
  CHECK(c.workers == 3);
  CHECK(c.addresses.empty());  // localhost:2101, 2102, ... as before
  CHECK(!c.network.rendezvous);
  CHECK(c.launch.launcher == Launcher::None);
  CHECK(c.positional == std::vector<std::string>{"input.txt"});
  const auto single = parse({}, plain);
  CHECK(single.processes == 1);
  CHECK(!single.network.rendezvous);
}

TEST_CASE("an option without its value, or given twice, is named in the error", "[conformance][launch]") {
  const Environment plain{{"PATH", "/usr/bin"}};
  CHECK_THROWS_WITH(parse({"-w"}, plain), Catch::Contains("--workers needs a value (UINT:N) after it"));
  CHECK_THROWS_WITH(parse({"-n", "2", "-p"}, plain), Catch::Contains("--process needs a value"));
  CHECK_THROWS_WITH(parse({"-w", "2", "--workers", "3"}, plain),
                    Catch::Contains("--workers is given 2 times; give it once"));
  CHECK_THROWS_WITH(parse({"--bogus"}, plain),
                    Catch::Contains("bad worker arguments: unknown option --bogus ("));
  CHECK_THROWS_WITH(parse({"--bogus", "-w", "2", "--other=3"}, plain),
                    Catch::Contains("unknown options --bogus --other=3 ("));
}

TEST_CASE("Slurm gives -n, -p and the rendezvous", "[conformance][launch]") {
  const auto c = parse({"-w", "2"}, srun());
  CHECK(c.processes == 3);
  CHECK(c.process_index == 1);
  CHECK(c.launch.launcher == Launcher::Slurm);
  REQUIRE(c.network.rendezvous);
  CHECK(c.network.rendezvous->host == "vm");
  CHECK(c.network.rendezvous->port == timely::communication::derived_port("slurm 12.0"));
  // Given values that agree are fine.
  CHECK(parse({"-n", "3", "-p", "1"}, srun()).processes == 3);
  // One task: one process, no network.
  auto one = srun("0");
  one["SLURM_STEP_NUM_TASKS"] = "1";
  one["SLURM_STEP_TASKS_PER_NODE"] = "1";
  const auto alone = parse({}, one);
  CHECK(alone.processes == 1);
  // --launcher none: the variables are not read.
  const auto none = parse({"--launcher", "none"}, srun());
  CHECK(none.processes == 1);
  CHECK(none.launch.launcher == Launcher::None);
  CHECK(!none.network.rendezvous);
}

TEST_CASE("given -n and -p that disagree with the launcher are errors naming both", "[conformance][launch]") {
  CHECK_THROWS_AS(parse({"-n", "2"}, srun()), ConfigError);
  CHECK_THROWS_WITH(parse({"-n", "2"}, srun()),
                    Catch::Contains("-n 2 conflicts with SLURM_STEP_NUM_TASKS=3 from Slurm"));
  CHECK_THROWS_WITH(parse({"-p", "0"}, srun()),
                    Catch::Contains("-p 0 conflicts with SLURM_PROCID=1 from Slurm"));
  const Environment ompi{{"OMPI_COMM_WORLD_RANK", "0"},
                         {"OMPI_COMM_WORLD_SIZE", "2"},
                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                         {"OMPI_MCA_ess_base_jobid", "99"}};
  CHECK_THROWS_WITH(parse({"-n", "3", "-p", "0"}, ompi),
                    Catch::Contains("-n 3 conflicts with OMPI_COMM_WORLD_SIZE=2 from Open MPI"));
  // A malformed variable is named with its value, even with -n and -p given.
  auto bad = srun();
  bad["SLURM_STEP_NODELIST"] = "vm[1-";
  CHECK_THROWS_WITH(parse({"-n", "3", "-p", "1"}, bad), Catch::Contains("SLURM_STEP_NODELIST='vm[1-'"));
}

TEST_CASE("the launcher can be chosen, and must then be there", "[conformance][launch]") {
  CHECK_THROWS_WITH(parse({"--launcher", "mpi"}, srun()), Catch::Contains("mpirun"));
  CHECK_THROWS_WITH(parse({"--launcher", "slurm"}, {}), Catch::Contains("srun"));
  CHECK_THROWS_WITH(parse({"--launcher", "pbs"}, {}),
                    Catch::Contains("--launcher") && Catch::Contains("pbs"));
  const Environment pod{{"HOSTNAME", "wordcount-1"},
                        {"TIMELY_SERVICE", "wordcount"},
                        {"TIMELY_PROCESSES", "2"}};  // no API host
  CHECK(parse({}, pod).processes == 1);              // auto: not in a cluster
  const auto k8s = parse({"--launcher", "k8s"}, pod);
  CHECK(k8s.process_index == 1);
  CHECK(k8s.network.rendezvous->to_string() == "wordcount-0.wordcount:2100");
}

TEST_CASE("the rendezvous from --rendezvous or TIMELY_RENDEZVOUS", "[conformance][launch]") {
  const auto given =
      parse({"-n", "2", "-p", "1", "--rendezvous", "10.0.0.5:7000", "--listen-port", "7001"}, {});
  CHECK(given.network.rendezvous->to_string() == "10.0.0.5:7000");
  CHECK(given.network.listen_port == 7001);
  const auto from_env = parse({"-n", "2", "-p", "1"}, {{"TIMELY_RENDEZVOUS", "[::1]:7000"}});
  CHECK(from_env.network.rendezvous->host == "::1");
  // --rendezvous wins over the variable, and both over the launcher's.
  auto env = srun();
  env["TIMELY_RENDEZVOUS"] = "head:9000";
  CHECK(parse({}, env).network.rendezvous->to_string() == "head:9000");
  CHECK(parse({"--rendezvous", "h:1"}, env).network.rendezvous->to_string() == "h:1");
  // MPI across nodes says not where rank 0 is: TIMELY_RENDEZVOUS must.
  const Environment spread{{"OMPI_COMM_WORLD_RANK", "1"},
                           {"OMPI_COMM_WORLD_SIZE", "2"},
                           {"OMPI_COMM_WORLD_LOCAL_SIZE", "1"},
                           {"OMPI_MCA_ess_base_jobid", "99"}};
  CHECK_THROWS_WITH(parse({}, spread),
                    Catch::Contains("Open MPI started 2 processes, but not where process 0 is") &&
                        Catch::Contains("TIMELY_RENDEZVOUS"));
  auto told = spread;
  told["TIMELY_RENDEZVOUS"] = "node1:5000";
  CHECK(parse({}, told).network.rendezvous->to_string() == "node1:5000");
  // Malformed addresses name their source.
  CHECK_THROWS_WITH(parse({"-n", "2", "--rendezvous", "nohost"}, {}), Catch::Contains("--rendezvous"));
  CHECK_THROWS_WITH(parse({"-n", "2"}, {{"TIMELY_RENDEZVOUS", "h:99999"}}),
                    Catch::Contains("TIMELY_RENDEZVOUS") && Catch::Contains("h:99999"));
  // --listen-port needs a rendezvous, and is a port.
  CHECK_THROWS_WITH(parse({"-n", "2", "--listen-port", "7001"}, {}), Catch::Contains("--listen-port 7001"));
  CHECK_THROWS_AS(parse({"-n", "2", "--rendezvous", "h:1", "--listen-port", "70000"}, {}), ConfigError);
}

TEST_CASE("a hostfile and a rendezvous together are an error, and a hostfile under a launcher is used",
          "[conformance][launch]") {
  const auto path = std::filesystem::temp_directory_path() / "timely-launch-args-hosts.txt";
  {
    std::ofstream out(path);
    out << "127.0.0.1:4001\n127.0.0.1:4002\n127.0.0.1:4003\n";
  }
  const auto file = path.string();
  CHECK_THROWS_WITH(
      parse({"-n", "3", "-h", file.c_str(), "--rendezvous", "h:1"}, {}),
      Catch::Contains("and the rendezvous h:1 (--rendezvous) both say where the processes are"));
  CHECK_THROWS_WITH(parse({"-n", "3", "-h", file.c_str()}, {{"TIMELY_RENDEZVOUS", "h:1"}}),
                    Catch::Contains("(TIMELY_RENDEZVOUS)"));
  const auto slurm = parse({"-h", file.c_str()}, srun());
  CHECK(slurm.processes == 3);
  CHECK(slurm.addresses.size() == 3);
  CHECK(!slurm.network.rendezvous);
  std::filesystem::remove(path);
}
