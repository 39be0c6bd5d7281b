// Launcher detection (communication/launcher.hpp) from injected environments: Slurm's host lists
// and tasks per node, Open MPI, MPICH/PMI and Kubernetes StatefulSets, with malformed values and
// inconsistent launchers rejected by name. The environments are the variables each launcher sets
// (Slurm 22.05's srun, Open MPI 4.1's mpirun, a StatefulSet pod).
#include <timely/communication/launcher.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <timely/communication/error.hpp>

#include "support/catch.hpp"

using namespace timely::communication;
using Strings = std::vector<std::string>;

TEST_CASE("Slurm host lists expand with their zero padding", "[communication][launcher]") {
  CHECK(expand_slurm_nodelist("node01", "L") == Strings{"node01"});
  CHECK(expand_slurm_nodelist("a,b,c", "L") == Strings{"a", "b", "c"});
  CHECK(expand_slurm_nodelist("node[01-04,07],gpu-a[1-2]", "L") ==
        Strings{"node01", "node02", "node03", "node04", "node07", "gpu-a1", "gpu-a2"});
  CHECK(expand_slurm_nodelist("n[08-11]", "L") == Strings{"n08", "n09", "n10", "n11"});
  CHECK(expand_slurm_nodelist("n[8-11]", "L") == Strings{"n8", "n9", "n10", "n11"});
  CHECK(expand_slurm_nodelist("n[098-101]", "L") == Strings{"n098", "n099", "n100", "n101"});
  CHECK(expand_slurm_nodelist("n[0-2]", "L") == Strings{"n0", "n1", "n2"});  // "0" is one digit, no padding
  CHECK(expand_slurm_nodelist("n[00-02]", "L") == Strings{"n00", "n01", "n02"});
  CHECK(expand_slurm_nodelist("n[5]", "L") == Strings{"n5"});
  CHECK(expand_slurm_nodelist("n[3-3]", "L") == Strings{"n3"});
  CHECK(expand_slurm_nodelist("rack[1-2]-n[1-2]", "L") ==
        Strings{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"});
  CHECK(expand_slurm_nodelist("n[1-2].cluster.org", "L") == Strings{"n1.cluster.org", "n2.cluster.org"});
  CHECK(expand_slurm_nodelist("x[1,3,5-6]y,z", "L") == Strings{"x1y", "x3y", "x5y", "x6y", "z"});
  CHECK(expand_slurm_nodelist("10.0.0.[1-2]", "L") == Strings{"10.0.0.1", "10.0.0.2"});
  CHECK(expand_slurm_nodelist("n[0-65535]", "L").size() == 65536);
}

TEST_CASE("malformed Slurm host lists are errors naming the variable and value",
          "[communication][launcher]") {
  for (const char* bad : {"",        ",",   "a,",         ",a",         "a,,b",    "n[",    "n]",    "n[1-2",
                          "n1-2]",   "n[]", "n[a-b]",     "n[2-1]",     "n[1-]",   "n[-1]", "n[1,]", "n[[1]]",
                          "n[1-2]]", "a b", "n[1-70000]", "n[0-65536]", "n[1--2]", "n[+1]"}) {
    INFO("host list '" << bad << "'");
    CHECK_THROWS_AS(expand_slurm_nodelist(bad, "SLURM_JOB_NODELIST"), timely::ConfigError);
    CHECK_THROWS_WITH(expand_slurm_nodelist(bad, "SLURM_JOB_NODELIST"),
                      Catch::Contains(std::string("SLURM_JOB_NODELIST='") + bad + "'"));
  }
  // Too many hosts in all, though each range is small.
  CHECK_THROWS_WITH(expand_slurm_nodelist("a[0-40000],b[0-40000]", "L"), Catch::Contains("more than 65536"));
}

TEST_CASE("Slurm tasks per node expand their repetitions", "[communication][launcher]") {
  using Counts = std::vector<std::size_t>;
  CHECK(expand_slurm_tasks_per_node("1", "T") == Counts{1});
  CHECK(expand_slurm_tasks_per_node("2(x3),1", "T") == Counts{2, 2, 2, 1});
  CHECK(expand_slurm_tasks_per_node("4,2(x2)", "T") == Counts{4, 2, 2});
  CHECK(expand_slurm_tasks_per_node("16(x1)", "T") == Counts{16});
  for (const char* bad : {"", "0", "x", "2(x0)", "2(3)", "2(x3", "2x3)", "(x3)", "2(x)", "1,,2", "1,", "-1",
                          "2(x3)4", "2(x100000)"}) {
    INFO("tasks per node '" << bad << "'");
    CHECK_THROWS_WITH(expand_slurm_tasks_per_node(bad, "SLURM_TASKS_PER_NODE"),
                      Catch::Contains(std::string("SLURM_TASKS_PER_NODE='") + bad + "'"));
  }
}

namespace {
/// What srun gives task 4 of 7 on node[01-03] with 3, 2 and 2 tasks.
Environment srun_env() {
  return {{"SLURM_PROCID", "4"},
          {"SLURM_NTASKS", "7"},
          {"SLURM_STEP_NUM_TASKS", "7"},
          {"SLURM_STEP_NODELIST", "node[01-03]"},
          {"SLURM_JOB_NODELIST", "node[01-03]"},
          {"SLURM_STEP_TASKS_PER_NODE", "3,2(x2)"},
          {"SLURM_TASKS_PER_NODE", "3,2(x2)"},
          {"SLURM_JOB_ID", "4242"},
          {"SLURM_STEP_ID", "0"},
          {"SLURM_LOCALID", "1"}};
}
}  // namespace

TEST_CASE("Slurm: index, count, hosts per task and the rendezvous", "[communication][launcher]") {
  auto env = srun_env();
  const auto launch = detect_launch(Launcher::Auto, env);
  REQUIRE(launch.launcher == Launcher::Slurm);
  CHECK(launch.process->value == 4);
  CHECK(launch.process->source == "SLURM_PROCID=4");
  CHECK(launch.processes->value == 7);
  CHECK(launch.processes->source == "SLURM_STEP_NUM_TASKS=7");
  CHECK(launch.hosts == Strings{"node01", "node01", "node01", "node02", "node02", "node03", "node03"});
  REQUIRE(launch.rendezvous);
  CHECK(launch.rendezvous->host == "node01");
  CHECK(launch.rendezvous->port == derived_port("slurm 4242.0"));
  CHECK_THAT(launch.describe(), Catch::Contains("Slurm") && Catch::Contains("process 4 of 7") &&
                                    Catch::Contains("on node02") && Catch::Contains("node01:"));
  // Another step of the job has another port (steps of one job may run at once).
  env["SLURM_STEP_ID"] = "1";
  CHECK(detect_launch(Launcher::Slurm, env).rendezvous->port == derived_port("slurm 4242.1"));
  CHECK(derived_port("slurm 4242.1") != derived_port("slurm 4242.0"));
  CHECK(derived_port("slurm 4242.0") == 31510);  // the book's example (chapter 10)
  // The step's variables win over the job's: a step of 2 tasks inside a job of 7.
  env["SLURM_STEP_NUM_TASKS"] = "2";
  env["SLURM_STEP_NODELIST"] = "node03";
  env["SLURM_STEP_TASKS_PER_NODE"] = "2";
  env["SLURM_PROCID"] = "1";
  const auto step = detect_launch(Launcher::Auto, env);
  CHECK(step.processes->value == 2);
  CHECK(step.hosts == Strings{"node03", "node03"});
  CHECK(step.rendezvous->host == "node03");
  // Without step variables, the job's; SLURM_STEPID is the older spelling.
  const Environment old{{"SLURM_PROCID", "0"},         {"SLURM_NTASKS", "2"},
                        {"SLURM_JOB_NODELIST", "a,b"}, {"SLURM_TASKS_PER_NODE", "1(x2)"},
                        {"SLURM_JOB_ID", "7"},         {"SLURM_STEPID", "3"}};
  const auto job = detect_launch(Launcher::Auto, old);
  CHECK(job.processes->source == "SLURM_NTASKS=2");
  CHECK(job.hosts == Strings{"a", "b"});
  CHECK(job.rendezvous->port == derived_port("slurm 7.3"));
}

TEST_CASE("Slurm: inconsistent or malformed variables are errors naming them", "[communication][launcher]") {
  const auto fails = [](Environment env, const std::string& key, const std::string& value,
                        const char* expected) {
    INFO(key << "=" << value);
    if (value.empty())
      env.erase(key);
    else
      env[key] = value;
    CHECK_THROWS_AS(detect_launch(Launcher::Auto, env), timely::ConfigError);
    CHECK_THROWS_WITH(detect_launch(Launcher::Auto, env), Catch::Contains(expected));
  };
  fails(srun_env(), "SLURM_PROCID", "7", "SLURM_PROCID=7");
  fails(srun_env(), "SLURM_PROCID", "seven", "SLURM_PROCID='seven'");
  fails(srun_env(), "SLURM_PROCID", "-1", "SLURM_PROCID='-1'");
  fails(srun_env(), "SLURM_STEP_NUM_TASKS", "0", "SLURM_STEP_NUM_TASKS='0'");
  fails(srun_env(), "SLURM_STEP_NUM_TASKS", "8", "adds up to 7 tasks, but SLURM_STEP_NUM_TASKS=8");
  fails(srun_env(), "SLURM_STEP_TASKS_PER_NODE", "3,2", "gives tasks for 2 nodes, but SLURM_STEP_NODELIST");
  fails(srun_env(), "SLURM_STEP_TASKS_PER_NODE", "3;2(x2)", "SLURM_STEP_TASKS_PER_NODE='3;2(x2)'");
  fails(srun_env(), "SLURM_STEP_NODELIST", "node[01-03", "SLURM_STEP_NODELIST='node[01-03'");
  // Explicitly chosen, but not started by srun.
  CHECK_THROWS_WITH(detect_launch(Launcher::Slurm, {{"SLURM_JOB_ID", "1"}}), Catch::Contains("srun"));
}

TEST_CASE("Slurm without a node list or job id has no rendezvous, and says why",
          "[communication][launcher]") {
  const auto launch =
      detect_launch(Launcher::Auto, {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}});
  CHECK(launch.launcher == Launcher::Slurm);
  CHECK(!launch.rendezvous);
  CHECK(launch.hosts.empty());
  CHECK_THAT(launch.rendezvous_source, Catch::Contains("node list"));
  const auto no_id = detect_launch(
      Launcher::Auto,
      {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}, {"SLURM_JOB_NODELIST", "n1"}});
  CHECK(!no_id.rendezvous);
  CHECK_THAT(no_id.rendezvous_source, Catch::Contains("SLURM_JOB_ID"));
}

