// Randomized equivalence tests for the fast paths of the progress core, each against a plain
// model of the behaviour it replaced. Fixed seeds, printed on failure.
//   * the tracker's sorted-vector/heap worklist against a binary heap that merges equal keys
//     when popping (the reference's worklist);
//   * ChangeBatch::update_sorted, the two-entry compaction and drain_raw against a map of sums;
//   * MutableAntichain's total-order shortcuts (one-element frontier maintained in place)
//     against the frontier and changes recomputed from all counts;
//   * FrontierNotificator::make_available (in-place partition, merged requests) against the
//     times a brute-force model says are complete, with capability counts checked.
#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/reachability.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "support/catch.hpp"

using timely::Product;
using timely::progress::Antichain;
using timely::progress::ChangeBatch;
using timely::progress::MutableAntichain;

namespace {

// The reference worklist: a binary min-heap of (time, loc, diff); pop merges every entry with the
// least key and skips zero sums.
template <class T>
class HeapWorklist {
 public:
  void push(const T& time, std::uint32_t loc, std::int64_t diff) { heap_.push({time, loc, diff}); }
  std::optional<std::tuple<T, std::uint32_t, std::int64_t>> pop() {
    while (!heap_.empty()) {
      auto [time, loc, diff] = heap_.top();
      heap_.pop();
      while (!heap_.empty() && std::get<0>(heap_.top()) == time && std::get<1>(heap_.top()) == loc) {
        diff += std::get<2>(heap_.top());
        heap_.pop();
      }
      if (diff != 0) return std::tuple<T, std::uint32_t, std::int64_t>{time, loc, diff};
    }
    return std::nullopt;
  }

 private:
  using E = std::tuple<T, std::uint32_t, std::int64_t>;
  struct After {
    bool operator()(const E& a, const E& b) const {
      return std::tie(std::get<0>(b), std::get<1>(b)) < std::tie(std::get<0>(a), std::get<1>(a));
    }
  };
  std::priority_queue<E, std::vector<E>, After> heap_;
};

template <class T, class Gen>
void worklist_equivalence(std::uint64_t seed, Gen gen) {
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  timely::progress::detail::Worklist<T> fast;
  HeapWorklist<T> model;
  bool saw_heap = false;
  // Phases of mostly pushing (to exceed the sorted limit now and then) and mostly popping.
  for (int phase = 0; phase < 40; ++phase) {
    const bool big = rng() % 4 == 0;
    const int pushes = big ? 40 + static_cast<int>(rng() % 120) : static_cast<int>(rng() % 12);
    const std::uint32_t locs = 1 + static_cast<std::uint32_t>(rng() % (big ? 40 : 6));
    for (int k = 0; k < pushes; ++k) {
      const T time = gen(rng);
      const auto loc = static_cast<std::uint32_t>(rng() % locs);
      const std::int64_t diff = static_cast<std::int64_t>(rng() % 5) - 2;
      fast.push(time, loc, diff);
      model.push(time, loc, diff);
      saw_heap = saw_heap || fast.heap_mode();
    }
    const int pops = rng() % 3 == 0 ? 1000 : static_cast<int>(rng() % 10);
    for (int k = 0; k < pops; ++k) {
      typename timely::progress::detail::Worklist<T>::Entry e;
      const bool got = fast.pop(e);
      const auto expected = model.pop();
      REQUIRE(got == expected.has_value());
      if (!got) break;
      REQUIRE(e.time == std::get<0>(*expected));
      REQUIRE(e.loc == std::get<1>(*expected));
      REQUIRE(e.diff == std::get<2>(*expected));
      // Propagation pushes at times >= the popped one; mimic that as well.
      if (rng() % 2 == 0) {
        const auto loc = static_cast<std::uint32_t>(rng() % locs);
        fast.push(e.time, loc, 1);
        model.push(e.time, loc, 1);
      }
    }
  }
  // Drain both completely.
  typename timely::progress::detail::Worklist<T>::Entry e;
  while (fast.pop(e)) {
    const auto expected = model.pop();
    REQUIRE(expected.has_value());
    REQUIRE(e.time == std::get<0>(*expected));
    REQUIRE(e.loc == std::get<1>(*expected));
    REQUIRE(e.diff == std::get<2>(*expected));
  }
  REQUIRE_FALSE(model.pop().has_value());
  REQUIRE_FALSE(fast.heap_mode());
  (void)saw_heap;
}

}  // namespace

