// The partition writer (timely/durable/writer.hpp): lock, recovery, appends, rolls, retention
// and the durability policies.
#include <timely/durable/writer.hpp>

#include <timely/durable/log.hpp>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "partition.hpp"

namespace timely::durable {

namespace detail {

namespace {

// Whether `ts` is older than `age` before `now`: ts < now - age, without overflow.
bool older(std::int64_t ts, std::int64_t now, std::int64_t age) {
  std::int64_t limit = 0;
  if (__builtin_sub_overflow(now, age, &limit)) return false;
  return ts < limit;
}

// Whether `later - earlier >= age`, without overflow.
bool spans(std::int64_t earlier, std::int64_t later, std::int64_t age) {
  std::int64_t diff = 0;
  if (__builtin_sub_overflow(later, earlier, &diff)) return later > earlier;
  return diff >= age;
}

}  // namespace

class WriterState {
 public:
  WriterState(PartitionPaths paths, const WriterOptions& options)
      : paths_(std::move(paths)), options_(options), builder_(0, options.index_interval_bytes) {
    validate();
    std::string holder;
    lock_ = paths_.fs->try_lock(paths_.lock(), holder_text(), holder);
    if (!lock_) throw WriterBusy(paths_.name, paths_.lock(), holder);
    notifier_ = notifier_for(paths_.fs, paths_.dir);
    report_.partition = paths_.name;
    recover();
    for (const auto& sealed : sealed_)
      if (sealed.end > sealed.base) max_ts_ = max_ts_ ? std::max(*max_ts_, sealed.max_ts) : sealed.max_ts;
    if (!builder_.empty())
      max_ts_ = max_ts_ ? std::max(*max_ts_, builder_.max_timestamp()) : builder_.max_timestamp();
    apply_retention_locked(std::nullopt);
    if (options_.durability.mode == Durability::Mode::periodic && options_.durability.interval.count() > 0)
      syncer_ = std::thread([this] { sync_loop(); });
    // Recovery synced what it kept, and sealed segments were synced when they were sealed.
    notifier_->publish_durable_end(end_offset_);
    // From here until close() releases the lock, this writer notifies every change itself.
    notifier_->writer_opened();
  }

  ~WriterState() {
    try {
      close();
    } catch (...) {  // destruction has no one to tell; close() says why
    }
  }

  WriterState(const WriterState&) = delete;
  WriterState& operator=(const WriterState&) = delete;

  std::uint64_t append(std::span<const RecordView> records) {
    std::unique_lock lock(mutex_);
    usable();
    const std::size_t size = encoded_batch_size(records);
    if (records.size() > UINT64_MAX - end_offset_)
      throw ArgumentError(paths_.name, "", std::nullopt,
                          "a batch of " + std::to_string(records.size()) + " records at offset " +
                              std::to_string(end_offset_) + " would pass the last offset, 2^64 - 1");
    if (!builder_.empty()) {
      bool roll_now = active_size_ + size > options_.segment_bytes ||
                      end_offset_ - active_base_ + records.size() > UINT32_MAX;
      if (options_.segment_age) {
        std::int64_t batch_max = records.front().timestamp;
        for (const auto& r : records) batch_max = std::max(batch_max, r.timestamp);
        roll_now = roll_now || spans(builder_.first_timestamp(), batch_max, *options_.segment_age);
      }
      if (roll_now) roll_locked();
    }
    // Retention before the write, counting the batch, so that the partition stays within its
    // size (but for the active segment) and no acknowledged append is followed by a failure.
    apply_retention_locked(std::nullopt, size);
    buffer_.resize(size);
    const std::uint64_t base = end_offset_;
    encode_batch(base, records, buffer_);
    const std::uint64_t position = active_size_;
    try {
      log_->write_at(position, buffer_);
    } catch (const LogError&) {
      // Take back what part of the batch reached the file, so that the next append continues
      // from a valid end; if even that fails, only recovery knows what the file holds.
      try {
        log_->truncate(position);
      } catch (const LogError&) {
        failure_ = std::current_exception();
      }
      throw;
    }
    active_size_ += size;
    end_offset_ += records.size();
    BatchHeader header;
    header.length = static_cast<std::uint32_t>(size);
    header.record_count = static_cast<std::uint32_t>(records.size());
    header.base_offset = base;
    header.first_timestamp = records.front().timestamp;
    header.last_timestamp = records.back().timestamp;
    header.max_timestamp = records.front().timestamp;
    for (const auto& r : records) header.max_timestamp = std::max(header.max_timestamp, r.timestamp);
    max_ts_ = max_ts_ ? std::max(*max_ts_, header.max_timestamp) : header.max_timestamp;
    if (builder_.add(position, header)) write_index_entries();
    switch (options_.durability.mode) {
      case Durability::Mode::every_batch:
        sync_locked();
        break;
      case Durability::Mode::periodic:
        unsynced_bytes_ += size;
        if (!unsynced_since_) {
          unsynced_since_ = std::chrono::steady_clock::now();
          sync_wake_.notify_all();
        }
        if (options_.durability.bytes > 0 && unsynced_bytes_ >= options_.durability.bytes) sync_locked();
        break;
      case Durability::Mode::os:
        break;
    }
    lock.unlock();
    notifier_->notify();
    return base;
  }

