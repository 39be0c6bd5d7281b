/// \file
/// Private to the communication library: the start-up of the cluster transport, as the
/// reference's `networking::create_sockets`: every address resolves, this process listens on
/// its own, connects (with back-off) to every lower process and accepts every higher one, and
/// each connection completes the handshake of wire.hpp (hello, then verdict) before the
/// deadline. Also the blocking socket helpers with deadlines that the transport uses.
///
/// Source: the reference's `timely_communication::networking` (SEMANTICS.md §7.5 "Connection
/// setup"). Thread-safety: call from one thread; the sockets are then handed over.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio.hpp>

#include <timely/communication/hostfile.hpp>
#include <timely/communication/initialize.hpp>

namespace timely::communication::networking {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

/// Waits until `fd` is ready for `events` or `deadline` passes. Returns false on timeout.
bool wait_ready(int fd, short events, Clock::time_point deadline);
/// Reads exactly `n` bytes before `deadline`. \throws NetworkError naming `what` on timeout,
/// end of stream or error.
void read_exact(tcp::socket& socket, std::uint8_t* data, std::size_t n, Clock::time_point deadline,
                const std::string& what);
/// Writes all `n` bytes. \throws NetworkError naming `what` on error.
void write_all(tcp::socket& socket, const void* data, std::size_t n, const std::string& what);

/// A completion condition for `asio::write` that lets each system call take as much of the
/// buffers as the kernel will: asio's default, `transfer_all`, hands the kernel at most 64 KiB
/// a call, which on loopback costs a wake-up of the reader per 64 KiB.
struct WholeWrites {
  std::size_t operator()(const boost::system::error_code& ec, std::size_t) const noexcept {
    return ec ? 0 : std::size_t{1} << 30;
  }
};

/// `n` bytes from a peer as text safe to print: control characters become \xNN escapes.
std::string printable(const char* data, std::size_t n);
/// "process 3 (host:port)".
std::string describe(std::size_t process, const Address& address);
/// The items joined with ", ", the first `shown` of them only, then "and N more": an error
/// about 60,000 missing processes stays one readable line.
std::string listing(const std::vector<std::string>& items, std::size_t shown = 8);

/// A socket connected to `address` (`who` names it in errors: "process 2 (host:port)"),
/// retrying refused connections with back-off until `deadline`; with `retry_resolution` also a
/// host that does not resolve yet (a Kubernetes pod's name before its DNS record exists).
/// \throws ConfigError if the host does not resolve (without `retry_resolution`); NetworkError
/// if no connection is made in time, naming `who` and the last error.
tcp::socket connect(asio::io_context& io, const ClusterConfig& config, const std::string& who,
                    const Address& address, Clock::time_point deadline, bool retry_resolution);

/// Connects this process (`config.process`) to every other of `config.processes` (W =
/// `workers` each), within `config.connect_timeout`. Returns the blocking sockets in process
/// order, with no socket for this process. `report` receives connection events (for `-r`).
/// `listening`: this process's socket, already listening (the rendezvous bound it), instead of
/// one on `config.addresses[config.process]`; `deadline`: instead of now + the connect timeout.
/// \throws ConfigError for an address that does not resolve or cannot be listened on, or a
/// handshake that shows different arguments; NetworkError if a peer cannot be reached in time.
std::vector<std::optional<tcp::socket>> create_sockets(
    asio::io_context& io, const ClusterConfig& config, std::size_t workers,
    const std::function<void(const std::string&)>& report,
    std::optional<tcp::acceptor> listening = std::nullopt,
    std::optional<Clock::time_point> deadline = std::nullopt);

}  // namespace timely::communication::networking
