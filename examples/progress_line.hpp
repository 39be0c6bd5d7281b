// A progress line for long example runs: "NAME: 42% (2.1e+06 of 5e+06 bytes, 3.2 s)" on
// standard error, redrawn in place at most five times a second, first after one second (short
// runs never show it; EXAMPLES_PROGRESS_AFTER_MS changes the delay), erased when the run ends.
// Only when standard error is a terminal, and not with --quiet: redirected output and logs never
// see it. Worker 0 draws it for its own share.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace examples {

class ProgressLine {
 public:
  /// A line for `total` units of `unit` (say "lines"); drawn only if `enabled`.
  ProgressLine(std::string name, std::string unit, double total, bool enabled)
      : name_(std::move(name)),
        unit_(std::move(unit)),
        total_(total),
        enabled_(enabled && total > 0 && isatty(STDERR_FILENO) == 1),
        start_(std::chrono::steady_clock::now()),
        next_(start_ + first_draw()) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { finish(); }

  /// Reports `done` units complete; cheap unless a redraw is due.
  void update(double done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    next_ = now + std::chrono::milliseconds(200);
    const double seconds = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%s: %3.0f%% (%s of %s %s, %.1f s)\033[K", name_.c_str(), 100.0 * done / total_,
                 number(done).c_str(), number(total_).c_str(), unit_.c_str(), seconds);
    std::fflush(stderr);
    drawn_ = true;
  }
  /// Erases the line, if it was drawn.
  void finish() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  // One second, or EXAMPLES_PROGRESS_AFTER_MS milliseconds (the tests draw at once).
  static std::chrono::milliseconds first_draw() {
    const char* after = std::getenv("EXAMPLES_PROGRESS_AFTER_MS");
    return std::chrono::milliseconds(after ? std::strtoll(after, nullptr, 10) : 1000);
  }
  // Whole numbers up to a million, three significant digits above.
  static std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, x < 1e6 ? "%.0f" : "%.3g", x);
    return text;
  }

  std::string name_, unit_;
  double total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, next_;
};

}  // namespace examples
