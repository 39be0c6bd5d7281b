/// \file
/// `ChangeBatch<T>`: a lazily compacted list of `(T, std::int64_t)` updates.
///
/// Every progress quantity travels as a change batch: capability deltas, records produced and
/// consumed, frontier deltas and the pointstamp updates workers broadcast to each other.
/// Source: the reference's `progress::change_batch` (compaction rules as in SEMANTICS.md §2.2).
/// Thread-safety: none; a batch belongs to one worker at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include <timely/container/small_vector.hpp>

namespace timely::progress {

/// A list of updates `(T, diff)` that is compacted (sorted by `T`'s `operator<`, equal keys
/// summed, zeros dropped) only when read or when it grows dirty.
///
/// `T` needs `operator<` and `operator==`. Diffs are signed 64-bit counts. The first `clean_`
/// entries are known to be compacted. Appending keeps memory bounded: once there are more than
/// 32 entries and at least half are dirty, the batch compacts (so 1,000 `+1`/`-1` pairs on the
/// same key never hold more than 32 entries).
template <class T>
class ChangeBatch {
 public:
  using value_type = std::pair<T, std::int64_t>;
  static constexpr std::size_t kInline = 2;
  using Storage = container::SmallVector<value_type, kInline>;

  ChangeBatch() = default;

  /// A batch holding one update.
  ChangeBatch(T key, std::int64_t diff) { updates_.emplace_back(std::move(key), diff); }

  /// Appends `(key, diff)`; compacts if the dirty tail has grown large.
  void update(T key, std::int64_t diff) {
    updates_.emplace_back(std::move(key), diff);
    maintain_bounds();
  }

  /// Adds `diff` to `key` and leaves the batch compacted (compacting first if it was dirty): a
  /// sorted insert, cheaper than append-then-compact when the batch is read after every update.
  void update_sorted(const T& key, std::int64_t diff) {
    compact();
    const std::size_t n = updates_.size();
    value_type* data = updates_.data();
    std::size_t i = 0;
    if (n <= 8) {
      while (i < n && data[i].first < key) ++i;  // tiny: a scan beats a binary search
    } else {
      i = static_cast<std::size_t>(
          std::lower_bound(data, data + n, key,
                           [](const value_type& entry, const T& k) { return entry.first < k; }) -
          data);
    }
    if (i < n && data[i].first == key) {
      if ((data[i].second += diff) == 0) {
        // Bubble the dead entry to the back (the tail is short), then drop it.
        for (std::size_t j = i + 1; j < n; ++j) std::swap(data[j - 1], data[j]);
        updates_.pop_back();
      }
    } else if (diff != 0) {
      updates_.emplace_back(key, diff);
      data = updates_.data();
      for (std::size_t j = n; j > i; --j) std::swap(data[j], data[j - 1]);  // into place
    }
    clean_ = updates_.size();
  }

  /// Appends every `(key, diff)` of `range`.
  template <class Range>
  void extend(const Range& range) {
    for (const auto& [key, diff] : range) updates_.emplace_back(key, diff);
    maintain_bounds();
  }

  /// Whether the compacted batch is empty. Cheap when the clean prefix is over half the entries.
  [[nodiscard]] bool empty() {
    if (clean_ > updates_.size() / 2) return false;
    compact();
    return updates_.empty();
  }

  /// Number of distinct keys with non-zero diff (compacts first).
  [[nodiscard]] std::size_t size() {
    compact();
    return updates_.size();
  }

  /// The compacted updates, sorted by key.
  [[nodiscard]] const Storage& view() {
    compact();
    return updates_;
  }

  /// Moves out the compacted updates and leaves the batch empty.
  [[nodiscard]] Storage take() {
    compact();
    Storage out = std::move(updates_);
    updates_.clear();
    clean_ = 0;
    return out;
  }

  /// Calls `f(key, diff)` for every compacted update, then empties the batch.
  template <class F>
  void drain(F&& f) {
    compact();
    for (auto& [key, diff] : updates_) f(key, diff);
    updates_.clear();
    clean_ = 0;
  }

