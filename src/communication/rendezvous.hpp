/// \file
/// Private to the communication library: start-up without a hostfile. Every process is told one
/// address, the rendezvous (`ClusterConfig::rendezvous`), which process 0 serves. Each process
/// listens on a port of its own (`ClusterConfig::listen_port`, 0: the system chooses), registers
/// that address there, and receives the table of every process's address; then the handshake of
/// connect.cpp runs on that table as it does on a hostfile's.
///
/// The messages (every integer little-endian):
///
///     register := magic "TIMELYRV" (8 bytes), version u32 = 1, kind u32 = 1,
///                 process u32, processes u32, workers u32, port u16, host length u16, host bytes
///     table    := magic, version u32 = 1, kind u32 = 2, count u32 (= processes),
///                 count x (port u16, host length u16, host bytes)
///     refusal  := magic, version u32 = 1, kind u32 = 3, error class u32 (1 configuration,
///                 2 network), length u32 (at most 4096), message bytes
///
/// A process registers the address of the interface it reached the rendezvous through, so the
/// table holds addresses that route; but when the rendezvous is a host name that resolves to
/// loopback here (Debian maps a host's own name to 127.0.1.1), which routes from no other host,
/// a process listens on every interface and registers this host's name instead (process 0: the
/// rendezvous's name). Process 0 checks every registration (the magic and version,
/// the same -n and -w as its own, an index below P, no index twice) and sends the table when
/// all P - 1 have registered, or a refusal naming the failure to every process it has heard from
/// (and to latecomers until the deadline); a process missing at the deadline or a stranger that
/// sends anything else fails it too. Every failure is an error on every process within the
/// connect timeout (a registered process waits 2 s beyond it for process 0's reason).
///
/// Thread-safety: call from one thread, at start-up.
#pragma once

#include <optional>
#include <vector>

#include "connect.hpp"

namespace timely::communication::rendezvous {

/// The table of every process's address and this process's listening socket, bound and
/// listening (handed to `networking::create_sockets`).
struct Result {
  std::vector<Address> addresses;
  networking::tcp::acceptor acceptor;
};

/// Runs the rendezvous of `config` (`config.rendezvous` is set) for this process, before
/// `deadline`. \throws ConfigError for a registration that does not fit (another -n or -w, two
/// processes with one index), a rendezvous at 0.0.0.0 or :: (it reaches no process 0 from
/// elsewhere) or an address that cannot be listened on; NetworkError if the
/// rendezvous cannot be reached, a process is missing at the deadline, or a stranger connects;
/// on the other processes, the same class quoting process 0's message.
Result run(networking::asio::io_context& io, const ClusterConfig& config, std::size_t workers,
           networking::Clock::time_point deadline, const std::function<void(const std::string&)>& report);

}  // namespace timely::communication::rendezvous
