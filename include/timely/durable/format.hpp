/// \file
/// The on-disk format of the durable log, version 1, and the functions that encode and check
/// its pieces: record batches (`encode_batch`, `check_batch`, `BatchView`), index files
/// (`IndexHeader`, the entry types) and file names. The format is public and versioned: a
/// reader of version 1 rejects any other version by its number.
///
/// # Directory layout
///
///     <log root>/
///       <stream>/                        a named stream: 1 to 200 bytes of [A-Za-z0-9._-],
///                                        not starting with '.'
///         <partition>/                   a partition: its number in decimal without leading
///                                        zeros ("0", "1", ... "4294967295")
///           writer.lock                  locked (flock LOCK_EX) by the partition's writer,
///                                        holding the text "pid N on HOST"
///           00000000000000000000.log     a segment's batches; the name is the segment's base
///           00000000000000000000.index   offset (its first record's offset) in 20 decimal
///           00000000000000000000.timeindex   digits, as Kafka names its segments
///           00000000000000001024.log     the next segment starts where the previous ends
///           ...
///           consumers/<name>.offset      a consumer's committed offset (name as a stream's)
///
/// Offsets are dense per partition: the first record appended gets offset 0, each next record
/// the next integer. Segments hold consecutive offset ranges; the last (highest base offset) is
/// the active segment, the only one appended to. The others are sealed.
///
/// All integers are little-endian. Checksums are XXH3-64 (xxHash 0.8) computed in two steps
/// so that they cover every byte but themselves: the seed is XXH3_64bits of the bytes before
/// the checksum field, and the checksum is XXH3_64bits_withSeed of the bytes after it.
///
/// # Segment files (.log)
///
/// A segment file is a sequence of batches and nothing else: no file header, no padding between
/// batches. Every batch starts at a multiple of 8 bytes (batch lengths are multiples of 8), so
/// a reader that loads a batch into 8-byte aligned memory reads its fields in place.
///
/// Batch, B bytes, at byte offset P of its segment:
///
///     offset  size  field
///     P +  0     4  magic: 'T' 'D' 'L' 'B'
///     P +  4     2  u16 format version: 1
///     P +  6     2  u16 header size: 64
///     P +  8     4  u32 batch length B: the whole batch, a multiple of 8, at most 2^30
///     P + 12     4  u32 record count N, at least 1
///     P + 16     8  u64 base offset: the offset of the batch's first record
///     P + 24     8  i64 first timestamp: record 0's
///     P + 32     8  i64 last timestamp: record N-1's
///     P + 40     8  i64 max timestamp: the largest of the N
///     P + 48     4  u32 data size D: the sum of the records' lengths
///     P + 52     4  u32 flags: 0 (no flag is defined in version 1)
///     P + 56     8  u64 checksum: seed XXH3 of [P, P + 56), over [P + 64, P + B)
///     P + 64   16N  record table, entry i at P + 64 + 16i:
///                     i64 timestamp, u32 position (in the data area), u32 length
///     P + 64 + 16N  D  the data area: the records' bytes, record i at [position_i,
///                      position_i + length_i); position_0 = 0 and each next record starts
///                      where the one before ends
///     ...           zero bytes up to P + B: B = 64 + 16N + D rounded up to a multiple of 8
///
/// A batch is valid iff every field holds what is written above and the checksum matches. Its
/// records have the offsets base, base + 1, ..., base + N - 1. The timestamps are the
/// appender's (any i64, in units of its choosing, typically event time in ms), not ordered.
/// Within a segment, each batch's base offset is the previous batch's base offset plus its
/// record count; the first batch's is the segment's base offset.
///
/// # Index files (.index and .timeindex)
///
/// Both are sparse hints for finding a position in the segment file without reading it from
/// the start, as in Kafka. They are rebuilt from the segment file when missing or stale, and a
/// reader checks what a hint points at before trusting it. Header, 64 bytes:
///
///     offset  size  field
///          0     4  magic: 'T' 'D' 'L' 'I' (.index) or 'T' 'D' 'L' 'T' (.timeindex)
///          4     2  u16 format version: 1
///          6     2  u16 entry size: 8 (.index) or 16 (.timeindex)
///          8     8  u64 the segment's base offset
///         16     8  u64 sealed size: 0 while the segment is active; once sealed, the size in
///                   bytes of the segment file that the index describes completely
///         24     8  u64 end offset: one past the segment's last record (sealed only, else 0)
///         32     8  i64 first timestamp: the segment's first record's (sealed only, else 0)
///         40     8  i64 last timestamp: the segment's last record's (sealed only, else 0)
///         48     8  i64 max timestamp: the segment's largest (sealed only, else 0)
///         56     8  u64 checksum (sealed only, else 0): seed XXH3 of [0, 56), over the
///                   entries [64, end of file)
///
/// Then the entries, in increasing order of position (and of relative offset):
/// - .index, 8 bytes: u32 relative offset (a batch's base offset minus the segment's), u32
///   position of that batch in the segment file. An entry is written for a batch when at least
///   `index_interval_bytes` (an option) lie between it and the previous entry (or the segment
///   start, which needs no entry).
/// - .timeindex, 16 bytes: i64 timestamp, u32 relative offset, u32 position: the timestamp is
///   the largest of the segment's records up to and including the batch at that position. An
///   entry is written at the same batches as the .index entries, when that largest timestamp has
///   grown since the previous entry. The timestamps rise strictly from entry to entry.
///
/// An index whose segment is sealed is trusted only if its header is valid, its checksum
/// matches, its sealed size equals the segment file's size and its entries are in order and
/// inside the file; the active segment's indexes are always rebuilt when a writer opens the
/// partition. An index of a sealed segment is complete when sealed, and so is the segment file:
/// sealing syncs both, whatever the durability policy, before the next segment is created.
///
/// # Consumer offsets (consumers/<name>.offset), 24 bytes
///
///     offset  size  field
///          0     4  magic: 'T' 'D' 'L' 'C'
///          4     2  u16 format version: 1
///          6     2  u16 size: 24
///          8     8  u64 the committed offset: the next offset the consumer will read
///         16     8  u64 checksum: XXH3_64bits of [0, 16)
///
/// A commit writes `<name>.offset.tmp.<pid>.<n>`, syncs it, renames it over `<name>.offset` and
/// syncs the directory, so that a crash leaves the old or the new offset, never a mix (and at
/// worst a temporary file, which readers of offsets ignore).
///
/// Source: the layout follows Kafka's log (segments named by base offset with sparse .index and
/// .timeindex files, batches with a base offset and timestamps) and Apache Iggy's streams of
/// partitions; the byte layouts and checksums are our own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace timely::durable {

