// Registry: the type-erased bookkeeping behind named log streams.
#include <timely/logging/logger.hpp>

#include <algorithm>

namespace timely::logging {

bool Registry::insert_erased(const std::string& name, std::type_index type, std::shared_ptr<void> logger,
                             std::function<void()> flush) {
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
  for (auto& e : entries_) e.flush();
}

}  // namespace timely::logging
