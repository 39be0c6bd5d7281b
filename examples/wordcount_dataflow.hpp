// The word-counting dataflow of the `wordcount` example, shared with its conformance test.
//
// Lines enter through an input handle; a splitting operator turns each line into (word, 1)
// records (words are maximal runs of bytes other than the six ASCII whitespace bytes, as `tr
// '[:space:]'` sees them in the C locale); records are exchanged by a hash of the word; a
// frontier-aware counting operator stashes each time's records, and once the input frontier has
// passed a time it folds them into its running counts in time order and emits the changed
// counts (word, new total) at that time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>

#include <timely/timely.hpp>

namespace wordcount {

using Time = std::uint64_t;
using Count = std::int64_t;
using WordCount = std::pair<std::string, Count>;

/// The bytes `tr '[:space:]'` treats as whitespace in the C locale.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/// Calls `f(std::string_view word)` for every word of `text`.
template <class F>
void for_each_word(std::string_view text, F&& f) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    while (i < n && is_space(text[i])) ++i;
    const std::size_t start = i;
    while (i < n && !is_space(text[i])) ++i;
    if (i > start) f(text.substr(start, i - start));
  }
}

/// Splits lines into (word, 1) records.
inline auto split_words() {
  using namespace timely::dataflow::operators;
  return unary<WordCount>(timely::Pipeline{}, "SplitWords", [](auto, const auto&) {
    return
        [](timely::OperatorInput<Time, std::string>& input, timely::OperatorOutput<Time, WordCount>& output) {
          input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<std::string>& lines) {
            auto session = output.session(cap);
            for (const auto& line : lines)
              for_each_word(line, [&](std::string_view w) { session.give(WordCount(w, 1)); });
          });
        };
  });
}

/// Counts words: after each time completes, emits (word, total so far) for every word whose
/// count changed at that time. Records must already be partitioned by word.
inline auto count_words() {
  using namespace timely::dataflow::operators;
  return unary_frontier<WordCount>(timely::Pipeline{}, "CountWords", [](auto, const auto&) {
    struct Pending {
      timely::Capability<Time> cap;
      std::vector<std::vector<WordCount>> batches;
    };
    boost::unordered_flat_map<std::string, Count, boost::hash<std::string>> counts;
    std::map<Time, Pending> stash;
    return [counts = std::move(counts), stash = std::move(stash)](
               timely::OperatorInput<Time, WordCount>& input,
               timely::OperatorOutput<Time, WordCount>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<WordCount>& data) {
        auto it = stash.find(cap.time());
        if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
        it->second.batches.push_back(std::move(data));
      });
      // Times the frontier has passed are complete: fold them in, in time order.
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto node = stash.extract(stash.begin());
        auto& pending = node.mapped();
        boost::unordered_flat_set<std::string, boost::hash<std::string>> changed;
        for (auto& batch : pending.batches)
          for (auto& [word, n] : batch) {
            counts[word] += n;
            changed.insert(std::move(word));
          }
        auto session = output.session(pending.cap);
        for (const auto& word : changed) session.give(WordCount(word, counts[word]));
      }
    };
  });
}

/// Hash used to route words to workers.
inline std::uint64_t route(const WordCount& wc) { return boost::hash<std::string>{}(wc.first); }

/// Builds the dataflow on `worker`: lines from `input`, final counts into `latest` (each word's
/// most recent total, on the worker that owns the word), completion watched by `probe`.
inline void build(timely::Worker& worker, timely::InputHandle<Time, std::string>& input,
                  timely::ProbeHandle<Time>& probe,
                  boost::unordered_flat_map<std::string, Count, boost::hash<std::string>>& latest) {
  using namespace timely::dataflow::operators;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | split_words() | exchange(route) | count_words() |
        inspect([&latest](const WordCount& wc) { latest[wc.first] = wc.second; }) | probe_with(probe);
  });
}

}  // namespace wordcount
