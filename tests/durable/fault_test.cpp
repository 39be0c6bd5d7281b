// The durability policies' promises under simulated faults (timely/durable/simulated_file_system.hpp),
// checked against a model: the list of acknowledged records. Randomized with fixed seeds,
// printed: appends, failed writes and syncs (ENOSPC, EIO, short writes), failed opens and
// directory syncs, rolls, power losses that keep only what was synced or random parts of the
// rest, and process crashes. After every reopening: every acknowledged record is intact, at
// most one batch whose append failed follows them, verification finds nothing after the last
// valid batch, and appends continue.
#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "durable/support.hpp"
#include "support/catch.hpp"

using namespace timely::durable;
using namespace durable_test;
using Op = SimulatedFileSystem::Operation;

namespace {

// An I/O error must name the partition and carry the system's text of its errno.
void check_named(const IoError& e) {
  CHECK(e.partition() == "s/0");
  CHECK_THAT(std::string(e.what()),
             Catch::Contains("partition s/0") && Catch::Contains(std::strerror(e.error_number())));
}

std::vector<Stored> random_batch(std::mt19937_64& rng, std::uint64_t salt) {
  std::vector<Stored> batch;
  const std::size_t n = 1 + rng() % 4;
  for (std::size_t i = 0; i < n; ++i)
    batch.push_back({static_cast<std::int64_t>(rng() % 100000), payload(rng(), salt)});
  return batch;
}

std::size_t encoded_size(const std::vector<Stored>& batch) {
  std::vector<RecordView> views;
  for (const auto& r : batch) views.push_back({r.timestamp, bytes_of(r.bytes)});
  return encoded_batch_size(views);
}

// The partition read back whole; nothing may be damaged.
std::vector<Stored> contents(Log& log) {
  Reader reader = log.reader("s", 0, Start::beginning());
  std::vector<Stored> out;
  for (auto& [offset, record] : read_all(reader)) {
    REQUIRE(offset == out.size());
    out.push_back(std::move(record));
  }
  return out;
}

// The model: the acknowledged records, and the batches whose appends failed since the last
// acknowledgment (one of which may have reached the file).
struct Model {
  std::vector<Stored> acknowledged;
  std::vector<std::vector<Stored>> failed;

  // Checks the partition against the model after a reopening and adopts a failed batch found.
  void check(Log& log, const Writer& writer) {
    const auto got = contents(log);
    REQUIRE(got.size() >= acknowledged.size());
    for (std::size_t i = 0; i < acknowledged.size(); ++i) {
      INFO("offset " << i);
      REQUIRE(got[i] == acknowledged[i]);
    }
    if (got.size() > acknowledged.size()) {
      const std::vector<Stored> extra(got.begin() + static_cast<std::ptrdiff_t>(acknowledged.size()),
                                      got.end());
      bool known = false;
      for (const auto& batch : failed) known = known || batch == extra;
      INFO(extra.size() << " records after the acknowledged ones");
      REQUIRE(known);
      acknowledged.insert(acknowledged.end(), extra.begin(), extra.end());
    }
    failed.clear();
    CHECK(writer.end_offset() == acknowledged.size());
    const VerifyReport verified = log.verify("s", 0);
    INFO(to_string(verified));
    CHECK(verified.ok());
  }
};

SimulatedFileSystem::Fault random_fault(std::mt19937_64& rng) {
  static const Op ops[] = {Op::write,    Op::write, Op::sync,          Op::sync,
                           Op::truncate, Op::open,  Op::sync_directory};
  SimulatedFileSystem::Fault f;
  f.operation = ops[rng() % std::size(ops)];
  f.skip = rng() % 3;
  f.error = rng() % 2 ? ENOSPC : EIO;
  f.partial_bytes = rng() % 200;
  if (f.operation == Op::write && rng() % 2) f.path_contains = ".log";
  return f;
}

}  // namespace

