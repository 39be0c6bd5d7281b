// The tracker against a brute-force model: random graphs with random summaries (cycles that
// strictly advance), random pointstamp updates; after every batch the tracker's implications at
// every location, and its projection onto the scope outputs, must equal the frontier computed by
// enumerating could-result-in over all paths (SEMANTICS.md §3.3). Fixed seeds, printed on failure.
#include <timely/progress/location.hpp>
#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "support/catch.hpp"

using namespace timely::progress;
using timely::Product;

namespace {

template <class T>
struct Gen;

template <>
struct Gen<std::uint64_t> {
  static std::uint64_t time(std::mt19937_64& rng) { return rng() % 6; }
  static std::uint64_t summary(std::mt19937_64& rng) { return rng() % 3; }
};

template <>
struct Gen<Product<std::uint64_t, std::uint64_t>> {
  using P = Product<std::uint64_t, std::uint64_t>;
  static P time(std::mt19937_64& rng) { return P{rng() % 3, rng() % 3}; }
  static P summary(std::mt19937_64& rng) { return P{rng() % 2, rng() % 2}; }
};

template <class T>
struct Model {
  using S = timely::SummaryOf<T>;
  std::vector<Location> locations;
  std::map<Location, std::size_t> index;
  // paths[a][b]: antichain of summaries of all paths from location a to location b.
  std::vector<std::vector<Antichain<S>>> paths;