TEST_CASE("tracker worklist pops exactly what a merging binary heap pops", "[progress][worklist][random]") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed)
    worklist_equivalence<std::uint64_t>(seed, [](std::mt19937_64& rng) { return rng() % 8; });
  using ProductTime = Product<std::uint64_t, std::uint64_t>;
  for (std::uint64_t seed = 500; seed < 600; ++seed)
    worklist_equivalence<ProductTime>(seed, [](std::mt19937_64& rng) {
      return ProductTime{rng() % 3, rng() % 3};
    });
}

TEST_CASE("worklist switches to a heap past its sorted limit and back when empty", "[progress][worklist]") {
  timely::progress::detail::Worklist<std::uint64_t> w;
  const auto limit =
      static_cast<std::uint32_t>(timely::progress::detail::Worklist<std::uint64_t>::kSortedLimit);
  for (std::uint32_t i = 0; i <= limit; ++i) w.push(100 - i % 7, i, 1);
  CHECK(w.heap_mode());
  timely::progress::detail::Worklist<std::uint64_t>::Entry e;
  std::uint64_t last_time = 0;
  std::uint32_t last_loc = 0;
  bool first = true;
  std::size_t popped = 0;
  while (w.pop(e)) {
    if (!first) CHECK((last_time < e.time || (last_time == e.time && last_loc < e.loc)));
    first = false;
    last_time = e.time;
    last_loc = e.loc;
    ++popped;
  }
  CHECK(popped == limit + 1);
  CHECK_FALSE(w.heap_mode());
  // Cancelling pushes vanish in sorted mode.
  w.push(5, 1, 1);
  w.push(5, 1, -1);
  CHECK(w.empty());
}

TEST_CASE("change batch sorted updates, small compaction and raw drains keep the sums",
          "[progress][change_batch][random]") {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    ChangeBatch<std::uint64_t> batch;
    std::map<std::uint64_t, std::int64_t> model;
    for (int step = 0; step < 60; ++step) {
      const std::uint64_t key = rng() % 12;
      const std::int64_t diff = static_cast<std::int64_t>(rng() % 5) - 2;
      model[key] += diff;
      switch (rng() % 4) {
        case 0:
          batch.update_sorted(key, diff);
          break;
        default:
          batch.update(key, diff);
          break;
      }
      if (rng() % 5 == 0) {
        std::map<std::uint64_t, std::int64_t> seen;
        if (rng() % 2 == 0) {
          batch.drain_raw([&](std::uint64_t k, std::int64_t d) { seen[k] += d; });
        } else {
          std::uint64_t previous = 0;
          bool first = true;
          batch.drain([&](std::uint64_t k, std::int64_t d) {
            REQUIRE(d != 0);
            if (!first) REQUIRE(previous < k);
            first = false;
            previous = k;
            seen[k] += d;
          });
        }
        for (auto it = seen.begin(); it != seen.end();) it = it->second == 0 ? seen.erase(it) : std::next(it);
        for (auto it = model.begin(); it != model.end();)
          it = it->second == 0 ? model.erase(it) : std::next(it);
        REQUIRE(seen == model);
        model.clear();
        REQUIRE(batch.empty());
      }
    }
  }
  // The two-entry compaction: every shape.
  for (std::int64_t a = -1; a <= 1; ++a)
    for (std::int64_t b = -1; b <= 1; ++b)
      for (std::uint64_t ka : {1u, 2u})
        for (std::uint64_t kb : {1u, 2u}) {
          ChangeBatch<std::uint64_t> batch;
          batch.update(ka, a);
          batch.update(kb, b);
          std::map<std::uint64_t, std::int64_t> model;
          model[ka] += a;
          model[kb] += b;
          std::vector<std::pair<std::uint64_t, std::int64_t>> expected;
          for (auto [k, d] : model)
            if (d != 0) expected.emplace_back(k, d);
          const auto& view = batch.view();
          REQUIRE(std::vector<std::pair<std::uint64_t, std::int64_t>>(view.begin(), view.end()) == expected);
        }
}

