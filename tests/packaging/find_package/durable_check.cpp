// The consumers' use of timely::durable: a log in a scratch directory, three batches appended
// and read back; returns the records read (the caller checks there are 6), so that a consumer
// that links the package without the durable library fails to link.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <timely/durable/log.hpp>

std::uint64_t durable_records() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("timely-packaging-durable-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::uint64_t records = 0;
  {
    timely::durable::Log log(dir);
    auto writer = log.writer("checks", 0);
    for (int batch = 1; batch <= 3; ++batch) {
      const std::string text(static_cast<std::size_t>(batch), 'x');
      std::vector<timely::durable::RecordView> views(static_cast<std::size_t>(batch),
                                                     {batch, std::as_bytes(std::span(text))});
      writer.append(views);
    }
    writer.close();
    auto reader = log.reader("checks", 0, timely::durable::Start::beginning());
    while (auto b = reader.next_batch()) records += b->size();
  }
  std::filesystem::remove_all(dir);
  return records;
}
