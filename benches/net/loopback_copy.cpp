// loopback_copy: the physical baseline for the cluster allocator. Sends BYTES bytes (in writes
// of CHUNK bytes, one system call each) from one thread to another over a TCP loopback connection, as fast as
// the kernel allows, and prints the rate. Compare with the bytes/s of `exchange` across two processes
// (benches/net/cluster_medians.sh runs both).
//
//   loopback_copy [BYTES] [CHUNK] [--both]      (defaults: 4 GiB, 1 MiB; at most 2^40 and 64 MiB)
//
// --both: both ends of the one connection send BYTES at the same time, each end with a writing
// and a reading thread (four threads), as two processes of `exchange -n 2` do: each sends its
// share to the other over one full-duplex connection, with a send and a receive thread per peer
// (src/communication/transport.cpp). That is the fair baseline for them: the two directions share
// the CPUs and the kernel's loopback path. Prints first the rate each way while both directions
// ran: the bytes both readers had when the first of them saw the end, over that time, halved.
// The two directions rarely get equal shares, and the first to finish leaves the CPUs to the
// other, so neither the mean of each direction's own rate (biased up: the faster one is timed
// only while it had the larger share) nor the total over the whole time (biased down: the tail
// is one direction alone) measures the two at once. Then each direction's own rate, and the
// total over the whole time.
//
// Both modes also print the process's CPU time (user + sys, getrusage) over the copy and the
// bytes moved per CPU-second, which a loaded machine disturbs less than the wall-time rate.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>

#include "../workloads/parse_count.hpp"
#include "cpu_seconds.hpp"

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

/// Reads `socket` to its end; returns the bytes read. `progress`, if given, holds the bytes read
/// so far, for another thread to sample.
std::uint64_t read_all(tcp::socket& socket, std::size_t chunk,
                       std::atomic<std::uint64_t>* progress = nullptr) {
  std::vector<char> buf(chunk);
  std::uint64_t received = 0;
  boost::system::error_code ec;
  for (;;) {
    const auto n = socket.read_some(asio::buffer(buf), ec);
    received += n;
    if (progress) progress->store(received, std::memory_order_relaxed);
    if (ec) break;
  }
  return received;
}

/// Writes `bytes` bytes to `socket` in writes of `chunk`, then ends the sending direction.
void write_all(tcp::socket& socket, std::uint64_t bytes, std::size_t chunk) {
  std::vector<char> buf(chunk, 'x');
  std::uint64_t sent = 0;
  while (sent < bytes) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - sent));
    // One system call per CHUNK where the kernel takes it whole: asio's default completion
    // condition would hand the kernel at most 64 KiB a call.
    const auto whole = [](const boost::system::error_code& ec, std::size_t) -> std::size_t {
      return ec ? 0 : std::size_t{1} << 30;
    };
    asio::write(socket, asio::buffer(buf.data(), n), whole);
    sent += n;
  }
  socket.shutdown(tcp::socket::shutdown_send);
}

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

