// The format's pieces (timely/durable/format.hpp): batches encoded and checked, index headers
// and entries, consumer-offset files, file names. No I/O here; the writer, the readers, recovery
// and the fuzz targets share these functions, so that one place decides what is valid.
#include <timely/durable/format.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#include <xxhash.h>

#include <timely/durable/error.hpp>

#include "bytes.hpp"

namespace timely::durable {

namespace detail {

std::uint64_t checksum(std::span<const std::byte> bytes) noexcept {
  return XXH3_64bits(bytes.data(), bytes.size());
}

std::uint64_t checksum_around(std::span<const std::byte> bytes, std::size_t field) noexcept {
  const std::uint64_t seed = XXH3_64bits(bytes.data(), field);
  const auto rest = bytes.subspan(field + 8);
  return XXH3_64bits_withSeed(rest.data(), rest.size(), seed);
}

}  // namespace detail

namespace {

using detail::load_i64;
using detail::load_u16;
using detail::load_u32;
using detail::load_u64;
using detail::store_i64;
using detail::store_u16;
using detail::store_u32;
using detail::store_u64;

constexpr std::array<std::byte, 4> kBatchMagic{std::byte{'T'}, std::byte{'D'}, std::byte{'L'},
                                               std::byte{'B'}};
constexpr std::array<std::byte, 4> kOffsetIndexMagic{std::byte{'T'}, std::byte{'D'}, std::byte{'L'},
                                                     std::byte{'I'}};
constexpr std::array<std::byte, 4> kTimeIndexMagic{std::byte{'T'}, std::byte{'D'}, std::byte{'L'},
                                                   std::byte{'T'}};
constexpr std::array<std::byte, 4> kConsumerMagic{std::byte{'T'}, std::byte{'D'}, std::byte{'L'},
                                                  std::byte{'C'}};
constexpr std::size_t kBatchChecksumAt = 56;
constexpr std::size_t kIndexChecksumAt = 56;

std::string hex(std::uint64_t v) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(v));
  return text;
}

BatchCheck invalid(std::string reason) {
  BatchCheck check;
  check.status = BatchCheck::Status::invalid;
  check.reason = std::move(reason);
  return check;
}

BatchCheck incomplete(std::size_t needed) {
  BatchCheck check;
  check.status = BatchCheck::Status::incomplete;
  check.needed = needed;
  return check;
}

}  // namespace

std::size_t encoded_batch_size(std::span<const RecordView> records) {
  if (records.empty())
    throw ArgumentError("", "", std::nullopt, "an empty batch (a batch holds at least one record)");
  const auto limit = static_cast<std::uint64_t>(kMaxBatchBytes);
  if (records.size() > (limit - kBatchHeaderSize) / kRecordEntrySize)
    throw ArgumentError("", "", std::nullopt,
                        "a batch of " + std::to_string(records.size()) +
                            " records exceeds the format's limit of " + std::to_string(kMaxBatchBytes) +
                            " bytes");
  std::uint64_t total = kBatchHeaderSize + kRecordEntrySize * records.size();
  for (const auto& record : records) {
    total += record.bytes.size();
    if (total > limit)
      throw ArgumentError("", "", std::nullopt,
                          "a batch of " + std::to_string(records.size()) + " records and at least " +
                              std::to_string(total) + " bytes exceeds the format's limit of " +
                              std::to_string(kMaxBatchBytes) + " bytes");
  }
  return static_cast<std::size_t>(detail::round8(total));
}

void encode_batch(std::uint64_t base_offset, std::span<const RecordView> records, std::span<std::byte> out) {
  const std::size_t size = encoded_batch_size(records);
  if (out.size() != size)
    throw ArgumentError(
        "", "", std::nullopt,
        "encode_batch given " + std::to_string(out.size()) + " bytes for a batch of " + std::to_string(size));
  const std::size_t n = records.size();
  std::byte* const base = out.data();
  std::byte* table = base + kBatchHeaderSize;
  std::byte* const data = table + kRecordEntrySize * n;
  std::uint32_t position = 0;
  std::int64_t max_ts = records[0].timestamp;
  for (const auto& record : records) {
    const auto length = static_cast<std::uint32_t>(record.bytes.size());
    store_i64(table, record.timestamp);
    store_u32(table + 8, position);
    store_u32(table + 12, length);
    if (length > 0) std::memcpy(data + position, record.bytes.data(), length);
    position += length;
    max_ts = std::max(max_ts, record.timestamp);
    table += kRecordEntrySize;
  }
  std::fill(data + position, base + size, std::byte{0});
  std::copy(kBatchMagic.begin(), kBatchMagic.end(), base);
  store_u16(base + 4, kFormatVersion);
  store_u16(base + 6, static_cast<std::uint16_t>(kBatchHeaderSize));
  store_u32(base + 8, static_cast<std::uint32_t>(size));
  store_u32(base + 12, static_cast<std::uint32_t>(n));
  store_u64(base + 16, base_offset);
  store_i64(base + 24, records.front().timestamp);
  store_i64(base + 32, records.back().timestamp);
  store_i64(base + 40, max_ts);
  store_u32(base + 48, position);
  store_u32(base + 52, 0);
  store_u64(base + kBatchChecksumAt, detail::checksum_around(out, kBatchChecksumAt));
}