  /// Calls `f(key, diff)` for every entry as it was appended, without compacting (keys may
  /// repeat and diffs may be zero), then empties the batch. For consumers that accumulate the
  /// updates into other change batches or antichains, where only the sums matter.
  template <class F>
  void drain_raw(F&& f) {
    for (auto& [key, diff] : updates_) f(key, diff);
    updates_.clear();
    clean_ = 0;
  }

  /// The entries as appended, without compacting (keys may repeat, diffs may be zero).
  [[nodiscard]] const Storage& raw() const noexcept { return updates_; }

  /// Moves every update of this batch into `other` (a swap when `other` is empty).
  void drain_into(ChangeBatch& other) {
    if (updates_.empty()) {
      clean_ = 0;
      return;
    }
    if (other.updates_.empty() && updates_.size() > kInline) {
      // A heap-allocated buffer changes hands; small inline batches are cheaper to copy.
      std::swap(updates_, other.updates_);
      std::swap(clean_, other.clean_);
    } else {
      if (other.updates_.empty()) other.clean_ = clean_;
      for (auto& u : updates_) other.updates_.push_back(std::move(u));
      other.maintain_bounds();
    }
    updates_.clear();
    clean_ = 0;
  }

  /// Removes every update.
  void clear() noexcept {
    updates_.clear();
    clean_ = 0;
  }

  /// Sorts, merges equal keys and drops zero diffs; no-op when already clean.
  void compact() {
    if (clean_ < updates_.size()) compact_dirty();
  }

  /// Raw entries including the dirty tail; for tests and diagnostics.
  [[nodiscard]] std::size_t raw_size() const noexcept { return updates_.size(); }

  /// Semantic equality: the compacted contents are equal (compacts copies; not for hot paths).
  friend bool operator==(const ChangeBatch& a, const ChangeBatch& b) {
    ChangeBatch x = a, y = b;
    x.compact();
    y.compact();
    return x.updates_ == y.updates_;
  }

 private:
  void maintain_bounds() {
    if (updates_.size() > 32 && updates_.size() / 2 >= clean_) compact();
  }

  // The work of compact(), out of line so that the common clean case stays a single compare.
  [[gnu::noinline]] void compact_dirty() {
    if (updates_.size() == 2) {
      // The most common dirty shape (a capability moving: -1 at one time, +1 at another).
      if (updates_[0].first == updates_[1].first) {
        updates_[0].second += updates_[1].second;
        updates_.pop_back();
      } else if (updates_[1].first < updates_[0].first) {
        std::swap(updates_[0], updates_[1]);
      }
      if (updates_.back().second == 0) updates_.pop_back();
      if (!updates_.empty() && updates_.front().second == 0) updates_.erase(updates_.begin());
    } else if (updates_.size() > 1) {
      auto by_key = [](const value_type& a, const value_type& b) { return a.first < b.first; };
      if (updates_.size() <= 16) {
        // Progress batches are usually tiny: a plain insertion sort beats std::sort's set-up.
        for (std::size_t i = 1; i < updates_.size(); ++i)
          for (std::size_t j = i; j > 0 && by_key(updates_[j], updates_[j - 1]); --j)
            std::swap(updates_[j], updates_[j - 1]);
      } else {
        std::sort(updates_.begin(), updates_.end(), by_key);
      }
      std::size_t out = 0;
      for (std::size_t i = 0; i < updates_.size();) {
        std::int64_t sum = 0;
        std::size_t j = i;
        while (j < updates_.size() && updates_[j].first == updates_[i].first) sum += updates_[j++].second;
        if (sum != 0) {
          if (out != i) updates_[out].first = std::move(updates_[i].first);
          updates_[out].second = sum;
          ++out;
        }
        i = j;
      }
      updates_.erase(updates_.begin() + static_cast<std::ptrdiff_t>(out), updates_.end());
    } else if (updates_.size() == 1 && updates_[0].second == 0) {
      updates_.clear();
    }
    clean_ = updates_.size();
  }

  Storage updates_;
  std::size_t clean_ = 0;
};

}  // namespace timely::progress
