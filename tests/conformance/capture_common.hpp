// Helpers shared by the capture tests: a frontier recorder, bounded stepping, temp files.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/worker.hpp>

namespace capture_test {

/// A sink recording every distinct frontier of its input of containers `C` (elements sorted), in
/// order.
template <class T, class C>
auto record_container_frontiers(std::vector<std::vector<T>>& out) {
  return timely::dataflow::operators::sink(timely::dataflow::Pipeline{}, "Frontiers", [&out](const auto&) {
    return [&out](timely::dataflow::OperatorInputCore<T, C>& input) {
      input.for_each([](const timely::dataflow::InputCapability<T>&, C&) {});
      std::vector<T> now(input.frontier().frontier().begin(), input.frontier().frontier().end());
      std::sort(now.begin(), now.end());
      if (out.empty() || out.back() != now) out.push_back(std::move(now));
    };
  });
}

/// `record_container_frontiers` of a stream of records `D` (in `std::vector<D>` batches).
template <class T, class D>
auto record_frontiers(std::vector<std::vector<T>>& out) {
  return record_container_frontiers<T, std::vector<D>>(out);
}

/// Steps `worker` while `pred()` holds, for at most `limit` of wall-clock time; returns whether
/// `pred()` ended false. A time bound, not a step count: on a loaded machine a worker may step
/// many times before a descheduled peer's progress arrives.
template <class P>
bool step_while(timely::Worker& worker, P&& pred,
                std::chrono::milliseconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (pred()) {
    if (std::chrono::steady_clock::now() > deadline) return !pred();
    worker.step();
  }
  return true;
}

/// A fresh, empty directory under the system temp directory, removed when destroyed.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            ("timely-capture-test-" + std::to_string(stamp) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] std::filesystem::path file(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace capture_test
