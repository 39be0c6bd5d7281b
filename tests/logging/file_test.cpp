// Log files (timely/logging/file.hpp): round trips of every event kind through FileSink and
// FileReader, several streams in one file, files written by real Logger flushes, the documented
// layout, and rejection of every truncation and of a changed byte anywhere; write errors on
// /dev/full and past a file size limit. Over 600 lines because every case reads and writes the
// same small file through the helpers at the top; a split would repeat or export them.
#include <timely/logging/file.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sample_events.hpp"
#include "support/catch.hpp"

using namespace timely::logging;
using namespace std::chrono_literals;

namespace {

/// A scratch file name, removed at the end of the test.
class TempPath {
 public:
  TempPath() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("timely-logfile-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".tlog");
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  ~TempPath() { std::filesystem::remove(path_); }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::vector<unsigned char> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& path, const std::vector<unsigned char>& bytes, std::size_t n) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
}

std::uint64_t le(const std::vector<unsigned char>& bytes, std::size_t at, std::size_t width) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(bytes.at(at + i)) << (8 * i);
  return v;
}

/// The offsets of the frames of a well-formed file, walked by their length fields (as the
/// format documents them), and the file's size last.
std::vector<std::uint64_t> frame_offsets(const std::vector<unsigned char>& bytes) {
  std::vector<std::uint64_t> offsets;
  std::uint64_t at = kLogFileHeaderSize;
  while (at < bytes.size()) {
    offsets.push_back(at);
    at += kFrameHeaderSize + le(bytes, at + 4, 4);
  }
  REQUIRE(at == bytes.size());
  offsets.push_back(at);
  return offsets;
}

template <class E>
using Batch = std::vector<std::pair<Duration, E>>;

/// One batch a reader delivered: its stream, `now`, and event count.
struct Delivered {
  std::string stream;
  Duration now{0};
  std::size_t count = 0;
  bool operator==(const Delivered&) const = default;
};

using U64Frontier = FrontierEvent<std::uint64_t>;

/// A small file of two streams: binds (frames 0, 1), three batches (frames 2, 3, 4), the end
/// frame (5). \returns the batches in the order written.
std::vector<Delivered> write_small_file(const std::filesystem::path& path) {
  FileSink::Options options;
  options.process = 1;
  options.worker = 2;
  FileSink sink(path, options);
  auto timely = sink.action<TimelyEvent>("timely");
  auto frontier = sink.action<U64Frontier>("timely/frontier/u64");
  Batch<TimelyEvent> a{{1ns, ScheduleEvent{3, true}}, {2ns, TextEvent{"ab"}}};
  timely(10ns, a);
  Batch<U64Frontier> b{{15ns, U64Frontier{3, 0, true, {{0, 1}, {4, -1}}}}};
  frontier(20ns, b);
  Batch<TimelyEvent> flush;
  timely(25ns, flush);
  Batch<TimelyEvent> c{{30ns, ParkEvent{true, 7ns}}};
  timely(40ns, c);
  sink.close();
  return {{"timely", 10ns, 2}, {"timely/frontier/u64", 20ns, 1}, {"timely", 40ns, 1}};
}

/// Reads `path` with handlers for both streams of the small file, recording non-empty batches
/// in `delivered`. \returns the LogFileError's offset, or none if the read succeeded.
std::optional<std::optional<std::uint64_t>> read_small_file(const std::filesystem::path& path,
                                                            std::vector<Delivered>& delivered,
                                                            FileReader::Options options = {}) {
  try {
    FileReader reader(path, options);
    reader.on<TimelyEvent>("timely", [&](Duration now, Batch<TimelyEvent>& batch) {
      if (!batch.empty()) delivered.push_back({"timely", now, batch.size()});
    });
    reader.on<U64Frontier>("timely/frontier/u64", [&](Duration now, Batch<U64Frontier>& batch) {
      if (!batch.empty()) delivered.push_back({"timely/frontier/u64", now, batch.size()});
    });
    reader.run();
    return std::nullopt;
  } catch (const LogFileError& e) {
    CHECK(e.path() == path);
    CHECK_THAT(e.what(), Catch::Contains(path.string()));
    return e.offset();
  }
}

}  // namespace

