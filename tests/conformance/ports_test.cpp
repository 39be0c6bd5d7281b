// Many ports in linear time (SEMANTICS.md §3.1, §3.4, §5.7): an operator with k inputs and k
// outputs where input i reaches only output i, and a scope with k streams entering and leaving
// it, at k = 10,000. Connectivity is sparse, so building and running them is linear in ports
// plus connections; each output's frontier follows its own input only.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/operator_builder.hpp>
#include <timely/dataflow/operators/enterleave.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/execute.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/worker.hpp>

#include "support/catch.hpp"
#include "support/harness.hpp"

namespace {

using Time = std::uint64_t;
using timely::dataflow::Capability;
using timely::dataflow::InputCapability;
using timely::dataflow::OperatorBuilder;
using timely::dataflow::OperatorInput;
using timely::dataflow::OperatorOutput;
using timely::dataflow::Pipeline;
using timely::dataflow::Scope;
using timely::dataflow::Stream;
using timely::progress::Antichain;
// A record (port, value); port k (the number of ports) marks a failed frontier check.
using Record = std::pair<std::uint64_t, std::uint64_t>;

// k streams: worker 0 sends value i on stream i at time 0; every worker then holds time 1 on
// every stream until `*phase` is 1 (drop stream 0) or 2 (drop all).
std::vector<Stream<Time, std::uint64_t>> source(Scope<Time>& scope, std::size_t k, const int* phase,
                                                std::shared_ptr<timely::scheduling::Activator>& activator) {
  OperatorBuilder<Time> builder(scope, "Sources");
  std::vector<OperatorOutput<Time, std::uint64_t>> outputs;
  std::vector<Stream<Time, std::uint64_t>> streams;
  for (std::size_t i = 0; i < k; ++i) {
    auto made = builder.template new_output<std::uint64_t>();
    outputs.push_back(std::move(made.handle));
    streams.push_back(std::move(made.stream));
  }
  activator = std::make_shared<timely::scheduling::Activator>(builder.activator());
  const bool sends = scope.index() == 0;
  builder.build([&](std::vector<Capability<Time>> caps) {
    return [outputs = std::move(outputs), caps = std::move(caps), phase, sends, sent = false]() mutable {
      if (!sent) {
        for (std::size_t i = 0; sends && i < caps.size(); ++i) outputs[i].session(caps[i]).give(i);
        for (auto& cap : caps) cap.downgrade(1);
        sent = true;
      }
      if (*phase >= 1 && !caps.empty() && caps[0].valid()) Capability<Time> dropped = std::move(caps[0]);
      if (*phase >= 2) caps.clear();
    };
  });
  return streams;
}

// The diagonal operator: input i reaches output i only. With `outputs_first` the outputs exist
// when each input declares its one connection (`new_input_connection`); otherwise each output
// declares the one input that reaches it (`new_output_connection`).
std::vector<Stream<Time, std::uint64_t>> diagonal(const std::vector<Stream<Time, std::uint64_t>>& in,
                                                  bool outputs_first) {
  const std::size_t k = in.size();
  OperatorBuilder<Time> builder(in.at(0).scope(), "Diagonal");
  std::vector<OperatorInput<Time, std::uint64_t>> inputs;
  std::vector<OperatorOutput<Time, std::uint64_t>> outputs;
  std::vector<Stream<Time, std::uint64_t>> streams;
  auto add_outputs = [&](bool declare) {
    for (std::size_t i = 0; i < k; ++i) {
      auto [output, stream] =
          declare ? builder.template new_output_connection<std::uint64_t>({{i, Antichain<Time>(0)}})
                  : builder.template new_output_connection<std::uint64_t>({});
      outputs.push_back(std::move(output));
      streams.push_back(std::move(stream));
    }
  };
  if (outputs_first) add_outputs(false);
  for (std::size_t i = 0; i < k; ++i)
    inputs.push_back(outputs_first
                         ? builder.new_input_connection(in[i], Pipeline{}, {{i, Antichain<Time>(0)}})
                         : builder.new_input_connection(in[i], Pipeline{}, {}));
  if (!outputs_first) add_outputs(true);
  builder.build([&](std::vector<Capability<Time>>) {
    return [inputs = std::move(inputs), outputs = std::move(outputs)]() mutable {
      for (std::size_t i = 0; i < inputs.size(); ++i)
        inputs[i].for_each([&](InputCapability<Time>& cap, std::vector<std::uint64_t>& data) {
          outputs[i].session(cap).give_vec(data);  // identity to output i only
        });
    };
  });
  return streams;
}

// Reads k streams; records (i, value) per record on stream i, and keeps the frontiers.
void sink(const std::vector<Stream<Time, std::uint64_t>>& in, std::vector<Record>& records,
          std::vector<Antichain<Time>>& frontiers) {
  OperatorBuilder<Time> builder(in.at(0).scope(), "Sink");
  std::vector<OperatorInput<Time, std::uint64_t>> inputs;
  for (const auto& stream : in) inputs.push_back(builder.new_input(stream, Pipeline{}));
  frontiers.assign(in.size(), Antichain<Time>(0));
  builder.build([&](std::vector<Capability<Time>>) {
    return [inputs = std::move(inputs), &records, &frontiers]() mutable {
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].for_each([&](InputCapability<Time>& cap, std::vector<std::uint64_t>& data) {
          for (auto x : data) records.emplace_back(i, cap.time() == 0 ? x : x + 1'000'000);
        });
        frontiers[i] = inputs[i].frontier().frontier();
      }
    };
  });
}

