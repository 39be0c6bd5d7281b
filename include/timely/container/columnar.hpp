/// \file
/// Columnar batches: `columnar::Batch<T>` stores records of `T` as a structure of arrays (one
/// buffer per fixed-width field, offsets plus a child column for variable-length data), pushes
/// owned `T`s and yields borrowed `RefOf<T>`s (`std::tuple<std::uint64_t, std::string_view>` for
/// `std::pair<std::uint64_t, std::string>`), serializes as a small header plus 8-byte aligned
/// column buffers (one `memcpy` each), and is read back in place from a byte view that it
/// validates once (`from_bytes`). Supported item types and the column protocol:
/// columnar/kinds.hpp; the byte layout: columnar/layout.hpp.
///
///     columnar::Batch<std::pair<std::uint64_t, std::string>> batch;
///     batch.push_into({7, "seven"});
///     for (auto [n, s] : batch) use(n, s);        // s is a std::string_view into the batch
///     std::vector<std::uint8_t> bytes;
///     batch.append_to(bytes);                     // header + buffers, 8-byte aligned
///     auto back = decltype(batch)::from_bytes(bytes, nullptr);   // validated, one aligned copy
///
/// Header-only; depends on the standard library and Boost.PFR's core only.
///
/// Source of the idea: the reference's columnar example and the `columnar` crate (typed,
/// bytes-backed and aligned states of a container; SEMANTICS.md §9.3). Thread-safety: a batch is
/// a value; distinct batches (also copies sharing one borrowed owner, which is never written)
/// may be used from distinct threads.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/columnar/kinds.hpp>
#include <timely/container/columnar/layout.hpp>
#include <timely/container/columnar/product.hpp>
#include <timely/container/columnar/scalar.hpp>
#include <timely/container/columnar/sequence.hpp>
#include <timely/container/container.hpp>

namespace timely::container::columnar {

/// A batch of records of type `T` in columns (see the file comment).
///
/// Two states. *Owned*: the columns are growable vectors; `push_into` appends, `clear()` empties
/// them keeping their capacity. *Read-only view*: after `from_bytes`, the batch reads validated
/// bytes in place, either borrowed from the caller's `owner` (`borrowed()`: the batch keeps
/// `owner` alive, and copies of it share it without copying bytes) or one aligned copy it made.
/// Pushing into a view first copies its items into owned columns (one allocation per column,
/// then the owner is released); `clear()` of a view releases the owner and leaves an empty owned
/// batch.
///
/// Items read (`operator[]`, iteration) are `Ref`s valid while the batch is alive and not
/// modified; moving a batch keeps them valid. Do not push a `Ref` of a batch into that batch.
template <class T>
class Batch {
  static_assert(Columnar<T>,
                "timely: columnar::Batch<T>: T has no columnar layout. Supported: integers, float, double, "
                "bool, enums, std::string, std::vector<std::uint8_t/std::byte>, std::vector<X>, "
                "std::optional<X>, std::pair, std::tuple and aggregates (Boost.PFR) of supported X");
  using Col = detail::Col<T>;
  using View = typename Col::View;
  using Owned = typename Col::Owned;
  static constexpr std::size_t buffer_count = Col::buffers;

  struct Getter {
    View view{};
    RefOf<T> operator()(std::size_t i) const { return view.get(i); }
  };

 public:
  using Item = T;
  using Ref = RefOf<T>;
  using iterator = detail::IndexIterator<Getter>;
  using const_iterator = iterator;

  Batch() noexcept = default;
  Batch(const Batch& other)
      : owned_(other.owner_ ? Owned{} : other.owned_),
        len_(other.len_),
        owner_(other.owner_),
        borrowed_(other.borrowed_),
        capacity_(other.capacity_) {
    if (owner_) view_ = other.view_;
  }
  Batch(Batch&& other) noexcept
      : owned_(std::move(other.owned_)),
        view_(other.view_),
        len_(other.len_),
        owner_(std::move(other.owner_)),
        borrowed_(other.borrowed_),
        capacity_(other.capacity_) {
    other.reset();
  }
  Batch& operator=(const Batch& other) {
    if (this != &other) *this = Batch(other);
    return *this;
  }
  Batch& operator=(Batch&& other) noexcept {
    if (this == &other) return *this;
    owned_ = std::move(other.owned_);
    view_ = other.view_;
    len_ = other.len_;
    owner_ = std::move(other.owner_);
    borrowed_ = other.borrowed_;
    capacity_ = other.capacity_;
    other.reset();
    return *this;
  }
  ~Batch() = default;

