/// \file
/// The serialization customization point: `Codec<X>` says how a value of type `X` becomes bytes
/// and back, `Encoder` appends those bytes to a buffer, `Decoder` reads them back with every read
/// bounds-checked, and `CodecError` is what bad input throws. The cluster (multi-process TCP)
/// allocator encodes every message that leaves a process with it, and the capture event format
/// (capture/format.hpp) encodes its times and records with it.
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
/// padded (framing and padding belong to whoever stores the bytes), except columnar batches,
/// which pad to 8 relative to the start of the buffer so that they can be read in place.
/// `name()` is a short description of the encoding (the capture format writes it in its header
/// and compares it when reading; equal names mean equal encodings).
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
///     container::columnar::Batch<X>      zero bytes to a multiple of 8, u64 length,  columnar<layout>
///                                        the batch's header and aligned columns
///                                        (codec_columnar.hpp; read in place)
///     other trivially copyable type      its object bytes, as laid out on the host   raw16 (its size)
///
/// In core (include/timely/progress/codecs.hpp): `timely::Product<A, B>` (outer, inner; `product<A,B>`),
/// `timely::Unit` (nothing; `unit`) and `progress::Location` (node u64, port u64, is_source bool;
/// `location`); in dataflow/message.hpp `Message<T, D>`, in progress/broadcast.hpp `ProgressMessage<T>`.
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
///
/// # Files
///
/// This header is what a user includes. It holds nothing itself: `codec_core.hpp` has the
/// machinery (`CodecError`, `Encoder`, `Decoder`, the `Codec` template and the `Encodable`
/// concept), `codec_builtin.hpp` the codecs of the table above, `codec_columnar.hpp` that of
/// columnar batches. Only a header that names the machinery without asking whether a type has
/// a codec, nor instantiating one, may include `codec_core.hpp` alone; every other includes
/// this one, so that every translation unit decides with the same codecs (the built-in ones
/// are partial specializations: where one is not visible, `Encodable<X>` would be false for a
/// type that has a codec elsewhere, an ODR violation). Of Boost.PFR only its core is parsed.
#pragma once

#include <timely/communication/codec_builtin.hpp>
#include <timely/communication/codec_columnar.hpp>
#include <timely/communication/codec_core.hpp>
