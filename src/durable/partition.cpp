// The shared partition machinery (partition.hpp): segment listing, the buffered segment view,
// batch probing and resynchronisation, index building and reading, and the notifier.
#include "partition.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <map>
#include <set>

#include <unistd.h>

#include "bytes.hpp"

namespace timely::durable::detail {

Listing list_segments(const PartitionPaths& paths) {
  std::set<std::uint64_t> logs;
  std::vector<std::pair<std::uint64_t, std::string>> indexes;
  for (const auto& name : paths.fs->list(paths.dir)) {
    const auto parsed = parse_segment_file_name(name);
    if (!parsed) continue;
    if (parsed->second == SegmentFile::log) {
      logs.insert(parsed->first);
    } else {
      indexes.emplace_back(parsed->first, name);
    }
  }
  Listing listing;
  listing.segments.assign(logs.begin(), logs.end());
  for (const auto& [base, name] : indexes)
    if (logs.count(base) == 0) listing.orphans.push_back(paths.dir / name);
  std::sort(listing.orphans.begin(), listing.orphans.end());
  return listing;
}

std::span<const std::byte> SegmentBuffer::load(File& file, std::uint64_t position, std::size_t n,
                                               bool fresh) {
  if (!fresh && position >= start_ && position - start_ <= length_ && n <= length_ - (position - start_))
    return {reinterpret_cast<const std::byte*>(storage_.get()) + (position - start_), n};
  const std::size_t want = std::max(n, chunk_);
  if (want > capacity_) {
    capacity_ = static_cast<std::size_t>(round8(want));
    storage_.reset(new std::uint64_t[capacity_ / 8]);  // not zeroed: only what is read is used
  }
  auto* bytes = reinterpret_cast<std::byte*>(storage_.get());
  length_ = 0;  // a failed read leaves no window behind
  const std::size_t got = file.read_at(position, std::span<std::byte>(bytes, want));
  start_ = position;
  length_ = got;
  return {bytes, std::min(n, got)};
}

Probe probe(SegmentBuffer& buffer, File& file, std::uint64_t position) {
  auto evaluate = [&](bool fresh) {
    Probe p;
    auto bytes = buffer.load(file, position, kBatchHeaderSize, fresh);
    if (bytes.empty()) {
      p.status = BatchCheck::Status::incomplete;
      p.at_end = true;
      return p;
    }
    BatchCheck check = check_batch(bytes);
    if (check.status == BatchCheck::Status::incomplete && check.needed > bytes.size()) {
      bytes = buffer.load(file, position, check.needed);
      check = check_batch(bytes);
    }
    p.status = check.status;
    p.header = check.header;
    p.reason = std::move(check.reason);
    if (p.status == BatchCheck::Status::valid) p.bytes = bytes.first(check.header.length);
    return p;
  };
  Probe p = evaluate(false);
  // What the window held may predate a write or a cut: judge damage on the file's bytes now.
  if (p.status != BatchCheck::Status::valid) p = evaluate(true);
  return p;
}

std::optional<std::pair<std::uint64_t, BatchHeader>> resync(SegmentBuffer& buffer, File& file,
                                                            std::uint64_t position) {
  static constexpr std::byte kMagic[4] = {std::byte{'T'}, std::byte{'D'}, std::byte{'L'}, std::byte{'B'}};
  for (std::uint64_t at = round8(position + 1);; at += 8) {
    const auto bytes = buffer.load(file, at, 4);
    if (bytes.size() < 4) return std::nullopt;
    if (!std::equal(bytes.begin(), bytes.end(), kMagic)) continue;
    Probe p = probe(buffer, file, at);
    if (p.status == BatchCheck::Status::valid) return std::pair{at, p.header};
  }
}

namespace {

// The reads of a whole-file scan: the file at once if small, else 1 MiB at a time.
std::size_t read_size(File& file) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(file.size(), std::uint64_t{1} << 20));
}

}  // namespace

