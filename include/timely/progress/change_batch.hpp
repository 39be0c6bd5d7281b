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
  using Storage = container::SmallVector<value_type, 2>;

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
    auto it = std::lower_bound(updates_.begin(), updates_.end(), key,
                               [](const value_type& entry, const T& k) { return entry.first < k; });
    if (it != updates_.end() && it->first == key) {
      it->second += diff;
      if (it->second == 0) updates_.erase(it);
    } else if (diff != 0) {
      updates_.insert(it, value_type(key, diff));
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
  [[nodiscard]] bool is_empty() {
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

  /// Moves every update of this batch into `other` (a swap when `other` is empty).
  void drain_into(ChangeBatch& other) {
    if (other.updates_.empty()) {
      std::swap(updates_, other.updates_);
      std::swap(clean_, other.clean_);
    } else {
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
    if (clean_ < updates_.size() && updates_.size() > 1) {
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

  Storage updates_;
  std::size_t clean_ = 0;
};

}  // namespace timely::progress
