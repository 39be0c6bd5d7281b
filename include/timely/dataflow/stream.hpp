/// \file
/// `StreamCore<T, C>`: a stream of containers `C` of records at timestamps of type `T`, produced
/// by one operator output in one scope; `Stream<T, D>`, the stream of `std::vector<D>` batches
/// that most programs use; and the `|` that applies an operator to either.
///
/// A stream may be consumed by any number of operators; each receives every record. Streams
/// are handles: copying one does not copy data. They are valid while their dataflow is built.
/// Source: the reference's `dataflow::stream` (`StreamCore<G, C>`, with `Stream<G, D>` its vector
/// case; SEMANTICS.md §5.4, §9). Thread-safety: none.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include <timely/container/container.hpp>
#include <timely/dataflow/channel_logging.hpp>
#include <timely/dataflow/message.hpp>
#include <timely/dataflow/scope.hpp>
#include <timely/progress/reachability.hpp>

namespace timely::dataflow {

/// Containers `C` of records at times of type `T`, flowing out of `source()` in `scope()`.
template <Timestamp T, class C>
class StreamCore {
 public:
  static_assert(container::Container<C>,
                "timely::StreamCore<T, C>: C must be a container (size(), empty(), clear(), default "
                "construction and moves; see timely/container/container.hpp)");
  using Time = T;
  using Container = C;

  StreamCore(Scope<T> scope, progress::Source source, std::shared_ptr<Tee<T, C>> tee)
      : scope_(scope), source_(source), tee_(std::move(tee)) {}

  [[nodiscard]] const Scope<T>& scope() const noexcept { return scope_; }
  [[nodiscard]] progress::Source source() const noexcept { return source_; }

  /// Connects this stream to operator input `target` through `pusher`, the end of channel
  /// `channel`. Used by pacts and operator builders; records the edge for progress tracking and
  /// logs it (a ChannelsEvent) when the "timely" stream is logged.
  void connect_to(progress::Target target, std::unique_ptr<communication::Push<Message<T, C>>> pusher,
                  std::size_t channel) const {
    scope_.builder().add_edge(source_, target);
    if (auto logger = timely_logger(scope_.worker()))
      logger->log(logging::ChannelsEvent{channel,
                                         scope_.address(),
                                         {source_.node, source_.port},
                                         {target.node, target.port},
                                         container_name<C>()});
    tee_->add(std::move(pusher));
  }

 private:
  Scope<T> scope_;
  progress::Source source_;
  std::shared_ptr<Tee<T, C>> tee_;
};

/// A stream of records of type `D`, in `std::vector<D>` batches.
template <Timestamp T, class D>
using Stream = StreamCore<T, std::vector<D>>;

/// Applies operator `op` to `stream`: `stream | map(f) | exchange(h)`.
// clang-format 14 (Debian 12's) has no RequiresClausePosition (it came in 15) and reads the `<`
// and `>` of this clause as comparisons, gluing it to the declaration; the clause stays on its
// own line by hand.
// clang-format off
template <Timestamp T, class C, class Op>
  requires std::invocable<Op, const StreamCore<T, C>&>
auto operator|(const StreamCore<T, C>& stream, Op&& op) {
  return std::forward<Op>(op)(stream);
}
// clang-format on

}  // namespace timely::dataflow