TEST_CASE("every event kind round-trips through a file, several streams interleaved", "[logging][file]") {
  TempPath file;
  using Pair = std::pair<std::uint64_t, std::uint32_t>;
  const auto timely_events = sample_timely_events();
  const ProgressEvent<std::uint64_t> progress{
      true, 1, 4, 2, 3, {{1, 0, 5, 1}}, {{2, 1, 6, -1}, {2, 1, 7, 1}}};
  const ProgressEvent<std::uint64_t> empty_progress{};
  const TrackerEvent<Pair> tracker{true, 3, {{1, 0, {2, 1}, 1}}};
  const OperatesSummaryEvent<std::uint64_t> summary{4, {{{0, {1}}}, {}}};
  const FrontierEvent<Duration> frontier{4, 0, true, {{5ms, 1}, {0ns, -1}}};
  const std::string text(100000, 'y');

  const auto before = std::chrono::system_clock::now();
  {
    FileSink::Options options;
    options.process = 3;
    options.worker = 5;
    FileSink sink(file.path(), options);
    auto a_timely = sink.action<TimelyEvent>("timely");
    auto a_progress = sink.action<ProgressEvent<std::uint64_t>>("timely/progress/u64");
    auto a_tracker = sink.action<TrackerEvent<Pair>>("timely/reachability/(u64, u32)");
    auto a_summary = sink.action<OperatesSummaryEvent<std::uint64_t>>("timely/summary/u64");
    auto a_frontier = sink.action<FrontierEvent<Duration>>("timely/frontier/Duration");
    auto a_text = sink.action<std::string>("user");

    Batch<TimelyEvent> first;
    Batch<TimelyEvent> rest;
    Duration t = 1ns;
    for (std::size_t i = 0; i < timely_events.size(); ++i)
      (i < 5 ? first : rest).emplace_back(t++, timely_events[i]);
    Batch<ProgressEvent<std::uint64_t>> p{{t++, progress}, {t++, empty_progress}};
    Batch<TrackerEvent<Pair>> r{{t++, tracker}};
    Batch<OperatesSummaryEvent<std::uint64_t>> s{{t++, summary}};
    Batch<FrontierEvent<Duration>> f{{t++, frontier}};
    Batch<std::string> u{{t++, text}, {t++, ""}};
    // Interleaved as a worker's loggers would publish them.
    a_timely(100ns, first);
    a_progress(101ns, p);
    a_timely(102ns, rest);
    a_summary(103ns, s);
    a_tracker(104ns, r);
    a_frontier(105ns, f);
    a_text(106ns, u);
  }  // the last holder of the file closes it
  const auto after = std::chrono::system_clock::now();

  std::vector<std::string> order;  // the streams of the batches, in delivery order
  Batch<TimelyEvent> got_timely;
  Batch<ProgressEvent<std::uint64_t>> got_progress;
  Batch<TrackerEvent<Pair>> got_tracker;
  std::vector<OperatesSummaryEvent<std::uint64_t>> got_summary;
  Batch<FrontierEvent<Duration>> got_frontier;
  std::vector<std::string> got_text;
  std::vector<Duration> nows;
  int ends = 0;

  FileReader reader(file.path());
  CHECK(reader.header().version == 1);
  CHECK(reader.header().process == 3);
  CHECK(reader.header().worker == 5);
  CHECK(reader.header().start >= before - 1s);
  CHECK(reader.header().start <= after);
  reader
      .on<TimelyEvent>("timely",
                       [&](Duration now, Batch<TimelyEvent>& batch) {
                         if (batch.empty()) {
                           ++ends;
                           return;
                         }
                         order.push_back("timely");
                         nows.push_back(now);
                         got_timely.insert(got_timely.end(), batch.begin(), batch.end());
                       })
      .on<ProgressEvent<std::uint64_t>>("timely/progress/u64",
                                        [&](Duration now, Batch<ProgressEvent<std::uint64_t>>& batch) {
                                          if (batch.empty()) return;
                                          order.push_back("progress");
                                          nows.push_back(now);
                                          got_progress = batch;
                                        })
      .on<TrackerEvent<Pair>>("timely/reachability/(u64, u32)",
                              [&](Duration time, TrackerEvent<Pair>& e) {
                                order.push_back("reachability");
                                got_tracker.emplace_back(time, e);
                              })
      .on<OperatesSummaryEvent<std::uint64_t>>("timely/summary/u64",
                                               [&](Duration, OperatesSummaryEvent<std::uint64_t>& e) {
                                                 order.push_back("summary");
                                                 got_summary.push_back(e);
                                               })
      .on<FrontierEvent<Duration>>("timely/frontier/Duration",
                                   [&](Duration time, FrontierEvent<Duration>& e) {
                                     order.push_back("frontier");
                                     got_frontier.emplace_back(time, e);
                                   })
      .on<std::string>("user", [&](Duration, std::string& e) {
        order.push_back("user");
        got_text.push_back(e);
      });
  reader.run();

  CHECK(reader.closed());
  REQUIRE(reader.streams().size() == 6);
  CHECK(reader.streams()[0].name == "timely");
  CHECK(reader.streams()[0].type == "TimelyEvent");
  CHECK(reader.streams()[2].name == "timely/reachability/(u64, u32)");
  CHECK(reader.streams()[2].type == "TrackerEvent<(u64, u32)>");
  CHECK(reader.streams()[5].number == 5);
  CHECK(reader.streams()[5].type == "String");

  CHECK(order == std::vector<std::string>{"timely", "progress", "timely", "summary", "reachability",
                                          "frontier", "user", "user"});
  CHECK(nows == std::vector<Duration>{100ns, 101ns, 102ns});
  CHECK(ends == 1);  // the end frame flushes every handled stream once
  REQUIRE(got_timely.size() == timely_events.size());
  for (std::size_t i = 0; i < timely_events.size(); ++i) {
    INFO("event " << i);
    CHECK(got_timely[i].first == Duration(static_cast<std::int64_t>(i) + 1));
    CHECK(got_timely[i].second == timely_events[i]);
  }
  REQUIRE(got_progress.size() == 2);
  CHECK(got_progress[0].second == progress);
  CHECK(got_progress[1].second == empty_progress);
  REQUIRE(got_tracker.size() == 1);
  CHECK(got_tracker[0].second == tracker);
  CHECK(got_summary == std::vector{summary});
  REQUIRE(got_frontier.size() == 1);
  CHECK(got_frontier[0].second == frontier);
  CHECK(got_text == std::vector<std::string>{text, ""});

  // Streams without a handler are checked and skipped; the run can be repeated.
  std::size_t texts = 0;
  FileReader only_user(file.path());
  only_user.on<std::string>("user", [&](Duration, std::string&) { ++texts; });
  only_user.run();
  only_user.run();
  CHECK(texts == 4);
}

