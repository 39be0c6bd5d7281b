// Chapter 1, "things to know": two behaviours worth seeing once.
//  - Sending into an InputHandle before `to_stream` has attached it to a dataflow throws.
//  - `to_stream(scope, range)` runs on every worker, so each worker sends the whole range,
//    while a record sent once through an InputHandle enters the computation once.
//   ch01_things [-w N]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;

struct Report {
  bool early_send_threw = false;
  std::vector<int> seen;
};

int main(int argc, char** argv) {
  auto reports = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    Report report;
    timely::InputHandle<std::uint64_t, int> input;
    try {
      input.send(100);  // not attached to any dataflow yet: the record would be lost
    } catch (const timely::InputError&) {
      report.early_send_threw = true;
    }

    timely::ProbeHandle<std::uint64_t> probe;
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      auto replicated = to_stream(scope, std::vector<int>{1, 2, 3});
      auto fed = input.to_stream(scope);
      auto note = [&report](int x) { report.seen.push_back(x); };
      replicated | concat(fed) | inspect(note) | probe_with(probe);
    });
    if (worker.index() == 0) input.send(100);  // attached now; sent by one worker only
    input.close();
    while (!probe.done()) worker.step();
    return report;
  });

  std::size_t threw = 0;
  std::map<int, std::size_t> times_seen;
  for (const auto& report : reports) {
    if (report.early_send_threw) ++threw;
    for (int x : report.seen) ++times_seen[x];
  }
  std::printf("workers: %zu\n", reports.size());
  std::printf("send before to_stream threw on %zu of them\n", threw);
  for (const auto& [x, n] : times_seen) std::printf("record %d seen %zu time(s)\n", x, n);
}