Scan scan_segment(File& file, const PartitionPaths& paths, std::uint64_t base, std::uint32_t interval,
                  bool stop_at_damage,
                  const std::function<void(std::uint64_t position, const BatchHeader& header)>& on_batch) {
  SegmentBuffer buffer(read_size(file));
  Scan s(IndexBuilder(base, interval));
  s.end_offset = base;
  bool damaged = false;
  auto report = [&](std::uint64_t at, std::uint64_t bytes, std::uint64_t lost_end, std::string reason) {
    s.damage.push_back({paths.name, file.path(), at, bytes, s.end_offset, std::max(lost_end, s.end_offset),
                        std::move(reason)});
    damaged = true;
  };
  std::uint64_t position = 0;
  for (;;) {
    Probe p = probe(buffer, file, position);
    if (p.at_end) break;
    if (p.status == BatchCheck::Status::valid) {
      const BatchHeader& h = p.header;
      if (h.base_offset != s.end_offset) {
        std::string reason = "batch has base offset " + std::to_string(h.base_offset) + ", expected " +
                             std::to_string(s.end_offset);
        if (stop_at_damage) {
          report(position, file.size() - position, s.end_offset, std::move(reason));
          break;
        }
        if (h.base_offset < s.end_offset) {
          report(position, h.length, s.end_offset, reason + " (it repeats offsets already read)");
          position += h.length;
          continue;
        }
        report(position, 0, h.base_offset, reason + " (offsets are missing)");
      }
      s.builder.add(position, h);
      if (on_batch) on_batch(position, h);
      s.end_offset = h.end_offset();
      position += h.length;
      ++s.batches;
      if (!damaged) s.valid_end = position;
      continue;
    }
    const std::uint64_t left = file.size() - position;
    std::string reason = p.status != BatchCheck::Status::incomplete ? p.reason
                         : left < kBatchHeaderSize
                             ? "a torn batch header: " + std::to_string(left) + " of its " +
                                   std::to_string(kBatchHeaderSize) + " bytes in the file"
                             : "a torn batch: " + std::to_string(p.header.length) + " bytes announced, " +
                                   std::to_string(left) + " in the file";
    if (stop_at_damage) {
      report(position, file.size() - position, s.end_offset, std::move(reason));
      break;
    }
    auto next = resync(buffer, file, position);
    if (!next) {
      report(position, file.size() - position, s.end_offset, std::move(reason));
      break;
    }
    report(position, next->first - position, next->second.base_offset, std::move(reason));
    // The offsets up to the next valid batch are reported lost; it continues from its own.
    if (next->second.base_offset > s.end_offset) s.end_offset = next->second.base_offset;
    position = next->first;
  }
  return s;
}

std::uint64_t count_records_from(File& file, std::uint64_t position) {
  SegmentBuffer buffer(read_size(file));
  std::uint64_t records = 0;
  const Probe torn = probe(buffer, file, position);
  if (!torn.at_end) records += torn.header.record_count;  // zero unless its header was whole and sane
  std::uint64_t at = position;
  while (auto next = resync(buffer, file, at)) {
    at = next->first;
    for (;;) {
      const Probe p = probe(buffer, file, at);
      if (p.status != BatchCheck::Status::valid) break;
      records += p.header.record_count;
      at += p.header.length;
    }
  }
  return records;
}

bool IndexBuilder::add(std::uint64_t position, const BatchHeader& header) {
  if (records_ == 0) {
    first_ts_ = header.first_timestamp;
    max_ts_ = header.max_timestamp;
  } else {
    max_ts_ = std::max(max_ts_, header.max_timestamp);
  }
  last_ts_ = header.last_timestamp;
  records_ += header.record_count;
  if (position == 0 || position - last_entry_position_ < interval_) return false;
  if (header.base_offset < base_ || header.base_offset - base_ > UINT32_MAX || position > UINT32_MAX)
    return false;
  const auto relative = static_cast<std::uint32_t>(header.base_offset - base_);
  offsets_.push_back({relative, static_cast<std::uint32_t>(position)});
  last_entry_position_ = position;
  if (times_.empty() || max_ts_ > times_.back().timestamp)
    times_.push_back({max_ts_, relative, static_cast<std::uint32_t>(position)});
  return true;
}