TEST_CASE("every_batch: under faults, power losses and crashes every acknowledged record survives",
          "[durable][faults]") {
  const std::uint64_t seeds = 60;
  std::printf("durable faults: every_batch model, seeds 1 to %llu\n", static_cast<unsigned long long>(seeds));
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto fs = std::make_shared<SimulatedFileSystem>();
    Log log("/log", {fs});
    WriterOptions options;
    options.segment_bytes = 4096 + rng() % 8192;
    options.index_interval_bytes = static_cast<std::uint32_t>(64 + rng() % 512);
    Model model;
    std::optional<Writer> writer(log.writer("s", 0, options));

    auto reopen = [&] {
      writer.reset();
      // Sometimes the reopening itself meets a fault: it fails, naming it, and the next works.
      if (rng() % 4 == 0) {
        fs->inject(random_fault(rng));
        try {
          writer.emplace(log.writer("s", 0, options));
        } catch (const IoError& e) {
          check_named(e);
        }
        fs->clear_faults();
        writer.reset();
        fs->crash_process();  // what the failed recovery held is released
      }
      writer.emplace(log.writer("s", 0, options));
      model.check(log, *writer);
    };

    for (int step = 0; step < 150; ++step) {
      const auto choice = rng() % 100;
      if (choice < 60) {
        auto batch = random_batch(rng, seed);
        try {
          const std::uint64_t base = append(*writer, batch);
          REQUIRE(base == model.acknowledged.size());
          model.acknowledged.insert(model.acknowledged.end(), batch.begin(), batch.end());
          model.failed.clear();
        } catch (const IoError& e) {
          check_named(e);
          model.failed.push_back(std::move(batch));
        }
      } else if (choice < 72) {
        fs->inject(random_fault(rng));
      } else if (choice < 80) {
        fs->clear_faults();
        if (rng() % 2) {
          fs->crash();
        } else {
          fs->crash(rng());
        }
        reopen();
      } else if (choice < 85) {
        fs->clear_faults();
        fs->crash_process();
        reopen();
      } else if (choice < 90) {
        try {
          writer->close();
        } catch (const IoError& e) {
          check_named(e);
        }
        fs->clear_faults();
        reopen();
      } else if (choice < 95) {
        try {
          writer->roll();
        } catch (const IoError& e) {
          check_named(e);
        }
      } else {
        fs->clear_faults();
        const auto got = contents(log);
        REQUIRE(got.size() >= model.acknowledged.size());
        for (std::size_t i = 0; i < model.acknowledged.size(); ++i) REQUIRE(got[i] == model.acknowledged[i]);
      }
    }
    fs->clear_faults();
    fs->crash();
    reopen();
    append(*writer, {{1, "after"}});
    model.acknowledged.push_back({1, "after"});
    CHECK(contents(log) == model.acknowledged);
  }
}

TEST_CASE("a batch torn at any byte is cut, and the records before it survive", "[durable][faults]") {
  std::vector<Stored> first = deterministic(0, 5);
  const std::vector<Stored> torn = deterministic(5, 9);
  const std::size_t size = encoded_size(torn);
  for (std::size_t keep = 0; keep < size; ++keep) {
    INFO("torn after " << keep << " of " << size << " bytes");
    auto fs = std::make_shared<SimulatedFileSystem>();
    Log log("/log", {fs});
    std::optional<Writer> writer(log.writer("s", 0));
    append(*writer, first);
    // The write stores `keep` bytes and fails, and taking them back fails too: the process
    // dies with them in the file.
    fs->inject({.operation = Op::write, .error = EIO, .path_contains = ".log", .partial_bytes = keep});
    fs->inject({.operation = Op::truncate, .error = EIO, .persistent = true});
    CHECK_THROWS_AS(append(*writer, torn), IoError);
    fs->clear_faults();
    fs->crash_process();
    writer.reset();
    writer.emplace(log.writer("s", 0));
    const auto& report = writer->recovery();
    if (keep == 0) {
      CHECK_FALSE(report.cut);
    } else {
      REQUIRE(report.cut);
      CHECK(report.cut->bytes == keep);
      CHECK(report.cut->records == (keep >= kBatchHeaderSize ? torn.size() : 0));
    }
    CHECK(contents(log) == first);
    CHECK(append(*writer, torn) == 5);
  }
}

TEST_CASE("periodic by bytes: a power loss loses less than the byte bound", "[durable][faults]") {
  const std::uint64_t seed = 11;
  std::printf("durable faults: periodic by bytes, seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 30; ++round) {
    auto fs = std::make_shared<SimulatedFileSystem>();
    Log log("/log", {fs});
    WriterOptions options;
    options.durability = Durability::periodic(std::chrono::milliseconds(0), 2000);
    std::vector<std::vector<Stored>> batches;
    {
      Writer writer = log.writer("s", 0, options);
      const int n = 1 + static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) {
        batches.push_back(random_batch(rng, 0));
        append(writer, batches.back());
      }
      fs->crash();  // before the writer's close could sync
    }
    Writer writer = log.writer("s", 0, options);
    const auto got = contents(log);
    std::vector<Stored> all;
    std::size_t kept = 0;
    std::size_t lost_bytes = 0;
    for (const auto& b : batches) {
      if (all.size() + b.size() <= got.size()) {
        kept += b.size();
      } else {
        lost_bytes += encoded_size(b);
      }
      all.insert(all.end(), b.begin(), b.end());
    }
    INFO("round " << round);
    REQUIRE(got.size() == kept);  // whole batches, a prefix
    for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == all[i]);
    CHECK(lost_bytes < 2000);
  }
}

