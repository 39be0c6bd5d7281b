// An exception in one worker stops every worker and reaches the caller of execute (no hang);
// so do workers that built different dataflows (WorkerState::built_dataflow).
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"
#include "support/loopback.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

TEST_CASE("a failing worker stops all workers and its error is rethrown", "[conformance][failure]") {
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    auto program = [](timely::Worker& worker) {
      timely::dataflow::InputHandle<Time, std::uint64_t> input;
      timely::dataflow::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) |
            inspect([](const std::uint64_t& x) {
              if (x == 13) throw std::runtime_error("record 13 is unlucky");
            }) |
            probe_with(probe);
      });
      for (Time round = 0;; ++round) {  // never ends by itself
        if (worker.index() == 0) input.send(round);
        input.advance_to(round + 1);
        while (probe.less_than(input.time())) worker.step();
      }
    };
    CHECK_THROWS_WITH(timely::execute(timely::Config::process(workers), program),
                      Catch::Contains("record 13 is unlucky"));
  }
}

TEST_CASE("a failure while other workers are parked still ends the computation", "[conformance][failure]") {
  auto program = [](timely::Worker& worker) {
    timely::dataflow::InputHandle<Time, int> input;
    worker.dataflow<Time>([&](auto& scope) { input.to_stream(scope); });
    if (worker.index() == 1) throw std::logic_error("worker 1 gives up");
    // Worker 0 keeps its input open: it would park forever without the failure.
    while (true) worker.step_or_park(std::nullopt);
  };
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(timely::execute(timely::Config::process(2), program), "worker 1 gives up");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("bad configurations are rejected before any thread starts", "[conformance][failure]") {
  CHECK_THROWS_AS(timely::execute(timely::Config::process(0), [](timely::Worker&) {}), timely::ConfigError);
  const char* zero[] = {"prog", "-w", "0"};
  CHECK_THROWS_AS(timely::Config::from_args(3, zero), timely::ConfigError);
  const char* text[] = {"prog", "-w", "abc"};
  CHECK_THROWS_WITH(timely::Config::from_args(3, text), Catch::Contains("abc"));
  const char* missing[] = {"prog", "-w"};
  CHECK_THROWS_AS(timely::Config::from_args(2, missing), timely::ConfigError);
  const char* unknown[] = {"prog", "--frobnicate"};
  CHECK_THROWS_WITH(timely::Config::from_args(2, unknown), Catch::Contains("--frobnicate"));
  const char* help[] = {"prog", "--help"};
  CHECK_THROWS_AS(timely::Config::from_args(2, help), timely::HelpRequested);
  const char* good[] = {"prog", "input.txt", "-w", "3", "--progress-mode", "eager", "more"};
  auto config = timely::Config::from_args(7, good);
  CHECK(config.workers == 3);
  CHECK(config.worker.progress_mode == timely::ProgressMode::Eager);
  CHECK(config.positional == std::vector<std::string>{"input.txt", "more"});
}

namespace {

// Three rounds: the worker sends records 0..9 (as `D`) at each time, then steps until the probe
// passes it.
template <class Ts, class D, class Make>
void three_rounds(timely::Worker& worker, timely::dataflow::InputHandle<Ts, D>& input,
                  timely::dataflow::ProbeHandle<Ts>& probe, const Make& make) {
  for (Ts round = 0; round < 3; ++round) {
    for (std::uint64_t x = 0; x < 10; ++x) input.send(make(x));
    input.advance_to(round + 1);
    while (probe.less_than(input.time())) worker.step();
  }
}

template <class Ts, class D>
void three_rounds(timely::Worker& worker, timely::dataflow::InputHandle<Ts, D>& input,
                  timely::dataflow::ProbeHandle<Ts>& probe) {
  three_rounds(worker, input, probe, [](std::uint64_t x) { return static_cast<D>(x); });
}

// Worker `odd` builds one operator more at the end of its dataflow than the others, after
// sleeping `late` (so that the others' shapes arrive before it builds); `consistent` leaves it
// out, as a control. The others count the records they see; the dataflow runs three rounds.
std::size_t maybe_different(timely::Worker& worker, std::size_t odd, bool consistent,
                            std::chrono::milliseconds late) {
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  std::size_t seen = 0;
  if (worker.index() == odd) std::this_thread::sleep_for(late);
  worker.dataflow<Time>([&](auto& scope) {
    auto stream = input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) |
                  inspect([&](const std::uint64_t&) { ++seen; });
    stream | probe_with(probe);
    if (worker.index() == odd && !consistent) stream | inspect([](const std::uint64_t&) {});
  });
  three_rounds(worker, input, probe);
  return seen;
}

constexpr const char* different_shapes = "every worker must build the same dataflows in the same order";

// A control run's counts: each of `workers` workers sent 10 records in each of 3 rounds, and
// together the workers saw every one.
void check_all_seen(const std::vector<std::size_t>& seen, std::size_t workers) {
  std::size_t total = 0;
  for (auto s : seen) total += s;
  CHECK(total == 3 * 10 * workers);
}

// Calls `body(config, workers, late)` for one process of 2 and 4 workers, in both progress
// modes, with and without -z, and the odd worker 0 and 200 ms late, the case named in INFO.
template <class Body>
void each_process_config(const Body& body) {
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {2u, 4u})
      for (bool zerocopy : {false, true})
        for (auto late : {std::chrono::milliseconds(0), std::chrono::milliseconds(200)}) {
          INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand")
                          << (zerocopy ? " -z" : "") << ", the odd worker " << late.count() << " ms late");
          auto config = timely::Config::process(workers);
          config.worker.progress_mode = mode;
          config.network.zerocopy = zerocopy;
          body(config, workers, late);
        }
}

