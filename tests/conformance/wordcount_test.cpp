// The wordcount dataflow (examples/wordcount.cpp's, in support/wordcount_dataflow.hpp) equals a
// sequential count on text with unicode, empty lines and very long lines, on 1, 2 and 4 workers.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "support/harness.hpp"
#include "support/wordcount_dataflow.hpp"

namespace {

std::vector<std::string> sample_lines() {
  std::vector<std::string> lines{"",
                                 "  leading and trailing  ",
                                 "naïve café naïve 東京 東京 Straße",
                                 "",
                                 "tabs\tand\vvertical\ftabs\r",
                                 "\r",
                                 std::string(200000, 'z'),
                                 std::string(5000, ' ')};
  std::string long_line;
  for (int i = 0; i < 30000; ++i) long_line += "w" + std::to_string(i % 97) + " ";
  lines.push_back(long_line);
  for (int i = 0; i < 2000; ++i) lines.push_back("line " + std::to_string(i % 13) + " of the the text");
  return lines;
}

}  // namespace

TEST_CASE("wordcount equals the sequential count", "[conformance][wordcount]") {
  const auto lines = sample_lines();
  std::map<std::string, std::int64_t> sequential;
  for (const auto& line : lines)
    wordcount::for_each_word(line, [&](std::string_view w) { ++sequential[std::string(w)]; });
  CHECK(sequential.count("naïve") == 1);
  CHECK(sequential["naïve"] == 2);
  CHECK(sequential.count("") == 0);

  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    timely::InputHandle<wordcount::Time, std::string> input;
    timely::ProbeHandle<wordcount::Time> probe;
    wordcount::Latest latest;
    wordcount::build(worker, input, probe, latest);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i % worker.peers() == worker.index()) input.send(lines[i]);
      if (i % 500 == 499) input.advance_to(input.time() + 1);
    }
    input.close();
    while (!probe.done()) worker.step();
    return std::vector<wordcount::WordCount>(latest.begin(), latest.end());
  });
  const std::vector<wordcount::WordCount> expected(sequential.begin(), sequential.end());
  CHECK(result == expected);
}

TEST_CASE("wordcount emits each changed word's running total at each time", "[conformance][wordcount]") {
  // Times of 500 lines; within a time, words repeat across the lines of one batch and of
  // several batches, so the per-batch counts of `split_words` and the folds of `count_words`
  // must add up to the sequential running totals, listed once per (time, word).
  const auto lines = sample_lines();
  using Update = std::tuple<wordcount::Time, std::string, wordcount::Count>;
  std::vector<Update> expected;
  {
    std::map<std::string, wordcount::Count> totals;
    std::set<std::string> changed;
    auto close = [&](wordcount::Time t) {
      for (const auto& w : changed) expected.emplace_back(t, w, totals[w]);
      changed.clear();
    };
    for (std::size_t i = 0; i < lines.size(); ++i) {
      wordcount::for_each_word(lines[i], [&](std::string_view w) {
        ++totals[std::string(w)];
        changed.insert(std::string(w));
      });
      if (i % 500 == 499) close(i / 500);
    }
    close(lines.size() / 500);
  }
  REQUIRE(expected.size() > 100);

  auto result = harness::same_on_all_worker_counts([&](timely::Worker& worker) {
    using namespace timely::dataflow::operators;
    timely::InputHandle<wordcount::Time, std::string> input;
    timely::ProbeHandle<wordcount::Time> probe;
    std::vector<Update> updates;
    worker.dataflow<wordcount::Time>([&](auto& scope) {
      input.to_stream(scope) | wordcount::split_words() | exchange(wordcount::route) |
          wordcount::count_words() |
          inspect_time([&updates](const wordcount::Time& t, const wordcount::WordCount& wc) {
            updates.emplace_back(t, wc.first, wc.second);
          }) |
          probe_with(probe);
    });
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i % worker.peers() == worker.index()) input.send(lines[i]);
      if (i % 500 == 499) input.advance_to(input.time() + 1);
    }
    input.close();
    while (!probe.done()) worker.step();
    return updates;
  });
  std::sort(expected.begin(), expected.end());
  CHECK(result == expected);
}
