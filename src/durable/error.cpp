// The durable log's exceptions (timely/durable/error.hpp) and the reports' text
// (timely/durable/report.hpp).
#include <timely/durable/error.hpp>

#include <cstring>

#include <timely/durable/report.hpp>

namespace timely::durable {

LogError::LogError(std::string partition, std::filesystem::path file,
                   std::optional<std::uint64_t> byte_offset, const std::string& cause)
    : timely::Error(cause),
      partition_(std::move(partition)),
      file_(std::move(file)),
      byte_offset_(byte_offset),
      cause_(cause) {
  compose();
}

void LogError::set_partition(const std::string& partition) {
  if (!partition_.empty() || partition.empty()) return;
  partition_ = partition;
  compose();
}

void LogError::compose() {
  std::string m;
  if (!partition_.empty()) m = "partition " + partition_;
  if (!file_.empty()) m += (m.empty() ? "" : ", ") + std::string("file ") + quote_input(file_.string(), 4096);
  if (byte_offset_)
    m += (m.empty() ? "at" : " at") + std::string(" byte offset ") + std::to_string(*byte_offset_);
  message_ = m.empty() ? cause_ : m + ": " + cause_;
}

IoError::IoError(std::filesystem::path file, std::optional<std::uint64_t> byte_offset,
                 const std::string& operation, int error)
    : LogError("", std::move(file), byte_offset, operation + " failed: " + std::strerror(error)),
      code_(error, std::generic_category()) {}

WriterBusy::WriterBusy(std::string partition, std::filesystem::path lock_file, std::string holder)
    : LogError(std::move(partition), std::move(lock_file), std::nullopt,
               "the partition has a writer already" + (holder.empty() ? std::string() : " (" + holder + ")") +
                   "; one writer at a time may append"),
      holder_(std::move(holder)) {}

OffsetOutOfRange::OffsetOutOfRange(std::string partition, std::uint64_t requested, std::uint64_t first,
                                   std::uint64_t end)
    : LogError(std::move(partition), "", std::nullopt,
               "offset " + std::to_string(requested) + " is outside the partition's offsets [" +
                   std::to_string(first) + ", " + std::to_string(end) + ")" +
                   (requested < first ? " (retention deleted it)" : "")),
      requested_(requested),
      first_(first),
      end_(end) {}

std::string to_string(const CorruptionReport& r) {
  std::string s = "partition " + r.partition + ", file '" + r.file.string() + "' at byte offset " +
                  std::to_string(r.byte_offset) + ": " + r.reason;
  if (r.bytes > 0) s += "; " + std::to_string(r.bytes) + " bytes passed over";
  if (r.lost_end > r.lost_begin)
    s += "; offsets [" + std::to_string(r.lost_begin) + ", " + std::to_string(r.lost_end) + ") lost";
  return s;
}

std::string to_string(const RecoveryReport& r) {
  std::string s = "recovery of partition " + r.partition + ":";
  if (r.clean()) return s + " clean\n";
  s += "\n";
  if (r.cut)
    s += "  cut '" + r.cut->segment.string() + "' at byte offset " + std::to_string(r.cut->byte_offset) +
         ": " + std::to_string(r.cut->bytes) + " bytes, " + std::to_string(r.cut->records) + " records (" +
         r.cut->reason + ")\n";
  for (const auto& path : r.indexes_rebuilt) s += "  rebuilt '" + path.string() + "'\n";
  for (const auto& path : r.removed) s += "  removed '" + path.string() + "'\n";
  for (const auto& c : r.corruption) s += "  damaged: " + to_string(c) + "\n";
  return s;
}

std::string to_string(const VerifyReport& r) {
  std::string s = "partition " + r.partition + ": " + std::to_string(r.segments) + " segments, " +
                  std::to_string(r.batches) + " batches, " + std::to_string(r.records) + " records, " +
                  std::to_string(r.bytes) + " bytes: " +
                  (r.ok() ? std::string("ok") : std::to_string(r.problems.size()) + " problems") + "\n";
  for (const auto& p : r.problems) s += "  " + to_string(p) + "\n";
  return s;
}

std::string to_string(const PartitionStats& st) {
  std::string s = "partition " + st.partition + ": " + std::to_string(st.segments) + " segments, " +
                  std::to_string(st.bytes) + " bytes, " + std::to_string(st.records) + " records, offsets [" +
                  std::to_string(st.first_offset) + ", " + std::to_string(st.end_offset) + ")";
  if (st.first_timestamp)
    s += ", timestamps first " + std::to_string(*st.first_timestamp) + " last " +
         std::to_string(*st.last_timestamp) + " max " + std::to_string(*st.max_timestamp);
  return s;
}

std::string quote_input(std::string_view input, std::size_t limit) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (std::size_t i = 0; i < input.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(input[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xf]);
    }
  }
  out.push_back('\'');
  if (input.size() > limit) out += "... (" + std::to_string(input.size()) + " bytes)";
  return out;
}

}  // namespace timely::durable