BatchCheck check_batch(std::span<const std::byte> bytes) noexcept {
  try {
    const std::size_t have = bytes.size();
    const std::size_t magic_have = std::min<std::size_t>(have, kBatchMagic.size());
    if (!std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(magic_have),
                    kBatchMagic.begin()))
      return invalid("no batch magic 'TDLB'");
    if (have < kBatchHeaderSize) {
      // Judge what there is of the header, so that garbage is not taken for a partial batch.
      if (have >= 6 && load_u16(bytes.data() + 4) != kFormatVersion)
        return invalid("format version " + std::to_string(load_u16(bytes.data() + 4)) +
                       " (this library reads version 1)");
      return incomplete(kBatchHeaderSize);
    }
    const std::byte* const p = bytes.data();
    BatchHeader h;
    const std::uint16_t version = load_u16(p + 4);
    if (version != kFormatVersion)
      return invalid("format version " + std::to_string(version) + " (this library reads version 1)");
    const std::uint16_t header_size = load_u16(p + 6);
    if (header_size != kBatchHeaderSize)
      return invalid("header size " + std::to_string(header_size) + " (version 1 has 64)");
    h.length = load_u32(p + 8);
    h.record_count = load_u32(p + 12);
    h.base_offset = load_u64(p + 16);
    h.first_timestamp = load_i64(p + 24);
    h.last_timestamp = load_i64(p + 32);
    h.max_timestamp = load_i64(p + 40);
    h.data_size = load_u32(p + 48);
    const std::uint32_t flags = load_u32(p + 52);
    h.checksum = load_u64(p + kBatchChecksumAt);
    if (h.length % 8 != 0 || h.length > kMaxBatchBytes)
      return invalid("batch length " + std::to_string(h.length) + " (a multiple of 8, at most 2^30)");
    if (h.record_count == 0) return invalid("record count 0");
    const std::uint64_t table_end = kBatchHeaderSize + std::uint64_t{kRecordEntrySize} * h.record_count;
    if (detail::round8(table_end + h.data_size) != h.length)
      return invalid("batch length " + std::to_string(h.length) + " does not fit " +
                     std::to_string(h.record_count) + " records of " + std::to_string(h.data_size) +
                     " data bytes");
    if (flags != 0) return invalid("flags " + hex(flags) + " (version 1 defines none)");
    if (std::numeric_limits<std::uint64_t>::max() - h.base_offset < h.record_count)
      return invalid("base offset " + std::to_string(h.base_offset) + " plus " +
                     std::to_string(h.record_count) + " records overflows");
    if (h.length > have) {
      BatchCheck check = incomplete(h.length);
      check.header = h;
      return check;
    }
    // From here on an invalid batch still reports its header's fields, which passed their checks.
    auto invalid_batch = [&](std::string reason) {
      BatchCheck check = invalid(std::move(reason));
      check.header = h;
      return check;
    };
    const auto batch = bytes.first(h.length);
    const std::uint64_t actual = detail::checksum_around(batch, kBatchChecksumAt);
    if (actual != h.checksum)
      return invalid_batch("checksum " + hex(h.checksum) + " does not match the batch's bytes (" +
                           hex(actual) + ")");
    // A matching checksum over a hostile table still must not lead a reader out of the batch.
    std::uint64_t position = 0;
    std::int64_t max_ts = 0;
    for (std::uint32_t i = 0; i < h.record_count; ++i) {
      const std::byte* e = p + kBatchHeaderSize + std::uint64_t{kRecordEntrySize} * i;
      const std::int64_t ts = load_i64(e);
      const std::uint32_t at = load_u32(e + 8);
      const std::uint32_t length = load_u32(e + 12);
      if (at != position || length > h.data_size - position)
        return invalid_batch("record " + std::to_string(i) + " at data position " + std::to_string(at) +
                             " of length " + std::to_string(length) +
                             " does not follow the record before it within " + std::to_string(h.data_size) +
                             " data bytes");
      position += length;
      if (i == 0 && ts != h.first_timestamp)
        return invalid_batch("first timestamp " + std::to_string(h.first_timestamp) + " is not record 0's (" +
                             std::to_string(ts) + ")");
      if (i + 1 == h.record_count && ts != h.last_timestamp)
        return invalid_batch("last timestamp " + std::to_string(h.last_timestamp) +
                             " is not the last record's (" + std::to_string(ts) + ")");
      max_ts = i == 0 ? ts : std::max(max_ts, ts);
    }
    if (position != h.data_size)
      return invalid_batch("records total " + std::to_string(position) + " bytes, the header says " +
                           std::to_string(h.data_size));
    if (max_ts != h.max_timestamp)
      return invalid_batch("max timestamp " + std::to_string(h.max_timestamp) +
                           " is not the records' largest (" + std::to_string(max_ts) + ")");
    for (std::uint64_t i = table_end + h.data_size; i < h.length; ++i)
      if (p[i] != std::byte{0}) return invalid_batch("padding byte " + std::to_string(i) + " is not zero");
    BatchCheck check;
    check.status = BatchCheck::Status::valid;
    check.header = h;
    return check;
  } catch (...) {  // only std::bad_alloc can get here, from a reason's string
    BatchCheck check;
    check.status = BatchCheck::Status::invalid;
    return check;
  }
}

