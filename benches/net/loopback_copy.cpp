// loopback_copy: the physical baseline for the cluster allocator. Sends BYTES bytes (in writes
// of CHUNK bytes) from one thread to another over a TCP loopback connection, as fast as the
// kernel allows, and prints the rate. Compare with the bytes/s of `exchange` across two
// processes (benches/net/cluster_medians.sh runs both).
//
//   loopback_copy [BYTES] [CHUNK]      (defaults: 4 GiB, 1 MiB)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio.hpp>

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

int main(int argc, char** argv) {
  try {
    const std::uint64_t bytes = argc > 1 ? std::stoull(argv[1]) : (std::uint64_t{4} << 30);
    const std::size_t chunk = argc > 2 ? std::stoul(argv[2]) : (std::size_t{1} << 20);
    if (chunk == 0) throw std::invalid_argument("CHUNK must be positive");
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    const auto port = acceptor.local_endpoint().port();
    std::uint64_t received = 0;
    std::thread reader([&] {
      tcp::socket socket(io);
      acceptor.accept(socket);
      std::vector<char> buf(chunk);
      boost::system::error_code ec;
      for (;;) {
        const auto n = socket.read_some(asio::buffer(buf), ec);
        received += n;
        if (ec) break;
      }
    });
    tcp::socket socket(io);
    socket.connect(tcp::endpoint(asio::ip::address_v4::loopback(), port));
    std::vector<char> buf(chunk, 'x');
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t sent = 0;
    while (sent < bytes) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, bytes - sent));
      asio::write(socket, asio::buffer(buf.data(), n));
      sent += n;
    }
    socket.shutdown(tcp::socket::shutdown_send);
    reader.join();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (received != bytes) throw std::runtime_error("received " + std::to_string(received) + " bytes");
    std::printf("loopback: %llu bytes in %.3f s: %.3e bytes/s\n", static_cast<unsigned long long>(bytes),
                secs, static_cast<double>(bytes) / secs);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "loopback_copy: %s\n", e.what());
    return 1;
  }
}