  void sync() {
    std::lock_guard lock(mutex_);
    usable();
    sync_locked();
  }

  void roll() {
    {
      std::lock_guard lock(mutex_);
      usable();
      roll_locked();
      apply_retention_locked(std::nullopt);
    }
    notifier_->notify();
  }

  std::vector<std::uint64_t> apply_retention(std::optional<std::int64_t> now) {
    std::lock_guard lock(mutex_);
    usable();
    return apply_retention_locked(now);
  }

  void close() {
    std::unique_lock lock(mutex_);
    if (closed_) return;
    closed_ = true;
    stop_ = true;
    sync_wake_.notify_all();
    lock.unlock();
    if (syncer_.joinable()) syncer_.join();
    lock.lock();
    // A writer that failed (a sync, possibly the sync thread's that no call has reported yet;
    // a roll; a write it could not take back) cannot vouch for what it acknowledged: close()
    // says so with that failure rather than syncing again, since after a failed fdatasync a
    // later one may succeed without the pages that failed.
    std::exception_ptr error = failure_;
    if (!failure_) {
      try {
        log_->sync();
        notifier_->publish_durable_end(end_offset_);
      } catch (const LogError&) {
        error = std::current_exception();
      }
    }
    log_.reset();
    index_.reset();
    timeindex_.reset();
    lock_.reset();
    notifier_->writer_closed();
    lock.unlock();
    notifier_->notify();
    if (error) std::rethrow_exception(error);
  }

  [[nodiscard]] const RecoveryReport& recovery() const noexcept { return report_; }
  [[nodiscard]] std::uint64_t end_offset() const noexcept { return end_offset_; }
  [[nodiscard]] std::uint64_t first_offset() const noexcept {
    return sealed_.empty() ? active_base_ : sealed_.front().base;
  }
  [[nodiscard]] const std::string& name() const noexcept { return paths_.name; }

  [[nodiscard]] PartitionStats stats() const {
    PartitionStats st;
    st.partition = paths_.name;
    st.segments = sealed_.size() + 1;
    st.first_offset = first_offset();
    st.end_offset = end_offset_;
    auto note = [&](std::int64_t first, std::int64_t last, std::int64_t max) {
      if (!st.first_timestamp) st.first_timestamp = first;
      st.last_timestamp = last;
      st.max_timestamp = st.max_timestamp ? std::max(*st.max_timestamp, max) : max;
    };
    for (const auto& s : sealed_) {
      st.bytes += s.size;
      st.records += s.end - s.base;
      if (s.end > s.base) note(s.first_ts, s.last_ts, s.max_ts);
    }
    st.bytes += active_size_;
    st.records += builder_.records();
    if (!builder_.empty())
      note(builder_.first_timestamp(), builder_.last_timestamp(), builder_.max_timestamp());
    return st;
  }

