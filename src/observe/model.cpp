// Model: folds each worker's "timely" and "timely/frontier/u64" events into the state the
// pictures show (timely/observe/model.hpp).
#include <timely/observe/model.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <variant>

#include <boost/container/flat_map.hpp>

namespace timely::observe {

namespace {

using Address = std::vector<std::size_t>;

// What one worker's stream says about it between events.
struct WorkerTrack {
  WorkerState state;
  // By operator id (dense on a worker): the start of its unfinished scheduling. A vector, so a
  // scheduling allocates nothing.
  std::vector<std::optional<Nanos>> open;
  Nanos parked_since{0};
  // Records this worker sent and received per channel id; they go to the operators at either
  // end only in `snapshot()`, which keeps a message's cost to one lookup here and places records
  // whose channel or operators were announced after them (a scope's operators come once the
  // scope is built, after its channels).
  std::unordered_map<std::size_t, std::pair<std::uint64_t, std::uint64_t>> per_channel;
};

// Pointstamp counts at one port, `time -> count`, zero counts erased. A flat map: a port holds
// a few times at once, and a frontier moving on then allocates nothing.
using Counts = boost::container::flat_map<std::uint64_t, std::int64_t>;

struct OperatorTrack {
  OperatorState state;
  std::vector<Counts> inputs;
  std::vector<Counts> outputs;
};

void apply(Counts& counts, const std::vector<std::pair<std::uint64_t, std::int64_t>>& updates) {
  for (const auto& [time, diff] : updates) {
    if (diff == 0) continue;
    auto [it, inserted] = counts.try_emplace(time, diff);
    if (!inserted && (it->second += diff) == 0) counts.erase(it);
  }
}

}  // namespace

struct Model::Impl {
  std::optional<Nanos> window;
  Nanos now{0};
  std::map<std::size_t, WorkerTrack> workers;
  std::map<std::pair<std::size_t, std::size_t>, OperatorTrack> operators;  // (worker, id)
  std::map<std::size_t, ChannelState> channels;
  std::deque<ScheduleSpan> timeline;  // ascending start within each worker; sorted on copy
  std::map<std::pair<std::size_t, std::size_t>, PeerState> peers;

  WorkerTrack& worker(std::size_t index) {
    auto [it, inserted] = workers.try_emplace(index);
    if (inserted) it->second.state.worker = index;
    return it->second;
  }

  OperatorTrack& op(std::size_t w, std::size_t id) {
    auto [it, inserted] = operators.try_emplace({w, id});
    if (inserted) {
      it->second.state.worker = w;
      it->second.state.id = id;
    }
    return it->second;
  }

  void saw(std::size_t w, Nanos time) {
    auto& state = worker(w).state;
    state.last_event = std::max(state.last_event, time);
    if (time > now) {
      now = time;
      prune();
    }
  }

  void prune() {
    if (!window) return;
    // Spans leave roughly in start order; one that stopped late may keep earlier ones a while.
    while (!timeline.empty() && timeline.front().stop + *window < now) timeline.pop_front();
  }

