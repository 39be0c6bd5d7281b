// The Nexmark generator and the query model, without dataflows. Generator: Java-compatible
// draws (values printed by Java 17's java.util.Random), determinism for a seed, exact 1 : 3 : 46
// proportions, the shares of 1, 2, 3 and 4 workers, out-of-order groups and watermarks, field
// ranges, config errors. Model: each query on a small hand-written event list, answers worked
// out by hand (in the comments).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <timely/streaming/nexmark/generator.hpp>
#include <timely/streaming/nexmark/java_random.hpp>

#include "model.hpp"
#include "support/catch.hpp"

namespace nx = timely::streaming::nexmark;

namespace {

/// The single-worker sequence in delivery order, from the pure functions.
std::vector<nx::Event> pure_function_sequence(const nx::GeneratorConfig& config) {
  std::vector<nx::Event> out;
  for (std::uint64_t n = 0; n < config.events; ++n)
    out.push_back(nx::make_event(config, nx::event_id_at(config, n)));
  return out;
}

std::vector<nx::Event> share(const nx::GeneratorConfig& config, std::size_t index, std::size_t peers,
                             std::size_t slice) {
  nx::Generator g(config, index, peers);
  std::vector<nx::Event> out;
  while (g.next(out, slice) > 0) {
  }
  REQUIRE(g.done());
  REQUIRE(out.size() == nx::Generator::share_size(config, index, peers));
  return out;
}

}  // namespace

TEST_CASE("JavaRandom draws what java.util.Random draws", "[nexmark][generator]") {
  nx::JavaRandom r(42);
  CHECK(r.next_int() == -1170105035);
  CHECK(r.next_int(10) == 3);
  CHECK(r.next_int(1000) == 248);
  CHECK(r.next_int(16) == 0);
  CHECK(r.next_long() == 5694868678511409995LL);
  CHECK(r.next_double() == 0.27707849007413665);
  CHECK(r.next_int(2147483647) == 1429255519);
  nx::JavaRandom s(static_cast<std::uint64_t>(-7LL));
  CHECK(s.next_int() == 1155869324);
  CHECK(s.next_int(1 << 30) == 967975648);
  CHECK(s.next_int(1500000001) == 1445645590);  // a bound that rejects often
  CHECK(s.next_long() == -998974524265310116LL);
}

TEST_CASE("with seed 0 bids follow Beam's draws (values from a Java transcription)", "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 1'000'000;
  struct Expected {
    std::uint64_t id, auction, bidder, price;
    std::string_view extra;
  };
  const Expected expected[] = {
      {4, 1000, 1001, 32530001,
       "fdiysaV^]NLVsbolvyqwgticfdrwdyiyofziYMU\\Z`UaTQO][NX\\RM]WPYTOuwogvszlxjrcNOORM"},
      {49, 1000, 1001, 545, "_S\\XKSaJKYT_zxptuoLI`ZXTR^V`SKNKP\\[]JK_OJ\\hgjhnbL^LKRYjiuaqbaI\\JS["},
      {123457, 8326, 2651, 8616229, "LUWML_bbnsje_\\`UWRqtkznxgrzgruVU]^_]T`IZL[yrvfwqZL_NNUI_JIOUUPLaIY"}};
  for (const auto& e : expected) {
    INFO("id " << e.id);
    const auto event = nx::make_event(config, e.id);
    REQUIRE(std::holds_alternative<nx::Bid>(event));
    const auto& bid = std::get<nx::Bid>(event);
    CHECK(bid.auction == e.auction);
    CHECK(bid.bidder == e.bidder);
    CHECK(bid.price == e.price);
    CHECK(bid.extra.view() == e.extra);
    CHECK(bid.date_time == e.id * 1000 / config.rate);
  }
}

TEST_CASE("the generator is deterministic for a seed, and seeds differ", "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 3000;
  config.seed = 17;
  INFO("seed " << config.seed);
  const auto a = share(config, 0, 1, 100), b = share(config, 0, 1, 7);
  CHECK(a == b);
  CHECK(a == pure_function_sequence(config));
  auto other = config;
  other.seed = 18;
  const auto c = share(other, 0, 1, 100);
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == c[i] ? 1 : 0;
  CHECK(same < a.size() / 100);
  // Event i alone equals event i of the sequence (no hidden state).
  CHECK(nx::make_event(config, 1234) == a[1234]);
}

