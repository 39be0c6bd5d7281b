// wordcount: counts the words of a text file exactly, on any number of workers and processes.
//   wordcount [FILE] [--quiet] [worker arguments: -w N, -n P -p I -h HOSTFILE, ...]
// Words are runs of bytes other than the six ASCII whitespace bytes, as `tr '[:space:]'` sees
// them in the C locale. Each worker reads its share of FILE (a byte range, cut at line ends) and
// feeds it in epochs of 50 000 lines. An operator counts the words of each batch (a combiner),
// the (word, count) records are exchanged by a hash of the word, and a second operator adds them
// to its totals once the input frontier says their epoch is complete. At the end every worker
// prints its words as "WORD COUNT" lines on stdout, and each process a summary on stderr (and a
// progress line on a terminal, unless --quiet). FILE defaults to the GCIDE text that
// scripts/fetch-data.sh puts in data/. All of it is in this file but two helpers the examples
// share: the progress line and the writer of whole lines.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/timely.hpp>

#include "line_output.hpp"
#include "progress_line.hpp"

#ifndef TIMELY_DEFAULT_TEXT
#define TIMELY_DEFAULT_TEXT "data/gcide.txt"
#endif

using namespace timely::dataflow::operators;
using Time = std::uint64_t;  // the epoch
using Count = std::int64_t;
using WordCount = std::pair<std::string, Count>;
template <class K, class V>
using HashMap = boost::unordered_flat_map<K, V, boost::hash<K>>;

namespace {

constexpr std::uint64_t kLinesPerEpoch = 50'000;
constexpr std::uint64_t kLinesPerRecord = 32;  // a record is a chunk of lines: fewer strings

/// Calls `f(std::string_view word)` for every word of `text`.
template <class F>
void for_each_word(std::string_view text, F&& f) {
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  for (std::size_t i = 0, n = text.size(); i < n;) {
    while (i < n && space(text[i])) ++i;
    const std::size_t start = i;
    while (i < n && !space(text[i])) ++i;
    if (i > start) f(text.substr(start, i - start));
  }
}

/// Splits chunks of lines into (word, how often it occurs in the batch) records. Counting before
/// the exchange sends fewer records; it needs no state across batches, as a batch has one time.
auto split_words() {
  return unary<WordCount>(timely::Pipeline{}, "SplitWords", [](auto, const auto&) {
    return [local = HashMap<std::string_view, Count>{}](
               timely::OperatorInput<Time, std::string>& input,
               timely::OperatorOutput<Time, WordCount>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<std::string>& chunks) {
        for (const auto& chunk : chunks) for_each_word(chunk, [&](std::string_view w) { ++local[w]; });
        auto session = output.session(cap);
        for (const auto& [word, n] : local) session.give(WordCount(word, n));
        local.clear();  // keeps its buckets for the next batch
      });
    };
  });
}

