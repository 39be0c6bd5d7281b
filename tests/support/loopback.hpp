// Test support: loopback addresses on ports the kernel chose as free, for tests that start
// several processes' worth of cluster allocators in one program.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <vector>

#include <timely/communication/hostfile.hpp>

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

}  // namespace support
