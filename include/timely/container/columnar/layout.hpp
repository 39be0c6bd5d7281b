/// \file
/// The byte layout of a serialized columnar batch and the tools its columns share to read and
/// validate it: `LayoutError` (what a bad batch throws), the header constants, unaligned-safe
/// loads, the column `Path` used only to name a column in an error, and the `Parser` that hands
/// each column its buffers in order. The columns themselves are in the other headers of this
/// folder; `timely/container/columnar.hpp` is what users include.
///
/// # Layout of one batch (all words host-order u64; the magic word rejects the other byte order)
///
///     offset 0           magic_version  ("TMLYCOL1": layout version 1)
///     offset 8           item count
///     offset 16          number of buffers k (fixed by the item type)
///     offset 24 + 8j     byte length of buffer j, j < k
///     offset 8(3 + k)    buffer 0, zero-padded to a multiple of 8, then buffer 1, ...
///
/// Every buffer starts at an offset that is a multiple of 8 from the batch's first byte, so a
/// batch whose first byte is 8-byte aligned can be read in place. The buffers are the columns'
/// in depth-first order (for `std::pair<std::uint64_t, std::string>`: the integers, the string
/// end offsets, the string bytes). Padding must be zero and nothing may follow the last buffer,
/// so that a valid batch has exactly one encoding.
///
/// Source of the idea: the reference's columnar example and the `columnar` crate's
/// `AsBytes`/`FromBytes` (SEMANTICS.md §9.3). Thread-safety: plain functions and values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include <timely/error.hpp>

namespace timely::container::columnar {

/// The byte size at which a `Batch` reports `at_capacity()` unless told otherwise (1 MiB,
/// the reference's columnar example; SEMANTICS.md §9.3).
inline constexpr std::size_t default_capacity_bytes = std::size_t{1} << 20;

/// The most items a column of a type without data (`std::tuple<>`, an empty struct) may claim:
/// nothing in the bytes bounds them, and reading them must stay bounded (as the codec's
/// `max_empty_count`).
inline constexpr std::uint64_t max_empty_items = std::uint64_t{1} << 32;

/// "TMLYCOL1" read as a little-endian u64: the first word of every serialized batch.
inline constexpr std::uint64_t magic_version = 0x314C4F43594C4D54ull;

/// Bytes of the header of a batch with `buffers` column buffers.
constexpr std::size_t header_bytes(std::size_t buffers) noexcept { return 8 * (3 + buffers); }

/// `n` rounded up to a multiple of 8 (`n` must be below `SIZE_MAX - 7`).
constexpr std::size_t pad8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }

/// A serialized batch that does not match its type's layout: truncated, a length or offset out
/// of bounds or inconsistent, a bad bool or optional tag, non-zero padding. `column()` is the
/// path of the column buffer at fault ("header", or one such as "tuple.1.offsets"), `offset()`
/// the byte offset within the batch of the first offending byte, `problem()` what is wrong.
/// (The codec turns it into a `CodecError`.)
class LayoutError : public timely::Error {
 public:
  LayoutError(std::string column, std::size_t offset, std::string problem)
      : timely::Error("timely: columnar batch: column " + column + " at byte offset " +
                      std::to_string(offset) + ": " + problem),
        column_(std::move(column)),
        offset_(offset),
        problem_(std::move(problem)) {}

  [[nodiscard]] const std::string& column() const noexcept { return column_; }
  [[nodiscard]] std::size_t offset() const noexcept { return offset_; }
  [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

 private:
  std::string column_;
  std::size_t offset_;
  std::string problem_;
};

namespace detail {

/// The `i`-th `V` of the array at `p`, whatever `p`'s alignment (a single load once inlined).
template <class V>
[[nodiscard]] inline V load(const unsigned char* p, std::size_t i) noexcept {
  V v;
  std::memcpy(&v, p + i * sizeof(V), sizeof(V));
  return v;
}

/// One column buffer as the serializer sees it.
struct Bytes {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
};

/// Where a column sits in the type, as a chain of names on the stack: rendered into a string
/// only when an error is thrown, so validation allocates nothing.
struct Path {
  Path() = default;
  Path(const Path* parent_, const char* name_, int index_ = -1) noexcept
      : parent(parent_), name(name_), index(index_) {}

  const Path* parent = nullptr;
  const char* name = "";
  int index = -1;  ///< a field number ("tuple.1"), or -1

