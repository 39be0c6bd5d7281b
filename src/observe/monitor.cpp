// Monitor: per-worker models fed by logging actions, and a Boost.Beast HTTP/1.1 server on its own
// thread serving the page, the JSON state and the Prometheus metrics (see monitor.hpp).
#include <timely/observe/monitor.hpp>

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <timely/communication/error.hpp>
#include <timely/observe/metrics.hpp>

namespace timely::observe {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using logging::FrontierEvent;
using logging::TimelyEvent;

namespace {

/// One worker's model and what its actions buffered since they last folded it in. The model
/// keeps no timeline (a zero window): the feed keeps its own, bounded in time and in spans, so
/// a worker that schedules a million times a second holds a few thousand spans, not millions.
struct Feed {
  Feed(Nanos w, std::size_t most) : model(Nanos{0}), window(w), limit(most) {}

  std::mutex mutex;
  Model model;                     // guarded by `mutex`
  std::deque<ScheduleSpan> spans;  // guarded by `mutex`; ascending start
  Nanos window;
  std::size_t limit;
  std::vector<std::optional<Nanos>> open;  // by operator id: the start of its current scheduling

  // The worker thread's alone.
  std::size_t worker = 0;
  std::vector<std::pair<logging::Duration, TimelyEvent>> timely;
  std::vector<std::pair<logging::Duration, FrontierEvent<std::uint64_t>>> frontier;
  std::optional<Nanos> advance;  // the latest flush
  Nanos folded{0};               // log time of the last fold
  bool finished = false;

  template <class E>
  static void gather(std::vector<std::pair<logging::Duration, E>>& into,
                     std::vector<std::pair<logging::Duration, E>>& events, bool take) {
    if (take && into.empty()) {
      into.swap(events);  // the logger clears what it gets back: our emptied buffer
    } else if (take) {
      into.insert(into.end(), std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));
    } else {
      into.insert(into.end(), events.begin(), events.end());
    }
  }
  std::vector<std::pair<logging::Duration, TimelyEvent>>& pending(const TimelyEvent*) { return timely; }
  std::vector<std::pair<logging::Duration, FrontierEvent<std::uint64_t>>>& pending(
      const FrontierEvent<std::uint64_t>*) {
    return frontier;
  }

  /// One batch of a logger: its events go straight into the model, or into the buffer when a
  /// reader holds the lock (never waiting, unless finished). A flush (an empty batch) only
  /// notes the time, and is folded in once a millisecond has passed since the last fold.
  template <class E>
  void batch(logging::Duration now, std::vector<std::pair<logging::Duration, E>>& events, bool take) {
    std::unique_lock lock(mutex, std::defer_lock);
    if (events.empty()) {
      advance = advance ? std::max(*advance, now) : now;
      if (now - folded < std::chrono::milliseconds(1) && !finished) return;
    }
    if (finished) {
      lock.lock();
    } else if (!lock.try_lock()) {
      gather(pending(static_cast<const E*>(nullptr)), events, take);
      return;
    }
    fold(now);
    add(events);
  }

  void add(const std::vector<std::pair<logging::Duration, TimelyEvent>>& events) {
    for (const auto& [time, event] : events) {
      model.add(worker, time, event);
      if (const auto* schedule = std::get_if<logging::ScheduleEvent>(&event)) span(time, *schedule);
    }
    if (!spans.empty())
      while (spans.size() > limit || spans.front().stop + window < spans.back().stop) spans.pop_front();
  }
  void add(const std::vector<std::pair<logging::Duration, FrontierEvent<std::uint64_t>>>& events) {
    for (const auto& [time, event] : events) model.add(worker, time, event);
  }

  /// The buffers and the latest flush into the model (under the lock).
  void fold(logging::Duration now) {
    if (!timely.empty()) add(timely);
    if (!frontier.empty()) add(frontier);
    timely.clear();
    frontier.clear();
    if (advance) {
      model.advance(worker, *advance);
      advance.reset();
      folded = now;
    }
  }
  void span(Nanos time, const logging::ScheduleEvent& e);
};

void Feed::span(Nanos time, const logging::ScheduleEvent& e) {
  if (open.size() <= e.id) open.resize(e.id + 1);
  if (e.start) {
    open[e.id] = time;
  } else if (open[e.id]) {
    spans.push_back(ScheduleSpan{worker, e.id, *open[e.id], time});
    open[e.id].reset();
  }
}

/// The latest `limit` spans of each worker (the timeline is in ascending start order).
void limit_timeline(Snapshot& s, std::size_t limit) {
  std::map<std::size_t, std::size_t> kept;
  std::vector<ScheduleSpan> out;
  for (auto it = s.timeline.rbegin(); it != s.timeline.rend(); ++it)
    if (kept[it->worker]++ < limit) out.push_back(*it);
  std::reverse(out.begin(), out.end());
  s.timeline = std::move(out);
}

/// "HOST:PORT" or "[ADDR]:PORT" split, with the port 0..65535.
std::pair<std::string, std::uint16_t> split_address(const std::string& address) {
  const auto bad = [&](const std::string& why) {
    return ConfigError("timely: the monitor address '" + address + "' is not HOST:PORT (" + why + ")");
  };
  std::string host, port;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find(']');
    if (close == std::string::npos || close + 1 >= address.size() || address[close + 1] != ':')
      throw bad("an IPv6 address goes in brackets: [ADDR]:PORT");
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) throw bad("no ':' before the port");
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string::npos) throw bad("an IPv6 address goes in brackets: [ADDR]:PORT");
  }
  if (host.empty()) throw bad("the host is empty");
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535)
    throw bad("the port must be a number from 0 to 65535, got '" + port + "'");
  return {host, static_cast<std::uint16_t>(std::stoul(port))};
}

}  // namespace

