// The log directory (timely/durable/log.hpp): streams and partitions, statistics,
// verification and consumer offsets. Writers and readers are opened in writer.cpp and
// reader.cpp.
#include <timely/durable/log.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <map>
#include <system_error>
#include <utility>

#include "partition.hpp"

namespace timely::durable {

namespace {

std::optional<std::uint32_t> parse_partition(const std::string& name) {
  if (name.empty() || name.size() > 10 || (name.size() > 1 && name[0] == '0')) return std::nullopt;
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), value);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return value;
}

// Creates `dir` if missing and syncs it into its parent.
void make_directory(FileSystem& fs, const std::filesystem::path& dir) {
  if (fs.is_directory(dir)) return;
  fs.create_directory(dir);
  fs.sync_directory(dir.parent_path());
}

}  // namespace

Log::Log(std::filesystem::path root, LogOptions options) : fs_(std::move(options.file_system)) {
  if (!fs_) throw ArgumentError("", root, std::nullopt, "a log without a file system");
  if (root.empty()) throw ArgumentError("", "", std::nullopt, "the log directory is an empty path");
  if (!root.is_absolute()) {
    std::error_code error;
    auto resolved = std::filesystem::absolute(root, error);  // fails if the working directory is gone
    if (error) throw IoError(root, std::nullopt, "resolving the log directory", error.value());
    root = std::move(resolved);
  }
  root_ = root.lexically_normal();
  if (root_.has_filename() == false && root_ != root_.root_path()) root_ = root_.parent_path();
  if (!fs_->exists(root_)) {
    if (!options.create) throw ArgumentError("", root_, std::nullopt, "the log directory does not exist");
    // Like mkdir -p, each new directory synced into its parent.
    std::vector<std::filesystem::path> missing;
    for (auto dir = root_; !fs_->exists(dir) && dir != dir.parent_path(); dir = dir.parent_path())
      missing.push_back(dir);
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) make_directory(*fs_, *it);
  }
  if (!fs_->is_directory(root_))
    throw ArgumentError("", root_, std::nullopt, "the log root is not a directory");
}

std::vector<std::string> Log::streams() const {
  std::vector<std::string> out;
  for (const auto& name : fs_->list(root_))
    if (valid_name(name) && fs_->is_directory(root_ / name)) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint32_t> Log::partitions(const std::string& stream) const {
  if (!valid_name(stream))
    throw ArgumentError("", root_, std::nullopt,
                        "stream name " + quote_input(stream) + " (expected " + std::string(kNameRule) + ")");
  const auto dir = root_ / stream;
  if (!fs_->is_directory(dir))
    throw ArgumentError("", dir, std::nullopt, "stream " + quote_input(stream) + " does not exist");
  std::vector<std::uint32_t> out;
  for (const auto& name : fs_->list(dir))
    if (auto p = parse_partition(name); p && fs_->is_directory(dir / name)) out.push_back(*p);
  std::sort(out.begin(), out.end());
  return out;
}

void Log::create_stream(const std::string& stream, std::uint32_t partitions) {
  if (partitions == 0)
    throw ArgumentError("", root_, std::nullopt,
                        "stream " + quote_input(stream) + " of 0 partitions (at least 1)");
  for (std::uint32_t p = 0; p < partitions; ++p) ensure_partition(stream, p);
}

std::filesystem::path Log::partition_dir(const std::string& stream, std::uint32_t partition,
                                         bool must_exist) const {
  if (!valid_name(stream))
    throw ArgumentError("", root_, std::nullopt,
                        "stream name " + quote_input(stream) + " (expected " + std::string(kNameRule) + ")");
  auto dir = root_ / stream / std::to_string(partition);
  if (must_exist && !fs_->is_directory(dir))
    throw ArgumentError(stream + "/" + std::to_string(partition), dir, std::nullopt,
                        "the partition does not exist");
  return dir;
}

std::filesystem::path Log::ensure_partition(const std::string& stream, std::uint32_t partition) const {
  auto dir = partition_dir(stream, partition, false);
  detail::in_partition(stream + "/" + std::to_string(partition), [&] {
    make_directory(*fs_, dir.parent_path());
    make_directory(*fs_, dir);
  });
  return dir;
}

PartitionStats Log::stats(const std::string& stream, std::uint32_t partition) const {
  const detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                                     stream + "/" + std::to_string(partition)};
  return detail::in_partition(paths.name, [&] {
    PartitionStats st;
    st.partition = paths.name;
    const auto segments = detail::list_segments(paths).segments;
    auto note = [&](std::int64_t first, std::int64_t last, std::int64_t max) {
      if (!st.first_timestamp) st.first_timestamp = first;
      st.last_timestamp = last;
      st.max_timestamp = st.max_timestamp ? std::max(*st.max_timestamp, max) : max;
    };
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const std::uint64_t base = segments[i];
      std::unique_ptr<File> file;
      try {
        file = fs_->open(paths.segment(base, SegmentFile::log), OpenMode::read);
      } catch (const IoError& e) {
        if (e.error_number() == ENOENT) continue;  // retention deleted it meanwhile
        throw;
      }
      if (st.segments++ == 0) st.first_offset = base;
      const std::uint64_t size = file->size();
      st.bytes += size;
      st.end_offset = base;
      if (i + 1 < segments.size() && size > 0) {
        const auto index = detail::read_index(paths, base, size);
        if (index.sealed) {
          const auto& h = *index.sealed;
          st.records += h.end_offset - base;
          st.end_offset = h.end_offset;
          if (h.end_offset > base) note(h.first_timestamp, h.last_timestamp, h.max_timestamp);
          continue;
        }
      }
      const auto scan = detail::scan_segment(*file, paths, base, 4096, false);
      st.records += scan.builder.records();
      st.end_offset = scan.end_offset;
      const auto& b = scan.builder;
      if (!b.empty()) note(b.first_timestamp(), b.last_timestamp(), b.max_timestamp());
    }
    return st;
  });
}

