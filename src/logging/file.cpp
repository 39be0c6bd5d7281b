// Log files (timely/logging/file.hpp): the writer's buffering, framing and system calls, and the
// reader's checks. POSIX I/O on file descriptors, so that a failed write reports errno (a full
// disk as ENOSPC) instead of a stream's failbit; checksums from libxxhash. One file of some 600
// lines because writer and reader share the format's private constants and helpers (frame
// layout, checksum coverage), which a split would have to expose in a header.
#include <timely/logging/file.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

namespace timely::logging {

namespace {

constexpr std::array<std::byte, 8> kFileMagic{std::byte{0x89}, std::byte{'T'}, std::byte{'I'},
                                              std::byte{'M'},  std::byte{'E'}, std::byte{'L'},
                                              std::byte{'Y'},  std::byte{0x0A}};
constexpr std::array<std::byte, 4> kFrameMagic{std::byte{'T'}, std::byte{'L'}, std::byte{'F'},
                                               std::byte{'R'}};
constexpr std::size_t kHeaderChecksumAt = 40;
constexpr std::size_t kFrameChecksumAt = 8;
constexpr std::size_t kFrameCoveredFrom = 16;  // the checksum covers the frame from here on
constexpr std::size_t kBatchCountAt = kFrameHeaderSize + 8;

enum class FrameKind : std::uint8_t { Bind = 1, Batch = 2, End = 3 };

std::uint64_t checksum(std::span<const std::byte> bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

// Fixed-width little-endian stores and loads at a position of a buffer (the encoder appends;
// frame headers are filled in after their payloads).
void store_u32(std::byte* at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<std::byte>(v >> (8 * i));
}
void store_u64(std::byte* at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t load_u32(const std::byte* at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(at[i]) << (8 * i);
  return v;
}
std::uint64_t load_u64(const std::byte* at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(at[i]) << (8 * i);
  return v;
}

std::string hex(std::uint64_t v) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(v));
  return text;
}

std::string system_reason(int error) { return std::strerror(error); }

}  // namespace

LogFileError::LogFileError(std::filesystem::path path, std::optional<std::uint64_t> offset,
                           const std::string& what)
    : timely::Error("log file '" + path.string() + "'" +
                    (offset ? " at byte offset " + std::to_string(*offset) : std::string()) + ": " + what),
      path_(std::move(path)),
      offset_(offset) {}

// --- writer -------------------------------------------------------------------------------

namespace detail {

class FileSinkState {
 public:
  FileSinkState(const std::filesystem::path& path, const FileSink::Options& options)
      : path_(path),
        start_(options.start),
        buffer_bytes_(options.buffer_bytes),
        max_payload_(options.max_frame_payload),
        flush_interval_(options.flush_interval),
        last_write_(since_start()) {
    if (max_payload_ == 0 || max_payload_ > kMaxFramePayload)
      throw LogFileError(path_, std::nullopt,
                         "a frame payload limit of " + std::to_string(max_payload_) +
                             " bytes (expected 1 to " + std::to_string(kMaxFramePayload) + ")");
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw LogFileError(path_, std::nullopt, "cannot create it: " + system_reason(errno));
    // The wall-clock reading of the logging clock's zero, for readers that want dates.
    const auto since_start = std::chrono::steady_clock::now() - start_;
    const auto wall = std::chrono::system_clock::now() - since_start;
    const auto wall_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(wall.time_since_epoch()).count();
    Encoder out(buffer_);
    out.put_bytes(kFileMagic);
    out.put_u32(kLogFileVersion);
    out.put_u32(static_cast<std::uint32_t>(kLogFileHeaderSize));
    out.put_u64(options.process);
    out.put_u64(options.worker);
    out.put_i64(wall_ns);
    out.put_u64(checksum(std::span(buffer_).first(kHeaderChecksumAt)));
    // On disk at once: a run killed before its first flush leaves a file readers take as
    // unclosed and empty, not one too short to be a log.
    try {
      flush();
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }

  ~FileSinkState() {
    try {
      close();
    } catch (const LogFileError&) {  // destruction has no one to tell; close() says why
    }
    if (fd_ >= 0) ::close(fd_);
  }

  FileSinkState(const FileSinkState&) = delete;
  FileSinkState& operator=(const FileSinkState&) = delete;

  std::uint32_t bind(const std::string& name, const std::string& type) {
    if (fd_ < 0) throw LogFileError(path_, std::nullopt, "stream '" + name + "' bound after close()");
    if (std::find(names_.begin(), names_.end(), name) != names_.end())
      throw LogFileError(path_, std::nullopt, "stream '" + name + "' is already bound in this file");
    const auto stream = static_cast<std::uint32_t>(names_.size());
    names_.push_back(name);
    if (failed()) return stream;
    begin_frame(FrameKind::Bind, stream);
    Encoder out(buffer_);
    encode(out, name);
    encode(out, type);
    finish_frame();
    return stream;
  }

  Encoder begin_batch(std::uint32_t stream, Duration now) {
    stream_ = stream;
    now_ = now;
    begin_batch_frame();
    return Encoder(buffer_);
  }

  void end_event() {
    if (failed()) {
      buffer_.clear();
      return;
    }
    const auto payload = buffer_.size() - frame_start_ - kFrameHeaderSize;
    if (payload > max_payload_) {
      if (count_ == 0) {
        fail("an event of " + std::to_string(buffer_.size() - event_start_) +
             " bytes does not fit in a frame of " + std::to_string(max_payload_) +
             " payload bytes; its stream's later events were dropped");
        return;
      }
      // Close the frame before this event and move the event into a new frame.
      std::vector<std::byte> event(buffer_.begin() + static_cast<std::ptrdiff_t>(event_start_),
                                   buffer_.end());
      buffer_.resize(event_start_);
      finish_batch();
      if (failed()) return;
      begin_batch_frame();
      buffer_.insert(buffer_.end(), event.begin(), event.end());
      end_event();
      return;
    }
    ++count_;
    event_start_ = buffer_.size();
  }

  void finish_batch() {
    if (failed()) {
      buffer_.clear();
      return;
    }
    store_u32(buffer_.data() + frame_start_ + kBatchCountAt, count_);
    finish_frame();
    if (buffer_.size() >= buffer_bytes_) write_out(now_);
  }

  [[nodiscard]] bool failed() const noexcept { return !error_.empty(); }

  void flush() {
    write_out(since_start());
    throw_if_failed();
  }

  // A logger's flush at `now`: written unless the last write is more recent than the interval
  // (the logger's reading of the clock serves: no system clock call per step).
  void flush_batch_end(Duration now) {
    if (flush_interval_.count() > 0 && !failed() && now - last_write_ < flush_interval_) return;
    write_out(now);
    throw_if_failed();
  }

  void close() {
    if (fd_ < 0) return;
    if (!failed()) {
      begin_frame(FrameKind::End, 0);
      Encoder out(buffer_);
      const Duration now = since_start();
      out.put_i64(now.count());
      out.put_u64(frames_);
      finish_frame();
      write_out(now);
    }
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0 && !failed()) fail("closing it: " + system_reason(errno));
    throw_if_failed();
  }

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  void begin_frame(FrameKind kind, std::uint32_t stream) {
    frame_start_ = buffer_.size();
    buffer_.resize(frame_start_ + kFrameHeaderSize);
    std::byte* header = buffer_.data() + frame_start_;
    std::copy(kFrameMagic.begin(), kFrameMagic.end(), header);
    header[16] = static_cast<std::byte>(kind);
    header[17] = header[18] = header[19] = std::byte{0};
    store_u32(header + 20, stream);
  }