struct Monitor::Impl {
  Options options;
  std::vector<std::shared_ptr<Feed>> feeds;  // by local worker (the actions share them)
  mutable std::mutex remote_mutex;
  std::map<std::size_t, Snapshot> remote;  // by process, guarded by remote_mutex
  std::atomic<std::uint64_t> requests{0};

  asio::io_context io{1};
  std::optional<tcp::acceptor> acceptor;
  std::uint16_t port = 0;
  std::string address;
  std::thread thread;

  const std::shared_ptr<Feed>& feed(std::size_t worker) {
    if (worker < options.first_worker || worker - options.first_worker >= feeds.size())
      throw ConfigError("timely: worker " + std::to_string(worker) + " is not one of this process's (" +
                        std::to_string(options.first_worker) + " to " +
                        std::to_string(options.first_worker + feeds.size() - 1) + ")");
    return feeds[worker - options.first_worker];
  }

  http::response<http::string_body> respond(const http::request<http::string_body>& request) {
    requests.fetch_add(1, std::memory_order_relaxed);
    http::response<http::string_body> response;
    response.version(request.version());
    response.keep_alive(request.keep_alive());
    response.set(http::field::server, "timely-monitor");
    response.set(http::field::cache_control, "no-store");
    std::string target(request.target());
    if (const auto query = target.find('?'); query != std::string::npos) target.resize(query);
    if (request.method() != http::verb::get && request.method() != http::verb::head) {
      response.result(http::status::method_not_allowed);
      response.set(http::field::allow, "GET, HEAD");
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "only GET and HEAD\n";
    } else if (target == "/") {
      response.result(http::status::ok);
      response.set(http::field::content_type, "text/html; charset=utf-8");
      response.body() = std::string(monitor_page());
    } else if (target == "/api/state") {
      auto merged = snapshot();
      limit_timeline(merged, options.timeline_limit);
      response.result(http::status::ok);
      response.set(http::field::content_type, "application/json");
      response.body() = to_json(merged);
    } else if (target == "/metrics") {
      response.result(http::status::ok);
      response.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
      response.body() = metrics_text(snapshot());
    } else {
      response.result(http::status::not_found);
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.body() = "not found: " + target + " (try /, /api/state or /metrics)\n";
    }
    response.prepare_payload();
    if (request.method() == http::verb::head) response.body().clear();
    return response;
  }

  /// `respond`, or a 500 naming what went wrong: nothing may escape the server's thread.
  http::response<http::string_body> answer(const http::request<http::string_body>& request) {
    try {
      return respond(request);
    } catch (const std::exception& e) {
      http::response<http::string_body> response(http::status::internal_server_error, request.version());
      response.set(http::field::content_type, "text/plain; charset=utf-8");
      response.keep_alive(false);
      response.body() = std::string("timely monitor: ") + e.what() + "\n";
      response.prepare_payload();
      return response;
    }
  }

  Snapshot local_snapshot() const {
    Snapshot merged;
    for (const auto& feed : feeds) {
      Snapshot one;
      {
        std::lock_guard lock(feed->mutex);
        one = feed->model.snapshot();
        one.timeline.assign(feed->spans.begin(), feed->spans.end());
      }
      merge(merged, one);
    }
    return merged;
  }

  Snapshot snapshot() const {
    Snapshot merged = local_snapshot();
    std::lock_guard lock(remote_mutex);
    for (const auto& [process, s] : remote) merge(merged, s);
    return merged;
  }

  /// One connection: read a request, answer it, again while the client keeps it alive.
  struct Session : std::enable_shared_from_this<Session> {
    Session(Impl& owner, tcp::socket socket) : impl(owner), stream(std::move(socket)) {}
    Impl& impl;
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    http::request<http::string_body> request;
    http::response<http::string_body> response;