TEST_CASE("periodic by time: the sync thread syncs within the interval", "[durable][faults]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  WriterOptions options;
  options.durability = Durability::periodic(std::chrono::milliseconds(20), 0);
  Writer writer = log.writer("s", 0, options);
  const auto before = fs->calls(Op::sync);
  append(writer, deterministic(0, 10));
  CHECK(fs->calls(Op::sync) == before);  // acknowledged before any sync
  // The sync thread must sync on its own; waiting up to 10 s bounds a broken thread, not speed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (fs->calls(Op::sync) == before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(fs->calls(Op::sync) > before);
  fs->crash();
  Writer again = log.writer("s", 1);  // the crash released the lock of s/0 too
  CHECK(contents(log) == deterministic(0, 10));
  // A failed background sync stops the writer: its next call throws what failed.
  writer = log.writer("s", 0, options);
  fs->inject({.operation = Op::sync, .error = EIO, .persistent = true});
  append(writer, deterministic(10, 11));
  const auto deadline2 = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool failed = false;
  while (!failed && std::chrono::steady_clock::now() < deadline2) {
    try {
      append(writer, deterministic(11, 12));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    } catch (const IoError& e) {
      check_named(e);
      CHECK_THAT(std::string(e.what()), Catch::Contains("fdatasync"));
      failed = true;
    }
  }
  CHECK(failed);
  fs->clear_faults();
}

