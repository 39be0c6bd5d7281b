// durable_child: the other process of the durable log's process tests (process_test.cpp).
//
//   durable_child crash DIR SEGMENT_BYTES [POLICY]
//                                           appends batches of the deterministic records to
//                                           partition s/0 of the log in DIR until killed, under
//                                           durability POLICY (see crash_durability in
//                                           support.hpp: every_batch, the default, or periodic);
//                                           after each append returns, writes "BASE COUNT\n" to
//                                           standard output (one write: a line reaches the pipe
//                                           whole or not at all)
//   durable_child append DIR COUNT PAUSE_MS appends records [end, end + COUNT) one at a time,
//                                           pausing between them, then exits 0
//   durable_child hold DIR                  opens the writer of s/0, writes "ready\n", and holds
//                                           it until standard input closes
//
// Exit status 2 with a message on standard error if anything throws.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>

#include <timely/durable/log.hpp>

#include "durable/support.hpp"

using namespace timely::durable;

namespace {

void say(const std::string& line) {
  const ssize_t n = ::write(STDOUT_FILENO, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) std::exit(3);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 2 ? argv[1] : "";
    if (mode == "crash" && (argc == 4 || argc == 5)) {
      Log log(argv[2]);
      WriterOptions options;
      options.durability = durable_test::crash_durability(argc == 5 ? argv[4] : "every_batch");
      options.segment_bytes = std::stoull(argv[3]);
      options.index_interval_bytes = 1024;
      Writer writer = log.writer("s", 0, options);
      for (std::uint64_t i = 0;; ++i) {
        const std::uint64_t base = writer.end_offset();
        const std::uint64_t n = 1 + (base + i) % 5;
        const auto records = durable_test::deterministic(base, base + n);
        if (durable_test::append(writer, records) != base) return 4;
        say(std::to_string(base) + " " + std::to_string(n) + "\n");
      }
    }
    if (mode == "append" && argc == 5) {
      Log log(argv[2]);
      Writer writer = log.writer("s", 0);
      const std::uint64_t count = std::stoull(argv[3]);
      const auto pause = std::chrono::milliseconds(std::stoll(argv[4]));
      const std::uint64_t from = writer.end_offset();
      for (std::uint64_t o = from; o < from + count; ++o) {
        std::this_thread::sleep_for(pause);
        durable_test::append(writer, durable_test::deterministic(o, o + 1));
      }
      writer.close();
      return 0;
    }
    if (mode == "hold" && argc == 3) {
      Log log(argv[2]);
      Writer writer = log.writer("s", 0);
      say("ready\n");
      char c;
      while (::read(STDIN_FILENO, &c, 1) > 0) {
      }
      return 0;
    }
    std::fprintf(stderr,
                 "usage: durable_child crash DIR SEGMENT_BYTES [every_batch|periodic] | append DIR COUNT "
                 "PAUSE_MS | hold DIR\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "durable_child: %s\n", e.what());
    return 2;
  }
}
