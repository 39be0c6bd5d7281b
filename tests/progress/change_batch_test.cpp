// ChangeBatch: compaction, bounded growth, draining (SEMANTICS.md §2.2).
#include <timely/progress/change_batch.hpp>

#include <cstdint>
#include <vector>

#include "support/catch.hpp"

using timely::progress::ChangeBatch;

TEST_CASE("compaction sorts, merges and drops zeros", "[progress][change_batch]") {
  ChangeBatch<int> batch;
  batch.update(5, 1);
  batch.update(3, 2);
  batch.update(5, -1);
  batch.update(3, 1);
  batch.update(9, 0);
  const auto& v = batch.view();
  REQUIRE(v.size() == 1);
  CHECK(v[0].first == 3);
  CHECK(v[0].second == 3);
  CHECK_FALSE(batch.empty());
  batch.update(3, -3);
  CHECK(batch.empty());
}

TEST_CASE("churn on one key stays bounded", "[progress][change_batch]") {
  ChangeBatch<std::uint64_t> batch;
  for (int i = 0; i < 1000; ++i) {
    batch.update(17, 1);
    batch.update(17, -1);
    CHECK(batch.raw_size() <= 32);
  }
  CHECK(batch.empty());
}

TEST_CASE("drain_into swaps into an empty batch and appends to a full one", "[progress][change_batch]") {
  ChangeBatch<int> a, b;
  a.update(1, 2);
  a.drain_into(b);
  CHECK(a.empty());
  CHECK(b.size() == 1);
  a.update(1, 3);
  a.update(2, 1);
  a.drain_into(b);
  const auto& v = b.view();
  REQUIRE(v.size() == 2);
  CHECK(v[0] == std::pair<int, std::int64_t>{1, 5});
  CHECK(v[1] == std::pair<int, std::int64_t>{2, 1});
}

TEST_CASE("drain visits compacted updates once and empties", "[progress][change_batch]") {
  ChangeBatch<int> batch;
  for (int i = 0; i < 100; ++i) batch.update(i % 7, 1);
  std::vector<std::pair<int, std::int64_t>> seen;
  batch.drain([&](int k, std::int64_t d) { seen.emplace_back(k, d); });
  REQUIRE(seen.size() == 7);
  std::int64_t total = 0;
  for (auto& [k, d] : seen) total += d;
  CHECK(total == 100);
  CHECK(batch.empty());
  CHECK(batch.raw_size() == 0);
}

TEST_CASE("equality is semantic", "[progress][change_batch]") {
  ChangeBatch<int> a, b;
  a.update(1, 1);
  a.update(2, 1);
  b.update(2, 1);
  b.update(1, 2);
  b.update(1, -1);
  CHECK(a == b);
}
