/// \file
/// The serialization customization point: `Codec<X>` says how a value of type `X` becomes bytes
/// and back, `Encoder` appends those bytes to a buffer, `Decoder` reads them back with every read
/// bounds-checked, and `CodecError` is what bad input throws. The cluster (multi-process TCP)
/// allocator encodes every message that leaves a process with it, and the capture event format
/// (dataflow/operators/capture_format.hpp) encodes its times and records with it.
///
/// # Using it
///
///     std::vector<std::uint8_t> buf;
///     timely::communication::Encoder e(buf);
///     e.put(x);                                   // same as Codec<X>::encode(e, x)
///     timely::communication::Decoder d(std::span<const std::uint8_t>(buf), /*base=*/0);
///     X y = d.get<X>();                           // same as Codec<X>::decode(d)
///     d.expect_end("X");                          // optional: reject trailing bytes
///
/// `encode_bytes(x)` and `decode_bytes<X>(bytes)` do the same in one call each.
///
/// # Wire encoding of the built-in codecs
///
/// Everything is little-endian with a fixed width, whatever the host; nothing is aligned or
/// padded (framing and padding belong to whoever stores the bytes). `name()` is a short
/// description of the encoding (the capture format writes it in its header and compares it when
/// reading; equal names mean equal encodings).
///
///     type                               bytes                                       name()
///     bool                               1 byte, 0 or 1 (anything else is rejected)  bool
///     char                               1 byte                                      char
///     other integers                     two's complement in their own width         i8 u16 i32 u64 ...
///     float, double                      IEEE-754 bits, 4 / 8 bytes                  f32 f64
///     scoped enum                        its underlying integer                      enum:u16
///     std::string                        u64 length, then the bytes                  string
///     std::vector<X>, SmallVector<X,N>   u64 count, then the elements                vec<X>
///     std::array<X, N>                   the N elements (no count)                   array<X,N>
///     std::pair<A, B>                    first, then second                          pair<A,B>
///     std::tuple<X...>                   the fields in order                         tuple<A,B>
///     std::optional<X>                   u8 0 (empty), or u8 1 then the value        optional<X>
///     std::variant<X...>                 u32 index (checked), then the alternative   variant<A,B>
///     std::monostate                     nothing                                     monostate
///     std::chrono::duration<R, P>        count() as an R                             duration<i64,1/1000>
///     aggregate, not trivially copyable  its fields in order (Boost.PFR)             {u64,string}
///     other trivially copyable type      its object bytes, as laid out on the host   raw16 (its size)
///
/// In core (include/timely/progress/codecs.hpp): `timely::Product<A, B>` (outer, inner; `product<A,B>`),
/// `timely::Unit` (nothing; `unit`) and `progress::Location` (node u64, port u64, is_source bool;
/// `location`); in dataflow/message.hpp `Message<T, D>`, in dataflow/scope.hpp `ProgressMessage<T>`.
///
/// Counts and lengths are u64. Vectors (and arrays) of integers, `float` and `double` are
/// copied in one `memcpy` on little-endian hosts. Unscoped enums, pointers, C arrays and const or
/// volatile types have no codec.
///
/// Caveats of the object-bytes codec (every trivially copyable type without a codec of its own,
/// trivially copyable aggregates included, e.g. `struct { std::int32_t x; float y; }` is
/// `raw8`): the bytes are the host's layout, padding included, so they are deterministic only
/// for types without padding (an empty type writes `sizeof` zero bytes) and portable only
/// between builds of the same ABI; a struct holding a `bool`, an enum or a pointer is not
/// validated when decoded (a corrupt byte can form an invalid value), and a pointer means
/// nothing in another process. Specialize `Codec` for such types. (Trivially copyable
/// aggregates keep the object-bytes codec, rather than the field-wise one, so that capture
/// streams of format version 1 keep their names and bytes.)
///
/// # Adding a codec for your own type
///
/// Specialize `timely::communication::Codec` (inside that namespace, or with the qualified name
/// as below) before the first use:
///
///     struct Celsius { double value; std::string station; };  // PFR would do; we want checks
///     template <>
///     struct timely::communication::Codec<Celsius> {
///       static constexpr std::size_t min_size = 8 + 8;          // optional: least encoded size
///       static void encode(Encoder& e, const Celsius& c) { e.put(c.value); e.put(c.station); }
///       static Celsius decode(Decoder& d) {
///         const auto at = d.offset();
///         Celsius c{d.get<double>(), d.get<std::string>()};
///         if (c.value < -273.15) d.fail_at(at, "Celsius", "below absolute zero");
///         return c;
///       }
///       static std::string name() { return "celsius"; }
///     };
///
/// `decode` must consume exactly what `encode` wrote, must use only the `Decoder`'s checked
/// reads, and rejects bad values with `Decoder::fail`/`fail_at`. `min_size` must be a true
/// lower bound (it is used to reject impossible element counts); leave it out when unsure. A
/// partial specialization (`template <class T> struct Codec<MyBox<T>> {...}`) works the same
/// way; the second template parameter (`Enable`, default `void`) is for `enable_if`-style
/// specializations. Aggregates with base classes, reference or C-array members are beyond
/// Boost.PFR (its `static_assert` fires): give them a codec. Every translation unit that encodes a type must
/// see the same codec for it (as for any template specialization).
///
/// # Errors
///
/// Decoding never has undefined behaviour on bad input: a read past the end, a bad `bool`,
/// `optional` or `variant` tag, or an element count the remaining bytes cannot hold throws
/// `CodecError` (a `timely::Error`) with the absolute byte offset (`base` + position) of the
/// offending read and the name of what was being read. Memory use is bounded by the bytes
/// present: a count is rejected before anything is allocated if `count * min_size` exceeds the
/// remaining bytes (for elements that may encode to zero bytes, counts above
/// `Decoder::max_empty_count()` are rejected). Encoding throws only what the buffer's allocation
/// throws.
///
/// Thread-safety: an `Encoder` or `Decoder` belongs to one thread at a time; codecs are pure
/// functions of their arguments.
///
/// Source of the idea: the reference bounds exchanged data by serde's `Serialize +
/// Deserialize` (its `Data`/`ExchangeData` traits) and encodes it with bincode (SEMANTICS.md §7.5,
/// §9.2). This is a self-contained equivalent: fixed-width little-endian like bincode's default,
/// but not bincode-compatible (wire compatibility with the reference is not a goal).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <ratio>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <boost/pfr.hpp>