 private:
  struct Sealed {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::uint64_t end = 0;
    std::int64_t first_ts = 0;
    std::int64_t last_ts = 0;
    std::int64_t max_ts = 0;
  };

  void validate() const {
    auto bad = [&](const std::string& what) { throw ArgumentError(paths_.name, "", std::nullopt, what); };
    if (options_.segment_bytes < 4096 || options_.segment_bytes > (std::uint64_t{1} << 31))
      bad("segment_bytes " + std::to_string(options_.segment_bytes) + " (expected 4096 to 2^31)");
    if (options_.index_interval_bytes < 8)
      bad("index_interval_bytes " + std::to_string(options_.index_interval_bytes) + " (expected at least 8)");
    if (options_.segment_age && *options_.segment_age <= 0)
      bad("segment_age " + std::to_string(*options_.segment_age) + " (expected a positive age)");
    if (options_.retention.max_age && *options_.retention.max_age < 0)
      bad("retention max_age " + std::to_string(*options_.retention.max_age) + " (expected 0 or more)");
    const auto& d = options_.durability;
    if (d.mode == Durability::Mode::periodic && d.interval.count() <= 0 && d.bytes == 0)
      bad("a periodic durability policy with neither an interval nor a byte count");
    if (d.mode == Durability::Mode::periodic && d.interval.count() < 0)
      bad("a periodic durability interval of " + std::to_string(d.interval.count()) + " ms");
  }

  void usable() const {
    if (closed_) throw ArgumentError(paths_.name, "", std::nullopt, "the writer is closed");
    if (failure_) std::rethrow_exception(failure_);
  }

  // --- recovery ---------------------------------------------------------------------------

  void recover() {
    auto& fs = *paths_.fs;
    Listing listing = list_segments(paths_);
    for (const auto& orphan : listing.orphans) {
      fs.remove(orphan);
      report_.removed.push_back(orphan);
    }
    if (listing.segments.empty()) {
      create_segment(0);
      return;
    }
    for (std::size_t i = 0; i + 1 < listing.segments.size(); ++i) recover_sealed(listing.segments[i]);
    recover_tail(listing.segments.back());
    // The segment files' names may not be durable yet (a writer died between creating a segment
    // and syncing its directory): appends acknowledged from now on must not lose them.
    fs.sync_directory(paths_.dir);
    // Consecutive segments must continue each other's offsets; a gap or an overlap is damage
    // that no one can repair here, reported for readers to meet.
    for (std::size_t i = 0; i < sealed_.size(); ++i) {
      const std::uint64_t end = sealed_[i].end;
      const std::uint64_t next = i + 1 < sealed_.size() ? sealed_[i + 1].base : active_base_;
      if (end != next)
        report_.corruption.push_back({paths_.name, paths_.segment(next, SegmentFile::log), 0, 0,
                                      std::min(end, next), std::max(end, next),
                                      "the segment starts at offset " + std::to_string(next) +
                                          " but the one before it ends at " + std::to_string(end)});
    }
  }

  void recover_sealed(std::uint64_t base) {
    auto& fs = *paths_.fs;
    auto log = fs.open(paths_.segment(base, SegmentFile::log), OpenMode::read);
    const std::uint64_t size = log->size();
    if (size == 0) {
      sealed_.push_back({base, 0, base, 0, 0, 0});
      return;
    }
    SegmentIndex index = read_index(paths_, base, size);
    if (index.sealed) {
      const auto& h = *index.sealed;
      sealed_.push_back({base, size, h.end_offset, h.first_timestamp, h.last_timestamp, h.max_timestamp});
      return;
    }
    Scan scan = scan_segment(*log, paths_, base, options_.index_interval_bytes, false);
    for (auto& damage : scan.damage) report_.corruption.push_back(std::move(damage));
    for (SegmentFile kind : {SegmentFile::index, SegmentFile::timeindex}) {
      const auto path = paths_.segment(base, kind);
      const auto bytes = scan.builder.file_bytes(kind, size, scan.end_offset);
      write_whole(fs, path, bytes);
      fs.open(path, OpenMode::read_write)->sync();
      report_.indexes_rebuilt.push_back(path);
    }
    const auto& b = scan.builder;
    sealed_.push_back(
        {base, size, scan.end_offset, b.first_timestamp(), b.last_timestamp(), b.max_timestamp()});
  }

