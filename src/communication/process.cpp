// ProcessShared (include/timely/communication/process.hpp): mailboxes of channel events,
// parking with an optional spin, the rendezvous where worker threads meet to create a channel,
// and the poison flag.
#include <timely/communication/process.hpp>

#include <algorithm>
#include <thread>

#include <boost/core/demangle.hpp>

#include <timely/communication/error.hpp>

namespace timely::communication {

std::string demangled_name(const std::type_info& type) { return boost::core::demangle(type.name()); }

std::pair<std::string, std::string> excerpts_around_difference(const std::string& a, const std::string& b,
                                                               std::size_t width) {
  const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  const auto at = static_cast<std::size_t>(mismatch.first - a.begin());
  // Start a little before the difference, so that the excerpt shows what it belongs to.
  const std::size_t from = at > width / 3 ? at - width / 3 : 0;
  const auto cut = [&](const std::string& s) {
    if (s.size() <= width) return s;
    std::string out = from == 0 ? "" : "...";
    out += s.substr(std::min(from, s.size()), width);
    if (from + width < s.size()) out += "...";
    return out;
  };
  return {cut(a), cut(b)};
}

namespace {
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

ProcessShared::ProcessShared(std::size_t threads) {
  if (threads == 0) throw ConfigError("timely: a process needs at least one worker thread (threads = 0)");
  mailboxes_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) mailboxes_.push_back(std::make_unique<Mailbox>());
}

void ProcessShared::notify(std::size_t target, std::size_t channel) {
  auto& box = *mailboxes_[target];
  bool was_empty = false;
  {
    std::lock_guard lock(box.mutex);
    was_empty = box.ids.empty();
    box.ids.push_back(channel);
    box.nonempty.store(true, std::memory_order_release);
  }
  // Only the empty->non-empty edge needs a wake-up: a non-empty mailbox will be drained before
  // its owner parks.
  if (was_empty) box.buzzer.buzz();
}

void ProcessShared::drain(std::size_t index, std::vector<std::size_t>& out) {
  auto& box = *mailboxes_[index];
  std::lock_guard lock(box.mutex);
  out.insert(out.end(), box.ids.begin(), box.ids.end());
  box.nonempty.store(false, std::memory_order_relaxed);
  box.ids.clear();
}

bool ProcessShared::pending(std::size_t index) {
  auto& box = *mailboxes_[index];
  std::lock_guard lock(box.mutex);
  return !box.ids.empty();
}

void ProcessShared::park(std::size_t index, std::optional<std::chrono::nanoseconds> timeout) {
  if (poisoned() || pending(index)) return;
  auto& box = *mailboxes_[index];
  if (spinning_ && (!timeout || *timeout > spin)) {
    const auto until = std::chrono::steady_clock::now() + spin;
    for (unsigned round = 1;; ++round) {
      if (box.nonempty.load(std::memory_order_acquire) || poisoned()) return;
      if (box.buzzer.maybe_buzzed()) break;  // park() consumes the token and returns at once
      for (int i = 0; i < 16; ++i) cpu_relax();
      if (round % 8 == 0) {
        if (std::chrono::steady_clock::now() >= until) break;
        std::this_thread::yield();  // with more workers than cores, let the others run
      }
    }
  }
  box.buzzer.park(timeout);
}

std::shared_ptr<void> ProcessShared::rendezvous(std::size_t channel, std::type_index type,
                                                const std::function<std::shared_ptr<void>()>& make) {
  std::lock_guard lock(rendezvous_mutex_);
  auto it =
      std::find_if(meetings_.begin(), meetings_.end(), [&](const auto& m) { return m.first == channel; });
  if (it == meetings_.end()) {
    meetings_.emplace_back(channel, Meeting{make(), type, 0});
    it = std::prev(meetings_.end());
  } else if (it->second.type != type) {
    const auto [first, second] = excerpts_around_difference(boost::core::demangle(it->second.type.name()),
                                                            boost::core::demangle(type.name()));
    throw DataflowError("timely: workers allocated channel " + std::to_string(channel) +
                        " with different types (" + first + " against " + second +
                        "): every worker must build the same dataflows in the same order");
  }
  auto bundle = it->second.bundle;
  if (++it->second.arrived == threads()) meetings_.erase(it);
  return bundle;
}

void ProcessShared::fail(std::exception_ptr error) {
  {
    std::lock_guard lock(failure_mutex_);
    if (!failure_) failure_ = std::move(error);
  }
  poison();
}

std::exception_ptr ProcessShared::failure() const {
  std::lock_guard lock(failure_mutex_);
  return failure_;
}

void ProcessShared::poison() {
  poisoned_.store(true, std::memory_order_release);
  for (auto& box : mailboxes_) box->buzzer.buzz();
}

}  // namespace timely::communication
