// The wordcount dataflow equals a sequential count on text with unicode, empty lines and very
// long lines, on 1, 2 and 4 workers.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "support/harness.hpp"
#include "wordcount_dataflow.hpp"

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
    boost::unordered_flat_map<std::string, wordcount::Count, boost::hash<std::string>> latest;
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
