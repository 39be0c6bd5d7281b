/// \file
/// Columns of variable-length items: `std::string` and byte vectors (end offsets plus one byte
/// buffer; borrowed as `std::string_view` / `std::span<const E>`) and `std::vector<T>` (end
/// offsets plus the column of all the elements; borrowed as `VectorRef<T>`, a random-access
/// range of the elements' borrowed type). Also `detail::IndexIterator`, the iterator of batches
/// and of `VectorRef`. Part of the columnar container family (timely/container/columnar.hpp;
/// the column protocol is in kinds.hpp). Thread-safety: plain values.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/columnar/kinds.hpp>
#include <timely/container/columnar/layout.hpp>
#include <timely/container/columnar/storage.hpp>

namespace timely::container::columnar {
namespace detail {

/// A random-access iterator over positions `i` of something read by `Getter` (a small copyable
/// object with `operator()(std::size_t) const`), yielding what it returns by value: borrowed
/// items, never owned copies. Valid while what `Getter` reads is.
template <class Getter>
class IndexIterator {
 public:
  using value_type = std::remove_cvref_t<decltype(std::declval<const Getter&>()(std::size_t{}))>;
  using reference = value_type;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  using iterator_concept = std::random_access_iterator_tag;
  using iterator_category = std::input_iterator_tag;  // yields values, not references

  IndexIterator() = default;
  IndexIterator(const Getter& get, std::size_t i) noexcept : get_(get), i_(static_cast<difference_type>(i)) {}

  [[nodiscard]] reference operator*() const { return get_(static_cast<std::size_t>(i_)); }
  [[nodiscard]] reference operator[](difference_type n) const {
    return get_(static_cast<std::size_t>(i_ + n));
  }
  IndexIterator& operator++() noexcept { return ++i_, *this; }
  IndexIterator operator++(int) noexcept { return IndexIterator(get_, i_++, 0); }
  IndexIterator& operator--() noexcept { return --i_, *this; }
  IndexIterator operator--(int) noexcept { return IndexIterator(get_, i_--, 0); }
  IndexIterator& operator+=(difference_type n) noexcept { return i_ += n, *this; }
  IndexIterator& operator-=(difference_type n) noexcept { return i_ -= n, *this; }
  friend IndexIterator operator+(IndexIterator it, difference_type n) noexcept { return it += n; }
  friend IndexIterator operator+(difference_type n, IndexIterator it) noexcept { return it += n; }
  friend IndexIterator operator-(IndexIterator it, difference_type n) noexcept { return it -= n; }
  friend difference_type operator-(const IndexIterator& a, const IndexIterator& b) noexcept {
    return a.i_ - b.i_;
  }
  friend bool operator==(const IndexIterator& a, const IndexIterator& b) noexcept { return a.i_ == b.i_; }
  friend std::strong_ordering operator<=>(const IndexIterator& a, const IndexIterator& b) noexcept {
    return a.i_ <=> b.i_;
  }

 private:
  IndexIterator(const Getter& get, difference_type i, int) noexcept : get_(get), i_(i) {}
  Getter get_{};
  difference_type i_ = 0;
};

/// End offsets plus one byte buffer: the layout of strings and byte vectors. `T` is the owned
/// type, `Ref` the borrowed one, built from a pointer and a length by `make_ref`.
template <class T, class Ref_, Ref_ (*make_ref)(const unsigned char*, std::size_t)>
struct ByteColumn {
  using Ref = Ref_;
  static constexpr std::size_t buffers = 2;

  struct View {
    const unsigned char* ends = nullptr;
    std::size_t len = 0;
    const unsigned char* bytes = nullptr;
    std::size_t nbytes = 0;
    [[nodiscard]] std::size_t start(std::size_t i) const noexcept {
      return i == 0 ? 0 : static_cast<std::size_t>(load<std::uint64_t>(ends, i - 1));
    }
    [[nodiscard]] Ref get(std::size_t i) const noexcept {
      const std::size_t s = start(i);
      return make_ref(bytes + s, static_cast<std::size_t>(load<std::uint64_t>(ends, i)) - s);
    }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept {
      return start(i) == load<std::uint64_t>(ends, i);
    }
    void collect(Bytes*& out) const noexcept {
      *out++ = Bytes{ends, len * 8};
      *out++ = Bytes{bytes, nbytes};
    }
    [[nodiscard]] std::size_t padded_bytes() const noexcept { return len * 8 + pad8(nbytes); }
  };

