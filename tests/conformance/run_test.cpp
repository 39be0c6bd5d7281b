// timely::run, the whole-program entry point: its exit statuses (0 after a computation and after
// --help, 2 for bad arguments, 1 for failures) and what it prints where (the usage text on
// standard output, one "PROGRAM: MESSAGE" line on standard error), read back from the file
// descriptors it wrote to.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <timely/dataflow/error.hpp>
#include <timely/error.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"

namespace {

struct Outcome {
  int status = -1;
  std::string out;
  std::string err;
};

std::string read_all(std::FILE* file) {
  std::string text;
  std::rewind(file);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  std::fclose(file);
  return text;
}

// Runs timely::run with `args` after a program name that has a directory in it, with file
// descriptors 1 and 2 sent to temporary files for the call.
template <class F>
Outcome run_captured(std::vector<const char*> args, F closure) {
  std::vector<const char*> argv{"/some/where/run_test_program"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(out != nullptr);
  REQUIRE(err != nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = ::dup(1), saved_err = ::dup(2);
  ::dup2(::fileno(out), 1);
  ::dup2(::fileno(err), 2);
  Outcome outcome;
  outcome.status = timely::run(static_cast<int>(argv.size()), argv.data(), closure);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  outcome.out = read_all(out);
  outcome.err = read_all(err);
  return outcome;
}

}  // namespace

TEST_CASE("run returns 0 after the computation and prints nothing", "[conformance][run]") {
  std::atomic<int> calls{0};
  const auto outcome = run_captured({"-w", "3"}, [&](timely::Worker&) { ++calls; });
  CHECK(outcome.status == 0);
  CHECK(calls == 3);
  CHECK(outcome.out.empty());
  CHECK(outcome.err.empty());
}

TEST_CASE("run prints the usage text for --help and returns 0", "[conformance][run]") {
  std::atomic<int> calls{0};
  const auto outcome = run_captured({"--help"}, [&](timely::Worker&) { ++calls; });
  CHECK(outcome.status == 0);
  CHECK(calls == 0);
  CHECK_THAT(outcome.out, Catch::Contains("--workers") && Catch::Contains("--hostfile"));
  CHECK(outcome.err.empty());
}

TEST_CASE("run names a bad flag on standard error and returns 2", "[conformance][run]") {
  std::atomic<int> calls{0};
  const auto count = [&](timely::Worker&) { ++calls; };
  auto outcome = run_captured({"-w", "2", "--bogus"}, count);
  CHECK(outcome.status == 2);
  CHECK(outcome.out.empty());
  CHECK_THAT(outcome.err, Catch::StartsWith("run_test_program: timely: bad worker arguments") &&
                              Catch::Contains("--bogus") && Catch::EndsWith("\n"));
  CHECK(std::count(outcome.err.begin(), outcome.err.end(), '\n') == 1);

  outcome = run_captured({"-w", "abc"}, count);
  CHECK(outcome.status == 2);
  CHECK_THAT(outcome.err, Catch::Contains("abc"));

  // A closure that cannot take the program's own arguments: they are an error, not ignored.
  outcome = run_captured({"extra", "-w", "2"}, count);
  CHECK(outcome.status == 2);
  CHECK_THAT(outcome.err, Catch::Contains("unexpected argument 'extra'"));
  CHECK(calls == 0);
}

TEST_CASE("run hands the configuration to a closure that takes it", "[conformance][run]") {
  std::vector<std::vector<std::string>> seen(2);
  std::atomic<std::size_t> workers{0};
  const auto outcome =
      run_captured({"first", "-w", "2", "second"}, [&](timely::Worker& worker, const timely::Config& config) {
        seen[worker.index()] = config.positional;  // the program's own arguments
        workers = config.workers;
        return worker.index();  // results are dropped
      });
  CHECK(outcome.status == 0);
  CHECK(outcome.err.empty());
  CHECK(workers == 2);
  for (const auto& args : seen) CHECK(args == std::vector<std::string>{"first", "second"});
}

TEST_CASE("run returns 1 and prints the error when a worker throws", "[conformance][run]") {
  auto outcome = run_captured({"-w", "2"}, [](timely::Worker& worker) {
    if (worker.index() == 1) throw std::runtime_error("worker one gave up");
  });
  CHECK(outcome.status == 1);
  CHECK(outcome.out.empty());
  CHECK(outcome.err == "run_test_program: worker one gave up\n");

  // A library error raised in a worker (not an argument error) is a failure too.
  outcome =
      run_captured({}, [](timely::Worker&) { throw timely::CapabilityError("no capability at time 3"); });
  CHECK(outcome.status == 1);
  CHECK_THAT(outcome.err, Catch::Contains("no capability at time 3"));

  outcome = run_captured({}, [](timely::Worker&) { throw 42; });
  CHECK(outcome.status == 1);
  CHECK_THAT(outcome.err, Catch::StartsWith("run_test_program: ") && Catch::Contains("not a std::exception"));
}
