// communication::initialize (include/timely/communication/initialize.hpp): the network, the
// worker threads, and the guard that joins them and decides which error to rethrow.
#include <timely/communication/initialize.hpp>

#include <algorithm>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <timely/communication/pinning.hpp>

#include "transport.hpp"

namespace timely::communication::detail {

namespace {

/// This process's worker threads and the errors they end with. Joins every thread before it
/// goes, so that no worker outlives `run_workers`, whichever way it returns.
class WorkerGuards {
 public:
  explicit WorkerGuards(std::shared_ptr<ProcessShared> shared) : shared_(std::move(shared)) {}
  WorkerGuards(const WorkerGuards&) = delete;
  WorkerGuards& operator=(const WorkerGuards&) = delete;
  ~WorkerGuards() { join(); }

  /// Starts a thread running `run`, recording how it ends.
  template <class Run>
  void spawn(Run run) {
    threads_.emplace_back([this, run = std::move(run)] {
      try {
        run();
      } catch (const WorkerAborted&) {
        record(first_aborted_);
      } catch (...) {
        record(first_error_);
      }
    });
  }

  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  /// The first genuine failure of a worker of this process, or null.
  [[nodiscard]] std::exception_ptr error() const { return first_error_; }
  /// A `WorkerAborted`, if a worker stopped because another failed; or null.
  [[nodiscard]] std::exception_ptr aborted() const { return first_aborted_; }

 private:
  void record(std::exception_ptr& slot) {
    {
      std::lock_guard lock(mutex_);
      if (!slot) slot = std::current_exception();
    }
    shared_->poison();
  }

  std::shared_ptr<ProcessShared> shared_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::exception_ptr first_error_;
  std::exception_ptr first_aborted_;
};

std::string describe_error(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an unknown error";
  }
}

}  // namespace

void run_workers(const Config& config, const std::function<void(Allocator&)>& body) {
  const ClusterConfig& given = config.cluster;
  if (given.processes == 0 || given.process >= given.processes)
    throw ConfigError("timely: process index " + std::to_string(given.process) +
                      " must be less than the number of processes " + std::to_string(given.processes));
  auto shared = std::make_shared<ProcessShared>(config.workers);

  // Pinning: the topology is read once, on this thread (its affinity is the allowed set), and
  // the placement checked before any connection, so that a bad list or too many workers fail
  // at once on every process; the processes on this host are known once connected.
  std::optional<Placement> placement;
  Topology topology;
  PlaceNetworkThreads place;
  if (config.pin.mode != Pinning::Mode::Off) {
    topology = config.pin.topology ? *config.pin.topology : detect_topology();
    (void)place_threads(config.pin, topology, config.workers, 0, 1);
    place = [&](const std::vector<bool>& same_host) {
      const auto local = static_cast<std::size_t>(std::count(
          same_host.begin(), same_host.begin() + static_cast<std::ptrdiff_t>(given.process), true));
      const auto locals = static_cast<std::size_t>(std::count(same_host.begin(), same_host.end(), true));
      placement = place_threads(config.pin, topology, config.workers, local, locals);
      if (given.report)
        for (const auto& line : placement->describe(given.process * config.workers, given.processes > 1))
          given.report(line);
      return placement->network;
    };
  }

  std::shared_ptr<Network> network;
  if (given.processes > 1 || given.zerocopy) {
    ClusterConfig cluster = given;
    if (cluster.addresses.empty() && !cluster.rendezvous) {
      constexpr std::size_t first_port = 2101;
      if (cluster.processes > 65536 - first_port)
        throw ConfigError(
            "timely: " + std::to_string(cluster.processes) +
            " processes without a hostfile would listen on localhost:" + std::to_string(first_port) +
            " to localhost:" + std::to_string(first_port - 1 + cluster.processes) +
            ", past port 65535; give their addresses with -h HOSTFILE");
      for (std::size_t i = 0; i < cluster.processes; ++i)
        cluster.addresses.push_back({"localhost", static_cast<std::uint16_t>(first_port + i)});
    }
    network = Network::start(cluster, config.workers, shared, place);
  } else if (place) {
    place({true});
  }

  // Spin before parking only where it pays: several workers, each with a core of its own, and
  // no network threads competing for the cores (a spinning worker would delay the very thread
  // that brings its data).
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  shared->set_spinning(!network && config.workers >= 2 && config.workers <= cores);

  const auto make_allocator = [&](std::size_t local) {
    if (network) return Allocator(Cluster(local, shared, network));
    if (config.workers == 1) return Allocator(Thread());
    return Allocator(Process(local, shared));
  };

  std::exception_ptr error;
  std::exception_ptr aborted;
  {
    WorkerGuards guards(shared);
    try {
      for (std::size_t i = 0; i < config.workers; ++i)
        guards.spawn([&, i] {
          // First of all, so that everything the worker allocates and touches is on its CPU.
          if (placement)
            pin_current_thread({&placement->workers[i], 1},
                               "worker " + std::to_string(given.process * config.workers + i));
          Allocator allocator = make_allocator(i);
          body(allocator);
        });
    } catch (...) {
      shared->poison();
      guards.join();
      if (network) network->stop("process " + std::to_string(given.process) + " could not start its workers");
      throw;
    }
    guards.join();
    error = guards.error();
    aborted = guards.aborted();
  }

  // The first genuine error of a worker of this process wins; then a failure of the network
  // (a lost peer, or a peer whose computation failed); then an abort.
  if (!error && !aborted && network) {
    try {
      network->finish();
    } catch (...) {
      error = std::current_exception();
    }
  }
  if (!error) error = shared->failure();
  if (!error) error = aborted;
  if (error && network) network->stop(describe_error(error));
  if (error) std::rethrow_exception(error);
}

}  // namespace timely::communication::detail