TEST_CASE("mutable antichain over a total order matches recomputation from the counts",
          "[progress][frontier][random]") {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    MutableAntichain<std::uint64_t> fast;
    std::map<std::uint64_t, std::int64_t> counts;
    std::optional<std::uint64_t> reported;  // the frontier as rebuilt from the reported changes
    for (int step = 0; step < 80; ++step) {
      std::map<std::uint64_t, std::int64_t> changes;
      auto record = [&](const std::uint64_t& t, std::int64_t d) { changes[t] += d; };
      if (rng() % 3 == 0) {
        std::vector<std::pair<std::uint64_t, std::int64_t>> batch;
        for (int k = static_cast<int>(rng() % 4); k >= 0; --k) {
          batch.emplace_back(rng() % 8, static_cast<std::int64_t>(rng() % 5) - 2);
          counts[batch.back().first] += batch.back().second;
        }
        fast.update_iter(batch, record);
      } else {
        const std::uint64_t t = rng() % 8;
        const std::int64_t d = static_cast<std::int64_t>(rng() % 5) - 2;
        counts[t] += d;
        fast.update(t, d, record);
      }
      std::optional<std::uint64_t> expected;
      for (auto [t, c] : counts)
        if (c > 0) {
          expected = t;
          break;
        }
      // The reported changes are exactly the difference between the old and new frontiers.
      std::map<std::uint64_t, std::int64_t> want;
      if (reported) want[*reported] -= 1;
      if (expected) want[*expected] += 1;
      for (auto it = want.begin(); it != want.end();) it = it->second == 0 ? want.erase(it) : std::next(it);
      for (auto it = changes.begin(); it != changes.end();)
        it = it->second == 0 ? changes.erase(it) : std::next(it);
      REQUIRE(changes == want);
      reported = expected;
      REQUIRE(fast.frontier() ==
              (expected ? Antichain<std::uint64_t>(*expected) : Antichain<std::uint64_t>()));
      for (std::uint64_t t = 0; t < 8; ++t) {
        const auto it = counts.find(t);
        REQUIRE(fast.count_for(t) == (it == counts.end() ? 0 : it->second));
      }
    }
  }
}

TEST_CASE("frontier notificator releases exactly the complete times, merged, in order",
          "[progress][notificator][random]") {
  using timely::dataflow::Capability;
  using timely::dataflow::FrontierNotificator;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto internal = std::make_shared<timely::dataflow::CapabilityCounts<std::uint64_t>>();
    FrontierNotificator<std::uint64_t> notificator;
    MutableAntichain<std::uint64_t> frontier;
    std::uint64_t low = 0;
    frontier.update_iter(std::vector<std::pair<std::uint64_t, std::int64_t>>{{low, 1}});
    const MutableAntichain<std::uint64_t>* frontiers[] = {&frontier};
    std::map<std::uint64_t, std::int64_t> requested;  // outstanding requests per time
    for (int step = 0; step < 50; ++step) {
      for (int k = static_cast<int>(rng() % 4); k > 0; --k) {
        const std::uint64_t t = low + rng() % 6;
        notificator.notify_at(Capability<std::uint64_t>(t, internal));
        requested[t] += 1;
      }
      if (rng() % 2 == 0) {
        const std::uint64_t next = low + rng() % 3;
        frontier.update_iter(std::vector<std::pair<std::uint64_t, std::int64_t>>{{low, -1}, {next, 1}});
        low = next;
      }
      std::vector<std::pair<std::uint64_t, std::int64_t>> delivered;
      while (auto n = notificator.next_count(frontiers)) delivered.emplace_back(n->first.time(), n->second);
      std::vector<std::pair<std::uint64_t, std::int64_t>> expected;
      for (auto it = requested.begin(); it != requested.end() && it->first < low;) {
        expected.emplace_back(it->first, it->second);
        it = requested.erase(it);
      }
      REQUIRE(delivered == expected);
      // Held capabilities: one per outstanding time (merged requests hold one).
      std::map<std::uint64_t, std::int64_t> held;
      for (const auto& [t, d] : internal->view()) held[t] = d;
      std::map<std::uint64_t, std::int64_t> want;
      for (const auto& [t, c] : requested) want[t] = 1;
      REQUIRE(held == want);
      REQUIRE(notificator.pending().size() == requested.size());
    }
  }
}
