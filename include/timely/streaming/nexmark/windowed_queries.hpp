/// \file
/// The Nexmark queries with state, joins and windows, Q3-Q9 and Q11, as operators on a
/// `Stream<std::uint64_t, Event>` (event time in ms, nexmark/source.hpp), built on
/// timely/streaming's windows (window.hpp), keyed state (keyed.hpp) and joins (join.hpp). Their
/// parameters (`QueryParams`) and result types are in nexmark/results.hpp.
///
/// Semantics (the Beam Nexmark queries, with the final result of every window; where Beam
/// leaves an order open, the choice is stated):
///   - windows are half-open in event time: tumbling `[k*size, (k+1)*size)`, sliding
///     `[j*period, j*period + size)` for every `j >= 0` whose window holds the time;
///   - `q3()`: every (person in OR, ID or CA, auction of category 10 it sells) pair, whichever
///     came first: an unbounded `ttl_join` (state is never dropped: Beam keeps the people);
///   - `q9()` (also under Q4 and Q6), winning bids: of the bids on an auction with
///     `auction.date_time <= bid.date_time < auction.expires` and `price >= reserve`, the
///     highest price; ties to the earliest bid, then to the least in `Bid`'s order. Emitted at
///     time `expires - 1` once every bid before `expires` is in; its event time is `expires`;
///   - `q4(p)`: per category and sliding window (by the winning bid's `expires`), the mean
///     winning price;
///   - `q5(p)`: per sliding window, the auctions with the most bids (all of them on a tie);
///   - `q6(p)`: per seller, for each of its winning bids in order of `(expires, auction id)`,
///     the mean of its last `q6_last` winning prices;
///   - `q7(p)`: per tumbling window, the bids with the highest price (all of them on a tie);
///   - `q8(p)`: a person who created an auction in the tumbling window in which it registered
///     (a `window_join`), once per such auction;
///   - `q11(p)`: per bidder, sessions of bids closer than `session_gap_ms`, `[first bid, last
///     bid + gap)`, with their number of bids.
/// Means round half up, `(2 * sum + count) / (2 * count)`, as Beam's `Math.round` of the mean.
///
/// Use: `nexmark::source(scope, config) | nexmark::q5(params) | probe_with(probe)`.
/// \throws ConfigError from a query whose parameters are zero (a window size, period or gap,
/// `q6_last`) or whose period exceeds its window size.
/// Thread-safety: operators run on their worker's thread. Source: the Beam Nexmark queries
/// (org.apache.beam.sdk.nexmark.queries.Query3-9, Query11 and WinningBids).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/map.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/dataflow/stream.hpp>
#include <timely/streaming/aggregate.hpp>
#include <timely/streaming/join.hpp>
#include <timely/streaming/keyed.hpp>
#include <timely/streaming/nexmark/event.hpp>
#include <timely/streaming/nexmark/results.hpp>
#include <timely/streaming/window.hpp>

