// Antichain and MutableAntichain (SEMANTICS.md §2.1, §2.3).
#include <timely/progress/frontier.hpp>
#include <timely/progress/timestamp.hpp>

#include <cstdint>
#include <random>
#include <vector>

#include "support/catch.hpp"

using timely::Product;
using timely::progress::Antichain;
using timely::progress::MutableAntichain;
using P = Product<std::uint64_t, std::uint64_t>;

TEST_CASE("antichain insertion keeps minimal elements", "[progress][frontier]") {
  Antichain<P> a;
  CHECK(a.insert(P{2, 2}));
  CHECK_FALSE(a.insert(P{3, 3}));  // dominated
  CHECK(a.insert(P{1, 5}));        // incomparable
  CHECK(a.size() == 2);
  CHECK(a.insert(P{1, 1}));  // dominates both
  CHECK(a.size() == 1);
  CHECK(a == Antichain<P>{P{1, 1}});
  CHECK(Antichain<P>{P{1, 2}, P{2, 1}} == Antichain<P>{P{2, 1}, P{1, 2}});
}

TEST_CASE("the empty antichain is complete: no time is beyond it", "[progress][frontier]") {
  Antichain<std::uint64_t> empty;
  CHECK_FALSE(empty.less_equal(0));
  CHECK_FALSE(empty.less_than(1000));
  Antichain<std::uint64_t> three(3);
  CHECK(three.less_equal(3));
  CHECK_FALSE(three.less_than(3));
  CHECK(three.less_than(4));
  CHECK_FALSE(three.less_equal(2));
  CHECK(three.dominates(empty));  // every antichain is <= the empty one
  CHECK_FALSE(empty.dominates(three));
}

TEST_CASE("mutable antichain reports discrete frontier changes", "[progress][frontier]") {
  MutableAntichain<std::uint64_t> m;
  CHECK(m.empty());
  std::vector<std::pair<std::uint64_t, std::int64_t>> changes;
  auto record = [&](std::uint64_t t, std::int64_t d) { changes.emplace_back(t, d); };
  m.update(5, 2, record);
  CHECK(changes == std::vector<std::pair<std::uint64_t, std::int64_t>>{{5, 1}});
  changes.clear();
  m.update(7, 1, record);  // beyond the frontier: nothing changes
  CHECK(changes.empty());
  m.update(5, -1, record);  // still one at 5
  CHECK(changes.empty());
  m.update(5, -1, record);
  CHECK(changes == std::vector<std::pair<std::uint64_t, std::int64_t>>{{5, -1}, {7, 1}});
  changes.clear();
  // A removal and re-addition in one batch cancel out.
  std::vector<std::pair<std::uint64_t, std::int64_t>> batch{{7, -1}, {7, 1}};
  m.update_iter(batch, record);
  CHECK(changes.empty());
  CHECK(m.frontier() == Antichain<std::uint64_t>(7));
}

TEST_CASE("negative counts never enter the frontier", "[progress][frontier]") {
  MutableAntichain<std::uint64_t> m;
  m.update_iter(std::vector<std::pair<std::uint64_t, std::int64_t>>{{3, -1}, {4, 1}});
  CHECK(m.frontier() == Antichain<std::uint64_t>(4));
  m.update_iter(std::vector<std::pair<std::uint64_t, std::int64_t>>{{3, 2}});
  CHECK(m.frontier() == Antichain<std::uint64_t>(3));
  CHECK(m.count_for(3) == 1);
}

TEST_CASE("mutable antichain matches a recomputed frontier under random updates", "[progress][frontier]") {
  const std::uint64_t seed = GENERATE(1u, 2u, 3u, 42u, 1234u);
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  MutableAntichain<P> m;
  std::vector<std::vector<std::int64_t>> counts(4, std::vector<std::int64_t>(4, 0));
  std::vector<std::pair<P, std::int64_t>> accumulated;  // frontier reconstructed from changes
  MutableAntichain<P> from_changes;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::pair<P, std::int64_t>> batch;
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) {
      const P t{rng() % 4, rng() % 4};
      const std::int64_t d = static_cast<std::int64_t>(rng() % 5) - 2;
      batch.emplace_back(t, d);
      counts[t.outer][t.inner] += d;
    }
    std::vector<std::pair<P, std::int64_t>> changes;
    m.update_iter(batch, [&](const P& t, std::int64_t d) { changes.emplace_back(t, d); });
    from_changes.update_iter(changes);
    Antichain<P> expected;
    for (std::uint64_t a = 0; a < 4; ++a)
      for (std::uint64_t b = 0; b < 4; ++b)
        if (counts[a][b] > 0) expected.insert(P{a, b});
    REQUIRE(m.frontier() == expected);
    REQUIRE(from_changes.frontier() == expected);
  }
}
