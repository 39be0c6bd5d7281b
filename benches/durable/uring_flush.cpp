// uring_flush: whether io_uring would make the durable log's flush-every-batch policy faster than
// pwrite + fdatasync on this machine (benches/README.md, "io_uring"). Appends BATCHES writes of
// BYTES at the end of a file, each made durable before the next, alternately (--runs times):
//   pwrite + fdatasync                       two system calls, as the log's POSIX file system does
//   io_uring: WRITE linked to FSYNC(DATASYNC), one io_uring_submit_and_wait per batch
// and prints p50/p99/p99.9 per-batch latencies and their medians over the runs. Not built by CMake
// (the project does not depend on liburing); by hand, with Debian's liburing-dev:
//
//   g++ -std=c++20 -O2 benches/durable/uring_flush.cpp -luring -o uring_flush
//   ./uring_flush DIR [BYTES=1104] [BATCHES=1000] [RUNS=5]
#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(int error, const char* what) {
  throw std::system_error(error, std::generic_category(), what);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Percentiles {
  double p50, p99, p999;
};

Percentiles percentiles(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto q = [&v](double f) {
    return v[std::min(v.size() - 1, static_cast<std::size_t>(f * (v.size() - 1) + 0.5))];
  };
  return {q(0.5), q(0.99), q(0.999)};
}

int open_fresh(const std::string& path) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail(errno, "open");
  return fd;
}

std::vector<double> run_posix(const std::string& path, const std::vector<char>& bytes, std::size_t batches) {
  const int fd = open_fresh(path);
  std::vector<double> latencies;
  off_t at = 0;
  for (std::size_t i = 0; i < batches; ++i) {
    const auto start = Clock::now();
    if (::pwrite(fd, bytes.data(), bytes.size(), at) != static_cast<ssize_t>(bytes.size()))
      fail(errno, "pwrite");
    if (::fdatasync(fd) != 0) fail(errno, "fdatasync");
    latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    at += static_cast<off_t>(bytes.size());
  }
  ::close(fd);
  return latencies;
}

std::vector<double> run_uring(io_uring& ring, const std::string& path, const std::vector<char>& bytes,
                              std::size_t batches) {
  const int fd = open_fresh(path);
  std::vector<double> latencies;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < batches; ++i) {
    const auto start = Clock::now();
    io_uring_sqe* write = io_uring_get_sqe(&ring);
    io_uring_prep_write(write, fd, bytes.data(), static_cast<unsigned>(bytes.size()), at);
    write->flags |= IOSQE_IO_LINK;  // the sync starts after the write completes
    io_uring_sqe* sync = io_uring_get_sqe(&ring);
    io_uring_prep_fsync(sync, fd, IORING_FSYNC_DATASYNC);
    const int submitted = io_uring_submit_and_wait(&ring, 2);
    if (submitted < 0) fail(-submitted, "io_uring_submit_and_wait");
    for (int k = 0; k < 2; ++k) {
      io_uring_cqe* cqe = nullptr;
      const int r = io_uring_wait_cqe(&ring, &cqe);
      if (r < 0) fail(-r, "io_uring_wait_cqe");
      if (cqe->res < 0) fail(-cqe->res, k == 0 ? "io_uring write" : "io_uring fsync");
      io_uring_cqe_seen(&ring, cqe);
    }
    latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    at += bytes.size();
  }
  ::close(fd);
  return latencies;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: uring_flush DIR [BYTES=1104] [BATCHES=1000] [RUNS=5]\n");
    return 2;
  }
  const std::string path = std::string(argv[1]) + "/uring_flush.bin";
  const std::size_t bytes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1104;
  const std::size_t batches = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 1000;
  const int runs = argc > 4 ? std::atoi(argv[4]) : 5;
  try {
    io_uring ring;
    const int r = io_uring_queue_init(8, &ring, 0);
    if (r < 0) {
      std::printf("io_uring_queue_init: %s: io_uring is not available here\n", std::strerror(-r));
      return 1;
    }
    const std::vector<char> data(bytes, 'x');
    std::vector<double> p50[2], p99[2], p999[2];
    const char* names[2] = {"pwrite+fdatasync", "io_uring write->fsync"};
    for (int run = 0; run < runs; ++run) {
      for (int which = 0; which < 2; ++which) {
        const auto p =
            percentiles(which == 0 ? run_posix(path, data, batches) : run_uring(ring, path, data, batches));
        p50[which].push_back(p.p50);
        p99[which].push_back(p.p99);
        p999[which].push_back(p.p999);
        std::printf("  run %d %s: p50 %.0f us, p99 %.0f us, p99.9 %.0f us\n", run, names[which], p.p50, p.p99,
                    p.p999);
      }
    }
    ::unlink(path.c_str());
    io_uring_queue_exit(&ring);
    for (int which = 0; which < 2; ++which)
      std::printf("bench: %s bytes=%zu batches=%zu runs=%d p50_us=%.0f p99_us=%.0f p999_us=%.0f\n",
                  names[which], bytes, batches, runs, median(p50[which]), median(p99[which]),
                  median(p999[which]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "uring_flush: %s\n", e.what());
    return 1;
  }
  return 0;
}
