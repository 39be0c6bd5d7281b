// Logger batching and the registry of named streams (SEMANTICS.md §8).
#include <timely/logging/logger.hpp>

#include <chrono>
#include <cstddef>
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

TEST_CASE("event times are ordered, at or after the previous flush, and at most the batch's now",
          "[logging]") {
  // The logger stamps with the time-stamp counter where it can and converts at each
  // publication: the times must still read as the steady clock does.
  const auto start = std::chrono::steady_clock::now();
  Duration previous_now{0};
  Duration last_time{0};
  std::size_t events = 0;
  std::size_t batches = 0;
  Logger<int> logger(
      start,
      [&](Duration now, std::vector<std::pair<Duration, int>>& batch) {
        CHECK(now >= previous_now);
        for (auto& [time, e] : batch) {
          CHECK(time >= previous_now);  // not before the flush that preceded it
          CHECK(time >= last_time);
          CHECK(time <= now);
          last_time = time;
          ++events;
        }
        const auto after = std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start);
        CHECK(now <= after);
        if (!batch.empty()) ++batches;
        previous_now = now;
      },
      16);
  for (int round = 0; round < 50; ++round) {
    const auto before = std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start);
    for (int i = 0; i < 7; ++i) logger.log(i);
    // Spin a little so that the clock moves between rounds; the events' times then move too.
    while (std::chrono::steady_clock::now() - start - before < std::chrono::microseconds(20)) {
    }
    if (round % 3 == 0) logger.flush();
    CHECK(last_time <= std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start));
  }
  logger.flush();
  CHECK(events == 350);
  CHECK(batches > 1);
  CHECK(last_time > Duration(0));
  // Reading a timestamp of the last round: within the run, not stuck at a boundary.
  CHECK(last_time >= Duration(std::chrono::microseconds(20 * 40)));
}
