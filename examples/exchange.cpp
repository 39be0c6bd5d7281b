// exchange: the data-plane benchmark. Each round every worker sends BATCH records, exchanged by
// value, and waits for the round to complete; prints the records each worker sent, its time and
// its rate.
//   exchange BATCH ROUNDS [--strings] [--columnar [--batches]] [--check] [--quiet] [-w N]
// Records are u64s, or with --strings (u64, string of 5 to 15 bytes) pairs. They travel in
// std::vector batches, or with --columnar in columnar batches (timely/container/columnar.hpp:
// one column per field, strings as offsets and one byte buffer, read in place on receipt).
// With --batches the records enter as whole read-only columnar batches instead of one at a time,
// as records read in place from a log segment or a mapped capture file would. --check adds an
// operator that checks every record a worker receives (routed to it, key below BATCH, the text
// sent with that key) and their number (the worker's share of every worker's rounds). Every
// process of a computation must be given the same switches: they decide the dataflow it builds.
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/timely.hpp>

#include "common.hpp"
#include "progress_line.hpp"

using namespace timely::dataflow::operators;

namespace {

using Text = std::pair<std::uint64_t, std::string>;
constexpr std::string_view kLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The text of record `i`: 5 to 15 bytes.
std::string_view text_of(std::uint64_t i) { return kLetters.substr(i % 32, 5 + i % 11); }

/// Record `i` as sent into a `C`: the u64 itself, a `Text` pair for a vector batch, or for a
/// columnar batch the borrowed form, which makes no string.
template <class Record, class C>
auto record_of(std::uint64_t i) {
  if constexpr (std::is_same_v<Record, std::uint64_t>)
    return i;
  else if constexpr (timely::container::Vector<C>)
    return Text{i, std::string(text_of(i))};
  else
    return std::tuple<std::uint64_t, std::string_view>{i, text_of(i)};
}

/// A record's key: the record itself, or its first field (a `std::pair` of a vector batch, or the
/// `std::tuple<std::uint64_t, std::string_view>` a columnar batch's records are read as).
template <class Item>
std::uint64_t key_of(const Item& x) {
  if constexpr (std::is_integral_v<Item>)
    return static_cast<std::uint64_t>(x);
  else
    return static_cast<std::uint64_t>(std::get<0>(x));
}

/// What --check found: records received and the first wrong one.
struct Received {
  std::uint64_t records = 0;
  std::string first_wrong;