TEST_CASE("a file written by real Logger flushes replays the logger's batches", "[logging][file]") {
  TempPath file;
  Registry registry;
  FileSink::Options options;
  options.worker = 1;
  options.start = registry.start();
  std::vector<std::size_t> written_batches;  // the sizes the logger published, flushes as 0
  std::vector<TimelyEvent> logged;
  {
    FileSink sink(file.path(), options);
    sink.insert<std::string>(registry, "user");
    Logger<TimelyEvent> logger(
        registry.start(),
        [&, action = sink.action<TimelyEvent>("timely")](Duration now, Batch<TimelyEvent>& batch) mutable {
          written_batches.push_back(batch.size());
          action(now, batch);
        },
        3);
    for (std::size_t i = 0; i < 7; ++i) {
      logged.push_back(ScheduleEvent{i, i % 2 == 0});
      logger.log(logged.back());
    }
    auto user = registry.get<std::string>("user");
    REQUIRE(user.has_value());
    user->log("between");
    logger.flush();
    registry.flush();

    // A flush hands the frames to the file: a reader sees them while the sink is open.
    std::size_t seen = 0;
    FileReader early(file.path(), FileReader::Options{.accept_unclosed = true, .accept_torn_tail = false});
    early.on<TimelyEvent>("timely", [&](Duration, TimelyEvent&) { ++seen; });
    early.run();
    CHECK(seen == 7);
    CHECK_FALSE(early.closed());
    try {
      FileReader strict(file.path());
      strict.run();
      FAIL("an unclosed file was read without complaint");
    } catch (const LogFileError& e) {
      CHECK_THAT(e.what(), Catch::Contains("without its end frame"));
    }

    logged.push_back(TextEvent{"last"});
    logger.log(logged.back());  // published by the logger's destructor, before the file closes
  }
  registry = Registry();  // drops the "user" logger, the last holder of the file
  CHECK(written_batches == std::vector<std::size_t>{3, 3, 1, 0, 1});

  std::vector<std::size_t> read_batches;
  std::vector<TimelyEvent> read;
  std::vector<Duration> times;
  std::vector<std::string> users;
  FileReader reader(file.path());
  reader.on<TimelyEvent>("timely", [&](Duration now, Batch<TimelyEvent>& batch) {
    read_batches.push_back(batch.size());
    for (auto& [time, e] : batch) {
      CHECK(time <= now);  // stamped before the logger published them
      times.push_back(time);
      read.push_back(e);
    }
  });
  reader.on<std::string>("user", [&](Duration, std::string& e) { users.push_back(e); });
  reader.run();
  CHECK(reader.closed());
  CHECK(read_batches == std::vector<std::size_t>{3, 3, 1, 1, 0});  // flushes are not frames; the end is
  CHECK(read == logged);
  CHECK(std::is_sorted(times.begin(), times.end()));
  CHECK(users == std::vector<std::string>{"between"});
}

