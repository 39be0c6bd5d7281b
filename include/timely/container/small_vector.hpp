/// \file
/// `timely::container::SmallVector<T, N>`: Boost.Container's small vector (N elements inline,
/// heap beyond), which progress bookkeeping uses for batches and antichains that usually hold
/// one or two elements.
///
/// GCC 12 reports impossible memcpy sizes inside small_vector's moves at -O2/-O3 (GCC bug 105651
/// and relatives); the code is correct, so the include is fenced to keep the false positive out
/// of users' -Werror builds. Thread-safety: a plain container.
#pragma once

#include <cstddef>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace timely::container {

/// A vector storing up to `N` elements inline.
template <class T, std::size_t N>
using SmallVector = boost::container::small_vector<T, N>;

}  // namespace timely::container
