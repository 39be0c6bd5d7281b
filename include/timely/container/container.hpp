/// \file
/// Containers: the batches records travel in, and the builders that fill them. Holds
/// - the `Container` concept (what progress tracking and channels need of a batch: counting,
///   emptiness, clearing, moving) and `record_count`;
/// - the item operations every container-generic operator uses: `push_into` (absorb an item),
///   `drain` (hand every item on, owned for `std::vector`, borrowed for columnar batches),
///   `at_capacity` and `ensure_capacity` (when a batch should be shipped, and making room);
/// - the `ContainerBuilder` concept, `CapacityContainerBuilder<C>` (fills containers to capacity
///   and hands them out in order) and the `length_preserving` marker that exchange requires;
/// - `BuilderFor<Out>`: how an operator's output type parameter names its builder (a record type
///   `D` means `std::vector<D>`; a builder type means itself).
///
/// `std::vector<D>` is a container with `default_capacity<D>()` records per batch (8 KiB worth,
/// the reference's default); columnar batches (columnar.hpp) are cut by bytes instead. A
/// container type of one's own needs `size()`, `empty()`, `clear()`, default construction and
/// moves, plus `push_into(item)` or `push_back(item)` and, to be cut by something other than the
/// record count, `at_capacity()`.
///
/// Source: the reference's `timely_container` (`Accountable`, `DrainContainer`,
/// `SizableContainer`, `PushInto`, `ContainerBuilder`, `CapacityContainerBuilder`,
/// `LengthPreservingContainerBuilder`; SEMANTICS.md §9). Thread-safety: plain values; no shared
/// state.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace timely::container {

/// A batch of records that can be counted, emptied and moved between workers.
/// Required: `c.size()` (records, for progress accounting: the count where a batch is produced
/// must equal the count where it is consumed), `c.empty()` (`size() == 0`), `c.clear()`, default
/// construction and moves. Copies are needed only where a stream has several consumers.
template <class C>
concept Container = std::movable<C> && std::default_initializable<C> && requires(C& c, const C& cc) {
  { cc.size() } -> std::convertible_to<std::size_t>;
  { cc.empty() } -> std::convertible_to<bool>;
  c.clear();
};

/// Records of type `D` per batch: about 8 KiB worth, at least 1 (the reference's default).
template <class D>
constexpr std::size_t default_capacity() noexcept {
  return std::max<std::size_t>(1, (8 * 1024) / std::max<std::size_t>(1, sizeof(D)));
}

/// Number of records in a container, as progress tracking counts them.
template <Container C>
constexpr std::size_t record_count(const C& c) {
  return static_cast<std::size_t>(c.size());
}

namespace detail {
template <class C>
inline constexpr bool is_std_vector = false;
template <class D, class A>
inline constexpr bool is_std_vector<std::vector<D, A>> = true;
}  // namespace detail

/// Whether `C` is a `std::vector` (the containers whose records are owned values).
template <class C>
concept Vector = detail::is_std_vector<std::remove_cvref_t<C>>;

namespace detail {
template <class C>
struct VectorRecordOf {
  struct None {
    None() = delete;
  };
  using type = None;
};
template <class D, class A>
struct VectorRecordOf<std::vector<D, A>> {
  using type = D;
};
}  // namespace detail

/// The record type `D` of `std::vector<D>`; for other containers a type that cannot be made (so
/// an overload taking it is never viable).
template <class C>
using VectorRecord = typename detail::VectorRecordOf<C>::type;

/// What iterating a `C` yields: `D&` for `std::vector<D>`, a borrowed reference type (by value)
/// for columnar batches. Routes and inspectors take `const ItemRef<C>&`.
template <class C>
using ItemRef = decltype(*std::begin(std::declval<C&>()));

/// Whether `C` can absorb an `X` (through `c.push_into(x)`, or `c.push_back(x)`).
template <class C, class X>
concept PushInto = requires(C& c, X&& x) {
  c.push_into(std::forward<X>(x));
}
|| requires(C& c, X&& x) { c.push_back(std::forward<X>(x)); };

/// Pushes `x` into `c`.
template <class C, class X>
requires PushInto<C, X>
void push_into(C& c, X&& x) {
  if constexpr (requires { c.push_into(std::forward<X>(x)); })
    c.push_into(std::forward<X>(x));
  else
    c.push_back(std::forward<X>(x));
}

