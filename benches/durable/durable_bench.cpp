// durable_bench: the durable log (timely::durable) against the plain system calls beneath it,
// each figure measured alternately with its baseline, `--runs` times (default 5), medians
// printed. The log's directory and the baselines' files are on the file system of --dir
// (default: the current directory); each run starts from an empty directory.
//
//   durable_bench append [--record-bytes 100] [--batch-records 1000] [--bytes 268435456] [--pin]
//       Durability::os. The log's append rate (records/s, MB/s of segment bytes, and per CPU
//       second of the appending thread), then with the final sync; beside it a plain write(2)
//       loop of the same bytes in batch-sized writes (the page cache's copy rate) and with its
//       fdatasync, and an O_DIRECT loop of 1 MiB writes (the disk's sequential bandwidth).
//       --pin: each run also appends with the appending thread pinned to one CPU (where the
//       project's --pin policy puts a first worker: communication/pinning.hpp), pinned and
//       unpinned in alternating order, and a second `bench: append-pin` line compares them.
//   durable_bench flush [--record-bytes 1024] [--batch-records 1] [--batches 1000]
//       Durability::every_batch. p50/p99/p99.9 of an append's latency, beside a loop of pwrite
//       of the same batch size at the end of a file and fdatasync.
//   durable_bench replay [--record-bytes 100] [--batch-records 1000] [--bytes 268435456]
//       A reader from the beginning over a log in the page cache, touching every record: GB/s
//       of segment bytes on one thread, beside pread of the same files in the reader's chunk size.
//   durable_bench dataflow-replay [--record-bytes 100] [--batch-records 1000] [--bytes 268435456]
//       The same records read into a timely dataflow on one worker (Config::thread()), from the
//       page cache, every record touched (its size and first byte) in place: (a) plain records
//       (those of batch b at timestamp b) through the event-time source (operators/source.hpp),
//       whose decode touches each record in the reader's batch and emits a u64 that an operator
//       adds up; (b) the same records captured from a dataflow (capture_into_log, one columnar
//       container of a batch's records per time) and read back by replay_from_log, which copies
//       each log batch once to aligned memory and whose containers an operator reads in place.
//       GB/s of each log's segment bytes (records/s, and GB per CPU-second of the process during
//       the pass, which a shared machine's load does not change), timed from building the dataflow
//       to its completion, beside the bare reader over each log (the replay loop; over the capture it
//       touches each event's record, not the records inside) and pread of the plain log's files;
//       alternating. Every pass must see every record written with the same sum of sizes and
//       first bytes (else it fails, exit 1).
//   durable_bench tail [--records 20000] [--interval-us 50] [--no-watch]
//       A writer thread appends one record (Durability::os) every interval; a reader thread in
//       the same process follows the tail. p50/p99/p99.9 from the append's start to the reader
//       holding the record, beside the same hand-off through a mutex and condition variable.
//       --no-watch: a file system without directory watches, so no inotify thread wakes beside
//       the reader at each append (the in-process wake-up alone).
//   durable_bench dataflow-tail [--records 20000] [--interval-us 50] [--no-watch]
//       As tail, but a dataflow on one worker follows the log through the event-time source
//       (`follow`), the worker stepping with `step_or_park` (it parks when nothing is activated),
//       and an inspect operator takes the time each record reaches it: p50/p99/p99.9 from the
//       append's start to the operator seeing the record, and the CPU seconds of the worker
//       thread (and its share of a core) over the run, beside the tail mode's reader thread (its
//       latency and CPU) and the condition variable, alternating. Fails (exit 1) unless the
//       dataflow sees every record once, in order.
//
// Every mode prints one line per run and a last line starting with `bench:` holding the medians.
// One file of over 600 lines: every mode shares the alternation, the scratch directories and the
// medians, and a user reads one header comment for all of them.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include <timely/communication/pinning.hpp>
#include <timely/container/columnar.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/durable/log.hpp>
#include <timely/durable/operators/capture.hpp>
#include <timely/durable/operators/source.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

namespace {

namespace durable = timely::durable;
namespace dop = timely::durable::operators;
namespace comm = timely::communication;
namespace fs = std::filesystem;
using namespace timely::dataflow::operators;
using Clock = std::chrono::steady_clock;
/// The dataflow modes' time: a record's log timestamp.
using Time = std::uint64_t;
/// The captured stream's container: records of bytes in columns, read in place after replay.
using ByteColumns = timely::container::columnar::Batch<std::vector<std::uint8_t>>;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// CPU seconds (user + system) of the calling thread.
double thread_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_THREAD, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/// CPU seconds (user + system) of the whole process: for passes whose work runs on a thread
/// that the pass starts (a dataflow's worker).
double process_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The q-quantile (0..1) of sorted `v`, nearest rank.
double quantile(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(rank, sorted.size() - 1)];
}

[[noreturn]] void fail_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

/// A file descriptor closed at scope end.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void write_all(int fd, const std::byte* data, std::size_t n) {
  while (n > 0) {
    const auto w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail_errno("write");
    data += w;
    n -= static_cast<std::size_t>(w);
  }
}

/// One batch of records of `record_bytes` pseudo-random bytes each (seed 42), timestamps from 0.
struct Batch {
  std::vector<std::byte> data;
  std::vector<durable::RecordView> records;
  std::size_t encoded = 0;  ///< bytes of the batch in a segment file
  Batch(std::size_t record_bytes, std::size_t count) : data(record_bytes * count) {
    std::mt19937_64 random(42);
    for (auto& b : data) b = static_cast<std::byte>(random());
    for (std::size_t i = 0; i < count; ++i)
      records.push_back(
          {static_cast<std::int64_t>(i), std::span(data.data() + i * record_bytes, record_bytes)});
    encoded = durable::encoded_batch_size(records);
  }
};