  void recover_tail(std::uint64_t base) {
    auto& fs = *paths_.fs;
    const auto path = paths_.segment(base, SegmentFile::log);
    log_ = fs.open(path, OpenMode::read_write);
    const std::uint64_t size = log_->size();
    Scan scan = scan_segment(*log_, paths_, base, options_.index_interval_bytes, true);
    if (scan.valid_end < size) {
      const std::uint64_t records = count_records_from(*log_, scan.valid_end);
      log_->truncate(scan.valid_end);
      report_.cut = SegmentCut{path, scan.valid_end, size - scan.valid_end, records,
                               scan.damage.empty() ? std::string("damage") : scan.damage.front().reason};
    }
    // What recovery keeps becomes durable before anything builds on it: batches a dead writer
    // wrote but never synced (its appends failed) are in the page cache only, and a power loss
    // after this writer's first append must not take them from under records appended later.
    log_->sync();
    active_base_ = base;
    active_size_ = scan.valid_end;
    end_offset_ = scan.end_offset;
    builder_ = std::move(scan.builder);
    // The active segment's indexes are hints: rewritten if they are not what the segment says.
    for (SegmentFile kind : {SegmentFile::index, SegmentFile::timeindex}) {
      const auto index_path = paths_.segment(base, kind);
      const auto bytes = builder_.file_bytes(kind, 0, 0);
      const auto existing = read_whole(fs, index_path);
      if (!existing || *existing != bytes) {
        write_whole(fs, index_path, bytes);
        report_.indexes_rebuilt.push_back(index_path);
      }
    }
    index_ = fs.open(paths_.segment(base, SegmentFile::index), OpenMode::read_write);
    timeindex_ = fs.open(paths_.segment(base, SegmentFile::timeindex), OpenMode::read_write);
    offsets_written_ = builder_.offsets().size();
    times_written_ = builder_.times().size();
  }

  // --- segments ---------------------------------------------------------------------------

  void create_segment(std::uint64_t base) {
    auto& fs = *paths_.fs;
    const auto path = paths_.segment(base, SegmentFile::log);
    auto log = fs.open(path, OpenMode::create);
    if (log->size() != 0)
      throw CorruptionError(paths_.name, path, std::nullopt,
                            "a segment file for the next offset " + std::to_string(base) + " exists already");
    IndexBuilder builder(base, options_.index_interval_bytes);
    std::unique_ptr<File> files[2];
    int i = 0;
    for (SegmentFile kind : {SegmentFile::index, SegmentFile::timeindex}) {
      const auto index_path = paths_.segment(base, kind);
      write_whole(fs, index_path, builder.file_bytes(kind, 0, 0));
      files[i++] = fs.open(index_path, OpenMode::read_write);
    }
    // The new segment's name must survive a power loss before its first batch is acknowledged.
    fs.sync_directory(paths_.dir);
    log_ = std::move(log);
    index_ = std::move(files[0]);
    timeindex_ = std::move(files[1]);
    builder_ = std::move(builder);
    active_base_ = base;
    active_size_ = 0;
    offsets_written_ = 0;
    times_written_ = 0;
  }

