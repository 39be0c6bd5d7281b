// A columnar batch of a record with a pointer field: one static_assert naming what is supported.
// expect-error: static assertion failed: timely: columnar::Batch<T>: T has no columnar layout
// expect-errors: 1
#include <cstdint>
#include <string>
#include <vector>

#include <timely/container/columnar.hpp>

struct Node {
  std::uint64_t id;
  std::vector<const Node*> children;
};

int main() {
  timely::container::columnar::Batch<Node> batch;
  batch.push_into(Node{1, {}});
  for (auto ref : batch) (void)ref;
  std::vector<std::uint8_t> bytes;
  batch.append_to(bytes);
  return static_cast<int>(batch.size());
}