/// Counts the words routed to this worker: records wait, with a capability for their time,
/// until the input frontier has passed that time; then they are added to the totals in time
/// order, and each word whose total changed leaves once, as (word, new total), at that time.
auto count_words() {
  return unary_frontier<WordCount>(timely::Pipeline{}, "CountWords", [](auto, const auto&) {
    struct Pending {
      timely::Capability<Time> cap;
      std::vector<std::vector<WordCount>> batches;
    };
    // A word's total and the last fold (one per completed time) that changed it, so a word is
    // listed once per fold, pointing at its total (reserved first, so the map cannot rehash).
    struct Total {
      Count count = 0;
      std::uint64_t fold = 0;
    };
    return [totals = HashMap<std::string, Total>{}, stash = std::map<Time, Pending>{},
            changed = std::vector<std::pair<std::string, const Total*>>{},
            folds = std::uint64_t{0}](timely::OperatorInput<Time, WordCount>& input,
                                      timely::OperatorOutput<Time, WordCount>& output) mutable {
      input.for_each([&](const timely::InputCapability<Time>& cap, std::vector<WordCount>& batch) {
        auto it = stash.find(cap.time());
        if (it == stash.end()) it = stash.emplace(cap.time(), Pending{cap.retain(), {}}).first;
        it->second.batches.push_back(std::move(batch));
      });
      while (!stash.empty() && !input.frontier().less_equal(stash.begin()->first)) {
        auto pending = std::move(stash.extract(stash.begin()).mapped());
        ++folds;
        std::size_t records = 0;
        for (const auto& batch : pending.batches) records += batch.size();
        totals.reserve(totals.size() + records);
        for (auto& batch : pending.batches)
          for (auto& [word, n] : batch) {
            auto& total = totals[word];
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

/// The part of `path` that worker `index` of `peers` reads: the lines that start in its share of
/// the bytes. \throws std::runtime_error if the file cannot be read.
std::string read_share(const std::string& path, std::size_t index, std::size_t peers) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw std::runtime_error("cannot open '" + path + "': " + (ec ? ec.message() : "no such file"));
  if (!std::filesystem::is_regular_file(status))
    throw std::runtime_error("'" + path + "' is not a regular file");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  const auto size = static_cast<std::uint64_t>(std::filesystem::file_size(path));
  const auto line_start = [&](std::uint64_t pos) -> std::uint64_t {  // the first at or after pos
    if (pos == 0 || pos >= size) return std::min(pos, size);
    file.seekg(static_cast<std::streamoff>(pos - 1));
    std::string rest;
    std::getline(file, rest);
    file.clear();
    return std::min<std::uint64_t>(size, pos + rest.size());
  };
  const auto begin = line_start(size * index / peers), end = line_start(size * (index + 1) / peers);
  std::string text(end - begin, '\0');
  file.seekg(static_cast<std::streamoff>(begin));
  if (!file.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw std::runtime_error("cannot read '" + path + "'");
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  // --quiet is this program's switch; FILE and the worker arguments are left to timely::run.
  std::vector<char*> args{argv[0]};
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--quiet") {
      quiet = true;
    } else {
      if (std::string_view(argv[i]) == "--help")
        std::printf("usage: wordcount [FILE] [--quiet] [worker arguments]\n\n");
      args.push_back(argv[i]);
    }
  }
  // What this process's workers counted, for the summary that the last of them prints.
  struct Totals {
    std::mutex mutex;
    std::uint64_t words = 0, distinct = 0;
    std::size_t done = 0;
  } process;
  const auto start = std::chrono::steady_clock::now();

  return timely::run(
      static_cast<int>(args.size()), args.data(), [&](timely::Worker& worker, const timely::Config& config) {
        if (config.positional.size() > 1)
          throw timely::ConfigError("expected at most one FILE; got " +
                                    std::to_string(config.positional.size()) + " positional arguments");
        const std::string path = config.positional.empty() ? TIMELY_DEFAULT_TEXT : config.positional[0];
        if (config.positional.empty() && !std::filesystem::exists(path))
          throw std::runtime_error("cannot open '" + path +
                                   "' (run scripts/fetch-data.sh to fetch the default text)");
        const std::string text = read_share(path, worker.index(), worker.peers());

        timely::InputHandle<Time, std::string> input;
        timely::ProbeHandle<Time> probe;
        HashMap<std::string, Count> latest;  // each of this worker's words, with its latest total
        worker.dataflow<Time>([&](auto& scope) {
          const auto route = [](const WordCount& wc) { return boost::hash<std::string>{}(wc.first); };
          input.to_stream(scope) | split_words() | exchange(route) | count_words() |
              inspect([&latest](const WordCount& wc) { latest[wc.first] = wc.second; }) | probe_with(probe);
        });

        examples::ProgressLine progress("wordcount", "bytes", static_cast<double>(text.size()),
                                        !quiet && worker.index() == 0);
        std::uint64_t lines = 0;
        for (std::size_t pos = 0, chunk = 0; pos < text.size();) {
          pos = std::min(text.find('\n', pos), text.size()) + 1;
          const bool epoch_ends = ++lines % kLinesPerEpoch == 0;
          if (lines % kLinesPerRecord == 0 || epoch_ends || pos >= text.size()) {
            input.send(text.substr(chunk, std::min(pos, text.size()) - chunk));
            chunk = pos;
          }
          if (epoch_ends) {
            input.advance_to(input.time() + 1);
            while (probe.less_than(input.time() - 1)) worker.step();  // at most two epochs in flight
            progress.update(static_cast<double>(pos));
          }
        }
        input.close();
        while (!probe.done()) worker.step();
        progress.finish();

        // Whole lines in atomic writes: this process's workers, and other processes, may share a pipe.
        examples::LineOutput out;
        std::uint64_t words = 0;
        for (const auto& [word, count] : latest) {
          char digits[24];
          char* end = std::to_chars(digits, digits + sizeof digits - 1, count).ptr;
          *end++ = '\n';
          out.append(word);
          out.append(" ");
          out.append(std::string_view(digits, static_cast<std::size_t>(end - digits)));
          words += static_cast<std::uint64_t>(count);
        }
        out.flush();

        const std::lock_guard lock(process.mutex);
        process.words += words;
        process.distinct += latest.size();
        if (++process.done < config.workers) return;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const std::string share = config.processes == 1
                                      ? std::string()
                                      : " process " + std::to_string(config.process_index) + " of " +
                                            std::to_string(config.processes) + " (its workers' share):";
        std::fprintf(stderr, "wordcount:%s %llu words, %llu distinct, %zu workers, %.3f s, %.3e words/s\n",
                     share.c_str(), static_cast<unsigned long long>(process.words),
                     static_cast<unsigned long long>(process.distinct), config.workers, seconds,
                     seconds > 0 ? static_cast<double>(process.words) / seconds : 0.0);
      });
}
