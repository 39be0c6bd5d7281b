/// \file
/// `EventReaderCore<T, C>` and `ReaderOptions`: read the events of a captured stream of
/// containers `C` back from a `std::istream` (or a file) in timely's binary event format,
/// defined in capture/format.hpp, checking everything and throwing `FormatError` on any problem;
/// complete or live (growing) input. `EventReader<T, D>` is its `std::vector<D>` case. Columnar
/// batches read this way are copied out of the read buffer (once, aligned); to read a finished
/// file in place use `MappedEventReaderCore` (capture/mapped.hpp). Source of the idea: the
/// reference's `EventReader`. Thread-safety: a reader belongs to one thread at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <timely/capture/event.hpp>
#include <timely/capture/format.hpp>
#include <timely/capture/frames.hpp>
#include <timely/communication/codec.hpp>
#include <timely/progress/codecs.hpp>

namespace timely::capture {

/// How an `EventReader` treats the end of its input.
struct ReaderOptions {
  /// false (default): the input is complete. The end of input at an event boundary ends the
  /// stream (`exhausted()`); anywhere else it is `Truncated`.
  /// true: the input may still grow (a file being written, a pipe). The end of input means "no
  /// event yet": partial bytes are kept, the stream's state is cleared and reading resumes on
  /// the next `next()`.
  bool live = false;
  /// Largest event body accepted, in bytes; longer is `EventTooLarge`.
  std::uint64_t max_event_bytes = std::uint64_t{1} << 30;
};

/// Reads events of a stream with times `T` and containers `C` from a `std::istream` in the format
/// of capture/format.hpp. An `EventSource`: `next()` returns the next whole event, or `std::nullopt` if none
/// is available (in complete mode: the end was reached, see `exhausted()`).
///
/// Holds the stream (borrowed, or owned when given as `std::unique_ptr`) and the bytes of the
/// item being read (at most one header or event, read in chunks of at most 1 MiB). Checks the
/// header's magic, version, flags, checksum and type names against `Codec<T>::name()` and
/// the records' type name (capture/format.hpp), and every frame's kind, length, checksum and
/// fields.
/// \throws FormatError on any problem, with its kind and byte offset; a reader that threw throws
/// the same error again if called again. Movable, not copyable; one thread at a time.
template <communication::Encodable T, communication::Encodable C>
class EventReaderCore {
  static_assert(container::Container<C>, "timely: EventReaderCore<T, C>: C must be a container");

 public:
  using Time = T;
  using Container = C;

  /// Reads from `in`, which must outlive the reader.
  explicit EventReaderCore(std::istream& in, ReaderOptions options = {}) : in_(&in), options_(options) {}
  /// Reads from `in`, which the reader owns.
  explicit EventReaderCore(std::unique_ptr<std::istream> in, ReaderOptions options = {})
      : owned_(std::move(in)), in_(owned_.get()), options_(options) {}
  /// Opens the file at `path`. \throws FormatError(Io) if it cannot be opened.
  static EventReaderCore open(const std::filesystem::path& path, ReaderOptions options = {}) {
    auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) throw FormatError(FormatErrorKind::Io, 0, "cannot open '" + path.string() + "' for reading");
    return EventReaderCore(std::unique_ptr<std::istream>(std::move(file)), options);
  }

  EventReaderCore(EventReaderCore&& other) noexcept
      : owned_(std::move(other.owned_)),
        in_(std::exchange(other.in_, nullptr)),
        options_(other.options_),
        buffer_(std::move(other.buffer_)),
        consumed_(other.consumed_),
        last_event_(other.last_event_),
        header_done_(other.header_done_),
        end_of_input_(other.end_of_input_),
        exhausted_(other.exhausted_) {}
  EventReaderCore& operator=(EventReaderCore&& other) noexcept {
    if (this != &other) {
      owned_ = std::move(other.owned_);
      in_ = std::exchange(other.in_, nullptr);
      options_ = other.options_;
      buffer_ = std::move(other.buffer_);
      consumed_ = other.consumed_;
      last_event_ = other.last_event_;
      header_done_ = other.header_done_;
      end_of_input_ = other.end_of_input_;
      exhausted_ = other.exhausted_;
    }
    return *this;
  }
  EventReaderCore(const EventReaderCore&) = delete;
  EventReaderCore& operator=(const EventReaderCore&) = delete;