    void read() {
      request = {};
      stream.expires_after(std::chrono::seconds(30));
      http::async_read(
          stream, buffer, request, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return self->close();
            self->response = self->impl.answer(self->request);
            self->stream.expires_after(std::chrono::seconds(30));
            http::async_write(self->stream, self->response, [self](beast::error_code wec, std::size_t) {
              if (wec || !self->response.keep_alive()) return self->close();
              self->read();
            });
          });
    }
    void close() {
      beast::error_code ignored;
      stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  };

  void accept() {
    acceptor->async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (!ec) std::make_shared<Session>(*this, std::move(socket))->read();
      accept();
    });
  }

  void listen(const std::string& text) {
    const auto [host, port_number] = split_address(text);
    tcp::resolver resolver(io);
    beast::error_code ec;
    const auto endpoints = resolver.resolve(host, std::to_string(port_number), ec);
    if (ec || endpoints.empty())
      throw ConfigError("timely: the monitor address '" + text + "' does not resolve: " + ec.message());
    std::string failure;
    for (const auto& entry : endpoints) {
      tcp::acceptor candidate(io);
      const auto endpoint = entry.endpoint();
      if (candidate.open(endpoint.protocol(), ec) ||
          candidate.set_option(tcp::acceptor::reuse_address(true), ec) || candidate.bind(endpoint, ec) ||
          candidate.listen(asio::socket_base::max_listen_connections, ec)) {
        failure = ec.message();
        continue;
      }
      const auto bound = candidate.local_endpoint();
      port = bound.port();
      address =
          (bound.address().is_v6() ? "[" + bound.address().to_string() + "]" : bound.address().to_string()) +
          ":" + std::to_string(port);
      acceptor.emplace(std::move(candidate));
      break;
    }
    if (!acceptor)
      throw communication::NetworkError("timely: the monitor cannot listen at '" + text + "': " + failure);
    accept();
    thread = std::thread([this] { io.run(); });
  }
};

Monitor::Monitor(const std::string& address, Options options) : impl_(std::make_unique<Impl>()) {
  if (options.workers == 0) throw ConfigError("timely: a monitor needs at least one worker (workers = 0)");
  impl_->options = options;
  for (std::size_t i = 0; i < options.workers; ++i) {
    impl_->feeds.push_back(std::make_shared<Feed>(options.timeline_window, options.timeline_limit));
    impl_->feeds.back()->worker = options.first_worker + i;
  }
  if (options.listen)
    impl_->listen(address);
  else
    split_address(address);  // the same errors on every process
}

Monitor::~Monitor() {
  if (impl_->thread.joinable()) {
    impl_->io.stop();
    impl_->thread.join();
  }
}

std::uint16_t Monitor::port() const noexcept { return impl_->port; }
std::string Monitor::address() const { return impl_->address; }

logging::Action<TimelyEvent> Monitor::timely_action(std::size_t worker, bool take) {
  auto feed = impl_->feed(worker);
  return [feed, take](logging::Duration now, std::vector<std::pair<logging::Duration, TimelyEvent>>& events) {
    feed->batch(now, events, take);
  };
}

logging::Action<FrontierEvent<std::uint64_t>> Monitor::frontier_action(std::size_t worker, bool take) {
  auto feed = impl_->feed(worker);
  return [feed, take](logging::Duration now,
                      std::vector<std::pair<logging::Duration, FrontierEvent<std::uint64_t>>>& events) {
    feed->batch(now, events, take);
  };
}

logging::Action<logging::CommunicationEvent> Monitor::communication_action(std::size_t worker) {
  auto feed = impl_->feed(worker);
  return [feed](logging::Duration,
                std::vector<std::pair<logging::Duration, logging::CommunicationEvent>>& events) {
    if (events.empty()) return;
    std::lock_guard lock(feed->mutex);  // a few events a second at most: waiting briefly is fine
    for (const auto& [time, e] : events)
      feed->model.add_peer(PeerState{e.process, e.peer, e.bytes_sent, e.bytes_received, e.frames_sent,
                                     e.frames_received, e.connected});
  };
}

void Monitor::finish(std::size_t worker) {
  auto& feed = *impl_->feed(worker);
  std::lock_guard lock(feed.mutex);
  feed.finished = true;
  feed.fold(feed.advance.value_or(feed.folded));
}

Snapshot Monitor::local_snapshot() const { return impl_->local_snapshot(); }

void Monitor::set_remote(std::size_t process, Snapshot snapshot) {
  std::lock_guard lock(impl_->remote_mutex);
  impl_->remote[process] = std::move(snapshot);
}

Snapshot Monitor::snapshot() const { return impl_->snapshot(); }

std::uint64_t Monitor::requests() const noexcept { return impl_->requests.load(std::memory_order_relaxed); }

}  // namespace timely::observe
