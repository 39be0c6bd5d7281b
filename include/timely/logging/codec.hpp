/// \file
/// The byte encoding of log events for log files (timely/logging/file.hpp): `Encoder` and
/// `Decoder` over little-endian fixed-width values, and the trait `EventCodec<T>` that names a
/// type and puts and gets its values. Provided for `bool`, every integer type, `std::string`,
/// `std::chrono::nanoseconds`, `std::pair`, `std::tuple`, `std::optional` and `std::vector` of
/// encodable types, and every event of timely/logging/timely_events.hpp.
///
/// Encodings (all little-endian, no padding, no alignment):
/// - `bool`: one byte, 0 or 1 (any other value is rejected);
/// - an integer of N bytes: N bytes, two's complement for signed types (`std::size_t` is 8);
/// - `std::chrono::nanoseconds` (`Duration`): its count as an i64;
/// - `std::string`: a u64 byte count, then the bytes (no terminator, not checked as UTF-8);
/// - `std::vector<X>`: a u64 element count (at most 2^32), then the elements;
/// - `std::optional<X>`: a `bool` (present), then the value if present;
/// - `std::pair` / `std::tuple`: the members in order, nothing around them;
/// - an event struct: its fields in declaration order; `TimelyEvent`: a u8 alternative index
///   (the order of the `std::variant`: 0 Operates, 1 Channels, 2 PushProgress, 3 Messages,
///   4 Schedule, 5 Shutdown, 6 CommChannels, 7 Park, 8 Text), then that alternative;
///   `CommChannelKind`: a u8, 0 Progress, 1 Data.
///
/// Names (`EventCodec<T>::name()`) are written into a log file beside each stream, so that a
/// reader checks it decodes a stream with the type it was written with. They follow
/// `timely::type_name` (timely/progress/type_name.hpp): `u64`, `i32`, `bool`, `Duration`, `(A, B)`,
/// and further `(A, B, C)`, `()` for `std::tuple<>`, `String`, `Vec<A>`, `Option<A>`,
/// `TimelyEvent`, `ProgressEvent<T>`, `TrackerEvent<T>`, `OperatesSummaryEvent<S>`,
/// `FrontierEvent<T>`, `CommunicationEvent`. A name stands for one encoding: a type whose encoding changes
/// must change its name.
///
/// Extension: specialize `timely::logging::EventCodec<X>` with
/// `static std::string name()`, `static void put(Encoder&, const X&)` and
/// `static X get(Decoder&)`, in a header of the library that defines `X`, so that every user of
/// `X` sees the same one (the progress layer's `Product<A, B>` and `Unit` belong there).
///
/// Source: our own; the reference writes its logs with bincode through `BatchLogger` and
/// capture (SEMANTICS.md §8.1, §10.1), whose fixed-width little-endian integers and u64 length
/// prefixes these follow. Thread-safety: encoders and decoders belong to one thread at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/error.hpp>
#include <timely/logging/timely_events.hpp>

namespace timely::logging {

/// Bytes that do not decode as the type asked for: too few, out-of-range values, a count above
/// the limit. The message says what was expected and at which byte of the decoded span.
class CodecError : public timely::Error {
 public:
  using timely::Error::Error;
};

/// Appends little-endian fixed-width values to a byte vector it does not own.
class Encoder {
 public:
  explicit Encoder(std::vector<std::byte>& out) noexcept : out_(&out) {}

  /// Appends the low `sizeof(U)` bytes of `value`, least significant first.
  template <std::unsigned_integral U>
  void put_unsigned(U value) {
    std::byte bytes[sizeof(U)];
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(bytes, &value, sizeof(U));
    } else {
      for (std::size_t i = 0; i < sizeof(U); ++i) bytes[i] = static_cast<std::byte>(value >> (8 * i));
    }
    out_->insert(out_->end(), bytes, bytes + sizeof(U));
  }
  void put_u8(std::uint8_t v) { out_->push_back(static_cast<std::byte>(v)); }
  void put_u32(std::uint32_t v) { put_unsigned(v); }
  void put_u64(std::uint64_t v) { put_unsigned(v); }
  void put_i64(std::int64_t v) { put_unsigned(static_cast<std::uint64_t>(v)); }
  /// Appends `bytes` as they are.
  void put_bytes(std::span<const std::byte> bytes) { out_->insert(out_->end(), bytes.begin(), bytes.end()); }
  /// The vector appended to.
  [[nodiscard]] std::vector<std::byte>& bytes() noexcept { return *out_; }

