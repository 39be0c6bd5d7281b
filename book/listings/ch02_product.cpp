// Chapter 2, "product": partially ordered timestamps. First the order itself: integers, pairs
// (lexicographic), Product (the product order), durations, path summaries and antichains.
// Then a dataflow whose frontier has two incomparable elements: inside an iterative scope (whose
// times are Product<outer, round>), an unordered input holds capabilities at (0, 5) and (1, 0).
//   ch02_product [-w N]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using P = timely::Product<Time, Time>;

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// "{(0, 5), (1, 0)}": the elements in their total order, so the text does not depend on the
// order in which the antichain happens to hold them.
template <class T>
std::string show(timely::progress::Antichain<T> frontier) {
  frontier.sort();
  std::string out = "{";
  for (const auto& t : frontier) out += (out.size() > 1 ? ", " : "") + timely::describe(t);
  return out + "}";
}

void orders() {
  using timely::less_equal;
  std::printf("u64:      3 <= 5? %s\n", yes_no(less_equal<Time>(3, 5)));
  std::printf("Product:  (1, 4) <= (2, 3)? %s  (2, 3) <= (1, 4)? %s  (1, 3) <= (2, 3)? %s\n",
              yes_no(less_equal(P{1, 4}, P{2, 3})), yes_no(less_equal(P{2, 3}, P{1, 4})),
              yes_no(less_equal(P{1, 3}, P{2, 3})));
  using Pair = std::pair<Time, Time>;
  std::printf("pair:     (1, 4) <= (2, 3)? %s  (2, 3) <= (1, 4)? %s\n",
              yes_no(less_equal(Pair{1, 4}, Pair{2, 3})), yes_no(less_equal(Pair{2, 3}, Pair{1, 4})));
  using Ms = std::chrono::milliseconds;
  std::printf("duration: 1500ms <= 2000ms? %s\n", yes_no(less_equal(Ms(1500), Ms(2000))));

  // A path summary says how a time changes along a path: (+0, +1) is "one more round".
  auto next = timely::results_in<P>(P{0, 1}, P{2, 3});
  std::printf("summary (0, 1) applied to (2, 3): %s\n", timely::describe(*next).c_str());
  auto overflow = timely::results_in<std::uint8_t>(std::uint8_t{10}, std::uint8_t{250});
  std::printf("summary 10 applied to u8 time 250: %s\n", overflow ? "a time" : "no time (overflow)");

  timely::progress::Antichain<P> frontier;
  frontier.insert(P{0, 5});
  frontier.insert(P{1, 0});
  std::printf("antichain after inserting (0, 5) and (1, 0): %s\n", show(frontier).c_str());
  const bool inserted = frontier.insert(P{1, 7});
  std::printf("insert (1, 7): %s, %s\n", inserted ? "added" : "not added, (1, 0) is below it",
              show(frontier).c_str());
  frontier.insert(P{0, 2});
  std::printf("insert (0, 2): %s\n", show(frontier).c_str());
  std::printf("less_equal((1, 3))? %s  less_equal((0, 1))? %s\n", yes_no(frontier.less_equal(P{1, 3})),
              yes_no(frontier.less_equal(P{0, 1})));
}

int main(int argc, char** argv) {
  orders();

  auto parts = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    std::vector<std::string> lines;
    std::vector<std::string> records;
    timely::ProbeHandle<P> inside;      // on the stream inside the iterative scope
    timely::ProbeHandle<Time> outside;  // on the same stream after it leaves
    auto feed = worker.dataflow<Time>([&](auto& scope) {
      return scope.template iterative<Time>([&](auto& inner) {
        auto in = new_unordered_input<std::string>(inner);
        auto note = [&records](Time t, const std::string& s) {
          records.push_back(s + " left at outer time " + std::to_string(t));
        };
        in.stream | probe_with(inside) | leave(scope) | inspect_time(note) | probe_with(outside);
        return std::move(in).feed();  // the handle and the capability; the stream stays inside
      });
    });
    auto report = [&](const char* when) {
      lines.push_back(std::string(when) + ": inside " +
                      inside.with_frontier([](auto& f) { return show(f); }) + ", outside " +
                      outside.with_frontier([](auto& f) { return show(f); }));
    };

    // Trade the initial capability at (0, 0) for two incomparable ones.
    auto at_0_5 = feed.capability.delayed(P{0, 5});
    auto at_1_0 = feed.capability.delayed(P{1, 0});
    feed.capability.reset();
    if (worker.index() == 0) {
      feed.handle.session(at_1_0).give("b");  // times in any order
      feed.handle.session(at_0_5).give("a");
    }
    while (inside.less_than(P{0, 5}) || inside.less_than(P{1, 0})) worker.step();
    report("holding (0, 5) and (1, 0)");

    at_0_5.reset();
    while (inside.less_equal(P{0, 5}) || outside.less_than(1)) worker.step();
    report("released (0, 5)");

    at_1_0.reset();
    while (!inside.done() || !outside.done()) worker.step();
    report("released (1, 0)");
    return std::make_pair(lines, records);
  });

  for (const auto& line : parts[0].first) std::printf("%s\n", line.c_str());
  std::vector<std::string> records;
  for (const auto& part : parts) records.insert(records.end(), part.second.begin(), part.second.end());
  std::sort(records.begin(), records.end());
  for (const auto& record : records) std::printf("%s\n", record.c_str());
}