/// The format version this library writes and reads.
inline constexpr std::uint16_t kFormatVersion = 1;
/// Bytes of a batch header and of a record-table entry.
inline constexpr std::size_t kBatchHeaderSize = 64;
inline constexpr std::size_t kRecordEntrySize = 16;
/// The largest batch (header, table, data and padding), in bytes.
inline constexpr std::size_t kMaxBatchBytes = std::size_t{1} << 30;
/// Bytes of an index file header and of the entries of each index kind.
inline constexpr std::size_t kIndexHeaderSize = 64;
inline constexpr std::size_t kOffsetIndexEntrySize = 8;
inline constexpr std::size_t kTimeIndexEntrySize = 16;
/// Bytes of a consumer-offset file.
inline constexpr std::size_t kConsumerOffsetSize = 24;

/// One record: its timestamp and its bytes. As an argument of `Writer::append` it points at the
/// caller's bytes; as handed out by a `BatchView` it points into the view's batch.
struct RecordView {
  std::int64_t timestamp = 0;
  std::span<const std::byte> bytes;
  /// The bytes as text (for records that hold text).
  [[nodiscard]] std::string_view text() const noexcept {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
  }
};

/// The fields of a batch header (see the file comment).
struct BatchHeader {
  std::uint32_t length = 0;
  std::uint32_t record_count = 0;
  std::uint64_t base_offset = 0;
  std::int64_t first_timestamp = 0;
  std::int64_t last_timestamp = 0;
  std::int64_t max_timestamp = 0;
  std::uint32_t data_size = 0;
  std::uint64_t checksum = 0;
  /// One past the batch's last record.
  [[nodiscard]] std::uint64_t end_offset() const noexcept { return base_offset + record_count; }
};

/// The bytes a batch of `records` takes: 64 + 16N + the records' lengths, rounded up to 8.
/// \throws ArgumentError if `records` is empty or the batch would exceed `kMaxBatchBytes`.
[[nodiscard]] std::size_t encoded_batch_size(std::span<const RecordView> records);