  void begin_batch_frame() {
    if (fd_ < 0 && !failed()) fail("events were logged after close(); they were dropped");
    if (failed()) return;
    begin_frame(FrameKind::Batch, stream_);
    Encoder out(buffer_);
    out.put_i64(now_.count());
    out.put_u32(0);  // the event count, filled in by finish_batch
    count_ = 0;
    event_start_ = buffer_.size();
  }

  // Fills in the length and checksum of the frame that starts at frame_start_ and ends at the
  // end of the buffer.
  void finish_frame() {
    std::byte* header = buffer_.data() + frame_start_;
    const auto length = buffer_.size() - frame_start_ - kFrameHeaderSize;
    store_u32(header + 4, static_cast<std::uint32_t>(length));
    const auto covered = std::span(buffer_).subspan(frame_start_ + kFrameCoveredFrom);
    store_u64(header + kFrameChecksumAt, checksum(covered));
    ++frames_;
  }

  [[nodiscard]] Duration since_start() const {
    return std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - start_);
  }

  // Hands the collected bytes to the system at `now`; a failure is remembered, not thrown (see
  // FileSink).
  void write_out(Duration now) noexcept {
    if (failed() || fd_ < 0) return;
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const auto n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        fail("writing " + std::to_string(buffer_.size() - done) + " bytes at byte offset " +
             std::to_string(written_ + done) + ": " + system_reason(error));
        break;
      }
      done += static_cast<std::size_t>(n);
    }
    written_ += done;
    buffer_.clear();
    last_write_ = now;
  }

  void fail(std::string what) noexcept {
    if (error_.empty()) error_ = std::move(what);
    buffer_.clear();
  }

  void throw_if_failed() const {
    if (failed()) throw LogFileError(path_, std::nullopt, error_);
  }

  std::filesystem::path path_;
  std::chrono::steady_clock::time_point start_;
  std::size_t buffer_bytes_;
  std::uint32_t max_payload_;
  Duration flush_interval_;
  Duration last_write_;  // of the last write_out, since the start
  int fd_ = -1;
  std::vector<std::byte> buffer_;  // frames not yet written
  std::uint64_t written_ = 0;      // bytes written to the file
  std::uint64_t frames_ = 0;       // frames finished, for the end frame
  std::vector<std::string> names_;
  std::string error_;  // the first failure; empty while all is well
  // The batch being encoded.
  std::size_t frame_start_ = 0;
  std::size_t event_start_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t stream_ = 0;
  Duration now_{0};
};

