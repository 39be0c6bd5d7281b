// The COST baseline for `wordcount`: one thread, no timely. Reads FILE whole, splits it into words
// exactly as examples/wordcount.cpp does (maximal runs of bytes other than the six ASCII
// whitespace bytes), counts them in a flat hash map keyed by views into the text, and prints
// "WORD COUNT" per distinct word on stdout (in hash order, as the example; compare sorted).
// The last line on stderr is the machine-readable timing line benches/run reads.
//   baseline_wordcount FILE
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <boost/container_hash/hash.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

/// Appends the bytes of `path` to `text`; false if it cannot be opened or read (errno says why).
bool read_file(const char* path, std::string& text) {
  std::FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return false;
  char buf[1 << 16];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) text.append(buf, n);
  const bool ok = std::ferror(file) == 0;
  std::fclose(file);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: baseline_wordcount FILE\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  if (!read_file(argv[1], text)) {
    std::fprintf(stderr, "baseline_wordcount: cannot read '%s': %s\n", argv[1], std::strerror(errno));
    return 1;
  }
  boost::unordered_flat_map<std::string_view, std::int64_t, boost::hash<std::string_view>> counts;
  std::uint64_t words = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    while (p < end && is_space(*p)) ++p;
    const char* word = p;
    while (p < end && !is_space(*p)) ++p;
    if (p > word) {
      ++counts[std::string_view(word, static_cast<std::size_t>(p - word))];
      ++words;
    }
  }
  std::string out;
  out.reserve(1 << 20);
  for (const auto& [word, count] : counts) {
    out.append(word);
    out.push_back(' ');
    out.append(std::to_string(count));
    out.push_back('\n');
    if (out.size() > (1 << 20)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "bench: seconds=%.6f words=%llu distinct=%zu\n", seconds,
               static_cast<unsigned long long>(words), counts.size());
}