// Runs two processes of `workers` workers over loopback, process `p` running `body(worker, p)`
// as its closure; returns each process's error (empty if it ran to the end).
std::vector<std::string> two_processes(std::size_t workers,
                                       const std::function<void(timely::Worker&, std::size_t)>& body) {
  const auto addresses = support::free_loopback_addresses(2);
  std::vector<std::string> errors(2);
  support::run_processes(2, [&](std::size_t p) {
    try {
      timely::execute(timely::Config::cluster(workers, 2, p, addresses),
                      [&](timely::Worker& w) { body(w, p); });
    } catch (const std::exception& e) {
      errors[p] = e.what();
    }
  });
  return errors;
}

// The same dataflow as `maybe_different`'s control, with timestamps of type `Ts`, after `extra`
// exchanges (each allocates a channel); `more` of them on worker `odd`.
template <class Ts>
std::size_t exchanges(timely::Worker& worker, std::size_t extra, std::size_t odd, std::size_t more) {
  timely::dataflow::InputHandle<Ts, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Ts> probe;
  std::size_t seen = 0;
  worker.dataflow<Ts>([&](auto& scope) {
    auto stream = input.to_stream(scope);
    const std::size_t n = extra + (worker.index() == odd ? more : 0);
    for (std::size_t i = 0; i < n; ++i) stream = stream | exchange([](const std::uint64_t& x) { return x; });
    stream | inspect([&](const std::uint64_t&) { ++seen; }) | probe_with(probe);
  });
  three_rounds(worker, input, probe);
  return seen;
}

}  // namespace

TEST_CASE("workers that build different dataflows fail with both shapes named, not a hang",
          "[conformance][failure]") {
  each_process_config([](const timely::Config& config, std::size_t workers, std::chrono::milliseconds late) {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(
        timely::execute(config,
                        [&](timely::Worker& w) { return maybe_different(w, workers - 1, false, late); }),
        Catch::Contains(different_shapes) && Catch::Contains("identifiers 0..") &&
            Catch::Contains("channels ["));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    // The control: the same program with the same dataflow everywhere runs to the end.
    const auto seen = timely::execute(
        config, [&](timely::Worker& w) { return maybe_different(w, workers - 1, true, late); });
    check_all_seen(seen, workers);
  });
}

