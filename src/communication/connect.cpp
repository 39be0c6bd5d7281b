// Start-up of the cluster transport: socket helpers with deadlines, resolving, listening,
// connecting with back-off, accepting, and the handshake. See connect.hpp.
#include "connect.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <thread>
#include <utility>

#include <timely/communication/error.hpp>
#include <timely/communication/wire.hpp>

namespace timely::communication::networking {

bool wait_ready(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the following read/write report the error
  }
}

void read_exact(tcp::socket& socket, std::uint8_t* data, std::size_t n, Clock::time_point deadline,
                const std::string& what) {
  std::size_t got = 0;
  while (got < n) {
    if (!wait_ready(socket.native_handle(), POLLIN, deadline))
      throw NetworkError("timely: timed out waiting for " + what);
    boost::system::error_code ec;
    const auto r = socket.read_some(asio::buffer(data + got, n - got), ec);
    if (ec == asio::error::eof)
      throw NetworkError("timely: " + what + ": the peer closed the connection after " + std::to_string(got) +
                         " of " + std::to_string(n) + " bytes");
    if (ec && ec != asio::error::would_block && ec != asio::error::try_again &&
        ec != asio::error::interrupted)
      throw NetworkError("timely: " + what + ": " + ec.message());
    got += r;
  }
}

void write_all(tcp::socket& socket, const void* data, std::size_t n, const std::string& what) {
  boost::system::error_code ec;
  asio::write(socket, asio::buffer(data, n), WholeWrites{}, ec);
  if (ec) throw NetworkError("timely: " + what + ": " + ec.message());
}