TEST_CASE("periodic: a failed background sync is thrown by close(), and by the next append and sync",
          "[durable][faults]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  WriterOptions options;
  options.durability = Durability::periodic(std::chrono::milliseconds(5), 0);
  // Appends record `o` and waits until the sync thread has tried to sync it and failed (the
  // thread holds the writer's lock from its fdatasync until it has recorded the failure, so a
  // call made after the attempt is counted sees the failure). Waiting up to 10 s bounds a
  // broken thread, not speed.
  auto fail_in_background = [&](Writer& writer, std::uint64_t o) {
    fs->inject({.operation = Op::sync, .error = EIO, .path_contains = ".log", .persistent = true});
    const auto before = fs->calls(Op::sync);
    append(writer, deterministic(o, o + 1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (fs->calls(Op::sync) == before && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(fs->calls(Op::sync) > before);
  };
  auto check_sync_failure = [](const IoError& e) {
    check_named(e);
    CHECK(e.error_number() == EIO);
    CHECK_THAT(std::string(e.what()), Catch::Contains("fdatasync"));
  };

  SECTION("close() throws it, once") {
    Writer writer = log.writer("s", 0, options);
    fail_in_background(writer, 0);
    try {
      writer.close();
      FAIL("close() reported success after a failed background sync");
    } catch (const IoError& e) {
      check_sync_failure(e);
    }
    writer.close();  // closed: nothing more to say
  }
  SECTION("the next append and sync throw it, and so does close()") {
    Writer writer = log.writer("s", 0, options);
    fail_in_background(writer, 0);
    CHECK_THROWS_AS(append(writer, deterministic(1, 2)), IoError);
    try {
      writer.sync();
      FAIL("sync() reported success after a failed background sync");
    } catch (const IoError& e) {
      check_sync_failure(e);
    }
    CHECK_THROWS_AS(writer.close(), IoError);
  }
  SECTION("the destructor does not throw it") {
    {
      Writer writer = log.writer("s", 0, options);
      fail_in_background(writer, 0);
    }  // a throwing destructor would end the test run here
    SUCCEED("the writer was destroyed");
  }
  // Reopening reads back what reached the file: the record whose sync failed is there (the
  // simulated file system keeps the failed pages), and appends continue after it.
  fs->clear_faults();
  Writer writer = log.writer("s", 0, options);
  CHECK(contents(log) == deterministic(0, 1));
  CHECK(append(writer, deterministic(1, 2)) == 1);
  writer.close();
}

TEST_CASE("readers see batches before they are durable, and with Visibility::durable only what was synced",
          "[durable][faults]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  log.create_stream("s", 1);
  ReaderOptions durable_only;
  durable_only.visibility = ReaderOptions::Visibility::durable;
  // Without the partition's writer in this process the durable end is not known.
  CHECK_THROWS_AS(log.reader("s", 0, Start::beginning(), durable_only), ArgumentError);

  SECTION("every_batch: a batch whose sync failed is read, and a power loss gives its offsets to others") {
    Writer writer = log.writer("s", 0);
    Reader all = log.reader("s", 0, Start::beginning());
    Reader durable = log.reader("s", 0, Start::beginning(), durable_only);
    append(writer, deterministic(0, 2));
    fs->inject({.operation = Op::sync, .error = EIO, .path_contains = ".log"});
    CHECK_THROWS_AS(append(writer, deterministic(2, 4)), IoError);  // not acknowledged
    CHECK(read_all(all).size() == 4);                               // but read
    CHECK(read_all(durable).size() == 2);
    CHECK_FALSE(durable.wait(std::chrono::milliseconds(20)));
    CHECK(durable.position() == 2);
    fs->crash();  // the power fails: the unsynced batch is lost
    Writer again = log.writer("s", 0);
    CHECK(again.end_offset() == 2);
    const auto other = deterministic(2, 3, 1);
    CHECK(append(again, other) == 2);  // offset 2 is now another record than `all` read
    Reader after = log.reader("s", 0, Start::at_offset(2), durable_only);
    const auto got = read_all(after);
    REQUIRE(got.size() == 1);
    CHECK(got[0].second == other[0]);
  }
  SECTION("os: the durable end moves with sync(), rolls and close()") {
    WriterOptions options;
    options.durability = Durability::os();
    options.segment_bytes = 4096;
    Writer writer = log.writer("s", 0, options);
    Reader durable = log.reader("s", 0, Start::beginning(), durable_only);
    append(writer, deterministic(0, 1));
    CHECK_FALSE(durable.next_batch());
    CHECK_FALSE(durable.wait(std::chrono::milliseconds(20)));
    writer.sync();
    CHECK(read_all(durable).size() == 1);
    std::uint64_t o = 1;
    for (; writer.stats().segments < 2; ++o) append(writer, deterministic(o, o + 1));
    // The roll sealed (and synced) the first segment; the batch that started the second is not
    // synced.
    CHECK(read_all(durable).size() == o - 2);
    CHECK(durable.position() == o - 1);
    writer.close();
    CHECK(read_all(durable).size() == 1);
    CHECK(durable.position() == o);
  }
  SECTION("periodic: a reader waiting for durable records is woken by the sync thread") {
    WriterOptions options;
    options.durability = Durability::periodic(std::chrono::milliseconds(20), 0);
    Writer writer = log.writer("s", 0, options);
    Reader durable = log.reader("s", 0, Start::beginning(), durable_only);
    append(writer, deterministic(0, 3));
    // Up to 10 s bounds a broken thread, not speed.
    const auto batch = durable.next_batch(std::chrono::seconds(10));
    REQUIRE(batch);
    CHECK(batch->base_offset() == 0);
    CHECK(batch->size() == 3);
  }
}

TEST_CASE("os: a process crash loses nothing, a power loss keeps the sealed segments", "[durable][faults]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  WriterOptions options;
  options.durability = Durability::os();
  options.segment_bytes = 4096;
  {
    Writer writer = log.writer("s", 0, options);
    for (std::uint64_t o = 0; o < 100; o += 2) append(writer, deterministic(o, o + 2));
    CHECK(fs->calls(Op::sync) > 0);  // rolling seals, whatever the policy
    fs->crash_process();
  }
  std::uint64_t sealed_end = 0;
  {
    Writer writer = log.writer("s", 0, options);
    CHECK(contents(log) == deterministic(0, 100));
    const auto st = writer.stats();
    for (std::uint64_t o = 100; o < 200; o += 2) append(writer, deterministic(o, o + 2));
    sealed_end = writer.stats().end_offset;
    // The end of the last sealed segment: the active one's base.
    std::uint64_t active = 0;
    for (const auto& name : fs->list("/log/s/0"))
      if (auto parsed = parse_segment_file_name(name); parsed && parsed->second == SegmentFile::log)
        active = std::max(active, parsed->first);
    sealed_end = active;
    CHECK(st.end_offset == 100);
    fs->crash();
  }
  Writer writer = log.writer("s", 0, options);
  const auto got = contents(log);
  REQUIRE(got.size() >= sealed_end);
  CHECK(std::vector<Stored>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(sealed_end)) ==
        deterministic(0, sealed_end));
  CHECK(log.verify("s", 0).ok());
}

TEST_CASE("a failed read names the partition, and the reader goes on after it", "[durable][faults]") {
  auto fs = std::make_shared<SimulatedFileSystem>();
  Log log("/log", {fs});
  Writer writer = log.writer("s", 0);
  for (std::uint64_t o = 0; o < 20; ++o) append(writer, deterministic(o, o + 1));
  Reader reader = log.reader("s", 0, Start::beginning(), {.read_bytes = 4096});
  REQUIRE(reader.next_batch());
  fs->inject({.operation = Op::read, .error = EIO});
  try {
    while (reader.next_batch()) {
    }
    FAIL("the failed read went unnoticed");
  } catch (const IoError& e) {
    check_named(e);
  }
  while (reader.next_batch()) {
  }
  CHECK(reader.position() == 20);
}
