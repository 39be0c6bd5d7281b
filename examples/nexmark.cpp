// nexmark: the Nexmark benchmark's queries over the generator of timely/streaming/nexmark.
//   nexmark --query N --events E [--rate R] [--seed S] [--group G] [-w N] [worker args]
// Every worker generates its share of E events (blocks of 50 ids, block b on worker b % peers)
// and runs query N on it. Without --rate the events are generated as fast as possible, with
// event times at 10 M events/s; with --rate R they are released when due at R events/s (over all
// workers, event time = wall-clock time since the start) and the latency from an event time
// being due to the query's output frontier passing it is reported (p50, p99, max; with
// windowed queries this becomes the watermark-to-window-result latency). --seed S (default 0:
// Beam's draws) and --group G (Beam's outOfOrderGroupSize, default 1) go to the generator.
// Prints per process: events, results, seconds (the slowest local worker) and events/s, total
// and per worker.
//
// Queries: 0 (pass-through), 1 (currency conversion), 2 (selection), 3 (local item suggestion),
// 4 (average price per category), 5 (hot items), 6 (average selling price by seller), 7 (highest
// bid), 8 (new users), 9 (winning bids), 11 (user sessions), with Beam's default parameters
// (10 s windows every 5 s, sessions closed after 10 s; nexmark/windowed_queries.hpp). Q10 writes
// files in Beam and is not a query here.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <timely/streaming/nexmark/generator.hpp>
#include <timely/streaming/nexmark/queries.hpp>
#include <timely/streaming/nexmark/source.hpp>
#include <timely/streaming/nexmark/windowed_queries.hpp>
#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
namespace nx = timely::streaming::nexmark;