  [[nodiscard]] std::string render(const char* leaf) const {
    std::string out = parent ? parent->render(nullptr) : std::string();
    if (*name != '\0' || index >= 0) {
      if (!out.empty()) out += '.';
      out += name;
      if (index >= 0) out += (*name != '\0' ? "." : "") + std::to_string(index);
    }
    if (leaf) {
      if (!out.empty()) out += '.';
      out += leaf;
    }
    return out;
  }
};

/// One buffer of a batch being read: where it is and where it sits in the batch.
struct Buffer {
  const unsigned char* data = nullptr;
  std::size_t size = 0;    ///< bytes (unpadded)
  std::size_t offset = 0;  ///< of its first byte within the batch
};

[[noreturn, gnu::cold, gnu::noinline]] inline void fail(const Path& path, const char* leaf,
                                                        std::size_t offset, std::string problem) {
  throw LayoutError(path.render(leaf), offset, std::move(problem));
}

/// Hands the column readers their buffers in order; `offsets`/`sizes` come from the validated
/// header, so every buffer lies inside the batch.
class Parser {
 public:
  Parser(const unsigned char* base, const std::size_t* offsets, const std::size_t* sizes,
         std::size_t count) noexcept
      : base_(base), offsets_(offsets), sizes_(sizes), count_(count) {}

  /// The next buffer (the header's buffer count equals the type's, so there always is one).
  [[nodiscard]] Buffer next() noexcept {
    const std::size_t j = next_ < count_ ? next_++ : count_ - 1;
    return Buffer{base_ + offsets_[j], sizes_[j], offsets_[j]};
  }

 private:
  const unsigned char* base_;
  const std::size_t* offsets_;
  const std::size_t* sizes_;
  std::size_t count_;
  std::size_t next_ = 0;
};

/// Checks that `buf` holds exactly `len` values of `width` bytes each.
inline void expect_values(const Buffer& buf, std::size_t len, std::size_t width, const Path& path,
                          const char* leaf) {
  if (buf.size % width != 0 || buf.size / width != len)
    fail(path, leaf, buf.offset,
         "holds " + std::to_string(buf.size) + " bytes, but " + std::to_string(len) + " values of " +
             std::to_string(width) + " bytes need " +
             (len > SIZE_MAX / width ? std::string("more than fit in memory") : std::to_string(len * width)));
}

/// Checks an end-offset buffer of `len` u64 entries: non-decreasing from 0. Returns the last
/// end (0 when empty), which the caller compares with its child's length.
inline std::size_t check_ends(const Buffer& buf, std::size_t len, const Path& path) {
  expect_values(buf, len, 8, path, "offsets");
  if (len == 0) return 0;
  // One branch-free pass (it vectorizes); the offending entry is looked for only on failure.
  std::uint64_t prev = 0;
  bool bad = false;
  for (std::size_t i = 0; i < len; ++i) {
    const auto end = load<std::uint64_t>(buf.data, i);
    bad |= end < prev;
    prev = end;
  }
  if (bad) [[unlikely]] {
    prev = 0;
    for (std::size_t i = 0; i < len; ++i) {
      const auto end = load<std::uint64_t>(buf.data, i);
      if (end < prev)
        fail(path, "offsets", buf.offset + 8 * i,
             "end offset " + std::to_string(end) + " of item " + std::to_string(i) +
                 " is below the previous " + std::to_string(prev));
      prev = end;
    }
  }
  if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
    if (prev > SIZE_MAX) fail(path, "offsets", buf.offset + 8 * (len - 1), "end offset does not fit size_t");
  }
  return static_cast<std::size_t>(prev);
}

/// Checks a buffer of `len` one-byte flags (bools, optional tags): each 0 or 1.
inline void check_flags(const Buffer& buf, std::size_t len, const Path& path, const char* leaf) {
  expect_values(buf, len, 1, path, leaf);
  unsigned char bad = 0;
  for (std::size_t i = 0; i < len; ++i) bad |= buf.data[i];
  if (bad > 1) [[unlikely]] {
    for (std::size_t i = 0; i < len; ++i)
      if (buf.data[i] > 1)
        fail(path, leaf, buf.offset + i,
             std::string(leaf) + " byte of item " + std::to_string(i) + " must be 0 or 1, found " +
                 std::to_string(buf.data[i]));
  }
}

}  // namespace detail
}  // namespace timely::container::columnar
