// The command-line number parser the baselines without a graph share (exchange, hashjoin): a
// decimal count, all of the text, no sign.
#pragma once

#include <cstdlib>

namespace baseline {

/// Parses `text` as a non-negative decimal into `value`. \returns false if `text` is empty, has a
/// sign or trailing characters, or is not a number.
inline bool parse_count(const char* text, unsigned long long& value) {
  char* end = nullptr;
  value = std::strtoull(text, &end, 10);
  return end != text && *end == '\0' && text[0] != '-';
}

}  // namespace baseline
