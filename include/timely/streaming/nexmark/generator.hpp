/// \file
/// The Nexmark event generator: `GeneratorConfig` (its parameters, with the Beam defaults),
/// the pure functions of an event id (`event_kind`, `event_time_of`, `make_event`), the
/// delivery order (`event_id_at`, `watermark_at`: the out-of-order groups), and `Generator`, one
/// worker's share of the event sequence.
///
/// # The model (after the Beam/Flink Nexmark generator; our own code)
///
/// Events are numbered by an id `0, 1, ..., events - 1`. Everything about event `id` is a pure
/// function of `(config, id)`:
///   - its kind: `id % 50` below 1 is a person, below 4 an auction, else a bid (1 : 3 : 46);
///   - its event time: `base_time + floor(id * 1000 / rate)` ms (`rate` events per second of
///     event time, over all workers);
///   - its fields, drawn from a `java.util.Random`-compatible generator (java_random.hpp) in
///     Beam's order, seeded with `id` when `seed == 0` (exactly Beam's `new Random(eventId)`)
///     and with a full 64-bit mix of `(seed, id)` otherwise:
///     person and auction ids count up from 1000 by kind; bids pick a hot auction (the first of
///     the last block of 100 auctions) with probability `1 - 1/hot_auction_ratio`, else one of
///     the last `in_flight_auctions` auctions (plus up to 10 not yet created); bidders and sellers
///     likewise among the hot people (block of 100; bidders the second of it) or the last
///     `active_people` people (plus up to 10 ahead); prices `round(10^(6u) * 100)` cents for a
///     uniform `u` in [0, 1); categories 10-14; reserve = initial bid + another price; auctions
///     last `1 + uniform[0, 2h)` ms, `h` the event time until `in_flight_auctions` more auctions
///     exist; names, cities and states from the standard lists; `extra` random letters with
///     length uniform in `avg - size +- 20 %`, so events average the configured byte sizes.
///
/// Delivery order (Beam's `outOfOrderGroupSize` g): position `n` of the stream delivers the
/// event with id `floor(n/g)*g + (n * 953) % g`, a permutation within each group of g positions;
/// g = 1 (the default) delivers in id order. The last group, when `events % g != 0`, is
/// delivered in id order (Beam would emit ids past the end there). No event delivered at or
/// after position n has an event time before `watermark_at(n) = event_time_of(floor(n/g)*g)`.
///
/// # Work split (scaling with workers)
///
/// Positions are cut into blocks of 50 (one full 1 : 3 : 46 cycle); block `b` belongs to worker
/// `b % peers`. So every worker generates exact proportions, all workers move through event time
/// together (a worker is at most `50 * peers` events ahead of another), and no state is shared:
/// the union of the shares of 1, 2, 4, ... workers is the same set of events.
///
/// # Where ours differs from Beam's
///   - One timeline: Beam splits ids over `numEventGenerators` (100) generators that each run
///     the whole event-time range at `rate / 100`, multiplying the inter-event delay by 100; here
///     all workers share one timeline, so `in_flight_auctions` and `active_people` are global and
///     an auction lasts (on average) as long as `in_flight_auctions` auctions take to create at
///     the global rate (Beam with `numEventGenerators = 1`).
///   - Exact event times: `id * 1000 / rate` in integers; Beam rounds the delay to whole
///     microseconds first (so Beam's rates above 1 M/s degenerate).
///   - The seed: Beam has none (the id is the seed), and Java's first draws from consecutive
///     seeds are correlated: with seed 0 (Beam's draws) only about 36 % of bids pick the hot
///     auction, not the nominal 1 - 1/2, and other first draws skew likewise. Any other seed
///     mixes `(seed, id)` into the per-event seed, which gives the nominal probabilities.
///   - Prices: `10^x` via std::pow, which may differ from Java's `Math.pow` in the last bit.
///   - No `probDelayedEvent`/`occasionalDelaySec`: Beam's unbounded source holds random events
///     back in wall-clock time with a thread-local (unseeded) random; that is not deterministic,
///     so we model the out-of-order groups only. Rate shapes (sine, square) are not modelled.
///   - Bids have no `channel`/`url` fields (queries 13-22 of later versions).
///
/// Thread-safety: the functions are pure; a `Generator` belongs to one thread.
/// \throws ConfigError from `GeneratorConfig::validate` (and every function taking a config that
/// validates it) naming the bad parameter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <timely/streaming/nexmark/event.hpp>

