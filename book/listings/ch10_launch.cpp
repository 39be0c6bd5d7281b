// What a program started by srun learns from Slurm. Config::from_args reads the worker arguments
// and the launcher's environment together; here the environment srun gives task 2 of a step of
// 3 tasks on node07 (2 tasks) and node08 (1 task) is passed in, instead of this process's own.
//   ch10_launch -w 2
#include <cstdio>
#include <timely/timely.hpp>

int main(int argc, char** argv) {
  const timely::communication::Environment srun{
      {"SLURM_JOB_ID", "4242"},
      {"SLURM_STEP_ID", "0"},
      {"SLURM_PROCID", "2"},
      {"SLURM_STEP_NUM_TASKS", "3"},
      {"SLURM_STEP_NODELIST", "node[07-08]"},
      {"SLURM_STEP_TASKS_PER_NODE", "2,1"},
  };
  try {
    const auto config = timely::Config::from_args(argc, argv, srun);
    std::printf("%s\n", config.launch.describe().c_str());  // what -r reports
    std::printf("process %zu of %zu\n", config.process_index, config.processes);
    for (std::size_t p = 0; p < config.launch.hosts.size(); ++p)
      std::printf("  process %zu runs on %s\n", p, config.launch.hosts[p].c_str());
    std::printf("every process registers at %s\n", config.network.rendezvous->to_string().c_str());

    // A -n that disagrees with Slurm's is an error naming both.
    const char* wrong[] = {"ch10_launch", "-n", "4"};
    try {
      timely::Config::from_args(3, wrong, srun);
    } catch (const timely::ConfigError& e) {
      std::printf("%s\n", e.what());
    }
  } catch (const timely::HelpRequested& help) {
    std::printf("%s", help.what());
  } catch (const timely::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