/// Writes the batch of `records` with base offset `base_offset` into `out`, whose size must be
/// `encoded_batch_size(records)`, padding included (zeroed).
/// \throws ArgumentError if `records` is empty, too large, or `out` has the wrong size.
void encode_batch(std::uint64_t base_offset, std::span<const RecordView> records, std::span<std::byte> out);

/// What `check_batch` found at the start of some bytes.
struct BatchCheck {
  enum class Status {
    valid,       ///< a whole valid batch: `header` holds its fields
    incomplete,  ///< a plausible header (or fewer than 64 bytes) whose batch runs past the bytes
    invalid,     ///< not a batch: `reason` says why
  };
  Status status = Status::invalid;
  /// The header's fields: for `valid`; for `incomplete` once the 64 header bytes were there;
  /// for `invalid` if the header passed its own checks and the checksum or the record table
  /// failed (then `header.record_count` is what the damaged batch claims); else zero.
  BatchHeader header;
  /// For `incomplete`: the bytes needed (64 for a partial header, else the batch length).
  std::size_t needed = 0;
  /// For `invalid`: what is wrong, naming the field and its value.
  std::string reason;
};

/// Checks the batch that starts at `bytes[0]`, reading nothing outside `bytes`. A header with a
/// valid magic, version and size fields whose length exceeds `bytes` is `incomplete`; any
/// field out of its range, a checksum that does not match, or a record table that does not
/// describe the data area is `invalid`. Never throws, for any input.
[[nodiscard]] BatchCheck check_batch(std::span<const std::byte> bytes) noexcept;

/// A view of a valid batch in memory (a reader's buffer, a mapped file): the records from
/// `base_offset()` on, read in place. The view does not own the bytes; it is valid while they
/// are (for a batch from a `Reader`, until the reader's next call).
///
/// A reader positioned in the middle of a stored batch (after `seek`) hands out a view that
/// starts at the position: `base_offset()` and `size()` describe the records in the view, and
/// `header()` the stored batch they belong to.
class BatchView {
 public:
  BatchView() = default;
  /// The batch at the start of `bytes`, checked as `check_batch` checks it; trailing bytes after
  /// the batch are ignored.
  /// \throws CorruptionError (naming the reason and, if `byte_offset` is given, that offset) if
  /// the bytes do not start with a whole valid batch.
  [[nodiscard]] static BatchView from_bytes(std::span<const std::byte> bytes,
                                            std::optional<std::uint64_t> byte_offset = std::nullopt);
  /// A view of a batch already checked valid by `check_batch` (no second check).
  [[nodiscard]] static BatchView from_checked(std::span<const std::byte> bytes,
                                              const BatchHeader& header) noexcept {
    return BatchView(bytes.first(header.length), header, 0);
  }

  /// The offset of the view's first record.
  [[nodiscard]] std::uint64_t base_offset() const noexcept { return header_.base_offset + first_; }
  /// One past the view's last record (and the stored batch's).
  [[nodiscard]] std::uint64_t end_offset() const noexcept { return header_.end_offset(); }
  /// The number of records in the view.
  [[nodiscard]] std::size_t size() const noexcept { return header_.record_count - first_; }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }
  /// Record `base_offset() + i`, for i < size(): its timestamp and its bytes in the batch.
  [[nodiscard]] RecordView operator[](std::size_t i) const noexcept;
  /// The stored batch's header (its base offset may be below the view's).
  [[nodiscard]] const BatchHeader& header() const noexcept { return header_; }
  /// The stored batch's bytes, header to padding (to copy a batch whole, checksum included).
  [[nodiscard]] std::span<const std::byte> bytes() const noexcept { return bytes_; }
  /// The same batch without the view's first `n` records (all of them if n >= size()).
  [[nodiscard]] BatchView drop_front(std::size_t n) const noexcept {
    BatchView v = *this;
    v.first_ = n >= size() ? header_.record_count : first_ + static_cast<std::uint32_t>(n);
    return v;
  }

  /// Iterates the view's records (`RecordView` values).
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = RecordView;
    using difference_type = std::ptrdiff_t;
    using reference = RecordView;
    using pointer = void;
    iterator() = default;
    iterator(const BatchView* view, std::size_t i) : view_(view), i_(i) {}
    RecordView operator*() const noexcept { return (*view_)[i_]; }
    iterator& operator++() noexcept {
      ++i_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator old = *this;
      ++i_;
      return old;
    }
    bool operator==(const iterator& other) const noexcept { return i_ == other.i_; }

   private:
    const BatchView* view_ = nullptr;
    std::size_t i_ = 0;
  };
  [[nodiscard]] iterator begin() const noexcept { return {this, 0}; }
  [[nodiscard]] iterator end() const noexcept { return {this, size()}; }

 private:
  BatchView(std::span<const std::byte> bytes, const BatchHeader& header, std::uint32_t first) noexcept
      : bytes_(bytes), header_(header), first_(first) {}

  std::span<const std::byte> bytes_;
  BatchHeader header_;
  std::uint32_t first_ = 0;
};

