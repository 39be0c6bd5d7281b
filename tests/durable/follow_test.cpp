// Readers that follow a partition's tail (timely/durable/reader.hpp) in this process: woken by
// appends without polling (the poll interval is set to an hour, so a missed wake-up fails the
// test by its timeout), on the simulated file system (the shared condition variable) and on
// the POSIX one; a reader that does not wait but has a callback called (`on_append`); many
// readers at once with a writer that rolls and deletes segments (the tsan pass runs these); a
// reader waiting at a torn batch left by a crashed writer.
#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "durable/support.hpp"
#include "support/catch.hpp"

using namespace timely::durable;
using namespace durable_test;
using namespace std::chrono_literals;

namespace {

ReaderOptions no_polling() {
  ReaderOptions o;
  o.poll_interval = std::chrono::hours(1);
  return o;
}

// Appends the deterministic records [0, count) one batch of 1 to 3 at a time, pausing between.
void write_slowly(Log& log, std::uint64_t count, WriterOptions options, std::chrono::microseconds pause) {
  Writer writer = log.writer("s", 0, options);
  std::uint64_t next = 0;
  while (next < count) {
    const std::uint64_t n = std::min<std::uint64_t>(count - next, 1 + next % 3);
    append(writer, deterministic(next, next + n));
    next += n;
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
}

// Follows the partition until it has read `count` records, checking each. Returns what went
// wrong, or nothing; waits of 20 s without a batch are a failure. (No Catch2 assertion here:
// readers run in threads, and Catch2's assertions are for the test's own thread.)
std::string follow(Reader& reader, std::uint64_t count) {
  try {
    std::uint64_t next = reader.position();
    while (next < count) {
      auto batch = reader.next_batch(20s);
      if (!batch) return "no batch within 20 s at offset " + std::to_string(next);
      if (batch->base_offset() != next) return "a batch at offset " + std::to_string(batch->base_offset());
      for (auto record : *batch) {
        if (record.text() != payload(next) || record.timestamp != timestamp_of(next))
          return "record " + std::to_string(next) + " differs";
        ++next;
      }
    }
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("a waiting reader is woken by an append in this process", "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  auto posix = posix_file_system();
  TempDir dir("follow");
  const bool simulated = GENERATE(true, false);
  INFO((simulated ? "simulated" : "POSIX") << " file system");
  Log log(simulated ? std::filesystem::path("/log") : dir.path(),
          {simulated ? std::shared_ptr<FileSystem>(fs) : posix});
  log.create_stream("s", 1);
  Reader reader = log.reader("s", 0, Start::end(), no_polling());
  const auto before = std::chrono::steady_clock::now();
  CHECK_FALSE(reader.wait(30ms));  // nothing: the wait times out
  CHECK(std::chrono::steady_clock::now() - before >= 30ms);
  WriterOptions options;
  options.segment_bytes = 4096;
  std::string written;
  std::thread writer([&] {
    try {
      write_slowly(log, 300, options, 300us);
    } catch (const std::exception& e) {
      written = e.what();
    }
  });
  const std::string failure = follow(reader, 300);
  writer.join();
  CHECK(written == "");
  CHECK(failure == "");
  CHECK_FALSE(reader.next_batch());
}

TEST_CASE("a reader's on_append callback is called by appends in this process, until removed",
          "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  TempDir dir("wake");
  const bool simulated = GENERATE(true, false);
  INFO((simulated ? "simulated" : "POSIX") << " file system");
  Log log(simulated ? std::filesystem::path("/log") : dir.path(),
          {simulated ? std::shared_ptr<FileSystem>(fs) : posix_file_system()});
  log.create_stream("s", 1);
  // A consumer that never blocks in the reader: it sleeps on its own condition variable, which
  // only the callback signals, and reads whatever is readable when woken (no polling: a missed
  // wake-up fails the test by its 20 s timeout).
  std::mutex mutex;
  std::condition_variable woken;
  std::uint64_t calls = 0;
  std::optional<Reader> reader(log.reader("s", 0, Start::beginning(), no_polling()));
  reader->on_append([&] {
    {
      const std::lock_guard lock(mutex);
      ++calls;
    }
    woken.notify_one();
  });
  if (!simulated) CHECK(reader->watched() == (posix_file_system()->watch(dir.path() / "s" / "0") != nullptr));
  const std::uint64_t count = 300;
  WriterOptions options;
  options.segment_bytes = 4096;
  std::string written;
  std::thread writer([&] {
    try {
      write_slowly(log, count, options, 300us);
    } catch (const std::exception& e) {
      written = e.what();
    }
  });
  std::uint64_t next = 0, seen_calls = 0;
  std::string failure;
  while (next < count && failure.empty()) {
    while (auto batch = reader->next_batch()) {
      for (auto record : *batch) {
        if (record.text() != payload(next)) failure = "record " + std::to_string(next) + " differs";
        ++next;
      }
    }
    if (next == count) break;
    std::unique_lock lock(mutex);
    if (!woken.wait_for(lock, 20s, [&] { return calls != seen_calls; }))
      failure = "no wake-up within 20 s at offset " + std::to_string(next);
    seen_calls = calls;
  }
  writer.join();
  CHECK(written == "");
  CHECK(failure == "");
  CHECK(next == count);
  // Removed: appends no longer call it (nor after the reader is gone, below).
  reader->on_append({});
  const std::uint64_t before = [&] {
    const std::lock_guard lock(mutex);
    return calls;
  }();
  {
    Writer more = log.writer("s", 0);
    append(more, deterministic(count, count + 5));
    CHECK(reader->next_batch());
    reader->on_append([&] {
      const std::lock_guard lock(mutex);
      ++calls;
    });
    reader.reset();
    append(more, deterministic(count + 5, count + 10));
  }
  const std::lock_guard lock(mutex);
  CHECK(calls == before);
}

TEST_CASE("many readers follow a writer that rolls segments", "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  TempDir dir("many");
  const bool simulated = GENERATE(true, false);
  INFO((simulated ? "simulated" : "POSIX") << " file system");
  Log log(simulated ? std::filesystem::path("/log") : dir.path(),
          {simulated ? std::shared_ptr<FileSystem>(fs) : posix_file_system()});
  log.create_stream("s", 1);
  const std::uint64_t count = 2000;
  std::vector<std::thread> readers;
  std::vector<std::string> failures(4);
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      ReaderOptions o = no_polling();
      o.read_bytes = 4096 << r;
      try {
        Reader reader = log.reader("s", 0, Start::beginning(), o);
        failures[static_cast<std::size_t>(r)] = follow(reader, count);
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(r)] = e.what();
      }
    });
  }
  WriterOptions options;
  options.segment_bytes = 8192;
  options.index_interval_bytes = 512;
  write_slowly(log, count, options, 0us);
  for (auto& t : readers) t.join();
  for (const auto& f : failures) CHECK(f == "");
}

