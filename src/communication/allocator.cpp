// Allocator: the members that do not depend on a channel's element type, compiled once here
// (each dispatches over the three allocator kinds).
#include <timely/communication/allocator.hpp>

#include <utility>

namespace timely::communication {

Allocator::Allocator(Thread thread) : kind_(std::move(thread)) {}
Allocator::Allocator(Process process) : kind_(std::move(process)) {}
Allocator::Allocator(Cluster cluster) : kind_(std::move(cluster)) {}
Allocator::Allocator(std::size_t index, std::shared_ptr<ProcessShared> shared)
    : kind_(Process(index, std::move(shared))) {}

Allocator Allocator::thread() { return Allocator(Thread()); }

std::size_t Allocator::index() const noexcept {
  return std::visit([](const auto& a) { return a.index(); }, kind_);
}

std::size_t Allocator::peers() const noexcept {
  return std::visit([](const auto& a) { return a.peers(); }, kind_);
}

void Allocator::receive() {
  std::visit([](auto& a) { a.receive(); }, kind_);
}

void Allocator::release() {
  std::visit([](auto& a) { a.release(); }, kind_);
}

Events& Allocator::events() noexcept {
  return std::visit([](auto& a) -> Events& { return a.events(); }, kind_);
}

void Allocator::await_events(std::optional<std::chrono::nanoseconds> timeout) {
  std::visit([&](auto& a) { a.await_events(timeout); }, kind_);
}

std::function<void()> Allocator::waker() const {
  return std::visit([](const auto& a) { return a.waker(); }, kind_);
}

std::shared_ptr<const NetworkStats> Allocator::network_stats() const noexcept {
  if (const auto* cluster = std::get_if<Cluster>(&kind_)) return cluster->network_stats();
  return nullptr;
}

bool Allocator::poisoned() const noexcept {
  return std::visit(
      [](const auto& a) {
        if constexpr (requires { a.shared(); })
          return a.shared()->poisoned();
        else
          return false;
      },
      kind_);
}

}  // namespace timely::communication