/// The kinds of a segment's files.
enum class SegmentFile { log, index, timeindex };

/// A segment file's name: the base offset in 20 digits and the kind's extension
/// (`00000000000000001024.log`).
[[nodiscard]] std::string segment_file_name(std::uint64_t base_offset, SegmentFile kind);
/// The base offset and kind of a segment file's name, or nothing if `name` is not one.
[[nodiscard]] std::optional<std::pair<std::uint64_t, SegmentFile>> parse_segment_file_name(
    std::string_view name);

/// An index file's header (see the file comment); `sealed_size == 0` while the segment is
/// active.
struct IndexHeader {
  SegmentFile kind = SegmentFile::index;
  std::uint64_t base_offset = 0;
  std::uint64_t sealed_size = 0;
  std::uint64_t end_offset = 0;
  std::int64_t first_timestamp = 0;
  std::int64_t last_timestamp = 0;
  std::int64_t max_timestamp = 0;
  std::uint64_t checksum = 0;
};

/// An .index entry: a batch's offset relative to the segment's base, and its byte position.
struct OffsetIndexEntry {
  std::uint32_t relative_offset = 0;
  std::uint32_t position = 0;
  bool operator==(const OffsetIndexEntry&) const = default;
};

/// A .timeindex entry: the largest timestamp of the segment's records up to and including the
/// batch at `position`, whose relative offset is `relative_offset`.
struct TimeIndexEntry {
  std::int64_t timestamp = 0;
  std::uint32_t relative_offset = 0;
  std::uint32_t position = 0;
  bool operator==(const TimeIndexEntry&) const = default;
};

/// The 64 header bytes of an index file; `entries` are the bytes after the header, which the
/// checksum of a sealed header covers (an active header's checksum is 0).
void encode_index_header(const IndexHeader& header, std::span<const std::byte> entries,
                         std::span<std::byte, kIndexHeaderSize> out);
/// The header at the start of `file` (a whole index file), or the reason it is not a valid
/// header of `kind`: a wrong magic, version or entry size, or, for a sealed header, a checksum
/// that does not match the entries or a size that is not the header plus whole entries.
/// Never throws.
[[nodiscard]] std::optional<IndexHeader> decode_index_header(std::span<const std::byte> file,
                                                             SegmentFile kind, std::string* reason) noexcept;
void encode_offset_entry(const OffsetIndexEntry& entry,
                         std::span<std::byte, kOffsetIndexEntrySize> out) noexcept;
[[nodiscard]] OffsetIndexEntry decode_offset_entry(
    std::span<const std::byte, kOffsetIndexEntrySize> in) noexcept;
void encode_time_entry(const TimeIndexEntry& entry, std::span<std::byte, kTimeIndexEntrySize> out) noexcept;
[[nodiscard]] TimeIndexEntry decode_time_entry(std::span<const std::byte, kTimeIndexEntrySize> in) noexcept;

/// The bytes of a consumer-offset file holding `offset`.
void encode_consumer_offset(std::uint64_t offset, std::span<std::byte, kConsumerOffsetSize> out) noexcept;
/// The offset in a consumer-offset file, or nothing (and the reason) if the bytes are not one.
[[nodiscard]] std::optional<std::uint64_t> decode_consumer_offset(std::span<const std::byte> file,
                                                                  std::string* reason) noexcept;

/// Whether `name` may name a stream or a consumer: 1 to 200 bytes of ASCII letters, digits,
/// '.', '_' and '-', not starting with '.'.
[[nodiscard]] bool valid_name(std::string_view name) noexcept;
/// `valid_name`'s rule in words, for messages that refuse a name.
inline constexpr std::string_view kNameRule = "1 to 200 of [A-Za-z0-9._-], not starting with '.'";

}  // namespace timely::durable
