// timely::describe, the rendering of timestamps in error messages: every timestamp type the
// library supports prints readably, a user type through its ADL `to_string`, others as
// "<unprintable>".
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include <timely/progress/describe.hpp>
#include <timely/progress/timestamp.hpp>

#include "support/catch.hpp"

namespace user {
struct Epoch {
  std::uint32_t value;
};
std::string to_string(const Epoch& e) { return "epoch " + std::to_string(e.value); }
struct Opaque {
  int secret;
};
}  // namespace user

TEST_CASE("describe renders numbers, strings and bool", "[progress][describe]") {
  CHECK(timely::describe(std::uint64_t{42}) == "42");
  CHECK(timely::describe(-3) == "-3");
  CHECK(timely::describe(true) == "true");
  CHECK(timely::describe(std::string("abc")) == "abc");
}

TEST_CASE("describe renders the library's compound timestamps", "[progress][describe]") {
  using timely::Product;
  CHECK(timely::describe(Product<std::uint64_t, std::uint32_t>{1, 2}) == "(1, 2)");
  CHECK(timely::describe(Product<Product<std::uint64_t, std::uint64_t>, std::uint64_t>{{1, 2}, 3}) ==
        "((1, 2), 3)");
  CHECK(timely::describe(std::pair<std::uint64_t, std::int32_t>{7, -1}) == "(7, -1)");
  CHECK(timely::describe(timely::Unit{}) == "()");
}

TEST_CASE("describe renders durations with their unit", "[progress][describe]") {
  using namespace std::chrono_literals;
  CHECK(timely::describe(std::chrono::nanoseconds(3)) == "3ns");
  CHECK(timely::describe(std::chrono::microseconds(4)) == "4us");
  CHECK(timely::describe(std::chrono::milliseconds(250)) == "250ms");
  CHECK(timely::describe(std::chrono::seconds(5)) == "5s");
  CHECK(timely::describe(std::chrono::minutes(2)) == "2 x 60/1s");
  CHECK(timely::describe(timely::Product<std::chrono::milliseconds, std::uint64_t>{10ms, 1}) == "(10ms, 1)");
}

TEST_CASE("describe uses a user type's to_string, else says it cannot", "[progress][describe]") {
  CHECK(timely::describe(user::Epoch{9}) == "epoch 9");
  CHECK(timely::describe(timely::Product<user::Epoch, std::uint64_t>{{1}, 2}) == "(epoch 1, 2)");
  CHECK(timely::describe(user::Opaque{1}) == "<unprintable>");
}
