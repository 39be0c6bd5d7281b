/// \file
/// `columnar::Storage<T>`: the growable buffer of an owned column, whose blocks of 4 KiB and
/// more are recycled through a small per-thread cache instead of going back to `malloc`.
///
/// Why: a stream of columnar batches allocates a fresh set of column buffers for every batch
/// (about 1 MiB each) and frees them when the consumer drops the batch. glibc serves blocks that
/// large with `mmap` (or trims them off the heap top), so every batch would fault in fresh zeroed
/// pages: in `exchange --strings --columnar` that was a third of the time. The cache keeps
/// freed blocks per power-of-two size class, on the thread that freed them, and hands them to the
/// next allocation of that class on that thread; a worker that makes and drops its own batches
/// then reuses the same blocks. An exchange to W workers has W batches of three or more columns
/// each under way, often all of one class, so a class keeps up to 64 blocks; at most
/// `cache_bytes` are kept per thread in all, and the rest is freed. Blocks down to 4 KiB are
/// cached because the batches of an exchange to many workers are small, and glibc trims the
/// freed ones off the heap top just the same.
///
/// Source of the idea: the reference's columnar example allocates its containers in
/// word-rounded powers of two and recycles them (SEMANTICS.md §9.3, "no allocator ping-pong").
/// Thread-safety: each thread has its own cache; a block may be freed on another thread than the
/// one that allocated it (it then joins that thread's cache or is freed).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace timely::container::columnar {

namespace detail {

/// Freed blocks of one thread, by size class (class c holds blocks of 2^(12 + c) bytes).
class BlockCache {
 public:
  static constexpr std::size_t min_shift = 12;                       // 4 KiB
  static constexpr std::size_t classes = 13;                         // up to 16 MiB
  static constexpr std::size_t per_class = 64;                       // blocks kept per class
  static constexpr std::size_t cache_bytes = std::size_t{32} << 20;  // kept per thread, at most

  BlockCache() = default;
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache() {
    for (std::size_t c = 0; c < classes; ++c)
      for (std::size_t i = 0; i < counts_[c]; ++i) ::operator delete(blocks_[c][i]);
  }

  /// This thread's cache, or nullptr once the thread is being torn down (a batch destroyed
  /// then, say by a later thread_local or a static, frees its blocks directly).
  static BlockCache* mine();

  /// The size class of a block of `bytes` bytes, or `classes` when it is not cached.
  static std::size_t class_of(std::size_t bytes) noexcept {
    if (bytes < (std::size_t{1} << min_shift)) return classes;
    const std::size_t shift = static_cast<std::size_t>(std::bit_width(bytes - 1));
    return shift - min_shift < classes ? shift - min_shift : classes;
  }
  static std::size_t class_bytes(std::size_t c) noexcept { return std::size_t{1} << (min_shift + c); }

  void* take(std::size_t c) {
    if (counts_[c] == 0) return ::operator new(class_bytes(c));
    kept_ -= class_bytes(c);
    return blocks_[c][--counts_[c]];
  }
  void give(std::size_t c, void* p) noexcept {
    if (counts_[c] == per_class || kept_ + class_bytes(c) > cache_bytes) {
      ::operator delete(p);
      return;
    }
    blocks_[c][counts_[c]++] = p;
    kept_ += class_bytes(c);
  }

 private:
  std::array<std::array<void*, per_class>, classes> blocks_{};
  std::array<std::size_t, classes> counts_{};
  std::size_t kept_ = 0;
};

/// Copies `n` bytes from `s` to `d` (not overlapping); up to 16 with two possibly overlapping
/// fixed-size moves (no call, and never a byte outside either range), more with `memcpy`.
inline void copy_bytes(unsigned char* d, const unsigned char* s, std::size_t n) noexcept {
  if (n >= 8) {
    if (n <= 16) {
      std::uint64_t a, b;
      std::memcpy(&a, s, 8);
      std::memcpy(&b, s + n - 8, 8);
      std::memcpy(d, &a, 8);
      std::memcpy(d + n - 8, &b, 8);
    } else {
      std::memcpy(d, s, n);
    }
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, s, 4);
    std::memcpy(&b, s + n - 4, 4);
    std::memcpy(d, &a, 4);
    std::memcpy(d + n - 4, &b, 4);
  } else {
    for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

/// A thread's cache, and the flag that says it is gone (set before the cache is destroyed).
struct CacheOwner {
  explicit CacheOwner(bool& gone) noexcept : gone_(&gone) {}
  CacheOwner(const CacheOwner&) = delete;
  CacheOwner& operator=(const CacheOwner&) = delete;
  ~CacheOwner() { *gone_ = true; }
  bool* gone_;
  BlockCache cache;
};

inline BlockCache* BlockCache::mine() {
  thread_local bool gone = false;  // trivially destructible: readable during thread exit
  if (gone) return nullptr;
  thread_local CacheOwner owner(gone);
  return &owner.cache;
}

}  // namespace detail

/// The allocator of `Storage`: blocks below 4 KiB from `operator new`, larger ones rounded up to a
/// power of two and recycled through the thread's `BlockCache`. Stateless; all instances equal.
template <class T>
struct RecyclingAllocator {
  using value_type = T;

