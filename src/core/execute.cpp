// execute(): a Worker on each thread that communication::initialize starts, and parsing of the
// worker arguments, and the messages and exit statuses of run().
#include <timely/execute.hpp>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <timely/capture/writer.hpp>
#include <timely/communication/pinning.hpp>
#include <timely/communication/tcp_stream.hpp>
#include <timely/dataflow/operators/batch_logger.hpp>
#include <timely/logging/file.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/observe/monitor.hpp>
#include <timely/progress/log_codec.hpp>

#include "argument_errors.hpp"

namespace timely {

namespace {

struct Parsed {
  std::size_t workers = 1;
  std::string mode = "demand";
  std::size_t processes = 1;
  std::size_t process = 0;
  std::string hostfile;
  std::string launcher = "auto";
  std::string rendezvous;
  std::size_t listen_port = 0;
  bool report = false;
  bool zerocopy = false;
  std::string pin;  // empty: off; "true" (CLI11's value of a bare flag): --pin; otherwise --pin=LIST
  double connect_timeout = 60;
  std::string log_file;
  std::string monitor;
  double monitor_linger = 0;
  std::vector<std::string> positional;
};

void add_options(CLI::App& app, Parsed& p) {
  app.set_help_flag("--help", "Print this help and exit");
  app.add_option("-w,--workers,--threads", p.workers, "Worker threads per process, 1 to 4096 (default 1)")
      ->check(detail::whole_number("a whole number of workers", 1, 4096))
      ->option_text("N");
  app.add_option("--progress-mode", p.mode,
                 "When workers exchange progress: eager or demand (default demand)")
      ->check(CLI::IsMember({"eager", "demand"}))
      ->option_text("MODE");
  app.add_option("-n,--processes", p.processes, "Processes in the computation, 1 to 65536 (default 1)")
      ->check(detail::whole_number("a whole number of processes", 1, 65536))
      ->option_text("P");
  app.add_option("-p,--process", p.process, "This process's index, 0 to P-1 (default 0)")
      ->check(detail::whole_number("a process index", 0, 65535))
      ->option_text("I");
  app.add_option("-h,--hostfile", p.hostfile,
                 "File of host:port lines, line i for process i (default localhost:2101, 2102, ...)")
      ->option_text("FILE");
  app.add_option("--launcher", p.launcher,
                 "Read -n and -p (and the rendezvous) from the environment of this process starter: auto, "
                 "slurm, mpi, k8s or none (default auto)")
      ->check(CLI::IsMember({"auto", "slurm", "mpi", "k8s", "none"}))
      ->option_text("NAME");
  app.add_option("--rendezvous", p.rendezvous,
                 "Without a hostfile: process 0 serves HOST:PORT, where every process registers its address "
                 "(also TIMELY_RENDEZVOUS)")
      ->option_text("HOST:PORT");
  app.add_option("--listen-port", p.listen_port,
                 "Under a rendezvous, the port this process listens on, 0 to 65535 (default 0: any free one)")
      ->check(detail::whole_number("a port", 0, 65535))
      ->option_text("PORT");
  app.add_flag("-r,--report", p.report, "Report connection events on standard error");
  app.add_flag("-z,--zerocopy", p.zerocopy, "Serialize messages between the workers of this process too");
  // A flag with an optional value (after '=' only), so that `--pin` never takes the program's
  // next positional argument for a CPU list.
  app.add_flag("--pin", p.pin,
               "Pin each worker thread to a core of its own within the CPUs this process may use "
               "(physical cores first; processes on one host take consecutive shares), network "
               "threads to the CPUs left over; --pin=LIST (such as 0-3,8) pins to these CPUs in order")
      ->option_text("[=LIST]");
  // A number of seconds in [least, most], written in decimal: finite, so "nan" and "inf" are
  // refused, and no hexadecimal ("0x10"), which std::stod would take. CLI11 puts the option's
  // name before the message.
  const auto seconds = [](double least, double most) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
          double value = 0;
          std::size_t used = 0;
          if (!text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos) {
            try {
              value = std::stod(text, &used);
            } catch (const std::exception&) {
              used = 0;
            }
          }
          const auto bound = [](double x) {
            std::ostringstream out;
            out << x;
            return out.str();
          };
          if (used == 0 || used != text.size() || !std::isfinite(value))
            return "expects a number of seconds, got '" + text + "'";
          if (value < least || value > most)
            return "expects seconds from " + bound(least) + " to " + bound(most) + ", got '" + text + "'";
          return {};
        },
        "SECONDS");
  };
  app.add_option("--connect-timeout", p.connect_timeout,
                 "Seconds to wait for all processes to connect, 0.001 to 86400 (default 60)")
      ->check(seconds(0.001, 86400.0))
      ->option_text("SECONDS");
  const auto nonempty = [](const char* what) {
    return CLI::Validator(
        [=](std::string& text) -> std::string {
          if (text.empty()) return std::string("expects ") + what + ", got an empty value";
          return {};
        },
        what);
  };
  app.add_option("--log-file", p.log_file,
                 "Write each worker's log streams to PATTERN, with {process} and {worker} replaced")
      ->check(nonempty("PATTERN"))
      ->option_text("PATTERN");
  app.add_option("--monitor", p.monitor,
                 "Serve a live monitor page, /api/state and /metrics at HOST:PORT (give it to every process)")
      ->check(nonempty("HOST:PORT"))
      ->option_text("HOST:PORT");
  app.add_option("--monitor-linger", p.monitor_linger,
                 "Seconds the monitor keeps serving after the computation ends, 0 to 86400 (default 0)")
      ->check(seconds(0.0, 86400.0))
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
  return from_args(argc, argv, communication::current_environment());
}

