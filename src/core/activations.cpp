// Activations: the members run once per step (advance, empty_for) or per cross-thread activation,
// compiled once here instead of in every program that includes activations.hpp.
#include <timely/scheduling/activations.hpp>

#include <algorithm>
#include <mutex>
#include <utility>

namespace timely::scheduling {

void SyncActivations::activate(Path path) {
  {
    std::lock_guard lock(mutex_);
    paths_.push_back(std::move(path));
  }
  if (wake_) wake_();
}

void SyncActivations::drain(std::vector<Path>& out) {
  std::lock_guard lock(mutex_);
  for (auto& p : paths_) out.push_back(std::move(p));
  paths_.clear();
}

Activations::Activations() : sync_(std::make_shared<SyncActivations>(nullptr)) {}

Activations::Activations(std::function<void()> wake)
    : sync_(std::make_shared<SyncActivations>(std::move(wake))) {}

void Activations::advance() {
  std::swap(current_, pending_);
  pending_.clear();
  sync_->drain(scratch_);
  for (auto& p : scratch_) current_.add(p);
  scratch_.clear();
  if (!timed_.empty()) {
    const auto now = Clock::now();
    while (!timed_.empty() && timed_.top().due <= now) {
      current_.add(timed_.top().path);
      timed_.pop();
    }
  }
  current_.sort_unique();
}

std::optional<Activations::Clock::duration> Activations::empty_for() const {
  if (!pending_.slices.empty()) return Clock::duration::zero();
  if (timed_.empty()) return std::nullopt;
  const auto now = Clock::now();
  return timed_.top().due > now ? timed_.top().due - now : Clock::duration::zero();
}

void Activations::PathList::sort_unique() {
  auto less = [&](const Slice& a, const Slice& b) {
    const auto x = view(a), y = view(b);
    return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
  };
  std::sort(slices.begin(), slices.end(), less);
  slices.erase(std::unique(slices.begin(), slices.end(),
                           [&](const Slice& a, const Slice& b) { return !less(a, b) && !less(b, a); }),
               slices.end());
}

}  // namespace timely::scheduling
