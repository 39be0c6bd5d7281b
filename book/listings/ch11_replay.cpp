// Chapter 11, "replay": capture a stream into a durable log on N workers (from -w), then replay
// it from the log on 3 workers, whole and from time 1. Worker i of the capture writes partition
// i of log stream `words`: its records and its progress. Each replay has the original's
// frontier, whatever it leaves out of the records.
//   ch11_replay [-w N]
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <timely/durable/log.hpp>
#include <timely/durable/operators/capture.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace durable = timely::durable;
namespace dop = timely::durable::operators;
using Time = std::uint64_t;

int main(int argc, char** argv) {
  const auto config = timely::Config::from_args(argc, argv);
  const auto dir =
      std::filesystem::temp_directory_path() / ("timely-book-ch11-replay-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const durable::Log log(dir);
  const std::vector<std::vector<std::string>> batches = {{"ant", "bee", "cat"}, {"dog"}, {"eel", "fox"}};

  // 1. Capture on N workers.
  timely::execute(config, [&](timely::Worker& worker) {
    timely::InputHandle<Time, std::string> input;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const std::string& w) { return std::hash<std::string>{}(w); }) |
          dop::capture_into_log(log, "words");
    });
    for (Time t = 0; t < batches.size(); ++t) {
      if (worker.index() == 0)
        for (const auto& word : batches[t]) input.send(word);
      input.advance_to(t + 1);
    }
  });
  std::printf("log stream words: %s\n",
              log.partitions("words").size() == config.workers ? "one partition per capturing worker" : "?");

  // 2. Replay on 3 workers: worker j reads the partitions p with p % 3 == j (possibly none).
  for (const auto& from : {dop::ReplayFrom<Time>::beginning(), dop::ReplayFrom<Time>::time(1)}) {
    auto seen = timely::execute(timely::Config::process(3), [&](timely::Worker& worker) {
      std::vector<std::pair<Time, std::string>> got;
      std::vector<Time> completed;  // the times the replayed frontier passed, on this worker
      timely::ProbeHandle<Time> probe;
      worker.dataflow<Time>([&](auto& scope) {
        dop::ReplayOptions<Time> options;
        options.from = from;
        dop::replay_from_log<Time, std::vector<std::string>>(scope, log, "words", options) |
            inspect_time([&](Time t, const std::string& w) { got.emplace_back(t, w); }) | probe_with(probe);
      });
      for (Time t = 1; t <= batches.size(); ++t) {
        while (probe.less_than(t)) worker.step();
        completed.push_back(t - 1);
      }
      while (!probe.done()) worker.step();
      return std::make_pair(got, completed);
    });
    std::vector<std::pair<Time, std::string>> records;
    for (const auto& [got, completed] : seen) records.insert(records.end(), got.begin(), got.end());
    std::sort(records.begin(), records.end());
    std::printf("replay %s:",
                from.kind == dop::ReplayFrom<Time>::Kind::beginning ? "from the beginning" : "from time 1");
    for (const auto& [t, w] : records) std::printf(" %s@%ju", w.c_str(), static_cast<std::uintmax_t>(t));
    std::printf("\n");
    for (std::size_t w = 0; w < seen.size(); ++w) {
      std::printf("  replay worker %zu saw times", w);
      for (Time t : seen[w].second) std::printf(" %ju", static_cast<std::uintmax_t>(t));
      std::printf(" complete, then the end of the stream\n");
    }
  }
  std::filesystem::remove_all(dir);
}