std::vector<std::byte> IndexBuilder::file_bytes(SegmentFile kind, std::uint64_t sealed_size,
                                                std::uint64_t end_offset) const {
  const bool time = kind == SegmentFile::timeindex;
  const std::size_t entry = time ? kTimeIndexEntrySize : kOffsetIndexEntrySize;
  const std::size_t count = time ? times_.size() : offsets_.size();
  std::vector<std::byte> bytes(kIndexHeaderSize + entry * count);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* at = bytes.data() + kIndexHeaderSize + entry * i;
    if (time) {
      encode_time_entry(times_[i], std::span<std::byte, kTimeIndexEntrySize>(at, kTimeIndexEntrySize));
    } else {
      encode_offset_entry(offsets_[i],
                          std::span<std::byte, kOffsetIndexEntrySize>(at, kOffsetIndexEntrySize));
    }
  }
  IndexHeader h;
  h.kind = kind;
  h.base_offset = base_;
  h.sealed_size = sealed_size;
  h.end_offset = end_offset;
  h.first_timestamp = first_ts_;
  h.last_timestamp = last_ts_;
  h.max_timestamp = max_ts_;
  encode_index_header(h, std::span<const std::byte>(bytes).subspan(kIndexHeaderSize),
                      std::span<std::byte, kIndexHeaderSize>(bytes.data(), kIndexHeaderSize));
  return bytes;
}

std::optional<std::vector<std::byte>> read_whole(FileSystem& fs, const std::filesystem::path& path) {
  std::unique_ptr<File> file;
  try {
    file = fs.open(path, OpenMode::read);
  } catch (const IoError& e) {
    if (e.error_number() == ENOENT) return std::nullopt;
    throw;
  }
  std::vector<std::byte> bytes(file->size());
  bytes.resize(file->read_at(0, bytes));
  return bytes;
}

void write_whole(FileSystem& fs, const std::filesystem::path& path, std::span<const std::byte> bytes) {
  auto file = fs.open(path, OpenMode::create);
  file->write_at(0, bytes);
  file->truncate(bytes.size());
}

namespace {

// The header and in-order, in-file entries of one index file; `complete` if no entry was
// dropped and no partial entry trails.
template <class Entry>
struct IndexFile {
  std::optional<IndexHeader> header;
  std::vector<Entry> entries;
  bool complete = false;
  std::string problem;
};

template <class Entry>
IndexFile<Entry> parse_index(const std::optional<std::vector<std::byte>>& file, SegmentFile kind,
                             std::uint64_t base, std::uint64_t log_size) {
  IndexFile<Entry> out;
  const char* what = kind == SegmentFile::index ? ".index" : ".timeindex";
  if (!file) {
    out.problem = std::string(what) + " is missing";
    return out;
  }
  std::string reason;
  out.header = decode_index_header(*file, kind, &reason);
  if (!out.header) {
    out.problem = std::string(what) + ": " + reason;
    return out;
  }
  if (out.header->base_offset != base) {
    out.problem = std::string(what) + ": its base offset is not the segment's";
    out.header.reset();
    return out;
  }
  constexpr std::size_t size =
      sizeof(Entry) == sizeof(OffsetIndexEntry) ? kOffsetIndexEntrySize : kTimeIndexEntrySize;
  const std::size_t count = (file->size() - kIndexHeaderSize) / size;
  out.complete = (file->size() - kIndexHeaderSize) % size == 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* at = file->data() + kIndexHeaderSize + size * i;
    Entry e;
    if constexpr (size == kOffsetIndexEntrySize) {
      e = decode_offset_entry(std::span<const std::byte, kOffsetIndexEntrySize>(at, kOffsetIndexEntrySize));
    } else {
      e = decode_time_entry(std::span<const std::byte, kTimeIndexEntrySize>(at, kTimeIndexEntrySize));
    }
    bool ordered = e.position % 8 == 0 && e.position > 0 && e.position < log_size;
    if (!out.entries.empty()) {
      const Entry& prev = out.entries.back();
      ordered = ordered && e.position > prev.position && e.relative_offset > prev.relative_offset;
      if constexpr (size == kTimeIndexEntrySize) ordered = ordered && e.timestamp > prev.timestamp;
    }
    if (!ordered) {
      out.complete = false;
      out.problem =
          std::string(what) + ": entry " + std::to_string(i) + " is out of order or outside the segment";
      break;
    }
    out.entries.push_back(e);
  }
  return out;
}

}  // namespace

