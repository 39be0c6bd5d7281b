// timely-log: inspects, checks, reads, follows and appends to a durable log (timely::durable) from
// the command line, as Kafka's kafka-topics, kafka-console-consumer/-producer, DumpLogSegments and
// kafka-consumer-groups, and Apache Iggy's CLI, do for theirs.
//
//   timely-log -l DIR list [STREAM]                       partitions with their sizes and ranges
//   timely-log -l DIR stats [STREAM[/P]]                  the same in detail, with totals
//   timely-log -l DIR dump STREAM[/P] [--offset O | --timestamp T] [-n N] [--hex]
//   timely-log -l DIR follow STREAM[/P] [...]             like tail -f, until SIGINT or SIGTERM
//   timely-log -l DIR append STREAM[/P] [...] < lines     one record per line of standard input
//   timely-log -l DIR verify [STREAM[/P]]                 checksums and indexes
//   timely-log -l DIR consumers [STREAM[/P]]              committed offsets and lag
//   timely-log -l DIR commit STREAM[/P] CONSUMER OFFSET   sets a consumer's committed offset
//   timely-log -l DIR create STREAM [-p N]                a stream of N partitions
//
// A partition is named `stream/N`; `stream` alone is partition 0 where one partition is meant
// and every partition where several may be. Exit status: 0 done; 1 an error (the log's typed
// exception, or bad input such as a timestamp field that is not a number), printed as one line
// naming the input; 2 bad arguments; 3 `verify` found damage; 141 (128 + SIGPIPE) when standard
// output is a pipe whose reader has gone (`timely-log ... | head`), quietly, as a pipeline's
// writer would end. Only the durable log's public API is used (timely/durable/log.hpp).
// One file of over 600 lines: a tool's subcommands share their option structs, output formats and
// signal handling; each subcommand is one run_* function.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include <timely/durable/error.hpp>
#include <timely/durable/log.hpp>

namespace {

namespace durable = timely::durable;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitDamage = 3;
constexpr int kExitPipe = 128 + SIGPIPE;

/// The signal (SIGINT, SIGTERM) that asked the tool to stop, 0 if none. `follow`, `append`,
/// `dump` and `verify` check it in their loops and end as if done (exit status 0, or 3 for
/// damage `verify` found before it stopped).
volatile std::sig_atomic_t g_stop = 0;
void on_stop(int signal) { g_stop = signal; }

/// An error of the tool's own (bad input it found, not the log): exit status 1.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Thrown when standard output is a pipe whose reader has gone: the tool exits 141, silently.
struct OutputGone {};

/// Buffered standard output over write(2), so that EPIPE (SIGPIPE is ignored) ends the tool
/// cleanly instead of killing it mid-write, and so that `follow` can see a closed pipe while
/// it has nothing to write.
class Output {
 public:
  void put(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= (std::size_t{64} << 10)) flush();
  }
  void flush() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
      const auto n = ::write(STDOUT_FILENO, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EPIPE) throw OutputGone{};
      if (n < 0) throw ToolError(std::string("cannot write to standard output: ") + std::strerror(errno));
      done += static_cast<std::size_t>(n);
    }
    buffer_.clear();
  }
  /// Whether standard output is a pipe whose reader has gone (poll reports POLLERR on the
  /// write end of such a pipe); false for files and terminals.
  static bool gone() {
    pollfd p{STDOUT_FILENO, 0, 0};
    return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
  }

 private:
  std::string buffer_;
};

Output g_out;

// --- arguments -----------------------------------------------------------------------------------

/// `stream` or `stream/N` as given on the command line.
struct Target {
  std::string stream;
  std::optional<std::uint32_t> partition;
};

/// Parses `stream[/N]`. \throws CLI::ValidationError (exit 2) for an invalid stream name or a
/// partition that is not a number in [0, 2^32).
Target parse_target(const std::string& text) {
  Target target;
  const auto slash = text.rfind('/');
  target.stream = text.substr(0, slash);
  // The log would refuse the name too, but as an error (1); a malformed argument is a usage
  // error (2), as a malformed partition number is.
  if (!durable::valid_name(target.stream))
    throw CLI::ValidationError("STREAM", durable::quote_input(text) + ": the stream name " +
                                             durable::quote_input(target.stream) + " is not " +
                                             std::string(durable::kNameRule));
  if (slash == std::string::npos) return target;
  const std::string number = text.substr(slash + 1);
  std::uint32_t p = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
  if (number.empty() || ec != std::errc{} || end != number.data() + number.size())
    throw CLI::ValidationError("STREAM/PARTITION", durable::quote_input(text) + ": the partition " +
                                                       durable::quote_input(number) +
                                                       " is not a number from 0 to 4294967295");
  target.partition = p;
  return target;
}

/// A whole number's text as CLI11 (2.1) should take it: decimal digits, with a '-' first if
/// `sign`, leading zeros dropped (CLI11 reads "-1" into an unsigned option as 2^64 - 1 and
/// "010" as octal 8). Checked before any range check of the same option.
CLI::Validator decimal(bool sign) {
  return CLI::Validator(
      [sign](std::string& text) {
        const bool negative = sign && !text.empty() && text.front() == '-';
        std::string digits = text.substr(negative ? 1 : 0);
        if (digits.empty() || digits.size() > 19 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return durable::quote_input(text) +
                 (sign ? " is not a whole number (at most 19 decimal digits)"
                       : " is not a whole number from 0 (at most 19 decimal digits)");
        digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
        text = (negative ? "-" : "") + digits;
        return std::string();
      },
      sign ? "INTEGER" : "UNSIGNED", sign ? "integer" : "unsigned");
}

/// `n` and the noun, plural unless n is 1 ("1 segment", "3 segments", "2 batches").
std::string count(std::uint64_t n, const std::string& noun, const char* plural_ending = "s") {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : plural_ending);
}

