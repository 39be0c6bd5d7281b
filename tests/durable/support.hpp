// Helpers of the durable log's tests: scratch directories, deterministic record contents (a
// record's bytes and timestamp follow from its offset, so that any process can check any
// record it finds), and reading a whole partition back.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/durable/log.hpp>

namespace durable_test {

/// A scratch directory, removed at the end of the test: under /dev/shm when it is there (fdatasync
/// is cheap on tmpfs), else the system's temporary directory.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int counter = 0;
    const std::filesystem::path shm = "/dev/shm";
    const auto base = std::filesystem::is_directory(shm) && ::access(shm.c_str(), W_OK) == 0
                          ? shm
                          : std::filesystem::temp_directory_path();
    path_ =
        base / ("timely-durable-" + tag + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The bytes of the record at `offset` in a test's partition: 0 to 300 bytes that depend on the
/// offset and `salt`.
inline std::string payload(std::uint64_t offset, std::uint64_t salt = 0) {
  std::uint64_t x = (offset + 1) * 0x9E3779B97F4A7C15ull ^ (salt * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 29;
  const std::size_t length = static_cast<std::size_t>(x % 301);
  std::string s(length, '\0');
  for (std::size_t i = 0; i < length; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    s[i] = static_cast<char>(x >> 56);
  }
  return s;
}

/// The timestamp of the record at `offset`: rising with the offset, with some disorder.
inline std::int64_t timestamp_of(std::uint64_t offset) {
  return static_cast<std::int64_t>(offset * 10 + (offset * 7919) % 23);
}

inline std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s)); }

/// One record as the tests keep it: timestamp and bytes.
struct Stored {
  std::int64_t timestamp = 0;
  std::string bytes;
  bool operator==(const Stored&) const = default;
};

/// The durability policies of the crash loop (process_test.cpp, child.cpp) by name:
/// `every_batch`, or `periodic`: a sync every 5 ms by the sync thread and within the append that
/// brings the unsynced bytes to 16 KiB, so that kills land before, during and after syncs of
/// both kinds. \throws std::invalid_argument for another name.
inline timely::durable::Durability crash_durability(const std::string& name) {
  if (name == "every_batch") return timely::durable::Durability::every_batch();
  if (name == "periodic") return timely::durable::Durability::periodic(std::chrono::milliseconds(5), 16384);
  throw std::invalid_argument("durability policy '" + name + "' (expected every_batch or periodic)");
}

/// Appends `records` as one batch; returns the base offset.
inline std::uint64_t append(timely::durable::Writer& writer, const std::vector<Stored>& records) {
  std::vector<timely::durable::RecordView> views;
  for (const auto& r : records) views.push_back({r.timestamp, bytes_of(r.bytes)});
  return writer.append(views);
}

/// Every record readable from `start` on, with the offsets the reader gave them.
inline std::vector<std::pair<std::uint64_t, Stored>> read_all(timely::durable::Reader& reader) {
  std::vector<std::pair<std::uint64_t, Stored>> out;
  while (auto batch = reader.next_batch()) {
    std::uint64_t offset = batch->base_offset();
    for (auto record : *batch)
      out.push_back({offset++, Stored{record.timestamp, std::string(record.text())}});
  }
  return out;
}

/// The deterministic records [from, to).
inline std::vector<Stored> deterministic(std::uint64_t from, std::uint64_t to, std::uint64_t salt = 0) {
  std::vector<Stored> out;
  for (std::uint64_t o = from; o < to; ++o) out.push_back({timestamp_of(o), payload(o, salt)});
  return out;
}

}  // namespace durable_test
