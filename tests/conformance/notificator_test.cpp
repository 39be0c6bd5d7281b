// Notifications: exact order within what is available, including times requested while
// delivering, and delivery of a request made in an operator's last scheduling
// (SEMANTICS.md §5.10).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <timely/dataflow/capability.hpp>
#include <timely/dataflow/notificator.hpp>
#include <timely/dataflow/operators/exchange.hpp>
#include <timely/dataflow/operators/generic.hpp>
#include <timely/dataflow/operators/input.hpp>
#include <timely/dataflow/operators/inspect.hpp>
#include <timely/dataflow/operators/probe.hpp>
#include <timely/execute.hpp>
#include <timely/progress/change_batch.hpp>
#include <timely/progress/frontier.hpp>

#include "support/harness.hpp"

using namespace timely::dataflow::operators;
using timely::dataflow::Capability;
using timely::dataflow::CapabilityCounts;
using timely::dataflow::FrontierNotificator;
using timely::dataflow::InputCapability;
using timely::dataflow::Notificator;
using timely::progress::MutableAntichain;
using Time = std::uint64_t;

namespace {

// Steps `worker` until `probe` is done; throws (failing the test, not hanging it) after `bound`
// steps.
void step_until_done(timely::Worker& worker, const timely::dataflow::ProbeHandle<Time>& probe,
                     std::size_t bound = 20000) {
  for (std::size_t steps = 0; !probe.done(); ++steps) {
    if (steps == bound)
      throw std::runtime_error("dataflow did not finish within " + std::to_string(bound) + " steps");
    worker.step();
  }
}

}  // namespace

TEST_CASE("a notification requested for a complete time while delivering comes in order",
          "[conformance][notificator]") {
  // Records at 0, 1 and 3 reach worker 0, whose operator requests a notification for each; when
  // delivering 0 it also requests 2, which is complete by then: 0, 1, 2, 3 (not 0, 1, 3, 2).
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    auto delivered = std::make_shared<std::vector<Time>>();
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const int&) { return 0; }) |
          unary_notify<int>(timely::dataflow::Pipeline{}, "Ordered", std::vector<Time>{},
                            [delivered](auto& in, auto&, auto& notificator) {
                              in.for_each([&](const InputCapability<Time>& cap, std::vector<int>&) {
                                notificator.notify_at(cap.retain());
                              });
                              notificator.for_each([&](Capability<Time> cap, std::int64_t, auto& n) {
                                delivered->push_back(cap.time());
                                if (cap.time() == 0) n.notify_at(cap.delayed(2));
                              });
                            }) |
          probe_with(probe);
    });
    for (Time t : {0, 1, 3}) {
      input.advance_to(t);
      input.send(1);
    }
    input.close();
    step_until_done(worker, probe);
    std::vector<std::vector<Time>> out;
    if (!delivered->empty()) out.push_back(*delivered);
    return out;
  });
  REQUIRE(result == std::vector<std::vector<Time>>{{0, 1, 2, 3}});
}

TEST_CASE("with product times, a request made while delivering precedes larger available times",
          "[conformance][notificator]") {
  using P = timely::Product<Time, Time>;
  auto internal = std::make_shared<CapabilityCounts<P>>();
  // (0,0) and (1,1) are complete; (0,1), requested while delivering (0,0), is too.
  MutableAntichain<P> frontier;
  frontier.update_iter(std::vector<std::pair<P, std::int64_t>>{{P{2, 0}, 1}, {P{0, 2}, 1}});
  FrontierNotificator<P> inner;
  inner.notify_at(Capability<P>(P{1, 1}, internal));
  inner.notify_at(Capability<P>(P{0, 0}, internal));
  std::vector<P> delivered;
  {
    Notificator<P> notificator(inner, {&frontier});
    notificator.for_each([&](Capability<P> cap, std::int64_t, Notificator<P>& n) {
      delivered.push_back(cap.time());
      if (cap.time() == P{0, 0}) n.notify_at(cap.delayed(P{0, 1}));
    });
  }
  REQUIRE(delivered == std::vector<P>{P{0, 0}, P{0, 1}, P{1, 1}});
  CHECK(inner.empty());
  CHECK(internal->empty());  // every capability was released after delivery
}

TEST_CASE("a frontier notificator delivers a request made inside for_each in order",
          "[conformance][notificator]") {
  auto internal = std::make_shared<CapabilityCounts<Time>>();
  MutableAntichain<Time> frontier;
  frontier.update_iter(std::vector<std::pair<Time, std::int64_t>>{{Time{10}, 1}});
  const MutableAntichain<Time>* frontiers[] = {&frontier};
  FrontierNotificator<Time> notificator;
  for (Time t : {3, 0, 5, 12}) notificator.notify_at(Capability<Time>(t, internal));
  std::vector<Time> delivered;
  notificator.for_each(frontiers, [&](Capability<Time> cap, std::int64_t) {
    delivered.push_back(cap.time());
    if (cap.time() == 0) {
      notificator.notify_at(cap.delayed(4));   // complete: delivered between 3 and 5
      notificator.notify_at(cap.delayed(11));  // not complete: stays pending
    }
  });
  REQUIRE(delivered == std::vector<Time>{0, 3, 4, 5});
  REQUIRE(notificator.pending().size() == 2);
}