TEST_CASE("with a flush interval, a logger's flush writes only once the interval has passed",
          "[logging][file]") {
  TempPath file;
  FileSink::Options options;
  options.flush_interval = std::chrono::hours(1);
  FileSink sink(file.path(), options);
  Logger<TimelyEvent> logger(options.start, sink.action<TimelyEvent>("timely"), 1024);
  logger.log(ShutdownEvent{1});
  logger.flush();
  CHECK(std::filesystem::file_size(file.path()) == kLogFileHeaderSize);  // the header alone, written at once
  sink.flush();                                                          // the sink's own flush always writes
  std::size_t seen = 0;
  FileReader reader(file.path(), FileReader::Options{.accept_unclosed = true, .accept_torn_tail = false});
  reader.on<TimelyEvent>("timely", [&](Duration, TimelyEvent& e) {
    CHECK(e == TimelyEvent{ShutdownEvent{1}});
    ++seen;
  });
  reader.run();
  CHECK(seen == 1);
}

TEST_CASE("the file has the documented layout", "[logging][file]") {
  TempPath file;
  write_small_file(file.path());
  const auto bytes = read_bytes(file.path());
  REQUIRE(bytes.size() > kLogFileHeaderSize);
  CHECK(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 8) ==
        std::vector<unsigned char>{0x89, 'T', 'I', 'M', 'E', 'L', 'Y', 0x0A});
  CHECK(le(bytes, 8, 4) == 1);
  CHECK(le(bytes, 12, 4) == 48);
  CHECK(le(bytes, 16, 8) == 1);
  CHECK(le(bytes, 24, 8) == 2);
  const auto frames = frame_offsets(bytes);
  REQUIRE(frames.size() == 7);  // six frames and the end of the file
  const std::vector<unsigned> kinds{1, 1, 2, 2, 2, 3};
  const std::vector<unsigned> streams{0, 1, 0, 1, 0, 0};
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("frame " << i << " at " << frames[i]);
    const auto at = frames[i];
    CHECK(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                      bytes.begin() + static_cast<std::ptrdiff_t>(at) + 4) == "TLFR");
    CHECK(bytes[at + 16] == kinds[i]);
    CHECK(le(bytes, at + 17, 3) == 0);
    CHECK(le(bytes, at + 20, 4) == streams[i]);
  }
  // The first bind: the stream's name and its type's name, as u64-counted strings.
  const auto bind = frames[0] + kFrameHeaderSize;
  CHECK(le(bytes, bind, 8) == 6);
  CHECK(std::string(bytes.begin() + static_cast<std::ptrdiff_t>(bind) + 8,
                    bytes.begin() + static_cast<std::ptrdiff_t>(bind) + 14) == "timely");
  CHECK(le(bytes, bind + 14, 8) == 11);  // "TimelyEvent"
  // The first batch: now = 10 ns, two events, the first stamped 1 ns.
  const auto batch = frames[2] + kFrameHeaderSize;
  CHECK(le(bytes, batch, 8) == 10);
  CHECK(le(bytes, batch + 8, 4) == 2);
  CHECK(le(bytes, batch + 12, 8) == 1);
  // The end frame counts the five frames before it, and ends the file.
  CHECK(le(bytes, frames[5] + 4, 4) == 16);
  CHECK(le(bytes, frames[5] + kFrameHeaderSize + 8, 8) == 5);
}

