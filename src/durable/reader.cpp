// The partition reader (timely/durable/reader.hpp): positioning by offset and timestamp through
// the sparse indexes, batch-by-batch reading with checks, damage and retention policies, and
// waiting for appends.
#include <timely/durable/reader.hpp>

#include <algorithm>
#include <cerrno>

#include <timely/durable/log.hpp>

#include "partition.hpp"

namespace timely::durable {

namespace detail {

class ReaderState {
 public:
  ReaderState(PartitionPaths paths, const ReaderOptions& options, const Start& start)
      : paths_(std::move(paths)), options_(options), buffer_(options.read_bytes) {
    notifier_ = notifier_for(paths_.fs, paths_.dir);
    if (options_.visibility == ReaderOptions::Visibility::durable && !notifier_->durable_end())
      throw ArgumentError(paths_.name, "", std::nullopt,
                          "a reader of durable records only needs the partition's writer open in this "
                          "process (on the same file system object): the durable end of another "
                          "process's writer is not known here");
    switch (start.kind) {
      case Start::Kind::beginning: {
        refresh();
        locate(segments_.empty() ? 0 : segments_.front());
        break;
      }
      case Start::Kind::offset:
        seek(start.offset);
        break;
      case Start::Kind::timestamp:
        seek_timestamp(start.timestamp);
        break;
      case Start::Kind::end:
        locate(end_offset());
        break;
    }
  }

  ~ReaderState() {
    if (listener_) notifier_->unlisten(*listener_);
  }
  ReaderState(const ReaderState&) = delete;
  ReaderState& operator=(const ReaderState&) = delete;

  void on_append(std::function<void()> wake) {
    if (listener_) notifier_->unlisten(*listener_);
    listener_.reset();
    if (wake) listener_ = notifier_->listen(std::move(wake));
  }
  [[nodiscard]] bool watched() const { return notifier_->watching(); }

  std::optional<BatchView> next_batch() {
    if (!available()) return std::nullopt;
    const BatchView view = pending_->view;
    consume();
    return view;
  }

  bool wait(std::chrono::milliseconds timeout) {
    using Clock = std::chrono::steady_clock;
    // The deadline saturates at the clock's largest time: `now + milliseconds::max()` overflows
    // (undefined behaviour), and so would converting such a timeout to the clock's nanoseconds.
    const auto start = Clock::now();
    const auto room = std::chrono::floor<std::chrono::milliseconds>(Clock::time_point::max() - start);
    const auto deadline = timeout >= room ? Clock::time_point::max() : start + timeout;
    // Each wait on the notifier is bounded too (the condition variable adds it to its clock's
    // now); the loop waits again until the deadline.
    constexpr std::chrono::milliseconds longest = std::chrono::hours(24);
    for (;;) {
      const std::uint64_t seen = notifier_->generation();
      if (available()) return true;
      const auto now = Clock::now();
      if (now >= deadline) return false;
      auto remaining =
          deadline - now >= longest ? longest : std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
      if (!watching_) remaining = std::min(remaining, options_.poll_interval);
      watching_ = notifier_->wait(seen, remaining);
    }
  }

  void seek(std::uint64_t offset) {
    State saved = state_;
    auto saved_file = std::move(file_);
    try {
      locate(offset);
      if (!fill() && state_.batch_base < state_.position) {
        const std::uint64_t end = state_.batch_base;
        throw OffsetOutOfRange(paths_.name, offset, first_offset(), end);
      }
    } catch (...) {
      state_ = saved;
      file_ = std::move(saved_file);
      pending_.reset();
      buffer_.clear();
      throw;
    }
  }

  void seek_timestamp(std::int64_t t) {
    State saved = state_;
    auto saved_file = std::move(file_);
    try {
      find_timestamp(t);
    } catch (...) {
      state_ = saved;
      file_ = std::move(saved_file);
      pending_.reset();
      buffer_.clear();
      throw;
    }
  }

