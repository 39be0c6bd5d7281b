// Chapter 5, "memory": capture a stream in memory on N workers, then replay it on 3 workers.
// The first computation (N from -w) exchanges some words and captures the exchanged stream
// twice on every worker: once into a link that `extract` reads back as data, once into a link
// that a second computation, with 3 workers, replays as a live stream with the same records, the
// same times and the same frontier.
//   ch05_memory [-w N]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace capture = timely::capture;
using Time = std::uint64_t;
using Link = capture::EventLink<Time, std::string>;

int main(int argc, char** argv) {
  const std::vector<std::vector<std::string>> batches = {{"ant", "bee", "cat"}, {"dog"}, {"eel", "fox"}};
  const auto config = timely::Config::from_args(argc, argv);
  std::vector<Link> for_extract(config.workers), for_replay(config.workers);

  // 1. Capture. Worker i writes into link i (EventLink copies share one queue).
  timely::execute(config, [&](timely::Worker& worker) {
    timely::InputHandle<Time, std::string> input;
    worker.dataflow<Time>([&](auto& scope) {
      auto words =
          input.to_stream(scope) | exchange([](const std::string& w) { return std::hash<std::string>{}(w); });
      words | capture_into(for_extract[worker.index()]);
      words | capture_into(for_replay[worker.index()]);
    });
    for (Time t = 0; t < batches.size(); ++t) {
      if (worker.index() == 0)
        for (const auto& word : batches[t]) input.send(word);
      input.advance_to(t + 1);
    }
    // Returning closes the input; execute steps until the captures are complete.
  });

  // `extract` reads a finished capture as (time, records) with the records of each time sorted.
  std::vector<std::pair<Time, std::string>> extracted;
  for (auto& link : for_extract)
    for (auto& [time, words] : capture::extract(link))
      for (auto& word : words) extracted.emplace_back(time, word);
  std::sort(extracted.begin(), extracted.end());
  for (const auto& [time, word] : extracted)
    std::printf("extracted: time %llu: %s\n", static_cast<unsigned long long>(time), word.c_str());

  // 2. Replay on 3 workers: worker j takes the captured streams i with i % 3 == j (possibly none).
  auto seen = timely::execute(timely::Config::process(3), [&](timely::Worker& worker) {
    std::vector<Link> mine;
    for (std::size_t i = worker.index(); i < for_replay.size(); i += worker.peers())
      mine.push_back(for_replay[i]);
    std::vector<std::pair<Time, std::string>> got;
    std::vector<Time> completed;  // times the replayed frontier passed, as seen on this worker
    timely::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      replay_into(scope, mine) | inspect_time([&](Time t, const std::string& w) { got.emplace_back(t, w); }) |
          probe_with(probe);
    });
    for (Time t = 1; t <= batches.size(); ++t) {
      while (probe.less_than(t)) worker.step();
      completed.push_back(t - 1);
    }
    while (!probe.done()) worker.step();
    return std::make_pair(got, completed);
  });

  std::vector<std::pair<Time, std::string>> replayed;
  for (const auto& [got, completed] : seen) replayed.insert(replayed.end(), got.begin(), got.end());
  std::sort(replayed.begin(), replayed.end());
  std::printf("replayed on 3 workers: %zu records, %s\n", replayed.size(),
              replayed == extracted ? "the same as captured" : "NOT the same as captured");
  for (std::size_t w = 0; w < seen.size(); ++w) {
    std::printf("replay worker %zu saw times", w);
    for (Time t : seen[w].second) std::printf(" %llu", static_cast<unsigned long long>(t));
    std::printf(" complete, then the end of the stream\n");
  }
}
