/// \file
/// `connect_output_stream`: a blocking TCP connection to a collector, as a `std::ostream`, for
/// the log sinks that stream a worker's events to another process (`TIMELY_WORKER_LOG_ADDR`,
/// `TIMELY_PROGRESS_LOG_ADDR`; timely/execute.hpp). Written with an `EventWriter`
/// (capture/writer.hpp); the collector reads it with an `EventReader`.
///
/// The stream is Boost.Asio's `ip::tcp::iostream` with `TCP_NODELAY` set (small batches reach
/// the collector at each flush), compiled in src/communication/ so that no public header
/// includes Asio. Writes block while the peer's receive window is full. A write to a connection
/// the peer closed fails the stream (`!stream`), and the writer reports it; `SIGPIPE` is not
/// raised (Asio sends with `MSG_NOSIGNAL`).
///
/// Source: the reference's logging to `TcpStream`s in `timely::execute` (SEMANTICS.md §8.1).
/// Thread-safety: the function may be called from any thread; a stream belongs to one thread.
#pragma once

#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include <timely/communication/error.hpp>
#include <timely/communication/hostfile.hpp>

namespace timely::communication {

/// Connects to `address`, retrying every 50 ms while nobody accepts (a collector that is still
/// starting), for at most `timeout`. `purpose` names what the connection is for in errors (the
/// environment variable that asked for it).
/// \throws NetworkError naming `purpose`, the address, the timeout and the last reason (name
/// resolution or connection failure) when no connection was made in time.
std::unique_ptr<std::ostream> connect_output_stream(const Address& address, std::chrono::milliseconds timeout,
                                                    const std::string& purpose);

}  // namespace timely::communication
