/// \file
/// Locations in a scope's graph: `Source` (an operator output), `Target` (an operator input),
/// `Location` (either), and `Pointstamp<T>`, a time at a location, the unit that progress
/// tracking counts.
///
/// Node 0 of a scope is its boundary ("child zero"): its outputs are the scope's inputs seen from
/// inside and its inputs are the scope's outputs. Operators are nodes 1..n.
///
/// Source: Naiad §3 (pointstamps) and the reference's `progress::Location`, `Source`, `Target`
/// and its `(Location, T)` pairs (SEMANTICS.md §3.1). Plain values; thread-safe to copy.
#pragma once

#include <compare>
#include <cstddef>
#include <utility>

namespace timely::progress {

/// An operator output (or, for node 0, a scope input seen from inside).
struct Source {
  std::size_t node = 0;
  std::size_t port = 0;
  friend bool operator==(const Source&, const Source&) = default;
  friend auto operator<=>(const Source&, const Source&) = default;
};

/// An operator input (or, for node 0, a scope output seen from inside).
struct Target {
  std::size_t node = 0;
  std::size_t port = 0;
  friend bool operator==(const Target&, const Target&) = default;
  friend auto operator<=>(const Target&, const Target&) = default;
};

/// A port of a node: a `Source` when `is_source`, otherwise a `Target`.
struct Location {
  std::size_t node = 0;
  std::size_t port = 0;
  bool is_source = false;

  static Location of(Source s) { return {s.node, s.port, true}; }
  static Location of(Target t) { return {t.node, t.port, false}; }
  friend bool operator==(const Location&, const Location&) = default;
  friend auto operator<=>(const Location&, const Location&) = default;
};

/// A time at a location: what a pointstamp count (`ChangeBatch<Pointstamp<T>>`) is keyed by.
/// Ordered by location, then time.
template <class T>
using Pointstamp = std::pair<Location, T>;

}  // namespace timely::progress