namespace timely::streaming::nexmark {

/// The rounded mean `(2 * sum + count) / (2 * count)` (Beam: Math.round of the mean).
inline constexpr std::uint64_t rounded_mean(std::uint64_t sum, std::uint64_t count) {
  return (2 * sum + count) / (2 * count);
}

/// True if `a` beats `b` as a winning bid: a higher price, then earlier, then less in `Bid`'s order.
inline bool better_bid(const Bid& a, const Bid& b) {
  if (a.price != b.price) return a.price > b.price;
  if (a.date_time != b.date_time) return a.date_time < b.date_time;
  return a < b;
}

namespace detail {

inline void check_params(const QueryParams& p, const char* query, bool sliding) {
  const std::string q = std::string("nexmark::") + query + ": ";
  if (p.window_size_ms == 0) throw ConfigError(q + "QueryParams::window_size_ms must be positive");
  if (sliding && p.window_period_ms == 0)
    throw ConfigError(q + "QueryParams::window_period_ms must be positive");
  if (sliding && p.window_period_ms > p.window_size_ms)
    throw ConfigError(q + "QueryParams::window_period_ms (" + std::to_string(p.window_period_ms) +
                      ") must not exceed window_size_ms (" + std::to_string(p.window_size_ms) + ")");
}

/// The events of alternative `X` for which `keep(x)` holds, moved out (Pipeline).
template <class X, class Keep>
auto pick(const char* name, Keep keep) {
  return dataflow::operators::unary<X>(dataflow::Pipeline{}, name, [keep](auto, const auto&) {
    return [keep](auto& input, auto& output) {
      input.for_each([&](const auto& cap, std::vector<Event>& batch) {
        auto session = output.session(cap);
        for (Event& e : batch)
          if (X* x = std::get_if<X>(&e); x && keep(*x)) session.give(std::move(*x));
      });
    };
  });
}

/// Per key `group(record)` (a window start), the records with the highest `score(record)`,
/// emitted once every record at their time is in (records of one group share one time).
template <class Rec, class Group, class Score>
auto max_ties(Group group, Score score) {
  struct State {
    std::uint64_t most = 0;
    std::vector<Rec> best;
  };
  return keyed_process<State, Rec>(
      std::move(group),
      [score](const std::uint64_t&, Rec r, State& s, auto& ctx) {
        const std::uint64_t v = score(r);
        if (s.best.empty() || v > s.most) {
          s.best.clear();
          s.most = v;
        }
        if (v == s.most) s.best.push_back(std::move(r));
        ctx.set_timer(ctx.time());
      },
      [](const std::uint64_t&, const std::uint64_t&, State& s, auto& ctx) {
        for (auto& r : s.best) ctx.emit(std::move(r));
        ctx.clear_state();
      });
}

inline std::uint64_t auction_of(const Event& e) {
  if (const Auction* a = std::get_if<Auction>(&e)) return a->id;
  return std::get<Bid>(e).auction;
}

}  // namespace detail

/// Q9: each auction's winning bid (see the file comment), at time `expires - 1`.
inline auto q9() {
  struct State {
    std::optional<Auction> auction;
    std::optional<Bid> best;
    std::vector<Bid> early;  // bids seen before their auction (only those at its time can win)
  };
  return [](const dataflow::Stream<std::uint64_t, Event>& events) {
    auto consider = [](State& s, const Bid& b) {
      const Auction& a = *s.auction;
      if (b.date_time < a.date_time || b.date_time >= a.expires || b.price < a.reserve) return;
      if (!s.best || better_bid(b, *s.best)) s.best = b;
    };
    return events |
           dataflow::operators::filter([](const Event& e) { return !std::holds_alternative<Person>(e); }) |
           keyed_process<State, AuctionBid>(
               detail::auction_of,
               [consider](const std::uint64_t&, Event e, State& s, auto& ctx) {
                 if (Auction* a = std::get_if<Auction>(&e)) {
                   s.auction = std::move(*a);
                   for (const Bid& b : s.early) consider(s, b);
                   s.early.clear();
                   ctx.set_timer(s.auction->expires - 1);
                 } else if (s.auction) {
                   consider(s, std::get<Bid>(e));
                 } else {
                   // Records come in time order: a later auction can only take bids at its time.
                   s.early.push_back(std::get<Bid>(e));
                   ctx.set_timer(ctx.time());
                 }
               },
               [](const std::uint64_t&, const std::uint64_t& t, State& s, auto& ctx) {
                 if (!s.auction) {
                   ctx.clear_state();  // no auction at the early bids' time: none of them can win
                 } else if (t + 1 == s.auction->expires) {
                   if (s.best) ctx.emit(AuctionBid{std::move(*s.auction), *s.best});
                   ctx.clear_state();
                 }
               });
  };
}

/// Q3: local sellers' auctions of category 10 (an unbounded join of people and auctions).
inline auto q3() {
  return [](const dataflow::Stream<std::uint64_t, Event>& events) {
    auto people = events | detail::pick<Person>("Q3People", [](const Person& p) {
                    const auto s = p.state.view();
                    return s == "OR" || s == "ID" || s == "CA";
                  });
    auto auctions =
        events | detail::pick<Auction>("Q3Auctions", [](const Auction& a) { return a.category == 10; });
    return people | ttl_join(
                        auctions, max_time<std::uint64_t>(), [](const Person& p) { return p.id; },
                        [](const Auction& a) { return a.seller; },
                        [](const Person& p, const Auction& a) {
                          return NameCityStateId{std::string(p.name.view()), std::string(p.city.view()),
                                                 std::string(p.state.view()), a.id};
                        });
  };
}

/// Q4: the mean winning price per category and sliding window of the winning bids' expiry.
inline auto q4(QueryParams p = {}) {
  detail::check_params(p, "q4", true);
  return [p](const dataflow::Stream<std::uint64_t, Event>& events) {
    using Acc = std::pair<std::uint64_t, std::uint64_t>;  // sum, count
    auto mean = fold(
        Acc{0, 0},
        [](Acc& acc, const AuctionBid& w) {
          acc.first += w.bid.price;
          ++acc.second;
        },
        [](Acc& acc, const Acc& other) {
          acc.first += other.first;
          acc.second += other.second;
        },
        [](const Acc& acc) { return rounded_mean(acc.first, acc.second); });
    return events | q9() |
           window(sliding(p.window_size_ms, p.window_period_ms),
                  by_key([](const AuctionBid& w) { return w.auction.category; }), mean)
               .event_time([](const AuctionBid& w) { return w.auction.expires; }) |
           dataflow::operators::map([](const WindowResult<std::uint64_t, std::uint64_t, std::uint64_t>& r) {
             return CategoryPrice{r.start, r.end, r.key, r.value};
           });
  };
}

/// Q5: per sliding window, the auctions with the most bids.
inline auto q5(QueryParams p = {}) {
  detail::check_params(p, "q5", true);
  return [p](const dataflow::Stream<std::uint64_t, Event>& events) {
    return events | detail::pick<Bid>("Q5Bids", [](const Bid&) { return true; }) |
           window(sliding(p.window_size_ms, p.window_period_ms),
                  by_key([](const Bid& b) { return b.auction; }), count()) |
           dataflow::operators::map([](const WindowResult<std::uint64_t, std::uint64_t, std::uint64_t>& r) {
             return HotItem{r.start, r.end, r.key, r.value};
           }) |
           detail::max_ties<HotItem>([](const HotItem& h) { return h.window_start; },
                                     [](const HotItem& h) { return h.count; });
  };
}

/// Q6: per seller, after each winning bid, the mean of its last `q6_last` winning prices.
inline auto q6(QueryParams p = {}) {
  if (p.q6_last == 0) throw ConfigError("nexmark::q6: QueryParams::q6_last must be positive");
  struct State {
    std::deque<std::uint64_t> prices;
    std::vector<AuctionBid> pending;  // the winning bids at the current time
  };
  const std::size_t last = p.q6_last;
  return [last](const dataflow::Stream<std::uint64_t, Event>& events) {
    return events | q9() |
           keyed_process<State, SellerPrice>(
               [](const AuctionBid& w) { return w.auction.seller; },
               [](const std::uint64_t&, AuctionBid w, State& s, auto& ctx) {
                 s.pending.push_back(std::move(w));
                 ctx.set_timer(ctx.time());
               },
               [last](const std::uint64_t& seller, const std::uint64_t&, State& s, auto& ctx) {
                 // One time is one expiry: order its auctions by id, as the model does.
                 std::sort(s.pending.begin(), s.pending.end(), [](const AuctionBid& a, const AuctionBid& b) {
                   return a.auction.id < b.auction.id;
                 });
                 for (const auto& w : s.pending) {
                   s.prices.push_back(w.bid.price);
                   if (s.prices.size() > last) s.prices.pop_front();
                   std::uint64_t sum = 0;
                   for (auto price : s.prices) sum += price;
                   ctx.emit(SellerPrice{w.auction.expires, seller, w.auction.id,
                                        rounded_mean(sum, s.prices.size())});
                 }
                 s.pending.clear();
               });
  };
}

/// Q7: per tumbling window, the bids with the highest price: the highest per bidder first
/// (spread over the workers), then per window.
inline auto q7(QueryParams p = {}) {
  detail::check_params(p, "q7", false);
  return [p](const dataflow::Stream<std::uint64_t, Event>& events) {
    using Bids = std::vector<Bid>;
    auto ties = fold(
        Bids{},
        [](Bids& acc, const Bid& b) {
          if (!acc.empty() && b.price < acc.front().price) return;
          if (!acc.empty() && b.price > acc.front().price) acc.clear();
          acc.push_back(b);
        },
        [](Bids& acc, const Bids& other) {
          if (other.empty()) return;
          if (!acc.empty() && other.front().price < acc.front().price) return;
          if (!acc.empty() && other.front().price > acc.front().price) acc.clear();
          acc.insert(acc.end(), other.begin(), other.end());
        });
    return events | detail::pick<Bid>("Q7Bids", [](const Bid&) { return true; }) |
           window(tumbling(p.window_size_ms), by_key([](const Bid& b) { return b.bidder; }), ties) |
           dataflow::operators::flat_map([](WindowResult<std::uint64_t, std::uint64_t, Bids> r) {
             std::vector<HighestBid> out;
             out.reserve(r.value.size());
             for (const Bid& b : r.value) out.push_back(HighestBid{r.start, r.end, b});
             return out;
           }) |
           detail::max_ties<HighestBid>([](const HighestBid& h) { return h.window_start; },
                                        [](const HighestBid& h) { return h.bid.price; });
  };
}

/// Q8: people who created an auction in the tumbling window of their registration.
inline auto q8(QueryParams p = {}) {
  detail::check_params(p, "q8", false);
  return [p](const dataflow::Stream<std::uint64_t, Event>& events) {
    auto people = events | detail::pick<Person>("Q8People", [](const Person&) { return true; });
    auto auctions = events | detail::pick<Auction>("Q8Auctions", [](const Auction&) { return true; });
    using Named = std::pair<std::string, std::uint64_t>;  // name, reserve
    return people |
           window_join(
               auctions, tumbling(p.window_size_ms), [](const Person& person) { return person.id; },
               [](const Auction& a) { return a.seller; },
               [](const Person& person, const Auction& a) {
                 return Named{std::string(person.name.view()), a.reserve};
               }) |
           dataflow::operators::map([](WindowResult<std::uint64_t, std::uint64_t, Named> r) {
             return NewUser{r.start, r.end, r.key, std::move(r.value.first), r.value.second};
           });
  };
}

/// Q11: per bidder, its sessions of bids and their sizes.
inline auto q11(QueryParams p = {}) {
  if (p.session_gap_ms == 0) throw ConfigError("nexmark::q11: QueryParams::session_gap_ms must be positive");
  return [p](const dataflow::Stream<std::uint64_t, Event>& events) {
    return events | detail::pick<Bid>("Q11Bids", [](const Bid&) { return true; }) |
           window(session(p.session_gap_ms), by_key([](const Bid& b) { return b.bidder; }), count()) |
           dataflow::operators::map([](const WindowResult<std::uint64_t, std::uint64_t, std::uint64_t>& r) {
             return BidSession{r.key, r.start, r.end, r.value};
           });
  };
}

}  // namespace timely::streaming::nexmark