#include <timely/container/small_vector.hpp>
#include <timely/error.hpp>

namespace timely::communication {

// ---------------------------------------------------------------------------------------------
// Errors

/// Bytes that do not decode: too few of them, a bad tag, or an impossible count. `offset()` is
/// the absolute offset (the decoder's base plus its position) of the read that failed,
/// `reading()` names what was being read ("u64", "count of vec<string>", ...), `problem()` says
/// what was wrong.
class CodecError : public timely::Error {
 public:
  CodecError(std::uint64_t offset, std::string reading, std::string problem)
      : timely::Error("timely: codec: cannot decode " + reading + " at byte offset " +
                      std::to_string(offset) + ": " + problem),
        offset_(offset),
        reading_(std::move(reading)),
        problem_(std::move(problem)) {}

  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }
  [[nodiscard]] const std::string& reading() const noexcept { return reading_; }
  [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

 private:
  std::uint64_t offset_;
  std::string reading_;
  std::string problem_;
};

namespace detail {

inline constexpr bool little_endian = std::endian::native == std::endian::little;
static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "timely codec: mixed-endian hosts are not supported");

/// Reverses the bytes of an unsigned integer (std::byteswap is C++23).
template <std::unsigned_integral U>
constexpr U byteswap(U v) noexcept {
  if constexpr (sizeof(U) == 1) {
    return v;
  } else {
    U out = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) {
      out = static_cast<U>((out << 8) | (v & 0xFFu));
      v = static_cast<U>(v >> 8);
    }
    return out;
  }
}

/// `v` in little-endian byte order (a no-op on little-endian hosts).
template <std::unsigned_integral U>
constexpr U to_le(U v) noexcept {
  if constexpr (little_endian)
    return v;
  else
    return byteswap(v);
}

/// Types whose vectors and arrays are copied as one block on little-endian hosts: their codec
/// writes exactly their object bytes and accepts every bit pattern.
template <class X>
concept BulkCopyable = (std::is_integral_v<X> && !std::is_same_v<X, bool>) || std::is_same_v<X, float> ||
                       std::is_same_v<X, double>;

