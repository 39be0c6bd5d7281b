// Chapter 7, "struct": record types of your own in columnar batches. `Trip` is an aggregate, so
// Boost.PFR gives it a columnar layout: one column per field, nested freely. `Fare` is a class
// with private fields, which has no layout; it travels as the aggregate of its fields. Worker 0
// sends the trips, every worker sends its share of the fares; both are exchanged by city, read
// in place, and totalled per city. The trips are also broadcast, as owned Trips in vectors.
//   ch07_struct [-w N]
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <timely/container/columnar.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace columnar = timely::container::columnar;
using Time = std::uint64_t;

struct Trip {
  std::uint64_t id;
  std::string city;
  double km;
  std::optional<std::string> note;
  std::vector<std::uint32_t> stops;  // minutes spent at each stop
};

class Fare {
 public:
  Fare(std::string city, std::uint32_t cents) : city_(std::move(city)), cents_(cents) {}
  /// The fields as an aggregate, which has a columnar layout.
  struct Fields {
    std::string city;
    std::uint32_t cents;
  };
  Fields fields() const { return {city_, cents_}; }

 private:
  std::string city_;
  std::uint32_t cents_;
};

static_assert(columnar::Columnar<Trip> && columnar::Columnar<Fare::Fields> && !columnar::Columnar<Fare>);
// What a batch of trips yields: the fields' borrowed forms, in declaration order.
static_assert(
    std::is_same_v<columnar::RefOf<Trip>,
                   std::tuple<std::uint64_t, std::string_view, double, std::optional<std::string_view>,
                              columnar::VectorRef<std::uint32_t>>>);

struct Totals {
  int trips = 0;
  double km = 0;
  std::uint64_t stop_minutes = 0;
  std::vector<std::string> notes;
  std::uint64_t fare_cents = 0;
};

std::uint64_t city_hash(std::string_view city) { return std::hash<std::string_view>{}(city); }

int main(int argc, char** argv) {
  const std::vector<Trip> trips = {
      {1, "Lyon", 12.5, std::nullopt, {3, 4}},     {2, "Porto", 4.0, "rain", {}},
      {3, "Lyon", 30.0, "detour", {10}},           {4, "Oslo", 7.25, std::nullopt, {1, 1, 2}},
      {5, "Porto", 15.5, std::nullopt, {5, 6, 7}}, {6, "Oslo", 2.0, "", {}},
  };
  std::printf("layout of Trip: %s, %zu column buffers\n", columnar::layout_name<Trip>().c_str(),
              columnar::Batch<Trip>::buffers());

  auto parts = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    std::map<std::string, Totals> totals;  // for the cities this worker receives
    std::size_t heard = 0;                 // trips that reached this worker by broadcast
    timely::InputHandleCore<Time, columnar::Batch<Trip>> input;
    std::vector<Fare> fares;
    for (std::uint32_t i = 0; i < 9; ++i)
      if (i % worker.peers() == worker.index()) fares.emplace_back(i % 3 == 0 ? "Lyon" : "Oslo", 100 * i);
    timely::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto by_city =
          input.to_stream(scope) | exchange([](const auto& trip) { return city_hash(std::get<1>(trip)); });
      by_city | inspect([&totals](const columnar::RefOf<Trip>& trip) {
        const auto& [id, city, km, note, stops] = trip;  // string_view, optional<string_view>, ...
        auto& t = totals[std::string(city)];
        ++t.trips;
        t.km += km;
        for (std::uint32_t minutes : stops) t.stop_minutes += minutes;
        if (note) t.notes.push_back(std::to_string(id) + ":" + std::string(*note));
      }) | probe_with(probe);
      // broadcast works on vector streams only: owned Trips first (one allocation per string).
      by_city | map([](const columnar::RefOf<Trip>& trip) { return columnar::to_owned<Trip>(trip); }) |
          broadcast() | inspect([&heard](const Trip&) { ++heard; }) | probe_with(probe);
      to_stream(scope, fares) | map<columnar::Builder<Fare::Fields>>([](Fare&& f) { return f.fields(); }) |
          exchange([](const auto& fare) { return city_hash(std::get<0>(fare)); }) |
          inspect([&totals](const auto& fare) {
            totals[std::string(std::get<0>(fare))].fare_cents += std::get<1>(fare);
          }) |
          probe_with(probe);
    });
    if (worker.index() == 0)
      for (const auto& trip : trips) input.send(trip);
    input.close();
    while (!probe.done()) worker.step();
    return std::pair{totals, heard};
  });

  std::map<std::string, Totals> all;  // each city was totalled on the one worker it was sent to
  bool all_heard = true;
  for (auto& [totals, heard] : parts) {
    all.merge(totals);
    all_heard = all_heard && heard == trips.size();
  }
  for (const auto& [city, t] : all) {
    std::printf("%s: %d trips, %.2f km, %llu minutes at stops, fares %llu cents", city.c_str(), t.trips, t.km,
                static_cast<unsigned long long>(t.stop_minutes),
                static_cast<unsigned long long>(t.fare_cents));
    for (const auto& note : t.notes) std::printf(", note %s", note.c_str());
    std::printf("\n");
  }
  std::printf("every worker heard of all %zu trips: %s\n", trips.size(), all_heard ? "yes" : "no");
}
