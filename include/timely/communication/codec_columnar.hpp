/// \file
/// The codec of columnar batches (`Codec<container::columnar::Batch<T>>`): zero bytes until the
/// buffer's size is a multiple of 8, a u64 byte length, then the batch's serialized bytes
/// (container/columnar/layout.hpp), so that its column buffers are 8-byte aligned relative to
/// the start of the encoder's buffer. The column buffers go through `Encoder::put_lasting`: an
/// encoder of the cluster transport keeps large ones by address and the socket write gathers
/// them, with no copy. Decoding skips the same padding (relative to the start of
/// the decoder's bytes, which must be where the encoder's buffer started, or 8-aligned
/// relative to it), validates the batch once and, when the decoder has an `owner()` and the
/// bytes are 8-byte aligned in memory, borrows them in place (no copy, no allocation).
/// codec.hpp includes this header, so every translation unit sees the same codecs.
///
/// Errors: a non-zero padding byte, a short length, or a batch that does not match its layout
/// throws `CodecError` at the absolute offset of the bad byte, reading "columnar padding",
/// "columnar batch length" or "columnar column <path>" (from `columnar::LayoutError`).
///
/// Source of the idea: the reference's `ContainerBytes` for columnar containers (`from_bytes`
/// over a `Bytes` view of the receive slab, `into_bytes` writing aligned columns; SEMANTICS.md
/// §7.5, §9.3). Thread-safety: as for every codec, a pure function of its arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <timely/communication/codec_core.hpp>
#include <timely/container/columnar.hpp>

namespace timely::communication {

/// A columnar batch: padding to 8, u64 length, the batch (see the file comment).
template <class T>
struct Codec<container::columnar::Batch<T>, void> {
  using B = container::columnar::Batch<T>;
  /// The length word and the smallest batch (a header whose buffers are all empty).
  static constexpr std::size_t min_size = 8 + container::columnar::header_bytes(B::buffers());

  static void encode(Encoder& e, const B& batch) {
    e.pad_to(8);
    e.put_u64(batch.serialized_size());
    batch.write_pieces([&](const std::uint8_t* data, std::size_t n, bool lasting) {
      if (lasting)
        e.put_lasting(data, n);
      else
        e.put_bytes(data, n);
    });
  }

  static B decode(Decoder& d) {
    const std::size_t pad = (8 - d.position() % 8) % 8;
    const std::uint64_t pad_at = d.offset();
    const auto padding = d.get_bytes(pad, "columnar padding");
    for (std::size_t i = 0; i < padding.size(); ++i)
      if (padding[i] != 0)
        d.fail_at(pad_at + i, "columnar padding", "byte " + std::to_string(padding[i]) + " is not zero");
    const std::size_t length = d.get_size("columnar batch length");
    const std::uint64_t start = d.offset();
    const auto bytes = d.get_bytes(length, "columnar batch");
    try {
      return B::from_bytes(bytes, d.owner());
    } catch (const container::columnar::LayoutError& error) {
      Decoder::fail_at(start + error.offset(), "columnar column " + error.column(), error.problem());
    }
  }

  static std::string name() { return "columnar<" + container::columnar::layout_name<T>() + ">"; }
};

}  // namespace timely::communication
