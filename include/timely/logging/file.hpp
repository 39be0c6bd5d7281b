/// \file
/// Log files: `FileSink` writes a worker's log streams to one file, `FileReader` reads them back
/// batch by batch, typed per stream; `LogFileError` is what both throw. The events are encoded
/// by `EventCodec` (timely/logging/codec.hpp).
///
/// # Format, version 1
///
/// All integers little-endian, fixed width, no padding. Checksums are XXH3-64 (xxHash 0.8,
/// seed 0) of the byte ranges named. A file is a header, then frames, the last one an end frame.
///
/// File header, 48 bytes:
///
///     offset size  field
///          0    8  magic: 0x89 'T' 'I' 'M' 'E' 'L' 'Y' 0x0A
///          8    4  u32 format version (1)
///         12    4  u32 header size in bytes (48 for version 1)
///         16    8  u64 process index
///         24    8  u64 worker index (within the process)
///         32    8  i64 start: the wall-clock time (system_clock, ns since the Unix epoch) at
///                  which the logging clock read zero, for reference only
///         40    8  u64 checksum of bytes [0, 40)
///
/// Frame, 24 + L bytes, at offset F:
///
///     offset size  field
///     F +  0    4  magic: 'T' 'L' 'F' 'R'
///     F +  4    4  u32 payload length L, at most kMaxFramePayload (2^30)
///     F +  8    8  u64 checksum of bytes [F + 16, F + 24 + L): the rest of the header, payload
///     F + 16    1  u8 kind: 1 bind, 2 batch, 3 end
///     F + 17    3  reserved, zero
///     F + 20    4  u32 stream number (0 in an end frame)
///     F + 24    L  payload
///
/// Payloads (strings as in codec.hpp: a u64 byte count, then the bytes):
/// - bind: the stream's name (a string), then its event type's `EventCodec` name (a string).
///   Binds introduce stream numbers in order 0, 1, 2, ..., each before the stream's first batch;
///   names are unique in a file.
/// - batch: i64 `now` (the ns since the clock's start at which the logger published the
///   batch), u32 event count N >= 1, then N times: i64 event time (ns since the clock's start),
///   then the event in its stream's encoding. The payload holds exactly these bytes.
/// - end: i64 `now` (when the file was closed), u64 the number of frames before it. Nothing
///   follows it.
///
/// The checksum covers every byte of a frame that is not checked exactly (the magic) or the
/// checksum itself, and the length decides the range it covers, so any change to one frame is
/// detected (up to 2^-64 collisions); they detect corruption, not tampering.
///
/// A file without its end frame (the writer crashed, or is still writing) is an error, like a
/// torn frame, unless the reader is told to accept an unclosed file (`FileReader::Options`),
/// and then a torn last frame too if it is told so. Either way the frames before the damage are delivered
/// first: the reader checks and delivers one frame at a time.
///
/// Source: our own format. The reference logs to files through `BatchLogger` and capture's
/// `EventWriter` (SEMANTICS.md §8.1, §10.1), which has length prefixes but no header,
/// checksums, or stream names.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/error.hpp>
#include <timely/logging/codec.hpp>
#include <timely/logging/logger.hpp>

namespace timely::logging {

/// A log file could not be opened, written, read, or decoded. The message names the file and,
/// for a damaged file, the byte offset of the frame at fault and what is wrong with it.
class LogFileError : public timely::Error {
 public:
  LogFileError(std::filesystem::path path, std::optional<std::uint64_t> offset, const std::string& what);
  /// The file.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// The byte offset of the frame (or 0 for the file header) at fault, if the error is in the
  /// file's contents.
  [[nodiscard]] std::optional<std::uint64_t> offset() const noexcept { return offset_; }

