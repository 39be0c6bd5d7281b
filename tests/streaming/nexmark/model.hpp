// The reference model of the Nexmark queries Q0-Q9 and Q11: straightforward single-threaded
// functions over a std::vector of events (no timely), written for clarity, against which the
// dataflow versions are checked. Every function returns its results sorted (operator<), so a
// dataflow's results, gathered from all workers and sorted, compare with ==.
//
// The definitions follow the Beam Nexmark queries (org.apache.beam.sdk.nexmark.queries), with
// the final result of every window (Beam's early/late panes are not modelled) and these choices
// where Beam leaves an order or a detail open:
//   - Windows are half-open in event time (ms): tumbling [k*size, (k+1)*size); sliding
//     [j*period, j*period + size) for every j >= 0 whose window holds the time (event times are
//     unsigned, so no window starts before 0; with Beam's base times far from 0 nothing differs).
//   - A winning bid (Q9, and under Q4 and Q6): of the bids on an auction with
//     auction.date_time <= bid.date_time < auction.expires and price >= reserve, the highest
//     price; ties go to the earliest bid, then to the least bid in Bid's order (Beam keeps the
//     first it happens to see). Its event time is auction.expires.
//   - Q3 is the unbounded join: every pair of a person in OR, ID or CA and an auction of
//     category 10 that the person sells, whichever came first (Beam's Query3 keeps the people in
//     state; its expiry of waiting auctions is not modelled).
//   - Q6 emits, for each winning bid in order of (auction.expires, auction.id), the mean of the
//     seller's last up to `q6_last` winning prices, with the auction it was emitted for.
//   - Means round half up: (2 * sum + count) / (2 * count), Beam's Math.round of the mean.
//   - Q11 sessions per bidder: a bid at t joins the session if t < last bid + gap; the session is
//     [first bid, last bid + gap).
// Q10 (writing to files) and Q12-Q22 (later additions) are not part of the benchmark here.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <timely/streaming/nexmark/event.hpp>
#include <timely/streaming/nexmark/queries.hpp>

namespace nexmark_model {

using timely::streaming::nexmark::Auction;
using timely::streaming::nexmark::AuctionPrice;
using timely::streaming::nexmark::Bid;
using timely::streaming::nexmark::Event;
using timely::streaming::nexmark::Person;

/// The queries' parameters, with Beam's defaults (windowSizeSec 10, windowPeriodSec 5,
/// auctionSkip 123, Q11's gap = windowSizeSec, Q6's last 10 winning bids).
struct Params {
  std::uint64_t window_size_ms = 10'000;
  std::uint64_t window_period_ms = 5'000;
  std::uint64_t auction_skip = 123;
  std::uint64_t session_gap_ms = 10'000;
  std::size_t q6_last = 10;
};

/// Q3: a local seller's auction.
struct NameCityStateId {
  std::string name, city, state;
  std::uint64_t auction = 0;
  friend auto operator<=>(const NameCityStateId&, const NameCityStateId&) = default;
};

/// Q9 (and the input of Q4, Q6): an auction and its winning bid.
struct AuctionBid {
  Auction auction;
  Bid bid;
  friend auto operator<=>(const AuctionBid&, const AuctionBid&) = default;
};

/// Q4: the mean winning price of a category in one sliding window.
struct CategoryPrice {
  std::uint64_t window_start = 0, window_end = 0, category = 0, average = 0;
  friend auto operator<=>(const CategoryPrice&, const CategoryPrice&) = default;
};

/// Q5: an auction with the most bids in one sliding window (all of them on a tie).
struct HotItem {
  std::uint64_t window_start = 0, window_end = 0, auction = 0, count = 0;
  friend auto operator<=>(const HotItem&, const HotItem&) = default;
};

/// Q6: a seller's mean of its last winning prices, after the winning bid on `auction`.
struct SellerPrice {
  std::uint64_t time = 0, seller = 0, auction = 0, average = 0;
  friend auto operator<=>(const SellerPrice&, const SellerPrice&) = default;
};

/// Q7: a bid with the highest price of its tumbling window (all of them on a tie).
struct HighestBid {
  std::uint64_t window_start = 0, window_end = 0;
  Bid bid;
  friend auto operator<=>(const HighestBid&, const HighestBid&) = default;
};

/// Q8: a person who created an auction in the tumbling window in which it registered.
struct NewUser {
  std::uint64_t window_start = 0, window_end = 0, person = 0;
  std::string name;
  std::uint64_t reserve = 0;
  friend auto operator<=>(const NewUser&, const NewUser&) = default;
};

/// Q11: one bidder's session and its number of bids.
struct BidSession {
  std::uint64_t bidder = 0, session_start = 0, session_end = 0, count = 0;
  friend auto operator<=>(const BidSession&, const BidSession&) = default;
};

std::vector<Event> q0(const std::vector<Event>& events);
std::vector<Bid> q1(const std::vector<Event>& events);
std::vector<AuctionPrice> q2(const std::vector<Event>& events, const Params& params = {});
std::vector<NameCityStateId> q3(const std::vector<Event>& events);
std::vector<CategoryPrice> q4(const std::vector<Event>& events, const Params& params = {});
std::vector<HotItem> q5(const std::vector<Event>& events, const Params& params = {});
std::vector<SellerPrice> q6(const std::vector<Event>& events, const Params& params = {});
std::vector<HighestBid> q7(const std::vector<Event>& events, const Params& params = {});
std::vector<NewUser> q8(const std::vector<Event>& events, const Params& params = {});
std::vector<AuctionBid> q9(const std::vector<Event>& events);
std::vector<BidSession> q11(const std::vector<Event>& events, const Params& params = {});

/// The sliding windows [start, start + size) (start a multiple of `period`, >= 0) holding `t`,
/// as their starts in increasing order.
std::vector<std::uint64_t> sliding_window_starts(std::uint64_t t, std::uint64_t size, std::uint64_t period);

}  // namespace nexmark_model