  RecyclingAllocator() noexcept = default;
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t c = detail::BlockCache::class_of(n * sizeof(T));
    if (c == detail::BlockCache::classes) return static_cast<T*>(::operator new(n * sizeof(T)));
    if (auto* cache = detail::BlockCache::mine()) return static_cast<T*>(cache->take(c));
    return static_cast<T*>(::operator new(detail::BlockCache::class_bytes(c)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t c = detail::BlockCache::class_of(n * sizeof(T));
    if (c == detail::BlockCache::classes)
      ::operator delete(p);
    else if (auto* cache = detail::BlockCache::mine())
      cache->give(c, p);
    else
      ::operator delete(p);
  }
  template <class U>
  bool operator==(const RecyclingAllocator<U>&) const noexcept {
    return true;
  }
};

/// An owned column's buffer: a growable array of a trivially copyable `T` whose blocks come from
/// `RecyclingAllocator` (cached blocks use their whole power-of-two size as capacity).
///
/// Why not `std::vector`: columns are filled one small item at a time, and `vector::insert` of a
/// few bytes is an out-of-line call plus a `memmove` call per item (two thirds of the time of
/// pushing `(u64, string)` records); `append` copies up to 16 bytes with a few fixed-size moves,
/// and `append_uninitialized` lets a gather write its items in place.
/// Thread-safety: a plain value.
template <class T>
class Storage {
  static_assert(std::is_trivially_copyable_v<T>, "timely: columnar::Storage holds trivially copyable items");

 public:
  using value_type = T;

  Storage() noexcept = default;
  Storage(const Storage& other) {
    if (other.size_ == 0) return;
    grow_to(other.size_);
    std::memcpy(data_, other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
  }
  Storage(Storage&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        cap_(std::exchange(other.cap_, 0)),
        hint_(std::exchange(other.hint_, 0)) {}
  Storage& operator=(const Storage& other) {
    if (this != &other) *this = Storage(other);
    return *this;
  }
  Storage& operator=(Storage&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      cap_ = std::exchange(other.cap_, 0);
      hint_ = std::exchange(other.hint_, 0);
    }
    return *this;
  }
  ~Storage() { release(); }

  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return cap_; }
  [[nodiscard]] const T& back() const noexcept { return data_[size_ - 1]; }
  [[nodiscard]] const T& operator[](std::size_t i) const noexcept { return data_[i]; }

  void clear() noexcept { size_ = 0; }
  /// Keeps the first `n` items (no-op if there are fewer).
  void truncate(std::size_t n) noexcept { size_ = std::min(size_, n); }
  /// Expects about `n` items: once the buffer grows past `jump_bytes`, it grows straight to
  /// room for `n` instead of doubling step by step. A small buffer stays small, so a batch that
  /// is shipped after a few records does not hold a full batch's memory.
  void expect(std::size_t n) noexcept { hint_ = n; }
  static constexpr std::size_t jump_bytes = 4096;
  void push_back(const T& v) {
    if (size_ == cap_) [[unlikely]]
      grow_to(size_ + 1);
    data_[size_++] = v;
  }
  /// Appends `n` items copied from `p` (which must not point into this buffer).
  void append(const T* p, std::size_t n) {
    if (n > cap_ - size_) [[unlikely]]
      grow_to(size_ + n);
    detail::copy_bytes(reinterpret_cast<unsigned char*>(data_ + size_),
                       reinterpret_cast<const unsigned char*>(p), n * sizeof(T));
    size_ += n;
  }
  /// Extends the buffer by `n` items left for the caller to write, and returns the first.
  [[nodiscard]] T* append_uninitialized(std::size_t n) {
    if (n > cap_ - size_) grow_to(size_ + n);
    T* out = data_ + size_;
    size_ += n;
    return out;
  }

 private:
  // Moves to a block of at least `need` items (and at least twice the current capacity).
  [[gnu::noinline]] void grow_to(std::size_t need) {
    constexpr std::size_t max_items = static_cast<std::size_t>(-1) / sizeof(T) / 2;
    if (need > max_items) throw std::bad_array_new_length();
    std::size_t want = std::max({need, 2 * cap_, std::size_t{64} / sizeof(T) + 1});
    if (hint_ > want && hint_ <= max_items && want * sizeof(T) >= jump_bytes) want = hint_;
    const std::size_t c = detail::BlockCache::class_of(want * sizeof(T));
    if (c != detail::BlockCache::classes) want = detail::BlockCache::class_bytes(c) / sizeof(T);
    T* block = RecyclingAllocator<T>{}.allocate(want);
    if (size_ != 0) std::memcpy(block, data_, size_ * sizeof(T));
    release();
    data_ = block;
    cap_ = want;
  }
  void release() noexcept {
    if (data_ != nullptr) RecyclingAllocator<T>{}.deallocate(data_, cap_);
    data_ = nullptr;
    cap_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
  std::size_t hint_ = 0;  // expect(): items to grow to once past jump_bytes
};

}  // namespace timely::container::columnar