namespace timely::streaming::nexmark {

/// The kind of an event, the index of its alternative in `Event`.
enum class Kind : std::uint8_t { person = 0, auction = 1, bid = 2 };

/// The proportions of each 50 consecutive ids (fixed, as in Beam's newer generator).
inline constexpr std::uint64_t kPersonProportion = 1;
inline constexpr std::uint64_t kAuctionProportion = 3;
inline constexpr std::uint64_t kBidProportion = 46;
inline constexpr std::uint64_t kProportionDenominator =
    kPersonProportion + kAuctionProportion + kBidProportion;
/// The first person and auction ids and the first category (Beam's GeneratorConfig).
inline constexpr std::uint64_t kFirstPersonId = 1000;
inline constexpr std::uint64_t kFirstAuctionId = 1000;
inline constexpr std::uint64_t kFirstCategoryId = 10;
inline constexpr std::uint64_t kNumCategories = 5;
/// Hot people and auctions are the first (sellers, auctions) or second (bidders) of each block
/// of this many.
inline constexpr std::uint64_t kHotBlock = 100;

/// The generator's parameters. Defaults are Beam's NexmarkConfiguration defaults (with a rate in
/// events per second and `base_time` 0).
struct GeneratorConfig {
  std::uint64_t seed = 0;                     ///< 0: Beam's per-event seeds exactly
  std::uint64_t events = 100'000;             ///< event ids 0 .. events - 1
  std::uint64_t rate = 10'000;                ///< events per second of event time, all workers
  std::uint64_t base_time = 0;                ///< event time of id 0, ms
  std::uint64_t out_of_order_group_size = 1;  ///< g: delivery permuted within groups of g
  std::uint32_t avg_person_bytes = 200;       ///< average size a person is padded to
  std::uint32_t avg_auction_bytes = 500;      ///< ... an auction
  std::uint32_t avg_bid_bytes = 100;          ///< ... a bid (at most 105: the extra is inline)
  std::uint32_t hot_auction_ratio = 2;        ///< P(bid on a hot auction) = 1 - 1/ratio
  std::uint32_t hot_sellers_ratio = 4;        ///< P(auction by a hot seller) = 1 - 1/ratio
  std::uint32_t hot_bidders_ratio = 4;        ///< P(bid by a hot bidder) = 1 - 1/ratio
  std::uint32_t in_flight_auctions = 100;     ///< auctions open at once, on average
  std::uint32_t active_people = 1000;         ///< people who still sell and bid