 private:
  std::vector<std::byte>* out_;
};

/// Reads little-endian fixed-width values from a span, front to back, never past its end.
/// \throws CodecError on every read that would pass the end, and from `fail`.
class Decoder {
 public:
  explicit Decoder(std::span<const std::byte> in) noexcept : in_(in) {}

  template <std::unsigned_integral U>
  U get_unsigned() {
    auto bytes = take(sizeof(U), "an integer");
    U value = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&value, bytes.data(), sizeof(U));
    } else {
      for (std::size_t i = 0; i < sizeof(U); ++i)
        value |= static_cast<U>(static_cast<U>(bytes[i]) << (8 * i));
    }
    return value;
  }
  std::uint8_t get_u8() { return get_unsigned<std::uint8_t>(); }
  std::uint32_t get_u32() { return get_unsigned<std::uint32_t>(); }
  std::uint64_t get_u64() { return get_unsigned<std::uint64_t>(); }
  std::int64_t get_i64() { return static_cast<std::int64_t>(get_u64()); }
  /// The next `n` bytes (a view into the decoded span). `what` names them in the error.
  std::span<const std::byte> take(std::size_t n, const char* what) {
    if (n > remaining()) fail_short(n, what);
    auto bytes = in_.subspan(pos_, n);
    pos_ += n;
    return bytes;
  }
  /// Bytes not read yet.
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }
  /// Bytes read so far.
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  /// \throws CodecError saying `what` is wrong at the current position (for codecs that find a
  /// value out of range).
  [[noreturn]] void fail(const std::string& what) const;

 private:
  [[noreturn]] void fail_short(std::size_t n, const char* what) const;
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
};

/// The encoding of values of type `T` in log files (see the file comment). Specializations
/// provide `static std::string name()`, `static void put(Encoder&, const T&)` and
/// `static T get(Decoder&)`; `get` reads exactly the bytes `put` wrote and throws `CodecError`
/// (through the decoder) on bytes `put` cannot have written.
template <class T>
struct EventCodec;

/// A type with an `EventCodec`.
template <class T>
concept Encodable = requires(Encoder& out, Decoder& in, const T& value) {
  { EventCodec<T>::name() } -> std::convertible_to<std::string>;
  EventCodec<T>::put(out, value);
  { EventCodec<T>::get(in) } -> std::same_as<T>;
};

/// Encodes `value` with its codec.
template <Encodable T>
void encode(Encoder& out, const T& value) {
  EventCodec<T>::put(out, value);
}
/// Decodes a `T` with its codec.
template <Encodable T>
T decode(Decoder& in) {
  return EventCodec<T>::get(in);
}

namespace detail {
/// Whether every `Xs` is a non-`bool` integer (encoded as its bytes, little-endian).
template <class... Xs>
inline constexpr bool all_integers = sizeof...(Xs) > 0 &&
                                     ((std::integral<Xs> && !std::same_as<Xs, bool>)&&...);
/// Appends integers as their codecs do, in one append: a pointstamp update (four integers)
/// costs one vector insert instead of four, which matters when every progress batch is logged.
template <class... Xs>
void put_integers(Encoder& out, const Xs&... xs) {
  std::byte bytes[(sizeof(Xs) + ...)];
  std::size_t at = 0;
  const auto store = [&](auto x) {
    using U = std::make_unsigned_t<decltype(x)>;
    const auto u = static_cast<U>(x);
    for (std::size_t i = 0; i < sizeof(U); ++i) bytes[at + i] = static_cast<std::byte>(u >> (8 * i));
    at += sizeof(U);
  };
  (store(xs), ...);
  out.put_bytes(bytes);
}
}  // namespace detail

/// Vectors claim at most this many elements, so that a count cannot ask for unbounded work
/// (elements that encode to no bytes, such as `std::tuple<>`, are not limited by the bytes left).
inline constexpr std::uint64_t kMaxSequenceLength = std::uint64_t{1} << 32;

template <>
struct EventCodec<bool> {
  static std::string name() { return "bool"; }
  static void put(Encoder& out, bool v) { out.put_u8(v ? 1 : 0); }
  static bool get(Decoder& in) {
    auto v = in.get_u8();
    if (v > 1) in.fail("a bool byte of " + std::to_string(v) + " (expected 0 or 1)");
    return v == 1;
  }
};