std::uint32_t sink_bind(FileSinkState& state, const std::string& name, const std::string& type) {
  return state.bind(name, type);
}
Encoder sink_begin_batch(FileSinkState& state, std::uint32_t stream, Duration now) {
  return state.begin_batch(stream, now);
}
void sink_end_event(FileSinkState& state) { state.end_event(); }
void sink_finish_batch(FileSinkState& state) { state.finish_batch(); }
bool sink_failed(const FileSinkState& state) noexcept { return state.failed(); }
void sink_flush(FileSinkState& state, Duration now) { state.flush_batch_end(now); }

}  // namespace detail

FileSink::FileSink(const std::filesystem::path& path, const Options& options)
    : state_(std::make_shared<detail::FileSinkState>(path, options)) {}

FileSink::~FileSink() {
  if (!state_) return;
  try {
    state_->flush();               // actions may outlive the sink: they close the file when the last goes
  } catch (const LogFileError&) {  // destruction has no one to tell; flush() and close() say why
  }
}

void FileSink::flush() { state_->flush(); }
void FileSink::close() { state_->close(); }
const std::filesystem::path& FileSink::path() const noexcept { return state_->path(); }

// --- reader -------------------------------------------------------------------------------

struct FileReader::Impl {
  std::filesystem::path path;
  Options options;
  int fd = -1;
  FileHeader header;
  std::map<std::string, Handler, std::less<>> handlers;
  std::vector<StreamInfo> streams;
  bool closed = false;
  std::uint64_t torn = 0;        // the bytes of a torn last frame that run() left unread
  std::vector<std::byte> frame;  // the frame being checked, header and payload

  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  [[noreturn]] void fail(std::optional<std::uint64_t> offset, const std::string& what) const {
    throw LogFileError(path, offset, what);
  }

