// The rendezvous start-up (rendezvous.hpp): process 0 collects every process's listening address
// and sends the table; the others register and receive it.
#include "rendezvous.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <thread>
#include <utility>

#include <timely/communication/error.hpp>

namespace timely::communication::rendezvous {

namespace {

namespace asio = boost::asio;
using networking::Clock;
using networking::tcp;

constexpr std::array<std::uint8_t, 8> kMagic{'T', 'I', 'M', 'E', 'L', 'Y', 'R', 'V'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kRegister = 1;
constexpr std::uint32_t kTable = 2;
constexpr std::uint32_t kRefusal = 3;
constexpr std::uint32_t kConfigClass = 1;
constexpr std::uint32_t kNetworkClass = 2;
constexpr std::size_t kMaxMessage = 4096;
constexpr std::size_t kHeader = 8 + 4 + 4;                // magic, version, kind
constexpr std::size_t kRegisterBody = 4 + 4 + 4 + 2 + 2;  // process, processes, workers, port, host length
/// How long a registered process waits beyond its deadline for process 0's reason.
constexpr auto kGrace = std::chrono::seconds(2);
/// How long one connection may take to send its registration (a stranger that sends nothing).
constexpr auto kRegistrationWait = std::chrono::seconds(5);
/// How long a connection may stay silent before it is taken for a probe and dropped: a process
/// writes its registration as soon as it has connected; a port check (`nc -z`, a Kubernetes
/// TCP probe) connects and sends nothing. Registrations are read one at a time, so a silent
/// connection must not hold the others up for long, nor fail the computation.
constexpr auto kFirstByteWait = std::chrono::seconds(2);

void put16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
std::uint16_t get16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t get32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::vector<std::uint8_t> header(std::uint32_t kind) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  put32(out, kVersion);
  put32(out, kind);
  return out;
}
void put_address(std::vector<std::uint8_t>& out, const Address& a) {
  put16(out, a.port);
  put16(out, static_cast<std::uint16_t>(a.host.size()));
  out.insert(out.end(), a.host.begin(), a.host.end());
}

/// A failure of the rendezvous: its class decides the exception every process throws.
struct Failure {
  std::uint32_t error_class;
  std::string message;
  [[noreturn]] void raise() const {
    if (error_class == kConfigClass) throw ConfigError(message);
    throw NetworkError(message);
  }
};

std::vector<std::uint8_t> refusal(const Failure& f) {
  auto out = header(kRefusal);
  put32(out, f.error_class);
  const auto text = f.message.substr(0, kMaxMessage);
  put32(out, static_cast<std::uint32_t>(text.size()));
  out.insert(out.end(), text.begin(), text.end());
  return out;
}

/// Checks the magic, version and kind of a header; returns why not, or empty.
std::string check_header(const std::uint8_t* bytes, std::uint32_t kind) {
  if (!std::equal(kMagic.begin(), kMagic.end(), bytes))
    return "it sent '" + networking::printable(reinterpret_cast<const char*>(bytes), kMagic.size()) +
           "', not the rendezvous magic 'TIMELYRV'";
  if (get32(bytes + 8) != kVersion)
    return "it speaks rendezvous version " + std::to_string(get32(bytes + 8)) + ", this process version " +
           std::to_string(kVersion);
  if (get32(bytes + 12) != kind && !(kind == kTable && get32(bytes + 12) == kRefusal))
    return "unexpected message kind " + std::to_string(get32(bytes + 12));
  return {};
}

/// A listening socket on `address`'s host (resolved) at `port`.
tcp::acceptor listen_on(asio::io_context& io, const tcp::endpoint& endpoint, std::size_t backlog,
                        const std::string& what) {
  tcp::acceptor acceptor(io);
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(static_cast<int>(std::max<std::size_t>(backlog, 16)), ec);
  if (ec) throw ConfigError("timely: " + what + ": " + ec.message());
  acceptor.non_blocking(true);
  return acceptor;
}

/// Whether `host` is a name (not an address, not "localhost"): one that resolves to loopback
/// only here, on this host, while other hosts resolve it to this host's network address.
bool loopback_name(const std::string& host) {
  boost::system::error_code not_an_address;
  asio::ip::make_address(host, not_an_address);
  return not_an_address && host != "localhost";
}

/// The address where a process listens, bound to `at` or (with `every_interface`) to every
/// interface of `at`'s family, at `port`.
tcp::endpoint listening_endpoint(const asio::ip::address& at, bool every_interface, std::uint16_t port) {
  if (!every_interface) return {at, port};
  return {at.is_v4() ? asio::ip::address(asio::ip::address_v4::any())
                     : asio::ip::address(asio::ip::address_v6::any()),
          port};
}

std::string endpoint_text(const tcp::endpoint& e) {
  return Address{e.address().to_string(), e.port()}.to_string();
}

/// Process 0: serves the rendezvous and sends the table.
Result serve(asio::io_context& io, const ClusterConfig& config, std::size_t workers,
             Clock::time_point deadline, const std::function<void(const std::string&)>& report) {
  const auto& where = *config.rendezvous;
  tcp::resolver resolver(io);
  boost::system::error_code ec;
  // Process 0's own name may not resolve yet (a Kubernetes pod's before its DNS record exists).
  auto endpoints = resolver.resolve(where.host, std::to_string(where.port), ec);
  while ((ec || endpoints.empty()) && Clock::now() + std::chrono::milliseconds(200) < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    endpoints = resolver.resolve(where.host, std::to_string(where.port), ec);
  }
  if (ec || endpoints.empty())
    throw ConfigError("timely: process 0 cannot resolve the rendezvous address " + where.to_string() +
                      " within " + std::to_string(config.connect_timeout.count()) +
                      " ms: " + (ec ? ec.message() : std::string("no addresses")));
  tcp::endpoint at = *endpoints.begin();
  // A host's own name often resolves to loopback on the host itself (Debian maps it to 127.0.1.1
  // in /etc/hosts) but to its network address elsewhere: then listen on every interface, and
  // give the others the name, which they resolve their way.
  const bool every_interface = at.address().is_loopback() && loopback_name(where.host);
  at = listening_endpoint(at.address(), every_interface, at.port());
  auto server = listen_on(io, at, config.processes,
                          "process 0 cannot serve the rendezvous at " + where.to_string() +
                              " (another computation's? give --rendezvous HOST:PORT)");
  auto mine = listen_on(io, tcp::endpoint(at.address(), config.listen_port), config.processes,
                        "process 0 cannot listen on port " + std::to_string(config.listen_port) + " of " +
                            at.address().to_string());
  std::vector<Address> table(config.processes);
  table[0] = Address{every_interface ? where.host : at.address().to_string(), mine.local_endpoint().port()};
  report("process 0 serving the rendezvous at " + where.to_string() +
         (every_interface ? " (every interface: " + where.host + " is loopback here)" : std::string()) +
         ", listening on " + table[0].to_string());

  std::vector<std::optional<tcp::socket>> registered(config.processes);
  std::vector<std::string> from(config.processes);  // the peer's endpoint, for messages
  std::vector<char> told(config.processes, 0);      // after a failure: indices that heard it
  std::vector<tcp::socket> refused;                 // kept open until we return, so they read it all
  std::optional<Failure> failure;
  // Reads one registration; returns its process index when it is one to answer, or sets
  // `failure`. After a failure, a newcomer is only read to know its index.
  bool probe = false;  // set by `admit`: the connection sent nothing, and is to be dropped
  const auto admit = [&](tcp::socket& socket, const std::string& peer) -> std::optional<std::size_t> {
    std::array<std::uint8_t, kHeader + kRegisterBody> bytes{};
    std::string host;
    const auto until = std::min(deadline, Clock::now() + kRegistrationWait);
    probe = false;
    {
      char first = 0;
      const bool ready = networking::wait_ready(socket.native_handle(), POLLIN,
                                                std::min(until, Clock::now() + kFirstByteWait));
      if (!ready || ::recv(socket.native_handle(), &first, 1, MSG_PEEK) <= 0) {
        probe = true;
        return std::nullopt;
      }
    }
    try {
      networking::read_exact(socket, bytes.data(), kHeader, until, "the registration of " + peer);
      if (auto why = check_header(bytes.data(), kRegister); !why.empty()) throw NetworkError(why);
      networking::read_exact(socket, bytes.data() + kHeader, kRegisterBody, until,
                             "the registration of " + peer);
      host.resize(get16(bytes.data() + kHeader + 14));
      if (!host.empty())
        networking::read_exact(socket, reinterpret_cast<std::uint8_t*>(host.data()), host.size(), until,
                               "the registration of " + peer);
    } catch (const NetworkError& e) {
      std::string_view why = e.what();
      if (why.substr(0, 8) == "timely: ") why.remove_prefix(8);
      if (!failure)
        failure = Failure{kNetworkClass, "timely: process 0: a stranger at the rendezvous " +
                                             where.to_string() + " (from " + peer + "): " + std::string(why)};
      return std::nullopt;
    }
    const std::uint8_t* body = bytes.data() + kHeader;
    const auto index = get32(body);
    const auto processes = get32(body + 4);
    const auto their_workers = get32(body + 8);
    const auto port = get16(body + 12);
    const bool known = index > 0 && index < config.processes;
    if (failure) return known ? std::optional<std::size_t>(index) : std::nullopt;
    const auto who = "process " + std::to_string(index) + " (from " + peer + ")";
    if (processes != config.processes)
      failure = Failure{kConfigClass, "timely: " + who + " was started with -n " + std::to_string(processes) +
                                          ", process 0 with -n " + std::to_string(config.processes)};
    else if (their_workers != workers)
      failure =
          Failure{kConfigClass, "timely: " + who + " was started with -w " + std::to_string(their_workers) +
                                    ", process 0 with -w " + std::to_string(workers)};
    else if (!known)
      failure = Failure{kConfigClass, "timely: " + who + " registered at the rendezvous with index " +
                                          std::to_string(index) + ", but process 0 serves it and -n is " +
                                          std::to_string(config.processes) + " (check -p)"};
    else if (registered[index])
      failure = Failure{kConfigClass, "timely: two processes claim index " + std::to_string(index) +
                                          " (from " + from[index] + " and " + peer + "; check -p)"};
    else if (port == 0 || host.empty())
      failure = Failure{kConfigClass, "timely: " + who + " registered no address"};
    if (failure) return known && !registered[index] ? std::optional<std::size_t>(index) : std::nullopt;
    table[index] = Address{std::move(host), port};
    from[index] = peer;
    return index;
  };
  // Everyone registered hears the failure once.
  const auto tell_registered = [&] {
    for (std::size_t p = 1; p < config.processes; ++p)
      if (registered[p]) {
        boost::system::error_code ignored;
        asio::write(*registered[p], asio::buffer(refusal(*failure)), ignored);
        refused.push_back(std::move(*registered[p]));
        registered[p].reset();
        told[p] = 1;
      }
  };

  const auto missing = [&] {
    std::vector<std::string> out;
    for (std::size_t p = 1; p < config.processes; ++p)
      if (!registered[p] && !told[p]) out.push_back(std::to_string(p));
    return out;
  };
  for (;;) {
    bool complete = true;
    for (std::size_t p = 1; p < config.processes && complete; ++p) complete = registered[p] || told[p];
    if (complete) break;
    if (!networking::wait_ready(server.native_handle(), POLLIN, deadline)) {
      if (!failure)
        failure = Failure{kNetworkClass, "timely: process 0 timed out after " +
                                             std::to_string(config.connect_timeout.count()) +
                                             " ms waiting for process(es) " + networking::listing(missing()) +
                                             " to register at the rendezvous " + where.to_string()};
      break;
    }
    tcp::socket socket(io);
    server.accept(socket, ec);
    if (ec) continue;  // would block, or the connection went away
    socket.non_blocking(false);
    boost::system::error_code peer_ec;
    const auto remote = socket.remote_endpoint(peer_ec);
    const auto peer = peer_ec ? std::string("an unknown address") : endpoint_text(remote);
    const auto index = admit(socket, peer);
    if (probe) {
      report("ignored a connection from " + peer + " to the rendezvous that sent nothing (a port check?)");
      continue;
    }
    if (!failure) {
      report("registered process " + std::to_string(*index) + " at " + table[*index].to_string());
      registered[*index].emplace(std::move(socket));
      continue;
    }
    // A failure: every process heard from hears it, and so does every later one, until each
    // index has been told or the deadline passes.
    tell_registered();
    boost::system::error_code ignored;
    asio::write(socket, asio::buffer(refusal(*failure)), ignored);
    if (index) told[*index] = 1;
    refused.push_back(std::move(socket));
  }
  if (failure) {
    tell_registered();
    failure->raise();
  }
  auto message = header(kTable);
  put32(message, static_cast<std::uint32_t>(config.processes));
  for (const auto& a : table) put_address(message, a);
  for (std::size_t p = 1; p < config.processes; ++p)
    networking::write_all(
        *registered[p], message.data(), message.size(),
        "sending the rendezvous table to process " + std::to_string(p) + " (" + from[p] + ")");
  return Result{std::move(table), std::move(mine)};
}

/// Processes 1 to P - 1: register and receive the table.
Result join(asio::io_context& io, const ClusterConfig& config, std::size_t workers,
            Clock::time_point deadline, const std::function<void(const std::string&)>& report) {
  const auto& where = *config.rendezvous;
  const auto who = "the rendezvous at " + where.to_string() + " (process 0)";
  auto socket = networking::connect(io, config, who, where, deadline, true);
  // Listen on the interface that reaches process 0: its address routes from there. But if
  // process 0's name is loopback here (it runs on this host, whose name maps to 127.0.1.1), that
  // address routes from nowhere else: listen on every interface and give this host's name.
  const auto local = socket.local_endpoint().address();
  const bool every_interface = local.is_loopback() && loopback_name(where.host);
  auto mine = listen_on(io, listening_endpoint(local, every_interface, config.listen_port), config.processes,
                        "process " + std::to_string(config.process) + " cannot listen on port " +
                            std::to_string(config.listen_port) + " of " + local.to_string());
  const Address me{every_interface ? asio::ip::host_name() : local.to_string(), mine.local_endpoint().port()};
  report("process " + std::to_string(config.process) + " listening on " + me.to_string() +
         ", registering at the rendezvous " + where.to_string());
  auto message = header(kRegister);
  put32(message, static_cast<std::uint32_t>(config.process));
  put32(message, static_cast<std::uint32_t>(config.processes));
  put32(message, static_cast<std::uint32_t>(workers));
  put_address(message, me);
  networking::write_all(socket, message.data(), message.size(), "registering at " + who);

  const auto until = deadline + kGrace;
  const auto read = [&](std::uint8_t* data, std::size_t n) {
    networking::read_exact(socket, data, n, until, "the address table from " + who);
  };
  std::array<std::uint8_t, kHeader> head{};
  read(head.data(), head.size());
  if (auto why = check_header(head.data(), kTable); !why.empty())
    throw NetworkError("timely: process " + std::to_string(config.process) + ": " + who +
                       " is not a timely process: " + why);
  std::array<std::uint8_t, 4> word{};
  if (get32(head.data() + 12) == kRefusal) {
    read(word.data(), 4);
    const auto error_class = get32(word.data());
    read(word.data(), 4);
    const auto length = std::min<std::size_t>(get32(word.data()), kMaxMessage);
    std::string text(length, '\0');
    if (length) read(reinterpret_cast<std::uint8_t*>(text.data()), length);
    if (text.rfind("timely: ", 0) == 0) text.erase(0, 8);  // it is quoted after our own prefix
    Failure{error_class, "timely: process " + std::to_string(config.process) +
                             ": the rendezvous failed: " + networking::printable(text.data(), text.size())}
        .raise();
  }
  read(word.data(), 4);
  if (get32(word.data()) != config.processes)
    throw NetworkError("timely: process " + std::to_string(config.process) + ": " + who +
                       " sent a table of " + std::to_string(get32(word.data())) + " addresses for " +
                       std::to_string(config.processes) + " processes");
  std::vector<Address> table;
  for (std::size_t p = 0; p < config.processes; ++p) {
    std::array<std::uint8_t, 4> entry{};
    read(entry.data(), entry.size());
    Address a{std::string(get16(entry.data() + 2), '\0'), get16(entry.data())};
    if (!a.host.empty()) read(reinterpret_cast<std::uint8_t*>(a.host.data()), a.host.size());
    table.push_back(std::move(a));
  }
  report("received the addresses of " + std::to_string(config.processes) + " processes from " + who);
  return Result{std::move(table), std::move(mine)};
}

}  // namespace

Result run(asio::io_context& io, const ClusterConfig& config, std::size_t workers, Clock::time_point deadline,
           const std::function<void(const std::string&)>& report) {
  // 0.0.0.0 or :: would be every address of process 0 but reaches none of it from elsewhere,
  // and it would be the address process 0 gives the others for itself.
  boost::system::error_code ec;
  const auto literal = asio::ip::make_address(config.rendezvous->host, ec);
  if (!ec && literal.is_unspecified())
    throw ConfigError(
        "timely: the rendezvous " + config.rendezvous->to_string() +
        " is no address the processes can reach: give one of process 0's addresses or its host name");
  if (config.process == 0) return serve(io, config, workers, deadline, report);
  return join(io, config, workers, deadline, report);
}

}  // namespace timely::communication::rendezvous
