/// \file
/// Codecs (communication/codec.hpp) for the core types that live above the communication
/// library: the timestamps `timely::Product<A, B>` and `timely::Unit`, and the progress port
/// `progress::Location`. `Message<T, D>` and `ProgressMessage<T>` have theirs next to their
/// definitions (dataflow/message.hpp, progress/broadcast.hpp), which include this header.
///
/// Wire encodings (little-endian, no padding):
///
///     Product<A, B>  outer: A, then inner: B           name "product<A,B>"
///     Unit           nothing                           name "unit"
///     Location       node u64, port u64, is_source bool name "location"
///
/// Include this header wherever one of these types is encoded (timely.hpp, message.hpp,
/// broadcast.hpp, capture/writer.hpp and capture/reader.hpp do): without it, `Product` and
/// `Unit`, being trivially copyable, would fall back to the object-bytes codec, a different
/// encoding.
///
/// Source: the reference derives serde's `Serialize`/`Deserialize` for `Product`, `()` and its
/// `Location` (SEMANTICS.md §7.5). Thread-safety: codecs are pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <timely/communication/codec.hpp>
#include <timely/progress/location.hpp>
#include <timely/progress/timestamp.hpp>

namespace timely::communication {

/// `timely::Unit`: nothing.
template <>
struct Codec<Unit, void> {
  static constexpr std::size_t min_size = 0;
  static void encode(Encoder&, const Unit&) {}
  static Unit decode(Decoder&) { return {}; }
  static std::string name() { return "unit"; }
};

/// `timely::Product<A, B>`: outer, then inner.
template <Encodable A, Encodable B>
struct Codec<Product<A, B>, void> {
  static constexpr std::size_t min_size = codec_min_size<A>() + codec_min_size<B>();
  static void encode(Encoder& e, const Product<A, B>& p) {
    e.put(p.outer);
    e.put(p.inner);
  }
  static Product<A, B> decode(Decoder& d) {
    Product<A, B> p;
    p.outer = d.get<A>();
    p.inner = d.get<B>();
    return p;
  }
  static std::string name() { return "product<" + Codec<A>::name() + "," + Codec<B>::name() + ">"; }
};

/// `progress::Location`: node and port as u64 (whatever the host's `size_t`), then `is_source`.
template <>
struct Codec<progress::Location, void> {
  static constexpr std::size_t min_size = 8 + 8 + 1;
  static void encode(Encoder& e, const progress::Location& l) {
    e.put_size(l.node);
    e.put_size(l.port);
    e.put_int(l.is_source);
  }
  static progress::Location decode(Decoder& d) {
    progress::Location l;
    l.node = d.get_size("location node");
    l.port = d.get_size("location port");
    l.is_source = d.get_int<bool>("location is_source");
    return l;
  }
  static std::string name() { return "location"; }
};

}  // namespace timely::communication