  struct Owned {
    Storage<std::uint64_t> ends;
    Storage<unsigned char> bytes;
    void append(const void* data, std::size_t n) {
      bytes.append(static_cast<const unsigned char*>(data), n);
      ends.push_back(bytes.size());
    }
    void push(const T& v) { append(v.data(), v.size() * sizeof(typename T::value_type)); }
    void push_ref(const Ref& r) { append(r.data(), r.size()); }
    void push_default() { ends.push_back(bytes.size()); }
    // Two passes: the first sums the bytes, so that the byte buffer grows once and the copying
    // loop works on locals only (its stores go through byte pointers, which the compiler must
    // assume could change any member, forcing reloads). Items of up to 16 bytes are copied as
    // one fixed 16-byte move (no branch on the length) where the source has 16 readable bytes
    // and the destination's capacity 16 writable ones (bytes past the end are overwritten later).
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      if (n == 0) return;
      const View from = src;
      std::size_t total = 0;
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = index[k];
        total += static_cast<std::size_t>(load<std::uint64_t>(from.ends, i)) - from.start(i);
      }
      std::uint64_t* out = ends.append_uninitialized(n);
      std::uint64_t end = bytes.size();
      unsigned char* dst = bytes.append_uninitialized(total);
      const unsigned char* const limit = bytes.data() + bytes.capacity();
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = index[k];
        const std::size_t s = from.start(i);
        const std::size_t len = static_cast<std::size_t>(load<std::uint64_t>(from.ends, i)) - s;
        if (len <= 16 && from.nbytes - s >= 16 && limit - dst >= 16) [[likely]]
          std::memcpy(dst, from.bytes + s, 16);
        else
          copy_bytes(dst, from.bytes + s, len);
        dst += len;
        end += len;
        out[k] = end;
      }
    }
    void clear() noexcept { ends.clear(), bytes.clear(); }
    void expect_bytes(const std::size_t*& sizes) noexcept {
      ends.expect(*sizes++ / 8);
      bytes.expect(*sizes++);
    }
    void truncate(std::size_t len) noexcept {
      if (len > ends.size()) return;
      bytes.truncate(len == 0 ? 0 : static_cast<std::size_t>(ends[len - 1]));
      ends.truncate(len);
    }
    [[nodiscard]] View view() const noexcept {
      return View{reinterpret_cast<const unsigned char*>(ends.data()), ends.size(), bytes.data(),
                  bytes.size()};
    }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    const Buffer ends = p.next();
    const Buffer bytes = p.next();
    const std::size_t last = check_ends(ends, len, path);
    if (last != bytes.size)
      fail(path, "bytes", bytes.offset,
           "holds " + std::to_string(bytes.size) + " bytes, but the offsets end at " + std::to_string(last));
    return View{ends.data, len, bytes.data, bytes.size};
  }
  static bool equal(const Ref& a, const Ref& b) noexcept {
    return a.size() == b.size() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size()) == 0);
  }
  static void names(const Path& path, std::vector<std::string>& out) {
    out.push_back(path.render("offsets"));
    out.push_back(path.render("bytes"));
  }
};

inline std::string_view make_string_view(const unsigned char* p, std::size_t n) noexcept {
  return {reinterpret_cast<const char*>(p), n};
}
template <class E>
std::span<const E> make_span(const unsigned char* p, std::size_t n) noexcept {
  return {reinterpret_cast<const E*>(p), n};
}

template <>
struct Col<std::string, Kind::string> : ByteColumn<std::string, std::string_view, &make_string_view> {
  static std::string to_owned(std::string_view r) { return std::string(r); }
  static std::string name() { return "string"; }
};

template <class E>
struct Col<std::vector<E>, Kind::bytes> : ByteColumn<std::vector<E>, std::span<const E>, &make_span<E>> {
  static std::vector<E> to_owned(std::span<const E> r) { return std::vector<E>(r.begin(), r.end()); }
  static std::string name() { return "bytes"; }
};

}  // namespace detail

/// The borrowed form of a `std::vector<T>` item: a random-access range of `RefOf<T>` read in
/// place (no element is copied into an owned `T`). Valid while the batch it came from is alive
/// and unmodified (a moved batch keeps its storage, so its refs stay valid).
template <class T>
class VectorRef {
  using Items = typename detail::Col<T>::View;
  struct Getter {
    Items items{};
    std::size_t start = 0;
    RefOf<T> operator()(std::size_t i) const { return items.get(start + i); }
  };

 public:
  using value_type = RefOf<T>;
  using iterator = detail::IndexIterator<Getter>;
  using const_iterator = iterator;

