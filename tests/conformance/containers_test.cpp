// Container-generic operators (SEMANTICS.md §9): one program over (u64, string) records runs
// with std::vector batches and with columnar batches, through every operator that only moves
// batches (pipeline, exchange, Tee, inspect_container, probe, concat, concatenate, branch,
// branch_when, enter/leave, feedback) and those that take an output builder (map, flat_map,
// filter, unary, binary). Both give the same records, equal to what a brute-force model
// computes, on 1, 2 and 4 workers, in both progress modes and with the serializing (-z) allocator.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/container/container.hpp>
#include <timely/dataflow/operators/branch.hpp>
#include <timely/dataflow/operators/concatenate.hpp>
#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/feedback.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/worker.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using timely::dataflow::InputCapability;
using Time = std::uint64_t;
using P = std::pair<std::uint64_t, std::string>;
using Row = std::tuple<std::string, Time, std::uint64_t, std::string>;  // (operator, time, key, text)
using VecC = std::vector<P>;
using ColC = timely::container::columnar::Batch<P>;

namespace {

constexpr Time kTimes = 4;
constexpr std::uint64_t kPerTime = 60;

/// The records worker 0 sends at time t.
P record_at(Time t, std::uint64_t i) {
  std::string text(static_cast<std::size_t>((i * 7 + t) % 6), static_cast<char>('a' + (i + t) % 26));
  return {i * 3 + t, std::move(text)};
}

template <class C>
std::vector<Row> program(timely::Worker& worker) {
  using CB = timely::container::CapacityContainerBuilder<C>;
  std::vector<Row> out;
  timely::dataflow::InputHandleCore<Time, C> input;
  timely::dataflow::ProbeHandle<Time> probe;
  std::uint64_t inspected = 0, misrouted = 0;
  const auto record = [&out](const char* name) {
    return inspect_time([&out, name](const Time& t, const auto& r) {
      out.emplace_back(name, t, std::get<0>(r), std::string(std::get<1>(r)));
    });
  };
  worker.dataflow<Time>([&](auto& scope) {
    auto s = input.to_stream(scope) | exchange([](const auto& r) { return std::get<0>(r); });
    s | record("exchange") | probe_with(probe);
    // A second consumer of the same stream: the Tee copies. It also counts records that
    // reached another worker than key % peers.
    s |
        inspect_container([&inspected, &misrouted, index = worker.index(), peers = worker.peers()](
                              const Time&, const C& batch) {
          inspected += batch.size();
          for (const auto& r : batch) misrouted += std::get<0>(r) % peers != index ? 1 : 0;
        }) |
        probe_with(probe);
    auto parts = s | branch([](const Time&, const auto& r) { return std::get<0>(r) % 2 == 1; });
    parts.first | record("branch-even") | probe_with(probe);
    parts.second | record("branch-odd") | probe_with(probe);
    auto when = s | branch_when([](const Time& t) { return t % 2 == 0; });
    when.second | record("when-even") | probe_with(probe);
    parts.first | concat(parts.second) | record("concat") | probe_with(probe);
    concatenate(scope, std::vector{parts.first, parts.second, when.first}) | record("concatenate") |
        probe_with(probe);
    s | map<CB>([](auto&& r) {
      return P{std::get<0>(r) * 10, std::string(std::get<1>(r)) + "!"};
    }) | record("map") |
        probe_with(probe);
    s | flat_map<CB>([](auto&& r) {
      std::vector<P> more;
      for (std::uint64_t i = 0; i < std::get<0>(r) % 3; ++i)
        more.emplace_back(std::get<0>(r) + i, std::string(std::get<1>(r)) + std::to_string(i));
      return more;
    }) | record("flat_map") |
        probe_with(probe);
    s | filter([](const auto& r) { return std::get<1>(r).size() >= 3; }) | record("filter") |
        probe_with(probe);
    // unary over the container: one record per batch time with the batch's key sum, exchanged to 0.
    s |
        unary<CB>(timely::dataflow::Pipeline{}, "KeySum",
                  [](auto, const auto&) {
                    return [](auto& in, auto& output) {
                      in.for_each([&](const InputCapability<Time>& cap, C& batch) {
                        std::uint64_t sum = 0;
                        for (auto&& r : batch) sum += std::get<0>(r);
                        output.session(cap).give(P{sum, "sum"});
                      });
                    };
                  }) |
        exchange([](const auto&) { return 0; }) |
        unary_notify<CB>(
            timely::dataflow::Pipeline{}, "Total", std::vector<Time>{},
            [sums = std::map<Time, std::uint64_t>{}](auto& in, auto& output, auto& notificator) mutable {
              in.for_each_time([&](const InputCapability<Time>& cap, std::vector<C>& batches) {
                for (auto& batch : batches)
                  for (auto&& r : batch) sums[cap.time()] += std::get<0>(r);
                notificator.notify_at(cap.retain());
              });
              notificator.for_each([&](timely::dataflow::Capability<Time> cap, std::int64_t, auto&) {
                output.session(cap).give(P{sums[cap.time()], "total"});
                sums.erase(cap.time());
              });
            }) |
        record("unary") | probe_with(probe);
    // binary: the odd records of one input with the even of the other, renamed.
    parts.first |
        binary<CB>(parts.second, timely::dataflow::Pipeline{}, timely::dataflow::Pipeline{}, "Both",
                   [](auto, const auto&) {
                     return [](auto& in1, auto& in2, auto& output) {
                       in1.for_each([&](const InputCapability<Time>& cap, C& batch) {
                         auto session = output.session(cap);
                         for (auto&& r : batch) session.give(P{std::get<0>(r), "left"});
                       });
                       in2.for_each([&](const InputCapability<Time>& cap, C& batch) {
                         auto session = output.session(cap);
                         for (auto&& r : batch) session.give(r);
                       });
                     };
                   }) |
        record("binary") | probe_with(probe);
    // enter, a feedback loop that counts keys down by 7 while they stay positive, and leave.
    auto looped = scope.template iterative<std::uint32_t>([&](auto& inner) {
      auto [handle, cycle] = loop_variable<CB>(inner);
      auto body = s | enter(inner) | concat(cycle);
      body | filter([](const auto& r) { return std::get<0>(r) >= 7; }) | map<CB>([](auto&& r) {
        return P{std::get<0>(r) - 7, std::string(std::get<1>(r))};
      }) | connect_loop(handle);
      return body | filter([](const auto& r) { return std::get<0>(r) < 7; }) | leave(scope);
    });
    looped | record("loop") | probe_with(probe);
  });
  for (Time t = 0; t < kTimes; ++t) {
    if (worker.index() == 0)
      for (std::uint64_t i = 0; i < kPerTime; ++i) input.send(record_at(t, i));
    input.advance_to(t + 1);
    while (probe.less_than(input.time())) worker.step();
  }
  input.close();
  while (!probe.done()) worker.step();
  out.emplace_back("inspected", 0, inspected, "");
  out.emplace_back("misrouted", 0, misrouted, "");
  return out;
}

/// What `program` must produce, computed record by record.
std::vector<Row> model() {
  std::vector<Row> out;
  std::uint64_t inspected = 0;
  for (Time t = 0; t < kTimes; ++t) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < kPerTime; ++i) {
      auto [k, text] = record_at(t, i);
      ++inspected;
      sum += k;
      out.emplace_back("exchange", t, k, text);
      out.emplace_back(k % 2 == 1 ? "branch-odd" : "branch-even", t, k, text);
      if (t % 2 == 0) out.emplace_back("when-even", t, k, text);
      out.emplace_back("concat", t, k, text);
      out.emplace_back("concatenate", t, k, text);
      if (t % 2 == 1) out.emplace_back("concatenate", t, k, text);
      out.emplace_back("map", t, k * 10, text + "!");
      for (std::uint64_t j = 0; j < k % 3; ++j)
        out.emplace_back("flat_map", t, k + j, text + std::to_string(j));
      if (text.size() >= 3) out.emplace_back("filter", t, k, text);
      out.emplace_back("binary", t, k, k % 2 == 0 ? std::string("left") : text);
      out.emplace_back("loop", t, k % 7, text);
    }
    out.emplace_back("unary", t, sum, "total");
  }
  out.emplace_back("inspected", 0, inspected, "");
  out.emplace_back("misrouted", 0, 0, "");
  std::sort(out.begin(), out.end());
  return out;
}