TEST_CASE("a file cut at any byte is rejected after the frames before the cut", "[logging][file]") {
  TempPath file;
  TempPath cut;
  const auto written = write_small_file(file.path());
  const auto bytes = read_bytes(file.path());
  const auto frames = frame_offsets(bytes);  // binds 0-1, batches 2-4, end 5, then the size
  {
    std::vector<Delivered> delivered;
    REQUIRE_FALSE(read_small_file(file.path(), delivered).has_value());
    CHECK(delivered == written);
  }
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO("cut after " << n << " of " << bytes.size() << " bytes");
    write_bytes(cut.path(), bytes, n);
    // The frames that lie whole before the cut, and the first one it touches.
    std::size_t whole = 0;
    while (whole + 1 < frames.size() && frames[whole + 1] <= n) ++whole;
    const std::uint64_t torn_at = n < kLogFileHeaderSize ? 0 : frames[whole];
    const std::size_t batches_before = whole > 2 ? whole - 2 : 0;
    const std::vector<Delivered> expected(written.begin(),
                                          written.begin() + static_cast<std::ptrdiff_t>(batches_before));

    std::vector<Delivered> delivered;
    const auto failed = read_small_file(cut.path(), delivered);
    REQUIRE(failed.has_value());
    CHECK(*failed == torn_at);
    CHECK(delivered == expected);

    // Told to accept an unclosed file, a cut between frames reads the frames before it.
    delivered.clear();
    const bool between_frames = n >= kLogFileHeaderSize && frames[whole] == n;
    const auto lenient = read_small_file(
        cut.path(), delivered, FileReader::Options{.accept_unclosed = true, .accept_torn_tail = false});
    CHECK(lenient.has_value() != between_frames);
    CHECK(delivered == expected);

    // Told to accept a torn last frame as well, any cut after the file header reads the frames
    // before it, and the reader says how many bytes it left.
    delivered.clear();
    const FileReader::Options torn_ok{.accept_unclosed = true, .accept_torn_tail = true};
    const auto tolerant = read_small_file(cut.path(), delivered, torn_ok);
    CHECK(tolerant.has_value() == (n < kLogFileHeaderSize));
    CHECK(delivered == expected);
    if (n >= kLogFileHeaderSize) {
      FileReader reader(cut.path(), torn_ok);
      reader.run();
      CHECK(reader.torn_bytes() == n - frames[whole]);
      CHECK(reader.closed() == (n == bytes.size()));
    }
  }
}

TEST_CASE("a damaged length that runs past the end is an error, not a torn last frame", "[logging][file]") {
  TempPath file;
  TempPath changed;
  const auto written = write_small_file(file.path());
  const auto bytes = read_bytes(file.path());
  const auto frames = frame_offsets(bytes);  // binds 0-1, batches 2-4, end 5, then the size
  const FileReader::Options torn_ok{.accept_unclosed = true, .accept_torn_tail = true};
  for (std::size_t f = 0; f + 1 < frames.size(); ++f) {
    INFO("frame " << f << " at " << frames[f]);
    auto copy = bytes;
    // A length just past the end of the file (a flipped high bit would do the same).
    const auto past = static_cast<std::uint32_t>(bytes.size() - frames[f]);
    for (std::size_t b = 0; b < 4; ++b) copy[frames[f] + 4 + b] = static_cast<unsigned char>(past >> (8 * b));
    write_bytes(changed.path(), copy, copy.size());
    std::vector<Delivered> delivered;
    const auto failed = read_small_file(changed.path(), delivered, torn_ok);
    const std::size_t batches_before = f > 2 ? f - 2 : 0;
    CHECK(delivered == std::vector<Delivered>(written.begin(),
                                              written.begin() + static_cast<std::ptrdiff_t>(batches_before)));
    if (f + 2 < frames.size()) {
      // Whole frames follow: the length is damaged.
      REQUIRE(failed.has_value());
      CHECK(*failed == frames[f]);
      try {
        FileReader reader(changed.path(), torn_ok);
        reader.run();
      } catch (const LogFileError& e) {
        CHECK_THAT(e.what(),
                   Catch::Contains("a whole frame follows at offset " + std::to_string(frames[f + 1])));
      }
    } else {
      // The end frame is the last: nothing follows it, so it reads as torn (the file unclosed).
      CHECK_FALSE(failed.has_value());
    }
  }
}