  void roll_locked() {
    if (builder_.empty()) return;
    try {
      // Sealing: the segment and its indexes complete on disk before the next segment exists.
      log_->sync();
      unsynced_bytes_ = 0;
      unsynced_since_.reset();
      notifier_->publish_durable_end(end_offset_);
      for (auto* file : {index_.get(), timeindex_.get()}) {
        const SegmentFile kind = file == index_.get() ? SegmentFile::index : SegmentFile::timeindex;
        const auto bytes = builder_.file_bytes(kind, active_size_, end_offset_);
        file->write_at(0, bytes);
        file->truncate(bytes.size());
        file->sync();
      }
      sealed_.push_back({active_base_, active_size_, end_offset_, builder_.first_timestamp(),
                         builder_.last_timestamp(), builder_.max_timestamp()});
      create_segment(end_offset_);
    } catch (const LogError&) {
      // Half a roll: only reopening (recovery) knows which files are complete.
      failure_ = std::current_exception();
      throw;
    }
  }

  // Appends the index entries not yet in the files. They are hints (readers check them, and
  // recovery rebuilds them), so a failure here fails no append: sealing rewrites them whole.
  void write_index_entries() {
    try {
      const auto& offsets = builder_.offsets();
      for (; offsets_written_ < offsets.size(); ++offsets_written_) {
        std::byte entry[kOffsetIndexEntrySize];
        encode_offset_entry(offsets[offsets_written_], entry);
        index_->write_at(kIndexHeaderSize + kOffsetIndexEntrySize * offsets_written_, entry);
      }
      const auto& times = builder_.times();
      for (; times_written_ < times.size(); ++times_written_) {
        std::byte entry[kTimeIndexEntrySize];
        encode_time_entry(times[times_written_], entry);
        timeindex_->write_at(kIndexHeaderSize + kTimeIndexEntrySize * times_written_, entry);
      }
    } catch (const LogError&) {
      offsets_written_ = builder_.offsets().size();
      times_written_ = builder_.times().size();
    }
  }

  void sync_locked() {
    try {
      log_->sync();
    } catch (const LogError&) {
      // After a failed fdatasync the kernel may have dropped the failed pages: no later sync
      // can vouch for them, so the writer stops here.
      failure_ = std::current_exception();
      throw;
    }
    unsynced_bytes_ = 0;
    unsynced_since_.reset();
    // Every batch written so far (end_offset_ counts them all) is covered by this sync.
    notifier_->publish_durable_end(end_offset_);
  }

  void sync_loop() {
    std::unique_lock lock(mutex_);
    const auto interval = options_.durability.interval;
    while (!stop_) {
      if (!unsynced_since_ || failure_) {
        sync_wake_.wait(lock);
        continue;
      }
      const auto due = *unsynced_since_ + interval;
      if (std::chrono::steady_clock::now() < due) {
        sync_wake_.wait_until(lock, due);
        continue;
      }
      try {
        sync_locked();
      } catch (const LogError&) {  // remembered in failure_: the next call throws it
      }
    }
  }

  // --- retention --------------------------------------------------------------------------

  // Deletes the oldest sealed segments while the partition, with `incoming` bytes more, is over
  // its size, or they are older than the age limit before `now` (default: the largest
  // timestamp the partition holds).
  std::vector<std::uint64_t> apply_retention_locked(std::optional<std::int64_t> now,
                                                    std::uint64_t incoming = 0) {
    std::vector<std::uint64_t> deleted;
    const auto& r = options_.retention;
    if (!r.max_bytes && !r.max_age) return deleted;
    if (!now) now = max_ts_;
    std::uint64_t total = active_size_ + incoming;
    for (const auto& s : sealed_) total += s.size;
    auto& fs = *paths_.fs;
    while (!sealed_.empty()) {
      const Sealed& s = sealed_.front();
      const bool by_size = r.max_bytes && total > *r.max_bytes;
      const bool by_age = r.max_age && now && s.end > s.base && older(s.max_ts, *now, *r.max_age);
      if (!by_size && !by_age) break;
      // The segment file first: a crash in between leaves index files without it, which the
      // next recovery removes, never a segment without its place in the offsets.
      fs.remove(paths_.segment(s.base, SegmentFile::log));
      fs.remove(paths_.segment(s.base, SegmentFile::index));
      fs.remove(paths_.segment(s.base, SegmentFile::timeindex));
      total -= s.size;
      deleted.push_back(s.base);
      sealed_.pop_front();
    }
    if (!deleted.empty()) {
      fs.sync_directory(paths_.dir);
      notifier_->notify();
    }
    return deleted;
  }