std::string partition_name(const std::string& stream, std::uint32_t partition) {
  return stream + "/" + std::to_string(partition);
}

/// The partitions a target names: one, a stream's, or (no target) every partition of the log.
/// \throws ToolError for a partition the stream does not have; the log's ArgumentError for a
/// stream it does not have.
/// "none", "partition 0", "partitions 0 to 9" (contiguous) or "partitions 0, 2, 5" (at most 8
/// named, then how many in all).
std::string describe_partitions(const std::vector<std::uint32_t>& partitions) {
  if (partitions.empty()) return "no partitions";
  if (partitions.size() == 1) return "only partition " + std::to_string(partitions.front());
  if (partitions.back() - partitions.front() + 1 == partitions.size())
    return "partitions " + std::to_string(partitions.front()) + " to " + std::to_string(partitions.back());
  std::string text = "partitions ";
  for (std::size_t i = 0; i < partitions.size() && i < 8; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(partitions[i]);
  if (partitions.size() > 8) text += ", ... (" + std::to_string(partitions.size()) + " in all)";
  return text;
}

std::vector<std::pair<std::string, std::uint32_t>> resolve(const durable::Log& log,
                                                           const std::optional<Target>& target) {
  std::vector<std::pair<std::string, std::uint32_t>> out;
  const auto streams = target ? std::vector<std::string>{target->stream} : log.streams();
  for (const auto& stream : streams) {
    const auto partitions = log.partitions(stream);
    if (target && target->partition) {
      if (std::find(partitions.begin(), partitions.end(), *target->partition) == partitions.end())
        throw ToolError("no partition " + partition_name(stream, *target->partition) + ": the stream has " +
                        describe_partitions(partitions));
      out.emplace_back(stream, *target->partition);
      continue;
    }
    for (const auto p : partitions) out.emplace_back(stream, p);
  }
  return out;
}

/// Opens the log at `dir`, which must exist unless `create`.
durable::Log open_log(const std::string& dir, bool create) {
  durable::LogOptions options;
  options.create = create;
  return durable::Log(dir, options);
}

// --- formatting ------------------------------------------------------------------------------------

enum class TimeFormat { ms, iso };

/// A timestamp as its integer (milliseconds, by the tool's convention) or as UTC ISO 8601.
std::string format_time(std::int64_t t, TimeFormat format) {
  if (format == TimeFormat::ms) return std::to_string(t);
  // Floor division, so that times before 1970 keep a non-negative millisecond part.
  std::int64_t seconds = t / 1000;
  std::int64_t millis = t % 1000;
  if (millis < 0) {
    millis += 1000;
    seconds -= 1;
  }
  const std::time_t s = static_cast<std::time_t>(seconds);
  std::tm tm{};
  if (::gmtime_r(&s, &tm) == nullptr) return std::to_string(t);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  return text;
}

std::string optional_time(const std::optional<std::int64_t>& t, TimeFormat format) {
  return t ? format_time(*t, format) : "-";
}

/// A record's bytes as one line of text: printable ASCII as is, backslash, tab, newline and
/// carriage return as C escapes, any other byte as \xNN (so one record is always one line).
void put_escaped(std::string& line, std::span<const std::byte> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (const auto b : bytes) {
    const auto c = static_cast<unsigned char>(b);
    if (c == '\\') {
      line += "\\\\";
    } else if (c == '\n') {
      line += "\\n";
    } else if (c == '\t') {
      line += "\\t";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c >= 0x20 && c < 0x7f) {
      line += static_cast<char>(c);
    } else {
      line += "\\x";
      line += kHex[c >> 4];
      line += kHex[c & 15];
    }
  }
}

/// A record's bytes as `hexdump -C` does: 16 bytes a line, position, hex, printable text.
void put_hex(std::string& out, std::span<const std::byte> bytes) {
  char line[96];
  for (std::size_t at = 0; at < bytes.size(); at += 16) {
    const std::size_t n = std::min<std::size_t>(16, bytes.size() - at);
    int used = std::snprintf(line, sizeof line, "  %08zx ", at);
    for (std::size_t i = 0; i < 16; ++i) {
      if (i == 8) line[used++] = ' ';
      if (i < n)
        used += std::snprintf(line + used, sizeof line - static_cast<std::size_t>(used), " %02x",
                              static_cast<unsigned>(bytes[at + i]));
      else
        used += std::snprintf(line + used, sizeof line - static_cast<std::size_t>(used), "   ");
    }
    out.append(line, static_cast<std::size_t>(used));
    out += "  |";
    for (std::size_t i = 0; i < n; ++i) {
      const auto c = static_cast<unsigned char>(bytes[at + i]);
      out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '.';
    }
    out += "|\n";
  }
}

/// How `dump` and `follow` print records.
struct RecordFormat {
  bool hex = false;
  bool value_only = false;
  TimeFormat time = TimeFormat::ms;
};

/// One record: `OFFSET<TAB>TIMESTAMP<TAB>TEXT` (or the text alone), or in hex a line
/// `offset O timestamp T length L` and the dump.
void put_record(std::uint64_t offset, const durable::RecordView& record, const RecordFormat& format) {
  std::string text;
  if (format.hex) {
    if (!format.value_only) {
      text += "offset " + std::to_string(offset) + " timestamp " +
              format_time(record.timestamp, format.time) + " length " + std::to_string(record.bytes.size()) +
              "\n";
    }
    put_hex(text, record.bytes);
  } else {
    if (!format.value_only) {
      text += std::to_string(offset);
      text += '\t';
      text += format_time(record.timestamp, format.time);
      text += '\t';
    }
    put_escaped(text, record.bytes);
    text += '\n';
  }
  g_out.put(text);
}

/// A table printed with its columns aligned (left for the first, right for the others).
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print() const {
    std::vector<std::size_t> width(rows_.front().size(), 0);
    for (const auto& row : rows_)
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows_) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i) {
        const std::string pad(width[i] - row[i].size(), ' ');
        if (i > 0) line += "  ";
        line += i == 0 ? row[i] + (i + 1 < row.size() ? pad : "") : pad + row[i];
      }
      g_out.put(line + "\n");
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string describe(const durable::CorruptionReport& r) {
  std::string text = r.partition + " segment " + r.file.filename().string() + " byte " +
                     std::to_string(r.byte_offset) + ": " + r.reason;
  // The span and the offsets lost, where known (an index problem has neither).
  std::vector<std::string> extent;
  if (r.bytes > 0) extent.push_back(count(r.bytes, "byte"));
  if (r.lost_end > r.lost_begin)
    extent.push_back("offsets " + std::to_string(r.lost_begin) + "-" + std::to_string(r.lost_end - 1) +
                     " lost");
  for (std::size_t i = 0; i < extent.size(); ++i) text += (i == 0 ? " (" : ", ") + extent[i];
  return extent.empty() ? text : text + ")";
}