  [[nodiscard]] std::uint64_t position() const noexcept { return state_.position; }
  [[nodiscard]] const std::vector<CorruptionReport>& skipped() const noexcept { return skipped_; }
  [[nodiscard]] std::uint64_t offsets_missed() const noexcept { return missed_; }
  [[nodiscard]] const std::string& name() const noexcept { return paths_.name; }
  void commit(const std::string& consumer) { commit_offset(paths_, consumer, state_.position); }

 private:
  void find_timestamp(std::int64_t t) {
    refresh();
    pending_.reset();
    // The first segment that may hold a timestamp >= t: sealed segments whose largest is below
    // t are passed over by their index headers alone.
    std::size_t i = 0;
    SegmentIndex index;
    for (; i < segments_.size(); ++i) {
      const std::uint64_t base = segments_[i];
      std::unique_ptr<File> file;
      if (!open_segment(base, file)) continue;  // deleted by retention meanwhile
      const std::uint64_t size = file->size();
      index = read_index(paths_, base, size);
      const bool last = i + 1 == segments_.size();
      if (!last && (size == 0 || (index.sealed && index.sealed->max_timestamp < t))) continue;
      file_ = std::move(file);
      state_.segment_base = base;
      break;
    }
    if (i == segments_.size()) {
      locate(end_offset());
      return;
    }
    // Within it, start after the last time-index entry below t (every record up to it is).
    buffer_.clear();
    state_.pos = 0;
    state_.batch_base = state_.segment_base;
    auto it = std::partition_point(index.times.begin(), index.times.end(),
                                   [&](const TimeIndexEntry& e) { return e.timestamp < t; });
    if (it != index.times.begin()) {
      --it;
      try_hint(it->position, state_.segment_base + it->relative_offset);
    }
    state_.position = state_.batch_base;
    while (fill()) {
      const BatchView& view = pending_->view;
      std::size_t k = 0;
      if (view.header().max_timestamp >= t)
        while (k < view.size() && view[k].timestamp < t) ++k;
      if (view.header().max_timestamp >= t && k < view.size()) {
        state_.position = view.base_offset() + k;
        pending_->view = view.drop_front(k);
        return;
      }
      consume();
    }
  }

  // Where the reader is: the segment, the byte position of the next batch in it and that
  // batch's expected base offset, and the next offset to hand out (>= that base).
  struct State {
    std::uint64_t segment_base = 0;
    std::uint64_t pos = 0;
    std::uint64_t batch_base = 0;
    std::uint64_t position = 0;
  };
  struct Pending {
    BatchView view;
    std::uint32_t length = 0;
  };

  // --- listing and positioning --------------------------------------------------------------

  void refresh() { segments_ = list_segments(paths_).segments; }

  [[nodiscard]] std::uint64_t first_offset() {
    refresh();
    return segments_.empty() ? 0 : segments_.front();
  }

  // Opens segment `base`; false if retention deleted it.
  bool open_segment(std::uint64_t base, std::unique_ptr<File>& file) {
    try {
      file = paths_.fs->open(paths_.segment(base, SegmentFile::log), OpenMode::read);
      return true;
    } catch (const IoError& e) {
      if (e.error_number() == ENOENT) return false;
      throw;
    }
  }

  // The partition's end offset: the active segment read from its last index entry on.
  std::uint64_t end_offset() {
    for (int attempt = 0;; ++attempt) {
      refresh();
      if (segments_.empty()) return 0;
      const std::uint64_t base = segments_.back();
      std::unique_ptr<File> file;
      if (!open_segment(base, file)) {
        if (attempt < 8) continue;
        throw IoError(paths_.segment(base, SegmentFile::log), std::nullopt, "open", ENOENT);
      }
      const auto index = read_index(paths_, base, file->size());
      SegmentBuffer buffer(options_.read_bytes);
      std::uint64_t pos = 0;
      std::uint64_t expected = base;
      if (!index.offsets.empty()) {
        const auto& e = index.offsets.back();
        const Probe p = probe(buffer, *file, e.position);
        if (p.status == BatchCheck::Status::valid && p.header.base_offset == base + e.relative_offset) {
          pos = e.position;
          expected = p.header.base_offset;
        }
      }
      for (;;) {
        const Probe p = probe(buffer, *file, pos);
        if (p.status != BatchCheck::Status::valid || p.header.base_offset != expected) return expected;
        pos += p.header.length;
        expected = p.header.end_offset();
      }
    }
  }