TEST_CASE("a Slurm batch script is not a task of a step", "[communication][launcher]") {
  // What sbatch --ntasks=2 gives the batch script itself (Slurm 22.05): SLURM_PROCID=0 and the
  // job's task count, but no step. Run there, a program is one process.
  const Environment batch{{"SLURM_PROCID", "0"},    {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "vm"},
                          {"SLURM_NODELIST", "vm"}, {"SLURM_JOB_ID", "3"}, {"SLURM_TASKS_PER_NODE", "2"}};
  CHECK(detect_launch(Launcher::Auto, batch).launcher == Launcher::None);
  CHECK_THROWS_WITH(detect_launch(Launcher::Slurm, batch), Catch::Contains("not a task of a job step"));
}

TEST_CASE("Open MPI and MPICH ranks", "[communication][launcher]") {
  // What Open MPI 4.1's mpirun -np 3 gives rank 2 on one node.
  const Environment ompi{{"OMPI_COMM_WORLD_RANK", "2"},
                         {"OMPI_COMM_WORLD_SIZE", "3"},
                         {"OMPI_COMM_WORLD_LOCAL_SIZE", "3"},
                         {"OMPI_COMM_WORLD_LOCAL_RANK", "2"},
                         {"OMPI_MCA_ess_base_jobid", "2144272385"},
                         {"PMIX_NAMESPACE", "2144272385"},
                         {"PMIX_RANK", "2"}};
  const auto launch = detect_launch(Launcher::Auto, ompi);
  REQUIRE(launch.launcher == Launcher::Mpi);
  CHECK(launch.name == "Open MPI");
  CHECK(launch.process->value == 2);
  CHECK(launch.processes->source == "OMPI_COMM_WORLD_SIZE=3");
  REQUIRE(launch.rendezvous);
  CHECK(launch.rendezvous->host == "127.0.0.1");
  CHECK(launch.rendezvous->port == derived_port("mpi 2144272385"));
  CHECK(launch.rendezvous->port >= 20000);
  CHECK(launch.rendezvous->port < 32768);
  // Across nodes MPI does not say where rank 0 is: no rendezvous, and the reason names the variable to set.
  auto spread = ompi;
  spread["OMPI_COMM_WORLD_LOCAL_SIZE"] = "1";
  const auto far = detect_launch(Launcher::Mpi, spread);
  CHECK(!far.rendezvous);
  CHECK_THAT(far.rendezvous_source, Catch::Contains("TIMELY_RENDEZVOUS"));
  // MPICH's hydra (PMI).
  const auto mpich = detect_launch(
      Launcher::Auto,
      {{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}, {"MPI_LOCALNRANKS", "2"}, {"PMI_KVSNAME", "kvs_77_0"}});
  CHECK(mpich.name == "MPICH/PMI");
  CHECK(mpich.processes->value == 2);
  CHECK(mpich.rendezvous->port == derived_port("mpi kvs_77_0"));
  // Malformed and inconsistent.
  auto bad = ompi;
  bad["OMPI_COMM_WORLD_RANK"] = "3";
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, bad),
                    Catch::Contains("OMPI_COMM_WORLD_RANK=3") && Catch::Contains("OMPI_COMM_WORLD_SIZE=3"));
  bad["OMPI_COMM_WORLD_RANK"] = "2x";
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, bad), Catch::Contains("OMPI_COMM_WORLD_RANK='2x'"));
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, {{"PMI_RANK", "0"}, {"PMI_SIZE", ""}}),
                    Catch::Contains("PMI_SIZE=''"));
  CHECK_THROWS_WITH(detect_launch(Launcher::Mpi, {}), Catch::Contains("mpirun"));
  // Half an environment is an error, not one process computing everything alone.
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, {{"OMPI_COMM_WORLD_RANK", "1"}}),
                    Catch::Contains("OMPI_COMM_WORLD_RANK is set but OMPI_COMM_WORLD_SIZE is not"));
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, {{"PMI_SIZE", "2"}}),
                    Catch::Contains("PMI_SIZE is set but PMI_RANK is not"));
}

