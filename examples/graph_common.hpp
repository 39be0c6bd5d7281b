// What the graph examples (bfs, pagerank, unionfind) and their tests share: node and edge types,
// the edge-list reader, the deterministic random-graph generator, each worker's share of the
// edges, and the parsing of the examples' own flags.
//
// Edge lists are text: one "SRC DST" pair of node ids (decimal, 0 <= id < 2^32 - 1) per line,
// separated by spaces or tabs; blank lines and lines starting with '#' are ignored. A SNAP-style
// header comment "# Nodes: N ..." fixes the node count (ids must then be below N); without one
// the nodes are 0 .. (largest id). Edges are directed as listed; --undirected adds the reverse of
// every edge that is not a self-loop. Parallel edges are kept (they count twice everywhere).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <timely/communication/error.hpp>
#include <timely/execute.hpp>

#include "common.hpp"

namespace graphs {

using Node = std::uint32_t;
/// A directed edge (source, target).
using Edge = std::pair<Node, Node>;

/// Largest number of nodes a graph may have (ids are `Node`s).
inline constexpr std::uint64_t kMaxNodes = std::numeric_limits<Node>::max();

/// In every graph dataflow, node `v`'s state lives on worker `v % peers` (records about it are
/// exchanged with `v` as the route), at position `v / peers` of that worker's arrays. This is how
/// many nodes worker `index` of `peers` owns in a graph of `nodes` nodes.
inline std::size_t owned_count(std::uint64_t nodes, std::size_t index, std::size_t peers) {
  return nodes > index ? static_cast<std::size_t>((nodes - index + peers - 1) / peers) : 0;
}

/// `v / peers` for node ids, by a multiplication instead of a division (a division costs as
/// much as the rest of a graph loop's per-edge work). Exact for every 32-bit `v` and divisor:
/// Lemire, Kaser and Kurz, "Faster remainder by direct computation" (2019), section 3.
class SlotOf {
  __extension__ typedef unsigned __int128 Wide;  // __extension__: a GCC/Clang type, not ISO C++

 public:
  /// \pre 1 <= peers < 2^32.
  explicit SlotOf(std::size_t peers)
      : magic_(static_cast<Wide>(~std::uint64_t{0} / static_cast<std::uint32_t>(peers)) + 1) {}
  [[nodiscard]] std::size_t operator()(Node v) const noexcept {
    return static_cast<std::size_t>((magic_ * v) >> 64);
  }

 private:
  Wide magic_;  // ceil(2^64 / peers); 2^64 for one peer
};

// --- Random graphs ---------------------------------------------------------------------------

/// SplitMix64's output function: a bijection on 64-bit values with good avalanche.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Edge number `i` of the random graph on `nodes` nodes: both endpoints uniform (up to a bias of
/// at most nodes / 2^64). A pure function of (i, nodes), so every worker count and every run sees
/// the same graph.
inline Edge random_edge(std::uint64_t i, std::uint64_t nodes) {
  return {static_cast<Node>(mix64(2 * i) % nodes), static_cast<Node>(mix64(2 * i + 1) % nodes)};
}

// --- Edge lists ------------------------------------------------------------------------------

/// A graph read from a file: its node count and its edges as listed.
struct EdgeList {
  std::uint64_t nodes = 0;
  std::vector<Edge> edges;
};

namespace detail {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

/// Parses a decimal number at the start of `s` and removes it; nullopt if there is none, the
/// largest value if it is too large.
inline std::optional<std::uint64_t> take_number(std::string_view& s) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range)
    value = std::numeric_limits<std::uint64_t>::max();
  else if (ec != std::errc{} || end == s.data())
    return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return value;
}

/// The N of a "# Nodes: N ..." header comment (`line` starts after the '#'), if it is one.
inline std::optional<std::uint64_t> nodes_header(std::string_view line) {
  line = trim(line);
  constexpr std::string_view key = "Nodes:";
  if (line.substr(0, key.size()) != key) return std::nullopt;
  line.remove_prefix(key.size());
  line = trim(line);
  return take_number(line);
}

}  // namespace detail

