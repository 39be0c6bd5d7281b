// A dataflow whose timestamp type is ordered but has no timely::TimestampTraits (no path summary
// type, no minimum).
// expect-error: static assertion failed: timely: the timestamp type of a dataflow must be a timely::Timestamp
// expect-errors: 1
#include <compare>

#include <timely/execute.hpp>

struct Tick {
  int value = 0;
  friend auto operator<=>(const Tick&, const Tick&) = default;
};

template <>
struct timely::PartialOrderTraits<Tick> {
  static constexpr bool total = true;
  static constexpr bool less_equal(const Tick& a, const Tick& b) noexcept { return a.value <= b.value; }
};

int main() {
  timely::execute_directly([](timely::Worker& worker) { worker.dataflow<Tick>([](auto&) {}); });
}
