// The reference model of the Nexmark queries (model.hpp): plain loops and std::map, no timely.
#include "model.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

namespace nexmark_model {
namespace {

template <class T>
std::vector<T> sorted(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::uint64_t rounded_mean(std::uint64_t sum, std::uint64_t count) { return (2 * sum + count) / (2 * count); }

/// True if `a` beats `b` as a winning bid: higher price, then earlier, then less in Bid order.
bool beats(const Bid& a, const Bid& b) {
  if (a.price != b.price) return a.price > b.price;
  if (a.date_time != b.date_time) return a.date_time < b.date_time;
  return a < b;
}

}  // namespace

std::vector<std::uint64_t> sliding_window_starts(std::uint64_t t, std::uint64_t size, std::uint64_t period) {
  std::vector<std::uint64_t> starts;
  // Every multiple of the period in (t - size, t].
  for (std::uint64_t start = t / period * period;; start -= period) {
    if (start + size > t) starts.push_back(start);
    if (start < period || start + size <= t) break;
  }
  std::reverse(starts.begin(), starts.end());
  return starts;
}

std::vector<Event> q0(const std::vector<Event>& events) { return sorted(events); }

std::vector<Bid> q1(const std::vector<Event>& events) {
  std::vector<Bid> out;
  for (const auto& e : events)
    if (const Bid* b = std::get_if<Bid>(&e)) {
      Bid converted = *b;
      converted.price = b->price * 89 / 100;
      out.push_back(converted);
    }
  return sorted(std::move(out));
}

std::vector<AuctionPrice> q2(const std::vector<Event>& events, const Params& params) {
  std::vector<AuctionPrice> out;
  for (const auto& e : events)
    if (const Bid* b = std::get_if<Bid>(&e); b && b->auction % params.auction_skip == 0)
      out.push_back(AuctionPrice{b->auction, b->price});
  return sorted(std::move(out));
}

std::vector<NameCityStateId> q3(const std::vector<Event>& events) {
  std::vector<const Person*> people;
  std::vector<const Auction*> auctions;
  for (const auto& e : events) {
    if (const Person* p = std::get_if<Person>(&e)) {
      const auto state = p->state.view();
      if (state == "OR" || state == "ID" || state == "CA") people.push_back(p);
    } else if (const Auction* a = std::get_if<Auction>(&e); a && a->category == 10) {
      auctions.push_back(a);
    }
  }
  std::vector<NameCityStateId> out;
  for (const Person* p : people)
    for (const Auction* a : auctions)
      if (a->seller == p->id)
        out.push_back(
            {std::string(p->name.view()), std::string(p->city.view()), std::string(p->state.view()), a->id});
  return sorted(std::move(out));
}

std::vector<AuctionBid> q9(const std::vector<Event>& events) {
  std::map<std::uint64_t, const Auction*> auctions;
  for (const auto& e : events)
    if (const Auction* a = std::get_if<Auction>(&e)) auctions[a->id] = a;
  std::map<std::uint64_t, Bid> best;
  for (const auto& e : events) {
    const Bid* b = std::get_if<Bid>(&e);
    if (!b) continue;
    const auto found = auctions.find(b->auction);
    if (found == auctions.end()) continue;
    const Auction& a = *found->second;
    if (b->date_time < a.date_time || b->date_time >= a.expires || b->price < a.reserve) continue;
    const auto [at, inserted] = best.try_emplace(b->auction, *b);
    if (!inserted && beats(*b, at->second)) at->second = *b;
  }
  std::vector<AuctionBid> out;
  for (const auto& [id, bid] : best) out.push_back({*auctions.at(id), bid});
  return sorted(std::move(out));
}

std::vector<CategoryPrice> q4(const std::vector<Event>& events, const Params& params) {
  // (window start, category) -> (sum, count) of the winning prices whose expiry falls in it.
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::pair<std::uint64_t, std::uint64_t>> windows;
  for (const auto& w : q9(events))
    for (auto start :
         sliding_window_starts(w.auction.expires, params.window_size_ms, params.window_period_ms)) {
      auto& [sum, count] = windows[{start, w.auction.category}];
      sum += w.bid.price;
      ++count;
    }
  std::vector<CategoryPrice> out;
  for (const auto& [key, value] : windows)
    out.push_back(
        {key.first, key.first + params.window_size_ms, key.second, rounded_mean(value.first, value.second)});
  return sorted(std::move(out));
}

std::vector<HotItem> q5(const std::vector<Event>& events, const Params& params) {
  std::map<std::uint64_t, std::map<std::uint64_t, std::uint64_t>> counts;  // start -> auction -> bids
  for (const auto& e : events)
    if (const Bid* b = std::get_if<Bid>(&e))
      for (auto start : sliding_window_starts(b->date_time, params.window_size_ms, params.window_period_ms))
        ++counts[start][b->auction];
  std::vector<HotItem> out;
  for (const auto& [start, per_auction] : counts) {
    std::uint64_t most = 0;
    for (const auto& [auction, n] : per_auction) most = std::max(most, n);
    for (const auto& [auction, n] : per_auction)
      if (n == most) out.push_back({start, start + params.window_size_ms, auction, n});
  }
  return sorted(std::move(out));
}

std::vector<SellerPrice> q6(const std::vector<Event>& events, const Params& params) {
  auto winners = q9(events);
  std::sort(winners.begin(), winners.end(), [](const AuctionBid& a, const AuctionBid& b) {
    return std::tie(a.auction.expires, a.auction.id) < std::tie(b.auction.expires, b.auction.id);
  });
  std::map<std::uint64_t, std::deque<std::uint64_t>> last;  // seller -> its last winning prices
  std::vector<SellerPrice> out;
  for (const auto& w : winners) {
    auto& prices = last[w.auction.seller];
    prices.push_back(w.bid.price);
    if (prices.size() > params.q6_last) prices.pop_front();
    std::uint64_t sum = 0;
    for (auto p : prices) sum += p;
    out.push_back({w.auction.expires, w.auction.seller, w.auction.id, rounded_mean(sum, prices.size())});
  }
  return sorted(std::move(out));
}

std::vector<HighestBid> q7(const std::vector<Event>& events, const Params& params) {
  std::map<std::uint64_t, std::vector<const Bid*>> windows;  // start -> bids
  for (const auto& e : events)
    if (const Bid* b = std::get_if<Bid>(&e))
      windows[b->date_time / params.window_size_ms * params.window_size_ms].push_back(b);
  std::vector<HighestBid> out;
  for (const auto& [start, bids] : windows) {
    std::uint64_t most = 0;
    for (const Bid* b : bids) most = std::max(most, b->price);
    for (const Bid* b : bids)
      if (b->price == most) out.push_back({start, start + params.window_size_ms, *b});
  }
  return sorted(std::move(out));
}

std::vector<NewUser> q8(const std::vector<Event>& events, const Params& params) {
  const auto window = [&](std::uint64_t t) { return t / params.window_size_ms * params.window_size_ms; };
  std::vector<NewUser> out;
  for (const auto& e : events) {
    const Person* p = std::get_if<Person>(&e);
    if (!p) continue;
    for (const auto& f : events)
      if (const Auction* a = std::get_if<Auction>(&f);
          a && a->seller == p->id && window(a->date_time) == window(p->date_time))
        out.push_back({window(p->date_time), window(p->date_time) + params.window_size_ms, p->id,
                       std::string(p->name.view()), a->reserve});
  }
  return sorted(std::move(out));
}

std::vector<BidSession> q11(const std::vector<Event>& events, const Params& params) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> times;  // bidder -> bid times
  for (const auto& e : events)
    if (const Bid* b = std::get_if<Bid>(&e)) times[b->bidder].push_back(b->date_time);
  std::vector<BidSession> out;
  for (auto& [bidder, ts] : times) {
    std::sort(ts.begin(), ts.end());
    BidSession session{bidder, ts[0], ts[0] + params.session_gap_ms, 1};
    for (std::size_t i = 1; i < ts.size(); ++i) {
      if (ts[i] < session.session_end) {
        session.session_end = ts[i] + params.session_gap_ms;
        ++session.count;
      } else {
        out.push_back(session);
        session = {bidder, ts[i], ts[i] + params.session_gap_ms, 1};
      }
    }
    out.push_back(session);
  }
  return sorted(std::move(out));
}

}  // namespace nexmark_model