VerifyReport Log::verify(const std::string& stream, std::uint32_t partition) const {
  const detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                                     stream + "/" + std::to_string(partition)};
  return detail::in_partition(paths.name, [&] {
    VerifyReport report;
    report.partition = paths.name;
    auto problem = [&](const std::filesystem::path& file, std::uint64_t at, std::string reason) {
      report.problems.push_back({paths.name, file, at, 0, 0, 0, std::move(reason)});
    };
    const auto listing = detail::list_segments(paths);
    for (const auto& orphan : listing.orphans) problem(orphan, 0, "an index file without its segment file");
    std::optional<std::uint64_t> previous_end;
    for (std::size_t i = 0; i < listing.segments.size(); ++i) {
      const std::uint64_t base = listing.segments[i];
      const bool last = i + 1 == listing.segments.size();
      const auto log_path = paths.segment(base, SegmentFile::log);
      std::unique_ptr<File> file;
      try {
        file = fs_->open(log_path, OpenMode::read);
      } catch (const IoError& e) {
        if (e.error_number() == ENOENT) continue;  // retention deleted it meanwhile
        throw;
      }
      ++report.segments;
      const std::uint64_t size = file->size();
      report.bytes += size;
      // Every valid batch's position, base offset and the segment's largest timestamp up to it.
      struct At {
        std::uint64_t base;
        std::int64_t running_max;
      };
      std::map<std::uint64_t, At> batches;
      std::int64_t running_max = 0;
      bool any = false;
      const auto scan = detail::scan_segment(
          *file, paths, base, 4096, false, [&](std::uint64_t position, const BatchHeader& h) {
            running_max = any ? std::max(running_max, h.max_timestamp) : h.max_timestamp;
            any = true;
            batches[position] = {h.base_offset, running_max};
          });
      for (const auto& d : scan.damage) report.problems.push_back(d);
      report.batches += scan.batches;
      report.records += scan.builder.records();
      if (previous_end && *previous_end != base) {
        report.problems.push_back({paths.name, log_path, 0, 0, std::min(*previous_end, base),
                                   std::max(*previous_end, base),
                                   "the segment starts at offset " + std::to_string(base) +
                                       " but the one before it ends at " + std::to_string(*previous_end)});
      }
      previous_end = scan.end_offset;
      for (SegmentFile kind : {SegmentFile::index, SegmentFile::timeindex}) {
        const auto path = paths.segment(base, kind);
        const auto bytes = detail::read_whole(*fs_, path);
        if (!bytes) {
          problem(path, 0, "the index file is missing");
          continue;
        }
        std::string reason;
        const auto header = decode_index_header(*bytes, kind, &reason);
        if (!header) {
          problem(path, 0, "not a valid index: " + reason);
          continue;
        }
        if (header->base_offset != base)
          problem(path, 8,
                  "the index's base offset " + std::to_string(header->base_offset) +
                      " is not its segment's " + std::to_string(base));
        if (!last && header->sealed_size == 0)
          problem(path, 16, "the index of a sealed segment is not sealed");
        if (!last && header->sealed_size != 0) {
          const auto& b = scan.builder;
          if (header->sealed_size != size)
            problem(path, 16,
                    "the index describes " + std::to_string(header->sealed_size) +
                        " bytes of a segment file of " + std::to_string(size));
          if (header->end_offset != scan.end_offset)
            problem(path, 24,
                    "the index's end offset " + std::to_string(header->end_offset) +
                        " is not the segment's " + std::to_string(scan.end_offset));
          if (!b.empty() &&
              (header->first_timestamp != b.first_timestamp() ||
               header->last_timestamp != b.last_timestamp() || header->max_timestamp != b.max_timestamp()))
            problem(path, 32, "the index's timestamps are not the segment's");
        }
        const bool time = kind == SegmentFile::timeindex;
        const std::size_t entry = time ? kTimeIndexEntrySize : kOffsetIndexEntrySize;
        if ((bytes->size() - kIndexHeaderSize) % entry != 0)
          problem(path, bytes->size() - (bytes->size() - kIndexHeaderSize) % entry, "a partial index entry");
        std::optional<std::uint64_t> previous_position;
        std::int64_t previous_ts = 0;
        for (std::size_t k = 0; kIndexHeaderSize + entry * (k + 1) <= bytes->size(); ++k) {
          const std::uint64_t at = kIndexHeaderSize + entry * k;
          std::uint64_t position = 0;
          std::uint64_t relative = 0;
          std::int64_t ts = 0;
          if (time) {
            const auto e = decode_time_entry(
                std::span<const std::byte, kTimeIndexEntrySize>(bytes->data() + at, kTimeIndexEntrySize));
            position = e.position;
            relative = e.relative_offset;
            ts = e.timestamp;
          } else {
            const auto e = decode_offset_entry(
                std::span<const std::byte, kOffsetIndexEntrySize>(bytes->data() + at, kOffsetIndexEntrySize));
            position = e.position;
            relative = e.relative_offset;
          }
          const auto it = batches.find(position);
          const bool at_damage =
              std::any_of(scan.damage.begin(), scan.damage.end(),
                          [&](const CorruptionReport& d) { return d.byte_offset == position; });
          if (at_damage) {
            // The entry points at a damaged batch, reported above: it was right when written.
          } else if (it == batches.end()) {
            problem(path, at,
                    "index entry " + std::to_string(k) + " points at byte " + std::to_string(position) +
                        ", where no valid batch starts");
          } else if (it->second.base != base + relative) {
            problem(path, at,
                    "index entry " + std::to_string(k) + " names offset " + std::to_string(base + relative) +
                        " at byte " + std::to_string(position) + ", where the batch starts at offset " +
                        std::to_string(it->second.base));
          } else if (time && ts != it->second.running_max) {
            problem(path, at,
                    "time-index entry " + std::to_string(k) + " has timestamp " + std::to_string(ts) +
                        ", the segment's largest up to its batch is " +
                        std::to_string(it->second.running_max));
          }
          if (previous_position && (position <= *previous_position || (time && ts <= previous_ts)))
            problem(path, at, "index entry " + std::to_string(k) + " is out of order");
          previous_position = position;
          previous_ts = ts;
        }
      }
    }
    return report;
  });
}

void Log::commit(const std::string& stream, std::uint32_t partition, const std::string& name,
                 std::uint64_t offset) const {
  const detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                                     stream + "/" + std::to_string(partition)};
  detail::in_partition(paths.name, [&] { detail::commit_offset(paths, name, offset); });
}

std::optional<std::uint64_t> Log::committed(const std::string& stream, std::uint32_t partition,
                                            const std::string& name) const {
  const detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                                     stream + "/" + std::to_string(partition)};
  return detail::in_partition(paths.name, [&] { return detail::read_committed(paths, name); });
}

std::vector<std::string> Log::consumers(const std::string& stream, std::uint32_t partition) const {
  const detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                                     stream + "/" + std::to_string(partition)};
  return detail::in_partition(paths.name, [&] {
    std::vector<std::string> out;
    if (!fs_->is_directory(paths.consumers())) return out;
    const std::string suffix = ".offset";
    for (const auto& name : fs_->list(paths.consumers())) {
      if (name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      const std::string consumer = name.substr(0, name.size() - suffix.size());
      if (valid_name(consumer)) out.push_back(consumer);
    }
    std::sort(out.begin(), out.end());
    return out;
  });
}

}  // namespace timely::durable