  /// Column buffers a serialized batch of `T` has (fixed by `T`).
  [[nodiscard]] static constexpr std::size_t buffers() noexcept { return buffer_count; }

  /// Records in the batch (what progress tracking counts).
  [[nodiscard]] std::size_t size() const noexcept { return len_; }
  [[nodiscard]] bool empty() const noexcept { return len_ == 0; }
  /// Removes every record: an owned batch keeps its columns' capacity; a view releases its
  /// owner and becomes an empty owned batch.
  void clear() noexcept {
    if (owner_) {
      owner_.reset();
      borrowed_ = false;
    }
    owned_.clear();
    len_ = 0;
  }

  /// Appends one record (a view is first turned into an owned batch, see the class comment).
  /// \throws std::bad_alloc (the batch then holds what it held before).
  void push_into(const T& item) {
    make_owned();
    try {
      owned_.push(item);
    } catch (...) {
      cut_back();
      throw;
    }
    ++len_;
  }
  /// Appends one record given in its borrowed form (from this or another batch of `T`). A
  /// template only so that a braced list (`push_into({7, "seven"})`) means a `T`.
  /// \throws std::bad_alloc (the batch then holds what it held before).
  template <class R>
  requires(std::is_same_v<R, Ref> && !std::is_same_v<T, Ref>) void push_into(const R& item) {
    make_owned();
    try {
      owned_.push_ref(item);
    } catch (...) {
      cut_back();
      throw;
    }
    ++len_;
  }

  /// Appends records `src[indices[0]]`, `src[indices[1]]`, ... column by column (one loop per
  /// column instead of one push per record: how exchange partitions a batch), stopping once the
  /// batch is at capacity; returns how many were appended (at least one if the batch was empty).
  /// The batch ends as pushing the records one by one would end it: at capacity, and below it
  /// before its last record. Steps are sized from the records' bytes seen so far; a step that
  /// crosses the capacity with several records is taken back and retried smaller. `src` must
  /// not be this batch; indices are unchecked (each below `src.size()`).
  /// \throws std::bad_alloc (the batch then holds what it held before the failed step).
  std::size_t fill_from(const Batch& src, std::span<const std::uint32_t> indices) {
    make_owned();
    std::size_t per_record =
        std::max<std::size_t>(1, src.current().padded_bytes() / std::max<std::size_t>(1, src.len_));
    std::size_t done = 0;
    while (done < indices.size()) {
      const std::size_t size = serialized_size();
      if (size >= capacity_ && len_ != 0) break;
      const std::size_t room = size < capacity_ ? capacity_ - size : 0;
      // Aim at 7/8 of the room, so that most steps stay below the capacity.
      const std::size_t aim = room - room / 8;
      std::size_t take = std::min(indices.size() - done, std::max<std::size_t>(1, aim / per_record));
      for (;;) {
        const std::size_t before = len_;
        gather(src, indices.data() + done, take);
        const std::size_t after = serialized_size();
        per_record = std::max<std::size_t>(1, (after - size) / take);
        if (take == 1 || after < capacity_) break;
        truncate(before);
        take = std::max<std::size_t>(1, std::min(take / 2, aim / per_record));
      }
      done += take;
    }
    return done;
  }

  /// The byte sizes of the column buffers, in layout order: what `expect` takes.
  using Shape = std::array<std::size_t, buffer_count>;
  [[nodiscard]] Shape shape() const noexcept {
    const auto buffers = collect();
    Shape out{};
    for (std::size_t j = 0; j < buffer_count; ++j) out[j] = buffers[j].size;
    return out;
  }
  /// Expects buffers of `shape`'s byte sizes (a builder passes the shape of the batch it last
  /// filled): each owned column that grows past a few KiB then grows straight to its size
  /// instead of doubling step by step, and a batch shipped after a few records stays small
  /// (`Storage::expect`). Ignored by a read-only view, and for a shape of more than twice
  /// `capacity_bytes()` (a batch made full by one huge record).
  void expect(const Shape& shape) noexcept {
    if (owner_) return;
    const std::size_t limit = capacity_ > SIZE_MAX / 2 ? SIZE_MAX : 2 * capacity_;
    std::size_t total = 0;
    for (const auto bytes : shape) {
      if (bytes > limit - total) return;
      total += bytes;
    }
    const std::size_t* sizes = shape.data();
    owned_.expect_bytes(sizes);
  }

