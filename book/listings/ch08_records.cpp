// Chapter 8, "records": how many records reached each operator, from the "timely" log stream.
// Each worker registers an action for "timely" before it builds its dataflow. The action sees
// the operators (address and name), the channels (which node of which scope they lead to) and
// every batch received, and adds the batch's records to the operator the channel leads to.
// After the run, the totals of all workers are printed by operator name.
//   ch08_records [-w N]
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace lg = timely::logging;

using Address = std::vector<std::size_t>;

// What one worker learns from its log: names by address, and where each channel leads.
struct Watch {
  std::map<Address, std::string> names;
  std::map<std::size_t, Address> channel_targets;
  std::map<Address, std::uint64_t> received;  // records received, by target address
};

int main(int argc, char** argv) {
  std::mutex mutex;
  std::map<std::string, std::uint64_t> totals;  // records received, by operator name

  timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    auto watch = std::make_shared<Watch>();
    worker.log_register().insert<lg::TimelyEvent>("timely", [watch](lg::Duration, auto& events) {
      for (const auto& [time, event] : events) {
        if (auto* op = std::get_if<lg::OperatesEvent>(&event)) {
          watch->names[op->address] = op->name;
        } else if (auto* channel = std::get_if<lg::ChannelsEvent>(&event)) {
          Address target = channel->scope_address;  // the scope's address, then the node's index
          target.push_back(channel->target.first);
          watch->channel_targets[channel->id] = target;
        } else if (auto* batch = std::get_if<lg::MessagesEvent>(&event); batch && !batch->is_send) {
          watch->received[watch->channel_targets.at(batch->channel)] += batch->record_count;
        }
      }
    });

    timely::InputHandle<std::uint64_t, std::string> input;
    auto split = [](const std::string& line) {
      std::vector<std::string> words;
      std::istringstream in(line);
      for (std::string word; in >> word;) words.push_back(word);
      return words;
    };
    auto by_length = [](const std::string& word) { return word.size(); };
    auto long_words = [](const std::string& word) { return word.size() > 3; };
    worker.dataflow<std::uint64_t>([&](auto& scope) {
      input.to_stream(scope) | flat_map(split) | exchange(by_length) | filter(long_words) |
          inspect([](const std::string&) {});
    });
    if (worker.index() == 0)
      for (const char* line : {"the quick brown fox", "jumps over the lazy dog", "and runs home"})
        input.send(line);
    input.close();
    while (worker.has_dataflows()) worker.step();

    worker.log_register().flush();  // the last batch of events reaches the action now
    std::lock_guard lock(mutex);
    for (const auto& [address, records] : watch->received) totals[watch->names.at(address)] += records;
  });

  for (const auto& [name, records] : totals)
    std::printf("%s received %llu records\n", name.c_str(), static_cast<unsigned long long>(records));
}
