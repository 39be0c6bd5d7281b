// columnar: wordcount over columnar batches. The same program and output as `wordcount`, but the
// (word, count) records between the splitting and the counting operator travel in
// `columnar::Batch<std::pair<std::string, std::int64_t>>`: one byte buffer of words plus offsets
// and one column of counts per batch, cut at about 1 MiB, exchanged by a hash of the word. The
// splitter pushes (string_view, count) references, so no string is made per record; between
// processes (and with -z) the counting operator reads the words in place from the receive slab.
//   columnar [FILE] [-w N]
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/container/columnar.hpp>

#include "wordcount_main.hpp"

#ifndef TIMELY_DEFAULT_TEXT
#define TIMELY_DEFAULT_TEXT "data/gcide.txt"
#endif

namespace {

using wordcount::Count;
using wordcount::Time;
using Words = timely::container::columnar::Batch<wordcount::WordCount>;
using WordsBuilder = timely::container::columnar::Builder<wordcount::WordCount>;
using WordRef = std::tuple<std::string_view, Count>;

using wordcount::WordHash;

/// Lines in, (word, count in the batch) references out, into columnar batches.
auto split_words() {
  using namespace timely::dataflow::operators;
  return unary<WordsBuilder>(timely::Pipeline{}, "SplitWords", [](auto, const auto&) {
    boost::unordered_flat_map<std::string_view, Count, boost::hash<std::string_view>> local;
    return [local = std::move(local)](timely::OperatorInput<Time, std::string>& input,
                                      timely::OperatorOutputCore<Time, WordsBuilder>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<std::string>& lines) {
        for (const auto& line : lines)
          wordcount::for_each_word(line, [&](std::string_view w) { ++local[w]; });
        auto session = output.session(cap);
        for (const auto& [word, n] : local) session.give(WordRef(word, n));
        local.clear();
      });
    };
  });
}

/// As `wordcount::count_words`, reading the words of columnar batches in place: after each time
/// completes, emits (word, total so far) for every word whose count changed at that time.
auto count_words() {
  using namespace timely::dataflow::operators;
  return unary_frontier<WordsBuilder>(timely::Pipeline{}, "CountWords", [](auto, const auto&) {
    struct Pending {
      timely::Capability<Time> cap;
      std::vector<Words> batches;
    };
    struct Total {
      Count count = 0;
      std::uint64_t fold = 0;
    };
    using Counts = boost::unordered_flat_map<std::string, Total, WordHash, std::equal_to<>>;
    // A changed word is listed with a view into its batch (alive until the fold's output is
    // sent, and likely still in cache) and a pointer to its total, not a pointer to the map
    // entry: reading the entry's key back would cost a cache miss per word.
    return [counts = Counts{}, stash = std::map<Time, Pending>{},
            changed = std::vector<std::pair<std::string_view, const Total*>>{},
            folds = std::uint64_t{0}](timely::OperatorInputCore<Time, Words>& input,
                                      timely::OperatorOutputCore<Time, WordsBuilder>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, Words& data) {
        auto it = stash.find(cap.time());
        if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
        it->second.batches.push_back(std::move(data));
      });
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto node = stash.extract(stash.begin());
        auto& pending = node.mapped();
        ++folds;
        std::size_t records = 0;
        for (const auto& batch : pending.batches) records += batch.size();
        // Reserved first, so the fold cannot rehash and the pointers in `changed` stay valid.
        counts.reserve(counts.size() + records);
        for (const auto& batch : pending.batches)
          for (auto [word, n] : batch) {
            auto found = counts.find(word);
            if (found == counts.end()) found = counts.emplace(std::string(word), Total{}).first;
            auto& total = found->second;
            total.count += n;
            if (total.fold != folds) {
              total.fold = folds;
              changed.emplace_back(word, &total);
            }
          }
        auto session = output.session(pending.cap);
        for (const auto& [word, total] : changed) session.give(WordRef(word, total->count));
        changed.clear();
      }
    };
  });
}

void build_columnar(timely::Worker& worker, timely::InputHandle<Time, std::string>& input,
                    timely::ProbeHandle<Time>& probe, wordcount::Latest& latest) {
  using namespace timely::dataflow::operators;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | split_words() |
        exchange([](const WordRef& r) { return WordHash{}(std::get<0>(r)); }) | count_words() |
        inspect([&latest](const WordRef& r) {
          auto [word, count] = r;
          if (auto found = latest.find(word); found != latest.end())
            found->second = count;
          else
            latest.emplace(std::string(word), count);
        }) |
        probe_with(probe);
  });
}

}  // namespace

int main(int argc, char** argv) {
  return wordcount::main(argc, argv, "columnar", TIMELY_DEFAULT_TEXT,
                         [](auto&... args) { build_columnar(args...); });
}