 private:
  std::filesystem::path path_;
  std::optional<std::uint64_t> offset_;
};

/// The format's constants (see the file comment).
inline constexpr std::uint32_t kLogFileVersion = 1;
inline constexpr std::size_t kLogFileHeaderSize = 48;
inline constexpr std::size_t kFrameHeaderSize = 24;
inline constexpr std::uint32_t kMaxFramePayload = std::uint32_t{1} << 30;

/// What a file header says.
struct FileHeader {
  std::uint32_t version = kLogFileVersion;
  std::uint64_t process = 0;
  std::uint64_t worker = 0;
  /// The wall-clock time at which the logging clock read zero.
  std::chrono::sys_time<std::chrono::nanoseconds> start{};
};

namespace detail {
class FileSinkState;
// The compiled core of FileSink's actions (src/logging/file.cpp).
std::uint32_t sink_bind(FileSinkState& state, const std::string& name, const std::string& type);
Encoder sink_begin_batch(FileSinkState& state, std::uint32_t stream, Duration now);
void sink_end_event(FileSinkState& state);
void sink_finish_batch(FileSinkState& state);
bool sink_failed(const FileSinkState& state) noexcept;
void sink_flush(FileSinkState& state, Duration now);
}  // namespace detail

/// Writes log streams to one file in the format above: `action<E>(name)` binds a stream and
/// returns the `Action<E>` to register for it (`insert<E>` does both).
///
/// Each non-empty batch becomes one batch frame (several if it encodes to more than
/// `Options::max_frame_payload` bytes). Frames collect in memory and go to the file when
/// `Options::buffer_bytes` have collected, when an action sees an empty batch (a logger's
/// `flush()`; at most once per `Options::flush_interval`), on `flush()` and `close()`, and when
/// the last of the sink and its actions is destroyed (the file is closed then, with its end
/// frame, if `close()` was not called).
///
/// Errors: a failed write is remembered, and is thrown as `LogFileError` (naming the file and
/// the system's reason) from the next empty batch, `flush()` or `close()`, and from every one
/// after; batches that carry events never throw it, because a `Logger` publishes its last events
/// from its destructor. Events after a failure, or after `close()`, are dropped, and the next
/// empty batch says so. Errors during destruction are lost: call `close()` to see them.
///
/// Thread-safety: one sink per worker thread; a sink and its actions must be used from one
/// thread at a time (the runtime calls a worker's actions on the worker's thread).
class FileSink {
 public:
  struct Options {
    std::uint64_t process = 0;
    std::uint64_t worker = 0;
    /// When the logging clock read zero: the registry's `start()`.
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    /// Bytes of frames collected before they are written (they are written at every flush too).
    std::size_t buffer_bytes = std::size_t{1} << 20;
    /// The largest payload of a batch frame, at most `kMaxFramePayload`.
    std::uint32_t max_frame_payload = kMaxFramePayload;
    /// An empty batch writes the collected frames only if this long has passed since the last
    /// write: 0 writes at every logger flush (a reader sees each step's events at once, at the
    /// cost of a system call per step: about 1 us against 0.1 us for two events); 10 ms
    /// bounds what a crash loses to 10 ms of events at a small fraction of that cost.
    Duration flush_interval{0};
  };

  /// Creates (or truncates) the file at `path` and writes its header to it at once (so that a
  /// run killed before any flush leaves a valid, unclosed, empty log).
  /// \throws LogFileError if the file cannot be opened or its header written, or
  /// `options.max_frame_payload` is 0 or above `kMaxFramePayload`.
  FileSink(const std::filesystem::path& path, const Options& options);
  explicit FileSink(const std::filesystem::path& path) : FileSink(path, Options{}) {}
  FileSink(FileSink&&) noexcept = default;
  FileSink& operator=(FileSink&&) noexcept = default;
  ~FileSink();

  /// Binds stream `name` for events of type `E` (its type named by `EventCodec<E>::name()`)
  /// and returns the action that appends its batches. The action shares the file with the sink.
  /// \throws LogFileError if `name` is already bound in this file, or the sink is closed.
  template <Encodable E>
  Action<E> action(const std::string& name) {
    const auto stream = detail::sink_bind(*state_, name, EventCodec<E>::name());
    return [state = state_, stream](Duration now, std::vector<std::pair<Duration, E>>& events) {
      if (events.empty()) {
        detail::sink_flush(*state, now);
        return;
      }
      if (detail::sink_failed(*state)) return;
      Encoder out = detail::sink_begin_batch(*state, stream, now);
      for (const auto& [time, event] : events) {
        out.put_i64(time.count());
        encode(out, event);
        detail::sink_end_event(*state);
      }
      detail::sink_finish_batch(*state);
    };
  }

  /// Binds `name` and registers its action in `registry` (replacing any action it had there).
  template <Encodable E>
  void insert(Registry& registry, const std::string& name) {
    registry.insert<E>(name, action<E>(name));
  }

  /// Writes the collected frames to the file (no `fsync`).
  /// \throws LogFileError if this or an earlier write failed.
  void flush();
  /// Writes the end frame and closes the file. Actions keep working, but drop their events
  /// and then throw `LogFileError` on their next empty batch; `close()` again does nothing.
  /// \throws LogFileError if this or an earlier write failed, or closing failed.
  void close();
  /// The file written.
  [[nodiscard]] const std::filesystem::path& path() const noexcept;