Config Config::from_args(int argc, const char* const* argv, const communication::Environment& env) {
  const std::string program = argc > 0 && argv[0] ? argv[0] : "timely";
  CLI::App app("A timely dataflow program.", program);
  Parsed parsed;
  add_options(app, parsed);
  // CLI11 reads `--pin=` as a bare `--pin`; an empty list is a mistake to name.
  for (int i = 1; i < argc; ++i)
    if (argv[i] != nullptr && std::string_view(argv[i]) == "--pin=")
      throw ConfigError(
          "timely: bad worker arguments: --pin= gives an empty CPU list (write --pin, or --pin=LIST)");
  try {
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);  // CLI11 wants them reversed
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    throw HelpRequested(app.help());
  } catch (const CLI::ParseError& e) {
    throw ConfigError("timely: bad worker arguments: " + detail::describe_parse_error(e, true) +
                      " (try --help)");
  }
  if (!std::isfinite(parsed.connect_timeout) || parsed.connect_timeout < 0.001 ||
      parsed.connect_timeout > 86400.0)
    throw ConfigError(
        "timely: bad worker arguments: --connect-timeout must be a number of seconds from 0.001 to "
        "86400, got " +
        std::to_string(parsed.connect_timeout));
  // A launcher's values fill in -n and -p; given ones win, but must agree with it.
  auto launch = communication::detect_launch(communication::parse_launcher(parsed.launcher), env);
  const auto take = [&](const char* flag, std::size_t given, bool explicit_value,
                        const std::optional<communication::LaunchValue>& from_launcher) {
    if (!from_launcher) return given;
    if (explicit_value && given != from_launcher->value)
      throw ConfigError("timely: bad worker arguments: " + std::string(flag) + " " + std::to_string(given) +
                        " conflicts with " + from_launcher->source + " from " + launch.name + " (drop " +
                        flag + ", or give --launcher none)");
    return from_launcher->value;
  };
  const auto processes = take("-n", parsed.processes, app.count("--processes") > 0, launch.processes);
  const auto process = take("-p", parsed.process, app.count("--process") > 0, launch.process);
  if (process >= processes)
    throw ConfigError("timely: bad worker arguments: the process index -p " + std::to_string(process) +
                      " must be less than the number of processes -n " + std::to_string(processes));
  Config config;
  config.workers = parsed.workers;
  config.processes = processes;
  config.process_index = process;
  if (!parsed.hostfile.empty()) config.addresses = communication::read_hostfile(parsed.hostfile, processes);
  // Where the processes find each other: a hostfile, a rendezvous given, or the launcher's.
  if (!parsed.rendezvous.empty()) {
    config.network.rendezvous = communication::parse_address(parsed.rendezvous, "--rendezvous");
  } else if (const auto it = env.find("TIMELY_RENDEZVOUS"); it != env.end()) {
    config.network.rendezvous =
        communication::parse_address(it->second, "the environment variable TIMELY_RENDEZVOUS");
  }
  if (config.network.rendezvous && !parsed.hostfile.empty())
    throw ConfigError("timely: bad worker arguments: -h " + parsed.hostfile + " and the rendezvous " +
                      config.network.rendezvous->to_string() +
                      (parsed.rendezvous.empty() ? " (TIMELY_RENDEZVOUS)" : " (--rendezvous)") +
                      " both say where the processes are; give one");
  if (!config.network.rendezvous && parsed.hostfile.empty() &&
      launch.launcher != communication::Launcher::None && processes > 1) {
    if (!launch.rendezvous)
      throw ConfigError("timely: " + launch.name + " started " + std::to_string(processes) +
                        " processes, but not where process 0 is: " + launch.rendezvous_source +
                        " (or give -h FILE)");
    config.network.rendezvous = launch.rendezvous;
  }
  if (app.count("--listen-port") > 0 && !config.network.rendezvous)
    throw ConfigError("timely: bad worker arguments: --listen-port " + std::to_string(parsed.listen_port) +
                      " applies only under a rendezvous (--rendezvous, TIMELY_RENDEZVOUS or a launcher)");
  config.network.listen_port = static_cast<std::uint16_t>(parsed.listen_port);
  config.launch = std::move(launch);
  if (parsed.report)
    config.network.report = [](const std::string& line) { std::cerr << "timely: " << line << std::endl; };
  config.network.zerocopy = parsed.zerocopy;
  if (parsed.pin == "true") {
    config.pin.mode = communication::Pinning::Mode::Cores;
  } else if (!parsed.pin.empty()) {
    config.pin.mode = communication::Pinning::Mode::List;
    config.pin.cpus = communication::parse_cpu_list(parsed.pin, "--pin");
  }
  config.network.connect_timeout =
      std::chrono::milliseconds(static_cast<std::int64_t>(parsed.connect_timeout * 1000.0 + 0.5));
  config.worker.progress_mode = parsed.mode == "eager" ? ProgressMode::Eager : ProgressMode::Demand;
  config.log_file = std::move(parsed.log_file);
  config.monitor = std::move(parsed.monitor);
  config.monitor_linger =
      std::chrono::milliseconds(static_cast<std::int64_t>(parsed.monitor_linger * 1000.0 + 0.5));
  config.positional = std::move(parsed.positional);
  return config;
}

