// Timestamps and path summaries: minimums, overflow, the product order (SEMANTICS.md §1).
#include <timely/progress/order.hpp>
#include <timely/progress/timestamp.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>

#include "support/catch.hpp"

using timely::Product;

TEST_CASE("integer minimums are the type's least value", "[progress][order]") {
  STATIC_REQUIRE(timely::minimum<std::uint32_t>() == 0);
  STATIC_REQUIRE(timely::minimum<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  STATIC_REQUIRE(timely::minimum<std::int8_t>() == -128);
  STATIC_REQUIRE(timely::minimum<Product<std::int32_t, std::uint8_t>>() ==
                 Product<std::int32_t, std::uint8_t>{std::numeric_limits<std::int32_t>::min(), 0});
}

TEST_CASE("integer summaries add with overflow checking", "[progress][order]") {
  CHECK(timely::results_in<std::uint64_t>(2, 3) == 5u);
  CHECK_FALSE(
      timely::results_in<std::uint64_t>(std::numeric_limits<std::uint64_t>::max() - 2, 3).has_value());
  CHECK(timely::results_in<std::int32_t>(-4, 3) == -1);
  CHECK_FALSE(timely::results_in<std::int8_t>(1, 127).has_value());
  CHECK(timely::followed_by<std::uint16_t>(3, 4) == 7);
  CHECK_FALSE(timely::followed_by<std::uint16_t>(65535, 1).has_value());
  CHECK(timely::results_in<std::uint64_t>(std::uint64_t{}, 9) == 9u);  // default = identity
}

TEST_CASE("the product order is partial and the total order extends it", "[progress][order]") {
  using P = Product<std::uint64_t, std::uint64_t>;
  const P a{1, 2}, b{2, 1}, c{2, 3};
  CHECK_FALSE(timely::less_equal(a, b));
  CHECK_FALSE(timely::less_equal(b, a));
  CHECK(timely::less_equal(a, c));
  CHECK(timely::less_than(a, c));
  CHECK_FALSE(timely::less_than(a, a));
  CHECK(timely::less_equal(a, a));
  // Every pair related in the partial order is related the same way in the total order.
  for (std::uint64_t x1 = 0; x1 < 3; ++x1)
    for (std::uint64_t y1 = 0; y1 < 3; ++y1)
      for (std::uint64_t x2 = 0; x2 < 3; ++x2)
        for (std::uint64_t y2 = 0; y2 < 3; ++y2) {
          const P p{x1, y1}, q{x2, y2};
          if (timely::less_equal(p, q)) CHECK_FALSE(q < p);
        }
  STATIC_REQUIRE_FALSE(timely::TotalOrder<P>);
  STATIC_REQUIRE(timely::TotalOrder<std::uint32_t>);
}

TEST_CASE("product summaries apply per coordinate and fail if either fails", "[progress][order]") {
  using P = Product<std::uint64_t, std::uint32_t>;
  using S = timely::SummaryOf<P>;
  CHECK(timely::results_in<P>(S{0, 1}, P{5, 7}) == P{5, 8});
  CHECK_FALSE(timely::results_in<P>(S{0, 1}, P{5, std::numeric_limits<std::uint32_t>::max()}).has_value());
  CHECK(timely::followed_by<P>(S{1, 2}, S{3, 4}) == S{4, 6});
  STATIC_REQUIRE(timely::Timestamp<P>);
  STATIC_REQUIRE(timely::Timestamp<Product<P, std::uint8_t>>);
}

TEST_CASE("durations are totally ordered timestamps starting at zero", "[progress][order]") {
  using D = std::chrono::milliseconds;
  STATIC_REQUIRE(timely::Timestamp<D>);
  STATIC_REQUIRE(timely::TotalOrder<D>);
  STATIC_REQUIRE(timely::RefinesTo<D, timely::Unit>);
  CHECK(timely::minimum<D>() == D::zero());
  CHECK(timely::results_in<D>(D(5), D(7)) == D(12));
  CHECK_FALSE(timely::results_in<D>(D(1), D::max()).has_value());
}

TEST_CASE("pairs are ordered lexicographically, unlike products", "[progress][order]") {
  using P = std::pair<std::uint64_t, std::uint64_t>;
  STATIC_REQUIRE(timely::Timestamp<P>);
  STATIC_REQUIRE(timely::TotalOrder<P>);
  CHECK(timely::less_equal(P{1, 9}, P{2, 0}));  // not related in the product order
  CHECK_FALSE(timely::less_equal(timely::Product<std::uint64_t, std::uint64_t>{1, 9},
                                 timely::Product<std::uint64_t, std::uint64_t>{2, 0}));
  CHECK(timely::less_equal(P{2, 3}, P{2, 3}));
  CHECK_FALSE(timely::less_equal(P{2, 4}, P{2, 3}));
  CHECK(timely::results_in<P>(P{0, 1}, P{4, 4}) == P{4, 5});
  CHECK(timely::minimum<P>() == P{0, 0});
}