/// Reads the edge list in `path` (format in this file's header).
/// \throws std::runtime_error naming the file, and the line for malformed content: a missing file,
/// a line that is not two ids, an id too large, an id not below the "# Nodes:" count.
inline EdgeList read_edge_list(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(status))
    throw std::runtime_error("graph file '" + path + "' is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open graph file '" + path + "'");
  std::string text;
  if (std::filesystem::is_regular_file(status)) {
    // One read into a string of the file's size (a character-at-a-time stream iterator costs
    // more than parsing the file does).
    text.resize(static_cast<std::size_t>(std::filesystem::file_size(path)));
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(file.gcount()));
  } else {
    // A pipe or a device: no size to ask for, so read until the end.
    text.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }
  if (file.bad()) throw std::runtime_error("cannot read graph file '" + path + "'");

  EdgeList graph;
  std::optional<std::uint64_t> declared;
  std::uint64_t largest = 0;
  std::size_t largest_line = 0;
  std::size_t line_number = 0;
  auto fail = [&](const std::string& what, std::string_view line) {
    std::string shown(line.substr(0, 80));
    throw std::runtime_error(path + ":" + std::to_string(line_number) + ": " + what + ", got '" + shown +
                             "'");
  };
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = detail::trim(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    ++line_number;
    if (line.empty()) continue;
    if (line.front() == '#') {
      if (auto n = detail::nodes_header(line.substr(1))) {
        if (declared) fail("a second '# Nodes:' header", line);
        if (*n > kMaxNodes) fail("too many nodes (at most " + std::to_string(kMaxNodes) + ")", line);
        declared = *n;
      }
      continue;
    }
    std::string_view rest = line;
    const auto src = detail::take_number(rest);
    const bool separated = !rest.empty() && detail::is_blank(rest.front());
    rest = detail::trim(rest);
    const auto dst = separated ? detail::take_number(rest) : std::nullopt;
    if (!src || !dst || !rest.empty()) fail("expected 'SRC DST' (two node ids)", line);
    if (*src >= kMaxNodes || *dst >= kMaxNodes)
      fail("node id too large (at most " + std::to_string(kMaxNodes - 1) + ")", line);
    if (declared && (*src >= *declared || *dst >= *declared))
      fail("node id not below the declared node count " + std::to_string(*declared), line);
    if (std::max(*src, *dst) >= largest) {
      largest = std::max(*src, *dst);
      largest_line = line_number;
    }
    graph.edges.emplace_back(static_cast<Node>(*src), static_cast<Node>(*dst));
  }
  if (declared && !graph.edges.empty() && largest >= *declared)  // the header came after this edge
    throw std::runtime_error(path + ":" + std::to_string(largest_line) + ": node id " +
                             std::to_string(largest) + " not below the declared node count " +
                             std::to_string(*declared));
  graph.nodes = declared ? *declared : (graph.edges.empty() ? 0 : largest + 1);
  return graph;
}

// --- The examples' input ---------------------------------------------------------------------

/// Where a graph example's edges come from: a file read up front and shared read-only by the
/// workers, or the random graph, which each worker generates its own part of.
class GraphInput {
 public:
  /// The random graph with `nodes` nodes and `edges` edges.
  static GraphInput random(std::uint64_t nodes, std::uint64_t edges, bool undirected) {
    if (nodes == 0 && edges > 0) throw timely::ConfigError("a random graph with edges needs NODES >= 1");
    if (nodes > kMaxNodes) throw timely::ConfigError("NODES must be at most " + std::to_string(kMaxNodes));
    GraphInput input;
    input.nodes_ = nodes;
    input.random_edges_ = edges;
    input.undirected_ = undirected;
    return input;
  }
  /// The graph in the edge-list file `path`. \throws what `read_edge_list` throws.
  static GraphInput file(const std::string& path, bool undirected) {
    GraphInput input;
    input.list_ = std::make_shared<const EdgeList>(read_edge_list(path));
    input.nodes_ = input.list_->nodes;
    input.undirected_ = undirected;
    return input;
  }