// Sources -> diagonal operator -> region (entered and left by k streams, a diagonal operator
// inside) -> sink. Closes stream 0 and checks that only the sink's input 0 completes, then
// closes everything and runs to completion.
std::vector<Record> ports_program(timely::Worker& worker, std::size_t k) {
  int phase = 0;
  std::shared_ptr<timely::scheduling::Activator> activator;
  std::vector<Record> records;
  std::vector<Antichain<Time>> frontiers;
  worker.dataflow<Time>([&](Scope<Time>& scope) {
    auto streams = diagonal(source(scope, k, &phase, activator), true);
    auto left = scope.region([&](Scope<Time>& region) {
      std::vector<Stream<Time, std::uint64_t>> inside;
      for (const auto& s : streams) inside.push_back(s | timely::dataflow::operators::enter(region));
      std::vector<Stream<Time, std::uint64_t>> out;
      for (const auto& s : diagonal(inside, false))
        out.push_back(s | timely::dataflow::operators::leave(scope));
      return out;
    });
    sink(left, records, frontiers);
  });
  // Until every worker's records have arrived, every sink input is at time 1 or earlier.
  const Antichain<Time> one(1);
  auto settled = [&] {
    for (const auto& f : frontiers)
      if (!(f == one)) return false;
    return true;
  };
  // Bounded by time, not steps: other workers may still be building their k-port dataflows.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!settled() && std::chrono::steady_clock::now() < deadline) worker.step();
  if (!settled()) records.emplace_back(k, 0);
  phase = 1;
  activator->activate();
  while (!frontiers[0].empty() && std::chrono::steady_clock::now() < deadline) worker.step();
  // Stream 0 is closed: the sink's input 0 is complete, and no other input moved.
  if (!frontiers[0].empty()) records.emplace_back(k, 1);
  for (std::size_t i = 1; i < k; ++i)
    if (!(frontiers[i] == one)) records.emplace_back(k, 2 + i);
  phase = 2;
  activator->activate();
  while (worker.step()) {
  }
  for (std::size_t i = 0; i < k; ++i)
    if (!frontiers[i].empty()) records.emplace_back(k, 2 + k + i);
  return records;
}

std::vector<Record> expected(std::size_t k) {
  std::vector<Record> out;
  for (std::size_t i = 0; i < k; ++i) out.emplace_back(i, i);
  return out;
}

}  // namespace

TEST_CASE("10,000 ports: each output follows its own input, through an operator and a scope",
          "[conformance][ports][scale]") {
  constexpr std::size_t k = 10'000;
  const auto start = std::chrono::steady_clock::now();
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers << (mode == timely::ProgressMode::Eager ? " eager" : " demand"));
      const auto result = harness::run(workers, mode, [](timely::Worker& w) { return ports_program(w, k); });
      // Failed checks, as (k, what): 0 not settled at 1, 1 input 0 not complete, 2 + i input i
      // moved with input 0, 2 + k + i input i not complete at the end.
      std::string failures;
      for (const auto& [port, value] : result)
        if (port == k && failures.size() < 200) failures += " " + std::to_string(value);
      INFO("failed checks:" << failures);
      CHECK(failures.empty());
      CHECK(result == expected(k));
    }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO("6 runs (1, 2 and 4 workers, both progress modes) took " << seconds << " s");
  // Linear work takes seconds; a dense k x k connectivity needs ~10^8 antichains per worker.
  CHECK(seconds < 240.0);
}

TEST_CASE("ports: time grows linearly from 100 to 10,000 ports", "[conformance][ports][scale]") {
  double seconds[3] = {};
  const std::size_t ks[3] = {100, 1'000, 10'000};
  for (int n = 0; n < 3; ++n) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = harness::run(1, timely::ProgressMode::Demand,
                                     [k = ks[n]](timely::Worker& w) { return ports_program(w, k); });
    seconds[n] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(result == expected(ks[n]));
    std::cout << "ports: k = " << ks[n] << ": " << seconds[n] << " s\n";
  }
  INFO("k = 1000: " << seconds[1] << " s, k = 10000: " << seconds[2] << " s");
  // Quadratic work would make the tenfold k a hundred times slower; allow 30x for noise.
  CHECK(seconds[2] < 30 * seconds[1] + 1.0);
}