// --- the subcommands ---------------------------------------------------------------------------------

int run_list(const durable::Log& log, const std::optional<Target>& target, TimeFormat time) {
  Table table({"PARTITION", "SEGMENTS", "BYTES", "RECORDS", "FIRST", "END", "FIRST-TIME", "LAST-TIME"});
  for (const auto& [stream, p] : resolve(log, target)) {
    const auto s = log.stats(stream, p);
    table.add({partition_name(stream, p), std::to_string(s.segments), std::to_string(s.bytes),
               std::to_string(s.records), std::to_string(s.first_offset), std::to_string(s.end_offset),
               optional_time(s.first_timestamp, time), optional_time(s.last_timestamp, time)});
  }
  table.print();
  return 0;
}

int run_stats(const durable::Log& log, const std::optional<Target>& target, TimeFormat time) {
  std::size_t partitions = 0, segments = 0, consumers = 0;
  std::uint64_t bytes = 0, records = 0;
  for (const auto& [stream, p] : resolve(log, target)) {
    const auto s = log.stats(stream, p);
    const auto names = log.consumers(stream, p);
    std::string text = partition_name(stream, p) + "\n";
    auto field = [&text](const char* name, const std::string& value) {
      text += "  ";
      text += name;
      text += std::string(18 - std::strlen(name), ' ') + value + "\n";
    };
    field("segments", std::to_string(s.segments));
    field("bytes", std::to_string(s.bytes));
    field("records", std::to_string(s.records));
    field("first offset", std::to_string(s.first_offset));
    field("end offset", std::to_string(s.end_offset));
    field("first timestamp", optional_time(s.first_timestamp, time));
    field("last timestamp", optional_time(s.last_timestamp, time));
    field("max timestamp", optional_time(s.max_timestamp, time));
    field("bytes per record", s.records == 0 ? std::string("-") : std::to_string(s.bytes / s.records));
    field("consumers", std::to_string(names.size()));
    g_out.put(text);
    ++partitions;
    segments += s.segments;
    consumers += names.size();
    bytes += s.bytes;
    records += s.records;
  }
  g_out.put("total: " + count(partitions, "partition") + ", " + count(segments, "segment") + ", " +
            count(bytes, "byte") + ", " + count(records, "record") + ", " +
            count(consumers, "consumer offset") + "\n");
  return 0;
}

int run_verify(const durable::Log& log, const std::optional<Target>& target) {
  bool damaged = false;
  const auto partitions = resolve(log, target);
  std::size_t checked = 0;
  for (const auto& [stream, p] : partitions) {
    // A signal stops between partitions (one partition's check runs to its end).
    if (g_stop != 0) {
      g_out.flush();
      std::fprintf(stderr, "timely-log: verify stopped by signal %d after %zu of %zu partitions\n",
                   static_cast<int>(g_stop), checked, partitions.size());
      break;
    }
    ++checked;
    durable::VerifyReport report;
    try {
      report = log.verify(stream, p);
    } catch (const durable::CorruptionError& e) {
      // A file verify cannot read as a log file (a FIFO where a segment belongs, say) is damage
      // of this partition: said, and the other partitions are still checked.
      g_out.put(partition_name(stream, p) + ": DAMAGED (unreadable)\n  " + e.what() + "\n");
      damaged = true;
      continue;
    }
    std::string text = partition_name(stream, p) + ": " + (report.ok() ? "ok" : "DAMAGED") + " (" +
                       count(report.segments, "segment") + ", " + count(report.batches, "batch", "es") +
                       ", " + count(report.records, "record") + ", " + count(report.bytes, "byte");
    if (!report.ok()) text += ", " + count(report.problems.size(), "problem");
    text += ")\n";
    for (const auto& problem : report.problems) text += "  " + describe(problem) + "\n";
    g_out.put(text);
    damaged = damaged || !report.ok();
  }
  return damaged ? kExitDamage : 0;
}