  /// Record `i`, borrowed (unchecked: `i < size()`; the layout was validated when read).
  [[nodiscard]] Ref operator[](std::size_t i) const { return current().get(i); }
  /// Random-access iterators yielding `Ref` by value (no owned record is made).
  [[nodiscard]] iterator begin() const noexcept { return iterator(Getter{current()}, 0); }
  [[nodiscard]] iterator end() const noexcept { return iterator(Getter{current()}, len_); }

  /// Whether the batch reads bytes borrowed from a caller's owner (`from_bytes` with an
  /// aligned view and a non-null owner).
  [[nodiscard]] bool borrowed() const noexcept { return borrowed_; }
  /// What keeps the borrowed bytes alive (the `owner` given to `from_bytes`), or null unless
  /// `borrowed()`.
  [[nodiscard]] std::shared_ptr<const void> owner() const noexcept { return borrowed_ ? owner_ : nullptr; }

  /// Bytes the serialized batch takes (`serialized_size()`): the proxy for when to ship it.
  [[nodiscard]] std::size_t byte_size() const noexcept { return serialized_size(); }
  /// Whether `byte_size() >= capacity_bytes()`: the batch should be shipped.
  [[nodiscard]] bool at_capacity() const noexcept { return byte_size() >= capacity_; }
  [[nodiscard]] std::size_t capacity_bytes() const noexcept { return capacity_; }
  /// Sets the byte size at which `at_capacity()` turns true (default `default_capacity_bytes`).
  void set_capacity_bytes(std::size_t bytes) noexcept { capacity_ = bytes; }

  /// Bytes `append_to` writes: the header plus every column buffer padded to 8.
  [[nodiscard]] std::size_t serialized_size() const noexcept {
    return header_bytes(buffer_count) + current().padded_bytes();
  }

  /// Appends the serialized batch (layout.hpp) to `out`: the header, then one `memcpy` per
  /// column buffer and its zero padding (`write_pieces` with an append per piece).
  /// \throws std::invalid_argument unless `out.size() % 8 == 0` (the buffers' alignment is
  /// relative to `out`'s start); whatever growing `out` throws.
  void append_to(std::vector<std::uint8_t>& out) const {
    if (out.size() % 8 != 0)
      throw std::invalid_argument("timely: columnar::Batch::append_to: the buffer holds " +
                                  std::to_string(out.size()) +
                                  " bytes, not a multiple of 8 (pad it first: column buffers must be "
                                  "8-byte aligned from its start)");
    const std::size_t need = out.size() + serialized_size();
    if (need > out.capacity()) out.reserve(std::max(need, 2 * out.capacity()));
    write_pieces(
        [&](const std::uint8_t* data, std::size_t n, bool) { out.insert(out.end(), data, data + n); });
  }

  /// Hands the serialized batch (layout.hpp, `serialized_size()` bytes in all) to `write`
  /// piece by piece, in order, as `write(const std::uint8_t* data, std::size_t n, bool lasting)`
  /// with `n > 0`: the header, then each non-empty column buffer followed by its zero padding.
  /// `lasting` is true for the column buffers, whose bytes stay valid and unchanged until this
  /// batch is next modified, cleared or dropped, and false for the header and the padding,
  /// which live only during the call. A writer with gather I/O (the cluster transport) keeps
  /// the lasting pieces by address instead of copying them. The pieces' offsets from the
  /// first are those of the layout: column buffers start at multiples of 8.
  /// \throws whatever `write` throws.
  template <class Write>
  void write_pieces(Write&& write) const {
    static constexpr std::array<std::uint8_t, 8> zeros{};
    const auto buffers = collect();
    std::array<std::uint64_t, 3 + buffer_count> header{};
    header[0] = magic_version;
    header[1] = len_;
    header[2] = buffer_count;
    for (std::size_t j = 0; j < buffer_count; ++j) header[3 + j] = buffers[j].size;
    write(reinterpret_cast<const std::uint8_t*>(header.data()), sizeof(header), false);
    for (std::size_t j = 0; j < buffer_count; ++j) {
      const auto& b = buffers[j];
      if (b.size == 0) continue;
      write(reinterpret_cast<const std::uint8_t*>(b.data), b.size, true);
      if (const std::size_t pad = pad8(b.size) - b.size; pad != 0) write(zeros.data(), pad, false);
    }
  }

