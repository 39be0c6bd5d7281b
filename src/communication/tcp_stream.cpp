// connect_output_stream: a TCP connection to a log collector as a std::ostream (Asio's
// tcp::iostream), retried until the timeout.
#include <timely/communication/tcp_stream.hpp>

#include <thread>

#include <boost/asio/ip/tcp.hpp>

namespace timely::communication {

std::unique_ptr<std::ostream> connect_output_stream(const Address& address, std::chrono::milliseconds timeout,
                                                    const std::string& purpose) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string reason = "no attempt was made";
  for (;;) {
    auto stream = std::make_unique<boost::asio::ip::tcp::iostream>();
    stream->connect(address.host, std::to_string(address.port));
    if (*stream) {
      boost::system::error_code ignored;
      stream->socket().set_option(boost::asio::ip::tcp::no_delay(true), ignored);
      return stream;
    }
    reason = stream->error().message();
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw NetworkError("timely: " + purpose + ": cannot connect to " + address.to_string() + " within " +
                     std::to_string(timeout.count()) + " ms: " + reason + " (is the collector listening?)");
}

}  // namespace timely::communication
