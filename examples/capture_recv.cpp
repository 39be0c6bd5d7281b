// capture_recv: replays streams that capture_send captured into TCP connections. It listens on
// HOST:(PORT + i) for each source worker i < SOURCE_PEERS (default 127.0.0.1:8000, as in the
// reference), prints "capture_recv: listening on ..." once it does, and worker w accepts and
// replays the connections i with i % workers == w, so any number of workers may replay any
// number of captured streams. It prints "replayed: TIME RECORD" for every record, then a summary
// once the replayed stream is complete.
//   capture_recv SOURCE_PEERS [HOST:PORT] [-w N]
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/system_error.hpp>

#include <timely/timely.hpp>

#include "common.hpp"
#include "tcp_address.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Reader = timely::capture::EventReader<Time, std::uint64_t>;
using boost::asio::ip::tcp;

int main(int argc, char** argv) {
  return examples::guarded_main("capture_recv", "SOURCE_PEERS [HOST:PORT] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.empty() || config.positional.size() > 2)
      throw examples::positional_error(config.positional, "expected SOURCE_PEERS and at most HOST:PORT");
    const auto sources = examples::parse_count(config.positional[0], "SOURCE_PEERS");
    if (sources == 0 || sources > 4096) throw timely::ConfigError("SOURCE_PEERS must be between 1 and 4096");
    const auto base = config.positional.size() > 1 ? examples::parse_tcp_base(config.positional[1], sources)
                                                   : examples::TcpBase{};

    // Listen on every port before any worker starts, so a busy port is reported at once.
    boost::asio::io_context context;
    std::vector<std::unique_ptr<tcp::acceptor>> listeners;
    for (std::uint64_t i = 0; i < sources; ++i) {
      const tcp::endpoint endpoint(base.address, static_cast<std::uint16_t>(base.port + i));
      try {
        listeners.push_back(std::make_unique<tcp::acceptor>(context, endpoint));
      } catch (const boost::system::system_error& e) {
        throw std::runtime_error("cannot listen on " + base.describe(i) + ": " + e.code().message());
      }
    }
    const std::string ports = base.describe() + (sources > 1 ? ".." + base.describe(sources - 1) : "");
    std::printf("capture_recv: listening on %s\n", ports.c_str());
    std::fflush(stdout);

    std::atomic<std::uint64_t> replayed{0};
    timely::execute(config, [&](timely::Worker& worker) {
      // This worker's share of the captured streams: accept each connection, read it as events.
      std::vector<Reader> readers;
      for (std::uint64_t i = worker.index(); i < sources; i += worker.peers()) {
        auto stream = std::make_unique<tcp::iostream>();
        boost::system::error_code error;
        listeners[i]->accept(stream->socket(), error);
        if (error)
          throw std::runtime_error("accepting on " + base.describe(i) + " failed: " + error.message());
        listeners[i]->close();
        readers.emplace_back(std::unique_ptr<std::istream>(std::move(stream)));
      }
      timely::ProbeHandle<Time> probe;
      std::uint64_t seen = 0;
      worker.dataflow<Time>([&](auto& scope) {
        replay_into(scope, std::move(readers)) | inspect_time([&](const Time& t, const std::uint64_t& x) {
          std::printf("replayed: %llu %llu\n", static_cast<unsigned long long>(t),
                      static_cast<unsigned long long>(x));
          ++seen;
        }) | probe_with(probe);
      });
      while (!probe.done()) worker.step();
      replayed += seen;
    });
    std::printf("capture_recv: replayed %llu records from %llu streams on %zu workers\n",
                static_cast<unsigned long long>(replayed.load()), static_cast<unsigned long long>(sources),
                config.workers);
  });
}
