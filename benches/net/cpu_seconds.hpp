// The CPU time of the whole process, for the network benchmarks' bytes per CPU-second (a loaded
// machine disturbs it less than a wall-time rate). No timely code: loopback_copy links none.
#pragma once

#include <sys/resource.h>

namespace bench {

/// User + system CPU seconds of the whole process (all its threads) so far.
inline double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

}  // namespace bench
