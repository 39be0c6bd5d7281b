/// \file
/// `JavaRandom`: java.util.Random's 48-bit linear congruential generator, draw for draw (the
/// Nexmark generator draws every event's fields from one, seeded as Beam seeds it, so that with
/// seed 0 our events follow Beam's draws). Public so that tests can check it against Java's own
/// values; not a general-purpose generator (its low bits are weak).
///
/// Source of the idea: the java.util.Random specification (Knuth, TAOCP vol. 2, §3.2.1).
/// Thread-safety: a plain value; one thread at a time.
#pragma once

#include <cstdint>
#include <limits>

namespace timely::streaming::nexmark {

/// java.util.Random's 48-bit linear congruential generator (Knuth, TAOCP 2 §3.2.1), draw for
/// draw: with the same seed it yields the same ints, bounded ints, longs and doubles as Java.
class JavaRandom {
 public:
  explicit JavaRandom(std::uint64_t seed) : state_((seed ^ kMultiplier) & kMask) {}

  /// Java's `nextInt()`.
  std::int32_t next_int() { return next(32); }
  /// Java's `nextInt(bound)`, bound > 0: uniform in [0, bound), by rejection.
  std::int32_t next_int(std::int32_t bound) {
    if ((bound & -bound) == bound)  // a power of two: the high bits
      return static_cast<std::int32_t>((static_cast<std::int64_t>(bound) * next(31)) >> 31);
    std::int32_t bits = 0, value = 0;
    do {
      bits = next(31);
      value = bits % bound;
      // Java rejects when bits - value + (bound - 1) overflows an int.
    } while (static_cast<std::int64_t>(bits) - value + (bound - 1) >
             std::numeric_limits<std::int32_t>::max());
    return value;
  }
  /// Java's `nextLong()`: two 32-bit draws, the low one sign-extended as Java adds it.
  std::int64_t next_long() {
    const auto high = static_cast<std::uint64_t>(static_cast<std::int64_t>(next(32))) << 32;
    const auto low = static_cast<std::uint64_t>(static_cast<std::int64_t>(next(32)));
    return static_cast<std::int64_t>(high + low);
  }
  /// Java's `nextDouble()`: 53 random bits in [0, 1).
  double next_double() {
    const auto high = static_cast<std::uint64_t>(next(26)) << 27;
    return static_cast<double>(high + static_cast<std::uint64_t>(next(27))) * 0x1.0p-53;
  }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66DULL;
  static constexpr std::uint64_t kMask = (std::uint64_t{1} << 48) - 1;

  std::int32_t next(int bits) {
    state_ = (state_ * kMultiplier + 0xBULL) & kMask;
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(state_ >> (48 - bits)));
  }

  std::uint64_t state_;
};

}  // namespace timely::streaming::nexmark