TEST_CASE("readers behind retention move on to the first offset while the writer deletes segments",
          "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  log.create_stream("s", 1);
  const std::uint64_t count = 3000;
  std::vector<std::thread> readers;
  std::vector<std::string> failures(3);
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      std::string& failure = failures[static_cast<std::size_t>(r)];
      std::mt19937 rng(static_cast<unsigned>(r));
      try {
        ReaderOptions o = no_polling();
        o.on_deleted = ReaderOptions::Deleted::skip_to_first;
        Reader reader = log.reader("s", 0, Start::beginning(), o);
        std::uint64_t next = 0;  // offsets rise; every record read is the right one
        while (next < count) {
          auto batch = reader.next_batch(20s);
          if (!batch) return void(failure = "no batch within 20 s at offset " + std::to_string(next));
          std::uint64_t offset = batch->base_offset();
          if (offset < next)
            return void(failure = "offset " + std::to_string(offset) + " after " + std::to_string(next));
          for (auto record : *batch)
            if (record.text() != payload(offset++))
              return void(failure = "record " + std::to_string(offset - 1));
          next = offset;
          if (rng() % 8 == 0) std::this_thread::sleep_for(100us);  // fall behind now and then
        }
        if (reader.position() != count) failure = "ended at " + std::to_string(reader.position());
      } catch (const std::exception& e) {
        failure = e.what();
      }
    });
  }
  WriterOptions options;
  options.segment_bytes = 4096;
  options.retention.max_bytes = 3 * 4096;
  write_slowly(log, count, options, 0us);
  for (auto& t : readers) t.join();
  for (const auto& f : failures) CHECK(f == "");
}

TEST_CASE("a reader waits at a torn batch until a new writer cuts it and appends", "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  std::optional<Writer> writer(log.writer("s", 0));
  append(*writer, deterministic(0, 3));
  Reader reader = log.reader("s", 0, Start::beginning(), no_polling());
  REQUIRE(follow(reader, 3) == "");
  // The writer stops in the middle of a batch: 100 of its bytes reach the file, and it cannot
  // take them back. (The simulated file system's process crash would close the reader's file
  // too; this writer's end leaves the reader be, as another process's death would.)
  fs->inject({.operation = SimulatedFileSystem::Operation::write,
              .error = EIO,
              .path_contains = ".log",
              .partial_bytes = 100});
  fs->inject({.operation = SimulatedFileSystem::Operation::truncate, .error = EIO, .persistent = true});
  CHECK_THROWS_AS(append(*writer, {{0, std::string(500, 'x')}}), IoError);
  fs->clear_faults();
  writer.reset();
  CHECK_FALSE(reader.wait(20ms));  // a torn batch is not damage to a follower: it waits
  std::string written;
  std::thread next([&] {
    try {
      std::this_thread::sleep_for(20ms);
      Writer w = log.writer("s", 0);
      if (w.recovery().cut) append(w, deterministic(3, 6));  // else the reader times out: a failure
    } catch (const std::exception& e) {
      written = e.what();
    }
  });
  const std::string failure = follow(reader, 6);
  next.join();
  CHECK(written == "");
  CHECK(failure == "");
}

TEST_CASE("a wait with the largest timeout waits for an append instead of overflowing its deadline",
          "[durable][follow]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  TempDir dir("forever");
  const bool simulated = GENERATE(true, false);
  INFO((simulated ? "simulated" : "POSIX") << " file system");
  Log log(simulated ? std::filesystem::path("/log") : dir.path(),
          {simulated ? std::shared_ptr<FileSystem>(fs) : posix_file_system()});
  log.create_stream("s", 1);
  Reader reader = log.reader("s", 0, Start::end(), no_polling());
  const bool batch = GENERATE(false, true);  // wait, or next_batch(timeout)
  INFO((batch ? "next_batch" : "wait"));
  std::string written;
  std::thread writer([&] {
    try {
      std::this_thread::sleep_for(100ms);
      write_slowly(log, 1, WriterOptions{}, 0us);
    } catch (const std::exception& e) {
      written = e.what();
    }
  });
  const auto before = std::chrono::steady_clock::now();
  if (batch) {
    const auto view = reader.next_batch(std::chrono::milliseconds::max());
    CHECK(view);  // (no REQUIRE: the writer thread is joined below)
    if (view) CHECK(view->base_offset() == 0);
  } else {
    CHECK(reader.wait(std::chrono::milliseconds::max()));
  }
  CHECK(std::chrono::steady_clock::now() - before >= 50ms);
  writer.join();
  CHECK(written == "");
}
