/// \file
/// Log-file encodings (`logging::EventCodec`, timely/logging/codec.hpp) of the progress layer's
/// timestamps, so that the typed log streams of iterative scopes ("timely/progress/Product<u64,
/// u32>", "timely/frontier/()", ...) can be written to log files and read back:
///
///     type            bytes                              name
///     Product<A, B>   outer: A, then inner: B            "Product<A, B>" (A's and B's names)
///     Unit            nothing                            "()"
///
/// The names equal `timely::type_name<X>()` (timely/progress/type_name.hpp) whenever the inner
/// types' codec names equal theirs (every integer, `bool`, `Duration`), so a stream's name and
/// its event type agree. Included by timely/timely.hpp; include it wherever such a stream is
/// bound to a `FileSink` or read with a `FileReader`.
///
/// Errors: decoding throws `logging::CodecError` when the inner types' codecs do (too few
/// bytes, a bad value); `Unit` reads nothing and cannot fail.
///
/// Source: our own, following the reference, which serializes `Product` (outer, inner) and `()`
/// with bincode (SEMANTICS.md §1, §8.1). Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>

#include <timely/logging/codec.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::logging {

/// `timely::Product<A, B>`: the outer time, then the inner one.
template <Encodable A, Encodable B>
struct EventCodec<Product<A, B>> {
  static std::string name() {
    return "Product<" + EventCodec<A>::name() + ", " + EventCodec<B>::name() + ">";
  }
  static void put(Encoder& out, const Product<A, B>& v) {
    encode(out, v.outer);
    encode(out, v.inner);
  }
  static Product<A, B> get(Decoder& in) {
    A outer = decode<A>(in);  // named, so that the fields are read in order
    B inner = decode<B>(in);
    return Product<A, B>{std::move(outer), std::move(inner)};
  }
};

/// `timely::Unit`: no bytes.
template <>
struct EventCodec<Unit> {
  static std::string name() { return "()"; }
  static void put(Encoder&, const Unit&) {}
  static Unit get(Decoder&) { return Unit{}; }
};

}  // namespace timely::logging