TEST_CASE("every 50 ids hold 1 person, 3 auctions and 46 bids; ids count up by kind",
          "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 5000;
  config.seed = 3;
  const auto events = pure_function_sequence(config);
  std::uint64_t next_person = nx::kFirstPersonId, next_auction = nx::kFirstAuctionId;
  for (std::size_t block = 0; block < events.size() / 50; ++block) {
    std::size_t counts[3] = {0, 0, 0};
    for (std::size_t i = block * 50; i < block * 50 + 50; ++i) {
      ++counts[events[i].index()];
      CHECK(static_cast<std::size_t>(nx::event_kind(i)) == events[i].index());
      if (const auto* p = std::get_if<nx::Person>(&events[i])) CHECK(p->id == next_person++);
      if (const auto* a = std::get_if<nx::Auction>(&events[i])) CHECK(a->id == next_auction++);
    }
    INFO("block " << block);
    CHECK(counts[0] == 1);
    CHECK(counts[1] == 3);
    CHECK(counts[2] == 46);
  }
}

TEST_CASE("the shares of 1, 2 and 4 workers make up the single-worker sequence", "[nexmark][generator]") {
  for (std::uint64_t group : {1u, 7u}) {
    nx::GeneratorConfig config;
    config.events = 1234;  // neither a multiple of 50 nor of 7
    config.seed = 5;
    config.out_of_order_group_size = group;
    INFO("group size " << group);
    auto expected = pure_function_sequence(config);
    std::sort(expected.begin(), expected.end());
    for (std::size_t peers : {1u, 2u, 3u, 4u}) {
      INFO(peers << " workers");
      std::vector<nx::Event> all;
      std::uint64_t total = 0;
      for (std::size_t w = 0; w < peers; ++w) {
        nx::Generator g(config, w, peers);
        std::vector<nx::Event> mine;
        std::uint64_t last_watermark = 0;
        while (!g.done()) {
          const auto watermark = g.watermark();
          CHECK(watermark >= last_watermark);
          last_watermark = watermark;
          const auto from = mine.size();
          g.next(mine, 13);
          for (std::size_t i = from; i < mine.size(); ++i) CHECK(nx::event_time(mine[i]) >= watermark);
          if (group == 1)
            for (std::size_t i = std::max<std::size_t>(from, 1); i < mine.size(); ++i)
              CHECK(nx::event_time(mine[i - 1]) <= nx::event_time(mine[i]));
        }
        total += mine.size();
        all.insert(all.end(), mine.begin(), mine.end());
      }
      CHECK(total == config.events);
      std::sort(all.begin(), all.end());
      CHECK(all == expected);
    }
  }
}

TEST_CASE("next_until stops every share at the same global position", "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 1000;
  std::size_t made = 0;
  for (std::size_t w = 0; w < 3; ++w) {
    nx::Generator g(config, w, 3);
    std::vector<nx::Event> out;
    g.next_until(out, 333);
    CHECK(g.position() >= 333);
    made += out.size();
  }
  CHECK(made == 333);
}

TEST_CASE("out-of-order groups permute ids within each group, and watermarks bound later times",
          "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 1000;
  config.rate = 1000;  // one event per ms: the jitter is visible
  config.out_of_order_group_size = 10;
  std::set<std::uint64_t> ids;
  bool out_of_order = false;
  for (std::uint64_t n = 0; n < config.events; ++n) {
    const auto id = nx::event_id_at(config, n);
    CHECK(id / 10 == n / 10);
    ids.insert(id);
    if (n > 0 && id < nx::event_id_at(config, n - 1)) out_of_order = true;
    for (std::uint64_t m = n; m < std::min<std::uint64_t>(n + 30, config.events); ++m)
      CHECK(nx::event_time_of(config, nx::event_id_at(config, m)) >= nx::watermark_at(config, n));
  }
  CHECK(ids.size() == config.events);
  CHECK(out_of_order);
  // The last, partial group is delivered in order.
  config.events = 995;
  for (std::uint64_t n = 990; n < 995; ++n) CHECK(nx::event_id_at(config, n) == n);
}