TEST_CASE("processes whose workers build different dataflows both fail with the shapes named",
          "[conformance][failure]") {
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    // The last worker of process 1 builds one operator more.
    const auto errors = two_processes(
        workers, [&](timely::Worker& w, std::size_t) { maybe_different(w, 2 * workers - 1, false, {}); });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes));
    }
  }
}

TEST_CASE("a shape mismatch in a dataflow of many channels lists a few of them and the first difference",
          "[conformance][failure]") {
  // 300 exchanges everywhere, one more on the last worker: the message stays short enough for the
  // abort frame that carries it to other processes (4 KiB), and says where the shapes part.
  for (std::size_t workers : {2u, 4u}) {
    INFO(workers << " workers");
    std::string error;
    try {
      timely::execute(timely::Config::process(workers),
                      [&](timely::Worker& w) { return exchanges<Time>(w, 300, workers - 1, 1); });
    } catch (const std::exception& e) {
      error = e.what();
    }
    INFO(error);
    CHECK_THAT(error, Catch::Contains(different_shapes) && Catch::Contains(", ...]") &&
                          Catch::Contains("the numbers of identifiers differ"));
    CHECK(error.size() < 1024);
    // The control: the same 300 exchanges everywhere.
    const auto seen = timely::execute(timely::Config::process(workers), [&](timely::Worker& w) {
      return exchanges<Time>(w, 300, workers - 1, 0);
    });
    check_all_seen(seen, workers);
  }
}

TEST_CASE("processes whose dataflows differ only in the timestamp type fail naming both types",
          "[conformance][failure]") {
  // Process 0 counts rounds in u64, process 1 in i64: the same operators and channels, so only
  // the timestamp's name tells them apart (before it, progress updates failed to decode).
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    const auto errors = two_processes(workers, [](timely::Worker& w, std::size_t p) {
      if (p == 0)
        exchanges<std::uint64_t>(w, 1, 0, 0);
      else
        exchanges<std::int64_t>(w, 1, 0, 0);
    });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes) &&
                                Catch::Contains("the timestamp types differ") &&
                                Catch::Contains("timestamp u64") && Catch::Contains("timestamp i64"));
    }
  }
}

namespace {
// Records of type `D` pass one relay operator, whose input is exchanged or, on worker `odd` when
// `pipelined`, read through a pipeline; the same identifiers and channels on every worker, so
// only the channels' allocations tell the dataflows apart.
template <class D>
std::size_t relayed(timely::Worker& worker, std::size_t odd, bool pipelined) {
  using C = std::vector<D>;
  using CB = timely::container::CapacityContainerBuilder<C>;
  timely::dataflow::InputHandle<Time, D> input;
  timely::dataflow::ProbeHandle<Time> probe;
  std::size_t seen = 0;
  worker.dataflow<Time>([&](auto& scope) {
    const auto relay = [](auto, const auto&) {
      return [](timely::dataflow::OperatorInputCore<Time, C>& in,
                timely::dataflow::OperatorOutputCore<Time, CB>& out) {
        in.for_each([&](const auto& cap, C& data) { out.session(cap).give_container(data); });
      };
    };
    auto stream = input.to_stream(scope);
    if (worker.index() == odd && pipelined)
      stream = stream | unary<CB>(timely::dataflow::Pipeline{}, "Relay", relay);
    else
      stream = stream |
               unary<CB>(timely::dataflow::Exchange{[](const D& x) { return static_cast<std::uint64_t>(x); }},
                         "Relay", relay);
    stream | inspect([&](const D&) { ++seen; }) | probe_with(probe);
  });
  three_rounds(worker, input, probe);
  return seen;
}
}  // namespace