BatchView BatchView::from_bytes(std::span<const std::byte> bytes, std::optional<std::uint64_t> byte_offset) {
  BatchCheck check = check_batch(bytes);
  if (check.status == BatchCheck::Status::valid) return from_checked(bytes, check.header);
  if (check.status == BatchCheck::Status::incomplete)
    throw CorruptionError("", "", byte_offset,
                          "a batch of " + std::to_string(check.needed) + " bytes cut off after " +
                              std::to_string(bytes.size()));
  throw CorruptionError("", "", byte_offset, "not a valid batch: " + check.reason);
}

RecordView BatchView::operator[](std::size_t i) const noexcept {
  const std::size_t index = first_ + i;
  const std::byte* e = bytes_.data() + kBatchHeaderSize + kRecordEntrySize * index;
  const std::byte* data = bytes_.data() + kBatchHeaderSize + kRecordEntrySize * header_.record_count;
  return {load_i64(e), std::span<const std::byte>(data + load_u32(e + 8), load_u32(e + 12))};
}

std::string segment_file_name(std::uint64_t base_offset, SegmentFile kind) {
  char digits[21];
  std::snprintf(digits, sizeof digits, "%020llu", static_cast<unsigned long long>(base_offset));
  switch (kind) {
    case SegmentFile::log:
      return std::string(digits) + ".log";
    case SegmentFile::index:
      return std::string(digits) + ".index";
    case SegmentFile::timeindex:
      return std::string(digits) + ".timeindex";
  }
  return digits;
}

std::optional<std::pair<std::uint64_t, SegmentFile>> parse_segment_file_name(std::string_view name) {
  if (name.size() < 21 || name[20] != '.') return std::nullopt;
  const std::string_view digits = name.substr(0, 20);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::uint64_t base = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), base);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  const std::string_view extension = name.substr(21);
  if (extension == "log") return std::pair{base, SegmentFile::log};
  if (extension == "index") return std::pair{base, SegmentFile::index};
  if (extension == "timeindex") return std::pair{base, SegmentFile::timeindex};
  return std::nullopt;
}

void encode_index_header(const IndexHeader& header, std::span<const std::byte> entries,
                         std::span<std::byte, kIndexHeaderSize> out) {
  const bool time = header.kind == SegmentFile::timeindex;
  const auto& magic = time ? kTimeIndexMagic : kOffsetIndexMagic;
  std::byte* p = out.data();
  std::copy(magic.begin(), magic.end(), p);
  store_u16(p + 4, kFormatVersion);
  store_u16(p + 6, static_cast<std::uint16_t>(time ? kTimeIndexEntrySize : kOffsetIndexEntrySize));
  store_u64(p + 8, header.base_offset);
  store_u64(p + 16, header.sealed_size);
  const bool sealed = header.sealed_size != 0;
  store_u64(p + 24, sealed ? header.end_offset : 0);
  store_i64(p + 32, sealed ? header.first_timestamp : 0);
  store_i64(p + 40, sealed ? header.last_timestamp : 0);
  store_i64(p + 48, sealed ? header.max_timestamp : 0);
  std::uint64_t sum = 0;
  if (sealed) {
    const std::uint64_t seed = XXH3_64bits(p, kIndexChecksumAt);
    sum = XXH3_64bits_withSeed(entries.data(), entries.size(), seed);
  }
  store_u64(p + kIndexChecksumAt, sum);
}

