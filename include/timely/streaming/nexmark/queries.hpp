/// \file
/// The Nexmark queries that need no windows, as stream operators on a
/// `Stream<std::uint64_t, Event>` (event time in ms, nexmark/source.hpp):
///   - `q0()`: pass-through; every event leaves unchanged (Beam Query0 measures the source and
///     one hop; we move each batch through without touching its records);
///   - `q1()`: currency conversion; every bid, its price converted from dollars to euros as
///     `price * 89 / 100` (integer cents, rounded down, as Beam Query1);
///   - `q2(skip)`: selection; `(auction, price)` of the bids whose auction id is a multiple of
///     `skip` (Beam Query2, `auctionSkip`, default 123).
/// All three are Pipeline operators (no exchange: records stay on their worker) and keep their
/// input's timestamps. The queries with state (3-9, 11) are in nexmark/windowed_queries.hpp.
///
/// Use: `nexmark::source(scope, config) | nexmark::q1() | probe_with(probe)`.
/// \throws ConfigError from `q2` if `skip` is 0.
/// Thread-safety: operators run on their worker's thread. Source: the Beam Nexmark queries
/// (org.apache.beam.sdk.nexmark.queries.Query0-2).
#pragma once

#include <compare>
#include <cstdint>
#include <variant>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/pact.hpp>
#include <timely/streaming/nexmark/event.hpp>

namespace timely::streaming::nexmark {

/// Q2's result: an auction id and a bid's price (cents). Beam: model.AuctionPrice.
struct AuctionPrice {
  std::uint64_t auction = 0;
  std::uint64_t price = 0;
  friend auto operator<=>(const AuctionPrice&, const AuctionPrice&) = default;
};

/// The default `auctionSkip` of Q2.
inline constexpr std::uint64_t kDefaultAuctionSkip = 123;

/// Q1's conversion of a price in dollar cents to euro cents.
inline constexpr std::uint64_t dollars_to_euros(std::uint64_t price) { return price * 89 / 100; }

/// Q0: every event, unchanged (batches are moved through whole).
inline auto q0() {
  return dataflow::operators::unary<Event>(dataflow::Pipeline{}, "Q0", [](auto, const auto&) {
    return [](auto& input, auto& output) {
      input.for_each([&](const auto& cap, std::vector<Event>& batch) {
        auto session = output.session(cap);
        session.give_vec(batch);
      });
    };
  });
}

/// Q1: every bid, its price in euro cents.
inline auto q1() {
  return dataflow::operators::unary<Bid>(dataflow::Pipeline{}, "Q1", [](auto, const auto&) {
    return [](auto& input, auto& output) {
      input.for_each([&](const auto& cap, std::vector<Event>& batch) {
        auto session = output.session(cap);
        for (const Event& e : batch)
          if (const Bid* bid = std::get_if<Bid>(&e)) {
            Bid converted = *bid;
            converted.price = dollars_to_euros(bid->price);
            session.give(converted);
          }
      });
    };
  });
}

/// Q2: `(auction, price)` of every bid on an auction whose id is a multiple of `skip`.
inline auto q2(std::uint64_t skip = kDefaultAuctionSkip) {
  if (skip == 0) throw ConfigError("nexmark::q2: the auction skip must be positive");
  return dataflow::operators::unary<AuctionPrice>(dataflow::Pipeline{}, "Q2", [skip](auto, const auto&) {
    return [skip](auto& input, auto& output) {
      input.for_each([&](const auto& cap, std::vector<Event>& batch) {
        auto session = output.session(cap);
        for (const Event& e : batch)
          if (const Bid* bid = std::get_if<Bid>(&e); bid && bid->auction % skip == 0)
            session.give(AuctionPrice{bid->auction, bid->price});
      });
    };
  });
}

}  // namespace timely::streaming::nexmark