  // Moves to `offset`: the segment that holds it, the last index entry at or before it.
  void locate(std::uint64_t offset) {
    pending_.reset();
    buffer_.clear();
    for (int attempt = 0;; ++attempt) {
      refresh();
      if (segments_.empty()) {
        if (offset > 0) throw OffsetOutOfRange(paths_.name, offset, 0, 0);
        file_.reset();
        state_ = {};
        return;
      }
      if (offset < segments_.front()) {
        if (options_.on_deleted == ReaderOptions::Deleted::fail)
          throw OffsetOutOfRange(paths_.name, offset, segments_.front(), end_offset());
        missed_ += segments_.front() - offset;
        offset = segments_.front();
      }
      const auto it = std::prev(std::upper_bound(segments_.begin(), segments_.end(), offset));
      std::unique_ptr<File> file;
      if (!open_segment(*it, file)) {
        if (attempt < 8) continue;  // retention deleted it since the listing: list again
        throw IoError(paths_.segment(*it, SegmentFile::log), std::nullopt, "open", ENOENT);
      }
      file_ = std::move(file);
      state_.segment_base = *it;
      state_.pos = 0;
      state_.batch_base = state_.segment_base;
      state_.position = offset;
      const auto index = read_index(paths_, state_.segment_base, file_->size());
      auto e = std::partition_point(
          index.offsets.begin(), index.offsets.end(),
          [&](const OffsetIndexEntry& x) { return state_.segment_base + x.relative_offset <= offset; });
      if (e != index.offsets.begin()) {
        --e;
        try_hint(e->position, state_.segment_base + e->relative_offset);
      }
      return;
    }
  }

  // Starts at an index entry's position if the batch there is the one it names.
  void try_hint(std::uint64_t position, std::uint64_t base) {
    const Probe p = probe(buffer_, *file_, position);
    if (p.status == BatchCheck::Status::valid && p.header.base_offset == base) {
      state_.pos = position;
      state_.batch_base = base;
    }
  }

  // --- reading ------------------------------------------------------------------------------

  void consume() {
    state_.pos += pending_->length;
    state_.batch_base = pending_->view.end_offset();
    state_.position = state_.batch_base;
    pending_.reset();
  }

  // A damaged place: thrown, or recorded and passed over, by the policy.
  void damage(std::uint64_t at, std::uint64_t bytes, std::uint64_t lost_end, const std::string& reason,
              const std::filesystem::path& file) {
    if (options_.on_corruption == ReaderOptions::Corruption::fail)
      throw CorruptionError(paths_.name, file, at, reason);
    skipped_.push_back(
        {paths_.name, file, at, bytes, state_.batch_base, std::max(lost_end, state_.batch_base), reason});
  }

  // Whether a batch may be handed out now: one is pending (see fill) and, for a reader of
  // durable records only, it ends at or below the durable end. Positioning (seek, timestamps)
  // uses fill() alone and so sees every batch written.
  bool available() {
    if (!fill()) return false;
    if (options_.visibility == ReaderOptions::Visibility::written) return true;
    const auto durable = notifier_->durable_end();
    return durable && pending_->view.end_offset() <= *durable;
  }