[[noreturn, gnu::cold, gnu::noinline]] inline void throw_codec_error(std::uint64_t offset,
                                                                     std::string reading,
                                                                     std::string problem) {
  throw CodecError(offset, std::move(reading), std::move(problem));
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Encoder

/// Appends encoded values to a byte buffer (which it borrows: the buffer must outlive it).
class Encoder {
 public:
  explicit Encoder(std::vector<std::uint8_t>& out) noexcept : out_(&out) {}

  void put_u8(std::uint8_t v) { out_->push_back(v); }
  void put_u16(std::uint16_t v) { put_int(v); }
  void put_u32(std::uint32_t v) { put_int(v); }
  void put_u64(std::uint64_t v) { put_int(v); }
  void put_i64(std::int64_t v) { put_int(v); }
  /// A `std::size_t` (a count, an index) as a u64, whatever the host's width.
  void put_size(std::size_t v) { put_int(static_cast<std::uint64_t>(v)); }

  /// An integer in its own width, little-endian; `bool` as one byte 0 or 1.
  template <std::integral I>
  void put_int(I v) {
    if constexpr (std::is_same_v<I, bool>) {
      put_u8(v ? 1 : 0);
    } else {
      using U = std::make_unsigned_t<I>;
      const U le = detail::to_le(static_cast<U>(v));
      std::memcpy(grow(sizeof(U)), &le, sizeof(U));
    }
  }
  /// The low `width` (<= 8) bytes of `v`, least significant first.
  void put_le(std::uint64_t v, std::size_t width) {
    if (width > 8) width = 8;
    const std::uint64_t le = detail::to_le(v);
    if constexpr (detail::little_endian) {
      std::memcpy(grow(width), &le, width);
    } else {
      std::uint8_t* p = grow(width);
      for (std::size_t i = 0; i < width; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
  }
  /// Appends `n` bytes from `data` as they are.
  void put_bytes(const void* data, std::size_t n) {
    if (n != 0) std::memcpy(grow(n), data, n);
  }
  /// Appends `n` zero bytes and returns a pointer to them (to be overwritten), valid until the
  /// buffer next grows.
  [[nodiscard]] std::uint8_t* grow(std::size_t n) {
    const std::size_t old = out_->size();
    out_->resize(old + n);
    return out_->data() + old;
  }
  /// Reserves room for `n` more bytes.
  void reserve(std::size_t n) { out_->reserve(out_->size() + n); }
  /// Bytes in the buffer (including any that were there before this encoder).
  [[nodiscard]] std::size_t size() const noexcept { return out_->size(); }
  /// The buffer written to.
  [[nodiscard]] std::vector<std::uint8_t>& buffer() const noexcept { return *out_; }

  /// Encodes `x` with its `Codec` (defined below).
  template <class X>
  void put(const X& x);

 private:
  std::vector<std::uint8_t>* out_;
};

// ---------------------------------------------------------------------------------------------
// Decoder

/// Reads encoded values from a span of bytes whose first byte is at absolute offset `base`
/// (used only in errors). Every read checks the remaining length first and throws `CodecError`
/// at the absolute offset of the read if it runs short. Borrows the bytes.
class Decoder {
 public:
  explicit Decoder(std::span<const std::uint8_t> bytes, std::uint64_t base = 0) noexcept
      : bytes_(bytes), base_(base) {}

  [[nodiscard]] std::uint8_t get_u8() { return get_int<std::uint8_t>("u8"); }
  [[nodiscard]] std::uint16_t get_u16() { return get_int<std::uint16_t>("u16"); }
  [[nodiscard]] std::uint32_t get_u32() { return get_int<std::uint32_t>("u32"); }
  [[nodiscard]] std::uint64_t get_u64() { return get_int<std::uint64_t>("u64"); }
  [[nodiscard]] std::int64_t get_i64() { return get_int<std::int64_t>("i64"); }
  /// A u64 that must fit a `std::size_t`; `what` names it in errors.
  [[nodiscard]] std::size_t get_size(const char* what) {
    const std::uint64_t at = offset();
    const std::uint64_t v = get_int<std::uint64_t>(what);
    if constexpr (sizeof(std::size_t) < sizeof(std::uint64_t)) {
      if (v > std::numeric_limits<std::size_t>::max())
        fail_at(at, what, "value " + std::to_string(v) + " does not fit this host's size_t");
    }
    return static_cast<std::size_t>(v);
  }

  /// An integer in its own width; `bool` must be 0 or 1. `what` names it in errors.
  template <std::integral I>
  [[nodiscard]] I get_int(const char* what) {
    if constexpr (std::is_same_v<I, bool>) {
      need(1, what);
      const std::uint8_t b = bytes_[pos_];
      if (b > 1) fail_at(offset(), what, "a bool must be 0 or 1, found " + std::to_string(b));
      ++pos_;
      return b == 1;
    } else {
      using U = std::make_unsigned_t<I>;
      need(sizeof(U), what);
      U v;
      std::memcpy(&v, bytes_.data() + pos_, sizeof(U));
      pos_ += sizeof(U);
      return static_cast<I>(detail::to_le(v));
    }
  }
  /// The next `width` (<= 8) bytes as a little-endian unsigned integer.
  [[nodiscard]] std::uint64_t get_le(std::size_t width, const char* what) {
    if (width > 8) width = 8;
    need(width, what);
    std::uint64_t v = 0;
    if constexpr (detail::little_endian) {
      std::memcpy(&v, bytes_.data() + pos_, width);
    } else {
      for (std::size_t i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(bytes_[pos_ + i]) << (8 * i);
    }
    pos_ += width;
    return v;
  }
  /// The next `n` bytes, as they are (a view into the decoded span).
  [[nodiscard]] std::span<const std::uint8_t> get_bytes(std::size_t n, const char* what) {
    need(n, what);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  /// A u64 count of elements that each encode to at least `min_size` bytes. Rejects, at the
  /// count's offset, a count the remaining bytes cannot hold (for `min_size == 0`: one above
  /// `max_empty_count()`), so a caller may reserve `count` elements.
  [[nodiscard]] std::size_t get_count(std::size_t min_size, const char* what) {
    const std::uint64_t at = offset();
    const std::uint64_t n = get_int<std::uint64_t>(what);
    const std::uint64_t limit = min_size == 0 ? max_empty_count_ : remaining() / min_size;
    if (n > limit) [[unlikely]]
      count_too_large(at, what, n, min_size);
    return static_cast<std::size_t>(n);
  }
  /// Decodes an `X` with its `Codec` (defined below).
  template <class X>
  [[nodiscard]] X get();

  /// Throws unless every byte was read; `what` names the whole value.
  void expect_end(const char* what) const {
    if (remaining() != 0)
      fail_at(offset(), what, std::to_string(remaining()) + " bytes left over after its last field");
  }

  /// Bytes not yet read.
  [[nodiscard]] std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
  /// Bytes read so far.
  [[nodiscard]] std::size_t position() const noexcept { return pos_; }
  /// Absolute offset of the next byte.
  [[nodiscard]] std::uint64_t offset() const noexcept { return base_ + pos_; }
  /// The largest count accepted for elements whose encoding may be empty (default 2^32).
  [[nodiscard]] std::uint64_t max_empty_count() const noexcept { return max_empty_count_; }
  void set_max_empty_count(std::uint64_t n) noexcept { max_empty_count_ = n; }

  /// Rejects the input at the current offset: throws `CodecError`.
  [[noreturn]] void fail(const std::string& problem) const { fail_at(offset(), "a value", problem); }
  /// Rejects the input at absolute offset `at`, saying what was being read.
  [[noreturn]] static void fail_at(std::uint64_t at, const std::string& reading, const std::string& problem) {
    detail::throw_codec_error(at, reading, problem);
  }

 private:
  void need(std::size_t n, const char* what) const {
    if (remaining() < n) [[unlikely]]
      truncated(n, what);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void truncated(std::size_t n, const char* what) const {
    detail::throw_codec_error(
        offset(), what,
        "needs " + std::to_string(n) + " bytes but only " + std::to_string(remaining()) + " remain");
  }
  [[noreturn, gnu::cold, gnu::noinline]] void count_too_large(std::uint64_t at, const char* what,
                                                              std::uint64_t n, std::size_t min_size) const {
    detail::throw_codec_error(
        at, what,
        "count " + std::to_string(n) + " exceeds what the remaining " + std::to_string(remaining()) +
            " bytes can hold" +
            (min_size == 0 ? " (limit " + std::to_string(max_empty_count_) + " for possibly empty elements)"
                           : " at " + std::to_string(min_size) + " bytes or more each"));
  }

  std::span<const std::uint8_t> bytes_;
  std::uint64_t base_;
  std::size_t pos_ = 0;
  std::uint64_t max_empty_count_ = std::uint64_t{1} << 32;
};

// ---------------------------------------------------------------------------------------------
// Codec

/// How values of type `X` are encoded (see the file comment). The primary template is empty:
/// a type without a specialization is not `Encodable`.
template <class X, class Enable = void>
struct Codec {};

/// A type with a codec: `Codec<X>::encode(Encoder&, const X&)`, `Codec<X>::decode(Decoder&) ->
/// X` and `Codec<X>::name() -> std::string`.
template <class X>
concept Encodable = requires(Encoder& e, Decoder& d, const X& x) {
  Codec<X>::encode(e, x);
  { Codec<X>::decode(d) } -> std::same_as<X>;
  { Codec<X>::name() } -> std::convertible_to<std::string>;
};

/// The least number of bytes an encoded `X` takes (`Codec<X>::min_size`, or 0 if not given).
template <class X>
constexpr std::size_t codec_min_size() {
  if constexpr (requires { Codec<X>::min_size; })
    return Codec<X>::min_size;
  else
    return 0;
}

template <class X>
void Encoder::put(const X& x) {
  static_assert(Encodable<X>, "timely: no Codec for this type; specialize timely::communication::Codec");
  Codec<X>::encode(*this, x);
}
template <class X>
X Decoder::get() {
  static_assert(Encodable<X>, "timely: no Codec for this type; specialize timely::communication::Codec");
  return Codec<X>::decode(*this);
}

/// `x` encoded into a new buffer.
template <Encodable X>
std::vector<std::uint8_t> encode_bytes(const X& x) {
  std::vector<std::uint8_t> out;
  Encoder e(out);
  Codec<X>::encode(e, x);
  return out;
}
/// The `X` encoded in exactly `bytes` (whose first byte is at absolute offset `base`).
/// \throws CodecError on bad input or bytes left over.
template <Encodable X>
X decode_bytes(std::span<const std::uint8_t> bytes, std::uint64_t base = 0) {
  Decoder d(bytes, base);
  X x = Codec<X>::decode(d);
  if (d.remaining() != 0) d.expect_end(Codec<X>::name().c_str());
  return x;
}

namespace detail {

template <class X>
struct IsStdTemplate : std::false_type {};
template <class A, class B>
struct IsStdTemplate<std::pair<A, B>> : std::true_type {};
template <class... X>
struct IsStdTemplate<std::tuple<X...>> : std::true_type {};
template <class X, std::size_t N>
struct IsStdTemplate<std::array<X, N>> : std::true_type {};
template <class X>
struct IsStdTemplate<std::optional<X>> : std::true_type {};
template <class... X>
struct IsStdTemplate<std::variant<X...>> : std::true_type {};
template <class R, class P>
struct IsStdTemplate<std::chrono::duration<R, P>> : std::true_type {};

template <class X>
concept Unqualified = std::is_same_v<X, std::remove_cv_t<X>> && !std::is_reference_v<X>;

template <class X>
concept CodecInteger = std::integral<X> && Unqualified<X>;

template <class X>
concept CodecFloat = std::is_same_v<X, float> || std::is_same_v<X, double>;

template <class X>
concept ScopedEnum =
    std::is_enum_v<X> && Unqualified<X> && !std::is_convertible_v<X, std::underlying_type_t<X>>;

/// Trivially copyable types without a codec of their own: encoded as their object bytes.
template <class X>
concept RawCodable =
    std::is_trivially_copyable_v<X> && std::is_default_constructible_v<X> && Unqualified<X> &&
    !std::is_integral_v<X> &&
    !CodecFloat<X> && !std::is_enum_v<X> && !std::is_pointer_v<X> && !std::is_member_pointer_v<X> &&
    !std::is_null_pointer_v<X> && !std::is_array_v<X> && !IsStdTemplate<X>::value;

template <class X, std::size_t I>
using PfrField = std::remove_cv_t<boost::pfr::tuple_element_t<I, X>>;

template <class X>
consteval bool pfr_fields_encodable() {
  return []<std::size_t... I>(std::index_sequence<I...>) {
    return (true && ... && Encodable<PfrField<X, I>>);
  }
  (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
}

/// Aggregates (not trivially copyable, so no object-bytes codec) whose fields all have codecs.
template <class X>
concept PfrCodable = std::is_class_v<X> && std::is_aggregate_v<X> && Unqualified<X> && !std::is_union_v<X> &&
                     !RawCodable<X> && !IsStdTemplate<X>::value && pfr_fields_encodable<X>();

template <class... X>
std::string join_names() {
  std::string out;
  bool first = true;
  ((out += (first ? "" : ","), out += Codec<X>::name(), first = false), ...);
  return out;
}

/// Encodes the elements of a contiguous sequence of `n` values (no count).
template <class X>
void encode_elements(Encoder& e, const X* data, std::size_t n) {
  if constexpr (BulkCopyable<X> && little_endian) {
    e.put_bytes(data, n * sizeof(X));
  } else {
    for (std::size_t i = 0; i < n; ++i) e.put(data[i]);
  }
}

/// Decodes `n` elements into `data` (which holds `n` values to overwrite). For bulk types, the
/// caller has checked that `n * sizeof(X)` bytes can be present (a checked count).
template <class X>
void decode_elements(Decoder& d, X* data, std::size_t n, const char* what) {
  if constexpr (BulkCopyable<X> && little_endian) {
    auto bytes = d.get_bytes(n * sizeof(X), what);
    if (n != 0) std::memcpy(static_cast<void*>(data), bytes.data(), bytes.size());
  } else {
    for (std::size_t i = 0; i < n; ++i) data[i] = d.get<X>();
  }
}

/// Decodes `n` (checked) elements onto the end of `out` (a vector-like container).
template <class X, class Seq>
void decode_sequence(Decoder& d, Seq& out, std::size_t n, const char* what) {
  if constexpr (BulkCopyable<X> && little_endian) {
    out.resize(n);
    decode_elements<X>(d, out.data(), n, what);
  } else {
    if constexpr (codec_min_size<X>() > 0) out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(d.get<X>());
  }
}

}  // namespace detail

/// Integers (and `bool`, checked 0 or 1).
template <detail::CodecInteger X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, X x) { e.put_int(x); }
  static X decode(Decoder& d) { return d.get_int<X>(name_cstr()); }
  static std::string name() { return name_cstr(); }

 private:
  static const char* name_cstr() {
    if constexpr (std::is_same_v<X, bool>)
      return "bool";
    else if constexpr (std::is_same_v<X, char>)
      return "char";
    else if constexpr (sizeof(X) == 1)
      return std::is_signed_v<X> ? "i8" : "u8";
    else if constexpr (sizeof(X) == 2)
      return std::is_signed_v<X> ? "i16" : "u16";
    else if constexpr (sizeof(X) == 4)
      return std::is_signed_v<X> ? "i32" : "u32";
    else if constexpr (sizeof(X) == 8)
      return std::is_signed_v<X> ? "i64" : "u64";
    else
      return std::is_signed_v<X> ? "i128" : "u128";
  }
};

/// `float` and `double`: their IEEE-754 bits.
template <detail::CodecFloat X>
struct Codec<X, void> {
  using Bits = std::conditional_t<sizeof(X) == 4, std::uint32_t, std::uint64_t>;
  static_assert(sizeof(X) == sizeof(Bits) && std::numeric_limits<X>::is_iec559,
                "timely codec: float and double must be IEEE-754 binary32 and binary64");
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, X x) { e.put_int(std::bit_cast<Bits>(x)); }
  static X decode(Decoder& d) { return std::bit_cast<X>(d.get_int<Bits>(sizeof(X) == 4 ? "f32" : "f64")); }
  static std::string name() { return sizeof(X) == 4 ? "f32" : "f64"; }
};

/// Scoped enums: their underlying integer (every value of it is a valid enum value).
template <detail::ScopedEnum X>
struct Codec<X, void> {
  using U = std::underlying_type_t<X>;
  static constexpr std::size_t min_size = sizeof(U);
  static void encode(Encoder& e, X x) { e.put_int(static_cast<U>(x)); }
  static X decode(Decoder& d) { return static_cast<X>(Codec<U>::decode(d)); }
  static std::string name() { return "enum:" + Codec<U>::name(); }
};

/// Other trivially copyable types: their object bytes (see the caveats in the file comment).
template <detail::RawCodable X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = sizeof(X);
  static void encode(Encoder& e, const X& x) {
    if constexpr (std::is_empty_v<X>)
      (void)e.grow(sizeof(X));  // zeros: an empty object's byte has no value to copy
    else
      e.put_bytes(&x, sizeof(X));
  }
  static X decode(Decoder& d) {
    X x;
    auto bytes = d.get_bytes(sizeof(X), "a trivially copyable value");
    std::memcpy(static_cast<void*>(&x), bytes.data(), sizeof(X));
    return x;
  }
  static std::string name() { return "raw" + std::to_string(sizeof(X)); }
};

/// Aggregates that are not trivially copyable, field by field (Boost.PFR).
template <detail::PfrCodable X>
struct Codec<X, void> {
  static constexpr std::size_t min_size = []<std::size_t... I>(std::index_sequence<I...>) {
    return (std::size_t{0} + ... + codec_min_size<detail::PfrField<X, I>>());
  }
  (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});

  static void encode(Encoder& e, const X& x) {
    boost::pfr::for_each_field(x, [&](const auto& field) { e.put(field); });
  }
  static X decode(Decoder& d) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return X{d.get<detail::PfrField<X, I>>()...};  // braced: left to right
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
  }
  static std::string name() {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return "{" + detail::join_names<detail::PfrField<X, I>...>() + "}";
    }
    (std::make_index_sequence<boost::pfr::tuple_size_v<X>>{});
  }
};