TEST_CASE("fields are within their documented ranges", "[nexmark][generator]") {
  nx::GeneratorConfig config;
  config.events = 20'000;
  config.seed = 11;
  INFO("seed " << config.seed);
  const std::set<std::string_view> states = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  const std::set<std::string_view> cities = {"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland",
                                             "Bend",    "Redmond",     "Seattle",       "Kent",  "Cheyenne"};
  const std::set<std::string_view> first = {"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
                                            "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
  const std::set<std::string_view> last = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                           "Walton", "Smith",  "Jones",   "Noris"};
  std::uint64_t bids = 0, hot_auction_bids = 0, hot_bidder_bids = 0, bid_extra = 0, auction_size = 0,
                auctions = 0, person_size = 0, people = 0;
  std::map<std::uint64_t, std::uint64_t> categories;
  std::uint64_t lengths = 0;
  for (std::uint64_t id = 0; id < config.events; ++id) {
    const auto e = nx::make_event(config, id);
    const std::uint64_t time = id * 1000 / config.rate;
    CHECK(nx::event_time(e) == time);
    const std::uint64_t last_person = nx::kFirstPersonId + id / 50;
    const std::uint64_t last_auction =
        nx::kFirstAuctionId +
        static_cast<std::uint64_t>(std::max<std::int64_t>(nx::last_base0_auction_id(id), 0));
    if (const auto* p = std::get_if<nx::Person>(&e)) {
      ++people;
      const auto name = p->name.view();
      const auto space = name.find(' ');
      REQUIRE(space != std::string_view::npos);
      CHECK(first.count(name.substr(0, space)) == 1);
      CHECK(last.count(name.substr(space + 1)) == 1);
      CHECK(states.count(p->state.view()) == 1);
      CHECK(cities.count(p->city.view()) == 1);
      const auto email = p->email_address.view();
      CHECK(email.find('@') != std::string_view::npos);
      CHECK(email.substr(email.size() - 4) == ".com");
      const auto card = p->credit_card.view();
      REQUIRE(card.size() == 19);
      for (std::size_t i = 0; i < 19; ++i)
        CHECK((i % 5 == 4 ? card[i] == ' ' : (card[i] >= '0' && card[i] <= '9')));
      person_size +=
          8 + name.size() + email.size() + card.size() + p->city.size() + p->state.size() + p->extra.size();
    } else if (const auto* a = std::get_if<nx::Auction>(&e)) {
      ++auctions;
      CHECK(a->initial_bid >= 100);
      CHECK(a->initial_bid <= 100'000'000);
      CHECK(a->reserve >= a->initial_bid + 100);
      CHECK(a->reserve <= a->initial_bid + 100'000'000);
      CHECK(a->category >= 10);
      CHECK(a->category <= 14);
      ++categories[a->category];
      CHECK(a->expires > a->date_time);
      lengths += a->expires - a->date_time;
      CHECK(a->seller >= nx::kFirstPersonId);
      CHECK(a->seller <= last_person + 10);
      CHECK(a->item_name.size() <= 19);
      CHECK(a->description.size() <= 99);
      auction_size += 8 + a->item_name.size() + a->description.size() + 40 + a->extra.size();
    } else {
      const auto& b = std::get<nx::Bid>(e);
      ++bids;
      CHECK(b.price >= 100);
      CHECK(b.price <= 100'000'000);
      CHECK(b.auction >= nx::kFirstAuctionId);
      CHECK(b.auction <= last_auction + 10);
      CHECK(b.bidder >= nx::kFirstPersonId);
      CHECK(b.bidder <= last_person + 10);
      CHECK(b.extra.size() >= 54);  // 68 +- 14: avg 100 - 32 bytes of fields
      CHECK(b.extra.size() <= 81);
      bid_extra += b.extra.size();
      hot_auction_bids += b.auction == last_auction / 100 * 100 ? 1 : 0;
      hot_bidder_bids +=
          b.bidder == (last_person - nx::kFirstPersonId) / 100 * 100 + 1 + nx::kFirstPersonId ? 1 : 0;
    }
  }
  // Averages: hot auctions ~1/2 of bids (plus chance picks), hot bidders ~3/4, sizes ~Beam's.
  CHECK(hot_auction_bids * 100 / bids >= 48);
  CHECK(hot_auction_bids * 100 / bids <= 56);
  CHECK(hot_bidder_bids * 100 / bids >= 72);
  CHECK(hot_bidder_bids * 100 / bids <= 78);
  const double mean_extra = static_cast<double>(bid_extra) / static_cast<double>(bids);
  CHECK(mean_extra > 66.5);
  CHECK(mean_extra < 68.5);
  CHECK(static_cast<double>(auction_size) / static_cast<double>(auctions) > 480);
  CHECK(static_cast<double>(auction_size) / static_cast<double>(auctions) < 510);
  CHECK(static_cast<double>(person_size) / static_cast<double>(people) > 190);
  CHECK(static_cast<double>(person_size) / static_cast<double>(people) < 205);
  for (const auto& [category, n] : categories) CHECK(n * 5 > auctions * 8 / 10);
  // Mean auction length: about the event time of 100 auctions (1666 events) at 10'000/s.
  const double mean_length = static_cast<double>(lengths) / static_cast<double>(auctions);
  CHECK(mean_length > 150);
  CHECK(mean_length < 185);
}

