// Chapter 9, "windows": clicks that arrive out of order are given event time by a source with
// bounded out-of-orderness, then counted in tumbling, sliding, session and count windows.
// Worker 0 sends every click, so the fate of each (on time or late) is the same on any number
// of workers. Late clicks are dropped and counted, sent to a side stream, or admitted to
// windows that emit again. Each worker returns its window results and main prints them sorted.
//   ch09_windows [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <timely/streaming/streaming.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;  // event time in seconds

struct Click {
  std::string user;
  Time at;  // when the click happened
};

int main(int argc, char** argv) {
  auto config = timely::Config::from_args(argc, argv);
  const std::vector<Click> clicks = {{"ann", 1},  {"bob", 2},  {"ann", 4},  {"ann", 3},
                                     {"bob", 12}, {"ann", 7},  {"ann", 13}, {"bob", 14},
                                     {"ann", 9},  {"bob", 25}, {"ann", 26}, {"ann", 27}};
  auto lines = timely::execute(config, [&](timely::Worker& worker) {
    std::vector<std::string> out;
    auto print = [&out](std::string kind) {
      return inspect([&out, kind](const auto& r) {
        out.push_back(kind + " " + r.key + " [" + std::to_string(r.start) + "," + std::to_string(r.end) +
                      ") " + std::to_string(r.value));
      });
    };
    timely::dataflow::InputHandle<Time, Click> input;
    std::shared_ptr<ts::SourceStats<Time>> stats;
    worker.dataflow<Time>([&](auto& scope) {
      auto timed = input.to_stream(scope) |
                   ts::event_time([](const Click& c) { return c.at; }, ts::bounded_out_of_orderness<Time>(3));
      stats = timed.stats;
      auto user = ts::by_key([](const Click& c) { return c.user; });
      timed.records | ts::window(ts::tumbling<Time>(10), user, ts::count()) | print("tumbling");
      timed.records | ts::window(ts::sliding<Time>(10, 5), user, ts::count()) | print("sliding ");
      timed.records | ts::window(ts::session<Time>(4), user, ts::count()) | print("session ");
      timed.records | ts::window(ts::count_window(2), user, ts::max([](const Click& c) { return c.at; })) |
          print("count(2)");
      // Late data, two other ways: to a side stream, or admitted up to 5 s behind the watermark.
      auto side = input.to_stream(scope) |
                  ts::event_time([](const Click& c) { return c.at; }, ts::bounded_out_of_orderness<Time>(3),
                                 ts::late_to_side_stream());
      side.late | inspect_time([&out](const Time& t, const Click& c) {
        out.push_back("late     " + c.user + " at " + std::to_string(c.at) + ", watermark " +
                      std::to_string(t));
      });
      auto admitted = input.to_stream(scope) | ts::event_time([](const Click& c) { return c.at; },
                                                              ts::bounded_out_of_orderness<Time>(3),
                                                              ts::allowed_lateness<Time>(5));
      admitted.records |
          ts::window(ts::tumbling<Time>(10), user, ts::count())
              .allowed_lateness(Time{5})
              .event_time([](const Click& c) { return c.at; }) |
          inspect_time([&out](const Time& t, const auto& r) {
            out.push_back("allowed  " + r.key + " [" + std::to_string(r.start) + "," + std::to_string(r.end) +
                          ") " + std::to_string(r.value) + " at " + std::to_string(t));
          });
    });
    if (worker.index() == 0)
      for (const auto& c : clicks) input.send(c);
    input.close();
    while (worker.step()) {
    }
    if (worker.index() == 0) out.push_back("late clicks dropped: " + std::to_string(stats->late_dropped));
    return out;
  });
  std::vector<std::string> all;
  for (auto& worker_lines : lines) all.insert(all.end(), worker_lines.begin(), worker_lines.end());
  std::sort(all.begin(), all.end());
  for (const auto& line : all) std::printf("%s\n", line.c_str());
}