/// `std::monostate` (the empty alternative of a variant): nothing.
template <>
struct Codec<std::monostate, void> {
  static constexpr std::size_t min_size = 0;
  static void encode(Encoder&, std::monostate) {}
  static std::monostate decode(Decoder&) { return {}; }
  static std::string name() { return "monostate"; }
};

/// `std::string`: u64 length, then the bytes.
template <>
struct Codec<std::string, void> {
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const std::string& s) {
    const std::uint64_t len = detail::to_le(static_cast<std::uint64_t>(s.size()));
    std::uint8_t* p = e.grow(8 + s.size());  // one growth for length and bytes
    std::memcpy(p, &len, 8);
    if (!s.empty()) std::memcpy(p + 8, s.data(), s.size());
  }
  static std::string decode(Decoder& d) {
    const std::size_t n = d.get_count(1, "string length");
    auto bytes = d.get_bytes(n, "string bytes");
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  static std::string name() { return "string"; }
};

/// `std::vector<X>`: u64 count, then the elements (one block for numbers).
template <Encodable X, class Alloc>
struct Codec<std::vector<X, Alloc>, void> {
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const std::vector<X, Alloc>& v) {
    e.put_u64(v.size());
    if constexpr (std::is_same_v<X, bool>) {
      for (bool b : v) e.put_int(b);
    } else {
      detail::encode_elements(e, v.data(), v.size());
    }
  }
  static std::vector<X, Alloc> decode(Decoder& d) {
    const std::size_t n = d.get_count(codec_min_size<X>(), "count of vec elements");
    std::vector<X, Alloc> v;
    detail::decode_sequence<X>(d, v, n, "vec elements");
    return v;
  }
  static std::string name() { return "vec<" + Codec<X>::name() + ">"; }
};