int run_consumers(const durable::Log& log, const std::optional<Target>& target) {
  Table table({"PARTITION", "CONSUMER", "COMMITTED", "END", "LAG"});
  for (const auto& [stream, p] : resolve(log, target)) {
    const auto names = log.consumers(stream, p);
    if (names.empty()) continue;
    const auto s = log.stats(stream, p);
    for (const auto& name : names) {
      const auto committed = log.committed(stream, p, name);
      if (!committed) continue;  // removed since the listing
      const std::uint64_t lag = s.end_offset > *committed ? s.end_offset - *committed : 0;
      table.add({partition_name(stream, p), name, std::to_string(*committed), std::to_string(s.end_offset),
                 std::to_string(lag)});
    }
  }
  table.print();
  return 0;
}

/// `commit`'s OFFSET: a number, `earliest` (the partition's first offset) or `latest` (its end).
int run_commit(const durable::Log& log, const Target& target, const std::string& consumer,
               const std::string& offset_text) {
  const auto partition = target.partition.value_or(0);
  resolve(log, Target{target.stream, partition});
  const auto s = log.stats(target.stream, partition);
  std::uint64_t offset = 0;
  if (offset_text == "earliest") {
    offset = s.first_offset;
  } else if (offset_text == "latest") {
    offset = s.end_offset;
  } else {
    const auto [end, ec] =
        std::from_chars(offset_text.data(), offset_text.data() + offset_text.size(), offset);
    if (offset_text.empty() || ec != std::errc{} || end != offset_text.data() + offset_text.size())
      throw CLI::ValidationError(
          "OFFSET", durable::quote_input(offset_text) + " is not an offset, 'earliest' or 'latest'");
    if (offset < s.first_offset || offset > s.end_offset)
      throw ToolError("offset " + offset_text + " is outside " + partition_name(target.stream, partition) +
                      ": a commit takes an offset from its first, " + std::to_string(s.first_offset) +
                      ", to its end offset (the next to be appended), " + std::to_string(s.end_offset));
  }
  log.commit(target.stream, partition, consumer, offset);
  g_out.put(partition_name(target.stream, partition) + ": consumer " + consumer + " committed offset " +
            std::to_string(offset) + "\n");
  return 0;
}

int run_create(const std::string& dir, const std::string& stream, std::uint32_t partitions) {
  auto log = open_log(dir, true);
  log.create_stream(stream, partitions);
  g_out.put("stream " + stream + ": " + count(log.partitions(stream).size(), "partition") + "\n");
  return 0;
}

/// Where `dump` and `follow` start reading, and as which consumer.
struct ReadOptions {
  std::optional<std::uint64_t> offset;
  std::optional<std::int64_t> timestamp;
  bool from_beginning = false;
  std::string group;        ///< consumer whose committed offset to start at and to commit, or empty
  std::uint64_t count = 0;  ///< records to print, 0 for all
  bool skip_damaged = false;
  bool skip_deleted = false;  ///< start at the first offset held if retention deleted the start
  RecordFormat format;
};

durable::Start start_of(const durable::Log& log, const std::string& stream, std::uint32_t p,
                        const ReadOptions& options, durable::Start otherwise) {
  if (options.offset) return durable::Start::at_offset(*options.offset);
  if (options.timestamp) return durable::Start::at_timestamp(*options.timestamp);
  if (options.from_beginning) return durable::Start::beginning();
  if (!options.group.empty()) {
    if (const auto committed = log.committed(stream, p, options.group))
      return durable::Start::at_offset(*committed);
  }
  return otherwise;
}

/// What a reader skipped (damage, offsets retention deleted) and has been reported so far.
struct Skipped {
  std::size_t damage = 0;
  std::uint64_t deleted = 0;
};

/// Reports on standard error what `reader` skipped since the last call: it is not in the output.
void report_skipped(const durable::Reader& reader, Skipped& reported) {
  const auto& skipped = reader.skipped();
  for (; reported.damage < skipped.size(); ++reported.damage)
    std::fprintf(stderr, "timely-log: skipped damage: %s\n", describe(skipped[reported.damage]).c_str());
  if (reader.offsets_missed() > reported.deleted) {
    std::fprintf(stderr, "timely-log: skipped %s that retention deleted in %s\n",
                 count(reader.offsets_missed() - reported.deleted, "offset").c_str(),
                 reader.partition().c_str());
    reported.deleted = reader.offsets_missed();
  }
}

/// Prints the records of `batch` from its start, at most `left` of them if `left` is nonzero
/// (decremented). Returns the offset after the last one printed.
std::uint64_t put_batch(const durable::BatchView& batch, std::uint64_t& left, const RecordFormat& format) {
  std::uint64_t next = batch.base_offset();
  for (std::size_t i = 0; i < batch.size(); ++i) {
    put_record(batch.base_offset() + i, batch[i], format);
    next = batch.base_offset() + i + 1;
    if (left != 0 && --left == 0) break;
  }
  return next;
}

durable::ReaderOptions reader_options(const ReadOptions& options) {
  durable::ReaderOptions r;
  if (options.skip_damaged) r.on_corruption = durable::ReaderOptions::Corruption::skip;
  if (options.skip_deleted) r.on_deleted = durable::ReaderOptions::Deleted::skip_to_first;
  return r;
}

int run_dump(const durable::Log& log, const Target& target, const ReadOptions& options) {
  const auto p = target.partition.value_or(0);
  resolve(log, Target{target.stream, p});
  auto reader =
      log.reader(target.stream, p, start_of(log, target.stream, p, options, durable::Start::beginning()),
                 reader_options(options));
  std::uint64_t left = options.count;
  std::uint64_t next = reader.position();
  Skipped reported;
  report_skipped(reader, reported);
  const bool limited = options.count != 0;
  while (g_stop == 0 && (!limited || left > 0)) {  // a signal stops it as it stops follow
    auto batch = reader.next_batch();
    report_skipped(reader, reported);
    if (!batch) break;
    next = put_batch(*batch, left, options.format);
  }
  g_out.flush();
  if (!options.group.empty()) log.commit(target.stream, p, options.group, next);
  return 0;
}

