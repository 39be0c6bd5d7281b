/// \file
/// The parameters of the Nexmark queries (`QueryParams`, Beam's defaults) and the results of Q3-Q11
/// (after Beam's model classes: NameCityStateId, AuctionBid, ...), apart from the
/// operators (nexmark/windowed_queries.hpp) so that a reference model can share the types
/// without the operators. Every type is regular, ordered (`<=>`) and has a codec (Boost.PFR,
/// timely/communication/codec.hpp); safe to use from any one thread at a time.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

#include <timely/streaming/nexmark/event.hpp>

namespace timely::streaming::nexmark {

/// The queries' parameters, with Beam's defaults (windowSizeSec 10, windowPeriodSec 5,
/// auctionSkip 123, Q11's gap = windowSizeSec, Q6's last 10 winning bids).
struct QueryParams {
  std::uint64_t window_size_ms = 10'000;
  std::uint64_t window_period_ms = 5'000;
  std::uint64_t auction_skip = 123;
  std::uint64_t session_gap_ms = 10'000;
  std::size_t q6_last = 10;
};

/// Q3: a local seller's auction. Beam: model.NameCityStateId.
struct NameCityStateId {
  std::string name, city, state;
  std::uint64_t auction = 0;
  friend auto operator<=>(const NameCityStateId&, const NameCityStateId&) = default;
};

/// Q9 (and the input of Q4, Q6): an auction and its winning bid. Beam: model.AuctionBid.
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

}  // namespace timely::streaming::nexmark
