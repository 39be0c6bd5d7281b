/// \file
/// What the durable log reports about a partition: `PartitionStats` (segments, bytes, records,
/// offsets and timestamps), `CorruptionReport` (one damaged place: file, byte offset, offsets
/// lost, why), `RecoveryReport` (what opening a writer repaired) and `VerifyReport` (what
/// checking every batch and index found). Plain values, printable with `to_string`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace timely::durable {

/// A partition's size and range. `end_offset` is one past the last record (the offset the next
/// append gets); `records == end_offset - first_offset` when no offsets are missing.
struct PartitionStats {
  std::string partition;  ///< `stream/N`
  std::size_t segments = 0;
  std::uint64_t bytes = 0;  ///< of the segment files (.log), indexes not counted
  std::uint64_t records = 0;
  std::uint64_t first_offset = 0;
  std::uint64_t end_offset = 0;
  std::optional<std::int64_t> first_timestamp;  ///< the first record's; nothing if empty
  std::optional<std::int64_t> last_timestamp;   ///< the last record's
  std::optional<std::int64_t> max_timestamp;    ///< the largest
};

/// One damaged place in a partition: the file, the byte offset where the damage starts, how
/// many bytes it spans (up to the next valid batch or the end of the file), the offsets lost
/// with it ([lost_begin, lost_end), empty if none are known to be lost) and why.
struct CorruptionReport {
  std::string partition;
  std::filesystem::path file;
  std::uint64_t byte_offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t lost_begin = 0;
  std::uint64_t lost_end = 0;
  std::string reason;
};

/// The bytes a writer's recovery cut from the end of the active segment: from `byte_offset` to
/// the end, `bytes` bytes holding `records` records (as the cut batches' headers say: the torn
/// batch's, if its header was whole, and those of any whole batches after it), and why.
struct SegmentCut {
  std::filesystem::path segment;
  std::uint64_t byte_offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
  std::string reason;
};

/// What opening a writer found and repaired: the cut at the end of the active segment, the
/// index files rebuilt, corruption found in sealed segments while rebuilding their indexes (not
/// repaired: readers meet it and throw or skip as their options say), and files removed (index
/// files without their segment file).
struct RecoveryReport {
  std::string partition;
  std::optional<SegmentCut> cut;
  std::vector<std::filesystem::path> indexes_rebuilt;
  std::vector<CorruptionReport> corruption;
  std::vector<std::filesystem::path> removed;
  /// Whether nothing was cut, rebuilt, removed or found damaged.
  [[nodiscard]] bool clean() const noexcept {
    return !cut && indexes_rebuilt.empty() && corruption.empty() && removed.empty();
  }
};

/// What `Log::verify` found: the counts of what it read and every problem (damaged batches,
/// offsets that do not continue, index entries that point at no batch or at the wrong one,
/// sealed index headers that disagree with their segment).
struct VerifyReport {
  std::string partition;
  std::size_t segments = 0;
  std::uint64_t batches = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
  std::vector<CorruptionReport> problems;
  [[nodiscard]] bool ok() const noexcept { return problems.empty(); }
};

/// One line per fact, for people and logs.
[[nodiscard]] std::string to_string(const CorruptionReport& report);
[[nodiscard]] std::string to_string(const RecoveryReport& report);
[[nodiscard]] std::string to_string(const VerifyReport& report);
[[nodiscard]] std::string to_string(const PartitionStats& stats);

}  // namespace timely::durable