  VectorRef() = default;
  /// Elements `start .. start + size` of the element column `items`.
  VectorRef(const Items& items, std::size_t start, std::size_t size) noexcept
      : get_{items, start}, size_(size) {}

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// Element `i` (unchecked: `i < size()`).
  [[nodiscard]] value_type operator[](std::size_t i) const { return get_(i); }
  [[nodiscard]] iterator begin() const noexcept { return iterator(get_, 0); }
  [[nodiscard]] iterator end() const noexcept { return iterator(get_, size_); }

  /// Element-wise equality of the borrowed items.
  friend bool operator==(const VectorRef& a, const VectorRef& b) {
    if (a.size_ != b.size_) return false;
    for (std::size_t i = 0; i < a.size_; ++i)
      if (!detail::Col<T>::equal(a[i], b[i])) return false;
    return true;
  }

 private:
  Getter get_{};
  std::size_t size_ = 0;
};

namespace detail {

/// `std::vector<T>`: end offsets plus the column of every item's elements, one after another.
template <class E>
struct Col<std::vector<E>, Kind::vector> {
  using Ref = VectorRef<E>;
  using Items = Col<E>;
  static constexpr std::size_t buffers = 1 + Items::buffers;

  struct View {
    const unsigned char* ends = nullptr;
    std::size_t len = 0;
    typename Items::View items{};
    [[nodiscard]] std::size_t start(std::size_t i) const noexcept {
      return i == 0 ? 0 : static_cast<std::size_t>(load<std::uint64_t>(ends, i - 1));
    }
    [[nodiscard]] Ref get(std::size_t i) const noexcept {
      const std::size_t s = start(i);
      return Ref(items, s, static_cast<std::size_t>(load<std::uint64_t>(ends, i)) - s);
    }
    [[nodiscard]] bool is_default(std::size_t i) const noexcept {
      return start(i) == load<std::uint64_t>(ends, i);
    }
    void collect(Bytes*& out) const noexcept {
      *out++ = Bytes{ends, len * 8};
      items.collect(out);
    }
    [[nodiscard]] std::size_t padded_bytes() const noexcept { return len * 8 + items.padded_bytes(); }
  };

  struct Owned {
    Storage<std::uint64_t> ends;
    typename Items::Owned items;
    [[nodiscard]] std::uint64_t last() const noexcept { return ends.empty() ? 0 : ends.back(); }
    void push(const std::vector<E>& v) {
      for (const E& x : v) items.push(x);
      ends.push_back(last() + v.size());
    }
    void push_ref(const Ref& r) {
      for (std::size_t i = 0; i < r.size(); ++i) items.push_ref(r[i]);
      ends.push_back(last() + r.size());
    }
    void push_default() { ends.push_back(last()); }
    void gather(const View& src, const std::uint32_t* index, std::size_t n) {
      for (std::size_t k = 0; k < n; ++k) push_ref(src.get(index[k]));
    }
    void clear() noexcept { ends.clear(), items.clear(); }
    void expect_bytes(const std::size_t*& sizes) noexcept {
      ends.expect(*sizes++ / 8);
      items.expect_bytes(sizes);
    }
    void truncate(std::size_t len) noexcept {
      if (len > ends.size()) return;
      items.truncate(len == 0 ? 0 : static_cast<std::size_t>(ends[len - 1]));
      ends.truncate(len);
    }
    [[nodiscard]] View view() const noexcept {
      return View{reinterpret_cast<const unsigned char*>(ends.data()), ends.size(), items.view()};
    }
  };

  static View parse(Parser& p, std::size_t len, const Path& path) {
    const Buffer ends = p.next();
    const std::size_t last = check_ends(ends, len, path);
    if constexpr (Items::buffers == 0) {
      if (last > max_empty_items)
        fail(path, "offsets", ends.offset,
             "the vectors hold " + std::to_string(last) + " items of a type without data, more than " +
                 std::to_string(max_empty_items));
    }
    const Path child{&path, "items"};
    return View{ends.data, len, Items::parse(p, last, child)};
  }
  static std::vector<E> to_owned(const Ref& r) {
    std::vector<E> out;
    out.reserve(r.size());
    for (std::size_t i = 0; i < r.size(); ++i) out.push_back(Items::to_owned(r[i]));
    return out;
  }
  static bool equal(const Ref& a, const Ref& b) { return a == b; }
  static std::string name() { return "vec<" + Items::name() + ">"; }
  static void names(const Path& path, std::vector<std::string>& out) {
    out.push_back(path.render("offsets"));
    Items::names(Path{&path, "items"}, out);
  }
};

}  // namespace detail
}  // namespace timely::container::columnar