 private:
  std::shared_ptr<detail::FileSinkState> state_;
};

/// A stream of a log file, as its bind frame names it.
struct StreamInfo {
  std::uint32_t number = 0;
  std::string name;
  /// The `EventCodec<E>::name()` of the type written.
  std::string type;
};

/// Reads a log file back: `on<E>(name, handler)` says how to take the events of stream `name`;
/// `run()` reads the file from the start and calls the handlers in file order, one batch frame
/// at a time. Streams without a handler are checked and skipped.
///
/// Every frame is checked before it is delivered: magic, kind, reserved bytes, length within
/// `kMaxFramePayload` and within the file, checksum, stream numbers bound in order, the end
/// frame last, and, for a stream with a handler, its events decoding to exactly its payload. The first
/// failure throws `LogFileError` naming the file, the frame's offset and the fault; the frames before it have
/// been delivered. The reader reads one frame at a time into memory (at most 24 + 2^30 bytes, and never more
/// than the file holds), never past the end of the file or a frame.
///
/// Thread-safety: one thread at a time; handlers run on the thread that calls `run()`.
class FileReader {
 public:
  struct Options {
    /// Accept a file that ends at a frame boundary without its end frame (a writer that
    /// crashed or is still writing); a torn frame is an error regardless.
    bool accept_unclosed = false;
    /// With `accept_unclosed`, also accept a torn last frame: one whose header or payload the
    /// file ends inside (a writer killed mid-write, a full disk, a file still being written). The
    /// reader stops at the last whole frame before it and `torn_bytes()` says how many bytes it
    /// left unread. Damage that is followed by more bytes of its frame (a wrong magic, length or
    /// checksum) is an error regardless.
    bool accept_torn_tail = false;
  };

  /// Opens `path` and checks its header.
  /// \throws LogFileError if it cannot be opened or its header is short, has the wrong magic,
  /// an unknown version or size, or a wrong checksum.
  FileReader(const std::filesystem::path& path, const Options& options);
  explicit FileReader(const std::filesystem::path& path) : FileReader(path, Options{}) {}
  FileReader(FileReader&&) noexcept;
  FileReader& operator=(FileReader&&) noexcept;
  ~FileReader();

  /// Takes stream `name`'s events, decoded as `E`, with `handler`: either an `Action<E>`-shaped
  /// `handler(Duration now, std::vector<std::pair<Duration, E>>& batch)`, called per batch as
  /// the logger called the writer's action (and once with an empty batch at the end frame's
  /// `now`), or `handler(Duration time, E& event)`, called per event. Replaces an earlier
  /// handler for `name`. `run()` throws `LogFileError` if the file binds `name` to a type other
  /// than `EventCodec<E>::name()`.
  template <Encodable E, class F>
  FileReader& on(const std::string& name, F handler) {
    using Batch = std::vector<std::pair<Duration, E>>;
    static_assert(std::is_invocable_v<F&, Duration, Batch&> || std::is_invocable_v<F&, Duration, E&>,
                  "FileReader::on<E>: the handler takes (Duration now, std::vector<std::pair<Duration, "
                  "E>>& batch) or (Duration time, E& event)");
    Handler h;
    h.type = EventCodec<E>::name();
    h.batch = [handler = std::move(handler)](Decoder* in, std::uint32_t count, Duration now) mutable {
      Batch batch;
      if (in != nullptr) {
        batch.reserve(count);
        for (std::uint32_t i = 0; i < count; ++i) {
          Duration time(in->get_i64());
          E event = decode<E>(*in);
          batch.emplace_back(time, std::move(event));
        }
        if (in->remaining() != 0)
          in->fail(std::to_string(in->remaining()) + " bytes left after the batch's " +
                   std::to_string(count) + " events");
      }
      if constexpr (std::is_invocable_v<F&, Duration, Batch&>) {
        handler(now, batch);
      } else {
        for (auto& [time, event] : batch) handler(time, event);
      }
    };
    set_handler(name, std::move(h));
    return *this;
  }

  /// Reads the whole file, from its first frame, delivering batches to the handlers.
  /// \throws LogFileError at the first damaged frame or read error (see the class comment);
  /// what a handler throws propagates as it is.
  void run();

  /// What the header says.
  [[nodiscard]] const FileHeader& header() const noexcept;
  /// The streams bound by the frames `run()` read, in order of their numbers.
  [[nodiscard]] const std::vector<StreamInfo>& streams() const noexcept;
  /// Whether the last `run()` found the end frame.
  [[nodiscard]] bool closed() const noexcept;
  /// The bytes of a torn last frame that the last `run()` left unread (`accept_torn_tail`), 0 if none.
  [[nodiscard]] std::uint64_t torn_bytes() const noexcept;
  /// The file read.
  [[nodiscard]] const std::filesystem::path& path() const noexcept;

 private:
  struct Handler {
    std::string type;
    // Decodes `count` events from `in` (all of them: the reader checks nothing is left) and
    // hands them on with `now`; `in` is null for the end frame's empty batch.
    std::function<void(Decoder* in, std::uint32_t count, Duration now)> batch;
  };
  struct Impl;
  void set_handler(const std::string& name, Handler handler);
  std::unique_ptr<Impl> impl_;
};

}  // namespace timely::logging
