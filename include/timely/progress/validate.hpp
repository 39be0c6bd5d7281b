/// \file
/// The debug-mode progress validator (SEMANTICS.md §3.10): `ProgressValidator<T>`, the checks a
/// subgraph runs on its operators' progress reports when `validate_progress` is true, and the
/// switch itself.
///
/// The switch is the macro `TIMELY_VALIDATE_PROGRESS`, which the build defines for a whole
/// program at once (the CMake option of the same name, a PUBLIC compile definition of
/// `timely_core`, on by default in Debug builds and in the `dev`, `asan` and `tsan` presets). A
/// subgraph's layout is the same with and without it; only the checks are compiled out.
///
/// What is checked, after every scheduling of a child operator, on what that scheduling reported
/// (one atomic batch, SEMANTICS.md §3.2):
/// - every positive capability (internal) or produced delta at output `o`, time `t`, is
///   justified: by a record consumed in the same batch at some `t0` on an input connected to `o`
///   with a summary `s` such that `s(t0) <= t`; or by the tracker's implications at `o`
///   (capabilities held there, or anything upstream that could still reach it) having an element
///   `<= t`; or by a capability at some `t0 <= t` at `o` that this worker holds but has not yet
///   broadcast (the unsent batch);
/// and after the updates received in a scheduling of the scope are folded into its tracker:
/// - no operator output holds a negative number of capabilities at any time. (Record counts at
///   operator inputs may be negative for a while: a consumer can report before its producer.)
/// A violation throws `ProgressError` naming the scope, the operator (name and address), the
/// port, the time and the counts involved.
///
/// Source: the reference's `Subgraph::validate_progress` (debug assertions) and Naiad §3.3 (the
/// safety condition the justification rule preserves). Thread-safety: none; one per subgraph.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <timely/progress/change_batch.hpp>
#include <timely/progress/describe.hpp>
#include <timely/progress/error.hpp>
#include <timely/progress/frontier.hpp>
#include <timely/progress/location.hpp>
#include <timely/progress/operate.hpp>
#include <timely/progress/reachability.hpp>
#include <timely/progress/timestamp.hpp>
#include <timely/scheduling/activations.hpp>

namespace timely::progress {

/// Whether this program validates progress reports (`TIMELY_VALIDATE_PROGRESS` is defined).
#ifdef TIMELY_VALIDATE_PROGRESS
inline constexpr bool validate_progress = true;
#else
inline constexpr bool validate_progress = false;
#endif

/// The progress checks of one scope instance (see the file comment).
///
/// \tparam T the scope's timestamp type.
template <Timestamp T>
class ProgressValidator {
 public:
  using Summary = SummaryOf<T>;

  /// A validator for the scope `scope` at `address`.
  ProgressValidator(std::string scope, scheduling::Path address)
      : scope_(std::move(scope)), address_(std::move(address)) {}

  /// Registers operator `index` with its name and connectivity (before the first check).
  void add_operator(std::size_t index, std::string name, Connectivity<Summary> connectivity) {
    if (operators_.size() <= index) operators_.resize(index + 1);
    Operator op{std::move(name), std::move(connectivity), {}};
    // Per output, the inputs that reach it: a check then costs the connections of one output,
    // not one look-up per input (an operator with k ports would cost k^2 per scheduling).
    for (std::size_t i = 0; i < op.connectivity.size(); ++i)
      for (const auto& [output, summaries] : op.connectivity[i]) {
        if (op.reaching.size() <= output) op.reaching.resize(output + 1);
        op.reaching[output].push_back(i);
      }
    operators_[index] = std::move(op);
  }

  /// The name and address of operator `index`, for messages: `'Map' at [0, 3]`.
  [[nodiscard]] std::string describe_operator(std::size_t index) const {
    std::string out =
        "operator '" + (index < operators_.size() ? operators_[index].name : std::string("?")) + "' at [";
    for (auto part : address_) out += std::to_string(part) + ", ";
    return out + std::to_string(index) + "]";
  }

  /// Records that `diff` capabilities at `(source, time)` are folded into the tracker.
  void fold_source(Source source, const T& time, std::int64_t diff) {
    if (source.node == 0 || diff == 0) return;  // the parent's frontier: not an operator's
    const auto key = std::make_pair(source, time);
    auto it = counts_.find(key);
    if (it == counts_.end()) it = counts_.emplace(key, 0).first;
    it->second += diff;
    if (it->second < 0) negative_.push_back(key);
    if (it->second == 0) counts_.erase(it);
  }

  /// After a fold: \throws ProgressError if some operator output holds a negative number of
  /// capabilities.
  void check_counts() {
    for (const auto& key : negative_) {
      auto it = counts_.find(key);
      if (it == counts_.end() || it->second >= 0) continue;
      const auto& [source, time] = key;
      const auto count = it->second;
      negative_.clear();
      throw ProgressError("timely: progress error in scope '" + scope_ +
                          "': " + describe_operator(source.node) + " holds " + std::to_string(count) +
                          " capabilities at output " + std::to_string(source.port) + ", time " +
                          describe(time) + " (a capability dropped more often than it was created)");
    }
    negative_.clear();
  }