namespace {

constexpr const char* kUsage = "--query N --events E [--rate R] [--seed S] [--group G] [-w N] [worker args]";
constexpr const char* kOptions =
    "  --query N      the query: 0-9 or 11\n"
    "  --events E     events to generate, over all workers\n"
    "  --rate R       release the events at R events/s and report latencies (default: at once)\n"
    "  --seed S       the generator's seed (default 0)\n"
    "  --group G      the generator's out-of-order group size (default 1)\n";

/// What one worker measured.
struct WorkerResult {
  std::uint64_t events = 0, results = 0;
  double seconds = 0;
  std::vector<std::uint64_t> latencies_us;  // paced runs: per ms of event time
};

/// Runs `query` behind the source; counts its output records.
template <class Query>
WorkerResult run(timely::Worker& worker, const nx::GeneratorConfig& config,
                 std::optional<std::chrono::steady_clock::time_point> paced_start, Query query) {
  WorkerResult result;
  timely::ProbeHandle<std::uint64_t> probe;
  const bool paced = paced_start.has_value();
  nx::SourceOptions options;
  options.paced = paced;
  // Paced: every worker of this process releases its share against the same instant, and the
  // latencies are measured from it (the workers finish building their dataflows at different
  // moments; a worker timed from its own first scheduling would hold the frontier back by its
  // delay, and every latency would include it).
  options.start = paced_start;
  timely::synchronization::Barrier(worker).wait();  // start together (the source runs at once)
  worker.dataflow<std::uint64_t>([&](auto& scope) {
    nx::source(scope, config, options) | query |
        inspect_container([&](const std::uint64_t&, const auto& batch) { result.results += batch.size(); }) |
        probe_with(probe);
  });
  const auto start = paced ? *paced_start : std::chrono::steady_clock::now();
  std::uint64_t next_ms = config.base_time;  // paced: the next event-time ms whose completion we time
  const std::uint64_t end_ms = nx::event_time_of(config, config.events);
  while (!probe.done()) {
    worker.step();
    if (!paced) continue;
    const std::uint64_t frontier =
        probe.with_frontier([&](const auto& f) { return f.empty() ? end_ms + 1 : f[0]; });
    if (frontier <= next_ms) continue;
    const auto since =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    const auto now_us = static_cast<std::uint64_t>(std::max<std::int64_t>(since.count(), 0));
    for (; next_ms < frontier && next_ms <= end_ms; ++next_ms) {
      const std::uint64_t due_us = (next_ms + 1 - config.base_time) * 1000;  // ms next_ms is over
      result.latencies_us.push_back(now_us > due_us ? now_us - due_us : 0);
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.events = nx::Generator::share_size(config, worker.index(), worker.peers());
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("nexmark", kUsage, kOptions, [&] {
    std::vector<char*> args(argv, argv + argc);
    const auto query = examples::take_count(args, "--query");
    const auto events = examples::take_count(args, "--events");
    const auto rate = examples::take_count(args, "--rate");
    const auto seed = examples::take_count(args, "--seed");
    const auto group = examples::take_count(args, "--group");
    auto config = timely::Config::from_args(static_cast<int>(args.size()), args.data());
    if (!config.positional.empty())
      throw timely::ConfigError("unexpected argument '" + config.positional[0] + "'");
    if (!query) throw timely::ConfigError("--query N is required");
    if (!events) throw timely::ConfigError("--events E is required");
    if (*query == 10 || *query > 11)
      throw timely::ConfigError("query " + std::to_string(*query) + " is not a Nexmark query here (0-9, 11)");
    if (rate && *rate == 0) throw timely::ConfigError("--rate must be positive");
    if (*events == 0) throw timely::ConfigError("--events must be positive");

    nx::GeneratorConfig generator;
    generator.events = *events;
    generator.rate = rate ? *rate : 10'000'000;
    generator.seed = seed.value_or(0);
    generator.out_of_order_group_size = group.value_or(1);
    generator.validate();
    const bool paced = rate.has_value();
    // Paced runs start releasing events at this instant, on every worker of this process (time
    // enough to start the threads and build the dataflows).
    std::optional<std::chrono::steady_clock::time_point> paced_start;
    if (paced) paced_start = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);

    const auto results = timely::execute(config, [&](timely::Worker& worker) {
      switch (*query) {
        case 0:
          return run(worker, generator, paced_start, nx::q0());
        case 1:
          return run(worker, generator, paced_start, nx::q1());
        case 2:
          return run(worker, generator, paced_start, nx::q2());
        case 3:
          return run(worker, generator, paced_start, nx::q3());
        case 4:
          return run(worker, generator, paced_start, nx::q4());
        case 5:
          return run(worker, generator, paced_start, nx::q5());
        case 6:
          return run(worker, generator, paced_start, nx::q6());
        case 7:
          return run(worker, generator, paced_start, nx::q7());
        case 8:
          return run(worker, generator, paced_start, nx::q8());
        case 9:
          return run(worker, generator, paced_start, nx::q9());
        default:
          return run(worker, generator, paced_start, nx::q11());
      }
    });

    WorkerResult total;
    for (const auto& r : results) {
      total.events += r.events;
      total.results += r.results;
      total.seconds = std::max(total.seconds, r.seconds);
      total.latencies_us.insert(total.latencies_us.end(), r.latencies_us.begin(), r.latencies_us.end());
    }
    const auto workers = results.size();
    const double per_second = total.seconds > 0 ? static_cast<double>(total.events) / total.seconds : 0.0;
    std::printf(
        "nexmark q%llu: %llu events, %llu results on %zu workers in %.3f s: %.3e events/s (%.3e per "
        "worker)\n",
        static_cast<unsigned long long>(*query), static_cast<unsigned long long>(total.events),
        static_cast<unsigned long long>(total.results), workers, total.seconds, per_second,
        per_second / static_cast<double>(workers));
    if (paced && !total.latencies_us.empty()) {
      auto& l = total.latencies_us;
      std::sort(l.begin(), l.end());
      const auto at = [&](double q) {
        return l[std::min(l.size() - 1, static_cast<std::size_t>(q * static_cast<double>(l.size())))];
      };
      std::printf(
          "latency from event time due to output frontier past it (%zu ms of event time, timed on each of "
          "%zu workers): p50 %llu us, p99 %llu us, max %llu us\n",
          l.size() / workers, workers, static_cast<unsigned long long>(at(0.5)),
          static_cast<unsigned long long>(at(0.99)), static_cast<unsigned long long>(l.back()));
    }
  });
}
