// The durable log across processes, with durable_child (child.cpp) as the other process: a
// writer in another process holds the partition (WriterBusy names its pid); a reader here is
// woken by another process's appends through inotify (the poll interval is an hour), and so is
// a reader's `on_append` callback; and the crash loop: a child appending, reporting each
// acknowledged batch through a pipe, is SIGKILLed at random moments, and after each kill the partition is
// reopened: every acknowledged record intact, nothing after the last valid batch, appends continue. A process
// crash loses nothing that reached the kernel, so this holds under every policy: the loop runs under
// every_batch (200 kills by default, a few seconds; TIMELY_CRASH_KILLS=2000 for a longer run by hand) and,
// shorter, under periodic (50 kills; a quarter of TIMELY_CRASH_KILLS when it is set), whose
// syncs by its thread and by its byte bound the kills interrupt too. Seeds are printed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>

#include "durable/support.hpp"
#include "support/catch.hpp"

extern char** environ;

using namespace timely::durable;
using namespace durable_test;
using namespace std::chrono_literals;

namespace {

/// durable_child started with its standard input and output on pipes.
class Child {
 public:
  explicit Child(const std::vector<std::string>& args) {
    int out[2];
    int in[2];
    REQUIRE(::pipe2(out, O_CLOEXEC) == 0);
    REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    std::vector<std::string> all{TIMELY_DURABLE_CHILD};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    ::close(in[0]);
    out_ = out[0];
    in_ = in[1];
    REQUIRE(rc == 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
    if (out_ >= 0) ::close(out_);
    if (in_ >= 0) ::close(in_);
  }

  [[nodiscard]] pid_t pid() const { return pid_; }

  /// The next line of the child's output, or nothing at its end or after `timeout`.
  std::optional<std::string> line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string l = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return l;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{out_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  void close_input() {
    ::close(in_);
    in_ = -1;
  }

  void kill() { ::kill(pid_, SIGKILL); }

  /// Waits for the child to end; returns its wait status.
  int wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int in_ = -1;
  std::string buffer_;
};

}  // namespace

TEST_CASE("a writer in another process holds the partition", "[durable][process]") {
  TempDir dir("holder");
  Log log(dir.path());
  Child child({"hold", dir.path().string()});
  REQUIRE(child.line(20s) == std::optional<std::string>("ready"));
  try {
    (void)log.writer("s", 0);
    FAIL("a second writer was allowed while another process holds the partition");
  } catch (const WriterBusy& e) {
    CHECK_THAT(e.holder(), Catch::StartsWith("pid " + std::to_string(child.pid()) + " on "));
    CHECK_THAT(std::string(e.what()), Catch::Contains("partition s/0"));
  }
  child.close_input();
  const int status = child.wait();
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  Writer writer = log.writer("s", 0);  // released with the process
}

TEST_CASE("a reader is woken by another process's appends", "[durable][process]") {
  TempDir dir("wake");
  Log log(dir.path());
  log.create_stream("s", 1);
  if (!posix_file_system()->watch(dir.path())) {
    WARN("inotify is unavailable here: readers poll for other processes' appends; not tested");
    return;
  }
  ReaderOptions options;
  options.poll_interval = std::chrono::hours(1);  // only inotify can wake it in time
  Reader reader = log.reader("s", 0, Start::end(), options);
  Child child({"append", dir.path().string(), "30", "3"});
  std::uint64_t next = 0;
  while (next < 30) {
    auto batch = reader.next_batch(20s);
    REQUIRE(batch);
    for (auto record : *batch) {
      REQUIRE(record.text() == payload(next));
      ++next;
    }
  }
  const int status = child.wait();
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("a reader's on_append callback is called for another process's appends", "[durable][process]") {
  TempDir dir("wake-callback");
  Log log(dir.path());
  log.create_stream("s", 1);
  if (!posix_file_system()->watch(dir.path())) {
    WARN("inotify is unavailable here: other processes' appends are not seen as they happen; not tested");
    return;
  }
  // Declared before the reader: the watch thread may call the callback until the reader is
  // destroyed (which removes it), so what the callback touches must outlive the reader.
  std::mutex mutex;
  std::condition_variable woken;
  std::uint64_t calls = 0;
  ReaderOptions options;
  options.poll_interval = std::chrono::hours(1);
  Reader reader = log.reader("s", 0, Start::end(), options);
  reader.on_append([&] {
    {
      const std::lock_guard lock(mutex);
      ++calls;
    }
    woken.notify_one();
  });
  CHECK(reader.watched());
  // A writer in this process first (while it is open the watch's events are its own and are
  // not passed on); once it is closed, the watch wakes the reader for the other process.
  {
    Writer local = log.writer("s", 0);
    append(local, deterministic(0, 5));
    local.close();
  }
  Child child({"append", dir.path().string(), "30", "3"});
  std::uint64_t next = 0, seen_calls = 0;
  while (next < 35) {
    while (auto batch = reader.next_batch()) {
      for (auto record : *batch) {
        REQUIRE(record.text() == payload(next));
        ++next;
      }
    }
    if (next == 35) break;
    std::unique_lock lock(mutex);
    REQUIRE(woken.wait_for(lock, 20s, [&] { return calls != seen_calls; }));  // only the watch wakes it
    seen_calls = calls;
  }
  const int status = child.wait();
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

namespace {

// The crash loop under durability policy `policy` (every_batch or periodic; see
// crash_durability), `kills` kills from seed `first_seed` on.
void crash_loop(const std::string& policy, std::uint64_t kills, std::uint64_t first_seed) {
  std::printf("durable crash loop, %s: %llu kills, seeds %llu to %llu (TIMELY_CRASH_KILLS sets the count)\n",
              policy.c_str(), static_cast<unsigned long long>(kills),
              static_cast<unsigned long long>(first_seed),
              static_cast<unsigned long long>(first_seed + kills - 1));
  TempDir dir("crash-" + policy);
  const std::string segment_bytes = "65536";
  WriterOptions options;
  options.durability = crash_durability(policy);
  options.segment_bytes = std::stoull(segment_bytes);
  std::uint64_t acknowledged = 0;  // one past the last acknowledged record
  std::uint64_t checked = 0;       // the records before it were read back and checked
  std::uint64_t cuts = 0;
  std::uint64_t unacknowledged_kept = 0;
  for (std::uint64_t seed = first_seed; seed < first_seed + kills; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    {
      Child child({"crash", dir.path().string(), segment_bytes, policy});
      // A quarter of the kills land anywhere in the child's first 8 ms (starting, recovering,
      // appending); the others after its first acknowledgment, while it appends.
      std::vector<std::string> lines;
      if (rng() % 4 == 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 8000));
      } else {
        auto first = child.line(20s);
        REQUIRE(first);
        lines.push_back(*first);
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 3000));
      }
      child.kill();
      const int status = child.wait();
      REQUIRE(WIFSIGNALED(status));  // not an error exit: the child must have been killed
      while (auto l = child.line(5s)) lines.push_back(*l);
      std::uint64_t expected = acknowledged;
      for (const auto& l : lines) {
        std::istringstream in(l);
        std::uint64_t base = 0;
        std::uint64_t count = 0;
        REQUIRE((in >> base >> count));
        REQUIRE(base == expected);  // the child continues exactly where the last one stopped
        expected = base + count;
      }
      acknowledged = expected;
    }
    Log log(dir.path());
    Writer writer = log.writer("s", 0, options);
    if (writer.recovery().cut) ++cuts;
    const std::uint64_t end = writer.end_offset();
    REQUIRE(end >= acknowledged);
    unacknowledged_kept += end - acknowledged;
    // Every record from the last check on is the deterministic one, and nothing is damaged.
    Reader reader = log.reader("s", 0, Start::at_offset(checked));
    std::uint64_t next = checked;
    while (auto batch = reader.next_batch()) {
      for (auto record : *batch) {
        REQUIRE(record.text() == payload(next));
        REQUIRE(record.timestamp == timestamp_of(next));
        ++next;
      }
    }
    REQUIRE(next == end);
    checked = end;
    // Appends continue.
    REQUIRE(append(writer, deterministic(end, end + 1)) == end);
    acknowledged = end + 1;
    writer.close();
  }
  Log log(dir.path());
  const VerifyReport verified = log.verify("s", 0);
  INFO(to_string(verified));
  CHECK(verified.ok());
  CHECK(verified.records == acknowledged);
  Reader reader = log.reader("s", 0, Start::beginning());
  std::uint64_t next = 0;
  while (auto batch = reader.next_batch())
    for (auto record : *batch) REQUIRE(record.text() == payload(next++));
  CHECK(next == acknowledged);
  std::printf(
      "durable crash loop, %s: %llu records, %llu recoveries cut a torn batch, %llu unacknowledged "
      "records kept\n",
      policy.c_str(), static_cast<unsigned long long>(acknowledged), static_cast<unsigned long long>(cuts),
      static_cast<unsigned long long>(unacknowledged_kept));
}

std::optional<std::uint64_t> kills_from_environment() {
  if (const char* env = std::getenv("TIMELY_CRASH_KILLS")) return std::stoull(env);
  return std::nullopt;
}

}  // namespace

TEST_CASE("crash loop: a writer killed at random moments loses no acknowledged record",
          "[durable][process][crash]") {
  crash_loop("every_batch", kills_from_environment().value_or(200), 1);
}

TEST_CASE("crash loop under periodic: a process crash loses no acknowledged record, synced or not",
          "[durable][process][crash]") {
  const auto kills = kills_from_environment();
  crash_loop("periodic", kills ? std::max<std::uint64_t>(1, *kills / 4) : 50, 1001);
}
