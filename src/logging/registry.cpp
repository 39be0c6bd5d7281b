// Registry: the type-erased bookkeeping behind named log streams.
#include <timely/logging/logger.hpp>

#include <algorithm>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace timely::logging {

bool Registry::insert_erased(const std::string& name, std::type_index type, std::shared_ptr<void> logger,
                             std::function<void(Duration)> flush) {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  if (it != entries_.end()) {
    *it = Entry{name, type, std::move(logger), std::move(flush)};
    return true;
  }
  entries_.push_back(Entry{name, type, std::move(logger), std::move(flush)});
  return false;
}

std::shared_ptr<void> Registry::find_erased(const std::string& name, std::type_index type) const {
  for (const auto& e : entries_)
    if (e.name == name && e.type == type) return e.logger;
  return nullptr;
}

bool Registry::remove(const std::string& name) {
  const auto before = entries_.size();
  std::erase_if(entries_, [&](const Entry& e) { return e.name == name; });
  return entries_.size() != before;
}

void Registry::flush() {
  if (!entries_.empty()) flush(now());
}

void Registry::flush(Duration now) {
  for (auto& e : entries_) e.flush(now);
}

bool EventClock::uses_ticks() noexcept {
#if defined(__x86_64__)
  // An invariant counter (CPUID 0x80000007, EDX bit 8) runs at a constant rate in every power
  // state; without one the ticks would not interpolate linearly.
  static const bool invariant = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d & (1u << 8)) != 0;
  }();
  return invariant;
#else
  return false;
#endif
}

}  // namespace timely::logging
