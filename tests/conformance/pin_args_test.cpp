// The --pin worker argument (Config::from_args, communication/pinning.hpp): the flag and its list,
// each malformed list named, a positional argument after a bare --pin left to the program; and
// execute with --pin running every worker on a CPU of its own, read back on the worker thread.
#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include <timely/communication/pinning.hpp>
#include <timely/execute.hpp>

#include "support/catch.hpp"

using timely::Config;
using timely::ConfigError;
using timely::communication::Environment;
using Mode = timely::communication::Pinning::Mode;
using Cpus = std::vector<unsigned>;

namespace {

Config parse(std::initializer_list<const char*> args) {
  std::vector<const char*> argv{"program"};
  argv.insert(argv.end(), args.begin(), args.end());
  return Config::from_args(static_cast<int>(argv.size()), argv.data(), Environment{});
}

std::vector<std::string> args_of(const std::vector<std::string>& words) { return words; }

}  // namespace

TEST_CASE("the pin flag is --pin, with an optional list after '='", "[conformance][pin]") {
  CHECK(parse({}).pin.mode == Mode::Off);
  CHECK(parse({"--pin"}).pin.mode == Mode::Cores);
  const auto listed = parse({"--pin=3,0-1", "-w", "2"});
  CHECK(listed.pin.mode == Mode::List);
  CHECK(listed.pin.cpus == Cpus{3, 0, 1});
  CHECK(listed.communication_config().pin.cpus == Cpus{3, 0, 1});
  // A bare --pin does not take the next word: it stays the program's.
  const auto bare = parse({"--pin", "5", "input.txt"});
  CHECK(bare.pin.mode == Mode::Cores);
  CHECK(bare.positional == args_of({"5", "input.txt"}));
  CHECK(Config::usage("program").find("--pin") != std::string::npos);
}

TEST_CASE("a malformed --pin list is an error naming it", "[conformance][pin]") {
  CHECK_THROWS_WITH(parse({"--pin="}), Catch::Contains("--pin= gives an empty CPU list"));
  CHECK_THROWS_AS(parse({"--pin=x"}), ConfigError);
  CHECK_THROWS_WITH(parse({"--pin=0,x"}),
                    Catch::Contains("bad CPU list '0,x' (--pin)") && Catch::Contains("'x'"));
  CHECK_THROWS_WITH(parse({"--pin=4-2"}), Catch::Contains("'4-2' ends below its start"));
  CHECK_THROWS_WITH(parse({"--pin=1,0-3"}), Catch::Contains("CPU 1 is given twice"));
  CHECK_THROWS_WITH(parse({"--pin=99999"}), Catch::Contains("'99999'"));
}

TEST_CASE("execute with --pin runs each worker on a CPU of its own and reports it", "[conformance][pin]") {
  const auto allowed = timely::communication::current_thread_cpus();
  const auto workers = std::to_string(std::min<std::size_t>(2, allowed.size()));
  auto config = parse({"--pin", "-w", workers.c_str(), "-r"});
  REQUIRE(config.network.report);  // -r: what it writes to standard error is captured here instead
  std::vector<std::string> reports;
  config.network.report = [&](const std::string& line) { reports.push_back(line); };
  const auto seen =
      timely::execute(config, [](timely::Worker&) { return timely::communication::current_thread_cpus(); });
  std::set<unsigned> distinct;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    INFO("worker " << i);
    REQUIRE(seen[i].size() == 1);
    CHECK(std::binary_search(allowed.begin(), allowed.end(), seen[i].front()));
    distinct.insert(seen[i].front());
    CHECK(std::any_of(reports.begin(), reports.end(), [&](const std::string& line) {
      return line.starts_with("pin: worker " + std::to_string(i) + " on CPU " +
                              std::to_string(seen[i].front()) + " (core ");
    }));
  }
  CHECK(distinct.size() == seen.size());
  // More workers than this process may run on: refused before any worker starts, naming both.
  const auto too_many = std::to_string(allowed.size() + 1);
  CHECK_THROWS_WITH(
      timely::execute(parse({"--pin", "-w", too_many.c_str()}), [](timely::Worker&) {}),
      Catch::Contains(too_many + " workers in this process, but only " + std::to_string(allowed.size())));
  // A listed CPU this process may not run on (4095 is not among this machine's), named.
  REQUIRE(!std::binary_search(allowed.begin(), allowed.end(), 4095u));
  CHECK_THROWS_WITH(timely::execute(parse({"--pin=4095"}), [](timely::Worker&) {}),
                    Catch::Contains("CPU 4095 is not one this process may run on"));
}