  PartitionPaths paths_;
  WriterOptions options_;
  std::unique_ptr<FileLock> lock_;
  std::shared_ptr<Notifier> notifier_;
  RecoveryReport report_;
  std::deque<Sealed> sealed_;

  // The active segment.
  std::uint64_t active_base_ = 0;
  std::uint64_t active_size_ = 0;
  std::unique_ptr<File> log_;
  std::unique_ptr<File> index_;
  std::unique_ptr<File> timeindex_;
  IndexBuilder builder_;
  std::size_t offsets_written_ = 0;
  std::size_t times_written_ = 0;
  std::uint64_t end_offset_ = 0;
  std::optional<std::int64_t> max_ts_;  // the partition's largest timestamp
  std::vector<std::byte> buffer_;

  // Durability, and the periodic policy's sync thread (guarded by mutex_).
  std::mutex mutex_;
  std::condition_variable sync_wake_;
  std::uint64_t unsynced_bytes_ = 0;
  std::optional<std::chrono::steady_clock::time_point> unsynced_since_;
  std::exception_ptr failure_;
  bool closed_ = false;
  bool stop_ = false;
  std::thread syncer_;
};

}  // namespace detail

Writer::Writer(std::unique_ptr<detail::WriterState> state) : state_(std::move(state)) {}
Writer::Writer(Writer&&) noexcept = default;
Writer& Writer::operator=(Writer&&) noexcept = default;
Writer::~Writer() = default;

namespace {

detail::WriterState& live(const std::unique_ptr<detail::WriterState>& state) {
  if (!state) throw ArgumentError("", "", std::nullopt, "a moved-from writer");
  return *state;
}

}  // namespace

std::uint64_t Writer::append(std::span<const RecordView> records) {
  return detail::in_partition(live(state_).name(), [&] { return state_->append(records); });
}

std::uint64_t Writer::append(std::int64_t timestamp, std::span<const std::byte> bytes) {
  const RecordView record{timestamp, bytes};
  return append(std::span<const RecordView>(&record, 1));
}

void Writer::sync() {
  detail::in_partition(live(state_).name(), [&] { state_->sync(); });
}

void Writer::roll() {
  detail::in_partition(live(state_).name(), [&] { state_->roll(); });
}

std::vector<std::uint64_t> Writer::apply_retention(std::optional<std::int64_t> now) {
  return detail::in_partition(live(state_).name(), [&] { return state_->apply_retention(now); });
}

void Writer::close() {
  if (state_) detail::in_partition(state_->name(), [&] { state_->close(); });
}

const RecoveryReport& Writer::recovery() const { return live(state_).recovery(); }
std::uint64_t Writer::end_offset() const { return live(state_).end_offset(); }
std::uint64_t Writer::first_offset() const { return live(state_).first_offset(); }
const std::string& Writer::partition() const { return live(state_).name(); }
PartitionStats Writer::stats() const { return live(state_).stats(); }

Writer Log::writer(const std::string& stream, std::uint32_t partition, WriterOptions options) const {
  const auto dir =
      options.create ? ensure_partition(stream, partition) : partition_dir(stream, partition, true);
  detail::PartitionPaths paths{fs_, dir, stream + "/" + std::to_string(partition)};
  const std::string name = paths.name;
  return Writer(detail::in_partition(
      name, [&] { return std::make_unique<detail::WriterState>(std::move(paths), options); }));
}

}  // namespace timely::durable