  // Reads exactly `n` bytes at `offset` into `out`, which the caller has checked the file holds.
  void read_at(std::uint64_t offset, std::byte* out, std::size_t n) const {
    std::size_t done = 0;
    while (done < n) {
      const auto got = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(offset, "reading " + std::to_string(n) + " bytes: " + system_reason(errno));
      if (got == 0) fail(offset, "the file ended while reading it (did it shrink?)");
      done += static_cast<std::size_t>(got);
    }
  }

  [[nodiscard]] std::uint64_t file_size() const {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(std::nullopt, "cannot stat it: " + system_reason(errno));
    return static_cast<std::uint64_t>(st.st_size);
  }

  void read_header() {
    const auto size = file_size();
    if (size < kLogFileHeaderSize)
      fail(0, "the file is " + std::to_string(size) + " bytes, shorter than its " +
                  std::to_string(kLogFileHeaderSize) + "-byte header");
    std::array<std::byte, kLogFileHeaderSize> bytes{};
    read_at(0, bytes.data(), bytes.size());
    if (!std::equal(kFileMagic.begin(), kFileMagic.end(), bytes.begin()))
      fail(0, "not a timely log file (wrong magic)");
    const auto version = load_u32(bytes.data() + 8);
    if (version != kLogFileVersion)
      fail(0, "format version " + std::to_string(version) + " (this reader reads version " +
                  std::to_string(kLogFileVersion) + ")");
    const auto header_size = load_u32(bytes.data() + 12);
    if (header_size != kLogFileHeaderSize)
      fail(0, "a header size of " + std::to_string(header_size) + " bytes (version 1 has " +
                  std::to_string(kLogFileHeaderSize) + ")");
    const auto stored = load_u64(bytes.data() + kHeaderChecksumAt);
    const auto computed = checksum(std::span(bytes).first(kHeaderChecksumAt));
    if (stored != computed)
      fail(0, "header checksum mismatch (stored " + hex(stored) + ", computed " + hex(computed) + ")");
    header.version = version;
    header.process = load_u64(bytes.data() + 16);
    header.worker = load_u64(bytes.data() + 24);
    header.start = std::chrono::sys_time<std::chrono::nanoseconds>(
        std::chrono::nanoseconds(static_cast<std::int64_t>(load_u64(bytes.data() + 32))));
  }

  // The offset of the first whole frame with a valid checksum starting at or after `from`, if
  // any: the frame magic, a length within the limit and the file, and its checksum. Reads the
  // rest of the file once, a MiB at a time, and each candidate frame it finds.
  std::optional<std::uint64_t> whole_frame_after(std::uint64_t from, std::uint64_t size) const {
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    std::vector<std::byte> chunk, candidate;
    for (std::uint64_t base = from; base + kFrameHeaderSize <= size; base += kChunk) {
      // Each chunk overlaps the next by the magic's length less one, so no magic is split.
      const auto n =
          static_cast<std::size_t>(std::min<std::uint64_t>(kChunk + kFrameMagic.size() - 1, size - base));
      chunk.resize(n);
      read_at(base, chunk.data(), n);
      for (std::size_t i = 0; i + kFrameMagic.size() <= n && i < kChunk; ++i) {
        if (!std::equal(kFrameMagic.begin(), kFrameMagic.end(),
                        chunk.begin() + static_cast<std::ptrdiff_t>(i)))
          continue;
        const std::uint64_t at = base + i;
        if (size - at < kFrameHeaderSize) return std::nullopt;
        candidate.resize(kFrameHeaderSize);
        read_at(at, candidate.data(), kFrameHeaderSize);
        const auto length = load_u32(candidate.data() + 4);
        if (length > kMaxFramePayload || length > size - at - kFrameHeaderSize) continue;
        candidate.resize(kFrameHeaderSize + length);
        read_at(at + kFrameHeaderSize, candidate.data() + kFrameHeaderSize, length);
        if (load_u64(candidate.data() + kFrameChecksumAt) ==
            checksum(std::span(candidate).subspan(kFrameCoveredFrom)))
          return at;
      }
    }
    return std::nullopt;
  }

