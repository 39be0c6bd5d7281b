// loopback_rtt: the physical limit for two-process coordination. Two threads bounce one byte over
// a TCP loopback connection (TCP_NODELAY, blocking reads) ROUNDS times, after 100 untimed round
// trips; one round trip is the least a two-process progress or data round can cost through the
// kernel on this machine.
// The last line on stderr is the machine-readable timing line benches/run reads.
//   loopback_rtt ROUNDS
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

/// Untimed round trips first, so that both threads and the connection are warm.
constexpr std::uint64_t kWarmup = 100;

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}

void no_delay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0) fail("setsockopt(TCP_NODELAY)");
}

void send_byte(int fd, char c) {
  while (send(fd, &c, 1, 0) != 1)
    if (errno != EINTR) fail("send");
}

char recv_byte(int fd) {
  char c = 0;
  for (;;) {
    const auto n = recv(fd, &c, 1, 0);
    if (n == 1) return c;
    if (n == 0) throw std::runtime_error("recv: connection closed");
    if (errno != EINTR) fail("recv");
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    char* end = nullptr;
    const unsigned long long rounds = argc == 2 ? std::strtoull(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0' || rounds == 0) {
      std::fprintf(stderr, "usage: loopback_rtt ROUNDS (ROUNDS >= 1)\n");
      return 2;
    }
    const int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (listener < 0) fail("socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("bind");
    if (listen(listener, 1) != 0) fail("listen");
    socklen_t len = sizeof addr;
    if (getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) fail("getsockname");

    const int client = socket(AF_INET, SOCK_STREAM, 0);
    if (client < 0) fail("socket");
    if (connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fail("connect");
    const int server = accept(listener, nullptr, nullptr);
    if (server < 0) fail("accept");
    no_delay(client);
    no_delay(server);

    std::string echo_error;
    std::thread echo([&] {
      try {
        for (std::uint64_t i = 0; i < kWarmup + rounds; ++i) send_byte(server, recv_byte(server));
      } catch (const std::exception& e) {
        echo_error = e.what();
      }
    });
    auto round_trip = [&](std::uint64_t i) {
      const char ping = static_cast<char>(i);
      send_byte(client, ping);
      if (recv_byte(client) != ping) throw std::runtime_error("echo returned a different byte");
    };
    auto start = std::chrono::steady_clock::now();
    try {
      for (std::uint64_t i = 0; i < kWarmup; ++i) round_trip(i);
      start = std::chrono::steady_clock::now();
      for (std::uint64_t i = 0; i < rounds; ++i) round_trip(i);
    } catch (...) {
      shutdown(client, SHUT_RDWR);  // ends the echo thread's read, so it can be joined
      echo.join();
      throw;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    echo.join();
    if (!echo_error.empty()) throw std::runtime_error("echo thread: " + echo_error);
    close(client);
    close(server);
    close(listener);
    const double us = seconds * 1e6 / static_cast<double>(rounds);
    std::printf("loopback round trip: %llu in %.3f s (%.3f us per round trip)\n", rounds, seconds, us);
    std::fprintf(stderr, "bench: seconds=%.6f rounds=%llu us_per_round=%.6f\n", seconds, rounds, us);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loopback_rtt: %s\n", e.what());
    return 1;
  }
}
