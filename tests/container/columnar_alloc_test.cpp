// Heap allocations of columnar batches, counted by replacing the global operator new (this
// binary only): after warm-up, reading a batch in place from bytes with an owner (directly and
// through the codec), iterating it, copying a borrowed batch and serializing into a reserved
// buffer allocate nothing; refilling an owned batch after clear() reuses its columns; a worker
// that builds and drops batch after batch reuses their large column blocks (columnar/storage.hpp);
// a builder gives each new batch room for the last full one (one allocation per column); and
// batches of about 1 MiB crossing between two processes over loopback (threads of this program)
// make the network's threads allocate nothing large after warm-up (receive slabs are recycled,
// and received batches borrow them). Failing allocations on purpose, it checks that a push that
// cannot allocate leaves the batch as it was.
#include <timely/container/columnar.hpp>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <timely/communication/codec.hpp>
#include <timely/communication/initialize.hpp>

#include "columnar_fixtures.hpp"
#include "support/catch.hpp"
#include "support/loopback.hpp"

namespace {
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> large_allocations{0};  // of 64 KiB or more
// Large allocations on threads not marked as workers: in the cluster test, the network's send
// and receive threads (the test's own thread only waits then).
std::atomic<std::size_t> large_off_worker{0};
thread_local bool on_worker = false;
// When nonzero, this thread's allocation that brings it to zero throws std::bad_alloc.
thread_local std::size_t fail_in = 0;

// Out of line, so that GCC does not pair the malloc it would see inlined in `new` with the
// free in `delete` (a -Wmismatched-new-delete false positive).
[[gnu::noinline]] void* counted(std::size_t n, std::size_t align = 0) {
  if (fail_in != 0 && --fail_in == 0) throw std::bad_alloc();
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (n >= (std::size_t{1} << 16)) {
    large_allocations.fetch_add(1, std::memory_order_relaxed);
    if (!on_worker) large_off_worker.fetch_add(1, std::memory_order_relaxed);
  }
  if (n == 0) n = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (n + align - 1) / align * align)
                                              : std::malloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
[[gnu::noinline]] void release(void* p) noexcept { std::free(p); }
}  // namespace