namespace {
// Two record types of 8 bytes without codecs of their own: both travel as object bytes.
struct RawA {
  std::uint32_t a;
  float b;
};
struct RawB {
  float a;
  std::uint32_t b;
};

// Records of type `D`, made from 0..9 by `make`, exchanged by `key` and counted.
template <class D, class Make, class Key>
std::size_t as_records(timely::Worker& worker, const Make& make, const Key& key) {
  timely::dataflow::InputHandle<Time, D> input;
  timely::dataflow::ProbeHandle<Time> probe;
  std::size_t seen = 0;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | exchange(key) | inspect([&](const D&) { ++seen; }) | probe_with(probe);
  });
  three_rounds(worker, input, probe, make);
  return seen;
}
}  // namespace

TEST_CASE("workers that read a channel through different pacts fail naming both, not a hang",
          "[conformance][failure]") {
  // Before, the exchanging workers waited for ever for the pipelining worker's share.
  each_process_config([](const timely::Config& config, std::size_t workers, std::chrono::milliseconds late) {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(
        timely::execute(config,
                        [&](timely::Worker& w) {
                          if (w.index() == workers - 1) std::this_thread::sleep_for(late);
                          return relayed<std::uint64_t>(w, workers - 1, true);
                        }),
        Catch::Contains(different_shapes) &&
            (Catch::Contains(" is a pipeline against a point-to-point of message<u64,vec<u64>>") ||
             Catch::Contains(" is a point-to-point of message<u64,vec<u64>> against a pipeline")));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    const auto seen = timely::execute(
        config, [&](timely::Worker& w) { return relayed<std::uint64_t>(w, workers - 1, false); });
    check_all_seen(seen, workers);
  });
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    const auto errors = two_processes(workers, [&](timely::Worker& w, std::size_t p) {
      relayed<std::uint64_t>(w, 2 * workers - 1, p == 1);
    });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes) && Catch::Contains("pipeline"));
    }
  }
}

TEST_CASE("workers whose records differ only in type fail naming both types", "[conformance][failure]") {
  // u64 records on one worker, i64 on the others: the same encoding size, so before, processes
  // read each other's records as their own type without a word.
  each_process_config([](const timely::Config& config, std::size_t workers, std::chrono::milliseconds late) {
    try {
      timely::execute(config, [&](timely::Worker& w) {
        if (w.index() == workers - 1) {
          std::this_thread::sleep_for(late);
          return relayed<std::int64_t>(w, 0, false);
        }
        return relayed<std::uint64_t>(w, 0, false);
      });
      FAIL("no error");
    } catch (const timely::DataflowError& e) {
      // Within a process the allocator meets both C++ types, across the network the shapes
      // name both codecs.
      INFO(e.what());
      CHECK_THAT(std::string(e.what()), Catch::Contains("every worker must build the same dataflows") &&
                                            (Catch::Contains("vector<long") || Catch::Contains("vec<i64>")));
    }
  });
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    const auto errors = two_processes(workers, [&](timely::Worker& w, std::size_t p) {
      if (p == 0)
        relayed<std::uint64_t>(w, 0, false);
      else
        relayed<std::int64_t>(w, 0, false);
    });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes) && Catch::Contains("vec<i64>") &&
                                Catch::Contains("vec<u64>"));
    }
  }
  // Two structs of one size both travel as their object bytes (`raw8`): the shapes name them by
  // their mangled names as well, or each process would read the other's records as its own.
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process, object bytes");
    const auto errors = two_processes(workers, [&](timely::Worker& w, std::size_t p) {
      if (p == 0)
        as_records<RawA>(
            w,
            [](std::uint64_t x) {
              return RawA{static_cast<std::uint32_t>(x), 0.5f};
            },
            [](const RawA& r) { return std::uint64_t{r.a}; });
      else
        as_records<RawB>(
            w,
            [](std::uint64_t x) {
              return RawB{0.5f, static_cast<std::uint32_t>(x)};
            },
            [](const RawB& r) { return std::uint64_t{r.b}; });
    });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes) && Catch::Contains("vec<raw8>> (") &&
                                Catch::Contains("RawA") && Catch::Contains("RawB"));
    }
  }
}