std::string printable(const char* data, std::size_t n) {
  std::string out;
  out.reserve(n);
  static constexpr char hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(data[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string describe(std::size_t process, const Address& address) {
  return "process " + std::to_string(process) + " (" + address.to_string() + ")";
}

std::string listing(const std::vector<std::string>& items, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + items[i];
  if (items.size() > shown) out += " and " + std::to_string(items.size() - shown) + " more";
  return out;
}

tcp::socket connect(asio::io_context& io, const ClusterConfig& config, const std::string& who,
                    const Address& address, Clock::time_point deadline, bool retry_resolution) {
  tcp::socket socket(io);
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  auto backoff = std::chrono::milliseconds(10);
  std::string last_error = "no attempt";
  tcp::resolver::results_type endpoints;
  const auto pause = [&] {
    std::this_thread::sleep_for(std::min<Clock::duration>(
        backoff, std::max<Clock::duration>(deadline - Clock::now(), Clock::duration::zero())));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(500));
  };
  while (Clock::now() < deadline) {
    if (endpoints.empty()) {
      endpoints = resolver.resolve(address.host, std::to_string(address.port), ec);
      if (ec || endpoints.empty()) {
        if (!retry_resolution)
          throw ConfigError("timely: cannot resolve the host of " + who + ": " + ec.message());
        last_error = "cannot resolve " + address.host + ": " + ec.message();
        endpoints = {};
        pause();
        continue;
      }
    }
    for (const auto& entry : endpoints) {
      socket = tcp::socket(io);
      socket.open(entry.endpoint().protocol(), ec);
      if (ec) {
        last_error = ec.message();
        continue;
      }
      socket.non_blocking(true);
      socket.connect(entry.endpoint(), ec);
      if (ec == asio::error::in_progress || ec == asio::error::would_block) {
        const auto attempt_deadline = std::min(deadline, Clock::now() + std::chrono::seconds(5));
        if (!wait_ready(socket.native_handle(), POLLOUT, attempt_deadline)) {
          last_error = "connection attempt timed out";
          continue;
        }
        int error = 0;
        socklen_t len = sizeof(error);
        ::getsockopt(socket.native_handle(), SOL_SOCKET, SO_ERROR, &error, &len);
        ec = error ? boost::system::error_code(error, boost::system::system_category())
                   : boost::system::error_code();
      }
      if (!ec) {
        socket.non_blocking(false);
        return socket;
      }
      last_error = ec.message();
    }
    pause();
  }
  throw NetworkError("timely: process " + std::to_string(config.process) + " could not connect to " + who +
                     " within " + std::to_string(config.connect_timeout.count()) +
                     " ms (last error: " + last_error + ")");
}

namespace {

/// Exchanges hellos and verdicts. `expected` is the peer's index when we connected to it.
/// Returns the peer's index. Throws ConfigError if either side rejects. `sockets` holds the
/// connections made so far (a second process claiming an index is rejected).
std::uint32_t handshake(tcp::socket& socket, const ClusterConfig& config, std::size_t workers,
                        const std::vector<std::optional<tcp::socket>>& sockets,
                        std::optional<std::uint32_t> expected, Clock::time_point deadline) {
  const std::string who =
      expected ? describe(*expected, config.addresses[*expected]) : "a connecting process";
  wire::Hello mine;
  mine.process = static_cast<std::uint32_t>(config.process);
  mine.processes = static_cast<std::uint32_t>(config.processes);
  mine.workers = static_cast<std::uint32_t>(workers);
  const auto hello = wire::encode_hello(mine);
  write_all(socket, hello.data(), hello.size(), "handshake with " + who);
  std::array<std::uint8_t, wire::hello_size> theirs_bytes{};
  read_exact(socket, theirs_bytes.data(), theirs_bytes.size(), deadline, "the handshake of " + who);
  std::string verdict;
  wire::Hello theirs;
  try {
    theirs = wire::parse_hello(theirs_bytes);
    verdict = wire::check_hello(mine, theirs, expected);
    if (verdict.empty() && !expected) {
      if (theirs.process < config.process)
        verdict = "process " + std::to_string(theirs.process) + " connected to process " +
                  std::to_string(config.process) +
                  ", but lower processes are connected to, not from (check -p)";
      else if (sockets[theirs.process])
        verdict = "two processes claim index " + std::to_string(theirs.process) + " (check the -p arguments)";
    }
  } catch (const wire::ProtocolError& e) {
    verdict = e.what();
    // A stranger: say why, best effort, and fail.
    const auto bytes = wire::encode_verdict(verdict);
    boost::system::error_code ignored;
    asio::write(socket, asio::buffer(bytes), ignored);
    throw ConfigError("timely: process " + std::to_string(config.process) + ": bad handshake from " + who +
                      ": " + verdict);
  }
  const auto bytes = wire::encode_verdict(verdict);
  write_all(socket, bytes.data(), bytes.size(), "handshake with " + who);
  std::array<std::uint8_t, 8> head_bytes{};
  std::string their_verdict;
  bool accepted = true;
  // Having rejected, wait only briefly for the peer's verdict: our own reason is what matters.
  const auto verdict_deadline =
      verdict.empty() ? deadline : std::min(deadline, Clock::now() + std::chrono::seconds(1));
  try {
    read_exact(socket, head_bytes.data(), head_bytes.size(), verdict_deadline,
               "the handshake verdict of " + who);
    const auto head = wire::parse_verdict_head(std::span<const std::uint8_t, 8>(head_bytes));
    their_verdict.resize(head.length);
    if (head.length)
      read_exact(socket, reinterpret_cast<std::uint8_t*>(their_verdict.data()), head.length, verdict_deadline,
                 "the handshake verdict of " + who);
    accepted = head.accept;
  } catch (const std::exception&) {
    if (!verdict.empty())
      throw ConfigError("timely: process " + std::to_string(config.process) + ": " + verdict);
    throw;
  }
  if (!verdict.empty())
    throw ConfigError("timely: process " + std::to_string(config.process) + ": " + verdict);
  if (!accepted)
    throw ConfigError("timely: process " + std::to_string(theirs.process) + " rejected process " +
                      std::to_string(config.process) + ": " + their_verdict);
  return theirs.process;
}

}  // namespace

std::vector<std::optional<tcp::socket>> create_sockets(asio::io_context& io, const ClusterConfig& config,
                                                       std::size_t workers,
                                                       const std::function<void(const std::string&)>& report,
                                                       std::optional<tcp::acceptor> listening,
                                                       std::optional<Clock::time_point> given_deadline) {
  const auto deadline = given_deadline.value_or(Clock::now() + config.connect_timeout);
  const std::size_t me = config.process;
  std::vector<std::optional<tcp::socket>> sockets(config.processes);
  const auto& mine = config.addresses[me];

  // Every address must resolve, whether we connect to it or it connects to us: a typo in the
  // hostfile is reported now, not as a connect timeout a minute later.
  for (std::size_t p = 0; p < config.processes; ++p) {
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    auto endpoints = resolver.resolve(config.addresses[p].host, std::to_string(config.addresses[p].port), ec);
    if (ec || endpoints.empty())
      throw ConfigError("timely: cannot resolve the address of " + describe(p, config.addresses[p]) + ": " +
                        (ec ? ec.message() : std::string("no addresses")));
  }

  // Listen on this process's line of the hostfile (unless the rendezvous did).
  tcp::acceptor acceptor(io);
  if (listening) {
    acceptor = std::move(*listening);
  } else {
    boost::system::error_code ec;
    tcp::resolver resolver(io);
    auto endpoints = resolver.resolve(mine.host, std::to_string(mine.port), ec);
    if (ec || endpoints.empty())
      throw ConfigError("timely: cannot resolve this process's address " + mine.to_string() + " (process " +
                        std::to_string(me) + " in the hostfile): " + ec.message());
    const tcp::endpoint endpoint = *endpoints.begin();
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(static_cast<int>(std::max<std::size_t>(config.processes, 16)), ec);
    if (ec)
      throw ConfigError("timely: process " + std::to_string(me) + " cannot listen on " + mine.to_string() +
                        ": " + ec.message() +
                        (ec == asio::error::address_in_use
                             ? " (is another process already running with -p " + std::to_string(me) + "?)"
                             : ""));
    acceptor.non_blocking(true);
    report("process " + std::to_string(me) + " listening on " + mine.to_string());
  }

  // Connect to every lower process; the higher ones connect to us.
  for (std::size_t peer = 0; peer < me; ++peer) {
    tcp::socket socket =
        connect(io, config, describe(peer, config.addresses[peer]), config.addresses[peer], deadline, false);
    handshake(socket, config, workers, sockets, static_cast<std::uint32_t>(peer), deadline);
    report("connected to " + describe(peer, config.addresses[peer]));
    sockets[peer].emplace(std::move(socket));
  }
  std::size_t waiting = config.processes - 1 - me;
  while (waiting > 0) {
    if (!wait_ready(acceptor.native_handle(), POLLIN, deadline)) {
      std::vector<std::string> missing;
      for (std::size_t p = me + 1; p < config.processes; ++p)
        if (!sockets[p]) missing.push_back(describe(p, config.addresses[p]));
      throw NetworkError("timely: process " + std::to_string(me) + " timed out after " +
                         std::to_string(config.connect_timeout.count()) + " ms waiting for " +
                         listing(missing) + " to connect");
    }
    tcp::socket socket(io);
    boost::system::error_code ec;
    acceptor.accept(socket, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again || ec == asio::error::interrupted ||
        ec == asio::error::connection_aborted)
      continue;
    if (ec)
      throw NetworkError("timely: process " + std::to_string(me) +
                         " failed to accept a connection: " + ec.message());
    socket.non_blocking(false);
    const auto peer = handshake(socket, config, workers, sockets, std::nullopt, deadline);
    if (sockets[peer]) {
      // Both sides learn of it: handshake() already accepted, so the newcomer hears it here.
      throw ConfigError("timely: two processes claim index " + std::to_string(peer) +
                        " (check the -p arguments)");
    }
    report("accepted " + describe(peer, config.addresses[peer]));
    sockets[peer].emplace(std::move(socket));
    --waiting;
  }
  acceptor.close();
  return sockets;
}

}  // namespace timely::communication::networking
