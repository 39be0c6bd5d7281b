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
#include <timely/streaming/nexmark/results.hpp>

namespace nexmark_model {

using timely::streaming::nexmark::Auction;
using timely::streaming::nexmark::AuctionPrice;
using timely::streaming::nexmark::Bid;
using timely::streaming::nexmark::Event;
using timely::streaming::nexmark::Person;

// The parameters and result types are the library's (nexmark/results.hpp, which holds no
// operators), so the dataflow's results compare with ==; the model's logic is its own.
using timely::streaming::nexmark::AuctionBid;
using timely::streaming::nexmark::BidSession;
using timely::streaming::nexmark::CategoryPrice;
using timely::streaming::nexmark::HighestBid;
using timely::streaming::nexmark::HotItem;
using timely::streaming::nexmark::NameCityStateId;
using timely::streaming::nexmark::NewUser;
using timely::streaming::nexmark::SellerPrice;
/// The queries' parameters, with Beam's defaults.
using Params = timely::streaming::nexmark::QueryParams;

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