namespace {
// Every worker builds and runs one dataflow; all but `odd` then build and run a second, which
// waits for `odd`'s share for ever unless the missing dataflow is noticed. `odd` returns from
// its closure after `late`.
std::size_t fewer(timely::Worker& worker, std::size_t odd, std::chrono::milliseconds late) {
  std::size_t seen = exchanges<Time>(worker, 1, odd, 0);
  if (worker.index() == odd) {
    std::this_thread::sleep_for(late);
    return seen;
  }
  return seen + exchanges<Time>(worker, 1, odd, 0);
}
constexpr const char* fewer_dataflows = "finished building after 1 dataflow, but worker";

// Every worker builds two dataflows, or `odd` one, each run to its end: worker 0 sends 10
// records and every worker closes its input. The lacking worker has nothing left to step once
// its closure returns, and receives nothing for the dataflow it did not build.
std::size_t fewer_closed(timely::Worker& worker, std::size_t odd) {
  std::size_t seen = 0;
  for (std::size_t d = 0; d < (worker.index() == odd ? 1u : 2u); ++d) {
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::uint64_t& x) { return x; }) |
          inspect([&](const std::uint64_t&) { ++seen; }) | probe_with(probe);
    });
    if (worker.index() == 0)
      for (std::uint64_t x = 0; x < 10; ++x) input.send(x);
    input.close();
    while (!probe.done()) worker.step();
  }
  return seen;
}
}  // namespace

TEST_CASE("a worker that builds fewer dataflows than the others makes them fail, not wait",
          "[conformance][failure]") {
  // The odd worker returns from its closure `late`.
  each_process_config([](const timely::Config& config, std::size_t workers, std::chrono::milliseconds late) {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH(timely::execute(config, [&](timely::Worker& w) { return fewer(w, workers - 1, late); }),
                      Catch::Contains(fewer_dataflows) && Catch::Contains(different_shapes));
    // A lacking worker, first or last, that sends nothing and has nothing left to step.
    for (std::size_t odd : {std::size_t{0}, workers - 1})
      CHECK_THROWS_WITH(timely::execute(config, [&](timely::Worker& w) { return fewer_closed(w, odd); }),
                        Catch::Contains(fewer_dataflows) && Catch::Contains(different_shapes));
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  });
}

TEST_CASE("processes of which one builds fewer dataflows both fail naming the counts",
          "[conformance][failure]") {
  for (std::size_t workers : {1u, 2u}) {
    INFO(workers << " workers per process");
    // The last worker of process 1 builds one dataflow fewer.
    const auto errors =
        two_processes(workers, [&](timely::Worker& w, std::size_t) { fewer(w, 2 * workers - 1, {}); });
    for (std::size_t p = 0; p < 2; ++p) {
      INFO("process " << p << ": " << errors[p]);
      CHECK_THAT(errors[p], Catch::Contains(different_shapes));
    }
    // The process with the lacking worker, or the other: one of them names the counts.
    CHECK_THAT(errors[0] + errors[1], Catch::Contains(fewer_dataflows));
  }
  // A lacking worker that sends nothing and has nothing left to step, in either process.
  for (std::size_t workers : {1u, 2u})
    for (std::size_t odd : {std::size_t{0}, 2 * workers - 1}) {
      INFO(workers << " workers per process, worker " << odd << " lacking");
      const auto errors =
          two_processes(workers, [&](timely::Worker& w, std::size_t) { fewer_closed(w, odd); });
      for (std::size_t p = 0; p < 2; ++p) {
        INFO("process " << p << ": " << errors[p]);
        CHECK_THAT(errors[p], Catch::Contains(different_shapes));
      }
      CHECK_THAT(errors[0] + errors[1], Catch::Contains(fewer_dataflows));
    }
}
