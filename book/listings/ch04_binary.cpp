// Chapter 4, "binary": a two-input operator. Orders (item, quantity) and price changes
// (item, price) arrive on two inputs at times chosen by the program. Each order is priced with
// the price in effect at its time: the latest change at or before that time. The operator asks a
// FrontierNotificator to tell it when a time is complete on *both* inputs; only then are all
// of that time's orders and price changes in.
//   ch04_binary [-w N]
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
using Time = std::uint64_t;
using Order = std::pair<std::string, int>;       // (item, quantity)
using Price = std::pair<std::string, int>;       // (item, price)
using Bill = std::tuple<std::string, int, int>;  // (item, quantity, price)

auto price_orders(const timely::Stream<Time, Price>& changes) {
  auto route = [](const std::pair<std::string, int>& r) {
    return static_cast<std::uint64_t>(std::hash<std::string>{}(r.first));
  };
  return binary_frontier<Bill>(
      changes, timely::Exchange{route}, timely::Exchange{route}, "PriceOrders",
      [](auto /*initial*/, const auto&) {
        struct State {
          timely::dataflow::FrontierNotificator<Time> notificator;
          std::map<Time, std::vector<Order>> orders;
          std::map<Time, std::vector<Price>> changes;
          std::map<std::string, int> price;  // prices in effect, for the times handled so far
        };
        return [state = State{}](timely::OperatorInput<Time, Order>& orders,
                                 timely::OperatorInput<Time, Price>& prices,
                                 timely::OperatorOutput<Time, Bill>& output) mutable {
          orders.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Order>& batch) {
            auto& stash = state.orders[cap.time()];
            stash.insert(stash.end(), batch.begin(), batch.end());
            state.notificator.notify_at(cap.retain());
          });
          prices.for_each([&](const timely::InputCapability<Time>& cap, std::vector<Price>& batch) {
            auto& stash = state.changes[cap.time()];
            stash.insert(stash.end(), batch.begin(), batch.end());
            state.notificator.notify_at(cap.retain());
          });
          // A time is delivered once neither input's frontier is at or before it.
          std::array<const timely::progress::MutableAntichain<Time>*, 2> frontiers{&orders.frontier(),
                                                                                   &prices.frontier()};
          state.notificator.for_each(frontiers, [&](timely::Capability<Time> cap, std::int64_t /*requests*/) {
            for (const auto& [item, price] : state.changes[cap.time()]) state.price[item] = price;
            auto session = output.session(cap);
            for (const auto& [item, quantity] : state.orders[cap.time()])
              session.give(Bill(item, quantity, state.price.at(item)));
            state.changes.erase(cap.time());
            state.orders.erase(cap.time());
          });  // each delivered capability is dropped here: the time is finished
        };
      });
}

int main(int argc, char** argv) {
  // What happens at each time: price changes, then orders.
  const std::vector<std::pair<std::vector<Price>, std::vector<Order>>> script = {
      {{{"apple", 3}, {"pear", 5}}, {{"apple", 2}}},
      {{}, {{"pear", 1}, {"apple", 1}}},
      {{{"apple", 4}}, {{"apple", 3}}},
      {{{"pear", 6}}, {{"pear", 2}, {"apple", 1}}},
  };

  auto parts = timely::execute_from_args(argc, argv, [&](timely::Worker& worker) {
    std::vector<std::tuple<Time, std::string, int, int>> bills;
    timely::InputHandle<Time, Order> orders;
    timely::InputHandle<Time, Price> prices;
    timely::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      auto note = [&bills](Time t, const Bill& b) {
        bills.emplace_back(t, std::get<0>(b), std::get<1>(b), std::get<2>(b));
      };
      orders.to_stream(scope) | price_orders(prices.to_stream(scope)) | inspect_time(note) |
          probe_with(probe);
    });
    for (Time t = 0; t < script.size(); ++t) {
      if (worker.index() == 0) {
        for (const auto& p : script[t].first) prices.send(p);
        for (const auto& o : script[t].second) orders.send(o);
      }
      orders.advance_to(t + 1);
      prices.advance_to(t + 1);
    }
    orders.close();
    prices.close();
    while (!probe.done()) worker.step();
    return bills;
  });

  std::vector<std::tuple<Time, std::string, int, int>> bills;
  for (const auto& part : parts) bills.insert(bills.end(), part.begin(), part.end());
  std::sort(bills.begin(), bills.end());
  for (const auto& [t, item, quantity, price] : bills)
    std::printf("time %llu: %d %s at %d = %d\n", static_cast<unsigned long long>(t), quantity, item.c_str(),
                price, quantity * price);
}