SegmentIndex read_index(const PartitionPaths& paths, std::uint64_t base, std::uint64_t log_size) {
  SegmentIndex out;
  auto offsets = parse_index<OffsetIndexEntry>(read_whole(*paths.fs, paths.segment(base, SegmentFile::index)),
                                               SegmentFile::index, base, log_size);
  auto times = parse_index<TimeIndexEntry>(read_whole(*paths.fs, paths.segment(base, SegmentFile::timeindex)),
                                           SegmentFile::timeindex, base, log_size);
  out.offsets = std::move(offsets.entries);
  out.times = std::move(times.entries);
  if (!offsets.problem.empty() || !times.problem.empty()) {
    out.stale = !offsets.problem.empty() ? offsets.problem : times.problem;
  } else if (!offsets.complete || !times.complete) {
    out.stale = "an index has a partial entry";
  } else if (offsets.header->sealed_size == 0 || times.header->sealed_size == 0) {
    out.stale = "the indexes are not sealed";
  } else if (offsets.header->sealed_size != log_size || times.header->sealed_size != log_size) {
    out.stale = "the indexes describe " + std::to_string(offsets.header->sealed_size) +
                " bytes of segment file, which has " + std::to_string(log_size);
  } else {
    const auto& a = *offsets.header;
    const auto& b = *times.header;
    if (a.end_offset != b.end_offset || a.first_timestamp != b.first_timestamp ||
        a.last_timestamp != b.last_timestamp || a.max_timestamp != b.max_timestamp) {
      out.stale = "the .index and .timeindex headers disagree";
    } else {
      out.sealed = a;
    }
  }
  return out;
}

Notifier::~Notifier() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();  // a watcher paused for a writer of this process
  if (watch_) watch_->interrupt();
  if (watcher_.joinable()) watcher_.join();
}

void Notifier::notify() {
  {
    std::lock_guard lock(mutex_);
    ++generation_;
  }
  changed_.notify_all();
  call_listeners();
}

void Notifier::call_listeners() {
  std::lock_guard lock(listeners_mutex_);
  for (const auto& [id, callback] : listeners_) callback();
}

std::uint64_t Notifier::listen(std::function<void()> callback) {
  {
    std::lock_guard lock(mutex_);
    start_watch_locked();
  }
  std::lock_guard lock(listeners_mutex_);
  const std::uint64_t id = next_listener_++;
  listeners_.emplace(id, std::move(callback));
  return id;
}

void Notifier::unlisten(std::uint64_t id) {
  std::lock_guard lock(listeners_mutex_);
  listeners_.erase(id);
}

bool Notifier::watching() {
  std::lock_guard lock(mutex_);
  return watching_;
}

void Notifier::writer_opened() {
  std::lock_guard lock(mutex_);
  ++local_writers_;
}

void Notifier::writer_closed() {
  {
    std::lock_guard lock(mutex_);
    --local_writers_;
  }
  changed_.notify_all();  // the watcher resumes
}

std::uint64_t Notifier::generation() {
  std::lock_guard lock(mutex_);
  return generation_;
}

void Notifier::publish_durable_end(std::uint64_t end) {
  {
    std::lock_guard lock(mutex_);
    durable_end_ = end;
    ++generation_;
  }
  changed_.notify_all();
  call_listeners();
}

std::optional<std::uint64_t> Notifier::durable_end() {
  std::lock_guard lock(mutex_);
  return durable_end_;
}

bool Notifier::start_watch_locked() {
  if (watch_tried_) return false;
  watch_tried_ = true;
  try {
    watch_ = fs_->watch(dir_);
  } catch (const LogError&) {
    watch_.reset();  // a directory that cannot be watched is read by polling
  }
  watching_ = watch_ != nullptr;
  if (watching_) watcher_ = std::thread([this] { watch_loop(); });
  return true;
}