/// Whether `c` is full enough to be shipped: `c.at_capacity()` where the container says, else
/// (vectors) `default_capacity<value_type>()` records.
template <Container C>
bool at_capacity(const C& c) {
  if constexpr (requires { c.at_capacity(); })
    return c.at_capacity();
  else
    return c.size() >= default_capacity<typename C::value_type>();
}

/// Makes room for a full batch in an empty container (vectors reserve their default capacity
/// once; other containers grow as they are filled).
template <Container C>
void ensure_capacity(C& c) {
  if constexpr (requires {
                  c.capacity();
                  c.reserve(std::size_t{});
                }) {
    if (c.capacity() == 0) c.reserve(default_capacity<typename C::value_type>());
  }
}

/// Calls `f(item)` for every item of `c`, in order, then clears `c`. Items of a vector are passed
/// as rvalues (they may be moved from); items of other containers as they iterate (borrowed
/// references, valid during the call).
template <Container C, class F>
void drain(C& c, F&& f) {
  if constexpr (std::is_lvalue_reference_v<ItemRef<C>> &&
                !std::is_const_v<std::remove_reference_t<ItemRef<C>>>) {
    for (auto& item : c) f(std::move(item));
  } else {
    for (auto&& item : c) f(item);
  }
  c.clear();
}

/// Builds containers from items: push items in, take completed containers out.
/// Required: `typename B::Container`; `b.extract()` returns a pointer to a completed container or
/// nullptr; `b.finish()` returns completed and then partial containers, nullptr once none remain
/// (call it until it does); `b.relax()` releases memory kept for reuse. The caller may move the
/// contents out of a returned container, or swap in storage to reuse; the builder clears
/// whatever is left before reusing it. A returned pointer is valid until the next call on the
/// builder.
template <class B>
concept ContainerBuilder = std::default_initializable<B> && std::movable<B> && requires(B& b) {
  typename B::Container;
  requires Container<typename B::Container>;
  { b.extract() } -> std::same_as<typename B::Container*>;
  { b.finish() } -> std::same_as<typename B::Container*>;
  b.relax();
};

/// Marker: builder `B` hands out exactly as many records as were pushed into it (exchange
/// requires it, because progress counts records before and after the pact).
template <class B>
inline constexpr bool length_preserving = false;

/// What `CapacityContainerBuilder` does to each new container before filling it: nothing.
struct NoSetup {
  template <class C>
  void operator()(C&) const noexcept {}
};

/// Containers that append a selection of another container's records at once:
/// `c.fill_from(src, indices)` appends `src[indices[0]]`, ... until `c` is at capacity and
/// returns how many it took (at least one when `c` was empty). Exchange partitions such
/// containers by index instead of pushing record by record.
template <class C>
concept Gathers = requires(C& c, const C& src, std::span<const std::uint32_t> indices) {
  { c.fill_from(src, indices) } -> std::convertible_to<std::size_t>;
};

/// Containers that can be told the buffer sizes to expect, from another of their kind:
/// `c.expect(other.shape())`. Builders pass the shape of the last full container.
template <class C>
concept Shaped = requires(C& c, const C& other) {
  typename C::Shape;
  c.expect(other.shape());
};

/// The room to give a new, empty container: `make_room(c)` reserves, for vectors, their default
/// capacity and, for `Shaped` containers, expects the shape of the last full container that
/// `filled` saw (at least that of a partial one, so that a round ending in a partial batch does
/// not shrink the next full one's room). Used by `CapacityContainerBuilder` and input handles.
template <class C>
class RoomHint {
 public:
  void make_room(C& c) { ensure_capacity(c); }
  void filled(const C&, bool) noexcept {}
};
template <Shaped C>
class RoomHint<C> {
 public:
  void make_room(C& c) noexcept { c.expect(shape_); }
  void filled(const C& c, bool full) {
    const auto shape = c.shape();
    if (full)
      shape_ = shape;
    else
      for (std::size_t j = 0; j < shape.size(); ++j) shape_[j] = std::max(shape_[j], shape[j]);
  }

 private:
  typename C::Shape shape_{};
};

/// Fills one container at a time to capacity (`at_capacity`) and queues it; `extract` and
/// `finish` hand queued containers out in the order they filled. `Setup` is applied to each new
/// container before its first item (columnar builders set the byte capacity there).
template <Container C, class Setup = NoSetup>
class CapacityContainerBuilder {
 public:
  using Container = C;

