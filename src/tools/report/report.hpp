// timely-report's parts: the log files read into a snapshot (main.cpp), the dataflow graph as DOT
// and as SVG laid out by Graphviz (graph.cpp), and the one self-contained HTML page (page.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <timely/observe/model.hpp>

namespace timely::report {

/// One log file read.
struct LogInput {
  std::filesystem::path path;
  std::uint64_t process = 0;
  std::uint64_t worker = 0;       ///< within its process, as the header says
  std::size_t global_worker = 0;  ///< in the computation
  std::uint64_t events = 0;       ///< events of the two streams read
  bool closed = false;            ///< the file had its end frame
  std::uint64_t torn_bytes = 0;   ///< bytes of a torn last frame left unread (an unclosed file)
};

/// One operator summed over the workers that ran it (same address on every worker).
struct OperatorTotals {
  std::vector<std::size_t> address;
  std::string name;
  std::size_t workers = 0;
  std::uint64_t schedules = 0;
  observe::Nanos busy{0};
  std::uint64_t records_in = 0;
  std::uint64_t records_out = 0;
  std::size_t shut_down = 0;  ///< on how many workers
  bool is_scope = false;      ///< some operator's address extends this one
};

/// The operators of `snapshot` by address, summed over workers.
std::map<std::vector<std::size_t>, OperatorTotals> operator_totals(const observe::Snapshot& snapshot);

/// `address` as "0.3.1".
std::string dotted(const std::vector<std::size_t>& address);

/// The dataflow graph: each dataflow and nested scope a cluster, holding its operators and two
/// boundary nodes (its inputs and outputs), each channel an edge labelled with its records.
std::string to_dot(const observe::Snapshot& snapshot);

/// `dot` laid out by Graphviz's "dot" engine, as an `<svg>` element (no XML prolog).
/// \throws std::runtime_error if Graphviz cannot read or lay it out.
std::string layout_svg(const std::string& dot);

/// The report page: `svg` (from layout_svg), the files read, and everything else from `snapshot`.
std::string render_page(const observe::Snapshot& snapshot, const std::vector<LogInput>& inputs,
                        const std::string& svg);

/// The page template (report.html, compiled in).
extern const char* const kPageTemplate;

}  // namespace timely::report