template <std::integral I>
requires(!std::same_as<I, bool>) struct EventCodec<I> {
  static std::string name() { return (std::signed_integral<I> ? "i" : "u") + std::to_string(8 * sizeof(I)); }
  static void put(Encoder& out, I v) { out.put_unsigned(static_cast<std::make_unsigned_t<I>>(v)); }
  static I get(Decoder& in) { return static_cast<I>(in.get_unsigned<std::make_unsigned_t<I>>()); }
};

template <>
struct EventCodec<std::chrono::nanoseconds> {
  static std::string name() { return "Duration"; }
  static void put(Encoder& out, std::chrono::nanoseconds v) { out.put_i64(v.count()); }
  static std::chrono::nanoseconds get(Decoder& in) { return std::chrono::nanoseconds(in.get_i64()); }
};

template <>
struct EventCodec<std::string> {
  static std::string name() { return "String"; }
  static void put(Encoder& out, const std::string& v) {
    out.put_u64(v.size());
    out.put_bytes(std::as_bytes(std::span(v.data(), v.size())));
  }
  static std::string get(Decoder& in) {
    auto n = in.get_u64();
    if (n > in.remaining()) in.fail("a string of " + std::to_string(n) + " bytes");
    auto bytes = in.take(static_cast<std::size_t>(n), "a string");
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
};

template <Encodable X>
struct EventCodec<std::vector<X>> {
  static std::string name() { return "Vec<" + EventCodec<X>::name() + ">"; }
  static void put(Encoder& out, const std::vector<X>& v) {
    out.put_u64(v.size());
    for (const auto& x : v) encode(out, x);
  }
  static std::vector<X> get(Decoder& in) {
    auto n = in.get_u64();
    if (n > kMaxSequenceLength) in.fail("a vector of " + std::to_string(n) + " elements");
    std::vector<X> v;
    // Reserve no more than the bytes left: a count is only trusted as far as bytes back it.
    v.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, in.remaining())));
    for (std::uint64_t i = 0; i < n; ++i) v.push_back(decode<X>(in));
    return v;
  }
};

template <Encodable X>
struct EventCodec<std::optional<X>> {
  static std::string name() { return "Option<" + EventCodec<X>::name() + ">"; }
  static void put(Encoder& out, const std::optional<X>& v) {
    encode(out, v.has_value());
    if (v) encode(out, *v);
  }
  static std::optional<X> get(Decoder& in) {
    if (!decode<bool>(in)) return std::nullopt;
    return decode<X>(in);
  }
};

template <Encodable A, Encodable B>
struct EventCodec<std::pair<A, B>> {
  static std::string name() { return "(" + EventCodec<A>::name() + ", " + EventCodec<B>::name() + ")"; }
  static void put(Encoder& out, const std::pair<A, B>& v) {
    if constexpr (detail::all_integers<A, B>) {
      detail::put_integers(out, v.first, v.second);
    } else {
      encode(out, v.first);
      encode(out, v.second);
    }
  }
  static std::pair<A, B> get(Decoder& in) {
    A a = decode<A>(in);  // named, so that the members are read in order
    B b = decode<B>(in);
    return {std::move(a), std::move(b)};
  }
};

template <Encodable... Xs>
struct EventCodec<std::tuple<Xs...>> {
  static std::string name() {
    std::string out = "(";
    [[maybe_unused]] std::size_t i = 0;
    ((out += (i++ == 0 ? "" : ", ") + EventCodec<Xs>::name()), ...);
    return out + ")";
  }
  static void put(Encoder& out, const std::tuple<Xs...>& v) {
    if constexpr (detail::all_integers<Xs...>) {
      std::apply([&](const auto&... xs) { detail::put_integers(out, xs...); }, v);
    } else {
      std::apply([&](const auto&... xs) { (encode(out, xs), ...); }, v);
    }
  }
  static std::tuple<Xs...> get(Decoder& in) {
    // Braced initialization evaluates its elements left to right, unlike function arguments.
    return std::tuple<Xs...>{decode<Xs>(in)...};
  }
};

template <>
struct EventCodec<CommChannelKind> {
  static std::string name() { return "CommChannelKind"; }
  static void put(Encoder& out, CommChannelKind v) { out.put_u8(static_cast<std::uint8_t>(v)); }
  static CommChannelKind get(Decoder& in) {
    auto v = in.get_u8();
    if (v > static_cast<std::uint8_t>(CommChannelKind::Data))
      in.fail("a communication channel kind of " + std::to_string(v) + " (expected 0 or 1)");
    return static_cast<CommChannelKind>(v);
  }
};

