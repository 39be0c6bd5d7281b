/// \file
/// Containers: the batches records travel in. Holds the `Container` concept and
/// `default_capacity<D>()`, the number of records a batch of `D` is filled to before it is sent.
///
/// Records travel in `std::vector<D>`; other containers (columnar ones) fit behind the same
/// concept. Source: the reference's `timely_container` (SEMANTICS.md §9).
/// Thread-safety: plain values; no shared state.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <vector>

namespace timely::container {

/// A batch of records that can be counted, emptied and moved between workers.
/// Required: `c.size()` (records, for progress accounting), `c.empty()`, `c.clear()`, movability.
template <class C>
concept Container = std::movable<C> && std::default_initializable<C> && requires(C& c, const C& cc) {
  { cc.size() } -> std::convertible_to<std::size_t>;
  { cc.empty() } -> std::convertible_to<bool>;
  c.clear();
};

/// Records of type `D` per batch: about 8 KiB worth, at least 1 (the reference's default).
template <class D>
constexpr std::size_t default_capacity() noexcept {
  return std::max<std::size_t>(1, (8 * 1024) / std::max<std::size_t>(1, sizeof(D)));
}

/// Number of records in a container, as progress tracking counts them.
template <Container C>
constexpr std::size_t record_count(const C& c) {
  return static_cast<std::size_t>(c.size());
}

static_assert(Container<std::vector<int>>);

}  // namespace timely::container
