// execute(): a Worker on each thread that communication::initialize starts, and parsing of the
// worker arguments.
#include <timely/execute.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include <timely/communication/tcp_stream.hpp>
#include <timely/dataflow/operators/batch_logger.hpp>
#include <timely/dataflow/operators/capture_writer.hpp>
#include <timely/logging/file.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/log_codec.hpp>

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
  std::string log_file;
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
  app.add_option("--log-file", p.log_file,
                 "Write each worker's log streams to PATTERN, with {process} and {worker} replaced")
      ->option_text("PATTERN");
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
  config.log_file = std::move(parsed.log_file);
  config.positional = std::move(parsed.positional);
  return config;
}

namespace detail {

namespace {

namespace lg = logging;
using U64 = std::uint64_t;

/// Where the environment asks for a worker's log streams to go (see execute.hpp, "Log sinks").
struct LogTargets {
  std::optional<communication::Address> timely;    // TIMELY_WORKER_LOG_ADDR
  std::optional<communication::Address> progress;  // TIMELY_PROGRESS_LOG_ADDR
};

std::optional<communication::Address> address_from_env(const char* variable) {
  const char* text = std::getenv(variable);
  if (text == nullptr) return std::nullopt;
  return communication::parse_address(text, std::string("the environment variable ") + variable);
}

/// `pattern` with every `{process}` and `{worker}` replaced.
std::string log_file_name(std::string pattern, std::size_t process, std::size_t worker) {
  for (const auto& [key, value] :
       {std::pair<std::string, std::size_t>{"{process}", process}, {"{worker}", worker}})
    for (auto at = pattern.find(key); at != std::string::npos; at = pattern.find(key, at))
      pattern.replace(at, key.size(), std::to_string(value));
  return pattern;
}

void check_log_file_pattern(const Config& config) {
  if (config.log_file.empty()) return;
  const bool worker = config.log_file.find("{worker}") != std::string::npos;
  const bool process = config.log_file.find("{process}") != std::string::npos;
  if ((config.workers > 1 && !worker) || (config.processes > 1 && !worker && !process))
    throw ConfigError("timely: the log file pattern '" + config.log_file + "' has no {worker}, so the " +
                      std::to_string(config.workers * config.processes) +
                      " workers of this computation would write one file");
}

/// `first`, then `second`, on every batch (either may be empty).
template <class E>
lg::Action<E> both(lg::Action<E> first, lg::Action<E> second) {
  if (!first) return second;
  if (!second) return first;
  return [first = std::move(first), second = std::move(second)](lg::Duration now, auto& events) {
    first(now, events);  // a FileSink's action reads the events; a BatchLogger's takes them
    second(now, events);
  };
}

/// A BatchLogger streaming `E` to a connection to `address`.
template <class E>
lg::Action<E> connect_logger(const communication::Address& address, const Config& config,
                             const char* variable) {
  using Writer = dataflow::capture::EventWriter<lg::Duration, dataflow::LogRecord<E>>;
  Writer writer(communication::connect_output_stream(address, config.network.connect_timeout, variable));
  return dataflow::BatchLogger<E, Writer>(std::move(writer));
}

/// Registers this worker's log sinks; returns its file sink, if it has one.
std::optional<lg::FileSink> install_log_sinks(Worker& worker, const Config& config,
                                              const LogTargets& targets) {
  auto& registry = worker.log_register();
  std::optional<lg::FileSink> file;
  lg::Action<lg::TimelyEvent> timely;
  lg::Action<lg::ProgressEvent<U64>> progress;
  if (!config.log_file.empty()) {
    lg::FileSink::Options options;
    options.process = config.process_index;
    options.worker = worker.index() % config.workers;
    options.start = registry.start();
    options.flush_interval = std::chrono::milliseconds(10);
    file.emplace(log_file_name(config.log_file, config.process_index, worker.index()), options);
    timely = file->action<lg::TimelyEvent>("timely");
    progress = file->action<lg::ProgressEvent<U64>>("timely/progress/u64");
    file->insert<lg::TrackerEvent<U64>>(registry, "timely/reachability/u64");
    file->insert<lg::OperatesSummaryEvent<U64>>(registry, "timely/summary/u64");
    file->insert<lg::FrontierEvent<U64>>(registry, "timely/frontier/u64");
  }
  if (targets.timely)
    timely = both(std::move(timely),
                  connect_logger<lg::TimelyEvent>(*targets.timely, config, "TIMELY_WORKER_LOG_ADDR"));
  if (targets.progress)
    progress = both(std::move(progress), connect_logger<lg::ProgressEvent<U64>>(*targets.progress, config,
                                                                                "TIMELY_PROGRESS_LOG_ADDR"));
  if (timely) registry.insert<lg::TimelyEvent>("timely", std::move(timely));
  if (progress) registry.insert<lg::ProgressEvent<U64>>("timely/progress/u64", std::move(progress));
  return file;
}

}  // namespace

void run_workers(const Config& config, const std::function<void(Worker&)>& body) {
  auto worker_config = config.worker;
  if (!worker_config.log_start) worker_config.log_start = std::chrono::steady_clock::now();
  check_log_file_pattern(config);
  const LogTargets targets{address_from_env("TIMELY_WORKER_LOG_ADDR"),
                           address_from_env("TIMELY_PROGRESS_LOG_ADDR")};
  communication::initialize(config.communication_config(), [&](communication::Allocator& allocator) {
    Worker worker(std::move(allocator), worker_config);
    auto file = install_log_sinks(worker, config, targets);
    body(worker);
    while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
    if (file) {
      worker.log_register().flush();
      file->flush();  // a failed write shows here; the end frame follows when the worker goes
    }
  });
}

}  // namespace detail
}  // namespace timely