TEST_CASE("a changed byte anywhere in a file is detected at its frame", "[logging][file]") {
  TempPath file;
  TempPath changed;
  const auto written = write_small_file(file.path());
  const auto bytes = read_bytes(file.path());
  const auto frames = frame_offsets(bytes);
  const std::uint32_t seed = 20261202;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> nonzero(1, 255);
  INFO("seed " << seed);
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    std::size_t frame = 0;
    while (frame + 1 < frames.size() && frames[frame + 1] <= at) ++frame;
    const std::uint64_t expected_offset = at < kLogFileHeaderSize ? 0 : frames[frame];
    const std::size_t batches_before = at < kLogFileHeaderSize ? 0 : (frame > 2 ? frame - 2 : 0);
    const std::vector<Delivered> expected(written.begin(),
                                          written.begin() + static_cast<std::ptrdiff_t>(batches_before));
    for (const int mask : {0xFF, 0x01, nonzero(rng)}) {
      INFO("byte " << at << " of " << bytes.size() << " xor " << mask);
      auto copy = bytes;
      copy[at] = static_cast<unsigned char>(copy[at] ^ mask);
      write_bytes(changed.path(), copy, copy.size());
      std::vector<Delivered> delivered;
      const auto failed = read_small_file(changed.path(), delivered);
      REQUIRE(failed.has_value());
      CHECK(*failed == expected_offset);
      CHECK(delivered == expected);
    }
  }
}

TEST_CASE("a batch splits into frames of at most the payload limit", "[logging][file]") {
  TempPath file;
  FileSink::Options options;
  options.max_frame_payload = 64;
  Batch<std::string> batch;
  for (int i = 0; i < 10; ++i)
    batch.emplace_back(Duration(i), "event " + std::to_string(i));  // 23 bytes each
  {
    FileSink sink(file.path(), options);
    auto action = sink.action<std::string>("user");
    action(50ns, batch);
    sink.close();
  }
  const auto bytes = read_bytes(file.path());
  const auto frames = frame_offsets(bytes);
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) CHECK(le(bytes, frames[i] + 4, 4) <= 64);
  CHECK(frames.size() == 1 + 1 + 5 + 1);  // a bind, five frames of two events, the end; the size

  std::vector<std::size_t> sizes;
  Batch<std::string> got;
  FileReader reader(file.path());
  reader.on<std::string>("user", [&](Duration now, Batch<std::string>& b) {
    if (b.empty()) return;
    CHECK(now == 50ns);
    sizes.push_back(b.size());
    got.insert(got.end(), b.begin(), b.end());
  });
  reader.run();
  CHECK(sizes == std::vector<std::size_t>{2, 2, 2, 2, 2});
  CHECK(got == batch);

  // An event larger than a frame is an error of the next flush, not of the batch.
  TempPath other;
  FileSink sink(other.path(), options);
  auto action = sink.action<std::string>("user");
  Batch<std::string> big{{0ns, std::string(100, 'z')}};
  CHECK_NOTHROW(action(1ns, big));
  Batch<std::string> flush;
  CHECK_THROWS_WITH(action(2ns, flush), Catch::Contains("does not fit in a frame of 64 payload bytes"));
}

