/// \file
/// The machinery of the serialization customization point (the file comment of codec.hpp says
/// how to use it and what the built-in codecs write): `CodecError` (what bad input throws),
/// `Encoder` (appends bytes to a buffer), `Decoder` (reads them back, every read bounds-checked),
/// the `Codec<X>` template (empty: a type has a codec when it is specialized), the `Encodable`
/// concept, `codec_min_size`, `encode_bytes` and `decode_bytes`. No codec for any type is here:
/// they are in codec_builtin.hpp, and codec.hpp includes both.
///
/// Source of the idea: the reference's serde `Serialize + Deserialize` bound with bincode
/// (SEMANTICS.md §7.5, §9.2). Thread-safety: an `Encoder` or `Decoder` belongs to one thread at a
/// time; codecs are pure functions of their arguments.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/communication/error.hpp>

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

class Encoder;
class Decoder;

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

// ---------------------------------------------------------------------------------------------
// Encoder

/// Bytes an `Encoder` kept by address instead of copying (`Encoder::put_lasting`): they belong
/// `at` bytes into its buffer, before the byte that is there now (entries in order of `at`).
struct LastingBytes {
  std::size_t at = 0;
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
};

/// Appends encoded values to a byte buffer (which it borrows: the buffer must outlive it).
class Encoder {
 public:
  explicit Encoder(std::vector<std::uint8_t>& out) noexcept : out_(&out) {}
  /// An encoder that keeps blocks of at least `lasting_min` bytes handed to `put_lasting` by
  /// address in `lasting` instead of copying them: the encoded bytes are then the buffer with
  /// each entry's bytes inserted at its `at`. The cluster transport writes them with gather I/O
  /// while the value they belong to is still alive. Entries already in `lasting` count as
  /// encoded bytes.
  Encoder(std::vector<std::uint8_t>& out, std::vector<LastingBytes>& lasting,
          std::size_t lasting_min) noexcept
      : out_(&out), lasting_(&lasting), lasting_min_(lasting_min) {
    for (const auto& piece : lasting) lasting_bytes_ += piece.size;
  }

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
    // An append, not grow() and a copy: resize would zero the bytes first.
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    if (n != 0) out_->insert(out_->end(), bytes, bytes + n);
  }
  /// Appends `n` bytes from `data` that stay valid and unchanged until the encoded bytes have
  /// been used (the value being encoded owns them): kept by address if this encoder keeps
  /// lasting bytes and `n` is at least its threshold, copied otherwise.
  void put_lasting(const void* data, std::size_t n) {
    if (lasting_ != nullptr && n != 0 && n >= lasting_min_) {
      lasting_->push_back({out_->size(), static_cast<const std::uint8_t*>(data), n});
      lasting_bytes_ += n;
    } else {
      put_bytes(data, n);
    }
  }
  /// Appends zero bytes until `size()` is a multiple of `alignment` (> 0).
  void pad_to(std::size_t alignment) {
    if (const std::size_t rest = size() % alignment; rest != 0)
      out_->resize(out_->size() + alignment - rest, 0);
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
  /// Bytes encoded so far: the buffer's (including any that were there before this encoder)
  /// plus the lasting bytes kept by address.
  [[nodiscard]] std::size_t size() const noexcept { return out_->size() + lasting_bytes_; }
  /// The buffer written to. It lacks the lasting bytes kept by address, so a codec that
  /// aligns by `buffer().size()` should use `pad_to` instead.
  [[nodiscard]] std::vector<std::uint8_t>& buffer() const noexcept { return *out_; }

  /// Encodes `x` with its `Codec`.
  template <class X>
  void put(const X& x) {
    static_assert(Encodable<X>, "timely: no Codec for this type; specialize timely::communication::Codec");
    Codec<X>::encode(*this, x);
  }

 private:
  std::vector<std::uint8_t>* out_;
  std::vector<LastingBytes>* lasting_ = nullptr;
  std::size_t lasting_min_ = 0;
  std::size_t lasting_bytes_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Decoder

/// Reads encoded values from a span of bytes whose first byte is at absolute offset `base`
/// (used only in errors). Every read checks the remaining length first and throws `CodecError`
/// at the absolute offset of the read if it runs short. Borrows the bytes; given an `owner`
/// that keeps them alive (the receive slab), codecs of types that can read bytes in place
/// (columnar batches, codec_columnar.hpp) keep a reference to it instead of copying.
class Decoder {
 public:
  explicit Decoder(std::span<const std::uint8_t> bytes, std::uint64_t base = 0) noexcept
      : bytes_(bytes), base_(base) {}
  /// Bytes kept alive by `owner` for as long as anyone holds it.
  Decoder(std::span<const std::uint8_t> bytes, std::uint64_t base, std::shared_ptr<const void> owner) noexcept
      : bytes_(bytes), base_(base), owner_(std::move(owner)) {}

  /// What keeps the bytes alive beyond the decode, or null if nothing does (then a decoded
  /// value must not point into them).
  [[nodiscard]] const std::shared_ptr<const void>& owner() const noexcept { return owner_; }

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
  /// Decodes an `X` with its `Codec`.
  template <class X>
  [[nodiscard]] X get() {
    static_assert(Encodable<X>, "timely: no Codec for this type; specialize timely::communication::Codec");
    return Codec<X>::decode(*this);
  }

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
  std::shared_ptr<const void> owner_;
  std::size_t pos_ = 0;
  std::uint64_t max_empty_count_ = std::uint64_t{1} << 32;
};

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

}  // namespace timely::communication
