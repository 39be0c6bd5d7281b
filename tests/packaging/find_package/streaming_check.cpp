// The consumers' use of timely::streaming: the Nexmark generator (compiled into
// libtimely_streaming) makes `events` events on one worker; the caller checks that 46 of every 50
// are bids, so a consumer that links the package without the streaming library fails to link.
#include <cstdint>
#include <variant>
#include <vector>

#include <timely/streaming/nexmark/generator.hpp>

std::uint64_t nexmark_bids(std::uint64_t events) {
  timely::streaming::nexmark::GeneratorConfig config;
  config.events = events;
  timely::streaming::nexmark::Generator generator(config, 0, 1);
  std::vector<timely::streaming::nexmark::Event> out;
  while (generator.next(out, 1000) > 0) {
  }
  std::uint64_t bids = 0;
  for (const auto& event : out) bids += std::holds_alternative<timely::streaming::nexmark::Bid>(event);
  return bids;
}