int main(int argc, char** argv) {
  const char* const usage =
      "usage: loopback_copy [BYTES] [CHUNK] [--both]  (BYTES 1 to 2^40, default 4 GiB; "
      "CHUNK 1 to 64 MiB, default 1 MiB)";
  try {
    std::vector<std::string> args;
    bool both = false;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help") {
        std::printf("%s\n", usage);
        return 0;
      }
      if (arg == "--both") {
        if (both) throw std::invalid_argument("--both given twice");
        both = true;
      } else if (arg.size() > 1 && arg[0] == '-' && (arg[1] < '0' || arg[1] > '9')) {
        throw std::invalid_argument("unknown option '" + arg + "'");
      } else {
        args.push_back(arg);
      }
    }
    if (args.size() > 2) throw std::invalid_argument("more than two numbers given");
    // A number of `what` from 1 to `most`, all of `text` in decimal digits.
    auto number = [](const std::string& text, const char* what, unsigned long long most) {
      unsigned long long value = 0;
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
          !baseline::parse_count(text.c_str(), value) || value < 1 || value > most)
        throw std::invalid_argument(std::string("expected ") + what + " from 1 to " + std::to_string(most) +
                                    ", got '" + text + "'");
      return value;
    };
    const std::uint64_t bytes =
        !args.empty() ? number(args[0], "BYTES", 1ULL << 40) : (std::uint64_t{4} << 30);
    const auto chunk =
        static_cast<std::size_t>(args.size() > 1 ? number(args[1], "CHUNK", 64ULL << 20) : 1ULL << 20);
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    const auto port = acceptor.local_endpoint().port();
    tcp::socket a(io), b(io);  // a: the connecting end, b: the accepted end
    a.connect(tcp::endpoint(asio::ip::address_v4::loopback(), port));
    acceptor.accept(b);

    if (!both) {
      std::uint64_t received = 0;
      const double cpu0 = bench::process_cpu_seconds();
      const auto start = Clock::now();
      std::thread reader([&] { received = read_all(b, chunk); });
      write_all(a, bytes, chunk);
      reader.join();
      const double secs = since(start), cpu = bench::process_cpu_seconds() - cpu0;
      if (received != bytes) throw std::runtime_error("received " + std::to_string(received) + " bytes");
      std::printf("loopback: %llu bytes in %.3f s: %.3e bytes/s; cpu %.3f s: %.3e bytes per cpu-second\n",
                  static_cast<unsigned long long>(bytes), secs, static_cast<double>(bytes) / secs, cpu,
                  static_cast<double>(bytes) / cpu);
      return 0;
    }

    // Both directions at once: each end writes from one thread and reads from another.
    std::uint64_t got_a = 0, got_b = 0;
    double secs_a = 0, secs_b = 0;                // until the reader at that end saw the end of the stream
    std::atomic<std::uint64_t> at_a{0}, at_b{0};  // bytes read so far at each end
    std::mutex first_mutex;                       // the first reader to finish samples the other
    double first_secs = 0;
    std::uint64_t other_at_first = 0;
    bool a_saw_end_first = false;  // b->a finished first
    std::atomic<bool> go{false};
    const double cpu0 = bench::process_cpu_seconds();
    const auto start = Clock::now();
    auto wait_go = [&] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    };
    auto finished = [&](double secs, const std::atomic<std::uint64_t>& other, bool at_a_end) {
      std::lock_guard lock(first_mutex);
      if (first_secs > 0) return;
      first_secs = secs;
      other_at_first = other.load(std::memory_order_relaxed);
      a_saw_end_first = at_a_end;
    };
    std::thread read_a([&] {
      got_a = read_all(a, chunk, &at_a);
      secs_a = since(start);
      finished(secs_a, at_b, true);
    });
    std::thread read_b([&] {
      got_b = read_all(b, chunk, &at_b);
      secs_b = since(start);
      finished(secs_b, at_a, false);
    });
    std::thread write_b([&] {
      wait_go();
      write_all(b, bytes, chunk);
    });
    go.store(true, std::memory_order_release);
    write_all(a, bytes, chunk);
    write_b.join();
    read_a.join();
    read_b.join();
    const double secs = since(start), cpu = bench::process_cpu_seconds() - cpu0;
    if (got_a != bytes || got_b != bytes)
      throw std::runtime_error("received " + std::to_string(got_b) + " and " + std::to_string(got_a) +
                               " bytes");
    const double ab = static_cast<double>(bytes) / secs_b, ba = static_cast<double>(bytes) / secs_a;
    const double together = static_cast<double>(bytes + other_at_first) / first_secs / 2;
    const double first_rate = static_cast<double>(bytes) / first_secs;
    const double other_rate = static_cast<double>(other_at_first) / first_secs;
    std::printf(
        "loopback both ways: %llu bytes each way in %.3f s: %.3e bytes/s each way while both ran "
        "(%.3f s; a->b %.3e, b->a %.3e); own rates a->b %.3e, b->a %.3e; %.3e bytes/s total; "
        "cpu %.3f s: %.3e bytes per cpu-second\n",
        static_cast<unsigned long long>(bytes), secs, together, first_secs,
        a_saw_end_first ? other_rate : first_rate, a_saw_end_first ? first_rate : other_rate, ab, ba,
        2 * static_cast<double>(bytes) / secs, cpu, 2 * static_cast<double>(bytes) / cpu);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "loopback_copy: %s\n%s\n", e.what(), usage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loopback_copy: %s\n", e.what());
    return 1;
  }
}
