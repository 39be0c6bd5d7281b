// execute(): worker threads, failure propagation, and parsing of the worker arguments.
#include <timely/execute.hpp>

#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

namespace timely {

namespace {

struct Parsed {
  std::size_t workers = 1;
  std::string mode = "demand";
  std::size_t processes = 1;
  std::size_t process = 0;
  std::string hostfile;
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
  app.add_option("-n,--processes", p.processes, "Processes in the computation (default 1)")->option_text("P");
  app.add_option("-p,--process", p.process, "This process's index (default 0)")->option_text("I");
  app.add_option("-h,--hostfile", p.hostfile, "File of host:port lines, one per process")
      ->option_text("FILE");
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
  if (parsed.processes != 1 || parsed.process != 0 || !parsed.hostfile.empty())
    throw ConfigError(
        "timely: running one computation across several processes (-n, -p, -h) is not available in this "
        "build yet; use -w N for N worker threads in one process");
  Config config;
  config.workers = parsed.workers;
  config.worker.progress_mode = parsed.mode == "eager" ? ProgressMode::Eager : ProgressMode::Demand;
  config.positional = std::move(parsed.positional);
  return config;
}

namespace detail {

void run_workers(const Config& config, const std::function<void(Worker&)>& body) {
  auto shared = std::make_shared<communication::ProcessShared>(config.workers);
  std::mutex error_mutex;
  std::exception_ptr first_error;    // the first genuine failure
  std::exception_ptr first_aborted;  // a WorkerAborted, if that is all we have

  auto run = [&](std::size_t index) {
    try {
      Worker worker(communication::Allocator(index, shared), config.worker);
      body(worker);
      while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
    } catch (const WorkerAborted&) {
      std::lock_guard lock(error_mutex);
      if (!first_aborted) first_aborted = std::current_exception();
      shared->poison();
    } catch (...) {
      {
        std::lock_guard lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
      shared->poison();
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(config.workers);
  try {
    for (std::size_t i = 0; i < config.workers; ++i) threads.emplace_back(run, i);
  } catch (...) {
    shared->poison();
    for (auto& t : threads) t.join();
    throw;
  }
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
  if (first_aborted) std::rethrow_exception(first_aborted);
}

}  // namespace detail
}  // namespace timely