/// The "timely" stream's events; compiled in src/logging/codec.cpp.
template <>
struct EventCodec<TimelyEvent> {
  static std::string name() { return "TimelyEvent"; }
  static void put(Encoder& out, const TimelyEvent& event);
  static TimelyEvent get(Decoder& in);
};

template <Encodable T>
struct EventCodec<ProgressEvent<T>> {
  static std::string name() { return "ProgressEvent<" + EventCodec<T>::name() + ">"; }
  static void put(Encoder& out, const ProgressEvent<T>& e) {
    encode(out, e.is_send);
    encode(out, e.source);
    encode(out, e.channel);
    encode(out, e.seq_no);
    encode(out, e.identifier);
    encode(out, e.messages);
    encode(out, e.internal);
  }
  static ProgressEvent<T> get(Decoder& in) {
    ProgressEvent<T> e;
    e.is_send = decode<bool>(in);
    e.source = decode<std::size_t>(in);
    e.channel = decode<std::size_t>(in);
    e.seq_no = decode<std::size_t>(in);
    e.identifier = decode<std::size_t>(in);
    e.messages = decode<std::vector<PointUpdate<T>>>(in);
    e.internal = decode<std::vector<PointUpdate<T>>>(in);
    return e;
  }
};

template <Encodable T>
struct EventCodec<TrackerEvent<T>> {
  static std::string name() { return "TrackerEvent<" + EventCodec<T>::name() + ">"; }
  static void put(Encoder& out, const TrackerEvent<T>& e) {
    encode(out, e.is_source);
    encode(out, e.tracker_id);
    encode(out, e.updates);
  }
  static TrackerEvent<T> get(Decoder& in) {
    TrackerEvent<T> e;
    e.is_source = decode<bool>(in);
    e.tracker_id = decode<std::size_t>(in);
    e.updates = decode<std::vector<PointUpdate<T>>>(in);
    return e;
  }
};

template <Encodable S>
struct EventCodec<OperatesSummaryEvent<S>> {
  using Summary = std::vector<std::vector<std::pair<std::size_t, std::vector<S>>>>;
  static std::string name() { return "OperatesSummaryEvent<" + EventCodec<S>::name() + ">"; }
  static void put(Encoder& out, const OperatesSummaryEvent<S>& e) {
    encode(out, e.id);
    encode(out, e.summary);
  }
  static OperatesSummaryEvent<S> get(Decoder& in) {
    OperatesSummaryEvent<S> e;
    e.id = decode<std::size_t>(in);
    e.summary = decode<Summary>(in);
    return e;
  }
};

template <>
struct EventCodec<CommunicationEvent> {
  static std::string name() { return "CommunicationEvent"; }
  static void put(Encoder& out, const CommunicationEvent& e) {
    encode(out, e.process);
    encode(out, e.peer);
    encode(out, e.connected);
    detail::put_integers(out, e.bytes_sent, e.frames_sent, e.bytes_received, e.frames_received);
  }
  static CommunicationEvent get(Decoder& in) {
    CommunicationEvent e;
    e.process = decode<std::size_t>(in);
    e.peer = decode<std::size_t>(in);
    e.connected = decode<bool>(in);
    e.bytes_sent = decode<std::uint64_t>(in);
    e.frames_sent = decode<std::uint64_t>(in);
    e.bytes_received = decode<std::uint64_t>(in);
    e.frames_received = decode<std::uint64_t>(in);
    return e;
  }
};

template <Encodable T>
struct EventCodec<FrontierEvent<T>> {
  static std::string name() { return "FrontierEvent<" + EventCodec<T>::name() + ">"; }
  static void put(Encoder& out, const FrontierEvent<T>& e) {
    encode(out, e.id);
    encode(out, e.port);
    encode(out, e.is_input);
    encode(out, e.updates);
  }
  static FrontierEvent<T> get(Decoder& in) {
    FrontierEvent<T> e;
    e.id = decode<std::size_t>(in);
    e.port = decode<std::size_t>(in);
    e.is_input = decode<bool>(in);
    e.updates = decode<std::vector<std::pair<T, std::int64_t>>>(in);
    return e;
  }
};

}  // namespace timely::logging
