// execute(): a Worker on each thread that communication::initialize starts, and parsing of the
// worker arguments.
#include <timely/execute.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

namespace timely {

namespace {

struct Parsed {
  std::size_t workers = 1;
  std::string mode = "demand";
  std::size_t processes = 1;
  std::size_t process = 0;
  std::string hostfile;
  bool report = false;
  bool zerocopy = false;
  double connect_timeout = 60;
  std::vector<std::string> positional;
};

void add_options(CLI::App& app, Parsed& p) {
  app.set_help_flag("--help", "Print this help and exit");
  app.add_option("-w,--workers,--threads", p.workers, "Worker threads per process, 1 to 4096 (default 1)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            const bool digits = !text.empty() && text.size() <= 4 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || std::stoul(text) < 1 || std::stoul(text) > 4096)
              return "expected a whole number of workers from 1 to 4096, got '" + text + "'";
            return {};
          },
          "N"))
      ->option_text("N");
  app.add_option("--progress-mode", p.mode,
                 "When workers exchange progress: eager or demand (default demand)")
      ->check(CLI::IsMember({"eager", "demand"}))
      ->option_text("MODE");
  const auto whole = [](const char* what, unsigned long least, unsigned long most) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
          const bool digits =
              !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
          if (!digits || std::stoul(text) < least || std::stoul(text) > most)
            return std::string("expected ") + what + " from " + std::to_string(least) + " to " +
                   std::to_string(most) + ", got '" + text + "'";
          return {};
        },
        "N");
  };
  app.add_option("-n,--processes", p.processes, "Processes in the computation, 1 to 65536 (default 1)")
      ->check(whole("a whole number of processes", 1, 65536))
      ->option_text("P");
  app.add_option("-p,--process", p.process, "This process's index, 0 to P-1 (default 0)")
      ->check(whole("a process index", 0, 65535))
      ->option_text("I");
  app.add_option("-h,--hostfile", p.hostfile,
                 "File of host:port lines, line i for process i (default localhost:2101, 2102, ...)")
      ->option_text("FILE");
  app.add_flag("-r,--report", p.report, "Report connection events on standard error");
  app.add_flag("-z,--zerocopy", p.zerocopy, "Serialize messages between the workers of this process too");
  app.add_option("--connect-timeout", p.connect_timeout,
                 "Seconds to wait for all processes to connect (default 60)")
      ->check(CLI::Range(0.001, 86400.0))
      ->option_text("SECONDS");
  app.add_option("args", p.positional, "The program's own arguments");
}

}  // namespace

std::string Config::usage(const std::string& program) {
  CLI::App app("A timely dataflow program.", program);
  Parsed parsed;
  add_options(app, parsed);
  return app.help();
}

Config Config::from_args(int argc, const char* const* argv) {
  const std::string program = argc > 0 && argv[0] ? argv[0] : "timely";
  CLI::App app("A timely dataflow program.", program);
  Parsed parsed;
  add_options(app, parsed);
  try {
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);  // CLI11 wants them reversed
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::ParseError& e) {
    throw ConfigError(std::string("timely: bad worker arguments: ") + e.what() + " (try --help)");
  }
  if (!std::isfinite(parsed.connect_timeout) || parsed.connect_timeout < 0.001 ||
      parsed.connect_timeout > 86400.0)
    throw ConfigError(
        "timely: bad worker arguments: --connect-timeout must be a number of seconds from 0.001 to "
        "86400, got " +
        std::to_string(parsed.connect_timeout));
  if (parsed.process >= parsed.processes)
    throw ConfigError("timely: bad worker arguments: the process index -p " + std::to_string(parsed.process) +
                      " must be less than the number of processes -n " + std::to_string(parsed.processes));
  Config config;
  config.workers = parsed.workers;
  config.processes = parsed.processes;
  config.process_index = parsed.process;
  if (!parsed.hostfile.empty())
    config.addresses = communication::read_hostfile(parsed.hostfile, parsed.processes);
  if (parsed.report)
    config.network.report = [](const std::string& line) { std::cerr << "timely: " << line << std::endl; };
  config.network.zerocopy = parsed.zerocopy;
  config.network.connect_timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(parsed.connect_timeout * 1000.0 + 0.5));
  config.worker.progress_mode = parsed.mode == "eager" ? ProgressMode::Eager : ProgressMode::Demand;
  config.positional = std::move(parsed.positional);
  return config;
}

namespace detail {

void run_workers(const Config& config, const std::function<void(Worker&)>& body) {
  auto worker_config = config.worker;
  if (!worker_config.log_start) worker_config.log_start = std::chrono::steady_clock::now();
  communication::initialize(config.communication_config(), [&](communication::Allocator& allocator) {
    Worker worker(std::move(allocator), worker_config);
    body(worker);
    while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
  });
}

}  // namespace detail
}  // namespace timely