/// Runs `program` on `workers` threads that exchange serialized batches (the -z allocator).
template <class F>
std::vector<Row> run_zerocopy(std::size_t workers, F&& f) {
  auto config = timely::Config::process(workers);
  config.network.zerocopy = true;
  auto parts = timely::execute(config, f);
  std::vector<Row> all;
  for (auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  std::sort(all.begin(), all.end());
  return all;
}

/// Sums the per-worker "inspected" and "misrouted" rows into one each, as the model has them.
std::vector<Row> merge_inspected(std::vector<Row> rows) {
  std::uint64_t total = 0, misrouted = 0;
  std::erase_if(rows, [&](const Row& r) {
    if (std::get<0>(r) == "inspected")
      total += std::get<2>(r);
    else if (std::get<0>(r) == "misrouted")
      misrouted += std::get<2>(r);
    else
      return false;
    return true;
  });
  rows.emplace_back("inspected", 0, total, "");
  rows.emplace_back("misrouted", 0, misrouted, "");
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TEST_CASE("batch-moving and builder operators give the same records over vectors and columnar batches",
          "[conformance][containers]") {
  const auto expected = model();
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      CHECK(merge_inspected(harness::run(workers, mode, program<VecC>)) == expected);
      CHECK(merge_inspected(harness::run(workers, mode, program<ColC>)) == expected);
    }
}

TEST_CASE("columnar batches cross the serializing allocator (-z) with the same results",
          "[conformance][containers]") {
  const auto expected = model();
  for (std::size_t workers : {1u, 2u, 4u}) {
    INFO("workers " << workers);
    CHECK(merge_inspected(run_zerocopy(workers, program<ColC>)) == expected);
    CHECK(merge_inspected(run_zerocopy(workers, program<VecC>)) == expected);
  }
}

TEST_CASE("columnar builders cut batches by bytes, not by record count", "[conformance][containers]") {
  // 20,000 records of 8 + 8 + 40 bytes each: 4 KiB batches hold about 73 records.
  constexpr std::size_t kBytes = 4096;
  const auto sizes = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    using Out = timely::container::columnar::Builder<P, kBytes>;
    std::vector<std::tuple<std::size_t, bool>> seen;  // (records, within the limit)
    timely::dataflow::InputHandle<Time, std::uint64_t> input;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | map<Out>([](std::uint64_t i) {
        return P{i, std::string(40, static_cast<char>('a' + i % 26))};
      }) | inspect_container([&](const Time&, const ColC& batch) {
        // A batch is shipped by the push that reaches the limit: at most one record over it.
        seen.emplace_back(batch.size(), batch.byte_size() < kBytes + 8 + 8 + 40 + 64);
      });
    });
    if (worker.index() == 0)
      for (std::uint64_t i = 0; i < 20'000; ++i) input.send(i);
    input.close();
    while (worker.step()) {
    }
    std::size_t records = 0, full = 0;
    bool within = true;
    for (auto [n, ok] : seen) {
      records += n;
      within = within && ok;
      if (n >= 60) ++full;
    }
    std::vector<std::tuple<std::size_t, std::size_t, bool>> out;
    if (records > 0) out.emplace_back(records, full, within);  // only worker 0 has records
    return out;
  });
  REQUIRE(sizes.size() == 1);
  const auto [records, full, within] = sizes[0];
  CHECK(within);
  CHECK(records == 20'000);
  CHECK(full >= 250);  // about 270 batches, all but the last full
}