  /// The next event, or `std::nullopt` if none is available now.
  std::optional<EventCore<T, C>> next() {
    if (exhausted_) return std::nullopt;
    if (!header_done_ && !read_header()) return std::nullopt;
    return read_frame();
  }

  /// Complete mode only: the input ended at an event boundary; no event will follow.
  [[nodiscard]] bool exhausted() const noexcept { return exhausted_; }
  /// Offset of the next unread byte: the start of the next event (or of the header).
  [[nodiscard]] std::uint64_t offset() const noexcept { return consumed_; }
  /// Offset at which the event most recently returned by `next()` starts.
  [[nodiscard]] std::uint64_t event_offset() const noexcept { return last_event_; }

 private:
  /// Reads until `buffer_` holds `want` bytes; returns whether it does. Stops short at the end
  /// of input (complete mode: for good; live mode: until more bytes arrive).
  bool fill(std::size_t want) {
    if (!in_) throw FormatError(FormatErrorKind::Io, consumed_, "read from a moved-from EventReader");
    constexpr std::size_t chunk = std::size_t{1} << 20;
    while (buffer_.size() < want && !end_of_input_) {
      const std::size_t old = buffer_.size();
      const std::size_t ask = std::min(want - old, chunk);
      buffer_.resize(old + ask);
      in_->read(reinterpret_cast<char*>(buffer_.data() + old), static_cast<std::streamsize>(ask));
      const auto got = static_cast<std::size_t>(in_->gcount());
      buffer_.resize(old + got);
      if (in_->bad())
        throw FormatError(FormatErrorKind::Io, consumed_ + buffer_.size(), "reading the input stream failed");
      if (got < ask) {
        if (options_.live) {
          in_->clear();
          return false;
        }
        end_of_input_ = true;
      }
    }
    return buffer_.size() >= want;
  }
  /// Removes the first `n` bytes of `buffer_`.
  void consume(std::size_t n) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n));
    consumed_ += n;
  }
  [[noreturn]] void truncated(const char* what, std::size_t need) const {
    detail::truncated(what, need, consumed_, buffer_.size());
  }

  bool read_header() {
    for (;;) {
      const std::size_t need = detail::check_header<T, C>(buffer_, consumed_);
      if (need <= buffer_.size()) {
        consume(need);
        header_done_ = true;
        return true;
      }
      if (!fill(need)) {
        // What arrived may show a bad magic or field before the end: that error comes first.
        const std::size_t more = detail::check_header<T, C>(buffer_, consumed_);
        if (more <= buffer_.size()) continue;
        if (options_.live) return false;
        truncated("stream header", more);
      }
    }
  }

  std::optional<EventCore<T, C>> read_frame() {
    if (!fill(1)) {
      if (!options_.live) exhausted_ = true;
      return std::nullopt;
    }
    detail::check_kind(buffer_[0], consumed_);
    if (!fill(format::frame_header)) {
      if (options_.live) return std::nullopt;
      truncated("event header", format::frame_header);
    }
    const std::size_t total = detail::frame_total(buffer_.data(), consumed_, options_.max_event_bytes);
    if (!fill(total)) {
      if (options_.live) return std::nullopt;
      truncated("event", total);
    }
    std::optional<EventCore<T, C>> event(
        detail::decode_frame<T, C>(std::span<const std::uint8_t>(buffer_.data(), total), consumed_, nullptr));
    last_event_ = consumed_;
    consume(total);
    return event;
  }

  std::unique_ptr<std::istream> owned_;
  std::istream* in_;
  ReaderOptions options_;
  std::vector<std::uint8_t> buffer_;
  std::uint64_t consumed_ = 0;
  std::uint64_t last_event_ = 0;
  bool header_done_ = false;
  bool end_of_input_ = false;
  bool exhausted_ = false;
};

/// An `EventReaderCore` of a stream of records `D` in `std::vector<D>` batches.
template <class T, class D>
using EventReader = EventReaderCore<T, std::vector<D>>;

}  // namespace timely::capture