TEST_CASE("seed 0 keeps Beam's skew: about 36 % of bids draw the hot auction", "[nexmark][generator]") {
  // Java 17: of the 18'400 bids among ids 0..19'999, new Random(id).nextInt(2) > 0 for 6'683.
  nx::GeneratorConfig config;
  config.events = 20'000;
  std::uint64_t bids = 0, hot = 0;
  for (std::uint64_t id = 0; id < config.events; ++id) {
    const auto e = nx::make_event(config, id);
    if (const auto* b = std::get_if<nx::Bid>(&e)) {
      ++bids;
      const auto last = static_cast<std::uint64_t>(nx::last_base0_auction_id(id));
      hot += b->auction == last / 100 * 100 + nx::kFirstAuctionId ? 1 : 0;
    }
  }
  CHECK(bids == 18'400);
  CHECK(hot >= 6'683);        // plus the few random picks that hit the hot auction
  CHECK(hot <= 6'683 + 150);  // about 11'717 / 111 of them
}

TEST_CASE("bad generator configs throw ConfigError naming the parameter", "[nexmark][generator]") {
  const auto fails = [](auto change, const char* word) {
    nx::GeneratorConfig config;
    change(config);
    CHECK_THROWS_AS(config.validate(), timely::ConfigError);
    CHECK_THROWS_WITH(nx::Generator(config, 0, 1), Catch::Contains(word));
  };
  fails([](auto& c) { c.rate = 0; }, "rate");
  fails([](auto& c) { c.out_of_order_group_size = 0; }, "out_of_order_group_size");
  fails([](auto& c) { c.out_of_order_group_size = 953 * 2; }, "953");
  fails([](auto& c) { c.hot_bidders_ratio = 0; }, "ratio");
  fails([](auto& c) { c.avg_bid_bytes = 200; }, "avg_bid_bytes");
  fails([](auto& c) { c.in_flight_auctions = 0; }, "in_flight_auctions");
  fails([](auto& c) { c.events = ~std::uint64_t{0}; }, "events");
  CHECK_THROWS_WITH(nx::Generator(nx::GeneratorConfig{}, 2, 2), Catch::Contains("worker index 2"));
  CHECK_THROWS_AS(nx::Text<3>("abcd"), timely::ConfigError);
  nx::GeneratorConfig ok;
  ok.avg_bid_bytes = 105;  // the largest whose extra fits inline
  CHECK_NOTHROW(ok.validate());
}

// --- the query model on hand-written events ----------------------------------------------------

namespace {

nx::Event person(std::uint64_t id, std::string_view state, std::uint64_t t,
                 std::string_view name = "Kate Noris", std::string_view city = "Boise") {
  nx::Person p;
  p.id = id;
  p.name.assign(name);
  p.city.assign(city);
  p.state.assign(state);
  p.date_time = t;
  return p;
}

nx::Event auction(std::uint64_t id, std::uint64_t seller, std::uint64_t category, std::uint64_t t,
                  std::uint64_t expires, std::uint64_t reserve) {
  nx::Auction a;
  a.id = id;
  a.seller = seller;
  a.category = category;
  a.date_time = t;
  a.expires = expires;
  a.reserve = reserve;
  a.initial_bid = reserve;
  return a;
}

nx::Bid bid_of(std::uint64_t auction, std::uint64_t bidder, std::uint64_t price, std::uint64_t t) {
  nx::Bid b;
  b.auction = auction;
  b.bidder = bidder;
  b.price = price;
  b.date_time = t;
  return b;
}

/// Windows of 100 ms every 50 ms, Q11 gap 10 ms, Q6 over the last 2 winning bids.
nexmark_model::Params small_params() {
  nexmark_model::Params p;
  p.window_size_ms = 100;
  p.window_period_ms = 50;
  p.session_gap_ms = 10;
  p.q6_last = 2;
  return p;
}

/// Auctions and bids for Q4-Q7 and Q9.
struct Market {
  std::vector<nx::Bid> bids = {bid_of(1000, 1, 400, 10),     // b1: below auction 1000's reserve 500
                               bid_of(1000, 2, 600, 20),     // b2
                               bid_of(1000, 3, 600, 15),     // b3: ties b2's price, earlier: wins 1000
                               bid_of(1000, 4, 900, 100),    // b4: at 1000's expiry: too late
                               bid_of(1000, 5, 10000, 5),    // b5: before 1000 opened: too early
                               bid_of(1002, 6, 200, 30),     // b6: wins 1002
                               bid_of(1003, 7, 300, 10),     // b7
                               bid_of(1003, 8, 301, 20),     // b8: wins 1003
                               bid_of(1004, 9, 1001, 1),     // b9: wins 1004
                               bid_of(1999, 10, 5000, 40),   // b10: no such auction
                               bid_of(1999, 11, 900, 150)};  // b11: no such auction; ties b4 in Q7
  std::vector<nx::Event> events;
  Market() {
    events = {auction(1000, 1000, 10, 10, 100, 500), auction(1001, 1000, 10, 0, 50, 100),
              auction(1002, 1000, 10, 0, 1000, 100), auction(1003, 1001, 11, 0, 120, 0),
              auction(1004, 1000, 10, 0, 110, 0)};
    for (const auto& b : bids) events.emplace_back(b);
  }
};

}  // namespace

TEST_CASE("model: sliding windows holding a time", "[nexmark][model]") {
  using V = std::vector<std::uint64_t>;
  CHECK(nexmark_model::sliding_window_starts(0, 100, 50) == V{0});
  CHECK(nexmark_model::sliding_window_starts(49, 100, 50) == V{0});
  CHECK(nexmark_model::sliding_window_starts(100, 100, 50) == V{50, 100});
  CHECK(nexmark_model::sliding_window_starts(149, 100, 50) == V{50, 100});
  CHECK(nexmark_model::sliding_window_starts(7, 10, 10) == V{0});
  CHECK(nexmark_model::sliding_window_starts(25, 30, 10) == V{0, 10, 20});
  CHECK(nexmark_model::sliding_window_starts(35, 5, 10) == V{});  // between windows
}

TEST_CASE("model: Q0, Q1 and Q2 on hand-written events", "[nexmark][model]") {
  const std::vector<nx::Event> events = {bid_of(1107, 1, 1000, 3), person(1000, "OR", 1),
                                         bid_of(1000, 2, 155, 2), bid_of(1246, 3, 7, 4)};
  auto sorted = events;
  std::sort(sorted.begin(), sorted.end());
  CHECK(nexmark_model::q0(events) == sorted);
  // 1000 * 89 / 100 = 890; 155 * 89 / 100 = 137 (137.95 rounded down); 7 * 89 / 100 = 6.
  const std::vector<nx::Bid> q1 = {bid_of(1000, 2, 137, 2), bid_of(1107, 1, 890, 3), bid_of(1246, 3, 6, 4)};
  CHECK(nexmark_model::q1(events) == q1);
  // 1107 = 9 * 123 and 1246 = 123 * 10 + 16: only 1107 is selected; 1000 neither.
  CHECK(nexmark_model::q2(events) == std::vector<nx::AuctionPrice>{{1107, 1000}});
  nexmark_model::Params skip2;
  skip2.auction_skip = 2;
  CHECK(nexmark_model::q2(events, skip2) == std::vector<nx::AuctionPrice>{{1000, 155}, {1246, 7}});
}

TEST_CASE("model: Q3 joins local sellers with their category-10 auctions", "[nexmark][model]") {
  const std::vector<nx::Event> events = {
      auction(1003, 1002, 10, 5, 50, 1),  // before its seller registers: still joined
      person(1000, "OR", 10, "Paul Smith", "Portland"),
      person(1001, "WA", 11),
      person(1002, "CA", 12, "Vicky Jones", "Kent"),
      auction(1000, 1000, 10, 20, 50, 1),   // joined
      auction(1001, 1001, 10, 21, 50, 1),   // WA: not local
      auction(1002, 1002, 11, 22, 50, 1),   // category 11
      auction(1004, 1005, 10, 23, 50, 1)};  // no such person
  const std::vector<nexmark_model::NameCityStateId> expected = {{"Paul Smith", "Portland", "OR", 1000},
                                                                {"Vicky Jones", "Kent", "CA", 1003}};
  CHECK(nexmark_model::q3(events) == expected);
}

TEST_CASE("model: Q9 winning bids, Q4 category means and Q6 seller means", "[nexmark][model]") {
  const Market m;
  const auto& b = m.bids;
  const auto wins = nexmark_model::q9(m.events);
  REQUIRE(wins.size() == 4);
  CHECK(wins[0].auction.id == 1000);
  CHECK(wins[0].bid == b[2]);  // b3: 600 at 15 beats b2's 600 at 20
  CHECK(wins[1].auction.id == 1002);
  CHECK(wins[1].bid == b[5]);
  CHECK(wins[2].auction.id == 1003);
  CHECK(wins[2].bid == b[7]);
  CHECK(wins[3].auction.id == 1004);
  CHECK(wins[3].bid == b[8]);
  // Q4: wins of category 10 at 100 (600), 110 (1001), 1000 (200); of 11 at 120 (301). Windows
  // holding 100, 110 and 120 start at 50 and 100; those holding 1000 at 950 and 1000. The mean
  // of 600 and 1001 is 800.5, rounded half up to 801.
  const std::vector<nexmark_model::CategoryPrice> q4 = {{50, 150, 10, 801},   {50, 150, 11, 301},
                                                        {100, 200, 10, 801},  {100, 200, 11, 301},
                                                        {950, 1050, 10, 200}, {1000, 1100, 10, 200}};
  CHECK(nexmark_model::q4(m.events, small_params()) == q4);
  // Q6 over the last 2: seller 1000 wins 1000 at 100 (600), 1004 at 110 (600, 1001 -> 801),
  // 1002 at 1000 (1001, 200 -> 600.5 -> 601); seller 1001 wins 1003 at 120 (301).
  const std::vector<nexmark_model::SellerPrice> q6 = {
      {100, 1000, 1000, 600}, {110, 1000, 1004, 801}, {120, 1001, 1003, 301}, {1000, 1000, 1002, 601}};
  CHECK(nexmark_model::q6(m.events, small_params()) == q6);
}

TEST_CASE("model: Q5 hot items and Q7 highest bids", "[nexmark][model]") {
  const Market m;
  const auto& b = m.bids;
  // Q5: [0, 100) holds every bid but b4 and b11: auction 1000 has 4 (b1, b2, b3, b5), the most.
  // [50, 150) holds b4 only; [100, 200) b4 and b11 (1000 and 1999 tie at 1); [150, 250) b11.
  const std::vector<nexmark_model::HotItem> q5 = {
      {0, 100, 1000, 4}, {50, 150, 1000, 1}, {100, 200, 1000, 1}, {100, 200, 1999, 1}, {150, 250, 1999, 1}};
  CHECK(nexmark_model::q5(m.events, small_params()) == q5);
  // Q7 (tumbling 100): [0, 100) b5 at 10000; [100, 200) b4 and b11 tie at 900.
  const std::vector<nexmark_model::HighestBid> q7 = {{0, 100, b[4]}, {100, 200, b[3]}, {100, 200, b[10]}};
  CHECK(nexmark_model::q7(m.events, small_params()) == q7);
}

TEST_CASE("model: Q8 new users and Q11 sessions", "[nexmark][model]") {
  const std::vector<nx::Event> events = {
      person(1000, "OR", 10, "Luke White"), person(1001, "AZ", 90, "Saul Abrams"),
      auction(1000, 1000, 12, 50, 500, 7),   // same window [0, 100) as 1000: joined
      auction(1001, 1000, 12, 150, 500, 9),  // next window
      auction(1002, 1001, 12, 120, 500, 3),  // 1001 registered in the previous window
      auction(1003, 1001, 13, 99, 500, 8),   // joined
      auction(1004, 1002, 13, 20, 500, 5)};  // no such person
  const std::vector<nexmark_model::NewUser> q8 = {{0, 100, 1000, "Luke White", 7},
                                                  {0, 100, 1001, "Saul Abrams", 8}};
  CHECK(nexmark_model::q8(events, small_params()) == q8);
  // Q11, gap 10: bidder 1 at 0, 5, 14 (14 < 5 + 10), then 24 (not < 14 + 10) and 33: sessions
  // [0, 24) with 3 bids and [24, 43) with 2; bidder 2 once at 100: [100, 110).
  const std::vector<nx::Event> bids = {bid_of(7, 1, 1, 14), bid_of(7, 1, 1, 0),  bid_of(7, 2, 1, 100),
                                       bid_of(8, 1, 1, 5),  bid_of(9, 1, 1, 33), bid_of(7, 1, 1, 24)};
  const std::vector<nexmark_model::BidSession> q11 = {{1, 0, 24, 3}, {1, 24, 43, 2}, {2, 100, 110, 1}};
  CHECK(nexmark_model::q11(bids, small_params()) == q11);
}