namespace detail {

namespace {

namespace lg = logging;
using U64 = std::uint64_t;

/// Where the environment asks for a worker's log streams to go (see execute.hpp, "Log sinks").
struct LogTargets {
  std::optional<communication::Address> timely;         // TIMELY_WORKER_LOG_ADDR
  std::optional<communication::Address> progress;       // TIMELY_PROGRESS_LOG_ADDR
  std::optional<communication::Address> communication;  // TIMELY_COMM_LOG_ADDR
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
  using Writer = capture::EventWriter<lg::Duration, dataflow::LogRecord<E>>;
  Writer writer(communication::connect_output_stream(address, config.network.connect_timeout, variable));
  return dataflow::BatchLogger<E, Writer>(std::move(writer));
}

/// Registers this worker's log sinks; returns its file sink, if it has one.
std::optional<lg::FileSink> install_log_sinks(Worker& worker, const Config& config, const LogTargets& targets,
                                              observe::Monitor* monitor,
                                              const std::function<void(lg::Duration)>& tick) {
  auto& registry = worker.log_register();
  std::optional<lg::FileSink> file;
  lg::Action<lg::TimelyEvent> timely;
  lg::Action<lg::ProgressEvent<U64>> progress;
  lg::Action<lg::FrontierEvent<U64>> frontier;
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
    frontier = file->action<lg::FrontierEvent<U64>>("timely/frontier/u64");
  }
  if (tick)
    timely = both(std::move(timely), lg::Action<lg::TimelyEvent>([tick](lg::Duration now, auto& events) {
                    if (events.empty()) tick(now);  // at the end of a step, or before parking
                  }));
  if (monitor) {
    // The monitor reads before a collector's BatchLogger takes the events, or takes them itself.
    timely = both(std::move(timely), monitor->timely_action(worker.index(), !targets.timely));
    frontier = both(std::move(frontier), monitor->frontier_action(worker.index(), true));
  }
  if (targets.timely)
    timely = both(std::move(timely),
                  connect_logger<lg::TimelyEvent>(*targets.timely, config, "TIMELY_WORKER_LOG_ADDR"));
  if (targets.progress)
    progress = both(std::move(progress), connect_logger<lg::ProgressEvent<U64>>(*targets.progress, config,
                                                                                "TIMELY_PROGRESS_LOG_ADDR"));
  // "communication": local worker 0 of each process logs it (communication_log.hpp), and alone connects.
  lg::Action<lg::CommunicationEvent> comm;
  if (file) comm = file->action<lg::CommunicationEvent>("communication");
  if (monitor && config.processes > 1 && worker.index() % config.workers == 0)
    comm = both(std::move(comm), monitor->communication_action(worker.index()));  // it reads them
  if (targets.communication && worker.index() % config.workers == 0)
    comm = both(std::move(comm), connect_logger<lg::CommunicationEvent>(*targets.communication, config,
                                                                        "TIMELY_COMM_LOG_ADDR"));
  if (comm) registry.insert<lg::CommunicationEvent>("communication", std::move(comm));
  if (timely) registry.insert<lg::TimelyEvent>("timely", std::move(timely));
  if (progress) registry.insert<lg::ProgressEvent<U64>>("timely/progress/u64", std::move(progress));
  if (frontier) registry.insert<lg::FrontierEvent<U64>>("timely/frontier/u64", std::move(frontier));
  return file;
}

/// The monitor's gathering across processes (execute.hpp, "Live monitor"): every worker
/// allocates the channel `kMonitorChannel`; local worker 0 of each process p > 0 sends its
/// process's snapshot (JSON) to worker 0 every 500 ms and once at the end, marked final;
/// worker 0 hands them to the monitor, and at the end waits (up to `kFinalWait`) for every
/// process's final one.
constexpr std::size_t kMonitorChannel = std::size_t{1} << 48;  // beyond any identifier a worker makes
constexpr auto kSendInterval = std::chrono::milliseconds(500);
constexpr auto kFinalWait = std::chrono::seconds(10);

class MonitorLink {
 public:
  MonitorLink(Worker& worker, observe::Monitor& monitor, const Config& config)
      : worker_(worker), monitor_(monitor), config_(config) {
    auto [pushers, puller] = worker.state().allocator().allocate<std::string>(kMonitorChannel);
    if (worker.index() % config.workers == 0) {
      if (config.process_index > 0) to_zero_ = std::move(pushers.at(0));
      puller_ = std::move(puller);
    }
  }
  /// After a step (from the logging action): send or receive what is due.
  void tick(lg::Duration now) {
    if (to_zero_ && (now - sent_ >= kSendInterval || sent_.count() == 0)) {
      send(false);
      sent_ = now;
    }
    if (config_.process_index == 0 && puller_) receive();
  }
  /// After this worker's last step, once every local worker finished: the final exchange.
  void finish() {
    if (to_zero_) {
      send(true);
      worker_.state().allocator().release();
    } else if (config_.process_index == 0 && puller_) {
      const auto deadline = std::chrono::steady_clock::now() + kFinalWait;
      auto& allocator = worker_.state().allocator();
      while (finals_ + 1 < config_.processes && std::chrono::steady_clock::now() < deadline &&
             !allocator.poisoned()) {
        allocator.receive();
        allocator.events().clear();
        receive();
        if (finals_ + 1 < config_.processes) allocator.await_events(std::chrono::milliseconds(50));
      }
    }
    to_zero_.reset();
    puller_.reset();
  }