  [[nodiscard]] std::uint64_t nodes() const noexcept { return nodes_; }
  /// Edges as listed or generated (before --undirected adds reverse edges).
  [[nodiscard]] std::uint64_t edges() const { return list_ ? list_->edges.size() : random_edges_; }
  [[nodiscard]] bool undirected() const noexcept { return undirected_; }
  /// Calls `f(const Edge&)` for the edges that worker `index` of `peers` brings into the
  /// dataflow: every `peers`-th listed (or generated) edge, and its reverse with --undirected.
  /// The workers' shares partition the graph.
  template <class F>
  void for_each_edge(std::size_t index, std::size_t peers, F&& f) const {
    auto emit = [&](const Edge& e) {
      f(e);
      if (undirected_ && e.first != e.second) f(Edge{e.second, e.first});
    };
    if (list_) {
      for (std::size_t i = index; i < list_->edges.size(); i += peers) emit(list_->edges[i]);
    } else {
      for (std::uint64_t i = index; i < random_edges_; i += peers) emit(random_edge(i, nodes_));
    }
  }
  /// This worker's share as a vector.
  [[nodiscard]] std::vector<Edge> share(std::size_t index, std::size_t peers) const {
    std::vector<Edge> out;
    for_each_edge(index, peers, [&](const Edge& e) { out.push_back(e); });
    return out;
  }

 private:
  std::shared_ptr<const EdgeList> list_;
  std::uint64_t nodes_ = 0;
  std::uint64_t random_edges_ = 0;
  bool undirected_ = false;
};

/// The graph examples' own flags, taken out of argv before timely sees the rest.
struct Flags {
  std::optional<std::string> graph;
  std::optional<std::uint64_t> root;
  std::optional<std::uint64_t> iterations;
  bool undirected = false;
};

/// Which of the flags a program accepts.
enum FlagSet : unsigned { kGraph = 1, kRoot = 2, kIterations = 4, kUndirected = 8 };

/// Removes the flags in `accepted` (`--graph FILE`, `--root R`, `--iterations K`, `--undirected`;
/// `--flag=value` works too) from argv and hands the rest to `timely::Config::from_args`, which
/// rejects anything it does not know.
/// \throws timely::ConfigError for a missing or bad flag value or a repeated flag, and whatever
/// `Config::from_args` throws (HelpRequested for --help).
inline std::pair<Flags, timely::Config> parse_args(int argc, char** argv, unsigned accepted) {
  Flags flags;
  std::vector<const char*> rest;
  if (argc > 0) rest.push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {  // everything after is timely's or positional
      for (; i < argc; ++i) rest.push_back(argv[i]);
      break;
    }
    std::optional<std::string> inline_value;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = arg.substr(eq + 1);
      arg.resize(eq);
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= argc) throw timely::ConfigError(arg + " needs a value");
      return argv[++i];
    };
    auto once = [&](bool present) {
      if (present) throw timely::ConfigError(arg + " given twice");
    };
    if ((accepted & kGraph) && arg == "--graph") {
      once(flags.graph.has_value());
      flags.graph = value();
      if (flags.graph->empty()) throw timely::ConfigError("--graph needs a file name");
    } else if ((accepted & kRoot) && arg == "--root") {
      once(flags.root.has_value());
      flags.root = examples::parse_count(value(), "--root");
    } else if ((accepted & kIterations) && arg == "--iterations") {
      once(flags.iterations.has_value());
      flags.iterations = examples::parse_count(value(), "--iterations");
    } else if ((accepted & kUndirected) && arg == "--undirected" && !inline_value) {
      once(flags.undirected);
      flags.undirected = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  auto config = timely::Config::from_args(static_cast<int>(rest.size()), rest.data());
  return {std::move(flags), std::move(config)};
}

/// The graph a program runs on: `--graph FILE` (then no positional arguments), or the random
/// graph whose NODES and EDGES are the first two of the `random_positional` positional arguments
/// (named `names` in messages) the program takes in that mode; it reads any others itself.
/// \throws timely::ConfigError for a bad combination, std::runtime_error for a bad file.
inline GraphInput graph_from(const Flags& flags, const timely::Config& config, std::size_t random_positional,
                             const std::string& names) {
  const auto& pos = config.positional;
  if (flags.graph) {
    if (!pos.empty()) throw timely::ConfigError("unexpected argument '" + pos[0] + "' with --graph FILE");
    return GraphInput::file(*flags.graph, flags.undirected);
  }
  if (pos.size() != random_positional)
    throw timely::ConfigError("expected " + names + " (a random graph) or --graph FILE");
  return GraphInput::random(examples::parse_count(pos[0], "NODES"), examples::parse_count(pos[1], "EDGES"),
                            flags.undirected);
}

}  // namespace graphs
