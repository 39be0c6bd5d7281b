// columnar: wordcount over columnar batches. The same program and output as `wordcount`, but the
// (word, count) records between the splitting and the counting operator travel in
// `columnar::Batch<std::pair<std::string, std::int64_t>>`: one byte buffer of words plus offsets
// and one column of counts per batch, cut at about 1 MiB, exchanged by a hash of the word. The
// splitter pushes (string_view, count) references, so no string is made per record; between
// processes (and with -z) the counting operator reads the words in place from the receive slab.
//   columnar [FILE] [-w N]
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
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

/// Bytes that stay where they are until the arena is dropped: the counting operator's words.
/// Blocks of 1 MiB (or one word's size), so that views into them stay valid as more come.
class WordArena {
 public:
  /// A lasting copy of `word`.
  std::string_view keep(std::string_view word) {
    if (static_cast<std::size_t>(end_ - at_) < word.size()) {
      const std::size_t size = std::max<std::size_t>(kBlock, word.size());
      blocks_.push_back(std::make_unique<char[]>(size));
      at_ = blocks_.back().get();
      end_ = at_ + size;
    }
    char* copy = at_;
    if (!word.empty()) std::memcpy(copy, word.data(), word.size());
    at_ += word.size();
    return {copy, word.size()};
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* at_ = nullptr;
  char* end_ = nullptr;
};

/// A word as a map key: up to 16 bytes inline (most words, compared in the slot's own cache
/// line), longer ones as a view into a `WordArena`. 24 bytes, no allocation of its own.
class WordKey {
 public:
  WordKey(std::string_view word, WordArena& arena) : size_(word.size()) {
    if (size_ <= sizeof inline_)
      std::memcpy(inline_, word.data(), size_);
    else
      far_ = arena.keep(word).data();
  }
  [[nodiscard]] std::string_view view() const noexcept {
    return {size_ <= sizeof inline_ ? inline_ : far_, size_};
  }

 private:
  std::size_t size_;
  union {
    char inline_[16];
    const char* far_;
  };
};

/// Hashes and compares `WordKey`s and views alike, so the map is searched by a batch's view.
struct WordKeyOps {
  using is_transparent = void;
  static std::string_view view(std::string_view s) noexcept { return s; }
  static std::string_view view(const WordKey& k) noexcept { return k.view(); }
  template <class K>
  std::size_t operator()(const K& k) const noexcept {
    return boost::hash<std::string_view>{}(view(k));
  }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return view(a) == view(b);
  }
};

/// As `count_words` of examples/wordcount.cpp, reading the words of columnar batches in place: after each
/// time completes, emits (word, total so far) for every word whose count changed at that time.
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
    // Keyed by `WordKey`: a slot is 40 bytes (a `std::string` key makes it 48), a word is
    // looked up by the view the batch hands out, and a new word costs a copy of its bytes, never
    // an allocation of its own.
    using Counts = boost::unordered_flat_map<WordKey, Total, WordKeyOps, WordKeyOps>;
    // A changed word is listed with a view into its batch (alive until the fold's output is
    // sent, and likely still in cache) and a pointer to its total, not a pointer to the map
    // entry: reading the entry's key back would cost a cache miss per word.
    return [counts = Counts{}, arena = std::make_unique<WordArena>(), stash = std::map<Time, Pending>{},
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
            if (found == counts.end()) found = counts.emplace(WordKey(word, *arena), Total{}).first;
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
          // Found by the batch's view (the map's hash and equality are transparent); a string
          // is made only for a new word.
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