  template <class Item>
  void check(const Item& x, std::uint64_t batch, std::uint64_t peers, std::uint64_t index) {
    ++records;
    if (!first_wrong.empty()) return;
    const std::uint64_t key = key_of(x);
    if (key >= batch)
      first_wrong = "record " + std::to_string(key) + ", not below BATCH " + std::to_string(batch);
    else if (key % peers != index)
      first_wrong = "record " + std::to_string(key) + ", which goes to worker " + std::to_string(key % peers);
    if constexpr (!std::is_integral_v<Item>) {
      const std::string_view text(std::get<1>(x));
      if (first_wrong.empty() && text != text_of(key))
        first_wrong = "record " + std::to_string(key) + " with text '" + std::string(text) + "', not '" +
                      std::string(text_of(key)) + "'";
    }
  }
};

struct Switches {
  bool quiet = false;     // no progress line
  bool in_place = false;  // --batches
  bool check = false;     // --check
};

template <class Record, class C>
void run(timely::Worker& worker, std::uint64_t batch, std::uint64_t rounds, Switches switches) {
  timely::InputHandleCore<std::uint64_t, C> input;
  timely::ProbeHandle<std::uint64_t> probe;
  Received received;
  const std::uint64_t peers = worker.peers(), index = worker.index();
  worker.dataflow<std::uint64_t>([&](auto& scope) {
    auto exchanged = input.to_stream(scope) | exchange([](const auto& x) { return key_of(x); });
    // One operator more, only when asked: without it the dataflow is the Rust reference's.
    if (switches.check)
      exchanged | inspect_batch([&](const std::uint64_t&, const C& data) {
        for (const auto& x : data) received.check(x, batch, peers, index);
      }) | probe_with(probe);
    else
      exchanged | probe_with(probe);
  });
  // Local copies: the records are u64s too, so the compiler must otherwise assume that each
  // record stored could change `batch` (captured by reference) and reload it every time.
  const std::uint64_t records_per_round = batch, round_count = rounds;
  examples::ProgressLine progress("exchange", "rounds", static_cast<double>(round_count),
                                  !switches.quiet && worker.index() == 0);
  // --batches: the round's records as read-only columnar batches over serialized bytes, built
  // once (every round sends the same records), as a reader of a log segment or of a mapped
  // capture file hands them over. Each round sends views of them (no copy); the exchange
  // routes every record.
  std::vector<C> prepared;
  if constexpr (!timely::container::Vector<C>) {
    if (switches.in_place) {
      C open;
      const auto keep = [&] {
        auto bytes = std::make_shared<std::vector<std::uint8_t>>();
        open.append_to(*bytes);
        prepared.push_back(C::from_bytes(*bytes, bytes));
        open.clear();
      };
      for (std::uint64_t i = 0; i < records_per_round; ++i) {
        open.push_into(record_of<Record, C>(i));
        if (open.at_capacity()) keep();
      }
      if (!open.empty()) keep();
    }
  }
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t round = 0; round < round_count; ++round) {
    if (prepared.empty()) {
      for (std::uint64_t i = 0; i < records_per_round; ++i) input.send(record_of<Record, C>(i));
    } else {
      for (const C& views : prepared) {
        C copy = views;  // shares the bytes; send_batch leaves its argument empty
        input.send_batch(copy);
      }
    }
    input.advance_to(round + 1);
    while (probe.less_than(input.time())) worker.step();
    progress.update(static_cast<double>(round + 1));
  }
  progress.finish();
  if (switches.check) {
    // Every worker sends records 0..BATCH-1 each round, and record i goes to worker i % peers.
    const std::uint64_t mine = records_per_round / peers + (index < records_per_round % peers ? 1 : 0);
    if (!received.first_wrong.empty())
      throw std::runtime_error("worker " + std::to_string(index) + " received a wrong " +
                               received.first_wrong);
    if (received.records != mine * peers * round_count)
      throw std::runtime_error("worker " + std::to_string(index) + " received " +
                               std::to_string(received.records) + " records, expected " +
                               std::to_string(mine * peers * round_count));
    std::printf("worker %zu: check passed: received %llu records, each routed here%s\n", worker.index(),
                static_cast<unsigned long long>(received.records),
                std::is_integral_v<Record> ? "" : " with its text");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double records = static_cast<double>(batch * rounds);
  std::printf("worker %zu: %.0f records in %.3f s: %.3e records/s\n", worker.index(), records, seconds,
              seconds > 0 ? records / seconds : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  constexpr const char* options =
      "  BATCH          records each worker sends a round (the figure printed is records sent)\n"
      "  ROUNDS         rounds; each waits for the one before to complete\n"
      "  --strings      (u64, string of 5 to 15 bytes) records instead of u64s\n"
      "  --columnar     carry the records in columnar batches instead of std::vector (with or\n"
      "                 without --strings)\n"
      "  --batches      with --columnar: build a round's records once, as read-only batches held\n"
      "                 in memory, and send those each round (their building is not timed)\n"
      "  --check        check every record each worker receives and their number; adds an\n"
      "                 operator, so every process must be given it, or none\n"
      "  --quiet        no progress line on stderr\n";
  return examples::guarded_main(
      "exchange", "BATCH ROUNDS [--strings] [--columnar [--batches]] [--check] [--quiet] [-w N]", options,
      [&] {
        std::vector<char*> args(argv, argv + argc);
        const bool strings = examples::take_switch(args, "--strings");
        const bool columnar = examples::take_switch(args, "--columnar");
        Switches switches;
        switches.quiet = examples::take_switch(args, "--quiet");
        switches.in_place = examples::take_switch(args, "--batches");
        switches.check = examples::take_switch(args, "--check");
        auto config = timely::Config::from_args(static_cast<int>(args.size()), args.data());
        if (switches.in_place && !columnar)
          throw timely::ConfigError("--batches needs --columnar (it sends prepared columnar batches)");
        if (config.positional.size() != 2)
          throw examples::positional_error(config.positional, "expected BATCH and ROUNDS");
        const auto batch = examples::parse_count(config.positional[0], "BATCH");
        const auto rounds = examples::parse_count(config.positional[1], "ROUNDS");
        namespace columns = timely::container::columnar;
        timely::execute(config, [&](timely::Worker& worker) {
          if (strings && columnar)
            run<Text, columns::Batch<Text>>(worker, batch, rounds, switches);
          else if (strings)
            run<Text, std::vector<Text>>(worker, batch, rounds, switches);
          else if (columnar)
            run<std::uint64_t, columns::Batch<std::uint64_t>>(worker, batch, rounds, switches);
          else
            run<std::uint64_t, std::vector<std::uint64_t>>(worker, batch, rounds, switches);
        });
      });
}
