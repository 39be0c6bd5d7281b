// Chapter 7, "generic": operators written once for any container, run on a stream of
// std::vector batches and on a stream of columnar batches. `long_words<C>` forwards the
// (line, word) records whose word has at least `min` letters; `keyed_by_length<C>` turns each
// into (length, word). The records are exchanged by length and every worker notes what it
// receives. Both dataflows print the same lines.
//   ch07_generic [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace container = timely::container;
using Time = std::uint64_t;
using Record = std::pair<std::uint64_t, std::string>;      // (key, word)
using Row = std::tuple<Time, std::uint64_t, std::string>;  // (time, key, word)

/// Forwards the records whose word has at least `min` letters. Items are forwarded as the
/// container hands them over: a vector's records as rvalues (moved on, no copy), a columnar
/// batch's borrowed references (copied into the output batch's columns, no string made).
template <class C>
auto long_words(std::size_t min) {
  using Builder = container::CapacityContainerBuilder<C>;
  return unary<Builder>(timely::Pipeline{}, "LongWords", [min](auto /*initial*/, const auto&) {
    return
        [min](timely::OperatorInputCore<Time, C>& input, timely::OperatorOutputCore<Time, Builder>& output) {
          input.for_each([&](const timely::InputCapability<Time>& cap, C& batch) {
            auto session = output.session(cap);
            container::drain(batch, [&](auto&& record) {
              if (std::get<1>(record).size() >= min) session.give(std::forward<decltype(record)>(record));
            });
          });
        };
  });
}

/// (line, word) to (length of the word, word). A new item differs by container: an owned
/// Record for a vector (the word is moved into it), a borrowed std::tuple<std::uint64_t,
/// std::string_view> for a columnar batch (its bytes are copied into the output's columns).
template <class C>
auto keyed_by_length() {
  using Builder = container::CapacityContainerBuilder<C>;
  return unary<Builder>(timely::Pipeline{}, "KeyedByLength", [](auto /*initial*/, const auto&) {
    return [](timely::OperatorInputCore<Time, C>& input, timely::OperatorOutputCore<Time, Builder>& output) {
      input.for_each([&](const timely::InputCapability<Time>& cap, C& batch) {
        auto session = output.session(cap);
        for (auto&& record : batch) {
          const std::uint64_t length = std::get<1>(record).size();
          if constexpr (container::Vector<C>)
            session.give(Record{length, std::move(std::get<1>(record))});
          else
            session.give(std::tuple<std::uint64_t, std::string_view>{length, std::get<1>(record)});
        }
        batch.clear();
      });
    };
  });
}

/// Builds the dataflow over containers `C`, sends `lines` word by word from worker 0 (line `t`
/// at time `t`) and returns the rows this worker received.
template <class C>
std::vector<Row> run(timely::Worker& worker, const std::vector<std::string>& lines) {
  std::vector<Row> rows;
  timely::InputHandleCore<Time, C> input;
  timely::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | long_words<C>(4) | keyed_by_length<C>() | exchange([](const auto& r) {
      return std::get<0>(r);
    }) | inspect_time([&rows](const Time& t, const auto& r) {
      rows.emplace_back(t, std::get<0>(r), std::string(std::get<1>(r)));
    }) | probe_with(probe);
  });
  for (Time t = 0; t < lines.size(); ++t) {
    if (worker.index() == 0) {
      std::istringstream words(lines[t]);
      for (std::string word; words >> word;) input.send(Record{t, word});
    }
    input.advance_to(t + 1);
  }
  input.close();
  while (!probe.done()) worker.step();
  return rows;
}

int main(int argc, char** argv) {
  const std::vector<std::string> lines = {"the quick brown fox", "jumps over the lazy dog",
                                          "timely dataflow in columns"};
  auto parts = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    return std::pair{run<std::vector<Record>>(worker, lines),
                     run<container::columnar::Batch<Record>>(worker, lines)};
  });
  std::vector<Row> vectors, columns;
  for (auto& [v, c] : parts) {
    vectors.insert(vectors.end(), v.begin(), v.end());
    columns.insert(columns.end(), c.begin(), c.end());
  }
  std::sort(vectors.begin(), vectors.end());
  std::sort(columns.begin(), columns.end());
  for (const auto& [name, rows] : {std::pair{"vector", &vectors}, std::pair{"columnar", &columns}})
    for (const auto& [t, length, word] : *rows)
      std::printf("%-8s time %llu: %llu %s\n", name, static_cast<unsigned long long>(t),
                  static_cast<unsigned long long>(length), word.c_str());
  std::printf("the two dataflows agree: %s\n", vectors == columns ? "yes" : "no");
}
