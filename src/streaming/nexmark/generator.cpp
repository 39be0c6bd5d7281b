// The Nexmark generator (include/timely/streaming/nexmark/generator.hpp): a java.util.Random
// compatible stream of draws per event, and the person, auction and bid fields drawn from it in
// the Beam generator's order. Compiled once here: the header only declares it.
#include <timely/streaming/nexmark/generator.hpp>
#include <timely/streaming/nexmark/java_random.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include <timely/communication/error.hpp>

namespace timely::streaming::nexmark {
namespace {

constexpr std::array<std::string_view, 6> kStates = {"AZ", "CA", "ID", "OR", "WA", "WY"};
constexpr std::array<std::string_view, 10> kCities = {"Phoenix",  "Los Angeles", "San Francisco", "Boise",
                                                      "Portland", "Bend",        "Redmond",       "Seattle",
                                                      "Kent",     "Cheyenne"};
constexpr std::array<std::string_view, 11> kFirstNames = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"};
constexpr std::array<std::string_view, 9> kLastNames = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                                        "Walton", "Smith",  "Jones",   "Noris"};
constexpr std::int32_t kMinStringLength = 3;
constexpr std::uint64_t kPersonIdLead = 10;   // people not yet created that may be chosen
constexpr std::uint64_t kAuctionIdLead = 10;  // auctions likewise

/// SplitMix64's finalizer (Steele, Lea, Flood 2014): a bijective 64-bit mix.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The per-event seed. Seed 0: the id itself, as Beam seeds `new Random(eventId)`. Java's first
/// draws from consecutive seeds are correlated (e.g. only ~36 % of Beam's bids, not 50 %, draw
/// a hot auction), so any other seed scrambles `(seed, id)` fully, which gives the nominal
/// probabilities.
std::uint64_t event_seed(std::uint64_t seed, std::uint64_t id) {
  if (seed == 0) return id;
  return mix64(id + mix64(seed + 0x9E3779B97F4A7C15ULL));
}

/// Beam's nextLong(random, n): uniform below n (n > 0); a skewed modulus above 2^31 - 1.
std::uint64_t next_below(JavaRandom& random, std::uint64_t n) {
  if (n < static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    return static_cast<std::uint64_t>(random.next_int(static_cast<std::int32_t>(n)));
  return static_cast<std::uint64_t>(std::llabs(random.next_long() % static_cast<std::int64_t>(n)));
}

/// Beam's nextPrice: round(10^(6u) * 100) cents, in [100, 100'000'000].
std::uint64_t next_price(JavaRandom& random) {
  return static_cast<std::uint64_t>(std::floor(std::pow(10.0, random.next_double() * 6.0) * 100.0 + 0.5));
}

/// Beam's nextString: 3 to max_length - 1 draws of a letter or (1 in 13) a space, trimmed of
/// spaces at both ends. Writes into `out` (capacity >= max_length) and returns the length.
std::size_t next_string(JavaRandom& random, std::int32_t max_length, char* out) {
  const std::int32_t length = kMinStringLength + random.next_int(max_length - kMinStringLength);
  for (std::int32_t i = 0; i < length; ++i)
    out[i] = random.next_int(13) == 0 ? ' ' : static_cast<char>('a' + random.next_int(26));
  std::size_t begin = 0, end = static_cast<std::size_t>(length);
  while (begin < end && out[begin] == ' ') ++begin;
  while (end > begin && out[end - 1] == ' ') --end;
  if (begin > 0) std::copy(out + begin, out + end, out);
  return end - begin;
}

/// The two letters of Java's `'a' + m % 26, 'a' + m / 26 % 26` for a remainder `m = r % 676`
/// in [-675, 675], at index `m + 675` (negative remainders give the letters below 'a').
constexpr auto kLetterPairs = [] {
  std::array<std::array<char, 2>, 1351> pairs{};
  for (int m = -675; m <= 675; ++m)
    pairs[static_cast<std::size_t>(m + 675)] = {static_cast<char>('a' + m % 26),
                                                static_cast<char>('a' + m / 26)};
  return pairs;
}();

/// Beam's nextExactString: `length` characters, six from each 32-bit draw (`'a' + r % 26`, then
/// `r /= 26`, in Java's signed arithmetic, so negative draws give 'H'..'`' too). Truncating
/// division composes ((r / a) / b == r / (a * b)) and keeps the sign, so the six letters are the
/// letter pairs of `r % 676`, `r / 676 % 676` and `r / 676^2 % 676`: three independent
/// divisions by constants and three table reads per draw instead of a chain of six divisions.
void next_exact_string(JavaRandom& random, std::size_t length, char* out) {
  auto six = [](std::int32_t r, char* to) {
    const std::int32_t q1 = r / 676, q2 = r / 456976, q3 = r / 308915776;
    const std::int32_t m[3] = {r - q1 * 676, q1 - q2 * 676, q2 - q3 * 676};
    for (int k = 0; k < 3; ++k)
      std::memcpy(to + 2 * k, kLetterPairs[static_cast<std::size_t>(m[k] + 675)].data(), 2);
  };
  std::size_t i = 0;
  for (; i + 6 <= length; i += 6) six(random.next_int(), out + i);
  if (i < length) {
    char tail[6];
    six(random.next_int(), tail);
    std::copy(tail, tail + (length - i), out + i);
  }
}

/// Beam's nextExtra: the length making `current_size + length` average `average` (uniform in
/// +- 20 % of the difference), 0 if the fields alone exceed it.
std::size_t extra_length(JavaRandom& random, std::int64_t current_size, std::int64_t average) {
  if (current_size > average) return 0;
  const std::int64_t wanted = average - current_size;
  const auto delta = static_cast<std::int64_t>(std::floor(static_cast<double>(wanted) * 0.2 + 0.5));
  const std::int64_t min_size = wanted - delta;
  return static_cast<std::size_t>(min_size +
                                  (delta == 0 ? 0 : random.next_int(static_cast<std::int32_t>(2 * delta))));
}

void next_extra(JavaRandom& random, std::int64_t current_size, std::int64_t average, std::string& out) {
  const std::size_t n = extra_length(random, current_size, average);
  out.resize(n);
  next_exact_string(random, n, out.data());
}

/// The largest extra a bid gets for `avg` bytes (for validation).
std::int64_t max_bid_extra(std::int64_t avg) {
  const std::int64_t wanted = avg - 32;
  if (wanted < 0) return 0;
  const auto delta = static_cast<std::int64_t>(std::floor(static_cast<double>(wanted) * 0.2 + 0.5));
  return delta == 0 ? wanted : wanted + delta - 1;
}

/// Beam's nextBase0PersonId: one of the last `active_people` people, or up to 10 ahead.
std::uint64_t next_base0_person_id(const GeneratorConfig& config, std::uint64_t id, JavaRandom& random) {
  const std::uint64_t people = last_base0_person_id(id) + 1;
  const std::uint64_t active = std::min<std::uint64_t>(people, config.active_people);
  return people - active + next_below(random, active + kPersonIdLead);
}

/// Beam's nextBase0AuctionId: one of the last `in_flight_auctions` auctions, or up to 10 ahead.
std::uint64_t next_base0_auction_id(const GeneratorConfig& config, std::uint64_t id, JavaRandom& random) {
  const auto last = static_cast<std::uint64_t>(std::max<std::int64_t>(last_base0_auction_id(id), 0));
  const std::uint64_t first = last > config.in_flight_auctions ? last - config.in_flight_auctions : 0;
  return first + next_below(random, last - first + 1 + kAuctionIdLead);
}

void fill_person(const GeneratorConfig& config, std::uint64_t id, Person& p) {
  JavaRandom random(event_seed(config.seed, id));
  p.id = last_base0_person_id(id) + kFirstPersonId;
  p.date_time = event_time_of(config, id);
  {
    const std::string_view first = kFirstNames[static_cast<std::size_t>(random.next_int(kFirstNames.size()))];
    const std::string_view last = kLastNames[static_cast<std::size_t>(random.next_int(kLastNames.size()))];
    char* out = p.name.resize_for_overwrite(first.size() + 1 + last.size());
    std::copy(first.begin(), first.end(), out);
    out[first.size()] = ' ';
    std::copy(last.begin(), last.end(), out + first.size() + 1);
  }
  {
    char buffer[16];
    std::size_t n = next_string(random, 7, buffer);
    buffer[n++] = '@';
    n += next_string(random, 5, buffer + n);
    for (char c : std::string_view(".com")) buffer[n++] = c;
    p.email_address.assign(std::string_view(buffer, n));
  }
  {
    char* out = p.credit_card.resize_for_overwrite(19);
    for (int group = 0; group < 4; ++group) {
      std::int32_t digits = random.next_int(10000);
      char* at = out + group * 5;
      for (int i = 3; i >= 0; --i) {
        at[i] = static_cast<char>('0' + digits % 10);
        digits /= 10;
      }
      if (group < 3) at[4] = ' ';
    }
  }
  p.city.assign(kCities[static_cast<std::size_t>(random.next_int(kCities.size()))]);
  p.state.assign(kStates[static_cast<std::size_t>(random.next_int(kStates.size()))]);
  const auto size = static_cast<std::int64_t>(8 + p.name.size() + p.email_address.size() +
                                              p.credit_card.size() + p.city.size() + p.state.size());
  next_extra(random, size, config.avg_person_bytes, p.extra);
}

void fill_auction(const GeneratorConfig& config, std::uint64_t id, Auction& a) {
  JavaRandom random(event_seed(config.seed, id));
  a.id = static_cast<std::uint64_t>(last_base0_auction_id(id)) + kFirstAuctionId;
  a.date_time = event_time_of(config, id);
  std::uint64_t seller = 0;
  if (random.next_int(static_cast<std::int32_t>(config.hot_sellers_ratio)) > 0)
    seller = last_base0_person_id(id) / kHotBlock * kHotBlock;  // the first of the hot block
  else
    seller = next_base0_person_id(config, id, random);
  a.seller = seller + kFirstPersonId;
  a.category = kFirstCategoryId + static_cast<std::uint64_t>(random.next_int(kNumCategories));
  a.initial_bid = next_price(random);
  {
    // Long enough that about `in_flight_auctions` auctions are open at once: the event time
    // until that many more auctions exist is the mean length.
    const std::uint64_t events_for_auctions =
        std::uint64_t{config.in_flight_auctions} * kProportionDenominator / kAuctionProportion;
    const std::uint64_t horizon = event_time_of(config, id + events_for_auctions) - a.date_time;
    a.expires = a.date_time + 1 + next_below(random, std::max<std::uint64_t>(horizon * 2, 1));
  }
  {
    char buffer[20];
    a.item_name.assign(std::string_view(buffer, next_string(random, 20, buffer)));
  }
  a.description.resize(100);
  a.description.resize(next_string(random, 100, a.description.data()));
  a.reserve = a.initial_bid + next_price(random);
  const auto size = static_cast<std::int64_t>(8 + a.item_name.size() + a.description.size() + 40);
  next_extra(random, size, config.avg_auction_bytes, a.extra);
}

void fill_bid(const GeneratorConfig& config, std::uint64_t id, Bid& b) {
  JavaRandom random(event_seed(config.seed, id));
  std::uint64_t auction = 0;
  if (random.next_int(static_cast<std::int32_t>(config.hot_auction_ratio)) > 0)
    auction = static_cast<std::uint64_t>(last_base0_auction_id(id)) / kHotBlock * kHotBlock;
  else
    auction = next_base0_auction_id(config, id, random);
  b.auction = auction + kFirstAuctionId;
  std::uint64_t bidder = 0;
  if (random.next_int(static_cast<std::int32_t>(config.hot_bidders_ratio)) > 0)
    bidder = last_base0_person_id(id) / kHotBlock * kHotBlock + 1;  // the second: not a hot seller
  else
    bidder = next_base0_person_id(config, id, random);
  b.bidder = bidder + kFirstPersonId;
  b.price = next_price(random);
  b.date_time = event_time_of(config, id);
  const std::size_t n = extra_length(random, 32, config.avg_bid_bytes);
  next_exact_string(random, n, b.extra.resize_for_overwrite(n));
}

[[noreturn]] void bad_config(const std::string& what) { throw ConfigError("nexmark generator: " + what); }

}  // namespace

void GeneratorConfig::validate() const {
  if (rate == 0) bad_config("rate must be at least 1 event per second");
  if (out_of_order_group_size == 0 || out_of_order_group_size % 953 == 0)
    bad_config("out_of_order_group_size must be positive and not a multiple of 953, got " +
               std::to_string(out_of_order_group_size));
  if (hot_auction_ratio == 0 || hot_sellers_ratio == 0 || hot_bidders_ratio == 0)
    bad_config("hot_auction_ratio, hot_sellers_ratio and hot_bidders_ratio must be at least 1");
  if (in_flight_auctions == 0) bad_config("in_flight_auctions must be at least 1");
  if (active_people == 0) bad_config("active_people must be at least 1");
  if (max_bid_extra(avg_bid_bytes) > static_cast<std::int64_t>(Text<87>::capacity()))
    bad_config("avg_bid_bytes " + std::to_string(avg_bid_bytes) + " would need a bid extra longer than " +
               std::to_string(Text<87>::capacity()) + " bytes (at most 105)");
  if (avg_person_bytes > (1u << 20) || avg_auction_bytes > (1u << 20))
    bad_config("avg_person_bytes and avg_auction_bytes must be at most 1 MiB");
  // Event times (and auction ends, up to 2 horizons later) must fit: ids far past the end.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 4;
  if (events > limit / 1000 || base_time > limit)
    bad_config("events " + std::to_string(events) + " or base_time " + std::to_string(base_time) +
               " too large for millisecond event times");
}

Event make_event(const GeneratorConfig& config, std::uint64_t id) {
  Event e;
  make_event_into(config, id, e);
  return e;
}

void make_event_into(const GeneratorConfig& config, std::uint64_t id, Event& out) {
  switch (event_kind(id)) {
    case Kind::person:
      if (!std::holds_alternative<Person>(out)) out.emplace<Person>();
      fill_person(config, id, std::get<Person>(out));
      break;
    case Kind::auction:
      if (!std::holds_alternative<Auction>(out)) out.emplace<Auction>();
      fill_auction(config, id, std::get<Auction>(out));
      break;
    case Kind::bid:
      if (!std::holds_alternative<Bid>(out)) out.emplace<Bid>();
      fill_bid(config, id, std::get<Bid>(out));
      break;
  }
}

Generator::Generator(GeneratorConfig config, std::size_t index, std::size_t peers)
    : config_(config), index_(index), peers_(peers) {
  config_.validate();
  if (peers == 0 || index >= peers)
    bad_config("worker index " + std::to_string(index) + " is not below the worker count " +
               std::to_string(peers));
  position_ = std::min(config_.events, index_ * kProportionDenominator);
}

void Generator::skip_to_own_block() {
  // Called when position_ has just left an own block (it is at a block boundary).
  position_ = std::min(config_.events, position_ + (peers_ - 1) * kProportionDenominator);
}

std::size_t Generator::next(std::vector<Event>& out, std::size_t max) {
  std::size_t made = 0;
  while (made < max && position_ < config_.events) {
    const std::uint64_t id = event_id_at(config_, position_);
    switch (event_kind(id)) {
      case Kind::person:
        fill_person(config_, id, std::get<Person>(out.emplace_back(std::in_place_type<Person>)));
        break;
      case Kind::auction:
        fill_auction(config_, id, std::get<Auction>(out.emplace_back(std::in_place_type<Auction>)));
        break;
      case Kind::bid:
        fill_bid(config_, id, std::get<Bid>(out.emplace_back(std::in_place_type<Bid>)));
        break;
    }
    ++made;
    if (++position_ % kProportionDenominator == 0) skip_to_own_block();
  }
  generated_ += made;
  return made;
}

std::size_t Generator::next_until(std::vector<Event>& out, std::uint64_t position) {
  std::size_t made = 0;
  while (position_ < std::min(position, config_.events)) {
    // Up to the end of this block or `position`, whichever comes first.
    const std::uint64_t block_end = (position_ / kProportionDenominator + 1) * kProportionDenominator;
    made += next(out, static_cast<std::size_t>(std::min(block_end, position) - position_));
  }
  return made;
}

std::uint64_t Generator::watermark() const {
  return done() ? event_time_of(config_, config_.events) : watermark_at(config_, position_);
}

std::uint64_t Generator::share_size(const GeneratorConfig& config, std::size_t index, std::size_t peers) {
  if (peers == 0 || index >= peers) return 0;
  const std::uint64_t blocks = (config.events + kProportionDenominator - 1) / kProportionDenominator;
  if (blocks <= index) return 0;
  const std::uint64_t own = (blocks - 1 - index) / peers + 1;
  std::uint64_t size = own * kProportionDenominator;
  const bool owns_last = (blocks - 1) % peers == index;
  if (owns_last) size -= blocks * kProportionDenominator - config.events;
  return size;
}

}  // namespace timely::streaming::nexmark
