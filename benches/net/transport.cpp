// transport: the cluster allocator's ceiling for columnar batches, between the socket copy
// (loopback_copy) and the exchange example. Each worker sends BATCHES serialized-size 1 MiB
// columnar batches of the `exchange --strings --columnar` records (u64, string of 5-15 bytes) to
// every other worker through a channel of its allocator, and pulls what the others send it: no
// dataflow, no progress tracking, no records pushed or partitioned. The batch sent is one
// prepared batch, borrowed (copying it costs nothing), so the time is the allocator's: the
// sender's encoding (one memcpy per column into the frame), the socket, the receiver's
// validation of each batch read in place from its receive slab.
//
//   transport [BATCHES] [worker arguments: -n 2 -p P -h HOSTS]      (default 1000, 1 to 10^7)
//
// Prints, per worker, the batches sent and received, one batch's records and serialized bytes,
// the rate each way in serialized bytes (frame headers not counted), and the process's CPU
// seconds. Workers of one process pass batches by pointer, so it runs in one process only with
// -z (every batch serialized), and then measures no socket. Read it against `loopback_copy
// BYTES 1048576 --both` (the socket alone) and `exchange 100000 1000 --strings --columnar -n 2`
// (records pushed into a batch, partitioned, sent, counted), run alternately: the copy less the
// transport is what the allocator costs, the transport less the exchange what the records'
// work costs.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/timely.hpp>

#include "../workloads/parse_count.hpp"
#include "cpu_seconds.hpp"

namespace {

using Text = std::pair<std::uint64_t, std::string>;
using Batch = timely::container::columnar::Batch<Text>;
using Message = timely::dataflow::Message<std::uint64_t, Batch>;
constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
// Channel ids of dataflows count up from 0; none is built here.
constexpr std::size_t kChannel = 1u << 20;

/// A batch of the exchange example's records cut at the default capacity, borrowed from one
/// serialized copy (so that each send copies a pointer, not the columns).
Batch prepared_batch() {
  Batch owned;
  for (std::uint64_t i = 0; !owned.at_capacity(); ++i)
    owned.push_into(Batch::Ref{i, kLetters.substr(i % 32, 5 + i % 11)});
  auto bytes = std::make_shared<std::vector<std::uint8_t>>();
  owned.append_to(*bytes);
  return Batch::from_bytes(std::span<const std::uint8_t>(*bytes), bytes);
}

void run(timely::Worker& worker, std::uint64_t batches) {
  auto& allocator = worker.state().allocator();
  const std::size_t index = allocator.index(), peers = allocator.peers();
  auto [pushers, puller] = allocator.allocate<Message>(kChannel);
  const Batch batch = prepared_batch();
  const std::uint64_t to_send = batches * (peers - 1), to_receive = to_send;
  std::uint64_t sent = 0, received = 0, received_records = 0;
  const double cpu_start = bench::process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  while (sent < to_send || received < to_receive) {
    // A lost peer poisons the allocator; its batches will not come (a dataflow's worker checks
    // this in every step).
    if (allocator.poisoned())
      throw timely::WorkerAborted("transport: worker " + std::to_string(index) +
                                  " stopped: another worker failed or a peer process was lost");
    if (sent < to_send) {
      const std::size_t target = (index + 1 + sent % (peers - 1)) % peers;
      pushers[target]->send(Message{sent, batch});
      pushers[target]->done();
      ++sent;
    }
    allocator.release();
    allocator.receive();
    bool any = false;
    while (auto message = puller->recv()) {
      ++received;
      received_records += message->data.size();
      any = true;
    }
    allocator.events().clear();
    if (!any && sent == to_send && received < to_receive)
      allocator.await_events(std::chrono::milliseconds(10));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = bench::process_cpu_seconds() - cpu_start;
  if (received_records != to_receive * batch.size())
    throw timely::Error("transport: worker " + std::to_string(index) + " received " +
                        std::to_string(received_records) + " records, expected " +
                        std::to_string(to_receive * batch.size()));
  const double bytes = static_cast<double>(batch.byte_size()) * static_cast<double>(sent);
  std::printf(
      "worker %zu: sent %llu and received %llu batches of %zu records (%zu bytes) in %.3f s: %.3e bytes/s "
      "each way; cpu %.3f s (this process)\n",
      index, static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received), batch.size(),
      batch.byte_size(), seconds, seconds > 0 ? bytes / seconds : 0.0, cpu);
}

}  // namespace

int main(int argc, char** argv) {
  const char* const usage =
      "usage: transport [BATCHES] [worker arguments]  (BATCHES 1 to 10^7, default 1000; workers in two "
      "or more processes, or in one with -z)";
  try {
    timely::Config config = timely::Config::from_args(argc, argv);
    std::uint64_t batches = 1000;
    if (config.positional.size() > 1)
      throw timely::ConfigError("transport: one number expected (BATCHES), got '" + config.positional[0] +
                                "' and '" + config.positional[1] + "'");
    if (!config.positional.empty()) {
      unsigned long long value = 0;
      const std::string& text = config.positional[0];
      if (!baseline::parse_count(text.c_str(), value) || value < 1 || value > 10'000'000)
        throw timely::ConfigError("transport: expected BATCHES from 1 to 10000000, got '" + text + "'");
      batches = value;
    }
    if (config.processes * config.workers < 2)
      throw timely::ConfigError("transport: needs at least two workers (-n 2 ..., or -w 2 -z)");
    // Workers of one process hand each other batches by pointer: nothing would be measured.
    if (config.processes == 1 && !config.network.zerocopy)
      throw timely::ConfigError(
          "transport: workers of one process pass batches by pointer; run two processes (-n 2 -p P -h "
          "HOSTS) or serialize with -z");
    timely::execute(std::move(config), [&](timely::Worker& worker) { run(worker, batches); });
  } catch (const timely::HelpRequested& help) {
    std::printf("%s\n%s", usage, help.what());
  } catch (const timely::ConfigError& e) {
    std::fprintf(stderr, "%s\n%s\n", e.what(), usage);
    return 2;
  } catch (const timely::Error& e) {  // a lost peer, a failed worker
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