TEST_CASE("readers and sinks reject misuse and foreign files", "[logging][file]") {
  TempPath file;
  write_small_file(file.path());

  FileReader wrong_type(file.path());
  wrong_type.on<std::string>("timely", [](Duration, std::string&) {});
  CHECK_THROWS_WITH(
      wrong_type.run(),
      Catch::Contains("stream 'timely' holds events of type TimelyEvent, but its handler reads String"));

  {
    FileSink sink(file.path());
    auto first = sink.action<TimelyEvent>("timely");
    CHECK_THROWS_WITH(sink.action<std::string>("timely"), Catch::Contains("already bound"));
    sink.close();
    Batch<TimelyEvent> late{{1ns, TextEvent{"late"}}};
    CHECK_NOTHROW(first(2ns, late));
    Batch<TimelyEvent> flush;
    CHECK_THROWS_WITH(first(3ns, flush), Catch::Contains("after close()"));
    CHECK_NOTHROW(sink.close());
  }

  FileSink::Options zero;
  zero.max_frame_payload = 0;
  CHECK_THROWS_AS(FileSink(file.path(), zero), LogFileError);

  const std::filesystem::path missing = "/nonexistent-timely-dir/log.tlog";
  CHECK_THROWS_WITH(FileSink(missing), Catch::Contains(missing.string()) && Catch::Contains("cannot create"));
  CHECK_THROWS_WITH(FileReader(missing), Catch::Contains(missing.string()) && Catch::Contains("cannot open"));

  std::ofstream(file.path(), std::ios::trunc) << "hello, this is text and not a timely log file at all";
  CHECK_THROWS_WITH(FileReader(file.path()), Catch::Contains("wrong magic"));
  std::ofstream(file.path(), std::ios::trunc) << "";
  CHECK_THROWS_WITH(FileReader(file.path()), Catch::Contains("shorter than its 48-byte header"));
}

TEST_CASE("writes to a full disk throw LogFileError naming the file", "[logging][file]") {
  REQUIRE(std::filesystem::exists("/dev/full"));  // Linux has it; this test is about it
  const std::filesystem::path full = "/dev/full";
  // The header is written at once: a disk full from the start fails the constructor.
  try {
    FileSink sink(full);
    FAIL("a FileSink on /dev/full was created");
  } catch (const LogFileError& e) {
    CHECK(e.path() == full);
    CHECK_FALSE(e.offset().has_value());
    CHECK_THAT(e.what(), Catch::Contains("/dev/full") && Catch::Contains("No space left on device"));
  }
  // A disk that fills later: a file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored, so writes
  // past it fail with EFBIG) of one header and a little more.
  TempPath file;
  struct rlimit before {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &before) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = before;
  small.rlim_cur = 256;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  struct Restore {
    struct rlimit limit;
    void (*handler)(int);
    ~Restore() {
      ::setrlimit(RLIMIT_FSIZE, &limit);
      std::signal(SIGXFSZ, handler);
    }
  } restore{before, old_handler};
  {
    FileSink sink(file.path());
    auto action = sink.action<TimelyEvent>("timely");
    Batch<TimelyEvent> batch{{1ns, TextEvent{std::string(400, 'x')}}};
    CHECK_NOTHROW(action(2ns, batch));  // collected in memory
    Batch<TimelyEvent> flush;
    try {
      action(3ns, flush);
      FAIL("a flush past the file size limit succeeded");
    } catch (const LogFileError& e) {
      CHECK(e.path() == file.path());
      CHECK_FALSE(e.offset().has_value());
      CHECK_THAT(e.what(), Catch::Contains(file.path().string()) && Catch::Contains("File too large"));
    }
    CHECK_THROWS_AS(sink.flush(), LogFileError);  // the failure stays
    CHECK_NOTHROW(action(4ns, batch));            // events never throw; they are dropped
    CHECK_THROWS_AS(sink.close(), LogFileError);
  }
  {
    // Through a logger: its full batches go on, its flush throws, its destructor does not.
    FileSink sink(file.path(), FileSink::Options{.buffer_bytes = 1});
    Logger<TimelyEvent> logger(std::chrono::steady_clock::now(), sink.action<TimelyEvent>("timely"), 2);
    for (std::size_t i = 0; i < 3; ++i) CHECK_NOTHROW(logger.log(TextEvent{std::string(200, 'y')}));
    CHECK_THROWS_WITH(logger.flush(), Catch::Contains(file.path().string()));
    logger.log(ShutdownEvent{9});
  }
}
