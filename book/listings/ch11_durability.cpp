// Chapter 11, "durability": what each durability policy keeps of 40 acknowledged records when
// the process is killed, when the power fails, and when the disk damages one byte of a sealed
// or of the active segment. The log runs on the simulated file system, which keeps what a real
// one keeps: a killed process's writes, but after a power loss only what was synced.
//   ch11_durability
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include <timely/durable/log.hpp>
#include <timely/durable/simulated_file_system.hpp>

namespace durable = timely::durable;

enum class Fault { process_crash, power_loss, bad_sealed_segment, bad_active_segment };

// Appends 40 batches of one 200-byte record (280 bytes a batch; 4 KiB segments of 14 batches,
// so segments 0 and 14 are sealed and 28 is active), lets `fault` happen, then opens a new
// writer (recovery) and counts the records a reader that skips damage reads.
std::uint64_t survivors(durable::Durability durability, Fault fault) {
  auto disk = std::make_shared<durable::SimulatedFileSystem>();
  durable::Log log("/log", {disk});
  durable::WriterOptions options;
  options.durability = durability;
  options.segment_bytes = 4096;
  {
    auto writer = log.writer("s", 0, options);
    const std::string record(200, 'x');
    for (int i = 0; i < 40; ++i) writer.append(i, std::as_bytes(std::span(record)));
    switch (fault) {
      case Fault::process_crash:
        disk->crash_process();
        break;
      case Fault::power_loss:
        disk->crash();
        break;
      case Fault::bad_sealed_segment:
        writer.close();
        disk->flip_bit("/log/s/0/00000000000000000000.log", 1000, 3);  // in offset 3's batch
        break;
      case Fault::bad_active_segment:
        writer.close();
        disk->flip_bit("/log/s/0/00000000000000000028.log", 1000, 3);  // in offset 31's batch
        break;
    }
  }  // after a crash the old writer's files fail, so it can no longer sync anything
  auto writer = log.writer("s", 0, options);
  durable::ReaderOptions skip;
  skip.on_corruption = durable::ReaderOptions::Corruption::skip;
  auto reader = log.reader("s", 0, durable::Start::beginning(), skip);
  std::uint64_t records = 0;
  while (auto batch = reader.next_batch()) records += batch->size();
  return records;
}

int main() {
  struct Policy {
    const char* name;
    durable::Durability durability;
  };
  const Policy policies[] = {
      {"every_batch", durable::Durability::every_batch()},
      {"periodic(1 h, 2048 B)", durable::Durability::periodic(std::chrono::hours(1), 2048)},
      {"os", durable::Durability::os()},
  };
  std::printf("records kept of 40 acknowledged:\n");
  std::printf("%-22s %13s %11s %20s %20s\n", "policy", "process crash", "power loss", "bad sealed segment",
              "bad active segment");
  for (const auto& p : policies) {
    std::printf("%-22s", p.name);
    for (auto fault :
         {Fault::process_crash, Fault::power_loss, Fault::bad_sealed_segment, Fault::bad_active_segment}) {
      const int width = fault == Fault::process_crash ? 13 : fault == Fault::power_loss ? 11 : 20;
      std::printf(" %*ju", width, static_cast<std::uintmax_t>(survivors(p.durability, fault)));
    }
    std::printf("\n");
  }
}