 private:
  void send(bool final) {
    to_zero_->send(std::string(final ? "F" : "P") + std::to_string(config_.process_index) + "\n" +
                   observe::to_json(monitor_.local_snapshot()));
    to_zero_->done();
  }
  void receive() {
    while (auto message = puller_->recv()) {
      const auto line = message->find('\n');
      if (message->size() < 2 || line == std::string::npos) continue;
      const auto process = static_cast<std::size_t>(std::stoull(message->substr(1, line - 1)));
      monitor_.set_remote(process, observe::snapshot_from_json(std::string_view(*message).substr(line + 1)));
      if ((*message)[0] == 'F') ++finals_;
    }
  }

  Worker& worker_;
  observe::Monitor& monitor_;
  const Config& config_;
  std::unique_ptr<communication::Push<std::string>> to_zero_;
  communication::PullPtr<std::string> puller_;
  lg::Duration sent_{0};
  std::size_t finals_ = 0;
};

/// Counts the local workers done with their last step, so the last snapshot leaves after all.
struct Finished {
  std::mutex mutex;
  std::condition_variable cv;
  std::size_t count = 0;
  void arrive() {
    {
      std::lock_guard lock(mutex);
      ++count;
    }
    cv.notify_all();
  }
  /// Until all `workers` arrived, or another worker failed (it will not arrive).
  void wait_for(std::size_t workers, communication::Allocator& allocator) {
    std::unique_lock lock(mutex);
    while (count < workers && !allocator.poisoned()) cv.wait_for(lock, std::chrono::milliseconds(20));
  }
};

}  // namespace

