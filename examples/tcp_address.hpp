// What capture_send and capture_recv share: the HOST:PORT argument. Worker (or stream) i uses
// port PORT + i, as in the reference, which fixes 127.0.0.1:8000.
#pragma once

#include <cstdint>
#include <string>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

#include "common.hpp"

#include <timely/communication/error.hpp>

namespace examples {

/// An IP address and the first of a run of consecutive ports.
struct TcpBase {
  boost::asio::ip::address address = boost::asio::ip::make_address("127.0.0.1");
  std::uint16_t port = 8000;

  /// "HOST:PORT+offset", for messages.
  [[nodiscard]] std::string describe(std::uint64_t offset = 0) const {
    const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
    return host + ":" + std::to_string(port + offset);
  }
};

/// Parses "HOST:PORT" (IPv6 as "[HOST]:PORT") for `count` consecutive ports starting at PORT.
/// \throws timely::ConfigError naming the problem.
inline TcpBase parse_tcp_base(const std::string& text, std::uint64_t count) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
    throw timely::ConfigError("expected an address HOST:PORT (like 127.0.0.1:8000), got '" + text + "'");
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  TcpBase base;
  boost::system::error_code error;
  base.address = boost::asio::ip::make_address(host, error);
  if (error) throw timely::ConfigError("'" + host + "' in '" + text + "' is not an IP address");
  const auto port = parse_count(text.substr(colon + 1), "PORT");
  if (port == 0 || port > 65535)
    throw timely::ConfigError("PORT must be between 1 and 65535, got " + std::to_string(port));
  if (count > 0 && port + count - 1 > 65535)
    throw timely::ConfigError("ports " + std::to_string(port) + ".." + std::to_string(port + count - 1) +
                              " do not all exist (the largest port is 65535)");
  base.port = static_cast<std::uint16_t>(port);
  return base;
}

}  // namespace examples