  /// \throws ConfigError naming the parameter: rate 0, group size 0 or a multiple of 953
  /// (not a permutation), a ratio 0, in_flight_auctions 0, active_people 0, an avg_bid_bytes
  /// whose extra would not fit inline, or `events` so large that `base_time + time` overflows.
  void validate() const;
};

/// The kind of event `id`: `id % 50` < 1 person, < 4 auction, else bid.
inline Kind event_kind(std::uint64_t id) {
  const std::uint64_t rem = id % kProportionDenominator;
  return rem < kPersonProportion ? Kind::person
                                 : (rem < kPersonProportion + kAuctionProportion ? Kind::auction : Kind::bid);
}

/// The event time of id `id`, ms: `base_time + floor(id * 1000 / rate)` (exact, no overflow for
/// valid configs).
inline std::uint64_t event_time_of(const GeneratorConfig& config, std::uint64_t id) {
  return config.base_time + (id / config.rate) * 1000 + (id % config.rate) * 1000 / config.rate;
}

/// The id delivered at position `n` (< events): the out-of-order permutation within groups.
inline std::uint64_t event_id_at(const GeneratorConfig& config, std::uint64_t n) {
  const std::uint64_t g = config.out_of_order_group_size;
  const std::uint64_t base = n / g * g;
  if (base + g > config.events) return n;  // the last, partial group: in order
  return base + (n % g) * 953 % g;
}

/// A lower bound on the event time of everything delivered at position `n` or later.
inline std::uint64_t watermark_at(const GeneratorConfig& config, std::uint64_t n) {
  return event_time_of(config, n / config.out_of_order_group_size * config.out_of_order_group_size);
}

/// The id of the last person created at or before event `id`, counted from 0 (Beam's
/// lastBase0PersonId; add kFirstPersonId for the person's id).
inline std::uint64_t last_base0_person_id(std::uint64_t id) {
  const std::uint64_t epoch = id / kProportionDenominator;
  std::uint64_t offset = id % kProportionDenominator;
  if (offset >= kPersonProportion) offset = kPersonProportion - 1;
  return epoch * kPersonProportion + offset;
}

/// The id of the last auction created at or before event `id`, counted from 0 (Beam's
/// lastBase0AuctionId). Before the first auction it wraps below zero like Beam's -1; only the
/// first events of the sequence see that, and callers clamp.
inline std::int64_t last_base0_auction_id(std::uint64_t id) {
  std::int64_t epoch = static_cast<std::int64_t>(id / kProportionDenominator);
  std::int64_t offset = static_cast<std::int64_t>(id % kProportionDenominator);
  if (offset < static_cast<std::int64_t>(kPersonProportion)) {
    --epoch;  // a person: the last auction of the previous cycle
    offset = kAuctionProportion - 1;
  } else if (offset >= static_cast<std::int64_t>(kPersonProportion + kAuctionProportion)) {
    offset = kAuctionProportion - 1;  // a bid: the last auction of this cycle
  } else {
    offset -= kPersonProportion;
  }
  return epoch * static_cast<std::int64_t>(kAuctionProportion) + offset;
}

/// Event `id` (< events, not checked), deterministic for `(config.seed, id)`. Allocates for a
/// person's and an auction's heap strings only.
Event make_event(const GeneratorConfig& config, std::uint64_t id);

/// Fills `out` with event `id`, reusing its strings' buffers when it already holds that kind.
void make_event_into(const GeneratorConfig& config, std::uint64_t id, Event& out);

/// One worker's share of the event sequence: the positions of the blocks of 50 numbered
/// `index, index + peers, ...`, in order. `next` fills events in delivery order.
/// \throws ConfigError from the constructor if the config is invalid or `index >= peers`.
class Generator {
 public:
  Generator(GeneratorConfig config, std::size_t index, std::size_t peers);

  /// Appends up to `max` more events of this share to `out`; returns how many (0 once done).
  std::size_t next(std::vector<Event>& out, std::size_t max);
  /// Appends the events of this share at positions before `position` (a global position: all
  /// workers stop at the same point of the sequence); returns how many.
  std::size_t next_until(std::vector<Event>& out, std::uint64_t position);

  /// Whether every event of this share has been generated.
  [[nodiscard]] bool done() const { return position_ >= config_.events; }
  /// The global position of the next event this share generates (`events` once done).
  [[nodiscard]] std::uint64_t position() const { return position_; }
  /// No event this share still generates has an event time before this (ms); for a done
  /// share, the event time just past the last event (`event_time_of(events)`).
  [[nodiscard]] std::uint64_t watermark() const;
  /// Events generated so far by this share.
  [[nodiscard]] std::uint64_t generated() const { return generated_; }
  [[nodiscard]] const GeneratorConfig& config() const { return config_; }

  /// How many events of the whole sequence this share holds (1-worker share: all of them).
  static std::uint64_t share_size(const GeneratorConfig& config, std::size_t index, std::size_t peers);

 private:
  void skip_to_own_block();

  GeneratorConfig config_;
  std::uint64_t index_, peers_;
  std::uint64_t position_ = 0;  // global position of the next event; always in an own block
  std::uint64_t generated_ = 0;
};

}  // namespace timely::streaming::nexmark
