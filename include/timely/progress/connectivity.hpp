/// \file
/// An operator's internal connectivity, stored sparsely: `PortConnectivity<S>` maps each port an
/// input reaches (or, seen from an output, each input that reaches it) to the antichain of path
/// summaries along which it does, and `Connectivity<S>` holds one per input. A missing port
/// means "not connected", so an operator with k inputs and k outputs where input i reaches only
/// output i costs k entries, not k * k.
///
/// Source: the reference's `progress::operate::{PortConnectivity, Connectivity}` (SEMANTICS.md
/// §3.1). Thread-safety: none (plain values).
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/progress/frontier.hpp>

namespace timely::progress {

/// A sorted map from port to a non-empty antichain of path summaries `S`.
///
/// Lookups are binary searches; adding ports in increasing order (as builders do) appends.
/// Entries whose antichain is empty are never stored: an empty antichain means "not connected".
template <class S>
class PortConnectivity {
 public:
  using Entry = std::pair<std::size_t, Antichain<S>>;

  PortConnectivity() = default;
  /// The given `(port, summaries)` pairs; summaries for a repeated port are merged and empty
  /// antichains are dropped.
  PortConnectivity(std::initializer_list<Entry> entries) {
    for (const auto& [port, summaries] : entries) add_port(port, summaries);
  }
  template <class Range>
  requires(!std::is_same_v<std::remove_cvref_t<Range>, PortConnectivity>) explicit PortConnectivity(
      const Range& entries) {
    for (const auto& [port, summaries] : entries) add_port(port, summaries);
  }

  /// Adds every summary of `summaries` to those of `port` (keeping the antichain minimal).
  void add_port(std::size_t port, const Antichain<S>& summaries) {
    if (summaries.empty()) return;
    auto it = find(port);
    if (it != entries_.end() && it->first == port) {
      for (const auto& s : summaries) it->second.insert(s);
    } else {
      entries_.insert(it, Entry{port, summaries});
    }
  }
  /// Adds one summary to those of `port`. \returns whether it changed the antichain.
  bool insert(std::size_t port, const S& summary) {
    auto it = find(port);
    if (it != entries_.end() && it->first == port) return it->second.insert(summary);
    entries_.insert(it, Entry{port, Antichain<S>(summary)});
    return true;
  }
  /// Replaces the summaries of `port` (an empty antichain disconnects it).
  void set_port(std::size_t port, Antichain<S> summaries) {
    auto it = find(port);
    const bool present = it != entries_.end() && it->first == port;
    if (summaries.empty()) {
      if (present) entries_.erase(it);
    } else if (present) {
      it->second = std::move(summaries);
    } else {
      entries_.insert(it, Entry{port, std::move(summaries)});
    }
  }

  /// The summaries to `port`, or null when it is not connected.
  [[nodiscard]] const Antichain<S>* get(std::size_t port) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), port,
                               [](const Entry& e, std::size_t p) { return e.first < p; });
    return it != entries_.end() && it->first == port ? &it->second : nullptr;
  }

  /// The connected ports in increasing order, each with its (non-empty) antichain.
  [[nodiscard]] auto begin() const noexcept { return entries_.begin(); }
  [[nodiscard]] auto end() const noexcept { return entries_.end(); }
  /// The number of connected ports.
  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  /// The largest connected port plus one (0 when nothing is connected).
  [[nodiscard]] std::size_t port_bound() const noexcept {
    return entries_.empty() ? 0 : entries_.back().first + 1;
  }

  friend bool operator==(const PortConnectivity& a, const PortConnectivity& b) {
    return a.entries_ == b.entries_;
  }

 private:
  typename std::vector<Entry>::iterator find(std::size_t port) {
    if (entries_.empty() || entries_.back().first < port) return entries_.end();
    return std::lower_bound(entries_.begin(), entries_.end(), port,
                            [](const Entry& e, std::size_t p) { return e.first < p; });
  }

  std::vector<Entry> entries_;
};

/// Internal connectivity of an operator: per input, the outputs it reaches and the path
/// summaries along which it does.
template <class S>
using Connectivity = std::vector<PortConnectivity<S>>;

/// Connectivity with the identity summary from every input to every output (the builders'
/// default), `inputs * outputs` entries.
template <class S>
Connectivity<S> identity_connectivity(std::size_t inputs, std::size_t outputs) {
  PortConnectivity<S> all;
  for (std::size_t o = 0; o < outputs; ++o) all.insert(o, S{});
  return Connectivity<S>(inputs, all);
}

}  // namespace timely::progress
