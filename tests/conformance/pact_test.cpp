// The pact contract: a pact delivers every record it is given exactly once, since progress
// counts records where they are produced and where they are consumed (SEMANTICS.md §5.6).
// `Distribute` runs a user's distributor and rejects one that drops, duplicates or merges
// records with a PactError. The exchange pact's pusher, against a model: every record reaches
// the worker its route names, in the order given, at its time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/dataflow/error.hpp>

#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/execute.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using Time = std::uint64_t;

namespace {

// Sends 0..29 at times 0, 1 and 2 (10 per time, from worker 0) through `pact` into an operator
// that reports (time, record, receiving worker's parity of record) for every record it receives.
template <class Pact>
std::vector<std::pair<Time, std::uint64_t>> through(timely::Worker& worker, Pact pact) {
  std::vector<std::pair<Time, std::uint64_t>> out;
  timely::dataflow::InputHandle<Time, std::uint64_t> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | unary<std::uint64_t>(pact, "Receive", [](auto, const auto&) {
      return [](auto& in, auto& output) {
        in.for_each(
            [&](const auto& cap, std::vector<std::uint64_t>& data) { output.session(cap).give_vec(data); });
      };
    }) | inspect_time([&](const Time& t, const std::uint64_t& x) {
      out.emplace_back(t, x);
    }) | probe_with(probe);
  });
  for (Time t = 0; t < 3; ++t) {
    input.advance_to(t);
    if (worker.index() == 0)
      for (std::uint64_t x = 0; x < 10; ++x) input.send(10 * t + x / 2);  // pairs of equal records
  }
  input.close();
  while (!probe.done()) worker.step();
  return out;
}

// A worker's end of an exchange: keeps every record pushed to it with its time, and counts the
// messages and flushes.
template <class C>
struct Collect final : timely::communication::Push<timely::dataflow::Message<Time, C>> {
  std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>* records;
  std::size_t* flushes;
  Collect(std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>* r, std::size_t* f)
      : records(r), flushes(f) {}
  void push(std::optional<timely::dataflow::Message<Time, C>>& element) override {
    if (!element) {
      ++*flushes;
      return;
    }
    for (const auto& x : element->data)
      records->emplace_back(element->time,
                            std::pair<std::uint64_t, std::string>(std::get<0>(x), std::get<1>(x)));
    if (!element->recycle()) element.reset();
  }
};

// Pushes `messages` through an exchange pusher over `peers` collecting ends, routing a record
// by its key; returns what each end received.
template <class C>
std::vector<std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>> exchange_through(
    std::size_t peers,
    const std::vector<std::pair<Time, std::vector<std::pair<std::uint64_t, std::string>>>>& messages) {
  std::vector<std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>> received(peers);
  std::vector<std::size_t> flushes(peers, 0);
  std::vector<std::unique_ptr<timely::dataflow::MessagePush<Time, C>>> ends;
  for (std::size_t i = 0; i < peers; ++i)
    ends.push_back(std::make_unique<Collect<C>>(&received[i], &flushes[i]));
  auto route = [](const auto& x) { return std::get<0>(x); };
  timely::dataflow::detail::ExchangePusher<Time, C, decltype(route)> pusher(std::move(ends), route);
  for (const auto& [time, records] : messages) {
    std::optional<timely::dataflow::Message<Time, C>> slot(std::in_place);
    slot->time = time;
    for (const auto& r : records) timely::container::push_into(slot->data, r);
    pusher.push(slot);
  }
  std::optional<timely::dataflow::Message<Time, C>> flush;
  pusher.push(flush);
  for (std::size_t i = 0; i < peers; ++i)
    if (flushes[i] != 1)
      received[i].emplace_back(999, std::pair<std::uint64_t, std::string>(flushes[i], "flushes"));
  return received;
}

// Where what the workers received first differs from what they should have (empty if nowhere):
// a short message instead of Catch2 printing some 200,000 records.
std::string first_difference(
    const std::vector<std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>>& got,
    const std::vector<std::vector<std::pair<Time, std::pair<std::uint64_t, std::string>>>>& want) {
  for (std::size_t w = 0; w < want.size(); ++w) {
    const auto& a = got[w];
    const auto& b = want[w];
    for (std::size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
      const auto show = [](const auto& list, std::size_t i) {
        return i < list.size()
                   ? "(time " + std::to_string(list[i].first) + ", key " +
                         std::to_string(list[i].second.first) + ", '" + list[i].second.second + "')"
                   : std::string("nothing");
      };
      if (k >= a.size() || k >= b.size() || a[k] != b[k])
        return "worker " + std::to_string(w) + " record " + std::to_string(k) + " of " +
               std::to_string(b.size()) + ": got " + show(a, k) + ", expected " + show(b, k);
    }
  }
  return {};
}

}  // namespace