  CapacityContainerBuilder() = default;
  /// Moves leave the source empty and idle.
  CapacityContainerBuilder(CapacityContainerBuilder&& other) noexcept
      : current_(std::move(other.current_)),
        spare_(std::move(other.spare_)),
        pending_(std::move(other.pending_)),
        head_(std::exchange(other.head_, 0)),
        ready_(std::exchange(other.ready_, 0)) {
    other.pending_.clear();
  }
  CapacityContainerBuilder& operator=(CapacityContainerBuilder&& other) noexcept {
    current_ = std::move(other.current_);
    spare_ = std::move(other.spare_);
    pending_ = std::move(other.pending_);
    other.pending_.clear();
    head_ = std::exchange(other.head_, 0);
    ready_ = std::exchange(other.ready_, 0);
    return *this;
  }

  /// Pushes one item into the current container, queueing the container once it is full.
  /// \returns whether it queued one (so that `extract` has something): a caller pushing item
  /// after item asks `extract` only then.
  template <class X>
  requires PushInto<C, X>
  bool push_into(X&& x) {
    if (current_.empty()) start();
    container::push_into(current_, std::forward<X>(x));
    if (!at_capacity(current_)) return false;
    queue(true);
    return true;
  }
  /// Pushes `src[indices[k]]` for every `k`, in order, through `C::fill_from` (column by
  /// column for columnar batches), queueing each container as it fills.
  void push_gathered(const C& src, std::span<const std::uint32_t> indices) requires Gathers<C> {
    while (!indices.empty()) {
      if (current_.empty()) start();
      indices = indices.subspan(current_.fill_from(src, indices));
      if (at_capacity(current_)) queue(true);
    }
  }
  /// A completed container, or nullptr.
  C* extract() {
    if (ready_ == 0) return nullptr;  // one compare on the per-item path
    --ready_;
    spare_ = std::move(pending_[head_++]);
    if (head_ == pending_.size()) {
      pending_.clear();
      head_ = 0;
    }
    return &spare_;
  }
  /// A completed or partial container, or nullptr once everything pushed was handed out.
  C* finish() {
    if (ready_ == 0 && !current_.empty()) queue(false);
    return extract();
  }
  /// Drops the storage kept for reuse.
  void relax() {
    spare_ = C{};
    if (head_ == pending_.size()) {
      pending_ = {};
      head_ = 0;
    }
  }
  /// Items pushed but not yet handed out are none.
  [[nodiscard]] bool idle() const noexcept { return ready_ == 0 && current_.empty(); }

 private:
  // A new (empty) current container: set up, and given room for a full batch.
  void start() {
    Setup{}(current_);
    room_.make_room(current_);
  }
  // The next current container is the last one handed out, if its consumer gave its storage
  // back (the reference's recycling; it saves an allocation, and the page faults of fresh memory
  // where the allocator returned freed memory to the system), cleared.
  void queue(bool full) {
    room_.filled(current_, full);
    pending_.push_back(std::move(current_));
    current_ = std::move(spare_);
    spare_ = C{};
    current_.clear();
    ++ready_;
  }

  C current_{};
  [[no_unique_address]] RoomHint<C> room_{};
  C spare_{};
  std::vector<C> pending_;
  std::size_t head_ = 0;
  std::size_t ready_ = 0;  // pending_.size() - head_
};

template <class C, class Setup>
inline constexpr bool length_preserving<CapacityContainerBuilder<C, Setup>> = true;

namespace detail {
template <class Out>
struct BuilderFor {
  using type = CapacityContainerBuilder<std::vector<Out>>;
};
template <class Out>
requires ContainerBuilder<Out>
struct BuilderFor<Out> {
  using type = Out;
};
}  // namespace detail

/// The builder an operator's output type parameter names: `CapacityContainerBuilder<
/// std::vector<Out>>` for a record type `Out` (so `unary<int>(...)` makes a stream of vectors of
/// int), or `Out` itself when it is a container builder (`unary<columnar::Builder<P>>(...)`).
template <class Out>
using BuilderFor = typename detail::BuilderFor<Out>::type;

static_assert(Container<std::vector<int>>);
static_assert(ContainerBuilder<CapacityContainerBuilder<std::vector<int>>>);

}  // namespace timely::container
