// fuzz_columnar: a libFuzzer target for the in-place reader of columnar batches
// (timely/container/columnar.hpp).
//
// Every input goes to Batch<std::tuple<std::uint64_t, std::string,
// std::optional<std::vector<std::uint32_t>>>>::from_bytes three ways: borrowed (copied into an
// 8-byte aligned buffer that a shared owner keeps alive), owned (no owner: one aligned copy)
// and misaligned (the input at an odd address). LayoutError is the only acceptable failure, and
// the three must agree on accepting. An accepted batch has every item read (string bytes and
// vector elements touched, so the sanitizers see any out-of-bounds access), pushed into a new
// owned batch from its borrowed form and from its materialized owned form; both must
// re-serialize to exactly the input bytes (a valid batch has one encoding). Anything else
// aborts.
//
// Build: cmake -DTIMELY_BUILD_FUZZ=ON with clang (scripts/fuzz.sh does it all).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <timely/container/columnar.hpp>

namespace {

namespace col = timely::container::columnar;
using Record = std::tuple<std::uint64_t, std::string, std::optional<std::vector<std::uint32_t>>>;
using Batch = col::Batch<Record>;

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_columnar: %s\n", what);
  std::abort();
}

/// Reads `b` from its columns; accepted iff no LayoutError.
bool accepts(std::span<const std::uint8_t> bytes, std::shared_ptr<const void> owner, Batch& out) {
  try {
    out = Batch::from_bytes(bytes, std::move(owner));
    return true;
  } catch (const col::LayoutError& e) {
    if (e.column().empty() || e.offset() > bytes.size())
      finding("LayoutError without a column or past the end");
    return false;
  }
}

std::uint64_t touch(const Batch& b) {
  std::uint64_t sum = 0;
  for (const auto& [n, s, v] : b) {
    sum += n;
    for (char c : s) sum += static_cast<unsigned char>(c);
    if (v)
      for (std::uint32_t x : *v) sum += x;
  }
  return sum;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto words = std::make_shared<std::vector<std::uint64_t>>(size / 8 + 1);
  if (size != 0) std::memcpy(words->data(), data, size);
  const std::span<const std::uint8_t> aligned(reinterpret_cast<const std::uint8_t*>(words->data()), size);
  std::vector<std::uint8_t> shifted(size + 1);
  if (size != 0) std::memcpy(shifted.data() + 1, data, size);
  const std::span<const std::uint8_t> odd(shifted.data() + 1, size);

  Batch borrowed, owned, misaligned;
  const bool a = accepts(aligned, words, borrowed);
  const bool b = accepts(aligned, nullptr, owned);
  const bool c = accepts(odd, words, misaligned);
  if (a != b || a != c) finding("the borrowed, owned and misaligned readers disagree");
  if (!a) return 0;
  if (!borrowed.borrowed() || owned.borrowed() || misaligned.borrowed()) finding("wrong borrowed() state");
  if (!(borrowed == owned) || !(borrowed == misaligned)) finding("readers accepted different batches");

  const std::uint64_t sum = touch(borrowed);
  if (sum != touch(owned)) finding("items read differently");

  Batch from_refs, from_owned;
  for (const auto& r : borrowed) {
    from_refs.push_into(r);
    from_owned.push_into(col::to_owned<Record>(r));
  }
  std::vector<std::uint8_t> out;
  for (const Batch* x : {&borrowed, &from_refs, &from_owned}) {
    out.clear();
    x->append_to(out);
    if (out.size() != size || (size != 0 && std::memcmp(out.data(), data, size) != 0))
      finding("an accepted batch does not re-serialize to its bytes");
    if (x->serialized_size() != size) finding("serialized_size differs from the bytes read");
  }
  return 0;
}