TEST_CASE("exchange routes every record to the worker its route names, in order, at its time",
          "[conformance][pact]") {
  // Random keys (so that targets interleave as they do in real data), texts of 0 to 40 bytes,
  // batches of 0 to 100,000 records (past a columnar batch's 1 MiB, so builders cut several),
  // times that repeat and change; vectors and columnar batches, 1 to 5 and 8 and 16 workers
  // (two workers have their own partitioning path).
  constexpr std::uint64_t seed = 0x9AC7'0000'0001;
  std::printf("exchange routing: seed %llu\n", static_cast<unsigned long long>(seed));
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::pair<Time, std::vector<std::pair<std::uint64_t, std::string>>>> messages;
  Time time = 0;
  for (int m = 0; m < 24; ++m) {
    if (rng() % 3 == 0) time += 1 + rng() % 2;
    const std::size_t n = m % 6 == 5 ? 100000 : rng() % 3000;
    std::vector<std::pair<std::uint64_t, std::string>> records;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t key = rng() >> (rng() % 64);
      records.emplace_back(key, std::string(rng() % 41, static_cast<char>('a' + key % 26)));
    }
    messages.emplace_back(time, std::move(records));
  }
  namespace col = timely::container::columnar;
  using Record = std::pair<std::uint64_t, std::string>;
  for (std::size_t peers : {1u, 2u, 3u, 4u, 5u, 8u, 16u}) {
    INFO("workers " << peers);
    std::vector<std::vector<std::pair<Time, Record>>> expected(peers);
    for (const auto& [t, records] : messages)
      for (const auto& r : records) expected[r.first % peers].emplace_back(t, r);
    CHECK(first_difference(exchange_through<std::vector<Record>>(peers, messages), expected).empty());
    CHECK(first_difference(exchange_through<col::Batch<Record>>(peers, messages), expected).empty());
  }
}

TEST_CASE("a distributor that routes every record once is a pact", "[conformance][pact]") {
  // Reversed routing (record r to worker peers - 1 - r % peers), reordering within a batch.
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    const std::size_t me = worker.index();
    auto pact = timely::dataflow::Distribute{[](const Time&, std::vector<std::uint64_t>& records,
                                                std::vector<std::vector<std::uint64_t>>& per_worker) {
      const std::size_t peers = per_worker.size();
      for (auto it = records.rbegin(); it != records.rend(); ++it)
        per_worker[peers - 1 - *it % peers].push_back(*it);
    }};
    auto out = through(worker, pact);
    // Every record arrived at the worker the distributor chose (a stray one fails the comparison
    // below; Catch2's assertions are not for worker threads).
    for (auto& [t, x] : out)
      if (worker.peers() - 1 - x % worker.peers() != me) t = 1000 + me;
    return out;
  });
  std::vector<std::pair<Time, std::uint64_t>> expected;
  for (Time t = 0; t < 3; ++t)
    for (std::uint64_t x = 0; x < 10; ++x) expected.emplace_back(t, 10 * t + x / 2);
  std::sort(expected.begin(), expected.end());
  REQUIRE(result == expected);
}

TEST_CASE("a distributor that consolidates records is rejected with a PactError", "[conformance][pact]") {
  // Merging equal records (as a consolidating exchange would) passes on fewer records than it
  // was given; progress would then wait for ever for the merged ones.
  auto consolidating = [](const Time&, std::vector<std::uint64_t>& records,
                          std::vector<std::vector<std::uint64_t>>& per_worker) {
    std::sort(records.begin(), records.end());
    records.erase(std::unique(records.begin(), records.end()), records.end());
    for (auto r : records) per_worker[r % per_worker.size()].push_back(r);
  };
  for (auto mode : {timely::ProgressMode::Demand, timely::ProgressMode::Eager})
    for (std::size_t workers : {1u, 2u, 4u}) {
      INFO("workers " << workers);
      REQUIRE_THROWS_AS(harness::run(workers, mode,
                                     [&](timely::Worker& worker) {
                                       return through(worker, timely::dataflow::Distribute{consolidating});
                                     }),
                        timely::PactError);
      REQUIRE_THROWS_WITH(harness::run(workers, mode,
                                       [&](timely::Worker& worker) {
                                         return through(worker, timely::dataflow::Distribute{consolidating});
                                       }),
                          Catch::Contains("given 10 record(s) at time 0") && Catch::Contains("passed on 5") &&
                              Catch::Contains("exactly once"));
    }
}

TEST_CASE("a distributor that duplicates records is rejected with a PactError", "[conformance][pact]") {
  auto duplicating = [](const Time&, std::vector<std::uint64_t>& records,
                        std::vector<std::vector<std::uint64_t>>& per_worker) {
    for (auto r : records)
      for (auto& buffer : per_worker) buffer.push_back(r);  // a broadcast is an operator, not a pact
  };
  // With one worker a copy per worker is one copy: the contract holds.
  auto one = harness::run(1, timely::ProgressMode::Demand, [&](timely::Worker& worker) {
    return through(worker, timely::dataflow::Distribute{duplicating});
  });
  CHECK(one.size() == 30);
  for (std::size_t workers : {2u, 4u}) {
    INFO("workers " << workers);
    REQUIRE_THROWS_WITH(harness::run(workers, timely::ProgressMode::Demand,
                                     [&](timely::Worker& worker) {
                                       return through(worker, timely::dataflow::Distribute{duplicating});
                                     }),
                        Catch::Contains("passed on " + std::to_string(10 * workers)));
  }
}
