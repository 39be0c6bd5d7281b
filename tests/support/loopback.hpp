// Test support: loopback addresses on ports the kernel chose as free, for tests that start
// several processes' worth of cluster allocators in one program.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netdb.h>

#include <chrono>
#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <timely/communication/hostfile.hpp>
#include <timely/communication/initialize.hpp>

#include "support/catch.hpp"

namespace support {

/// `n` loopback addresses on ports the kernel chose as free (bound to port 0, then released; a
/// program that takes one in between makes the test fail with a connect error, not hang).
inline std::vector<timely::communication::Address> free_loopback_addresses(std::size_t n) {
  std::vector<timely::communication::Address> addresses;
  std::vector<int> sockets;
  for (std::size_t i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    addresses.push_back(timely::communication::Address{"127.0.0.1", ntohs(addr.sin_port)});
    sockets.push_back(fd);
  }
  for (const int fd : sockets) ::close(fd);
  return addresses;
}

/// The configuration of process `p` of a cluster of `addresses.size()` processes on
/// `addresses`, with `workers` workers each and a 20 s connect timeout.
inline timely::communication::Config cluster_config(
    const std::vector<timely::communication::Address>& addresses, std::size_t p, std::size_t workers = 1) {
  timely::communication::Config config;
  config.workers = workers;
  config.cluster.processes = addresses.size();
  config.cluster.process = p;
  config.cluster.addresses = addresses;
  config.cluster.connect_timeout = std::chrono::seconds(20);
  return config;
}

/// Runs `processes` processes' worth of work as threads of this program, process `p` calling
/// `body(p)`, and rethrows the first process's failure once every thread has finished.
template <class Body>
void run_processes(std::size_t processes, Body&& body) {
  std::vector<std::exception_ptr> errors(processes);
  std::vector<std::thread> threads;
  for (std::size_t p = 0; p < processes; ++p)
    threads.emplace_back([&body, &errors, p] {
      try {
        body(p);
      } catch (...) {
        errors[p] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// A socket listening on the IPv4 `address` (a squatter on a port); close it with `close_socket`.
inline int listen_on(const timely::communication::Address& address) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  REQUIRE(::inet_pton(AF_INET, address.host.c_str(), &addr.sin_addr) == 1);
  addr.sin_port = htons(address.port);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(fd, 8) == 0);
  return fd;
}

inline void close_socket(int fd) { ::close(fd); }

/// Connects to the IPv4 `address` (retrying for up to 10 s while it refuses), sends `bytes`,
/// keeps the connection open for `hold`, and closes: a stranger that speaks another protocol (or,
/// with no bytes, a port check).
inline void connect_and_send(const timely::communication::Address& address, const std::string& bytes,
                             std::chrono::milliseconds hold = std::chrono::milliseconds(0)) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  REQUIRE(::inet_pton(AF_INET, address.host.c_str(), &addr.sin_addr) == 1);
  addr.sin_port = htons(address.port);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
      std::this_thread::sleep_for(hold);
      ::close(fd);
      return;
    }
    ::close(fd);
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace support