std::optional<IndexHeader> decode_index_header(std::span<const std::byte> file, SegmentFile kind,
                                               std::string* reason) noexcept {
  auto fail = [&](const char* why) -> std::optional<IndexHeader> {
    if (reason) *reason = why;
    return std::nullopt;
  };
  if (kind == SegmentFile::log) return fail("a segment file is not an index");
  if (file.size() < kIndexHeaderSize) return fail("shorter than the 64-byte index header");
  const bool time = kind == SegmentFile::timeindex;
  const auto& magic = time ? kTimeIndexMagic : kOffsetIndexMagic;
  const std::byte* p = file.data();
  if (!std::equal(magic.begin(), magic.end(), p))
    return fail(time ? "no time-index magic 'TDLT'" : "no index magic 'TDLI'");
  if (load_u16(p + 4) != kFormatVersion) return fail("an index format version other than 1");
  const std::size_t entry = time ? kTimeIndexEntrySize : kOffsetIndexEntrySize;
  if (load_u16(p + 6) != entry) return fail("the wrong index entry size");
  IndexHeader h;
  h.kind = kind;
  h.base_offset = load_u64(p + 8);
  h.sealed_size = load_u64(p + 16);
  h.end_offset = load_u64(p + 24);
  h.first_timestamp = load_i64(p + 32);
  h.last_timestamp = load_i64(p + 40);
  h.max_timestamp = load_i64(p + 48);
  h.checksum = load_u64(p + kIndexChecksumAt);
  if (h.sealed_size != 0) {
    if ((file.size() - kIndexHeaderSize) % entry != 0) return fail("a sealed index with a partial entry");
    const std::uint64_t seed = XXH3_64bits(p, kIndexChecksumAt);
    const auto entries = file.subspan(kIndexHeaderSize);
    if (XXH3_64bits_withSeed(entries.data(), entries.size(), seed) != h.checksum)
      return fail("a sealed index whose checksum does not match");
    if (h.end_offset < h.base_offset) return fail("a sealed index whose end offset is below its base offset");
  }
  return h;
}

void encode_offset_entry(const OffsetIndexEntry& entry,
                         std::span<std::byte, kOffsetIndexEntrySize> out) noexcept {
  store_u32(out.data(), entry.relative_offset);
  store_u32(out.data() + 4, entry.position);
}

OffsetIndexEntry decode_offset_entry(std::span<const std::byte, kOffsetIndexEntrySize> in) noexcept {
  return {load_u32(in.data()), load_u32(in.data() + 4)};
}

void encode_time_entry(const TimeIndexEntry& entry, std::span<std::byte, kTimeIndexEntrySize> out) noexcept {
  store_i64(out.data(), entry.timestamp);
  store_u32(out.data() + 8, entry.relative_offset);
  store_u32(out.data() + 12, entry.position);
}

TimeIndexEntry decode_time_entry(std::span<const std::byte, kTimeIndexEntrySize> in) noexcept {
  return {load_i64(in.data()), load_u32(in.data() + 8), load_u32(in.data() + 12)};
}

void encode_consumer_offset(std::uint64_t offset, std::span<std::byte, kConsumerOffsetSize> out) noexcept {
  std::byte* p = out.data();
  std::copy(kConsumerMagic.begin(), kConsumerMagic.end(), p);
  store_u16(p + 4, kFormatVersion);
  store_u16(p + 6, static_cast<std::uint16_t>(kConsumerOffsetSize));
  store_u64(p + 8, offset);
  store_u64(p + 16, detail::checksum(std::span<const std::byte>(p, 16)));
}

std::optional<std::uint64_t> decode_consumer_offset(std::span<const std::byte> file,
                                                    std::string* reason) noexcept {
  auto fail = [&](const char* why) -> std::optional<std::uint64_t> {
    if (reason) *reason = why;
    return std::nullopt;
  };
  if (file.size() != kConsumerOffsetSize) return fail("not 24 bytes long");
  const std::byte* p = file.data();
  if (!std::equal(kConsumerMagic.begin(), kConsumerMagic.end(), p))
    return fail("no consumer-offset magic 'TDLC'");
  if (load_u16(p + 4) != kFormatVersion) return fail("a format version other than 1");
  if (load_u16(p + 6) != kConsumerOffsetSize) return fail("a size field other than 24");
  if (load_u64(p + 16) != detail::checksum(file.first(16))) return fail("a checksum that does not match");
  return load_u64(p + 8);
}

bool valid_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > 200 || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace timely::durable
