// capture_send: captures a stream into a TCP connection, for capture_recv to replay in another
// process. Worker i connects to HOST:(PORT + i) (default 127.0.0.1:8000, as in the reference;
// it retries for up to five seconds while nobody listens), sends the numbers 0..9, number x at
// time x, and writes everything the stream does (records and frontier changes) to the connection
// in timely's binary event format (capture/format.hpp). It prints "sent: TIME RECORD" lines.
//   capture_send [HOST:PORT] [-w N]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include <timely/timely.hpp>

#include "common.hpp"
#include "tcp_address.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Writer = timely::capture::EventWriter<Time, std::uint64_t>;

namespace {

/// Connects to `base` + `offset`, retrying for up to five seconds. \throws std::runtime_error.
std::unique_ptr<boost::asio::ip::tcp::iostream> connect(const examples::TcpBase& base, std::uint64_t offset) {
  const boost::asio::ip::tcp::endpoint endpoint(base.address, static_cast<std::uint16_t>(base.port + offset));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    auto stream = std::make_unique<boost::asio::ip::tcp::iostream>();
    stream->connect(endpoint);
    if (*stream) return stream;
    if (std::chrono::steady_clock::now() >= deadline)
      throw std::runtime_error("cannot connect to " + base.describe(offset) + ": " +
                               stream->error().message() + " (is capture_recv listening?)");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("capture_send", "[HOST:PORT] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() > 1)
      throw examples::positional_error(config.positional, "expected at most HOST:PORT");
    const auto base = config.positional.empty()
                          ? examples::TcpBase{}
                          : examples::parse_tcp_base(config.positional[0], config.workers);
    timely::execute(config, [&](timely::Worker& worker) {
      const std::size_t index = worker.index();
      Writer writer(connect(base, index));
      worker.dataflow<Time>([&](auto& scope) {
        std::vector<std::uint64_t> records(10);
        std::iota(records.begin(), records.end(), std::uint64_t{0});
        to_stream(scope, std::move(records)) | delay_total([](const std::uint64_t& x, const Time&) {
          return Time{x};
        }) | inspect_time([](const Time& t, const std::uint64_t& x) {
          std::printf("sent: %llu %llu\n", static_cast<unsigned long long>(t),
                      static_cast<unsigned long long>(x));
        }) | capture_into(std::move(writer));
      });
    });
    std::printf("capture_send: %zu workers sent 10 records each to %s..%s\n", config.workers,
                base.describe().c_str(), base.describe(config.workers - 1).c_str());
  });
}