void* operator new(std::size_t n) { return counted(n); }
void* operator new[](std::size_t n) { return counted(n); }
void* operator new(std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted(n, static_cast<std::size_t>(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }

using namespace columnar_test;

namespace {

using TB = col::Batch<Triple>;

/// Heap allocations made by `f()`.
template <class F>
std::size_t allocations_of(F&& f) {
  const std::size_t before = allocations.load();
  f();
  return allocations.load() - before;
}

TB sample(std::size_t n) {
  TB b;
  for (std::size_t i = 0; i < n; ++i)
    b.push_into(Triple{i, std::string(i % 13, 'w'),
                       i % 3 ? std::optional<std::vector<std::uint32_t>>(std::vector<std::uint32_t>(i % 5, 7))
                             : std::nullopt});
  return b;
}

}  // namespace

TEST_CASE("columnar allocations: the counter sees allocations", "[container][columnar][alloc]") {
  CHECK(allocations_of([] { std::make_unique<int>(1).reset(); }) == 1);
}

TEST_CASE("columnar allocations: reading in place allocates nothing", "[container][columnar][alloc]") {
  const TB batch = sample(10'000);
  const Owned owner = own(serialize(batch));
  std::size_t sum = 0;
  auto read = [&](const TB& b) {
    for (const auto& [n, s, v] : b) {
      sum += n + s.size();
      if (v)
        for (std::uint32_t x : *v) sum += x;
    }
  };
  for (int warm = 0; warm < 2; ++warm) {
    const std::size_t n = allocations_of([&] {
      const TB view = TB::from_bytes(owner.bytes(), owner.words);
      read(view);
      const TB copy = view;  // shares the owner
      read(copy);
      CHECK(view.borrowed());
    });
    CHECK(n == 0);
  }
  CHECK(sum > 0);

  SECTION("through the codec, with the decoder's owner") {
    std::vector<std::uint8_t> buf;
    timely::communication::Encoder e(buf);
    e.put_u64(1);
    e.put_u32(2);
    e.put(batch);
    const Owned framed = own(buf);
    for (int warm = 0; warm < 2; ++warm) {
      const std::size_t n = allocations_of([&] {
        timely::communication::Decoder d(framed.bytes(), 0, framed.words);
        (void)d.get_u64();
        (void)d.get_u32();
        const TB view = d.get<TB>();
        CHECK(view.borrowed());
        CHECK(view.size() == batch.size());
      });
      CHECK(n == 0);
    }
  }
}

TEST_CASE("columnar allocations: clear() keeps the columns, append_to into room allocates nothing",
          "[container][columnar][alloc]") {
  TB b = sample(1000);
  const TB reference = b;
  std::vector<std::uint8_t> out;
  out.reserve(2 * b.serialized_size());
  const std::size_t n = allocations_of([&] {
    b.clear();
    for (const auto& r : reference) b.push_into(r);
    b.append_to(out);
  });
  CHECK(n == 0);
  CHECK(b == reference);
}

TEST_CASE("columnar allocations: a push that cannot allocate leaves the batch as it was",
          "[container][columnar][alloc]") {
  // Every record is pushed with the 1st, 2nd, ... allocation it makes failing in turn, until it
  // goes through; owned values and borrowed references alternate.
  const TB source = sample(600);
  TB batch;
  std::size_t failures = 0;
  for (std::size_t i = 0; i < source.size(); ++i) {
    const Triple owned = col::to_owned<Triple>(source[i]);
    for (std::size_t k = 1;; ++k) {
      const auto before = serialize(batch);
      bool threw = false;
      fail_in = k;
      try {
        if (i % 2 == 0)
          batch.push_into(owned);
        else
          batch.push_into(source[i]);
      } catch (const std::bad_alloc&) {
        threw = true;
      }
      fail_in = 0;
      if (!threw) break;
      ++failures;
      REQUIRE(batch.size() == i);
      REQUIRE(serialize(batch) == before);
    }
  }
  INFO("pushes failed " << failures << " times");
  CHECK(failures >= 20);  // each of the five columns grows several times
  CHECK(batch == source);
}

TEST_CASE("columnar allocations: batches built and dropped one after another reuse their large blocks",
          "[container][columnar][alloc]") {
  using Pairs = col::Batch<std::pair<std::uint64_t, std::string>>;
  auto build_and_drop = [] {
    Pairs b;
    for (std::uint64_t i = 0; i < 100'000; ++i)
      b.push_into(std::tuple<std::uint64_t, std::string_view>{i, "a few bytes"});
    CHECK(b.byte_size() > (std::size_t{1} << 20));
  };
  build_and_drop();  // warm-up: the blocks of every size the columns grow through
  const std::size_t before = large_allocations.load();
  for (int round = 0; round < 3; ++round) build_and_drop();
  CHECK(large_allocations.load() == before);

  // A batch built on one thread and dropped on another: its blocks join that thread's cache.
  Pairs moved;
  std::thread maker([&] {
    for (std::uint64_t i = 0; i < 100'000; ++i)
      moved.push_into(std::tuple<std::uint64_t, std::string_view>{i, "x"});
  });
  maker.join();
  CHECK(moved.size() == 100'000);
  std::thread([m = std::move(moved)]() mutable { m.clear(); }).join();
}

TEST_CASE("columnar allocations: a builder's next batch grows straight to the last full one's size",
          "[container][columnar][alloc]") {
  // On a fresh thread (an empty block cache), so that every large block is a counted allocation.
  std::size_t first = 0, second = 0, small_batch = 0;
  std::thread([&] {
    using P = std::pair<std::uint64_t, std::string>;
    col::Builder<P> builder;  // 1 MiB batches
    std::uint64_t next = 0;
    std::vector<col::Batch<P>> shipped;  // taken out and kept, as a channel would hold them
    // Pushes until a batch is full and hands it out; returns the large allocations that took.
    auto fill_one = [&] {
      const std::size_t before = large_allocations.load();
      col::Batch<P>* full = nullptr;
      while ((full = builder.extract()) == nullptr) {
        builder.push_into(std::tuple<std::uint64_t, std::string_view>{next, "eleven char"});
        ++next;
      }
      shipped.push_back(std::move(*full));
      return large_allocations.load() - before;
    };
    first = fill_one();  // no shape yet: each column grows through several large blocks
    second = fill_one();
    // A batch shipped after two records stays small, though the builder expects 1 MiB.
    const std::size_t before = large_allocations.load();
    builder.push_into(std::tuple<std::uint64_t, std::string_view>{1, "a"});
    builder.push_into(std::tuple<std::uint64_t, std::string_view>{2, "b"});
    auto* tiny = builder.finish();
    small_batch = large_allocations.load() - before + (tiny != nullptr && tiny->size() == 2 ? 0 : 100);
  }).join();
  CHECK(first >= 6);
  CHECK(second <= 3);  // three columns (values, offsets, bytes), each one large block
  CHECK(small_batch == 0);
}

namespace {

using Pair = std::pair<std::uint64_t, std::string>;
using PairBatch = col::Batch<Pair>;
using Shipped = std::tuple<std::uint64_t, std::uint64_t, PairBatch>;  // (sender, round, batch)

/// A batch as a builder of `Bytes` capacity cuts them: records of 8 + 8 + 5..15 bytes until
/// the batch reaches `Bytes`, so a frame of one is a little over `Bytes`.
template <std::size_t Bytes>
PairBatch round_batch(std::uint64_t round) {
  col::Builder<Pair, Bytes> builder;
  for (std::uint64_t i = 0;; ++i) {
    builder.push_into(std::tuple<std::uint64_t, std::string_view>{
        round * 10'000'000 + i, std::string_view("abcdefghijklmno", 5 + i % 11)});
    if (PairBatch* full = builder.extract()) return std::move(*full);
  }
}

struct Window {
  std::size_t network_large = 0;  // allocations of 64 KiB or more by the network's threads then
  std::size_t large = 0;          // allocations of 64 KiB or more during the measured rounds
  std::size_t all = 0;            // every allocation during them
  std::size_t batches = 0;        // batches of those rounds received from the other process
  std::size_t borrowed = 0;       // of them, read in place from the receive slab
  std::uint64_t moved = 0;        // bytes of them the receive thread moved between slabs
  std::uint64_t received = 0;     // bytes received from the other process in those rounds
  bool equal = true;
};

/// Two processes of one worker each (threads of this program, over loopback). Every round each
/// sends a batch of `Bytes` to the other and one to itself, then receives both and drops them;
/// in the first `first` rounds it sends six batches of `FirstBytes` to the other, so that many
/// large frames are under way at once. Returns each process's counts over the
/// `measured` rounds after `warm` ones (the allocation counts in process 0's: they are the
/// program's).
template <std::size_t Bytes, std::size_t FirstBytes = Bytes>
std::vector<Window> cross(std::size_t warm, std::size_t measured, std::size_t first = 0) {
  const auto addresses = support::free_loopback_addresses(2);
  std::barrier<> sync(2);
  std::atomic<std::size_t> large_before{0}, all_before{0}, network_before{0};
  std::vector<Window> windows(2);
  support::run_processes(2, [&](std::size_t p) {
    const auto config = support::cluster_config(addresses, p);
    windows[p] = timely::communication::initialize(config, [&](timely::communication::Allocator& a) {
                   on_worker = true;
                   auto [pushers, puller] = a.allocate<Shipped>(0);
                   Window w;
                   const PairBatch expected = round_batch<Bytes>(0);
                   const PairBatch expected_first = round_batch<FirstBytes>(0);
                   std::size_t received = 0, due = 0;
                   const std::size_t other = 1 - a.index();
                   const auto stats = a.network_stats();
                   std::uint64_t moved_before = 0, received_before = 0;
                   for (std::size_t r = 0; r < warm + measured; ++r) {
                     if (r == warm) {
                       sync.arrive_and_wait();
                       moved_before = stats->bytes_moved(other);
                       received_before = stats->peer(other).bytes_received;
                       if (a.index() == 0) {
                         large_before = large_allocations.load();
                         all_before = allocations.load();
                         network_before = large_off_worker.load();
                       }
                       sync.arrive_and_wait();
                     }
                     if (r < first) {
                       for (int k = 0; k < 6; ++k)
                         pushers[1 - a.index()]->send(Shipped{a.index(), r, round_batch<FirstBytes>(r)});
                       pushers[a.index()]->send(Shipped{a.index(), r, round_batch<FirstBytes>(r)});
                       due += 7;
                     } else {
                       for (std::size_t t = 0; t < 2; ++t)
                         pushers[t]->send(Shipped{a.index(), r, round_batch<Bytes>(r)});
                       due += 2;
                     }
                     a.release();
                     const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
                     while (received < due) {
                       if (std::chrono::steady_clock::now() > deadline)
                         throw std::runtime_error("timed out waiting for batches");
                       a.receive();
                       a.events().clear();
                       while (auto m = puller->recv()) {
                         ++received;
                         auto& [from, round, batch] = *m;
                         if (from != a.index() && round >= warm) {
                           ++w.batches;
                           if (batch.borrowed()) ++w.borrowed;
                         }
                         const PairBatch& like = round < first ? expected_first : expected;
                         w.equal = w.equal && batch.size() == like.size() &&
                                   std::get<1>(batch[7]) == std::get<1>(like[7]) &&
                                   std::get<0>(batch[7]) == round * 10'000'000 + 7;
                       }
                       a.await_events(std::chrono::milliseconds(10));
                     }
                   }
                   (void)puller->recv();
                   w.moved = stats->bytes_moved(other) - moved_before;
                   w.received = stats->peer(other).bytes_received - received_before;
                   sync.arrive_and_wait();
                   if (a.index() == 0) {
                     w.large = large_allocations.load() - large_before.load();
                     w.network_large = large_off_worker.load() - network_before.load();
                     w.all = allocations.load() - all_before.load();
                   }
                   sync.arrive_and_wait();
                   for (auto& pusher : pushers) pusher->done();
                   a.release();
                   return w;
                 }).at(0);
  });
  return windows;
}

void check_crossing(const std::vector<Window>& windows, std::size_t measured) {
  const Window& w = windows[0];
  INFO(w.network_large << " large allocations by the network's threads, " << w.large << " in all, and "
                       << w.all << " of any size, while the processes received "
                       << windows[0].batches + windows[1].batches << " batches from each other");
  CHECK(windows[0].batches == measured);
  CHECK(windows[1].batches == measured);
  CHECK(windows[0].borrowed == measured);
  CHECK(windows[1].borrowed == measured);
  CHECK(windows[0].equal);
  CHECK(windows[1].equal);
  // The receive threads' slabs are recycled. The workers' large allocations (building each
  // round's batches, and a send buffer when the send thread has not yet returned the last one)
  // are reported only.
  CHECK(w.network_large == 0);
  // Each frame starts in a slab with room for it, so none is copied from one slab to the next
  // (at most a header's bytes each, well under the 0.1 % allowed): a frame larger than the
  // standard slab is not begun in one and then moved, with what had arrived of it, to a
  // larger one.
  for (const Window& p : windows) {
    INFO(p.moved << " of " << p.received << " bytes received moved between slabs");
    CHECK(p.received >= measured * (std::size_t{1} << 20));
    CHECK(p.moved * 1000 <= p.received);
  }
}

}  // namespace

TEST_CASE("columnar allocations: 1 MiB batches between two processes allocate nothing large after warm-up",
          "[container][columnar][alloc][cluster]") {
  // Frames of a little over 1 MiB, four to a slab (with slabs of 1 MiB, each took a new one).
  check_crossing(cross<std::size_t{1} << 20>(6, 12), 12);
}

TEST_CASE("columnar allocations: batches larger than a receive slab are received in recycled slabs too",
          "[container][columnar][alloc][cluster]") {
  // Frames of a little over 6 MiB: each needs a slab larger than the standard 4 MiB, which the
  // pool recycles by size.
  check_crossing(cross<std::size_t{6} << 20>(4, 8), 8);
}

TEST_CASE("columnar allocations: after a burst of large batches, standard slabs are recycled again",
          "[container][columnar][alloc][cluster]") {
  // Rounds of six 6 MiB batches at once leave the pool full of 8 MiB slabs; then 1 MiB batches. The pool
  // keeps the slabs returned last, so standard ones displace the large ones instead of being
  // dropped (which made every standard slab a fresh allocation).
  check_crossing(cross<std::size_t{1} << 20, std::size_t{6} << 20>(12, 12, 4), 12);
}
