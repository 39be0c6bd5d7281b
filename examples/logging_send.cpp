// logging_send: runs a small dataflow (an input, a map, an exchange and a probe, ROUNDS rounds of
// 100 records from every worker) whose "timely" log stream goes to a collector such as
// logging_recv: each worker connects to HOST:PORT and streams its events through BatchLogger and
// an EventWriter (timely/dataflow/operators/batch_logger.hpp). Without HOST:PORT the runtime does
// it for TIMELY_WORKER_LOG_ADDR=HOST:PORT (timely/execute.hpp, "Log sinks"). As the reference's
// logging-send example, it registers its loggers before building the dataflow they observe.
//   logging_send [HOST:PORT] [ROUNDS] [-w N] [-n P -p I]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <timely/communication/tcp_stream.hpp>
#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
namespace lg = timely::logging;
using Record = timely::dataflow::LogRecord<lg::TimelyEvent>;
using Writer = timely::capture::EventWriter<lg::Duration, Record>;

int main(int argc, char** argv) {
  return examples::guarded_main("logging_send", "[HOST:PORT] [ROUNDS] [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() > 2)
      throw examples::positional_error(config.positional, "expected at most HOST:PORT and ROUNDS");
    std::optional<timely::communication::Address> collector;
    std::uint64_t rounds = 10;
    for (const auto& arg : config.positional) {
      if (arg.find(':') != std::string::npos)
        collector = timely::communication::parse_address(arg, "logging_send HOST:PORT");
      else
        rounds = examples::parse_count(arg, "ROUNDS");
    }
    const char* env = std::getenv("TIMELY_WORKER_LOG_ADDR");
    if (!collector && env == nullptr)
      throw timely::ConfigError("give the collector's HOST:PORT, or set TIMELY_WORKER_LOG_ADDR=HOST:PORT");
    const std::string where = collector ? collector->to_string() : std::string(env);

    timely::execute(config, [&](timely::Worker& worker) {
      if (collector) {
        // Before the dataflow is built: its operators look their loggers up as they are made.
        Writer writer(timely::communication::connect_output_stream(*collector, config.network.connect_timeout,
                                                                   "logging_send HOST:PORT"));
        worker.log_register().insert<lg::TimelyEvent>(
            "timely", timely::dataflow::BatchLogger<lg::TimelyEvent, Writer>(std::move(writer)));
      }
      timely::dataflow::InputHandle<std::uint64_t, std::uint64_t> input;
      timely::dataflow::ProbeHandle<std::uint64_t> probe;
      worker.dataflow<std::uint64_t>([&](auto& scope) {
        input.to_stream(scope) | map([](std::uint64_t x) { return x * 3 + 1; }) |
            exchange([](std::uint64_t x) { return x; }) | probe_with(probe);
      });
      for (std::uint64_t round = 0; round < rounds; ++round) {
        for (std::uint64_t i = 0; i < 100; ++i) input.send(round * 100 + i);
        input.advance_to(round + 1);
        while (probe.less_than(input.time())) worker.step();
      }
    });
    std::printf("logging_send: %zu workers ran %llu rounds, logging to %s\n",
                config.workers * config.processes, static_cast<unsigned long long>(rounds), where.c_str());
  });
}