TEST_CASE("a notification requested in an operator's last scheduling is delivered",
          "[conformance][notificator]") {
  // The operator keeps the capability of its input's records and, in the scheduling where it
  // first sees its input complete, requests a notification at that (complete) time after it
  // has looked for notifications. No frontier moves after that; the request must still be
  // delivered, or the operator holds its capability for ever and the dataflow never finishes.
  auto result = harness::same_on_all_worker_counts([](timely::Worker& worker) {
    auto delivered = std::make_shared<std::vector<Time>>();
    timely::dataflow::InputHandle<Time, int> input;
    timely::dataflow::ProbeHandle<Time> probe;
    worker.dataflow<Time>([&](auto& scope) {
      input.to_stream(scope) | exchange([](const int&) { return 0; }) |
          unary_notify<int>(timely::dataflow::Pipeline{}, "LastRequest", std::vector<Time>{},
                            [delivered, held = std::optional<Capability<Time>>{}](auto& in, auto& output,
                                                                                  auto& notificator) mutable {
                              in.for_each([&](const InputCapability<Time>& cap, std::vector<int>&) {
                                if (!held) held = cap.retain();
                              });
                              notificator.for_each([&](Capability<Time> cap, std::int64_t, auto&) {
                                delivered->push_back(cap.time());
                                output.session(cap).give(static_cast<int>(cap.time()));
                              });
                              if (held && in.frontier().empty()) {
                                notificator.notify_at(std::move(*held));
                                held.reset();
                              }
                            }) |
          probe_with(probe);
    });
    input.advance_to(7);
    input.send(1);
    input.close();
    step_until_done(worker, probe);
    return *delivered;
  });
  REQUIRE(result == std::vector<Time>{7});
}

namespace {

// A `unary_frontier` operator with a `FrontierNotificator` of its own (as the reference's users
// write one): it keeps its input's capability and, in the scheduling where it first sees its
// input complete, requests a notification at that complete time after looking for
// notifications. `frontiered` chooses `notify_at_frontiered` over `notify_at`. Returns the times
// delivered on this worker; the dataflow must finish (the operator releases its capability only
// when the request is delivered).
std::vector<Time> own_notificator_last_request(timely::Worker& worker, bool frontiered) {
  auto delivered = std::make_shared<std::vector<Time>>();
  timely::dataflow::InputHandle<Time, int> input;
  timely::dataflow::ProbeHandle<Time> probe;
  worker.dataflow<Time>([&](auto& scope) {
    input.to_stream(scope) | exchange([](const int&) { return 0; }) |
        unary_frontier<int>(timely::dataflow::Pipeline{}, "OwnNotificator",
                            [delivered, frontiered](Capability<Time>, const OperatorInfo&) {
                              return
                                  [delivered, frontiered, notificator = FrontierNotificator<Time>{},
                                   held = std::optional<Capability<Time>>{}](auto& in, auto& output) mutable {
                                    in.for_each([&](const InputCapability<Time>& cap, std::vector<int>&) {
                                      if (!held) held = cap.retain();
                                    });
                                    const MutableAntichain<Time>* frontiers[] = {&in.frontier()};
                                    notificator.for_each(frontiers, [&](Capability<Time> cap, std::int64_t) {
                                      delivered->push_back(cap.time());
                                      output.session(cap).give(static_cast<int>(cap.time()));
                                    });
                                    if (held && in.frontier().empty()) {
                                      if (frontiered)
                                        notificator.notify_at_frontiered(std::move(*held), frontiers);
                                      else
                                        notificator.notify_at(std::move(*held));
                                      held.reset();
                                    }
                                  };
                            }) |
        probe_with(probe);
  });
  input.advance_to(7);
  input.send(1);
  input.close();
  step_until_done(worker, probe);
  return *delivered;
}

}  // namespace

TEST_CASE("a frontier notificator of the operator's own delivers a request made in its last scheduling",
          "[conformance][notificator]") {
  // Without the activation that the request carries, nothing schedules the operator again: the
  // notification stays pending, the probe stays at 7 and step_until_done throws.
  for (bool frontiered : {false, true}) {
    INFO("notify_at" << (frontiered ? "_frontiered" : ""));
    auto result = harness::same_on_all_worker_counts(
        [frontiered](timely::Worker& worker) { return own_notificator_last_request(worker, frontiered); });
    REQUIRE(result == std::vector<Time>{7});
  }
}