  void on(std::size_t w, Nanos, const logging::OperatesEvent& e) {
    auto& o = op(w, e.id).state;
    o.address = e.address;
    o.name = e.name;
  }
  void on(std::size_t, Nanos, const logging::ChannelsEvent& e) {
    auto [it, inserted] = channels.try_emplace(e.id);
    if (!inserted) return;  // every worker reports each channel
    auto& c = it->second;
    c.id = e.id;
    c.scope_address = e.scope_address;
    c.source = e.source;
    c.target = e.target;
    c.container = e.container;
  }
  void on(std::size_t w, Nanos, const logging::MessagesEvent& e) {
    auto& counts = worker(w).per_channel[e.channel];
    if (!e.is_send) {
      counts.second += e.record_count;
      return;
    }
    // Sends alone count on the channel, so that a batch is counted once.
    counts.first += e.record_count;
    auto it = channels.find(e.channel);
    if (it == channels.end()) {  // a channel built before this model listened: counted, not placed
      it = channels.try_emplace(e.channel).first;
      it->second.id = e.channel;
    }
    it->second.records += e.record_count;
    ++it->second.batches;
  }
  void on(std::size_t w, Nanos time, const logging::ScheduleEvent& e) {
    auto& track = worker(w);
    if (track.open.size() <= e.id) track.open.resize(e.id + 1);
    if (e.start) {
      track.open[e.id] = time;
      return;
    }
    if (!track.open[e.id]) return;  // its start came before the model did
    const Nanos start = *track.open[e.id];
    track.open[e.id].reset();
    auto& o = op(w, e.id).state;
    ++o.schedules;
    o.busy += time - start;
    if (o.address.size() == 1) track.state.busy += time - start;
    if (!window || time + *window >= now) timeline.push_back(ScheduleSpan{w, e.id, start, time});
  }
  void on(std::size_t w, Nanos, const logging::ShutdownEvent& e) { op(w, e.id).state.shut_down = true; }
  void on(std::size_t w, Nanos time, const logging::ParkEvent& e) {
    auto& track = worker(w);
    if (e.park) {
      track.state.is_parked = true;
      track.parked_since = time;
    } else if (track.state.is_parked) {
      track.state.is_parked = false;
      track.state.parked += time - track.parked_since;
    }
  }
  template <class E>
  void on(std::size_t, Nanos, const E&) {}  // push-progress, communication channels, text
};

void Model::add(std::size_t worker, Nanos time, const logging::TimelyEvent& event) {
  impl_->saw(worker, time);
  std::visit([&](const auto& e) { impl_->on(worker, time, e); }, event);
}

void Model::add(std::size_t worker, Nanos time, const logging::FrontierEvent<std::uint64_t>& event) {
  impl_->saw(worker, time);
  auto& track = impl_->op(worker, event.id);
  auto& ports = event.is_input ? track.inputs : track.outputs;
  if (ports.size() <= event.port) ports.resize(event.port + 1);
  apply(ports[event.port], event.updates);
}

void Model::add_peer(const PeerState& peer) { impl_->peers[{peer.process, peer.peer}] = peer; }

void Model::advance(std::size_t worker, Nanos now) { impl_->saw(worker, now); }

Snapshot Model::snapshot() const {
  const Impl& m = *impl_;
  Snapshot s;
  s.now = m.now;
  for (const auto& [index, track] : m.workers) {
    WorkerState w = track.state;
    // A worker parked now has been parked since it said so, up to the last we heard of it.
    if (w.is_parked && w.last_event > track.parked_since) w.parked += w.last_event - track.parked_since;
    s.workers.push_back(w);
  }
  // Each worker's records per channel, to the operators at its ends. Node 0 is the scope's own
  // boundary: the scope's records are counted on its outer channels instead.
  std::map<std::pair<std::size_t, Address>, std::pair<std::uint64_t, std::uint64_t>> records;  // in, out
  for (const auto& [index, track] : m.workers)
    for (const auto& [id, counts] : track.per_channel) {
      auto c = m.channels.find(id);
      if (c == m.channels.end() || c->second.container.empty()) continue;  // never seen built
      const auto& ch = c->second;
      // Not capturing `index`: clang before 16 cannot capture a structured binding.
      auto at = [&ch, w = index](std::size_t node) {
        Address a = ch.scope_address;
        a.push_back(node);
        return std::pair{w, std::move(a)};
      };
      if (ch.source.first != 0) records[at(ch.source.first)].second += counts.first;
      if (ch.target.first != 0) records[at(ch.target.first)].first += counts.second;
    }
  for (const auto& [key, track] : m.operators) {
    OperatorState o = track.state;
    if (auto it = records.find({key.first, o.address}); it != records.end())
      std::tie(o.records_in, o.records_out) = it->second;
    // u64 is totally ordered: the frontier is the least time with a positive count.
    for (const auto& counts : track.inputs) {
      auto& frontier = o.input_frontiers.emplace_back();
      for (const auto& [time, count] : counts)
        if (count > 0) {
          frontier.push_back(time);
          break;
        }
    }
    for (const auto& counts : track.outputs) {
      auto& held = o.capabilities.emplace_back();
      for (const auto& [time, count] : counts)
        if (count > 0) held.emplace_back(time, count);
    }
    s.operators.push_back(std::move(o));
  }
  for (const auto& [id, channel] : m.channels) s.channels.push_back(channel);
  s.timeline.assign(m.timeline.begin(), m.timeline.end());
  if (m.window)
    std::erase_if(s.timeline, [&](const ScheduleSpan& span) { return span.stop + *m.window < m.now; });
  std::stable_sort(s.timeline.begin(), s.timeline.end(),
                   [](const ScheduleSpan& a, const ScheduleSpan& b) { return a.start < b.start; });
  for (const auto& [key, peer] : m.peers) s.peers.push_back(peer);
  return s;
}

void merge(Snapshot& into, const Snapshot& other) {
  into.now = std::max(into.now, other.now);
  auto by_worker = [](const auto& a, const auto& b) { return a.worker < b.worker; };
  into.workers.insert(into.workers.end(), other.workers.begin(), other.workers.end());
  std::stable_sort(into.workers.begin(), into.workers.end(), by_worker);
  into.operators.insert(into.operators.end(), other.operators.begin(), other.operators.end());
  std::stable_sort(into.operators.begin(), into.operators.end(), [](const auto& a, const auto& b) {
    return std::tie(a.worker, a.id) < std::tie(b.worker, b.id);
  });
  for (const auto& c : other.channels) {
    auto it = std::lower_bound(into.channels.begin(), into.channels.end(), c.id,
                               [](const ChannelState& x, std::size_t id) { return x.id < id; });
    if (it != into.channels.end() && it->id == c.id) {
      it->records += c.records;
      it->batches += c.batches;
      if (it->container.empty()) {  // only the other side saw it built
        it->scope_address = c.scope_address;
        it->source = c.source;
        it->target = c.target;
        it->container = c.container;
      }
    } else {
      into.channels.insert(it, c);
    }
  }
  into.timeline.insert(into.timeline.end(), other.timeline.begin(), other.timeline.end());
  std::stable_sort(into.timeline.begin(), into.timeline.end(),
                   [](const ScheduleSpan& a, const ScheduleSpan& b) { return a.start < b.start; });
  into.peers.insert(into.peers.end(), other.peers.begin(), other.peers.end());
  std::stable_sort(into.peers.begin(), into.peers.end(), [](const PeerState& a, const PeerState& b) {
    return std::tie(a.process, a.peer) < std::tie(b.process, b.peer);
  });
}

Model::Model(std::optional<Nanos> timeline_window) : impl_(std::make_shared<Impl>()) {
  impl_->window = timeline_window;
}

}  // namespace timely::observe
