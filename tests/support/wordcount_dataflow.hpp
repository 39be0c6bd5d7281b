// The word-counting dataflow of examples/wordcount.cpp, for the conformance test that checks it
// on more workers and inputs than the example's tests do (the example keeps its own copy, so that
// it reads top to bottom as one program; change both together).
//
// Lines enter through an input handle; a splitting operator turns each batch of lines into
// (word, count in the batch) records (words are maximal runs of bytes other than the six ASCII
// whitespace bytes, as `tr '[:space:]'` sees them in the C locale); records are exchanged by a hash of the
// word; a frontier-aware counting operator stashes each time's records, and once the input frontier has
// passed a time it folds them into its running counts in time order and emits the changed
// counts (word, new total) at that time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/timely.hpp>

namespace wordcount {

using Time = std::uint64_t;
using Count = std::int64_t;
using WordCount = std::pair<std::string, Count>;
/// Hashes strings and string views alike, so a map keyed by `std::string` can be searched by
/// view (no string made to look a word up).
struct WordHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return boost::hash<std::string_view>{}(s); }
};
/// Each word's most recent total, on the worker that owns the word.
using Latest = boost::unordered_flat_map<std::string, Count, WordHash, std::equal_to<>>;

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

/// Splits text into (word, count) records, counted per batch: each distinct word of a batch of
/// lines leaves once, with how often it occurs in the batch. Counting before the exchange (a
/// combiner) sends fewer records and fewer strings; it needs no state across batches, because
/// the counts of a batch all carry the batch's time.
inline auto split_words() {
  using namespace timely::dataflow::operators;
  return unary<WordCount>(timely::Pipeline{}, "SplitWords", [](auto, const auto&) {
    // Views into the batch's lines, cleared (keeping its buckets) after each batch.
    boost::unordered_flat_map<std::string_view, Count, boost::hash<std::string_view>> local;
    return [local = std::move(local)](timely::OperatorInput<Time, std::string>& input,
                                      timely::OperatorOutput<Time, WordCount>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<std::string>& lines) {
        for (const auto& line : lines) for_each_word(line, [&](std::string_view w) { ++local[w]; });
        auto session = output.session(cap);
        for (const auto& [word, n] : local) session.give(WordCount(word, n));
        local.clear();
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
    // Each word's total, and the number of the fold (one per completed time) that last changed
    // it: a word is listed as changed the first time it is counted in a fold, with a pointer to
    // its total (stable: the map is reserved for the fold's records first, so it cannot rehash),
    // so each record costs one map lookup and each changed word none.
    struct Total {
      Count count = 0;
      std::uint64_t fold = 0;
    };
    boost::unordered_flat_map<std::string, Total, boost::hash<std::string>> counts;
    std::map<Time, Pending> stash;
    std::vector<std::pair<std::string, const Total*>> changed;
    return [counts = std::move(counts), stash = std::move(stash), changed = std::move(changed),
            folds = std::uint64_t{0}](timely::OperatorInput<Time, WordCount>& input,
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
        ++folds;
        std::size_t records = 0;
        for (const auto& batch : pending.batches) records += batch.size();
        counts.reserve(counts.size() + records);
        for (auto& batch : pending.batches)
          for (auto& [word, n] : batch) {
            auto& total = counts[word];
            total.count += n;
            if (total.fold != folds) {
              total.fold = folds;
              changed.emplace_back(std::move(word), &total);
            }
          }
        auto session = output.session(pending.cap);
        for (auto& [word, total] : changed) session.give(WordCount(std::move(word), total->count));
        changed.clear();
      }
    };
  });
}

/// Hash used to route words to workers.
inline std::uint64_t route(const WordCount& wc) { return boost::hash<std::string>{}(wc.first); }

/// Builds the dataflow on `worker`: lines from `input`, final counts into `latest` (each word's
/// most recent total, on the worker that owns the word), completion watched by `probe`.
inline void build(timely::Worker& worker, timely::InputHandle<Time, std::string>& input,
                  timely::ProbeHandle<Time>& probe, Latest& latest) {
  using namespace timely::dataflow::operators;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | split_words() | exchange(route) | count_words() |
        inspect([&latest](const WordCount& wc) { latest[wc.first] = wc.second; }) | probe_with(probe);
  });
}

}  // namespace wordcount