/// A fresh empty directory `dir/name`.
fs::path fresh(const fs::path& dir, const std::string& name) {
  const auto path = dir / name;
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

/// The writer of partition 0 of `stream`, syncing left to the OS (`Durability::os`).
durable::Writer os_writer(const durable::Log& log, const std::string& stream) {
  durable::WriterOptions options;
  options.durability = durable::Durability::os();
  return log.writer(stream, 0, options);
}

struct Common {
  std::string dir = ".";
  int runs = 5;
};

// --- append -----------------------------------------------------------------------------------

/// Where `--pin` puts the appending thread: the CPU the project's policy gives a process's first
/// worker (communication/pinning.hpp: one CPU of the first physical core allowed).
struct PinTarget {
  unsigned cpu = 0;
  std::vector<unsigned> allowed;  ///< the thread's CPUs before pinning, to return to
  std::string source;             ///< where the topology came from ("hwloc" or "os")
};

PinTarget pin_target() {
  const auto topology = comm::detect_topology();
  comm::Pinning pinning;
  pinning.mode = comm::Pinning::Mode::Cores;
  const auto placement = comm::place_threads(pinning, topology, 1, 0, 1);
  return {placement.workers.at(0), comm::current_thread_cpus(), topology.source};
}

/// Runs `f` with the calling thread pinned to `target.cpu`, then returns it to its CPUs.
/// \throws std::runtime_error if the thread's CPUs are not what pinning asked for.
template <class F>
void pinned(const PinTarget& target, F&& f) {
  const unsigned cpu[] = {target.cpu};
  comm::pin_current_thread(cpu, "the appending thread");
  if (comm::current_thread_cpus() != std::vector<unsigned>{target.cpu})
    throw std::runtime_error("pinning the appending thread to CPU " + std::to_string(target.cpu) +
                             " did not hold");
  f();  // an exception ends the program, so the thread need not be returned on that path
  comm::pin_current_thread(target.allowed, "the appending thread");
}

int bench_append(const Common& common, std::size_t record_bytes, std::size_t batch_records,
                 std::uint64_t bytes, bool pin) {
  const Batch batch(record_bytes, batch_records);
  const std::uint64_t batches = std::max<std::uint64_t>(1, bytes / batch.encoded);
  const double records = static_cast<double>(batches * batch_records);
  const double file_bytes = static_cast<double>(batches * batch.encoded);
  std::printf("append: %zu records of %zu B per batch (%zu B encoded), %llu batches, %.0f MB per run\n",
              batch_records, record_bytes, batch.encoded, static_cast<unsigned long long>(batches),
              file_bytes / 1e6);
  PinTarget target;
  if (pin) {
    target = pin_target();
    std::printf(
        "append --pin: the log's runs alternate unpinned (CPUs %s) and pinned to CPU %u (topology: %s)\n",
        comm::format_cpu_list(target.allowed).c_str(), target.cpu, target.source.c_str());
  }
  std::vector<double> log_rate, log_cpu_rate, log_synced, write_rate, write_synced, direct_rate;
  std::vector<double> pinned_rate, pinned_cpu_rate, pinned_synced;
  // One run of the log; `label` names it in the run's line.
  auto log_run = [&](int run, const char* label, std::vector<double>& rate, std::vector<double>& cpu_rate,
                     std::vector<double>& synced) {
    const auto root = fresh(common.dir, "bench-log");
    durable::Log log(root);
    durable::WriterOptions options;
    options.durability = durable::Durability::os();
    options.segment_bytes = std::uint64_t{1} << 30;
    auto writer = log.writer("bench", 0, options);
    const double cpu0 = thread_cpu_seconds();
    const auto start = Clock::now();
    for (std::uint64_t i = 0; i < batches; ++i) writer.append(batch.records);
    const double t = seconds_since(start);
    const double cpu = thread_cpu_seconds() - cpu0;
    writer.sync();
    const double t_synced = seconds_since(start);
    writer.close();
    rate.push_back(records / t);
    cpu_rate.push_back(records / cpu);
    synced.push_back(file_bytes / t_synced);
    std::printf("  run %d %s: %.3g records/s, %.3g MB/s, %.3g records per CPU-s; with sync %.3g MB/s\n", run,
                label, records / t, file_bytes / t / 1e6, records / cpu, file_bytes / t_synced / 1e6);
    fs::remove_all(root);
  };
  for (int run = 0; run < common.runs; ++run) {
    // With --pin, odd runs take the pinned one first, so that neither always follows the other.
    const bool pinned_first = pin && run % 2 == 1;
    auto pinned_run = [&] {
      pinned(target, [&] { log_run(run, "log pinned", pinned_rate, pinned_cpu_rate, pinned_synced); });
    };
    if (pinned_first) pinned_run();
    log_run(run, "log", log_rate, log_cpu_rate, log_synced);
    if (pin && !pinned_first) pinned_run();
    // write(2) of the same bytes, in batch-sized writes: the page cache's copy.
    {
      const auto root = fresh(common.dir, "bench-write");
      const Fd fd(::open((root / "file").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
      if (fd.fd < 0) fail_errno("open");
      std::vector<std::byte> bytes_out(batch.encoded, std::byte{7});
      const auto start = Clock::now();
      for (std::uint64_t i = 0; i < batches; ++i) write_all(fd.fd, bytes_out.data(), bytes_out.size());
      const double t = seconds_since(start);
      if (::fdatasync(fd.fd) != 0) fail_errno("fdatasync");
      const double t_synced = seconds_since(start);
      write_rate.push_back(file_bytes / t);
      write_synced.push_back(file_bytes / t_synced);
      std::printf("  run %d write loop: %.3g MB/s; with fdatasync %.3g MB/s\n", run, file_bytes / t / 1e6,
                  file_bytes / t_synced / 1e6);
      fs::remove_all(root);
    }
    // O_DIRECT, 1 MiB aligned writes of as many bytes: the disk's sequential bandwidth.
    {
      const auto root = fresh(common.dir, "bench-direct");
      const Fd fd(::open((root / "file").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644));
      if (fd.fd < 0) fail_errno("open O_DIRECT");
      constexpr std::size_t kChunk = std::size_t{1} << 20;
      void* raw = nullptr;
      if (::posix_memalign(&raw, 4096, kChunk) != 0) throw std::bad_alloc();
      const std::unique_ptr<void, decltype(&std::free)> buffer(raw, &std::free);
      std::memset(raw, 7, kChunk);
      const auto chunks = static_cast<std::uint64_t>(file_bytes / kChunk) + 1;
      const auto start = Clock::now();
      for (std::uint64_t i = 0; i < chunks; ++i) write_all(fd.fd, static_cast<const std::byte*>(raw), kChunk);
      if (::fdatasync(fd.fd) != 0) fail_errno("fdatasync");
      const double t = seconds_since(start);
      direct_rate.push_back(static_cast<double>(chunks * kChunk) / t);
      std::printf("  run %d O_DIRECT: %.3g MB/s\n", run, static_cast<double>(chunks * kChunk) / t / 1e6);
      fs::remove_all(root);
    }
    std::fflush(stdout);
  }
  const double m_log = median(log_rate);
  std::printf(
      "bench: append record_bytes=%zu batch_records=%zu runs=%d log_records_per_s=%.4g log_MB_per_s=%.4g "
      "log_records_per_cpu_s=%.4g log_synced_MB_per_s=%.4g write_MB_per_s=%.4g write_synced_MB_per_s=%.4g "
      "direct_MB_per_s=%.4g log_over_write=%.3f log_synced_over_direct=%.3f\n",
      record_bytes, batch_records, common.runs, m_log,
      m_log * static_cast<double>(batch.encoded) / static_cast<double>(batch_records) / 1e6,
      median(log_cpu_rate), median(log_synced) / 1e6, median(write_rate) / 1e6, median(write_synced) / 1e6,
      median(direct_rate) / 1e6,
      m_log * static_cast<double>(batch.encoded) / static_cast<double>(batch_records) / median(write_rate),
      median(log_synced) / median(direct_rate));
  if (pin)
    std::printf(
        "bench: append-pin cpu=%u runs=%d unpinned_records_per_s=%.4g pinned_records_per_s=%.4g "
        "pinned_over_unpinned=%.3f unpinned_records_per_cpu_s=%.4g pinned_records_per_cpu_s=%.4g "
        "unpinned_synced_MB_per_s=%.4g pinned_synced_MB_per_s=%.4g\n",
        target.cpu, common.runs, m_log, median(pinned_rate), median(pinned_rate) / m_log,
        median(log_cpu_rate), median(pinned_cpu_rate), median(log_synced) / 1e6, median(pinned_synced) / 1e6);
  return 0;
}

// --- flush every batch ------------------------------------------------------------------------------

struct Percentiles {
  double p50, p99, p999;
  /// CPU seconds of the consuming thread (the reader thread, or the dataflow's worker) over the
  /// run, and the run's wall-clock seconds (tail modes; 0 where not measured).
  double consumer_cpu_seconds = 0, seconds = 0;
  /// The share of one core the consuming thread used.
  [[nodiscard]] double core_share() const { return seconds > 0 ? consumer_cpu_seconds / seconds : 0; }
};

Percentiles percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {quantile(v, 0.5), quantile(v, 0.99), quantile(v, 0.999)};
}

/// One run's line: "  run R WHAT: p50 ..., p99 ..., p99.9 ... us", with `digits` after the point,
/// and, where `thread` names the consuming thread, its CPU seconds and share of a core.
void print_run(int run, const char* what, const Percentiles& p, int digits, const char* thread = nullptr) {
  std::printf("  run %d %s: p50 %.*f us, p99 %.*f us, p99.9 %.*f us", run, what, digits, p.p50, digits, p.p99,
              digits, p.p999);
  if (thread != nullptr)
    std::printf("; %s %.2f CPU-s in %.2f s (%.0f %% of a core)", thread, p.consumer_cpu_seconds, p.seconds,
                100 * p.core_share());
  std::printf("\n");
}

int bench_flush(const Common& common, std::size_t record_bytes, std::size_t batch_records,
                std::size_t batches) {
  const Batch batch(record_bytes, batch_records);
  std::printf(
      "flush: every batch synced, %zu records of %zu B per batch (%zu B encoded), %zu batches per run\n",
      batch_records, record_bytes, batch.encoded, batches);
  std::vector<double> l50, l99, l999, b50, b99, b999;
  std::vector<double> latencies(batches);
  for (int run = 0; run < common.runs; ++run) {
    {
      const auto root = fresh(common.dir, "bench-log");
      durable::Log log(root);
      durable::WriterOptions options;
      options.durability = durable::Durability::every_batch();
      options.segment_bytes = std::uint64_t{1} << 30;
      auto writer = log.writer("bench", 0, options);
      for (std::size_t i = 0; i < batches; ++i) {
        const auto start = Clock::now();
        writer.append(batch.records);
        latencies[i] = seconds_since(start) * 1e6;
      }
      writer.close();
      const auto p = percentiles(latencies);
      l50.push_back(p.p50);
      l99.push_back(p.p99);
      l999.push_back(p.p999);
      print_run(run, "log", p, 0);
      fs::remove_all(root);
    }
    {
      const auto root = fresh(common.dir, "bench-write");
      const Fd fd(::open((root / "file").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
      if (fd.fd < 0) fail_errno("open");
      std::vector<std::byte> bytes_out(batch.encoded, std::byte{7});
      std::uint64_t position = 0;
      for (std::size_t i = 0; i < batches; ++i) {
        const auto start = Clock::now();
        if (::pwrite(fd.fd, bytes_out.data(), bytes_out.size(), static_cast<off_t>(position)) !=
            static_cast<ssize_t>(bytes_out.size()))
          fail_errno("pwrite");
        if (::fdatasync(fd.fd) != 0) fail_errno("fdatasync");
        latencies[i] = seconds_since(start) * 1e6;
        position += bytes_out.size();
      }
      const auto p = percentiles(latencies);
      b50.push_back(p.p50);
      b99.push_back(p.p99);
      b999.push_back(p.p999);
      print_run(run, "pwrite+fdatasync", p, 0);
      fs::remove_all(root);
    }
    std::fflush(stdout);
  }
  std::printf(
      "bench: flush record_bytes=%zu batch_records=%zu runs=%d log_p50_us=%.0f log_p99_us=%.0f "
      "log_p999_us=%.0f "
      "pwrite_fdatasync_p50_us=%.0f pwrite_fdatasync_p99_us=%.0f pwrite_fdatasync_p999_us=%.0f "
      "ratio_p50=%.3f ratio_p99=%.3f\n",
      record_bytes, batch_records, common.runs, median(l50), median(l99), median(l999), median(b50),
      median(b99), median(b999), median(l50) / median(b50), median(l99) / median(b99));
  return 0;
}

// --- replay: the bare reader, the event-time source and replay_from_log ------------------------------

/// What one pass over a log saw: records, the sum of every record's size and first byte (the
/// touch), its time and the process's CPU time meanwhile (the pass's own thread is the only busy
/// one, so on a machine shared with other work this shows what the pass costs, whatever share
/// of a CPU it got).
struct Pass {
  std::uint64_t records = 0;
  std::uint64_t sum = 0;
  double seconds = 0;
  double cpu_seconds = 0;
};

/// The bare reader from the beginning of partition 0 of `stream`, touching every record.
Pass reader_pass(const durable::Log& log, const std::string& stream) {
  auto reader = log.reader(stream, 0, durable::Start::beginning());
  Pass pass;
  const double cpu0 = process_cpu_seconds();
  const auto start = Clock::now();
  while (auto view = reader.next_batch()) {
    for (const auto record : *view)
      pass.sum += record.bytes.size() + static_cast<std::uint8_t>(record.bytes[0]);
    pass.records += view->size();
  }
  pass.seconds = seconds_since(start);
  pass.cpu_seconds = process_cpu_seconds() - cpu0;
  return pass;
}

/// `pread` of `files` in `chunk`-byte reads; returns the bytes read and the time.
Pass pread_pass(const std::vector<fs::path>& files, std::size_t chunk) {
  std::vector<std::byte> buffer(chunk);
  Pass pass;
  const double cpu0 = process_cpu_seconds();
  const auto start = Clock::now();
  for (const auto& file : files) {
    const Fd fd(::open(file.c_str(), O_RDONLY));
    if (fd.fd < 0) fail_errno("open");
    for (off_t at = 0;;) {
      const auto n = ::pread(fd.fd, buffer.data(), buffer.size(), at);
      if (n < 0) fail_errno("pread");
      if (n == 0) break;
      pass.sum += static_cast<std::uint8_t>(buffer[static_cast<std::size_t>(n) - 1]);
      at += n;
      pass.records += static_cast<std::uint64_t>(n);  // bytes, here
    }
  }
  pass.seconds = seconds_since(start);
  pass.cpu_seconds = process_cpu_seconds() - cpu0;
  return pass;
}

/// Runs one dataflow on one worker: `build(scope, pass)` returns the stream to probe and adds
/// what it reads to `pass`. Timed from building the dataflow to its completion.
template <class Build>
Pass dataflow_pass(Build build) {
  auto out = timely::execute(timely::Config::thread(), [&](timely::Worker& worker) {
    Pass pass;
    timely::dataflow::ProbeHandle<Time> probe;
    const double cpu0 = process_cpu_seconds();
    const auto start = Clock::now();
    worker.dataflow<Time>([&](auto& scope) { build(scope, pass) | probe_with(probe); });
    while (!probe.done()) worker.step();
    pass.seconds = seconds_since(start);
    pass.cpu_seconds = process_cpu_seconds() - cpu0;
    return pass;
  });
  return out.at(0);
}

/// The event-time source (follow off) over `stream` on one worker: `decode` touches each
/// record in the reader's batch (size and first byte, as `reader_pass`) and emits that as a u64
/// at the record's timestamp; an operator after it adds them up.
Pass source_pass(const durable::Log& log, const std::string& stream) {
  return dataflow_pass([&](auto& scope, Pass& pass) {
    auto s = dop::log_source<Time, std::uint64_t>(scope, log, stream, [](const durable::RecordView& r) {
      return static_cast<std::uint64_t>(r.bytes.size() + static_cast<std::uint8_t>(r.bytes[0]));
    });
    return s.records | inspect_container([&](const Time&, const std::vector<std::uint64_t>& batch) {
             pass.records += batch.size();
             for (const auto v : batch) pass.sum += v;
           });
  });
}

/// `replay_from_log` of the captured stream `stream` on one worker: each log batch is copied
/// once to aligned memory and its columnar containers are read in place; an operator touches
/// every record (size and first byte).
Pass replay_pass(const durable::Log& log, const std::string& stream) {
  return dataflow_pass([&](auto& scope, Pass& pass) {
    return dop::replay_from_log<Time, ByteColumns>(scope, log, stream) |
           inspect_container([&](const Time&, const ByteColumns& batch) {
             pass.records += batch.size();
             for (const auto r : batch) pass.sum += r.size() + r[0];
           });
  });
}

/// Captures `batches` containers of `batch`'s records, each at its own time (0, 1, ...), on one
/// worker into log stream `stream`.
void write_capture(const durable::Log& log, const std::string& stream, const Batch& batch,
                   std::uint64_t batches) {
  timely::execute(timely::Config::thread(), [&](timely::Worker& worker) {
    timely::dataflow::InputHandleCore<Time, ByteColumns> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto s = input.to_stream(scope);
      s | probe_with(probe);
      s | dop::capture_into_log(log, stream);
    });
    for (std::uint64_t b = 0; b < batches; ++b) {
      ByteColumns columns;
      for (const auto& record : batch.records)
        columns.push_into(std::span<const std::uint8_t>(
            reinterpret_cast<const std::uint8_t*>(record.bytes.data()), record.bytes.size()));
      input.send_batch(columns);
      input.advance_to(b + 1);
      while (probe.less_than(b + 1)) worker.step();
    }
    input.close();
    while (!probe.done()) worker.step();
  });
}

/// The segment files of partition 0 of `stream`, in order.
std::vector<fs::path> segment_files(const fs::path& root, const std::string& stream) {
  std::vector<fs::path> segments;
  for (const auto& entry : fs::directory_iterator(root / stream / "0"))
    if (entry.path().extension() == ".log") segments.push_back(entry.path());
  std::sort(segments.begin(), segments.end());
  return segments;
}

/// Writes `batches` appends of `batch`'s records to partition 0 of `stream` with the `os` policy;
/// with `timestamp_by_batch`, the records of append b at timestamp b (nondecreasing, as the
/// event-time source expects).
void write_plain(const durable::Log& log, const std::string& stream, const Batch& batch,
                 std::uint64_t batches, bool timestamp_by_batch) {
  auto writer = os_writer(log, stream);
  auto records = batch.records;
  for (std::uint64_t b = 0; b < batches; ++b) {
    if (timestamp_by_batch)
      for (auto& r : records) r.timestamp = static_cast<std::int64_t>(b);
    writer.append(records);
  }
  writer.close();
}

int bench_replay(const Common& common, std::size_t record_bytes, std::size_t batch_records,
                 std::uint64_t bytes) {
  const Batch batch(record_bytes, batch_records);
  const std::uint64_t batches = std::max<std::uint64_t>(1, bytes / batch.encoded);
  const auto root = fresh(common.dir, "bench-log");
  write_plain(durable::Log(root), "bench", batch, batches, false);
  durable::Log log(root, {.file_system = durable::posix_file_system(), .create = false});
  const auto stats = log.stats("bench", 0);
  const double file_bytes = static_cast<double>(stats.bytes);
  const auto segments = segment_files(root, "bench");
  std::printf("replay: %llu records of %zu B in %zu segments, %.0f MB, from the page cache\n",
              static_cast<unsigned long long>(stats.records), record_bytes, segments.size(),
              file_bytes / 1e6);
  const std::size_t chunk = durable::ReaderOptions{}.read_bytes;
  std::vector<double> log_rate, pread_rate;
  std::uint64_t sink = 0;
  for (int run = 0; run < common.runs; ++run) {
    const auto r = reader_pass(log, "bench");
    if (r.records != stats.records)
      throw std::runtime_error("replay read " + std::to_string(r.records) + " records");
    const auto f = pread_pass(segments, chunk);
    sink += r.sum + f.sum;
    log_rate.push_back(file_bytes / r.seconds);
    pread_rate.push_back(static_cast<double>(f.records) / f.seconds);
    std::printf("  run %d reader: %.3g GB/s, pread: %.3g GB/s\n", run, log_rate.back() / 1e9,
                pread_rate.back() / 1e9);
    std::fflush(stdout);
  }
  fs::remove_all(root);
  std::printf(
      "bench: replay record_bytes=%zu runs=%d reader_GB_per_s=%.3g pread_GB_per_s=%.3g ratio=%.3f (sink "
      "%llu)\n",
      record_bytes, common.runs, median(log_rate) / 1e9, median(pread_rate) / 1e9,
      median(log_rate) / median(pread_rate), static_cast<unsigned long long>(sink % 10));
  return 0;
}

int bench_dataflow_replay(const Common& common, std::size_t record_bytes, std::size_t batch_records,
                          std::uint64_t bytes) {
  const Batch batch(record_bytes, batch_records);
  const std::uint64_t batches = std::max<std::uint64_t>(1, bytes / batch.encoded);
  const auto root = fresh(common.dir, "bench-log");
  {
    // Plain records for the source, and the same records captured from a dataflow: a columnar
    // container of a batch's records at each time.
    durable::Log log(root);
    write_plain(log, "plain", batch, batches, true);
    write_capture(log, "captured", batch, batches);
  }
  durable::Log log(root, {.file_system = durable::posix_file_system(), .create = false});
  const auto plain = log.stats("plain", 0);
  const auto captured = log.stats("captured", 0);
  const double plain_bytes = static_cast<double>(plain.bytes);
  const double captured_bytes = static_cast<double>(captured.bytes);
  const auto plain_segments = segment_files(root, "plain");
  const std::uint64_t expected_records = batches * batch_records;
  std::printf(
      "dataflow-replay: %llu records of %zu B on one worker, from the page cache: plain records %.0f MB "
      "(%llu "
      "log records), captured %.0f MB (%llu log records: events of %zu records in columns)\n",
      static_cast<unsigned long long>(expected_records), record_bytes, plain_bytes / 1e6,
      static_cast<unsigned long long>(plain.records), captured_bytes / 1e6,
      static_cast<unsigned long long>(captured.records), batch_records);
  const std::size_t chunk = durable::ReaderOptions{}.read_bytes;
  std::vector<double> reader_rate, source_rate, captured_reader_rate, replay_rate, pread_rate;
  // GB per CPU-second of the process during each pass (see Pass).
  std::vector<double> reader_cpu, source_cpu, captured_reader_cpu, replay_cpu;
  std::uint64_t expected_sum = 0;
  auto check = [&](const char* what, const Pass& pass) {
    if (pass.records != expected_records || pass.sum != expected_sum)
      throw std::runtime_error(std::string(what) + " saw " + std::to_string(pass.records) + " records (sum " +
                               std::to_string(pass.sum) + "), not the " + std::to_string(expected_records) +
                               " written (sum " + std::to_string(expected_sum) + ")");
  };
  for (int run = 0; run < common.runs; ++run) {
    const auto r = reader_pass(log, "plain");
    if (run == 0) expected_sum = r.sum;
    check("the reader", r);
    reader_rate.push_back(plain_bytes / r.seconds);
    reader_cpu.push_back(plain_bytes / r.cpu_seconds);
    const auto s = source_pass(log, "plain");
    check("the source", s);
    source_rate.push_back(plain_bytes / s.seconds);
    source_cpu.push_back(plain_bytes / s.cpu_seconds);
    const auto c = reader_pass(log, "captured");  // touches the events, not the records in them
    if (c.records != captured.records)
      throw std::runtime_error("the reader of the capture saw " + std::to_string(c.records) +
                               " log records, not " + std::to_string(captured.records));
    captured_reader_rate.push_back(captured_bytes / c.seconds);
    captured_reader_cpu.push_back(captured_bytes / c.cpu_seconds);
    const auto p = replay_pass(log, "captured");
    check("replay_from_log", p);
    replay_rate.push_back(captured_bytes / p.seconds);
    replay_cpu.push_back(captured_bytes / p.cpu_seconds);
    const auto f = pread_pass(plain_segments, chunk);
    if (f.records != plain.bytes)
      throw std::runtime_error("pread read " + std::to_string(f.records) + " bytes");
    pread_rate.push_back(plain_bytes / f.seconds);
    std::printf(
        "  run %d plain: reader %.3g GB/s (%.3g per CPU-s), source %.3g GB/s (%.3g per CPU-s, %.3g "
        "records/s); "
        "captured: reader %.3g GB/s (%.3g per CPU-s), replay_from_log %.3g GB/s (%.3g per CPU-s, %.3g "
        "records/s); pread %.3g GB/s\n",
        run, plain_bytes / r.seconds / 1e9, plain_bytes / r.cpu_seconds / 1e9, plain_bytes / s.seconds / 1e9,
        plain_bytes / s.cpu_seconds / 1e9, static_cast<double>(expected_records) / s.seconds,
        captured_bytes / c.seconds / 1e9, captured_bytes / c.cpu_seconds / 1e9,
        captured_bytes / p.seconds / 1e9, captured_bytes / p.cpu_seconds / 1e9,
        static_cast<double>(expected_records) / p.seconds, plain_bytes / f.seconds / 1e9);
    std::fflush(stdout);
  }
  fs::remove_all(root);
  const double n = static_cast<double>(expected_records);
  std::printf(
      "bench: dataflow-replay record_bytes=%zu batch_records=%zu runs=%d records=%llu every_record_seen=yes "
      "reader_GB_per_s=%.3g source_GB_per_s=%.3g source_records_per_s=%.4g source_over_reader=%.3f "
      "captured_reader_GB_per_s=%.3g replay_GB_per_s=%.3g replay_records_per_s=%.4g replay_over_reader=%.3f "
      "pread_GB_per_s=%.3g reader_GB_per_cpu_s=%.3g source_GB_per_cpu_s=%.3g "
      "captured_reader_GB_per_cpu_s=%.3g "
      "replay_GB_per_cpu_s=%.3g\n",
      record_bytes, batch_records, common.runs, static_cast<unsigned long long>(expected_records),
      median(reader_rate) / 1e9, median(source_rate) / 1e9, median(source_rate) / plain_bytes * n,
      median(source_rate) / median(reader_rate), median(captured_reader_rate) / 1e9,
      median(replay_rate) / 1e9, median(replay_rate) / captured_bytes * n,
      median(replay_rate) / median(captured_reader_rate), median(pread_rate) / 1e9, median(reader_cpu) / 1e9,
      median(source_cpu) / 1e9, median(captured_reader_cpu) / 1e9, median(replay_cpu) / 1e9);
  return 0;
}

// --- tail -------------------------------------------------------------------------------------------

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

/// Waits until `at`, sleeping, so that the waiting writer leaves the CPU to the reader (on a
/// 2-core machine a spinning writer would delay the very wake-up being measured). The send time
/// is taken after the wait, so the sleep's own lateness is not counted.
void pace_until(Clock::time_point at) { std::this_thread::sleep_until(at); }

/// The POSIX file system without directory watches: readers in this process are still woken by
/// the writer, with no inotify thread beside them (to see what the watch costs the tail).
class UnwatchedFileSystem : public durable::FileSystem {
 public:
  std::unique_ptr<durable::File> open(const fs::path& path, durable::OpenMode mode) override {
    return posix_->open(path, mode);
  }
  bool exists(const fs::path& path) override { return posix_->exists(path); }
  bool is_directory(const fs::path& path) override { return posix_->is_directory(path); }
  std::vector<std::string> list(const fs::path& dir) override { return posix_->list(dir); }
  void create_directory(const fs::path& dir) override { posix_->create_directory(dir); }
  void rename(const fs::path& from, const fs::path& to) override { posix_->rename(from, to); }
  bool remove(const fs::path& path) override { return posix_->remove(path); }
  void sync_directory(const fs::path& dir) override { posix_->sync_directory(dir); }
  std::unique_ptr<durable::FileLock> try_lock(const fs::path& path, const std::string& holder,
                                              std::string& current_holder) override {
    return posix_->try_lock(path, holder, current_holder);
  }
  std::unique_ptr<durable::DirectoryWatch> watch(const fs::path&) override { return nullptr; }

 private:
  std::shared_ptr<durable::FileSystem> posix_ = durable::posix_file_system();
};

/// A fresh log for the tail runs (without directory watches for `--no-watch`).
durable::Log tail_log(const fs::path& root, bool no_watch) {
  durable::LogOptions log_options;
  if (no_watch) log_options.file_system = std::make_shared<UnwatchedFileSystem>();
  return durable::Log(root, log_options);
}

/// Appends `records` records one at a time, one every `interval`, each holding the time of its
/// append (ns) and timestamped with its index.
void paced_appends(durable::Writer& writer, std::size_t records, std::chrono::microseconds interval,
                   const std::atomic<bool>& stop) {
  auto next = Clock::now();
  for (std::size_t i = 0; i < records && !stop.load(); ++i) {
    pace_until(next);
    next += interval;
    const std::int64_t sent = now_ns();
    writer.append(static_cast<std::int64_t>(i), std::as_bytes(std::span(&sent, 1)));
  }
}

/// A reader thread following the log, woken by the writer's appends.
Percentiles tail_reader_run(const Common& common, std::size_t records, std::chrono::microseconds interval,
                            bool no_watch) {
  const auto root = fresh(common.dir, "bench-log");
  Percentiles p{};
  {
    auto log = tail_log(root, no_watch);
    auto writer = os_writer(log, "bench");
    auto reader = log.reader("bench", 0, durable::Start::end());
    std::vector<double> latencies;
    latencies.reserve(records);
    double consumer_cpu = 0;
    const auto start = Clock::now();
    std::thread consumer([&] {
      const double cpu0 = thread_cpu_seconds();
      while (latencies.size() < records) {
        auto view = reader.next_batch(std::chrono::milliseconds(1000));
        if (!view) continue;
        const auto seen = now_ns();
        for (const auto record : *view) {
          std::int64_t sent = 0;
          std::memcpy(&sent, record.bytes.data(), sizeof sent);
          latencies.push_back(static_cast<double>(seen - sent) / 1e3);
        }
      }
      consumer_cpu = thread_cpu_seconds() - cpu0;
    });
    const std::atomic<bool> stop{false};
    paced_appends(writer, records, interval, stop);
    consumer.join();
    const double seconds = seconds_since(start);
    writer.close();
    p = percentiles(latencies);
    p.consumer_cpu_seconds = consumer_cpu;
    p.seconds = seconds;
  }
  fs::remove_all(root);
  return p;
}

/// The same hand-off through a mutex and condition variable.
Percentiles tail_condvar_run(std::size_t records, std::chrono::microseconds interval) {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::int64_t> queue;
  std::vector<double> latencies;
  latencies.reserve(records);
  std::thread consumer([&] {
    std::unique_lock lock(mutex);
    while (latencies.size() < records) {
      ready.wait(lock, [&] { return !queue.empty(); });
      const auto seen = now_ns();
      for (const auto sent : queue) latencies.push_back(static_cast<double>(seen - sent) / 1e3);
      queue.clear();
    }
  });
  auto next = Clock::now();
  for (std::size_t i = 0; i < records; ++i) {
    pace_until(next);
    next += interval;
    {
      const std::lock_guard lock(mutex);
      queue.push_back(now_ns());
    }
    ready.notify_one();
  }
  consumer.join();
  return percentiles(latencies);
}

/// A dataflow on one worker following the log through the event-time source (`follow`), and
/// an `inspect` after it taking the time each record reaches it. The writer thread starts once
/// the dataflow is built. \throws std::runtime_error if the dataflow does not see every record,
/// in order, within 30 s of the last one it saw.
Percentiles tail_dataflow_run(const Common& common, std::size_t records, std::chrono::microseconds interval,
                              bool no_watch) {
  const auto root = fresh(common.dir, "bench-log");
  Percentiles p{};
  {
    auto log = tail_log(root, no_watch);
    auto writer = os_writer(log, "bench");
    std::atomic<bool> ready{false}, stop{false};
    std::thread producer([&] {
      while (!ready.load() && !stop.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
      paced_appends(writer, records, interval, stop);
    });
    std::vector<double> latencies;
    latencies.reserve(records);
    double worker_cpu = 0, seconds = 0;
    try {
      timely::execute(timely::Config::thread(), [&](timely::Worker& worker) {
        dop::LogSourceOptions source_options;
        source_options.follow = true;
        std::uint64_t expected_time = 0;
        const auto index = worker.next_dataflow_index();
        worker.dataflow<Time>([&](auto& scope) {
          auto s = dop::log_source<Time, std::int64_t>(
              scope, log, "bench",
              [](const durable::RecordView& r) {
                std::int64_t sent = 0;
                std::memcpy(&sent, r.bytes.data(), sizeof sent);
                return sent;
              },
              source_options);
          s.records | inspect_time([&](const Time& t, const std::int64_t& sent) {
            latencies.push_back(static_cast<double>(now_ns() - sent) / 1e3);
            if (t != expected_time++)
              throw std::runtime_error("the dataflow saw record " + std::to_string(t) +
                                       " where it expected " + std::to_string(expected_time - 1));
          });
        });
        const double cpu0 = thread_cpu_seconds();
        const auto start = Clock::now();
        ready.store(true);
        auto progress = Clock::now();
        std::size_t seen = 0;
        while (latencies.size() < records) {
          // Parks when nothing is activated (a source waiting for appends may let it).
          worker.step_or_park(std::chrono::milliseconds(100));
          if (latencies.size() != seen) {
            seen = latencies.size();
            progress = Clock::now();
          } else if (Clock::now() - progress > std::chrono::seconds(30)) {
            throw std::runtime_error("the dataflow saw " + std::to_string(seen) + " of " +
                                     std::to_string(records) + " records, then nothing for 30 s");
          }
        }
        worker_cpu = thread_cpu_seconds() - cpu0;
        seconds = seconds_since(start);
        worker.drop_dataflow(index);
      });
    } catch (...) {
      stop.store(true);
      producer.join();
      throw;
    }
    producer.join();
    writer.close();
    p = percentiles(latencies);
    p.consumer_cpu_seconds = worker_cpu;
    p.seconds = seconds;
  }
  fs::remove_all(root);
  return p;
}

struct PercentileSeries {
  std::vector<double> p50, p99, p999, cpu_seconds, core_share;
  void add(const Percentiles& p) {
    p50.push_back(p.p50);
    p99.push_back(p.p99);
    p999.push_back(p.p999);
    cpu_seconds.push_back(p.consumer_cpu_seconds);
    core_share.push_back(p.core_share());
  }
};

int bench_tail(const Common& common, std::size_t records, std::size_t interval_us, bool no_watch) {
  std::printf("tail: %zu records, one every %zu us, writer and reader threads in one process%s\n", records,
              interval_us, no_watch ? ", no directory watch" : "");
  PercentileSeries log_series, condvar_series;
  const auto interval = std::chrono::microseconds(interval_us);
  for (int run = 0; run < common.runs; ++run) {
    const auto l = tail_reader_run(common, records, interval, no_watch);
    log_series.add(l);
    print_run(run, "log", l, 1);
    const auto b = tail_condvar_run(records, interval);
    condvar_series.add(b);
    print_run(run, "condition variable", b, 1);
    std::fflush(stdout);
  }
  std::printf(
      "bench: tail runs=%d log_p50_us=%.1f log_p99_us=%.1f log_p999_us=%.1f condvar_p50_us=%.1f "
      "condvar_p99_us=%.1f condvar_p999_us=%.1f\n",
      common.runs, median(log_series.p50), median(log_series.p99), median(log_series.p999),
      median(condvar_series.p50), median(condvar_series.p99), median(condvar_series.p999));
  return 0;
}

int bench_dataflow_tail(const Common& common, std::size_t records, std::size_t interval_us, bool no_watch) {
  std::printf(
      "dataflow-tail: %zu records, one every %zu us; a writer thread, and a dataflow on one worker following "
      "the log through the event-time source%s\n",
      records, interval_us, no_watch ? ", no directory watch" : "");
  PercentileSeries dataflow_series, reader_series, condvar_series;
  const auto interval = std::chrono::microseconds(interval_us);
  for (int run = 0; run < common.runs; ++run) {
    const auto d = tail_dataflow_run(common, records, interval, no_watch);
    dataflow_series.add(d);
    print_run(run, "dataflow", d, 1, "worker thread");
    const auto l = tail_reader_run(common, records, interval, no_watch);
    reader_series.add(l);
    print_run(run, "reader thread", l, 1, "reader thread");
    const auto b = tail_condvar_run(records, interval);
    condvar_series.add(b);
    print_run(run, "condition variable", b, 1);
    std::fflush(stdout);
  }
  std::printf(
      "bench: dataflow-tail runs=%d records=%zu every_record_seen_in_order=yes dataflow_p50_us=%.1f "
      "dataflow_p99_us=%.1f "
      "dataflow_p999_us=%.1f reader_p50_us=%.1f reader_p99_us=%.1f reader_p999_us=%.1f condvar_p50_us=%.1f "
      "condvar_p99_us=%.1f condvar_p999_us=%.1f dataflow_worker_cpu_s=%.3f dataflow_worker_core_share=%.3f "
      "reader_thread_cpu_s=%.3f reader_thread_core_share=%.3f\n",
      common.runs, records, median(dataflow_series.p50), median(dataflow_series.p99),
      median(dataflow_series.p999), median(reader_series.p50), median(reader_series.p99),
      median(reader_series.p999), median(condvar_series.p50), median(condvar_series.p99),
      median(condvar_series.p999), median(dataflow_series.cpu_seconds), median(dataflow_series.core_share),
      median(reader_series.cpu_seconds), median(reader_series.core_share));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("durable_bench: the durable log beside the system calls beneath it (benches/README.md)");
  app.require_subcommand(1);
  app.fallthrough();
  Common common;
  app.add_option("--dir", common.dir, "Where the logs and files go (a disk's file system)");
  app.add_option("--runs", common.runs, "Runs of each figure and its baseline, alternating")
      ->check(CLI::Range(1, 101));
  std::size_t record_bytes = 100, batch_records = 1000, batches = 1000, records = 20000, interval_us = 50;
  std::uint64_t bytes = std::uint64_t{256} << 20;
  auto* append = app.add_subcommand("append", "Append rate, Durability::os");
  append->add_option("--record-bytes", record_bytes)->check(CLI::Range(1, 1 << 20));
  append->add_option("--batch-records", batch_records)->check(CLI::Range(1, 1 << 20));
  append->add_option("--bytes", bytes);
  bool pin = false;
  append->add_flag(
      "--pin", pin,
      "Also run the log pinned to a core (the project's --pin policy), alternating with unpinned");
  auto* flush = app.add_subcommand("flush", "Append latency, Durability::every_batch");
  flush->add_option("--record-bytes", record_bytes)->check(CLI::Range(1, 1 << 20));
  flush->add_option("--batch-records", batch_records)->check(CLI::Range(1, 1 << 20));
  flush->add_option("--batches", batches)->check(CLI::Range(1, 1 << 24));
  auto* replay = app.add_subcommand("replay", "Reading a log in the page cache");
  replay->add_option("--record-bytes", record_bytes)->check(CLI::Range(1, 1 << 20));
  replay->add_option("--batch-records", batch_records)->check(CLI::Range(1, 1 << 20));
  replay->add_option("--bytes", bytes);
  auto* dataflow_replay =
      app.add_subcommand("dataflow-replay", "Reading a log in the page cache into a dataflow on one worker");
  dataflow_replay->add_option("--record-bytes", record_bytes)->check(CLI::Range(1, 1 << 20));
  dataflow_replay->add_option("--batch-records", batch_records)->check(CLI::Range(1, 1 << 20));
  dataflow_replay->add_option("--bytes", bytes);
  auto* tail = app.add_subcommand("tail", "Tail-follow latency in one process");
  auto* dataflow_tail = app.add_subcommand(
      "dataflow-tail", "Tail-follow latency from an append to a dataflow seeing the record");
  bool no_watch = false;
  for (auto* mode : {tail, dataflow_tail}) {
    mode->add_option("--records", records)->check(CLI::Range(1, 1 << 24));
    mode->add_option("--interval-us", interval_us)->check(CLI::Range(0, 1000000));
    mode->add_flag("--no-watch", no_watch, "A file system without directory watches (no inotify thread)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // The flush mode defaults to 1 KiB records one per batch, unless given.
  if (flush->parsed()) {
    if (flush->count("--record-bytes") == 0) record_bytes = 1024;
    if (flush->count("--batch-records") == 0) batch_records = 1;
  }
  try {
    if (append->parsed()) return bench_append(common, record_bytes, batch_records, bytes, pin);
    if (flush->parsed()) return bench_flush(common, record_bytes, batch_records, batches);
    if (replay->parsed()) return bench_replay(common, record_bytes, batch_records, bytes);
    if (dataflow_replay->parsed()) return bench_dataflow_replay(common, record_bytes, batch_records, bytes);
    if (dataflow_tail->parsed()) return bench_dataflow_tail(common, records, interval_us, no_watch);
    return bench_tail(common, records, interval_us, no_watch);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "durable_bench: %s\n", e.what());
    return 1;
  }
}