  void add(Location l) {
    index[l] = locations.size();
    locations.push_back(l);
  }
};

template <class T>
void run_random_graph(std::uint64_t seed) {
  using S = timely::SummaryOf<T>;
  std::mt19937_64 rng(seed);
  INFO("seed " << seed);

  // A random graph; retry until it has no non-advancing cycle.
  std::size_t nodes = 0;
  std::vector<std::size_t> ins, outs;
  std::vector<Connectivity<S>> conns;
  std::vector<std::pair<Source, Target>> edges;
  std::size_t scope_inputs = 0, scope_outputs = 0;
  Builder<T> builder;
  for (int attempt = 0;; ++attempt) {
    REQUIRE(attempt < 1000);
    nodes = 2 + rng() % 6;
    scope_inputs = rng() % 2;
    scope_outputs = rng() % 3;
    ins.assign(nodes + 1, 0);
    outs.assign(nodes + 1, 0);
    conns.assign(nodes + 1, {});
    edges.clear();
    ins[0] = scope_outputs;
    outs[0] = scope_inputs;
    for (std::size_t n = 1; n <= nodes; ++n) {
      ins[n] = rng() % 3;
      outs[n] = 1 + rng() % 2;
      conns[n].assign(ins[n], {});
      for (auto& row : conns[n])
        for (std::size_t o = 0; o < outs[n]; ++o) {
          Antichain<S> cell;
          const auto k = rng() % 3;  // 0, 1 or 2 summaries
          for (std::size_t i = 0; i < k; ++i) cell.insert(Gen<T>::summary(rng));
          row.add_port(o, cell);
        }
    }
    // Every input (operators' and the scope outputs') gets one upstream output.
    std::vector<Source> sources;
    for (std::size_t n = 0; n <= nodes; ++n)
      for (std::size_t o = 0; o < outs[n]; ++o) sources.push_back(Source{n, o});
    if (sources.empty()) continue;
    for (std::size_t n = 0; n <= nodes; ++n)
      for (std::size_t i = 0; i < ins[n]; ++i)
        edges.emplace_back(sources[rng() % sources.size()], Target{n, i});
    builder = Builder<T>();
    for (std::size_t n = 0; n <= nodes; ++n) builder.add_node(n, ins[n], outs[n], conns[n]);
    for (auto& [s, t] : edges) builder.add_edge(s, t);
    if (!builder.non_advancing_cycle()) break;
  }
  auto [tracker, scope_summary] = builder.build();

  // Brute force: all path summaries between all pairs of locations, by relaxation to a fixpoint.
  Model<T> model;
  for (std::size_t n = 0; n <= nodes; ++n) {
    for (std::size_t i = 0; i < ins[n]; ++i) model.add(Location::of(Target{n, i}));
    for (std::size_t o = 0; o < outs[n]; ++o) model.add(Location::of(Source{n, o}));
  }
  const std::size_t L = model.locations.size();
  std::vector<std::vector<std::pair<std::size_t, S>>> links(L);  // one-step links with summaries
  for (auto& [s, t] : edges)
    links[model.index[Location::of(s)]].emplace_back(model.index[Location::of(t)], S{});
  for (std::size_t n = 1; n <= nodes; ++n)
    for (std::size_t i = 0; i < ins[n]; ++i)
      for (const auto& [o, summaries] : conns[n][i])
        for (const auto& s : summaries)
          links[model.index[Location::of(Target{n, i})]].emplace_back(model.index[Location::of(Source{n, o})],
                                                                      s);
  model.paths.assign(L, std::vector<Antichain<S>>(L));
  for (std::size_t a = 0; a < L; ++a) model.paths[a][a].insert(S{});
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t a = 0; a < L; ++a)
      for (std::size_t b = 0; b < L; ++b) {
        const auto current = model.paths[a][b];
        for (const auto& p : current)
          for (const auto& [c, s] : links[b])
            if (auto q = timely::followed_by<T>(p, s)) changed |= model.paths[a][c].insert(*q);
      }
  }

  // The scope summary must be what the brute force finds from scope inputs to scope outputs.
  REQUIRE(scope_summary.size() == scope_inputs);
  for (std::size_t i = 0; i < scope_inputs; ++i) {
    CHECK(scope_summary[i].port_bound() <= scope_outputs);
    for (std::size_t j = 0; j < scope_outputs; ++j) {
      const auto* found = scope_summary[i].get(j);
      CHECK((found ? *found : Antichain<S>{}) ==
            model.paths[model.index[Location::of(Source{0, i})]][model.index[Location::of(Target{0, j})]]);
    }
  }

  // Random pointstamp updates, checked after every batch.
  std::map<Pointstamp<T>, std::int64_t> counts;
  std::map<std::tuple<std::size_t, std::size_t, T>, std::int64_t> pushed;
  std::vector<MutableAntichain<T>> outputs(scope_outputs);
  for (int round = 0; round < 60; ++round) {
    const int batch = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < batch; ++k) {
      const Location loc = model.locations[rng() % L];
      if (loc.node == 0 && !loc.is_source) continue;  // scope outputs carry no pointstamps
      const T time = Gen<T>::time(rng);
      const std::int64_t diff = static_cast<std::int64_t>(rng() % 5) - 2;
      counts[{loc, time}] += diff;
      if (loc.is_source)
        tracker.update_source(Source{loc.node, loc.port}, time, diff);
      else
        tracker.update_target(Target{loc.node, loc.port}, time, diff);
    }
    tracker.propagate_all();
    // Pushed changes: net per target within one call (no key twice, no zero), and their running
    // sum is exactly the implications frontier at every target.
    {
      std::set<std::tuple<std::size_t, std::size_t, T>> keys;
      for (const auto& [key, diff] : tracker.pushed_changes().raw()) {
        REQUIRE(diff != 0);
        REQUIRE(keys.insert(key).second);
      }
      tracker.pushed_changes().drain_raw([&](const auto& key, std::int64_t diff) { pushed[key] += diff; });
    }
    for (std::size_t j = 0; j < scope_outputs; ++j) outputs[j].update_iter(tracker.output_changes(j).take());

    for (std::size_t b = 0; b < L; ++b) {
      Antichain<T> expected;
      for (const auto& [key, count] : counts) {
        if (count <= 0) continue;
        for (const auto& p : model.paths[model.index[key.first]][b])
          if (auto t = timely::results_in<T>(p, key.second)) expected.insert(*t);
      }
      INFO("round " << round << " location (" << model.locations[b].node << ", " << model.locations[b].port
                    << (model.locations[b].is_source ? ", source)" : ", target)"));
      REQUIRE(tracker.implications(model.locations[b]) == expected);
      if (!model.locations[b].is_source) {
        Antichain<T> from_pushed;
        for (const auto& [key, count] : pushed) {
          if (std::get<0>(key) != model.locations[b].node || std::get<1>(key) != model.locations[b].port)
            continue;
          REQUIRE((count == 0 || count == 1));
          if (count == 1) REQUIRE(from_pushed.insert(std::get<2>(key)));
        }
        REQUIRE(from_pushed == expected);
      }
    }
    for (std::size_t j = 0; j < scope_outputs; ++j) {
      Antichain<T> expected;
      const auto out = model.index[Location::of(Target{0, j})];
      for (const auto& [key, count] : counts) {
        if (count <= 0 || key.first.node == 0) continue;
        for (const auto& p : model.paths[model.index[key.first]][out])
          if (auto t = timely::results_in<T>(p, key.second)) expected.insert(*t);
      }
      INFO("round " << round << " scope output " << j);
      REQUIRE(outputs[j].frontier() == expected);
    }
    bool anything = false;
    for (const auto& [key, count] : counts) anything = anything || count > 0;
    REQUIRE(tracker.tracking_anything() == anything);
  }
}

}  // namespace

TEST_CASE("tracker equals brute force on random graphs (integer times)", "[progress][reachability][random]") {
  for (std::uint64_t seed = 1; seed <= 150; ++seed) run_random_graph<std::uint64_t>(seed);
}

TEST_CASE("tracker equals brute force on random graphs (product times)", "[progress][reachability][random]") {
  for (std::uint64_t seed = 1000; seed < 1150; ++seed)
    run_random_graph<Product<std::uint64_t, std::uint64_t>>(seed);
}