  /// After operator `index` ran and before its reports are extracted: \throws ProgressError if
  /// a positive capability or produced delta in `progress` is not justified (file comment).
  /// `implications(o)` is the tracker's implication frontier at output `o`; `unsent` are the
  /// batches this worker has collected but not folded yet.
  template <class Implications>
  void check_batch(std::size_t index, SharedProgress<T>& progress, Implications&& implications,
                   ChangeBatch<Pointstamp<T>>& unsent_local, ChangeBatch<Pointstamp<T>>& unsent_final) {
    for (auto& consumed : progress.consumeds) consumed.compact();
    unsent_indexed_ = false;
    for (std::size_t o = 0; o < progress.internals.size(); ++o) {
      for (const auto& [time, diff] : progress.internals[o].view())
        if (diff > 0)
          check_one(index, o, time, diff, "capabilities", progress, implications, unsent_local, unsent_final);
      for (const auto& [time, diff] : progress.produceds[o].view())
        if (diff > 0)
          check_one(index, o, time, diff, "records produced", progress, implications, unsent_local,
                    unsent_final);
    }
  }

 private:
  struct Operator {
    std::string name;
    Connectivity<Summary> connectivity;
    // reaching[o]: the inputs connected to output o.
    std::vector<std::vector<std::size_t>> reaching;
  };

  template <class Implications>
  void check_one(std::size_t index, std::size_t output, const T& time, std::int64_t diff, const char* what,
                 SharedProgress<T>& progress, Implications& implications,
                 ChangeBatch<Pointstamp<T>>& unsent_local, ChangeBatch<Pointstamp<T>>& unsent_final) {
    // A record consumed in this batch at an input that reaches `output` no later than `time`.
    const auto& op = operators_[index];
    if (output < op.reaching.size())
      for (const std::size_t i : op.reaching[output]) {
        const auto* summaries = op.connectivity[i].get(output);
        if (i >= progress.consumeds.size() || !summaries) continue;
        for (const auto& [t0, n] : progress.consumeds[i].raw()) {
          if (n <= 0) continue;
          for (const auto& s : *summaries)
            if (auto reached = timely::results_in<T>(s, t0); reached && timely::less_equal(*reached, time))
              return;
        }
      }
    // What the tracker knows could still reach `output`, capabilities held there included.
    const Antichain<T>& implied = implications(output);
    if (implied.less_equal(time)) return;
    // A capability this worker holds at `output` whose creation is not broadcast yet.
    // Indexed by location once per batch, on first need: a scan per delta would be quadratic.
    if (!unsent_indexed_) {
      unsent_.clear();
      for (auto* batch : {&unsent_local, &unsent_final})
        for (const auto& [key, count] : batch->view())
          if (count > 0) unsent_.push_back(&key);
      std::sort(unsent_.begin(), unsent_.end(),
                [](const auto* a, const auto* b) { return a->first < b->first; });
      unsent_indexed_ = true;
    }
    const Location at = Location::of(Source{index, output});
    auto first = std::lower_bound(unsent_.begin(), unsent_.end(), at,
                                  [](const auto* key, const Location& l) { return key->first < l; });
    for (; first != unsent_.end() && (*first)->first == at; ++first)
      if (timely::less_equal((*first)->second, time)) return;

    std::string consumed;
    for (std::size_t i = 0; i < progress.consumeds.size(); ++i)
      for (const auto& [t0, n] : progress.consumeds[i].raw())
        consumed += (consumed.empty() ? "" : ", ") + std::string("input ") + std::to_string(i) + " time " +
                    describe(t0) + " count " + std::to_string(n);
    std::string frontier;
    for (const auto& t : implied) frontier += (frontier.empty() ? "" : ", ") + describe(t);
    throw ProgressError("timely: progress error in scope '" + scope_ + "': " + describe_operator(index) +
                        " reports +" + std::to_string(diff) + " " + what + " at output " +
                        std::to_string(output) + ", time " + describe(time) +
                        ", which nothing justifies: no connected input consumed at or before it in the same "
                        "batch (consumed: " +
                        (consumed.empty() ? std::string("none") : consumed) +
                        "), and neither a capability nor an implication at that output is at or before it "
                        "(implications: {" +
                        frontier + "})");
  }

  std::string scope_;
  scheduling::Path address_;
  std::vector<Operator> operators_;  // by operator index; 0 is the boundary
  // Capabilities per operator output and time, as folded into the tracker (zeros removed).
  std::map<std::pair<Source, T>, std::int64_t> counts_;
  std::vector<std::pair<Source, T>> negative_;  // keys that went negative since the last check
  std::vector<const Pointstamp<T>*> unsent_;    // positive unsent entries, by location
  bool unsent_indexed_ = false;
};

}  // namespace timely::progress
