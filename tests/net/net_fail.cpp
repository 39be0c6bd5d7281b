// net_fail: a small timely program for the `net` failure tests (tests/net/net_tests.py).
//
//   net_fail run ROUNDS                    rounds of an exchange of 100 records per worker; every
//                                          worker prints "worker K round R" (flushed) every 10
//                                          rounds and "worker K done" at the end
//   net_fail throw K AFTER                 as `run` (forever), but worker K throws
//                                          std::runtime_error("boom from worker K") inside an
//                                          operator once it has received AFTER records
//   net_fail throw-driver K AFTER          the same, thrown by worker K's driver loop (the
//                                          worker closure) after AFTER rounds
//   net_fail shape-type K                  worker K exchanges strings where the others exchange
//                                          numbers on the same channel (a different dataflow)
//
// followed by the worker arguments (-w, -n, -p, -h, ...). Exit status: 0 on success, 2 on bad
// arguments, 1 on any other error, whose message is printed on stderr as "net_fail: error: ...".
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

using namespace timely::dataflow::operators;

namespace {

std::uint64_t parse(const std::string& text) {
  std::size_t used = 0;
  const auto v = std::stoull(text, &used);
  if (used != text.size()) throw timely::ConfigError("net_fail: bad number '" + text + "'");
  return v;
}

void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Rounds of an exchange of 100 records per worker. `thrower`/`after`: the worker that throws
// from an operator (records received) or from its loop (rounds), if any.
void rounds(timely::Worker& worker, std::uint64_t total, std::size_t thrower, std::uint64_t after,
            bool in_operator) {
  const auto index = worker.index();
  timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
  timely::dataflow::ProbeHandle<std::uint64_t> probe;
  auto seen = std::make_shared<std::uint64_t>(0);
  worker.dataflow<std::uint64_t>([&](auto& scope) {
    input.to_stream(scope) | exchange([](std::uint64_t x) { return x * 2654435761u; }) |
        inspect([index, seen, thrower, after, in_operator](std::uint64_t) {
          ++*seen;
          if (in_operator && index == thrower && *seen >= after)
            throw std::runtime_error("boom from worker " + std::to_string(index));
        }) |
        probe_with(probe);
  });
  for (std::uint64_t round = 0; round < total; ++round) {
    if (!in_operator && index == thrower && round >= after)
      throw std::runtime_error("boom from worker " + std::to_string(index));
    for (std::uint64_t i = 0; i < 100; ++i) input.send(round * 1000 + index * 100 + i);
    input.advance_to(round + 1);
    while (probe.less_than(input.time())) worker.step();
    if (round % 10 == 0) say("worker " + std::to_string(index) + " round " + std::to_string(round));
    if (total > 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  say("worker " + std::to_string(index) + " done, received " + std::to_string(*seen));
}

void shape_type(timely::Worker& worker, std::size_t odd) {
  const auto index = worker.index();
  timely::dataflow::ProbeHandle<std::uint64_t> probe;
  if (index == odd) {
    timely::dataflow::InputHandle<std::uint64_t, std::string> input;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::string& s) { return s.size(); }) | probe_with(probe);
    });
    for (std::uint64_t round = 0; round < 20; ++round) {
      for (int i = 0; i < 10; ++i) input.send(std::string(static_cast<std::size_t>(i) + 1, 'x'));
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
  } else {
    timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      input.to_stream(scope) | exchange([](std::uint64_t x) { return x; }) | probe_with(probe);
    });
    for (std::uint64_t round = 0; round < 20; ++round) {
      for (std::uint64_t i = 0; i < 10; ++i) input.send(i);
      input.advance_to(round + 1);
      while (probe.less_than(input.time())) worker.step();
    }
  }
  say("worker " + std::to_string(index) + " done");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    auto config = timely::Config::from_args(argc, argv);
    const auto& args = config.positional;
    if (args.empty()) throw timely::ConfigError("net_fail: expected a mode");
    const std::string mode = args[0];
    const auto arg = [&](std::size_t i) {
      if (args.size() <= i) throw timely::ConfigError("net_fail: mode " + mode + " needs more arguments");
      return parse(args[i]);
    };
    if (mode == "run") {
      const auto total = arg(1);
      timely::execute(config, [&](timely::Worker& w) { rounds(w, total, ~std::size_t{0}, 0, true); });
    } else if (mode == "throw" || mode == "throw-driver") {
      const auto k = arg(1);
      const auto after = arg(2);
      timely::execute(config, [&](timely::Worker& w) { rounds(w, 1'000'000, k, after, mode == "throw"); });
    } else if (mode == "shape-type") {
      const auto k = arg(1);
      timely::execute(config, [&](timely::Worker& w) { shape_type(w, k); });
    } else {
      throw timely::ConfigError("net_fail: unknown mode " + mode);
    }
    return 0;
  } catch (const timely::HelpRequested& help) {
    std::printf("%s", help.what());
    return 0;
  } catch (const timely::ConfigError& e) {
    std::fprintf(stderr, "net_fail: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "net_fail: error: %s\n", e.what());
    return 1;
  }
}
