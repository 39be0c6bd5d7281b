// Chapter 2, "probe": watching a frontier advance. Two inputs feed one stream; a probe on that
// stream reports its frontier, which is held back by whichever input is behind. Input `fast`
// moves two times per round and `slow` one. Worker 0 prints the frontier it observes before and
// after stepping; every worker advances its inputs identically, so the printed frontiers are
// the same for any number of workers.
//   ch02_probe [-w N]
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

// "{3}" for a frontier holding time 3, "{}" for the empty frontier.
std::string show(const timely::ProbeHandle<Time>& probe) {
  return probe.with_frontier([](const timely::progress::Antichain<Time>& frontier) {
    std::string out = "{";
    for (Time t : frontier) out += (out.size() > 1 ? ", " : "") + std::to_string(t);
    return out + "}";
  });
}

int main(int argc, char** argv) {
  auto parts = timely::execute_from_args(argc, argv, [](timely::Worker& worker) {
    std::vector<std::string> lines;  // what worker 0 observed
    std::map<Time, int> records;     // records seen per time on this worker
    auto note = [&](const std::string& line) {
      if (worker.index() == 0) lines.push_back(line);
    };

    timely::InputHandle<Time, int> fast, slow;
    timely::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto count = [&records](Time t, int) { ++records[t]; };
      fast.to_stream(scope) | concat(slow.to_stream(scope)) | inspect_time(count) | probe_with(probe);
    });

    note("start: frontier " + show(probe));
    for (int round = 1; round <= 3; ++round) {
      if (worker.index() == 0) {
        fast.send(round);  // at fast.time()
        slow.send(-round);
      }
      fast.advance_to(fast.time() + 2);
      slow.advance_to(slow.time() + 1);
      // advance_to only records a promise; nothing moves until the workers step.
      note("round " + std::to_string(round) + ": fast at " + std::to_string(fast.time()) + ", slow at " +
           std::to_string(slow.time()) + "; before stepping " + show(probe));
      while (probe.less_than(slow.time())) worker.step();
      note("  after stepping " + show(probe) + "; less_than(" + std::to_string(slow.time()) +
           ") = " + (probe.less_than(slow.time()) ? "true" : "false") + ", less_equal(" +
           std::to_string(slow.time()) + ") = " + (probe.less_equal(slow.time()) ? "true" : "false"));
    }

    slow.close();  // now only `fast` holds the frontier back
    while (probe.less_than(fast.time())) worker.step();
    note("slow closed: frontier " + show(probe));
    fast.close();
    while (!probe.done()) worker.step();
    note(std::string("fast closed: frontier ") + show(probe) +
         ", done() = " + (probe.done() ? "true" : "false"));
    return std::make_pair(lines, records);
  });

  for (const auto& line : parts[0].first) std::printf("%s\n", line.c_str());
  std::map<Time, int> records;
  for (const auto& [lines, seen] : parts)
    for (const auto& [t, n] : seen) records[t] += n;
  for (const auto& [t, n] : records)
    std::printf("time %llu: %d record(s)\n", static_cast<unsigned long long>(t), n);
}
