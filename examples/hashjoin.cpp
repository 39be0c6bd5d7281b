// hashjoin: two inputs of random (key, value) pairs joined on key by a symmetric hash join, in
// batches; each worker prints when a batch is complete, and the total at the end.
//   hashjoin KEYS VALUES BATCH [-w N]
#include <chrono>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include <timely/timely.hpp>

#include "common.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Pair = std::pair<std::uint64_t, std::uint64_t>;

int main(int argc, char** argv) {
  return examples::guarded_main("hashjoin", "KEYS VALUES BATCH [-w N]", [&] {
    auto config = timely::Config::from_args(argc, argv);
    if (config.positional.size() != 3)
      throw examples::positional_error(config.positional, "expected KEYS VALUES BATCH");
    const auto keys = examples::parse_count(config.positional[0], "KEYS");
    const auto values = examples::parse_count(config.positional[1], "VALUES");
    const auto batch = examples::parse_count(config.positional[2], "BATCH");
    if (keys == 0 || batch == 0) throw timely::ConfigError("KEYS and BATCH must be positive");
    auto joined = timely::execute(config, [&](timely::Worker& worker) {
      const auto index = worker.index();
      const auto peers = worker.peers();
      timely::InputHandle<Time, Pair> input1, input2;
      timely::ProbeHandle<Time> probe;
      std::uint64_t matches = 0;
      worker.dataflow<Time>([&](auto& scope) {
        auto by_key = timely::Exchange{[](const Pair& p) { return p.first; }};
        auto right = input2.to_stream(scope);
        input1.to_stream(scope) | binary<Pair>(right, by_key, by_key, "HashJoin", [](auto, const auto&) {
          boost::unordered_flat_map<std::uint64_t, std::vector<std::uint64_t>> map1, map2;
          return [map1, map2](auto& in1, auto& in2, auto& out) mutable {
            in1.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Pair>& data) {
              auto session = out.session(cap);
              for (auto [key, v1] : data) {
                if (auto it = map2.find(key); it != map2.end())
                  for (auto v2 : it->second) session.give({v1, v2});
                map1[key].push_back(v1);
              }
            });
            in2.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Pair>& data) {
              auto session = out.session(cap);
              for (auto [key, v2] : data) {
                if (auto it = map1.find(key); it != map1.end())
                  for (auto v1 : it->second) session.give({v1, v2});
                map2[key].push_back(v2);
              }
            });
          };
        }) | inspect_batch([&](const Time&, const std::vector<Pair>& b) {
          matches += b.size();
        }) | probe_with(probe);
      });
      std::mt19937_64 rng(index);
      std::uniform_int_distribution<std::uint64_t> pick(0, keys - 1);
      const auto start = std::chrono::steady_clock::now();
      const std::uint64_t share = values / peers;
      for (std::uint64_t sent = 0; sent < share;) {
        const auto count = std::min(batch, share - sent);
        for (std::uint64_t i = 0; i < count; ++i) {
          input1.send({pick(rng), pick(rng)});
          input2.send({pick(rng), pick(rng)});
        }
        sent += count;
        input1.advance_to(input1.time() + 1);
        input2.advance_to(input2.time() + 1);
        while (probe.less_than(input1.time())) worker.step();
        std::printf("%.6f s\tworker %zu batch complete\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), index);
      }
      input1.close();
      input2.close();
      while (!probe.done()) worker.step();
      return matches;
    });
    std::uint64_t total = 0;
    for (auto m : joined) total += m;
    std::printf("hashjoin: %llu matches\n", static_cast<unsigned long long>(total));
  });
}
