// Log-file encodings of the progress layer's timestamps (timely/progress/log_codec.hpp):
// `Product<A, B>` and `Unit` round-trip with the documented bytes and names, truncations are
// rejected, and a typed stream of an iterative scope's times survives a log file.
#include <timely/progress/log_codec.hpp>

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <timely/logging/file.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/progress/type_name.hpp>

#include "support/catch.hpp"

namespace lg = timely::logging;
using timely::Product;
using timely::Unit;

namespace {

template <class T>
std::vector<std::byte> bytes_of(const T& value) {
  std::vector<std::byte> out;
  lg::Encoder enc(out);
  lg::encode(enc, value);
  return out;
}

template <class T>
T from_bytes(const std::vector<std::byte>& bytes) {
  lg::Decoder dec(bytes);
  T value = lg::decode<T>(dec);
  CHECK(dec.remaining() == 0);
  return value;
}

}  // namespace

TEST_CASE("Product<A, B> encodes outer then inner, named by its parts", "[log_codec]") {
  using P = Product<std::uint64_t, std::uint32_t>;
  const P p{0x0102030405060708ull, 0x0a0b0c0du};
  const auto bytes = bytes_of(p);
  REQUIRE(bytes.size() == 12);
  // Little-endian: the outer u64's low byte first, then the inner u32's.
  CHECK(bytes[0] == std::byte{0x08});
  CHECK(bytes[7] == std::byte{0x01});
  CHECK(bytes[8] == std::byte{0x0d});
  CHECK(bytes[11] == std::byte{0x0a});
  CHECK(from_bytes<P>(bytes) == p);
  CHECK(lg::EventCodec<P>::name() == "Product<u64, u32>");
  CHECK(lg::EventCodec<P>::name() == timely::type_name<P>());

  using Nested = Product<Product<std::uint64_t, std::uint32_t>, std::int8_t>;
  const Nested n{P{7, 9}, -3};
  CHECK(from_bytes<Nested>(bytes_of(n)) == n);
  CHECK(bytes_of(n).size() == 13);
  CHECK(lg::EventCodec<Nested>::name() == "Product<Product<u64, u32>, i8>");
  CHECK(lg::EventCodec<Nested>::name() == timely::type_name<Nested>());

  // Every strict prefix is too short.
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    INFO("prefix of " << len << " bytes");
    lg::Decoder dec{std::span<const std::byte>(bytes).first(len)};
    CHECK_THROWS_AS(lg::decode<P>(dec), lg::CodecError);
  }
  // A bad inner value is the inner codec's error.
  using PB = Product<std::uint32_t, bool>;
  auto bad = bytes_of(PB{1, true});
  bad.back() = std::byte{2};
  lg::Decoder dec(bad);
  CHECK_THROWS_AS(lg::decode<PB>(dec), lg::CodecError);
}

TEST_CASE("Unit encodes to no bytes and is named ()", "[log_codec]") {
  CHECK(bytes_of(Unit{}).empty());
  CHECK(from_bytes<Unit>({}) == Unit{});
  CHECK(lg::EventCodec<Unit>::name() == "()");
  CHECK(lg::EventCodec<Unit>::name() == timely::type_name<Unit>());
  using PU = Product<Unit, std::uint64_t>;
  CHECK(bytes_of(PU{Unit{}, 5}).size() == 8);
  CHECK(lg::EventCodec<PU>::name() == "Product<(), u64>");
}

TEST_CASE("an iterative scope's progress stream round-trips through a log file", "[log_codec]") {
  using T = Product<std::uint64_t, std::uint32_t>;
  const auto path =
      std::filesystem::temp_directory_path() / ("timely-log-codec-" + std::to_string(::getpid()) + ".tlog");
  const std::string stream = "timely/progress/" + timely::type_name<T>();
  std::vector<std::pair<lg::Duration, lg::ProgressEvent<T>>> written;
  lg::ProgressEvent<T> e;
  e.is_send = true;
  e.source = 1;
  e.channel = 4;
  e.seq_no = 2;
  e.identifier = 3;
  e.messages = {{1, 0, T{2, 3}, 1}, {2, 1, T{0, 7}, -1}};
  e.internal = {{5, 0, T{9, 0}, 4}};
  written.emplace_back(lg::Duration(10), e);
  e.is_send = false;
  e.messages.clear();
  written.emplace_back(lg::Duration(20), e);
  {
    lg::FileSink sink(path);
    auto action = sink.action<lg::ProgressEvent<T>>(stream);
    auto batch = written;
    action(lg::Duration(25), batch);
    sink.close();
  }
  std::vector<std::pair<lg::Duration, lg::ProgressEvent<T>>> read;
  lg::FileReader reader(path);
  reader.on<lg::ProgressEvent<T>>(
      stream, [&](lg::Duration time, lg::ProgressEvent<T>& event) { read.emplace_back(time, event); });
  reader.run();
  std::filesystem::remove(path);
  REQUIRE(reader.streams().size() == 1);
  CHECK(reader.streams()[0].name == "timely/progress/Product<u64, u32>");
  CHECK(reader.streams()[0].type == "ProgressEvent<Product<u64, u32>>");
  REQUIRE(read.size() == written.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    CHECK(read[i].first == written[i].first);
    CHECK(read[i].second.is_send == written[i].second.is_send);
    CHECK(read[i].second.messages == written[i].second.messages);
    CHECK(read[i].second.internal == written[i].second.internal);
    CHECK(read[i].second.identifier == written[i].second.identifier);
  }
}