TEST_CASE("Kubernetes StatefulSet pods", "[communication][launcher]") {
  // A pod of `kubectl apply -f deploy/k8s/wordcount.yaml`: Kubernetes sets HOSTNAME and
  // KUBERNETES_SERVICE_HOST, the manifest TIMELY_SERVICE and TIMELY_PROCESSES.
  const Environment pod{{"HOSTNAME", "wordcount-2"},
                        {"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                        {"TIMELY_SERVICE", "wordcount"},
                        {"TIMELY_PROCESSES", "3"}};
  const auto launch = detect_launch(Launcher::Auto, pod);
  REQUIRE(launch.launcher == Launcher::Kubernetes);
  CHECK(launch.process->value == 2);
  CHECK(launch.processes->value == 3);
  CHECK(launch.hosts == Strings{"wordcount-0.wordcount", "wordcount-1.wordcount", "wordcount-2.wordcount"});
  REQUIRE(launch.rendezvous);
  CHECK(launch.rendezvous->to_string() == "wordcount-0.wordcount:2100");
  // A dashed StatefulSet name, a fully qualified HOSTNAME, another port.
  auto other = pod;
  other["HOSTNAME"] = "my-timely-job-10.my-svc.default.svc.cluster.local";
  other["TIMELY_PROCESSES"] = "12";
  other["TIMELY_RENDEZVOUS_PORT"] = "7000";
  const auto dashed = detect_launch(Launcher::Auto, other);
  CHECK(dashed.process->value == 10);
  CHECK(dashed.hosts.at(3) == "my-timely-job-3.wordcount");
  CHECK(dashed.rendezvous->to_string() == "my-timely-job-0.wordcount:7000");
  // Not in a cluster (no KUBERNETES_SERVICE_HOST): not detected automatically, but when asked.
  auto outside = pod;
  outside.erase("KUBERNETES_SERVICE_HOST");
  CHECK(detect_launch(Launcher::Auto, outside).launcher == Launcher::None);
  CHECK(detect_launch(Launcher::Kubernetes, outside).process->value == 2);
  // In a pod, one of our variables without the other is an error under auto detection too.
  auto half = pod;
  half.erase("TIMELY_SERVICE");
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, half), Catch::Contains("TIMELY_SERVICE is not set"));
  half = pod;
  half.erase("TIMELY_PROCESSES");
  CHECK_THROWS_WITH(detect_launch(Launcher::Auto, half), Catch::Contains("TIMELY_PROCESSES is not set"));
  auto plain = pod;  // a pod that is not one of ours
  plain.erase("TIMELY_SERVICE");
  plain.erase("TIMELY_PROCESSES");
  CHECK(detect_launch(Launcher::Auto, plain).launcher == Launcher::None);
  // Errors name the variable and value.
  const auto fails = [&](const std::string& key, const std::string& value, const char* expected) {
    INFO(key << "=" << value);
    auto env = pod;
    if (value == "<unset>")
      env.erase(key);
    else
      env[key] = value;
    CHECK_THROWS_AS(detect_launch(Launcher::Kubernetes, env), timely::ConfigError);
    CHECK_THROWS_WITH(detect_launch(Launcher::Kubernetes, env), Catch::Contains(expected));
  };
  fails("HOSTNAME", "wordcount", "HOSTNAME='wordcount'");
  fails("HOSTNAME", "wordcount-x", "HOSTNAME='wordcount-x'");
  fails("HOSTNAME", "-2", "HOSTNAME='-2'");
  fails("HOSTNAME", "wordcount-3", "not below the number of processes TIMELY_PROCESSES=3");
  fails("TIMELY_PROCESSES", "three", "TIMELY_PROCESSES='three'");
  fails("TIMELY_PROCESSES", "0", "TIMELY_PROCESSES='0'");
  fails("TIMELY_PROCESSES", "<unset>", "TIMELY_PROCESSES is not set");
  fails("TIMELY_SERVICE", "a/b", "TIMELY_SERVICE='a/b'");
  fails("TIMELY_SERVICE", "<unset>", "TIMELY_SERVICE is not set");
  fails("TIMELY_RENDEZVOUS_PORT", "70000", "TIMELY_RENDEZVOUS_PORT='70000'");
  fails("TIMELY_RENDEZVOUS_PORT", "0", "TIMELY_RENDEZVOUS_PORT='0'");
}

