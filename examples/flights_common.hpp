// The flights data's records, shared by the examples that read data/flights-3m.csv
// (flights.cpp, logflow.cpp): a line `YYYY-MM-DD HH:MM,delay,distance,ORG,DST` parsed into a
// `Flight` whose event time is the scheduled departure in minutes since 2001-01-01 00:00.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace flights {

using Time = std::uint64_t;  // minutes since 2001-01-01 00:00

/// A flights file that cannot be read or is not of the expected shape; the message names the
/// file (and the line).
struct FlightsFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An airport's three-letter code packed big-endian, so that codes order as their text does.
using Airport = std::uint32_t;
/// A route: origin in the high 32 bits, destination in the low.
using Route = std::uint64_t;

struct Flight {
  Time at;
  std::int32_t delay;     // minutes (negative: early)
  std::int32_t distance;  // miles
  Airport origin;
  Airport destination;
};

inline std::string airport_name(Airport a) {
  return {static_cast<char>(a >> 16), static_cast<char>((a >> 8) & 0xff), static_cast<char>(a & 0xff)};
}
inline std::string route_name(Route r) {
  return airport_name(static_cast<Airport>(r >> 32)) + "-" + airport_name(static_cast<Airport>(r));
}

/// Days before each month of 2001 (not a leap year).
inline constexpr std::array<int, 12> kMonthStart = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};

/// `2001-MM-DD HH:MM` for a minute of 2001.
inline std::string date_name(Time at) {
  const auto day = static_cast<int>(at / (24 * 60));
  std::size_t month = 0;
  while (month + 1 < kMonthStart.size() && kMonthStart[month + 1] <= day) ++month;
  char text[32];
  std::snprintf(text, sizeof text, "2001-%02zu-%02d %02d:%02d", month + 1, day - kMonthStart[month] + 1,
                static_cast<int>(at / 60 % 24), static_cast<int>(at % 60));
  return text;
}

/// Parses `YYYY-MM-DD HH:MM,delay,distance,ORG,DST`. \throws FlightsFileError naming the
/// file and line if the line is not of that shape (or not in 2001).
inline Flight parse(const std::string& line, const std::string& file, std::uint64_t line_number) {
  auto fail = [&](const char* what) -> Flight {
    throw FlightsFileError(file + ", line " + std::to_string(line_number) + ": " + what + " in '" + line +
                           "'");
  };
  auto digits = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (i >= line.size() || line[i] < '0' || line[i] > '9') return -1;
      v = v * 10 + (line[i] - '0');
    }
    return v;
  };
  if (line.size() < 17 || line[4] != '-' || line[7] != '-' || line[10] != ' ' || line[13] != ':' ||
      line[16] != ',')
    return fail("expected 'YYYY-MM-DD HH:MM,'");
  const int year = digits(0, 4), month = digits(5, 2), day = digits(8, 2), hour = digits(11, 2),
            minute = digits(14, 2);
  if (year != 2001 || month < 1 || month > 12 || day < 1 || day > 31 || hour < 0 || hour > 23 || minute < 0 ||
      minute > 59)
    return fail("a date and time in 2001 expected");
  Flight f{};
  f.at = static_cast<Time>(((kMonthStart[static_cast<std::size_t>(month - 1)] + day - 1) * 24 + hour) * 60 +
                           minute);
  std::size_t pos = 17;
  auto integer = [&](std::int32_t& out) {
    const bool negative = pos < line.size() && line[pos] == '-';
    if (negative) ++pos;
    const std::size_t begin = pos;
    std::int64_t v = 0;
    while (pos < line.size() && line[pos] >= '0' && line[pos] <= '9' && pos - begin < 9)
      v = v * 10 + (line[pos++] - '0');
    if (pos == begin || pos >= line.size() || line[pos] != ',') return false;
    ++pos;
    out = static_cast<std::int32_t>(negative ? -v : v);
    return true;
  };
  auto code = [&](Airport& out, bool last) {
    if (pos + 3 > line.size() || (last ? pos + 3 != line.size() : line[pos + 3] != ',')) return false;
    out = 0;
    for (std::size_t i = pos; i < pos + 3; ++i) {
      const char c = line[i];
      if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
      out = (out << 8) | static_cast<unsigned char>(c);
    }
    pos += 4;
    return true;
  };
  if (!integer(f.delay)) return fail("a delay in whole minutes expected");
  if (!integer(f.distance)) return fail("a distance in whole miles expected");
  if (!code(f.origin, false)) return fail("a three-letter origin expected");
  if (!code(f.destination, true)) return fail("a three-letter destination expected");
  return f;
}

}  // namespace flights
