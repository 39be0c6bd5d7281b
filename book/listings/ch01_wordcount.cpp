// Chapter 1, "wordcount": counts the words of a few in-memory lines on any number of workers.
// Line i is read by worker i % peers and enters the dataflow at time i / 2 (two lines per time).
// After each time completes, every word whose count changed is reported with its new total.
//   ch01_wordcount [-w N]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;

using Time = std::uint64_t;
using WordCount = std::pair<std::string, std::int64_t>;

// FNV-1a: a hash every worker computes the same way, so they agree on who owns each word.
std::uint64_t hash_word(std::string_view word) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : word) h = (h ^ c) * 1099511628211ull;
  return h;
}

// (word, 1) for every space-separated word of a line.
std::vector<WordCount> split(const std::string& line) {
  std::vector<WordCount> words;
  std::istringstream in(line);
  for (std::string word; in >> word;) words.emplace_back(std::move(word), 1);
  return words;
}

// The counting operator. Records arrive already partitioned by word. Each time's records are
// stashed, together with a capability retained for that time; once the input frontier has passed
// the time, no more records can come for it, so we add them to the running totals and send
// (word, new total) for each word that changed, at that time. Dropping the capability afterwards
// tells the system we will send nothing more at that time.
auto count_words() {
  return unary_frontier<WordCount>(
      timely::Pipeline{}, "CountWords", [](auto /*initial*/, const auto& /*info*/) {
        struct Pending {
          timely::Capability<Time> cap;
          std::vector<WordCount> records;
        };
        return [totals = std::map<std::string, std::int64_t>{}, stash = std::map<Time, Pending>{}](
                   timely::OperatorInput<Time, WordCount>& input,
                   timely::OperatorOutput<Time, WordCount>& output) mutable {
          // 1. Stash whatever arrived, by time; keep one capability per time.
          input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<WordCount>& batch) {
            auto it = stash.find(cap.time());
            if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
            for (auto& record : batch) it->second.records.push_back(std::move(record));
          });
          // 2. Finish every stashed time the frontier has passed, oldest first.
          while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
            Pending& done = stash.begin()->second;
            std::set<std::string> changed;
            for (auto& [word, n] : done.records) {
              totals[word] += n;
              changed.insert(word);
            }
            auto session = output.session(done.cap);
            for (const auto& word : changed) session.give(WordCount(word, totals[word]));
            stash.erase(stash.begin());  // drops the capability: this time is finished here
          }
        };
      });
}

int main(int argc, char** argv) {
  const std::vector<std::string> text = {
      "the quick fox jumps",  "the lazy dog sleeps",  //
      "the fox and the dog",  "meet in the yard",     //
      "the dog sleeps again", "the fox runs home",
  };

  auto updates = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::string, std::int64_t>> log;
    timely::InputHandle<Time, std::string> input;
    timely::ProbeHandle<Time> probe;

    worker.dataflow<Time>([&](auto& scope) {
      auto route = [](const WordCount& wc) { return hash_word(wc.first); };
      auto record = [&log](Time t, const WordCount& wc) { log.emplace_back(t, wc.first, wc.second); };
      auto counts = input.to_stream(scope) | flat_map(split) | exchange(route) | count_words();
      counts | inspect_time(record) | probe_with(probe);
    });

    // Feed this worker's share of the lines, moving to time i / 2 as we go, then close.
    for (std::size_t i = worker.index(); i < text.size(); i += worker.peers()) {
      input.advance_to(i / 2);
      input.send(text[i]);
    }
    input.close();
    while (!probe.done()) worker.step();
    return log;
  });

  std::vector<std::tuple<Time, std::string, std::int64_t>> all;
  for (auto& part : updates) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  for (const auto& [t, word, count] : all)
    std::printf("time %llu: %s %lld\n", static_cast<unsigned long long>(t), word.c_str(),
                static_cast<long long>(count));
}