/// `container::SmallVector<X, N>` (Boost's `small_vector`): as `std::vector<X>`.
template <Encodable X, std::size_t N, class Alloc, class Options>
struct Codec<boost::container::small_vector<X, N, Alloc, Options>, void> {
  using V = boost::container::small_vector<X, N, Alloc, Options>;
  static constexpr std::size_t min_size = 8;
  static void encode(Encoder& e, const V& v) {
    e.put_u64(v.size());
    detail::encode_elements(e, v.data(), v.size());
  }
  static V decode(Decoder& d) {
    const std::size_t n = d.get_count(codec_min_size<X>(), "count of vec elements");
    V v;
    detail::decode_sequence<X>(d, v, n, "vec elements");
    return v;
  }
  static std::string name() { return "vec<" + Codec<X>::name() + ">"; }
};

/// `std::array<X, N>`: the N elements (no count).
template <Encodable X, std::size_t N>
struct Codec<std::array<X, N>, void> {
  static constexpr std::size_t min_size = N * codec_min_size<X>();
  static void encode(Encoder& e, const std::array<X, N>& a) { detail::encode_elements(e, a.data(), N); }
  static std::array<X, N> decode(Decoder& d) {
    if constexpr (std::is_default_constructible_v<X>) {
      std::array<X, N> a{};
      detail::decode_elements<X>(d, a.data(), N, "array elements");
      return a;
    } else {
      return [&]<std::size_t... I>(std::index_sequence<I...>) {
        return std::array<X, N>{((void)I, d.get<X>())...};  // braced: left to right
      }
      (std::make_index_sequence<N>{});
    }
  }
  static std::string name() { return "array<" + Codec<X>::name() + "," + std::to_string(N) + ">"; }
};