TEST_CASE("launcher choice: auto order, none, names", "[communication][launcher]") {
  // srun of an Open MPI program can set both; Slurm comes first.
  auto both = srun_env();
  both["OMPI_COMM_WORLD_RANK"] = "0";
  both["OMPI_COMM_WORLD_SIZE"] = "1";
  CHECK(detect_launch(Launcher::Auto, both).launcher == Launcher::Slurm);
  CHECK(detect_launch(Launcher::Mpi, both).launcher == Launcher::Mpi);
  CHECK(detect_launch(Launcher::None, both).launcher == Launcher::None);
  CHECK(detect_launch(Launcher::Auto, {}).launcher == Launcher::None);
  CHECK(detect_launch(Launcher::Auto, {{"HOME", "/root"}, {"PATH", "/bin"}}).describe() ==
        "launcher: none detected");
  for (const auto l : {Launcher::Auto, Launcher::None, Launcher::Slurm, Launcher::Mpi, Launcher::Kubernetes})
    CHECK(parse_launcher(launcher_name(l)) == l);
  CHECK_THROWS_WITH(parse_launcher("pbs"), Catch::Contains("'pbs'"));
}

TEST_CASE("current_environment reads the process environment", "[communication][launcher]") {
  const auto env = current_environment();
  REQUIRE(env.count("PATH") == 1);
  CHECK(!env.at("PATH").empty());
}

TEST_CASE("derived ports stay below the kernel's ephemeral ports and spread over their range", "[launcher]") {
  // An ephemeral port may be held by any outgoing connection on the node (a test's, a daemon's):
  // a rendezvous port there fails to bind now and then.
  std::set<std::uint16_t> seen;
  for (int job = 0; job < 20000; ++job) {
    const auto port = derived_port("slurm " + std::to_string(job) + ".0");
    REQUIRE(port >= kFirstDerivedPort);
    REQUIRE(port < kEndDerivedPort);
    seen.insert(port);
  }
  CHECK(seen.size() > 9000);  // 20000 keys over 12768 ports: about 10,100 distinct if uniform
}