  // Makes the next batch to hand out pending; false if none is readable now.
  bool fill() {
    if (pending_) return true;
    for (;;) {
      if (!file_) {
        refresh();
        if (segments_.empty()) return false;
        locate(state_.position);
        continue;
      }
      const Probe p = probe(buffer_, *file_, state_.pos);
      if (p.at_end) {
        if (const std::uint64_t size = file_->size(); size < state_.pos) {
          // A writer's recovery cut the segment below this reader: it had read batches that are
          // gone (they followed damage), and their offsets will be appended again.
          const std::string reason = "the segment was cut at byte " + std::to_string(size) +
                                     ", below this reader's position " + std::to_string(state_.pos) +
                                     " (a writer's recovery removed batches it had read)";
          if (options_.on_corruption == ReaderOptions::Corruption::fail)
            throw CorruptionError(paths_.name, file_->path(), size, reason);
          skipped_.push_back({paths_.name, file_->path(), size, state_.pos - size, state_.position,
                              state_.position, reason});
          file_.reset();  // found again from the position: offsets up to it are passed over
          continue;
        }
        if (!advance_segment()) return false;
        continue;
      }
      if (p.status == BatchCheck::Status::valid) {
        const BatchHeader& h = p.header;
        if (h.base_offset != state_.batch_base) {
          const std::string reason = "batch has base offset " + std::to_string(h.base_offset) +
                                     ", expected " + std::to_string(state_.batch_base);
          if (h.base_offset < state_.batch_base) {
            damage(state_.pos, h.length, state_.batch_base, reason + " (it repeats offsets already read)",
                   file_->path());
            state_.pos += h.length;
            continue;
          }
          damage(state_.pos, 0, h.base_offset, reason + " (offsets are missing)", file_->path());
          state_.batch_base = h.base_offset;
          state_.position = std::max(state_.position, state_.batch_base);
        }
        if (h.end_offset() <= state_.position) {  // before the position sought
          state_.pos += h.length;
          state_.batch_base = h.end_offset();
          continue;
        }
        pending_ = Pending{BatchView::from_checked(p.bytes, h).drop_front(state_.position - h.base_offset),
                           h.length};
        return true;
      }
      // Torn or invalid. At the end of the active segment a torn batch is one being written (or
      // one a crashed writer left, until recovery cuts it): wait there.
      if (p.status == BatchCheck::Status::incomplete && is_last_segment()) return false;
      const std::string reason = p.status == BatchCheck::Status::incomplete
                                     ? "a torn batch at the end of a sealed segment"
                                     : p.reason;
      if (options_.on_corruption == ReaderOptions::Corruption::fail)
        throw CorruptionError(paths_.name, file_->path(), state_.pos, reason);
      auto next = resync(buffer_, *file_, state_.pos);
      if (next) {
        damage(state_.pos, next->first - state_.pos, next->second.base_offset, reason, file_->path());
        state_.pos = next->first;
        if (next->second.base_offset > state_.batch_base) {
          state_.batch_base = next->second.base_offset;
          state_.position = std::max(state_.position, state_.batch_base);
        }
        continue;
      }
      // Nothing valid after the damage: in a sealed segment the rest of it is lost; in the
      // active one, wait for batches after it.
      if (is_last_segment()) return false;
      const std::uint64_t size = file_->size();
      damage(state_.pos, size - state_.pos, state_.batch_base, reason, file_->path());
      state_.pos = size;
    }
  }

  // Whether the current segment is the partition's last (listing again to be sure).
  bool is_last_segment() {
    if (!segments_.empty() && segments_.back() > state_.segment_base) return false;
    refresh();
    return segments_.empty() || segments_.back() <= state_.segment_base;
  }