/// `std::pair<A, B>`: first, then second.
template <Encodable A, Encodable B>
struct Codec<std::pair<A, B>, void> {
  static constexpr std::size_t min_size = codec_min_size<A>() + codec_min_size<B>();
  static void encode(Encoder& e, const std::pair<A, B>& p) {
    e.put(p.first);
    e.put(p.second);
  }
  static std::pair<A, B> decode(Decoder& d) {
    A a = d.get<A>();
    B b = d.get<B>();
    return {std::move(a), std::move(b)};
  }
  static std::string name() { return "pair<" + Codec<A>::name() + "," + Codec<B>::name() + ">"; }
};

/// `std::tuple<X...>`: the fields in order.
template <Encodable... X>
struct Codec<std::tuple<X...>, void> {
  static constexpr std::size_t min_size = (std::size_t{0} + ... + codec_min_size<X>());
  static void encode(Encoder& e, const std::tuple<X...>& t) {
    std::apply([&](const auto&... field) { (e.put(field), ...); }, t);
  }
  static std::tuple<X...> decode(Decoder& d) {
    return std::tuple<X...>{d.get<X>()...};  // braced: left to right
  }
  static std::string name() { return "tuple<" + detail::join_names<X...>() + ">"; }
};

/// `std::optional<X>`: u8 0 for empty, or u8 1 and the value.
template <Encodable X>
struct Codec<std::optional<X>, void> {
  static constexpr std::size_t min_size = 1;
  static void encode(Encoder& e, const std::optional<X>& o) {
    e.put_u8(o.has_value() ? 1 : 0);
    if (o) e.put(*o);
  }
  static std::optional<X> decode(Decoder& d) {
    const std::uint64_t at = d.offset();
    const std::uint8_t tag = d.get_int<std::uint8_t>("optional tag");
    if (tag == 0) return std::nullopt;
    if (tag != 1) Decoder::fail_at(at, "optional tag", "must be 0 or 1, found " + std::to_string(tag));
    return std::optional<X>(d.get<X>());
  }
  static std::string name() { return "optional<" + Codec<X>::name() + ">"; }
};