  /// The batch serialized in `bytes` (exactly, nothing after it), validated once: the header,
  /// the buffer count and lengths against `T`'s layout and the item count, offsets
  /// non-decreasing and ending at their child's length, bool and optional tags 0 or 1, absent
  /// optionals' slots empty, padding zero. Afterwards reads are unchecked and stay in bounds.
  ///
  /// If `owner` is non-null and `bytes.data()` is 8-byte aligned the batch borrows `bytes`
  /// (keeping `owner` alive; nothing is allocated or copied); otherwise it makes one aligned
  /// copy of `bytes` that it owns (`borrowed()` is false).
  /// \throws LayoutError naming the column path, byte offset (within `bytes`) and problem;
  /// std::bad_alloc if the copy cannot be made.
  [[nodiscard]] static Batch from_bytes(std::span<const std::uint8_t> bytes,
                                        std::shared_ptr<const void> owner) {
    Batch out;
    const auto* base = reinterpret_cast<const unsigned char*>(bytes.data());
    const bool aligned = reinterpret_cast<std::uintptr_t>(base) % 8 == 0;
    if (owner && aligned) {
      out.borrowed_ = true;
    } else {
      const std::size_t words = (bytes.size() + 7) / 8;
      auto copy = std::make_shared_for_overwrite<std::uint64_t[]>(words == 0 ? 1 : words);
      if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
      base = reinterpret_cast<const unsigned char*>(copy.get());
      owner = std::move(copy);
    }
    std::array<std::size_t, buffer_count + 1> offsets{};
    std::array<std::size_t, buffer_count + 1> sizes{};
    const std::size_t len = parse_header(base, bytes.size(), offsets.data(), sizes.data());
    detail::Parser parser(base, offsets.data(), sizes.data(), buffer_count);
    out.view_ = Col::parse(parser, len, detail::Path{});
    out.len_ = len;
    out.owner_ = std::move(owner);
    return out;
  }

  /// Item-wise equality of the borrowed records (owned and borrowed batches compare alike).
  friend bool operator==(const Batch& a, const Batch& b) {
    if (a.len_ != b.len_) return false;
    for (std::size_t i = 0; i < a.len_; ++i)
      if (!Col::equal(a[i], b[i])) return false;
    return true;
  }

 private:
  [[nodiscard]] std::array<detail::Bytes, buffer_count + 1> collect() const noexcept {
    std::array<detail::Bytes, buffer_count + 1> buffers{};  // +1: no zero-length arrays
    detail::Bytes* out = buffers.data();
    current().collect(out);
    return buffers;
  }

