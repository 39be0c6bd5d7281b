/// \file
/// Shared pieces of the keyed operators (`aggregate`, `state_machine`): `BoostKeyHash`, the
/// default key hash (`boost::hash<K>`), and `exchange_by_key<K, V>(hash)`, the pact that sends a
/// `(K, V)` record to worker `hash(key) % peers`. Thread-safety: none needed (stateless).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include <boost/container_hash/hash.hpp>

#include <timely/dataflow/pact.hpp>

namespace timely::dataflow::operators::detail {

/// Hashes keys with `boost::hash`.
struct BoostKeyHash {
  template <class K>
  std::size_t operator()(const K& key) const {
    return boost::hash<K>{}(key);
  }
};

/// The pact that sends `(K, V)` records to worker `hash(key) % peers`.
template <class K, class V, class Hash>
auto exchange_by_key(const Hash& hash) {
  return Exchange{
      [hash](const std::pair<K, V>& record) { return static_cast<std::uint64_t>(hash(record.first)); }};
}

}  // namespace timely::dataflow::operators::detail