int run_follow(const durable::Log& log, const Target& target, const ReadOptions& options) {
  const auto p = target.partition.value_or(0);
  resolve(log, Target{target.stream, p});
  auto reader = log.reader(target.stream, p, start_of(log, target.stream, p, options, durable::Start::end()),
                           reader_options(options));
  std::uint64_t left = options.count;
  Skipped reported;
  report_skipped(reader, reported);
  const bool limited = options.count != 0;
  // Wait in short slices: a signal or a closed output is noticed within one slice.
  constexpr std::chrono::milliseconds kSlice{100};
  while (g_stop == 0 && (!limited || left > 0)) {
    if (Output::gone()) throw OutputGone{};
    auto batch = reader.next_batch(kSlice);
    report_skipped(reader, reported);
    if (!batch) continue;
    const auto next = put_batch(*batch, left, options.format);
    g_out.flush();
    if (!options.group.empty()) log.commit(target.stream, p, options.group, next);
  }
  g_out.flush();
  return 0;
}

/// What `append` does with standard input.
struct AppendOptions {
  std::optional<std::size_t> timestamp_field;  ///< 1-based field holding the timestamp (ms)
  char delimiter = '\t';
  std::size_t batch_records = 1000;
  std::size_t batch_bytes = std::size_t{1} << 20;
  std::string durability = "every-batch";
  std::uint64_t sync_ms = 1000;
  std::uint64_t sync_bytes = 0;
  std::uint64_t segment_bytes = std::uint64_t{64} << 20;
  std::optional<std::uint64_t> retention_bytes;
  std::optional<std::int64_t> retention_age;
  bool create = false;
  bool quiet = false;
};

/// The lines read but not yet appended: their bytes in one buffer, and where each starts.
class PendingLines {
 public:
  void add(std::int64_t timestamp, std::string_view line) {
    records_.push_back({timestamp, bytes_.size(), line.size()});
    bytes_.append(line);
  }
  [[nodiscard]] std::size_t size() const noexcept { return records_.size(); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_.size(); }
  /// Appends them all as one batch (nothing if none); returns the count appended.
  std::size_t append_to(durable::Writer& writer) {
    if (records_.empty()) return 0;
    std::vector<durable::RecordView> views;
    views.reserve(records_.size());
    const auto* base = reinterpret_cast<const std::byte*>(bytes_.data());
    for (const auto& r : records_) views.push_back({r.timestamp, std::span(base + r.position, r.length)});
    writer.append(views);
    const auto n = records_.size();
    records_.clear();
    bytes_.clear();
    return n;
  }

 private:
  struct Entry {
    std::int64_t timestamp;
    std::size_t position;
    std::size_t length;
  };
  std::vector<Entry> records_;
  std::string bytes_;
};

