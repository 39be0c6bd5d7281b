// execute(): worker threads, failure propagation, and parsing of the worker arguments.
#include <timely/execute.hpp>

#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>

namespace timely {

namespace {

void add_options(CLI::App& app, std::size_t& workers, std::string& mode,
                 std::vector<std::string>& positional) {
  app.set_help_flag("--help", "Print this help and exit");
  app.add_option("-w,--workers,--threads", workers, "Worker threads per process (>= 1)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}))
      ->option_text("N");
  app.add_option("--progress-mode", mode, "When workers exchange progress: eager or demand")
      ->check(CLI::IsMember({"eager", "demand"}))
      ->option_text("MODE");
  app.add_option("args", positional, "The program's own arguments");
}

}  // namespace

std::string Config::usage(const std::string& program) {
  CLI::App app("A timely dataflow program.", program);
  std::size_t workers = 1;
  std::string mode = "demand";
  std::vector<std::string> positional;
  add_options(app, workers, mode, positional);
  return app.help();
}

Config Config::from_args(int argc, const char* const* argv) {
  const std::string program = argc > 0 && argv[0] ? argv[0] : "timely";
  CLI::App app("A timely dataflow program.", program);
  std::size_t workers = 1;
  std::string mode = "demand";
  std::vector<std::string> positional;
  add_options(app, workers, mode, positional);
  try {
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);  // CLI11 wants them reversed
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::ParseError& e) {
    throw ConfigError(std::string("timely: bad worker arguments: ") + e.what() + " (try --help)");
  }
  Config config;
  config.workers = workers;
  config.worker.progress_mode = mode == "eager" ? ProgressMode::Eager : ProgressMode::Demand;
  config.positional = std::move(positional);
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