  // Reads and checks the frame at `offset` into `frame`. \returns its payload length, or
  // nothing for a torn last frame when the options accept one (`torn` then holds its bytes).
  std::optional<std::uint32_t> read_frame(std::uint64_t offset, std::uint64_t size) {
    const auto left = size - offset;
    const bool torn_ok = options.accept_unclosed && options.accept_torn_tail;
    if (left < kFrameHeaderSize && torn_ok) {
      torn = left;
      return std::nullopt;
    }
    if (left < kFrameHeaderSize)
      fail(offset, "a torn frame: " + std::to_string(left) + " of its " + std::to_string(kFrameHeaderSize) +
                       " header bytes are in the file");
    frame.resize(kFrameHeaderSize);
    read_at(offset, frame.data(), kFrameHeaderSize);
    if (!std::equal(kFrameMagic.begin(), kFrameMagic.end(), frame.begin())) fail(offset, "wrong frame magic");
    const auto length = load_u32(frame.data() + 4);
    if (length > kMaxFramePayload)
      fail(offset, "a payload length of " + std::to_string(length) + " bytes, above the limit of " +
                       std::to_string(kMaxFramePayload));
    if (length > left - kFrameHeaderSize && torn_ok) {
      // A torn frame is the file's last write; a damaged length can look the same. If a whole,
      // valid frame starts anywhere after this header, the length is damaged, not torn.
      if (const auto later = whole_frame_after(offset + kFrameHeaderSize, size))
        fail(offset, "a payload length of " + std::to_string(length) +
                         " bytes that runs past the end of the file, but a whole frame follows at offset " +
                         std::to_string(*later) + " (the length is damaged)");
      torn = left;
      return std::nullopt;
    }
    if (length > left - kFrameHeaderSize)
      fail(offset, "a torn frame: its payload of " + std::to_string(length) +
                       " bytes ends past the end of the file (" + std::to_string(left - kFrameHeaderSize) +
                       " bytes follow its header)");
    frame.resize(kFrameHeaderSize + length);
    read_at(offset + kFrameHeaderSize, frame.data() + kFrameHeaderSize, length);
    const auto stored = load_u64(frame.data() + kFrameChecksumAt);
    const auto computed = checksum(std::span(frame).subspan(kFrameCoveredFrom));
    if (stored != computed)
      fail(offset, "frame checksum mismatch (stored " + hex(stored) + ", computed " + hex(computed) + ")");
    if (frame[17] != std::byte{0} || frame[18] != std::byte{0} || frame[19] != std::byte{0})
      fail(offset, "the frame's reserved bytes are not zero");
    return length;
  }

  void bind(std::uint64_t offset, std::uint32_t stream, Decoder& in) {
    StreamInfo info;
    info.number = stream;
    try {
      info.name = decode<std::string>(in);
      info.type = decode<std::string>(in);
      if (in.remaining() != 0) in.fail(std::to_string(in.remaining()) + " bytes after the stream's type");
    } catch (const CodecError& e) {
      fail(offset, std::string("a bind frame that does not decode: ") + e.what());
    }
    if (stream != streams.size())
      fail(offset,
           "binds stream number " + std::to_string(stream) + ", expected " + std::to_string(streams.size()));
    for (const auto& s : streams)
      if (s.name == info.name)
        fail(offset,
             "binds stream '" + info.name + "' again (it is stream " + std::to_string(s.number) + ")");
    if (auto h = handlers.find(info.name); h != handlers.end() && h->second.type != info.type)
      fail(offset, "stream '" + info.name + "' holds events of type " + info.type +
                       ", but its handler reads " + h->second.type);
    streams.push_back(std::move(info));
  }