  static std::string hex_word(std::uint64_t w) {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(w));
    return text;
  }
  // Reads the header of the `size` bytes at `base`, checks every buffer's extent and padding,
  // fills `offsets`/`sizes` and returns the item count.
  static std::size_t parse_header(const unsigned char* base, std::size_t size, std::size_t* offsets,
                                  std::size_t* sizes) {
    const detail::Path root{};
    if (size < 24)
      detail::fail(root, "header", size,
                   "the batch is " + std::to_string(size) + " bytes, a header needs 24");
    const auto magic = detail::load<std::uint64_t>(base, 0);
    if (magic != magic_version)
      detail::fail(root, "header", 0,
                   "the first word is " + hex_word(magic) + ", not " + hex_word(magic_version) +
                       " (\"TMLYCOL1\", the magic and version of layout 1): these bytes are not a "
                       "columnar batch of this layout");
    const auto count = detail::load<std::uint64_t>(base, 1);
    if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
      if (count > SIZE_MAX) detail::fail(root, "header", 8, "item count does not fit size_t");
    }
    if constexpr (buffer_count == 0) {
      if (count > max_empty_items)
        detail::fail(root, "header", 8,
                     "item count " + std::to_string(count) + " of a type without data exceeds " +
                         std::to_string(max_empty_items));
    }
    const auto nbuf = detail::load<std::uint64_t>(base, 2);
    if (nbuf != buffer_count)
      detail::fail(root, "header", 16,
                   "declares " + std::to_string(nbuf) + " buffers, but the layout " + Col::name() + " has " +
                       std::to_string(buffer_count));
    std::size_t at = header_bytes(buffer_count);
    if (size < at)
      detail::fail(root, "header", size,
                   "the batch is " + std::to_string(size) + " bytes, its header needs " + std::to_string(at));
    for (std::size_t j = 0; j < buffer_count; ++j) {
      const auto length = detail::load<std::uint64_t>(base, 3 + j);
      if (length > size - at)
        fail_buffer(j, 24 + 8 * j,
                    "length " + std::to_string(length) + " exceeds the " + std::to_string(size - at) +
                        " bytes left in the batch");
      const std::size_t n = static_cast<std::size_t>(length);
      if (pad8(n) > size - at)
        fail_buffer(j, size, "its padding to 8 bytes is cut off (the batch ends inside it)");
      for (std::size_t k = at + n; k < at + pad8(n); ++k)
        if (base[k] != 0) fail_buffer(j, k, "padding byte is " + std::to_string(base[k]) + ", not zero");
      offsets[j] = at;
      sizes[j] = n;
      at += pad8(n);
    }
    if (at != size)
      detail::fail(root, "header", at,
                   std::to_string(size - at) + " bytes follow the last buffer (the batch is " +
                       std::to_string(at) + " bytes)");
    return static_cast<std::size_t>(count);
  }

  [[noreturn, gnu::cold, gnu::noinline]] static void fail_buffer(std::size_t j, std::size_t offset,
                                                                 std::string problem) {
    std::vector<std::string> names;
    Col::names(detail::Path{}, names);
    throw LayoutError(j < names.size() ? names[j] : "header", offset,
                      "buffer " + std::to_string(j) + ": " + std::move(problem));
  }

  // The columns read: the parsed view of a read-only batch, else the owned columns as they are
  // now (derived on each read rather than stored, so that a push updates nothing but the
  // columns).
  [[nodiscard]] View current() const noexcept { return owner_ ? view_ : owned_.view(); }
  void reset() noexcept {
    owned_.clear();
    owner_.reset();
    borrowed_ = false;
    len_ = 0;
    view_ = View{};
  }
  // Appends src's records index[0..n) to the owned columns; on failure the columns are cut back
  // to the records they held.
  void gather(const Batch& src, const std::uint32_t* index, std::size_t n) {
    try {
      owned_.gather(src.current(), index, n);
    } catch (...) {
      cut_back();
      throw;
    }
    len_ += n;
  }
  // After a failed push or gather: the columns (some of them longer, some possibly moved to
  // new blocks) are cut back to the batch's records.
  void cut_back() noexcept { owned_.truncate(len_); }
  // Keeps the first `len` records of an owned batch.
  void truncate(std::size_t len) noexcept {
    owned_.truncate(len);
    len_ = len;
  }
  // A view becomes owned: its items are copied into the (empty) owned columns.
  void make_owned() {
    if (!owner_) return;
    Owned owned;
    for (std::size_t i = 0; i < len_; ++i) owned.push_ref(view_.get(i));
    owned_ = std::move(owned);
    owner_.reset();
    borrowed_ = false;
    view_ = View{};
  }

  Owned owned_{};
  View view_{};  // a read-only batch's columns (see current())
  std::size_t len_ = 0;
  std::shared_ptr<const void> owner_;  // non-null: a read-only view of bytes it keeps alive
  bool borrowed_ = false;              // the owner is the caller's (not our aligned copy)
  std::size_t capacity_ = default_capacity_bytes;
};

/// Sets a batch's byte capacity to `Bytes` (for `Builder`).
template <std::size_t Bytes>
struct WithCapacityBytes {
  template <class T>
  void operator()(Batch<T>& batch) const noexcept {
    batch.set_capacity_bytes(Bytes);
  }
};

/// The container builder of columnar streams: fills `Batch<T>`s until they hold `Bytes` bytes
/// (`at_capacity()`; 1 MiB by default) and hands them out in order. Name it as an operator's
/// output type: `stream | map<columnar::Builder<P>>(f)`, `unary<columnar::Builder<P, 64 << 10>>(...)`.
template <class T, std::size_t Bytes = default_capacity_bytes>
using Builder = CapacityContainerBuilder<Batch<T>, WithCapacityBytes<Bytes>>;

}  // namespace timely::container::columnar
