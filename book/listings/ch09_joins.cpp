// Chapter 9, "joins": orders and payments, keyed by order id, joined in event time three ways
// (window join, interval join, ttl join), and a keyed timer that reports orders unpaid 5 s
// after they were placed. Event time is the message time: worker 0 sends each record at its
// time through an InputHandle, whose frontier is then an exact watermark.
//   ch09_joins [-w N]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <timely/streaming/streaming.hpp>
#include <timely/timely.hpp>

using namespace timely::dataflow::operators;
namespace ts = timely::streaming;
using Time = std::uint64_t;  // seconds

struct Order {
  std::uint64_t id;
  Time at;
};
struct Payment {
  std::uint64_t order;
  Time at;
};
struct Paid {
  bool paid = false;
};

int main(int argc, char** argv) {
  auto config = timely::Config::from_args(argc, argv);
  const std::vector<Order> orders = {{1, 1}, {2, 3}, {3, 8}, {4, 12}};
  const std::vector<Payment> payments = {{1, 2}, {2, 11}, {3, 9}, {4, 30}};
  auto lines = timely::execute(config, [&](timely::Worker& worker) {
    std::vector<std::string> out;
    auto print = [&out](std::string kind) {
      return inspect_time([&out, kind](const Time& t, const std::string& s) {
        out.push_back(kind + " " + s + " at " + std::to_string(t));
      });
    };
    timely::dataflow::InputHandle<Time, Order> order_input;
    timely::dataflow::InputHandle<Time, Payment> payment_input;
    worker.dataflow<Time>([&](auto& scope) {
      auto o = order_input.to_stream(scope);
      auto p = payment_input.to_stream(scope);
      auto order_id = [](const Order& x) { return x.id; };
      auto paid_id = [](const Payment& x) { return x.order; };
      auto pair = [](const Order& x, const Payment& y) {
        return "order " + std::to_string(x.id) + " (" + std::to_string(x.at) + ") paid " +
               std::to_string(y.at);
      };
      o | ts::window_join(p, ts::tumbling<Time>(10), order_id, paid_id, pair) | map([](const auto& r) {
        return "[" + std::to_string(r.start) + "," + std::to_string(r.end) + ") " + r.value;
      }) | print("window  ");
      o | ts::interval_join(p, Time{0}, Time{5}, order_id, paid_id, pair) | print("interval");
      o | ts::ttl_join(p, Time{8}, order_id, paid_id, pair) | print("ttl     ");
      // Keyed state and a timer: an order not paid within 5 s is reported when its timer fires.
      auto events = o | map([](const Order& x) { return std::pair{x.id, false}; });
      auto paid = p | map([](const Payment& y) { return std::pair{y.order, true}; });
      events | concat(paid) |
          ts::keyed_process<Paid, std::string>(
              [](const std::pair<std::uint64_t, bool>& e) { return e.first; },
              [](const std::uint64_t&, std::pair<std::uint64_t, bool> e, Paid& state, auto& ctx) {
                if (e.second)
                  state.paid = true;
                else
                  ctx.set_timer(ctx.time() + 5);
              },
              [](const std::uint64_t& id, const Time&, Paid& state, auto& ctx) {
                if (!state.paid) ctx.emit("order " + std::to_string(id) + " unpaid");
                ctx.clear_state();
              }) |
          print("timer   ");
    });
    if (worker.index() == 0)
      for (Time t = 0; t <= 30; ++t) {
        order_input.advance_to(t);
        payment_input.advance_to(t);
        for (const auto& x : orders)
          if (x.at == t) order_input.send(x);
        for (const auto& y : payments)
          if (y.at == t) payment_input.send(y);
      }
    order_input.close();
    payment_input.close();
    while (worker.step()) {
    }
    return out;
  });
  std::vector<std::string> all;
  for (auto& worker_lines : lines) all.insert(all.end(), worker_lines.begin(), worker_lines.end());
  std::sort(all.begin(), all.end());
  for (const auto& line : all) std::printf("%s\n", line.c_str());
}
