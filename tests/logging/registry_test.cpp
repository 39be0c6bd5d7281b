// Logger batching and the registry of named streams (SEMANTICS.md §8).
#include <timely/logging/logger.hpp>

#include <string>
#include <vector>

#include "support/catch.hpp"

using namespace timely::logging;

TEST_CASE("loggers batch events and flush them in order", "[logging]") {
  std::vector<int> seen;
  int batches = 0;
  Logger<int> logger(
      std::chrono::steady_clock::now(),
      [&](Duration, std::vector<std::pair<Duration, int>>& events) {
        if (!events.empty()) ++batches;
        for (auto& [t, e] : events) seen.push_back(e);
      },
      4);
  for (int i = 0; i < 10; ++i) logger.log(i);
  CHECK(seen.size() == 8);  // two full batches of four
  logger.flush();
  CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(batches == 3);
}

TEST_CASE("the registry hands out loggers by name and type", "[logging]") {
  Registry registry;
  std::vector<std::string> seen;
  CHECK_FALSE(registry.get<std::string>("timely").has_value());
  CHECK_FALSE(registry.insert<std::string>("timely", [&](Duration, auto& events) {
    for (auto& [t, e] : events) seen.push_back(e);
  }));
  CHECK_FALSE(registry.get<int>("timely").has_value());  // wrong event type
  auto logger = registry.get<std::string>("timely");
  REQUIRE(logger.has_value());
  logger->log("hello");
  registry.flush();
  CHECK(seen == std::vector<std::string>{"hello"});
  CHECK(registry.remove("timely"));
  CHECK_FALSE(registry.get<std::string>("timely").has_value());
}
