// logging_recv: a dataflow that analyses another dataflow's logs. It listens on HOST:PORT
// (default 127.0.0.1:8000, as the reference), prints "logging_recv: listening on ...", accepts
// SOURCE_WORKERS connections (P x W for logging_send on P processes of W workers), and replays
// them as timely streams on Duration timestamps (worker w replays connections i with
// i % workers == w). The dataflow pairs each operator's schedule starts and stops, exchanges
// the scheduled times by operator name, and sums them; once every log stream has closed it
// prints, per operator name, the schedulings and the time scheduled over all source workers:
//   operator NAME: N schedulings, T us scheduled
//   logging_recv SOURCE_WORKERS [HOST:PORT] [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/system_error.hpp>

#include <timely/timely.hpp>

#include "common.hpp"
#include "tcp_address.hpp"

using namespace timely::dataflow::operators;
namespace cap = timely::capture;
namespace lg = timely::logging;
using boost::asio::ip::tcp;
using Duration = lg::Duration;
using Record = timely::dataflow::LogRecord<lg::TimelyEvent>;
using Reader = cap::EventReader<Duration, Record>;

namespace {

/// A log stream's records tagged with the stream's number, so that operator ids (unique per
/// source worker) stay apart when several streams are replayed together.
using Tagged = std::pair<std::uint64_t, Record>;

/// Replays a connection as a stream of `Tagged` records.
struct TaggedSource {
  using Time = Duration;
  using Container = std::vector<Tagged>;
  Reader reader;
  std::uint64_t stream = 0;

  std::optional<cap::EventCore<Time, Container>> next() {
    auto event = reader.next();
    if (!event) return std::nullopt;
    if (auto* progress = std::get_if<cap::ProgressEvent<Time>>(&*event))
      return cap::EventCore<Time, Container>(std::in_place_index<0>, std::move(*progress));
    auto& batch = std::get<cap::MessagesEvent<Time, Record>>(*event);
    Container tagged;
    tagged.reserve(batch.data.size());
    for (auto& record : batch.data) tagged.emplace_back(stream, std::move(record));
    return cap::EventCore<Time, Container>(
        std::in_place_index<1>, cap::MessagesEventCore<Time, Container>{batch.time, std::move(tagged)});
  }
  [[nodiscard]] bool exhausted() const noexcept { return reader.exhausted(); }
  [[nodiscard]] std::uint64_t offset() const noexcept { return reader.offset(); }
  [[nodiscard]] std::uint64_t event_offset() const noexcept { return reader.event_offset(); }
};

struct Total {
  std::uint64_t schedulings = 0;
  std::int64_t nanoseconds = 0;
};

/// Per stream: operator names by id, and when each running operator started.
struct Pairing {
  std::map<std::pair<std::uint64_t, std::size_t>, std::string> names;
  std::map<std::pair<std::uint64_t, std::size_t>, Duration> started;
};

}  // namespace

int main(int argc, char** argv) {
  return examples::guarded_main("logging_recv", "SOURCE_WORKERS [HOST:PORT] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.empty() || config.positional.size() > 2)
      throw examples::positional_error(config.positional, "expected SOURCE_WORKERS and at most HOST:PORT");
    const auto sources = examples::parse_count(config.positional[0], "SOURCE_WORKERS");
    if (sources == 0 || sources > 4096)
      throw timely::ConfigError("SOURCE_WORKERS must be between 1 and 4096");
    const auto base = config.positional.size() > 1 ? examples::parse_tcp_base(config.positional[1], 1)
                                                   : examples::TcpBase{};

    boost::asio::io_context context;
    std::unique_ptr<tcp::acceptor> listener;
    try {
      listener = std::make_unique<tcp::acceptor>(context, tcp::endpoint(base.address, base.port));
    } catch (const boost::system::system_error& e) {
      throw std::runtime_error("cannot listen on " + base.describe() + ": " + e.code().message());
    }
    std::printf("logging_recv: listening on %s for %llu log streams\n", base.describe().c_str(),
                static_cast<unsigned long long>(sources));
    std::fflush(stdout);
    // Every source connects before any worker starts replaying (they connect before they run).
    std::vector<std::unique_ptr<tcp::iostream>> connections;
    for (std::uint64_t i = 0; i < sources; ++i) {
      auto stream = std::make_unique<tcp::iostream>();
      boost::system::error_code error;
      listener->accept(stream->socket(), error);
      if (error) throw std::runtime_error("accepting on " + base.describe() + " failed: " + error.message());
      connections.push_back(std::move(stream));
    }
    listener->close();

    std::mutex mutex;
    std::map<std::string, Total> totals;
    timely::execute(config, [&](timely::Worker& worker) {
      std::vector<TaggedSource> mine;
      for (std::uint64_t i = worker.index(); i < sources; i += worker.peers())
        mine.push_back(TaggedSource{Reader(std::unique_ptr<std::istream>(std::move(connections[i]))), i});
      auto pairing = std::make_shared<Pairing>();
      std::map<std::string, Total> local;
      timely::ProbeHandle<Duration> probe;
      worker.dataflow<Duration>([&](auto& scope) {
        replay_into(scope, std::move(mine)) | flat_map([pairing](Tagged tagged) {
          // (operator name, nanoseconds of one scheduling) for each stop.
          std::vector<std::pair<std::string, std::int64_t>> out;
          const auto& [stream, record] = tagged;
          const auto& [time, event] = record;
          if (auto* op = std::get_if<lg::OperatesEvent>(&event)) {
            pairing->names[{stream, op->id}] = op->name;
          } else if (auto* s = std::get_if<lg::ScheduleEvent>(&event)) {
            const std::pair<std::uint64_t, std::size_t> key{stream, s->id};
            if (s->start) {
              pairing->started[key] = time;
            } else if (auto start = pairing->started.find(key); start != pairing->started.end()) {
              auto name = pairing->names.find(key);
              out.emplace_back(name == pairing->names.end() ? "#" + std::to_string(s->id) : name->second,
                               (time - start->second).count());
              pairing->started.erase(start);
            }
          }
          return out;
        }) | exchange([](const std::pair<std::string, std::int64_t>& p) {
          return std::hash<std::string>{}(p.first);
        }) | inspect([&local](const std::pair<std::string, std::int64_t>& p) {
          auto& total = local[p.first];
          ++total.schedulings;
          total.nanoseconds += p.second;
        }) | probe_with(probe);
      });
      while (!probe.done()) worker.step();
      std::lock_guard lock(mutex);
      for (auto& [name, total] : local) {
        totals[name].schedulings += total.schedulings;
        totals[name].nanoseconds += total.nanoseconds;
      }
    });
    std::printf("logging_recv: replayed %llu log streams on %zu workers\n",
                static_cast<unsigned long long>(sources), config.workers);
    for (const auto& [name, total] : totals)
      std::printf("operator %s: %llu schedulings, %.1f us scheduled\n", name.c_str(),
                  static_cast<unsigned long long>(total.schedulings),
                  static_cast<double>(total.nanoseconds) / 1e3);
  });
}