/// `std::variant<X...>`: u32 index of the alternative (checked), then its value. A variant that
/// is valueless by exception cannot be encoded (throws `std::bad_variant_access`).
template <Encodable... X>
requires(sizeof...(X) > 0) struct Codec<std::variant<X...>, void> {
  using V = std::variant<X...>;
  static constexpr std::size_t min_size = 4 + std::min({codec_min_size<X>()...});
  static void encode(Encoder& e, const V& v) {
    if (v.valueless_by_exception()) throw std::bad_variant_access();
    e.put_u32(static_cast<std::uint32_t>(v.index()));
    std::visit([&](const auto& alt) { e.put(alt); }, v);
  }
  static V decode(Decoder& d) {
    const std::uint64_t at = d.offset();
    const std::uint32_t index = d.get_int<std::uint32_t>("variant index");
    if (index >= sizeof...(X))
      Decoder::fail_at(at, "variant index",
                       "alternative " + std::to_string(index) + " of a variant with " +
                           std::to_string(sizeof...(X)) + " alternatives");
    return decode_at(d, index, std::index_sequence_for<X...>{});
  }
  static std::string name() { return "variant<" + detail::join_names<X...>() + ">"; }

 private:
  template <std::size_t... I>
  static V decode_at(Decoder& d, std::uint32_t index, std::index_sequence<I...>) {
    std::optional<V> out;
    ((index == I ? (out.emplace(std::in_place_index<I>, d.get<std::variant_alternative_t<I, V>>()), true)
                 : false) ||
     ...);
    return std::move(*out);
  }
};

/// `std::chrono::duration<Rep, Period>`: its count, as a `Rep`.
template <Encodable Rep, class Period>
struct Codec<std::chrono::duration<Rep, Period>, void> {
  using D = std::chrono::duration<Rep, Period>;
  static constexpr std::size_t min_size = codec_min_size<Rep>();
  static void encode(Encoder& e, const D& x) { e.put(x.count()); }
  static D decode(Decoder& d) { return D(d.get<Rep>()); }
  static std::string name() {
    return "duration<" + Codec<Rep>::name() + "," + std::to_string(Period::num) + "/" +
           std::to_string(Period::den) + ">";
  }
};

}  // namespace timely::communication
