// The main program of the `columnar` example (examples/wordcount.cpp is the same program over
// vectors, written out in one file): each worker reads its share of FILE's lines (a byte range,
// cut at line ends) and feeds them in epochs of a fixed number of lines, a few lines to a record,
// into the dataflow that `build` makes; at the end every distinct word is printed once on stdout
// as "WORD COUNT" and a summary goes to stderr.
#pragma once

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/timely.hpp>

#include "common.hpp"
#include "line_output.hpp"
#include "progress_line.hpp"

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

/// Calls `f(std::string_view word)` for every word of `text`: the runs of bytes other than the
/// six ASCII whitespace bytes, as `tr '[:space:]'` sees them in the C locale.
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

constexpr std::uint64_t kLinesPerEpoch = 50'000;
constexpr std::uint64_t kLinesPerChunk = 32;

/// One worker's share of the output: its words' "WORD COUNT" lines, and their totals.
struct Part {
  std::string lines;
  std::uint64_t words = 0;
  std::uint64_t distinct = 0;
  std::chrono::steady_clock::time_point done;  // when this worker had its words formatted
};

/// The part of `path` worker `index` of `peers` reads: whole lines starting in its byte range.
std::string read_share(const std::string& path, std::size_t index, std::size_t peers) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  file.seekg(0, std::ios::end);
  const auto end_pos = file.tellg();
  if (end_pos < 0) throw std::runtime_error("cannot determine the size of '" + path + "'");
  const auto size = static_cast<std::uint64_t>(end_pos);
  auto boundary = [&](std::uint64_t pos) -> std::uint64_t {
    // The first line start at or after pos (pos 0 is a line start).
    if (pos == 0 || pos >= size) return std::min(pos, size);
    file.clear();
    file.seekg(static_cast<std::streamoff>(pos - 1));
    std::string rest;
    std::getline(file, rest);
    return std::min<std::uint64_t>(size, pos + rest.size());
  };
  const auto begin = boundary(size * index / peers);
  const auto end = boundary(size * (index + 1) / peers);
  std::string text(end > begin ? end - begin : 0, '\0');
  file.clear();
  file.seekg(static_cast<std::streamoff>(begin));
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!file && !text.empty()) throw std::runtime_error("cannot read '" + path + "'");
  return text;
}

/// Runs the example called `name` with arguments `[FILE] [--quiet] [-w N]` (FILE defaults to
/// `default_text`; --quiet: no progress line); `build(worker, input, probe, latest)` makes the
/// dataflow.
template <class Build>
int main(int argc, char** argv, const char* name, const char* default_text, Build build) {
  constexpr const char* options =
      "  FILE       the text to count the words of (default: the source tree's data/gcide.txt)\n"
      "  --quiet    no progress line on stderr\n";
  return examples::guarded_main(name, "[FILE] [--quiet] [-w N]", options, [&] {
    std::vector<char*> args(argv, argv + argc);
    const bool quiet = examples::take_switch(args, "--quiet");
    auto config = timely::Config::from_args(static_cast<int>(args.size()), args.data());
    if (config.positional.size() > 1)
      throw examples::positional_error(config.positional, "expected at most one FILE");
    const std::string path = config.positional.empty() ? default_text : config.positional[0];
    {
      // Only regular files: a directory, FIFO or device has no size to split among workers.
      std::error_code ec;
      const auto status = std::filesystem::status(path, ec);
      if (ec || !std::filesystem::exists(status)) {
        std::string hint =
            config.positional.empty() ? " (run scripts/fetch-data.sh to fetch the default text)" : "";
        throw std::runtime_error("cannot open '" + path + "': " + (ec ? ec.message() : "no such file") +
                                 hint);
      }
      if (!std::filesystem::is_regular_file(status))
        throw std::runtime_error("'" + path + "' is not a regular file");
      std::ifstream check(path, std::ios::binary);
      if (!check) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
    }
    const auto start = std::chrono::steady_clock::now();
    auto results = timely::execute(config, [&](timely::Worker& worker) {
      timely::InputHandle<wordcount::Time, std::string> input;
      timely::ProbeHandle<wordcount::Time> probe;
      wordcount::Latest latest;
      build(worker, input, probe, latest);

      const std::string text = read_share(path, worker.index(), worker.peers());
      examples::ProgressLine progress(name, "bytes", static_cast<double>(text.size()),
                                      !quiet && worker.index() == 0);
      // Lines go in chunks of up to kLinesPerChunk (a chunk is text too, cut at line ends), so
      // that a batch holds many lines and allocates one string per chunk.
      std::uint64_t lines = 0;
      std::size_t pos = 0, chunk = 0;
      while (pos < text.size()) {
        auto end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        pos = end + 1;
        ++lines;
        const bool epoch_ends = lines % kLinesPerEpoch == 0;
        if (lines % kLinesPerChunk == 0 || epoch_ends || pos >= text.size()) {
          input.send(text.substr(chunk, std::min(pos, text.size()) - chunk));
          chunk = pos;
        }
        if (epoch_ends) {
          input.advance_to(input.time() + 1);
          // Keep at most two epochs in flight.
          while (input.time() >= 2 && probe.less_than(input.time() - 1)) worker.step();
          progress.update(static_cast<double>(pos));
        }
      }
      input.close();
      while (!probe.done()) worker.step();
      progress.finish();
      // Each worker formats its own words' lines (in parallel, and without copying the map).
      Part part;
      part.lines.reserve(latest.size() * 16);
      for (const auto& [word, count] : latest) {
        part.words += static_cast<std::uint64_t>(count);
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, count).ptr;
        part.lines.append(word).append(1, ' ').append(digits, end).append(1, '\n');
      }
      part.distinct = latest.size();
      part.done = std::chrono::steady_clock::now();
      return part;
    });
    // Until the last worker finished, not until execute returned: --monitor-linger keeps the
    // monitor serving after that, and is not part of the count.
    auto done = start;
    for (const auto& part : results) done = std::max(done, part.done);
    const double seconds = std::chrono::duration<double>(done - start).count();

    // Whole lines in atomic writes: the processes of one computation may share a pipe.
    std::uint64_t words = 0, distinct = 0;
    examples::LineOutput out;
    for (const auto& part : results) {
      words += part.words;
      distinct += part.distinct;
      out.append(part.lines);
    }
    out.flush();
    // With -n P each process counts (and prints) only its own workers' words: say so.
    std::string share;
    if (config.processes > 1)
      share = " process " + std::to_string(config.process_index) + " of " + std::to_string(config.processes) +
              " (its workers' share):";
    std::fprintf(stderr, "%s:%s %llu words, %llu distinct, %zu workers, %.3f s, %.3e words/s\n", name,
                 share.c_str(), static_cast<unsigned long long>(words),
                 static_cast<unsigned long long>(distinct), config.workers, seconds,
                 seconds > 0 ? static_cast<double>(words) / seconds : 0.0);
  });
}

}  // namespace wordcount