std::int64_t wall_clock_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The timestamp in field `field` (1-based) of `line`. \throws ToolError naming the line.
std::int64_t timestamp_field(std::string_view line, std::size_t field, char delimiter,
                             std::uint64_t line_number) {
  std::size_t start = 0;
  for (std::size_t i = 1; i < field; ++i) {
    const auto at = line.find(delimiter, start);
    if (at == std::string_view::npos)
      throw ToolError("standard input line " + std::to_string(line_number) + " has no field " +
                      std::to_string(field) + " (the timestamp)");
    start = at + 1;
  }
  const auto end = std::min(line.find(delimiter, start), line.size());
  const auto text = line.substr(start, end - start);
  std::int64_t t = 0;
  const auto [last, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
  if (text.empty() || ec != std::errc{} || last != text.data() + text.size())
    throw ToolError("standard input line " + std::to_string(line_number) + ": field " +
                    std::to_string(field) + " " + durable::quote_input(text) +
                    " is not an integer timestamp");
  return t;
}

/// Whether standard input has bytes (or its end) to read right now.
bool input_ready() {
  pollfd p{STDIN_FILENO, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

/// Prints to standard error what opening `writer` repaired, one line per fact, if anything:
/// the damaged tail cut (partition, segment, byte offset, bytes, the offsets lost, why), the
/// indexes rebuilt, the files removed and the damage found in sealed segments.
void report_recovery(const durable::Writer& writer) {
  const auto& r = writer.recovery();
  if (r.clean()) return;
  if (r.cut) {
    const auto& cut = *r.cut;
    // The cut records' offsets are the ones from the end recovery kept: the next appends get them.
    const std::uint64_t from = writer.end_offset();
    std::string text = r.partition + " segment " + cut.segment.filename().string() + " byte " +
                       std::to_string(cut.byte_offset) + ": " + cut.reason + " (" + count(cut.bytes, "byte");
    if (cut.records > 0)
      text += ", " + count(cut.records, "record") + ", offsets " + std::to_string(from) + "-" +
              std::to_string(from + cut.records - 1) + " lost";
    std::fprintf(stderr, "timely-log: recovery cut a damaged tail: %s)\n", text.c_str());
  }
  for (const auto& index : r.indexes_rebuilt)
    std::fprintf(stderr, "timely-log: recovery rebuilt index %s of %s\n", index.filename().c_str(),
                 r.partition.c_str());
  for (const auto& file : r.removed)
    std::fprintf(stderr, "timely-log: recovery removed %s of %s (no segment file)\n", file.filename().c_str(),
                 r.partition.c_str());
  for (const auto& damage : r.corruption)
    std::fprintf(stderr, "timely-log: recovery found damage: %s\n", describe(damage).c_str());
}

int run_append(const std::string& dir, const Target& target, const AppendOptions& options) {
  const auto p = target.partition.value_or(0);
  durable::WriterOptions w;
  if (options.durability == "every-batch") {
    w.durability = durable::Durability::every_batch();
  } else if (options.durability == "os") {
    w.durability = durable::Durability::os();
  } else {
    w.durability =
        durable::Durability::periodic(std::chrono::milliseconds(options.sync_ms), options.sync_bytes);
  }
  w.segment_bytes = options.segment_bytes;
  w.retention.max_bytes = options.retention_bytes;
  w.retention.max_age = options.retention_age;
  w.create = options.create;
  auto log = open_log(dir, options.create);
  if (!options.create) resolve(log, Target{target.stream, p});
  auto writer = log.writer(target.stream, p, w);
  report_recovery(writer);
  const std::uint64_t first = writer.end_offset();

  PendingLines pending;
  std::string partial;  // the bytes after the last newline read
  std::uint64_t line_number = 0;
  std::uint64_t appended = 0;
  auto take_line = [&](std::string_view line) {
    ++line_number;
    const auto t = options.timestamp_field
                       ? timestamp_field(line, *options.timestamp_field, options.delimiter, line_number)
                       : wall_clock_ms();
    pending.add(t, line);
  };
  auto finish = [&] {
    appended += pending.append_to(writer);
    writer.close();
    if (!options.quiet) {
      std::string text = writer.partition() + ": appended " + count(appended, "record");
      if (appended > 0)
        text += ", offsets " + std::to_string(first) + "-" + std::to_string(first + appended - 1);
      g_out.put(text + "\n");
    }
  };

  char buffer[65536];
  try {
    while (g_stop == 0) {
      const auto n = ::read(STDIN_FILENO, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw ToolError(std::string("cannot read standard input: ") + std::strerror(errno));
      if (n == 0) break;
      std::string_view chunk(buffer, static_cast<std::size_t>(n));
      for (auto newline = chunk.find('\n'); newline != std::string_view::npos; newline = chunk.find('\n')) {
        if (partial.empty()) {
          take_line(chunk.substr(0, newline));
        } else {
          partial.append(chunk.substr(0, newline));
          take_line(partial);
          partial.clear();
        }
        chunk.remove_prefix(newline + 1);
        if (pending.size() >= options.batch_records || pending.bytes() >= options.batch_bytes)
          appended += pending.append_to(writer);
      }
      partial.append(chunk);
      // Nothing more to read now: append what there is, so that a slow producer's lines are
      // readable at once rather than when a batch fills.
      if (!input_ready()) appended += pending.append_to(writer);
    }
    if (!partial.empty()) take_line(partial);  // a last line without its newline
  } catch (const ToolError&) {
    // Keep what was read before the bad line, then report it.
    finish();
    throw;
  }
  finish();
  g_out.flush();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "timely-log: lists, checks, reads, follows and appends to a durable log (timely::durable).\n"
      "A partition is STREAM/N; STREAM alone means partition 0 where one partition is read or\n"
      "written, and all of the stream's partitions where several may be listed.",
      "timely-log");
  app.require_subcommand(1);
  app.fallthrough();
  std::string dir;
  app.add_option("-l,--log", dir, "The log's root directory (or set TIMELY_LOG)")
      ->envname("TIMELY_LOG")
      ->required()
      ->option_text("DIR");
  std::string time_text = "ms";
  app.add_option("--time", time_text, "Timestamps as integers (ms) or as UTC ISO 8601 (iso)")
      ->check(CLI::IsMember({"ms", "iso"}))
      ->option_text("ms|iso");
  app.footer(
      "Exit status: 0 done, 1 error (one line naming the input), 2 bad arguments, 3 verify found\n"
      "damage, 141 standard output closed (as a pipeline's writer).\n"
      "Examples:\n"
      "  printf 'a\\nb\\n' | timely-log -l /tmp/log append events --create\n"
      "  timely-log -l /tmp/log dump events/0 --offset 1 -n 10\n"
      "  timely-log -l /tmp/log follow events/0 --group audit\n"
      "Run timely-log SUBCOMMAND --help for a subcommand's options.\n");

  std::string target_text;
  std::vector<CLI::Option*> target_options;
  auto add_target = [&target_text, &target_options](CLI::App* sub, bool required, const char* what) {
    auto* option = sub->add_option("target", target_text, what)->option_text("STREAM[/P]");
    if (required) option->required();
    target_options.push_back(option);
  };

  // A subcommand: a one-line summary in the main help, the details in its own.
  auto add_subcommand = [&app](const char* name, const char* summary, const char* details) {
    auto* sub = app.add_subcommand(name, summary);
    sub->footer(details);
    return sub;
  };

  auto* list = add_subcommand(
      "list", "Partitions with their segments, bytes, records, offsets and timestamps",
      "One line per partition: segments, bytes of the segment files, records, first offset, end offset (one\n"
      "past the last record: the offset the next append gets), first and last record's timestamp.");
  add_target(list, false, "A stream (all of its partitions) or a partition; default: every partition");

  auto* stats = add_subcommand("stats", "Partitions' figures in detail, and totals",
                               "Per partition: segments, bytes, records, offsets, first, last and largest\n"
                               "timestamp, bytes per record, consumers; then the totals.");
  add_target(stats, false, "A stream, a partition, or (default) the whole log");

  ReadOptions read;
  auto add_read_options = [&](CLI::App* sub, const char* start_default) {
    add_target(sub, true, "The partition (STREAM alone: partition 0)");
    auto* offset = sub->add_option("-o,--offset", read.offset, "Start at this offset")
                       ->transform(decimal(false))
                       ->option_text("O");
    auto* timestamp = sub->add_option("-t,--timestamp", read.timestamp,
                                      "Start at the first record (in offset order) with a timestamp >= T")
                          ->transform(decimal(true))
                          ->option_text("T");
    auto* beginning = sub->add_flag("--from-beginning", read.from_beginning, "Start at the first offset");
    offset->excludes(timestamp)->excludes(beginning);
    timestamp->excludes(beginning);
    sub->add_option("-g,--group", read.group,
                    std::string("Start at consumer NAME's committed offset (if none: ") + start_default +
                        ") unless a start is given, and commit the offset past the records printed "
                        "(dump: once at its end; follow: after each batch)")
        ->option_text("NAME");
    sub->add_option("-n,--count", read.count, "Print at most N records (0: no limit)")
        ->transform(decimal(false))
        ->option_text("N");
    sub->add_flag("-x,--hex", read.format.hex, "Print each record as a hex dump under its offset line");
    sub->add_flag("--value-only", read.format.value_only, "Print the records' bytes alone");
    sub->add_flag("--skip-deleted", read.skip_deleted,
                  "If retention deleted the start (or the reader falls behind it), go on at the first offset "
                  "held, reporting the offsets skipped on standard error, instead of failing "
                  "(Kafka's auto.offset.reset=earliest)");
    sub->add_flag("--skip-damaged", read.skip_damaged,
                  "Skip damaged batches (reported on standard error) instead of failing at the first");
  };
  auto* dump = add_subcommand(
      "dump", "Print records from an offset or a timestamp",
      "Prints the records from the start given (default: the first offset) to the end, or --count of them:\n"
      "one line each, OFFSET<TAB>TIMESTAMP<TAB>TEXT, the text with \\\\, \\n, \\t, \\r and \\xNN escapes\n"
      "so that a record is one line; with --hex a line `offset O timestamp T length L` and a hex dump.\n"
      "SIGINT or SIGTERM stops it, as follow: exit status 0, and --group commits what was printed.");
  add_read_options(dump, "the first offset");
  auto* follow = add_subcommand(
      "follow", "Print records as they are appended, like tail -f",
      "Prints records as dump does and waits for more, until SIGINT or SIGTERM (exit status 0), --count\n"
      "records, or standard output closing (141). From the start given; default: the records appended from\n"
      "now on. Appends by other processes are seen through inotify.");
  add_read_options(follow, "the end");

  AppendOptions append_options;
  auto* append = add_subcommand(
      "append", "Append standard input, one record per line",
      "Appends each line of standard input (without its newline) as a record, in batches of up to\n"
      "--batch-records lines; a batch is also appended whenever no more input is ready, so that lines\n"
      "typed or piped slowly are readable at once. Prints the offsets given. SIGINT or SIGTERM: appends\n"
      "what was read and exits 0. A partition has one writer at a time: a second gets WriterBusy.\n"
      "Opening the writer recovers the partition: if that cuts a damaged or torn tail of the active\n"
      "segment (its records' offsets are lost and given to the new lines), rebuilds indexes or finds\n"
      "damage, it is said on standard error (partition, segment, byte offset, offsets lost, why).");
  add_target(append, true, "The partition (STREAM alone: partition 0)");
  append
      ->add_option("--timestamp-field", append_options.timestamp_field,
                   "Take each record's timestamp from field F (from 1) of its line, an integer; default: "
                   "the wall clock in ms since the epoch")
      ->transform(decimal(false))
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->option_text("F");
  std::string delimiter = "\t";
  auto* delimiter_option = append
                               ->add_option("--delimiter", delimiter,
                                            "--timestamp-field's field delimiter, one byte (default: tab)")
                               ->option_text("C");
  append
      ->add_option("--batch-records", append_options.batch_records,
                   "At most this many lines per batch (a batch is also appended whenever no more input "
                   "is ready)")
      ->transform(decimal(false))
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
      ->option_text("N");
  append->add_option("--batch-bytes", append_options.batch_bytes, "At most about this many bytes per batch")
      ->transform(decimal(false))
      ->check(CLI::Range(std::size_t{1}, std::size_t{512} << 20))
      ->option_text("B");
  append
      ->add_option("--durability", append_options.durability,
                   "every-batch: fdatasync before a batch counts as appended; periodic: every --sync-ms "
                   "or --sync-bytes; os: leave it to the kernel (a process crash loses nothing; power "
                   "loss may)")
      ->check(CLI::IsMember({"every-batch", "periodic", "os"}));
  auto* sync_ms =
      append->add_option("--sync-ms", append_options.sync_ms, "periodic: the longest a batch stays unsynced")
          ->transform(decimal(false))
          ->option_text("MS");
  auto* sync_bytes = append
                         ->add_option("--sync-bytes", append_options.sync_bytes,
                                      "periodic: sync when this many bytes are unsynced")
                         ->transform(decimal(false))
                         ->option_text("B");
  append->add_option("--segment-bytes", append_options.segment_bytes, "Roll segments at this size")
      ->transform(decimal(false))
      ->check(CLI::Range(std::uint64_t{4096}, std::uint64_t{1} << 31))
      ->option_text("B");
  append
      ->add_option("--retention-bytes", append_options.retention_bytes,
                   "Delete the oldest sealed segments while the partition's segment files exceed B bytes")
      ->transform(decimal(false))
      ->option_text("B");
  append
      ->add_option("--retention-age", append_options.retention_age,
                   "Delete sealed segments whose records are all older than T below the partition's "
                   "largest timestamp (timestamp units: ms)")
      ->transform(decimal(false))
      ->option_text("T");
  append->add_flag("--create", append_options.create, "Create the log, stream and partition if missing");
  append->add_flag("-q,--quiet", append_options.quiet, "Do not print the offsets appended");

  auto* verify = add_subcommand(
      "verify", "Check every batch's checksum and offsets, and the indexes",
      "Reads every batch and index entry and checks them. One line per partition (ok or DAMAGED) and one\n"
      "per problem: partition, segment file, byte offset, reason, bytes and offsets lost. Exit status 3\n"
      "if any partition is damaged. SIGINT or SIGTERM stops it between partitions, saying on standard\n"
      "error how many were checked: exit status 0, or 3 if those were damaged.\n"
      "Meant for partitions with no writer: it reads the files as they are, so while a writer appends\n"
      "it can report damage at the tail of the active segment and in its index (a batch or an index\n"
      "entry half written) that is not there. Read such a result as provisional, and run it again\n"
      "with the writer stopped.");
  add_target(verify, false, "A stream, a partition, or (default) the whole log");

  auto* consumers = add_subcommand(
      "consumers", "Consumers' committed offsets and their lag",
      "One line per consumer and partition: committed offset (the next it will read), the partition's\n"
      "end offset, and the lag between them.");
  add_target(consumers, false, "A stream, a partition, or (default) the whole log");

  auto* commit = add_subcommand("commit", "Set a consumer's committed offset",
                                "Commits OFFSET (the next offset the consumer will read; a number from the\n"
                                "partition's first to its end offset, earliest or latest) durably.");
  add_target(commit, true, "The partition (STREAM alone: partition 0)");
  std::string consumer;
  std::string offset_text;
  commit->add_option("consumer", consumer, "The consumer's name")->required()->option_text("CONSUMER");
  commit->add_option("offset", offset_text, "An offset, earliest or latest")
      ->required()
      ->option_text("OFFSET");

  auto* create = add_subcommand("create", "Create a stream of N partitions",
                                "Creates the log, the stream and its partitions 0 to N-1, those missing.");
  std::string create_stream;
  std::uint32_t create_partitions = 1;
  create->add_option("stream", create_stream, "The stream's name")->required()->option_text("STREAM");
  create->add_option("-p,--partitions", create_partitions, "Partitions")
      ->transform(decimal(false))
      ->check(CLI::Range(std::uint32_t{1}, std::uint32_t{1} << 20))
      ->option_text("N");

  std::optional<Target> target;
  try {
    app.parse(argc, argv);
    if (dir.empty()) throw CLI::ValidationError("--log", "the log directory is an empty path");
    if (std::any_of(target_options.begin(), target_options.end(),
                    [](const CLI::Option* o) { return o->count() > 0; }))
      target = parse_target(target_text);  // "" too: refused as a stream name
    if (delimiter.size() != 1)
      throw CLI::ValidationError("--delimiter", durable::quote_input(delimiter) + " is not one byte");
    append_options.delimiter = delimiter.front();
    if (delimiter_option->count() > 0 && !append_options.timestamp_field)
      throw CLI::ValidationError("--delimiter", "applies to --timestamp-field only");
    if (append_options.durability == "periodic" && append_options.sync_ms == 0 &&
        append_options.sync_bytes == 0)
      throw CLI::ValidationError("--durability periodic", "needs --sync-ms or --sync-bytes above 0");
    if (append_options.durability != "periodic" && (sync_ms->count() > 0 || sync_bytes->count() > 0))
      throw CLI::ValidationError(
          sync_ms->count() > 0 ? "--sync-ms" : "--sync-bytes",
          "applies to --durability periodic only (this append's is " + append_options.durability + ")");
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      // CLI11 would say "A subcommand is required"; the first argument left was meant as one.
      std::string names;
      for (const auto* sub : std::as_const(app).get_subcommands([](const CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + sub->get_name();
      std::fprintf(stderr, "timely-log: unknown subcommand %s (the subcommands: %s; timely-log --help)\n",
                   durable::quote_input(app.remaining().front()).c_str(), names.c_str());
      return kExitUsage;
    }
    const int code = app.exit(e);  // prints the help, or the error
    return code == 0 ? 0 : kExitUsage;
  }
  const TimeFormat time = time_text == "iso" ? TimeFormat::iso : TimeFormat::ms;
  read.format.time = time;

  ::signal(SIGPIPE, SIG_IGN);  // EPIPE instead, handled by Output
  struct sigaction action {};
  action.sa_handler = on_stop;
  ::sigemptyset(&action.sa_mask);
  for (const int s : {SIGINT, SIGTERM}) ::sigaction(s, &action, nullptr);  // no SA_RESTART: read returns

  try {
    int status = 0;
    if (create->parsed()) {
      status = run_create(dir, create_stream, create_partitions);
    } else if (append->parsed()) {
      status = run_append(dir, *target, append_options);
    } else {
      const auto log = open_log(dir, false);
      if (list->parsed()) status = run_list(log, target, time);
      if (stats->parsed()) status = run_stats(log, target, time);
      if (verify->parsed()) status = run_verify(log, target);
      if (consumers->parsed()) status = run_consumers(log, target);
      if (commit->parsed()) status = run_commit(log, *target, consumer, offset_text);
      if (dump->parsed()) status = run_dump(log, *target, read);
      if (follow->parsed()) status = run_follow(log, *target, read);
    }
    g_out.flush();
    return status;
  } catch (const OutputGone&) {
    return kExitPipe;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "timely-log: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    // The log's typed errors (timely::durable::LogError) name the partition, file and byte
    // offset themselves; the tool's own name the input.
    try {
      g_out.flush();
    } catch (...) {
    }
    std::fprintf(stderr, "timely-log: %s\n", e.what());
    return kExitError;
  }
}
