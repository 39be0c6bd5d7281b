// Chapter 5, "file": capture a stream into files in the binary event format, replay the files,
// then see what happens to damaged or mismatched input. Each worker writes its part of the
// stream to its own file; the replay reads all of them. Every problem with a file is reported
// as a capture::FormatError that says what is wrong and at which byte.
//   ch05_file [-w N]
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace capture = timely::capture;
namespace fs = std::filesystem;
using Time = std::uint64_t;
using Count = std::pair<std::string, std::int64_t>;  // (word, count)
using Writer = capture::EventWriter<Time, Count>;
using Reader = capture::EventReader<Time, Count>;

// Replays `files` on as many workers as `config` says; returns (time, word, count), sorted.
std::vector<std::tuple<Time, std::string, std::int64_t>> replay(const timely::Config& config,
                                                                const std::vector<fs::path>& files) {
  auto parts = timely::execute(config, [&](timely::Worker& worker) {
    std::vector<Reader> mine;
    for (std::size_t i = worker.index(); i < files.size(); i += worker.peers())
      mine.push_back(Reader::open(files[i]));
    std::vector<std::tuple<Time, std::string, std::int64_t>> got;
    worker.dataflow<Time>([&](auto& scope) {
      replay_into(scope, std::move(mine)) |
          inspect_time([&got](Time t, const Count& c) { got.emplace_back(t, c.first, c.second); });
    });
    while (worker.step()) {
    }
    return got;
  });
  std::vector<std::tuple<Time, std::string, std::int64_t>> all;
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  return all;
}

void show_error(const char* what, const capture::FormatError& e) {
  std::printf("%s:\n  kind \"%s\", offset %llu\n  %s\n", what, std::string(to_string(e.kind())).c_str(),
              static_cast<unsigned long long>(e.offset()), e.what());
}

int main(int argc, char** argv) {
  const auto config = timely::Config::from_args(argc, argv);
  const fs::path dir =
      fs::temp_directory_path() / ("timely-book-ch05-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::vector<fs::path> files;
  for (std::size_t i = 0; i < config.workers; ++i)
    files.push_back(dir / ("part-" + std::to_string(i) + ".events"));

  // 1. Capture: (word, 1) per word of each line, exchanged by word, at the line's time.
  const std::vector<std::string> lines = {"to be or", "not to be", "that is", "the question"};
  timely::execute(config, [&](timely::Worker& worker) {
    timely::InputHandle<Time, Count> input;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const Count& c) { return std::hash<std::string>{}(c.first); }) |
          capture_into(Writer::create(files[worker.index()]));
    });
    for (std::size_t i = worker.index(); i < lines.size(); i += worker.peers()) {
      input.advance_to(i);
      std::string word;
      for (char c : lines[i] + " ")
        if (c != ' ')
          word += c;
        else if (!word.empty())
          input.send(Count(std::exchange(word, ""), 1));
    }
  });

  // 2. Replay the files, on as many workers as captured them and on one.
  auto replayed = replay(config, files);
  for (const auto& [t, word, n] : replayed)
    std::printf("time %llu: %s %lld\n", static_cast<unsigned long long>(t), word.c_str(),
                static_cast<long long>(n));
  std::printf("replayed on 1 worker: %s\n",
              replay(timely::Config::thread(), files) == replayed ? "the same records" : "DIFFERENT records");

  // 3. Damaged and mismatched input.
  try {  // records written as (string, i64), read as int
    capture::EventReader<Time, int> wrong(capture::EventReader<Time, int>::open(files[0]));
    (void)wrong.next();
  } catch (const capture::FormatError& e) {
    show_error("reading the file with the wrong record type", e);
  }

  const fs::path flipped = dir / "flipped.events";
  fs::copy_file(files[0], flipped);
  {
    std::fstream f(flipped, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(17);  // inside the time type's name in the header
    f.put('X');
  }
  try {
    Reader reader = Reader::open(flipped);
    while (reader.next()) {
    }
  } catch (const capture::FormatError& e) {
    show_error("reading a file with one byte changed in its header", e);
  }

  const fs::path cut = dir / "cut.events";
  { Writer header_only(std::make_unique<std::ofstream>(cut, std::ios::binary)); }  // a header, no events
  try {
    replay(timely::Config::thread(), {cut});
  } catch (const capture::FormatError& e) {
    show_error("replaying a stream that ends before it is complete", e);
  }

  fs::remove_all(dir);
}