void run_workers(const Config& config, const std::function<void(Worker&)>& body) {
  auto worker_config = config.worker;
  if (!worker_config.log_start) worker_config.log_start = std::chrono::steady_clock::now();
  check_log_file_pattern(config);
  const LogTargets targets{address_from_env("TIMELY_WORKER_LOG_ADDR"),
                           address_from_env("TIMELY_PROGRESS_LOG_ADDR"),
                           address_from_env("TIMELY_COMM_LOG_ADDR")};
  // Local worker 0's "communication" poller: its last events, after the connections closed.
  std::shared_ptr<CommunicationLog> comm_log;
  std::unique_ptr<observe::Monitor> monitor;
  if (!config.monitor.empty()) {
    observe::Monitor::Options options;
    options.workers = config.workers;
    options.first_worker = config.process_index * config.workers;
    options.listen = config.process_index == 0;
    monitor = std::make_unique<observe::Monitor>(config.monitor, options);
    if (options.listen && config.monitor_ready) config.monitor_ready(monitor->address());
    // With `-r`, where it listens (the system's choice for port 0 is known only now).
    if (options.listen && config.network.report)
      config.network.report("monitor serving http://" + monitor->address() + "/");
  }
  if (config.network.report && config.launch.launcher != communication::Launcher::None)
    config.network.report(config.launch.describe());
  Finished finished;
  communication::initialize(config.communication_config(), [&](communication::Allocator& allocator) {
    Worker worker(std::move(allocator), worker_config);
    // Gone before the worker (its channel with it); the loggers, which may outlive it, hold it weakly.
    std::shared_ptr<MonitorLink> link;
    std::function<void(lg::Duration)> tick;
    if (monitor && config.processes > 1) {
      link = std::make_shared<MonitorLink>(worker, *monitor, config);
      tick = [weak = std::weak_ptr<MonitorLink>(link)](lg::Duration now) {
        if (auto l = weak.lock()) l->tick(now);
      };
    }
    auto file = install_log_sinks(worker, config, targets, monitor.get(), tick);
    body(worker);
    // A worker that builds fewer dataflows than the others makes them fail, not wait for it.
    worker.state().finished_building(worker.next_dataflow_index());
    while (worker.has_dataflows()) worker.step_or_park(std::nullopt);
    if (file || monitor) worker.log_register().flush();
    if (file) file->flush();  // a failed write shows here; the end frame follows when the worker goes
    if (auto log = worker.communication_log()) comm_log = std::move(log);  // one worker per process has one
    if (monitor) {
      monitor->finish(worker.index());
      finished.arrive();
      if (link) {
        if (worker.index() % config.workers == 0)
          finished.wait_for(config.workers, worker.state().allocator());
        link->finish();
      }
    }
  });
  if (comm_log) comm_log->finish();  // the network has closed: the final counts (then the file closes)
  comm_log.reset();
  if (monitor && config.monitor_linger.count() > 0) std::this_thread::sleep_for(config.monitor_linger);
}

namespace {

// The last part of argv[0], as programs name themselves in messages.
std::string_view program_name(const char* program) {
  std::string_view name = program;
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos && slash + 1 < name.size())
    name.remove_prefix(slash + 1);
  return name;
}

void report(const char* program, const char* message) {
  const auto name = program_name(program);
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(name.size()), name.data(), message);
  std::fflush(stderr);
}

}  // namespace

int run_reporting(const char* program, const std::function<void()>& body) noexcept {
  try {
    body();
    return 0;
  } catch (const HelpRequested& help) {
    std::fputs(help.what(), stdout);
    std::fflush(stdout);
    return 0;
  } catch (const ConfigError& e) {
    report(program, e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    report(program, "out of memory");
    return 1;
  } catch (const std::exception& e) {
    report(program, e.what());
    return 1;
  } catch (...) {
    report(program, "failed with an exception that is not a std::exception");
    return 1;
  }
}

void throw_unexpected_positional(const std::vector<std::string>& positional) {
  std::string quoted;
  for (const auto& arg : positional) quoted += (quoted.empty() ? "'" : " '") + arg + "'";
  throw ConfigError("timely: bad worker arguments: unexpected argument" +
                    std::string(positional.size() == 1 ? " " : "s ") + quoted +
                    ": this program takes only the worker arguments (try --help)");
}

}  // namespace detail
}  // namespace timely
