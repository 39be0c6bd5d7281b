/// \file
/// The Nexmark benchmark's three event types: `Person` (a new user), `Auction` (an item put up
/// for sale) and `Bid` (an offer on an auction), the `Event` variant that carries one of them,
/// and `Text<N>`, the fixed-capacity inline string used for the bounded text fields.
///
/// Units: every time (`date_time`, `expires`) is event time in milliseconds since the generator's
/// `base_time` (GeneratorConfig, generator.hpp), the unit of the streams' timestamps. Prices
/// (`price`, `initial_bid`, `reserve`) are whole cents, as in the Beam generator.
///
/// Layout, chosen so that generating and moving events is cheap: a bid (46 of every 50 events)
/// is trivially copyable, 120 bytes with its `extra` inline; people and auctions keep their
/// bounded fields inline and only `description`/`extra` on the heap. The fields and their
/// meaning follow the Beam Nexmark model (org.apache.beam.sdk.nexmark.model), without the
/// `channel`/`url` fields that later Beam/Flink versions added to bids for queries 13-22 (no
/// query here reads them).
///
/// Every type is regular (copyable, ordered, `==`), has a codec (timely/communication/codec.hpp:
/// `Text` and `Bid` by object bytes, `Person` and `Auction` field by field) and is safe to use
/// from any one thread at a time.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <timely/communication/error.hpp>

namespace timely::streaming::nexmark {

/// A string of at most `N` bytes stored inline (no allocation), `N + 1` bytes in all. The bytes
/// past `size()` are always zero, so the object bytes (its codec) are deterministic.
template <std::size_t N>
class Text {
  static_assert(N > 0 && N < 256, "Text<N>: N must fit the one-byte length");

 public:
  Text() = default;
  /// \throws timely::ConfigError naming the length if `s` is longer than `N`.
  explicit Text(std::string_view s) { assign(s); }

  /// Replaces the contents by `s`. \throws timely::ConfigError if `s` is longer than `N`.
  void assign(std::string_view s) {
    if (s.size() > N)
      throw ConfigError("nexmark::Text<" + std::to_string(N) + ">: a string of " + std::to_string(s.size()) +
                        " bytes does not fit");
    std::copy(s.begin(), s.end(), bytes_.begin());
    std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(s.size()), bytes_.end(), '\0');
    size_ = static_cast<std::uint8_t>(s.size());
  }
  /// Sets the length to `n <= N` and returns the bytes to fill (the generator writes in place).
  /// Bytes past `n` are zeroed.
  char* resize_for_overwrite(std::size_t n) {
    n = std::min(n, N);
    std::fill(bytes_.begin() + static_cast<std::ptrdiff_t>(n), bytes_.end(), '\0');
    size_ = static_cast<std::uint8_t>(n);
    return bytes_.data();
  }

  static constexpr std::size_t capacity() { return N; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] std::string_view view() const { return {bytes_.data(), size_}; }
  operator std::string_view() const { return view(); }  // NOLINT: a string, used as one

  friend bool operator==(const Text& a, const Text& b) { return a.view() == b.view(); }
  friend std::strong_ordering operator<=>(const Text& a, const Text& b) { return a.view() <=> b.view(); }

 private:
  std::array<char, N> bytes_{};
  std::uint8_t size_ = 0;
};

/// A new user registering. Beam: model.Person.
struct Person {
  std::uint64_t id = 0;         ///< 1000, 1001, ... in order of the events that create them
  Text<15> name;                ///< "First Last" from the standard first and last name lists
  Text<15> email_address;       ///< random letters "abc@xyz.com"
  Text<23> credit_card;         ///< "dddd dddd dddd dddd"
  Text<15> city;                ///< one of the standard ten US cities
  Text<7> state;                ///< one of AZ, CA, ID, OR, WA, WY
  std::uint64_t date_time = 0;  ///< event time, ms
  std::string extra;            ///< random letters sizing the event to `avg_person_bytes` on average
  friend auto operator<=>(const Person&, const Person&) = default;
  friend bool operator==(const Person&, const Person&) = default;
};

/// An item put up for auction. Beam: model.Auction.
struct Auction {
  std::uint64_t id = 0;           ///< 1000, 1001, ... in order of the events that create them
  Text<23> item_name;             ///< up to 19 random letters and spaces
  std::string description;        ///< up to 99 random letters and spaces
  std::uint64_t initial_bid = 0;  ///< cents, in [100, 100'000'000]
  std::uint64_t reserve = 0;      ///< cents, initial_bid plus another price
  std::uint64_t date_time = 0;    ///< event time, ms
  std::uint64_t expires = 0;      ///< event time the auction closes, ms; > date_time
  std::uint64_t seller = 0;       ///< a Person id
  std::uint64_t category = 0;     ///< 10 to 14
  std::string extra;              ///< random letters sizing the event to `avg_auction_bytes`
  friend auto operator<=>(const Auction&, const Auction&) = default;
  friend bool operator==(const Auction&, const Auction&) = default;
};

/// An offer on an auction. Beam: model.Bid (without the later `channel`/`url`).
struct Bid {
  std::uint64_t auction = 0;    ///< an Auction id
  std::uint64_t bidder = 0;     ///< a Person id
  std::uint64_t price = 0;      ///< cents, in [100, 100'000'000]
  std::uint64_t date_time = 0;  ///< event time, ms
  Text<87> extra;               ///< random letters sizing the event to `avg_bid_bytes` (<= 87)
  friend auto operator<=>(const Bid&, const Bid&) = default;
  friend bool operator==(const Bid&, const Bid&) = default;
};

/// One Nexmark event. The alternative's index is the event kind: 0 person, 1 auction, 2 bid.
using Event = std::variant<Person, Auction, Bid>;

/// The event time (ms) of any event.
inline std::uint64_t event_time(const Event& e) {
  return std::visit([](const auto& x) { return x.date_time; }, e);
}

}  // namespace timely::streaming::nexmark