  // At the end of the current segment: moves to the next one if there is one. A later segment
  // means this one was sealed, complete, before it was made: look once more for batches
  // appended to this one just before the roll.
  bool advance_segment() {
    if (is_last_segment()) return false;
    if (!probe(buffer_, *file_, state_.pos).at_end) return true;
    const auto it = std::upper_bound(segments_.begin(), segments_.end(), state_.segment_base);
    const std::uint64_t next = *it;
    if (segments_.front() > state_.segment_base && next != state_.batch_base) {
      // Retention deleted the segment being read, and those after it up to `next`.
      locate(state_.batch_base);
      return true;
    }
    if (next != state_.batch_base) {
      const std::string reason = "the segment starts at offset " + std::to_string(next) +
                                 " but the one before it ends at " + std::to_string(state_.batch_base);
      const auto path = paths_.segment(next, SegmentFile::log);
      damage(0, 0, next, reason, path);
    }
    std::unique_ptr<File> file;
    if (!open_segment(next, file)) {
      // Retention deleted it (and so the one being read): the reader is behind the partition's
      // first offset, which its policy decides.
      locate(state_.batch_base);
      return true;
    }
    file_ = std::move(file);
    buffer_.clear();
    state_.segment_base = next;
    state_.pos = 0;
    if (next > state_.batch_base) {
      state_.batch_base = next;
      state_.position = std::max(state_.position, state_.batch_base);
    } else {
      state_.batch_base = next;  // offsets repeated: the batches below the position are passed over
    }
    return true;
  }

  PartitionPaths paths_;
  ReaderOptions options_;
  std::shared_ptr<Notifier> notifier_;
  bool watching_ = false;
  std::optional<std::uint64_t> listener_;  // this reader's `on_append` callback
  SegmentBuffer buffer_;
  std::vector<std::uint64_t> segments_;
  std::unique_ptr<File> file_;
  State state_;
  std::optional<Pending> pending_;
  std::vector<CorruptionReport> skipped_;
  std::uint64_t missed_ = 0;
};

}  // namespace detail

Reader::Reader(std::unique_ptr<detail::ReaderState> state) : state_(std::move(state)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

namespace {

detail::ReaderState& live(const std::unique_ptr<detail::ReaderState>& state) {
  if (!state) throw ArgumentError("", "", std::nullopt, "a moved-from reader");
  return *state;
}

}  // namespace

std::optional<BatchView> Reader::next_batch() {
  return detail::in_partition(live(state_).name(), [&] { return state_->next_batch(); });
}

std::optional<BatchView> Reader::next_batch(std::chrono::milliseconds timeout) {
  return detail::in_partition(live(state_).name(), [&]() -> std::optional<BatchView> {
    if (!state_->wait(timeout)) return std::nullopt;
    return state_->next_batch();
  });
}

bool Reader::wait(std::chrono::milliseconds timeout) {
  return detail::in_partition(live(state_).name(), [&] { return state_->wait(timeout); });
}

void Reader::on_append(std::function<void()> wake) {
  detail::in_partition(live(state_).name(), [&] { state_->on_append(std::move(wake)); });
}

bool Reader::watched() const { return live(state_).watched(); }

void Reader::seek(std::uint64_t o) {
  detail::in_partition(live(state_).name(), [&] { state_->seek(o); });
}

void Reader::seek_timestamp(std::int64_t t) {
  detail::in_partition(live(state_).name(), [&] { state_->seek_timestamp(t); });
}

std::uint64_t Reader::position() const { return live(state_).position(); }
const std::vector<CorruptionReport>& Reader::skipped() const { return live(state_).skipped(); }
std::uint64_t Reader::offsets_missed() const { return live(state_).offsets_missed(); }
const std::string& Reader::partition() const { return live(state_).name(); }

void Reader::commit(const std::string& name) {
  detail::in_partition(live(state_).name(), [&] { state_->commit(name); });
}

Reader Log::reader(const std::string& stream, std::uint32_t partition, Start start,
                   ReaderOptions options) const {
  detail::PartitionPaths paths{fs_, partition_dir(stream, partition, true),
                               stream + "/" + std::to_string(partition)};
  const std::string name = paths.name;
  return Reader(detail::in_partition(
      name, [&] { return std::make_unique<detail::ReaderState>(std::move(paths), options, start); }));
}

}  // namespace timely::durable