bool Notifier::wait(std::uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  // Changes before the watch began were not seen: the caller looks again first.
  if (start_watch_locked()) return watching_;
  changed_.wait_for(lock, timeout, [&] { return generation_ != seen || stop_; });
  return watching_;
}

void Notifier::watch_loop() {
  for (;;) {
    {
      // While a writer of this process holds the partition, it notifies every change itself:
      // pause until it closes, rather than wake at each of its appends (the events queue up
      // meanwhile, and the first look after it closes reports them once).
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || local_writers_ == 0; });
      if (stop_) return;
    }
    bool changed = false;
    try {
      changed = watch_->wait(std::chrono::seconds(10));
    } catch (const LogError&) {
      // A failing watch leaves the waiters to their poll interval.
      {
        std::lock_guard lock(mutex_);
        watching_ = false;
      }
      notify();
      return;
    }
    if (!changed) continue;
    bool local = false;  // the change is this process's writer's, which notified it already
    {
      std::lock_guard lock(mutex_);
      local = local_writers_ > 0;
    }
    if (!local) notify();
  }
}

std::shared_ptr<Notifier> notifier_for(const std::shared_ptr<FileSystem>& fs,
                                       const std::filesystem::path& dir) {
  static std::mutex mutex;
  static std::map<std::pair<const FileSystem*, std::string>, std::weak_ptr<Notifier>> notifiers;
  std::lock_guard lock(mutex);
  for (auto it = notifiers.begin(); it != notifiers.end();)
    it = it->second.expired() ? notifiers.erase(it) : ++it;
  const auto key = std::pair{static_cast<const FileSystem*>(fs.get()), dir.lexically_normal().string()};
  if (auto existing = notifiers[key].lock()) return existing;
  auto made = std::make_shared<Notifier>(fs, dir);
  notifiers[key] = made;
  return made;
}

// \throws ArgumentError naming the partition if `name` may not name a consumer.
static void check_consumer_name(const PartitionPaths& paths, const std::string& name) {
  if (!valid_name(name))
    throw ArgumentError(paths.name, "", std::nullopt,
                        "consumer name " + quote_input(name) + " (expected " + std::string(kNameRule) + ")");
}

void commit_offset(const PartitionPaths& paths, const std::string& name, std::uint64_t offset) {
  check_consumer_name(paths, name);
  auto& fs = *paths.fs;
  const auto dir = paths.consumers();
  if (!fs.is_directory(dir)) {
    fs.create_directory(dir);
    fs.sync_directory(paths.dir);
  }
  const auto target = dir / (name + ".offset");
  // One temporary file per commit (process and count), so that two committers never write
  // into the same one.
  static std::atomic<std::uint64_t> commits{0};
  const auto temporary =
      dir / (name + ".offset.tmp." + std::to_string(::getpid()) + "." + std::to_string(commits++));
  std::byte bytes[kConsumerOffsetSize];
  encode_consumer_offset(offset, bytes);
  try {
    auto file = fs.open(temporary, OpenMode::create);
    file->write_at(0, bytes);
    file->truncate(kConsumerOffsetSize);
    file->sync();
  } catch (...) {
    // A full disk or a failed sync: no temporary file is left behind (the last commit stands).
    try {
      fs.remove(temporary);
    } catch (...) {
    }
    throw;
  }
  fs.rename(temporary, target);
  fs.sync_directory(dir);
}

std::optional<std::uint64_t> read_committed(const PartitionPaths& paths, const std::string& name) {
  check_consumer_name(paths, name);
  const auto path = paths.consumers() / (name + ".offset");
  const auto bytes = read_whole(*paths.fs, path);
  if (!bytes) return std::nullopt;
  std::string reason;
  const auto offset = decode_consumer_offset(*bytes, &reason);
  if (!offset) throw CorruptionError(paths.name, path, 0, "not a consumer-offset file: " + reason);
  return offset;
}

std::string holder_text() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return "pid " + std::to_string(::getpid()) + " on " + (host[0] ? host : "an unknown host");
}

}  // namespace timely::durable::detail