  void batch(std::uint64_t offset, std::uint32_t stream, Decoder& in) {
    if (stream >= streams.size())
      fail(offset, "a batch of stream number " + std::to_string(stream) + ", which is not bound (" +
                       std::to_string(streams.size()) + " streams are)");
    const auto& info = streams[stream];
    auto h = handlers.find(info.name);
    try {
      const Duration now(in.get_i64());
      const auto count = in.get_u32();
      if (count == 0) in.fail("a batch of no events");
      if (h != handlers.end()) h->second.batch(&in, count, now);
    } catch (const CodecError& e) {
      fail(offset,
           "a batch of stream '" + info.name + "' (" + info.type + ") that does not decode: " + e.what());
    }
  }

  void end(std::uint64_t offset, std::uint32_t stream, std::uint64_t frames, std::uint64_t size,
           Decoder& in) {
    if (stream != 0)
      fail(offset, "an end frame of stream number " + std::to_string(stream) + " (expected 0)");
    if (in.remaining() != 16)
      fail(offset, "an end frame of " + std::to_string(in.remaining()) + " payload bytes (expected 16)");
    const Duration now(in.get_i64());
    const auto counted = in.get_u64();
    if (counted != frames)
      fail(offset, "the end frame counts " + std::to_string(counted) + " frames before it, but there are " +
                       std::to_string(frames));
    const auto end_of_frame = offset + kFrameHeaderSize + 16;
    if (end_of_frame != size)
      fail(end_of_frame, std::to_string(size - end_of_frame) + " bytes follow the end frame");
    closed = true;
    for (const auto& info : streams)
      if (auto h = handlers.find(info.name); h != handlers.end()) h->second.batch(nullptr, 0, now);
  }

  void run() {
    streams.clear();
    closed = false;
    torn = 0;
    const auto size = file_size();
    std::uint64_t offset = kLogFileHeaderSize;
    std::uint64_t frames = 0;
    while (true) {
      if (offset == size) {
        if (options.accept_unclosed) return;
        fail(offset, "the file ends after " + std::to_string(frames) +
                         " frames without its end frame (its writer did not close it)");
      }
      const auto read = read_frame(offset, size);
      if (!read) return;  // a torn last frame, accepted: the file ends at the frame before it
      const auto length = *read;
      const auto kind = static_cast<std::uint8_t>(frame[16]);
      const auto stream = load_u32(frame.data() + 20);
      Decoder in(std::span<const std::byte>(frame).subspan(kFrameHeaderSize));
      switch (static_cast<FrameKind>(kind)) {
        case FrameKind::Bind:
          bind(offset, stream, in);
          break;
        case FrameKind::Batch:
          batch(offset, stream, in);
          break;
        case FrameKind::End:
          end(offset, stream, frames, size, in);
          return;
        default:
          fail(offset, "an unknown frame kind " + std::to_string(kind));
      }
      ++frames;
      offset += kFrameHeaderSize + length;
    }
  }
};

FileReader::FileReader(const std::filesystem::path& path, const Options& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->options = options;
  impl_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl_->fd < 0) throw LogFileError(path, std::nullopt, "cannot open it: " + system_reason(errno));
  impl_->read_header();
}

FileReader::FileReader(FileReader&&) noexcept = default;
FileReader& FileReader::operator=(FileReader&&) noexcept = default;
FileReader::~FileReader() = default;

void FileReader::set_handler(const std::string& name, Handler handler) {
  impl_->handlers.insert_or_assign(name, std::move(handler));
}

void FileReader::run() { impl_->run(); }
const FileHeader& FileReader::header() const noexcept { return impl_->header; }
const std::vector<StreamInfo>& FileReader::streams() const noexcept { return impl_->streams; }
bool FileReader::closed() const noexcept { return impl_->closed; }
std::uint64_t FileReader::torn_bytes() const noexcept { return impl_->torn; }
const std::filesystem::path& FileReader::path() const noexcept { return impl_->path; }

}  // namespace timely::logging
