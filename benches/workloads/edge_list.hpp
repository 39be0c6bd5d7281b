// What the graph baselines (bfs, unionfind, pagerank) share, without timely: the edge-list reader
// and the command line. The format is the one examples/graph_common.hpp reads: "SRC DST" per
// line, blank lines and '#' comments skipped, a "# Nodes: N" comment fixing the node count
// (otherwise largest id + 1); --undirected adds the reverse of every edge that is not a loop.
// Malformed input is reported, not repaired: a baseline that read a file differently from the
// example would compare nothing.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace baseline {

using Node = std::uint32_t;
using Edge = std::pair<Node, Node>;

struct Graph {
  std::uint64_t nodes = 0;
  std::vector<Edge> edges;
};

/// The flags of the graph examples' file mode (`--graph FILE`, `--root R`, `--iterations K`,
/// `--undirected`), as the examples spell them.
struct Args {
  std::string graph;
  std::uint64_t root = 0;
  std::uint64_t iterations = 20;
  bool undirected = false;
};

inline std::uint64_t parse_number(std::string_view text, const std::string& what) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty())
    throw std::invalid_argument("expected a whole number for " + what + ", got '" + std::string(text) + "'");
  return value;
}

/// \throws std::invalid_argument for an unknown flag, a missing value or no --graph.
inline Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--graph")
      args.graph = value();
    else if (arg == "--root")
      args.root = parse_number(value(), "--root");
    else if (arg == "--iterations")
      args.iterations = parse_number(value(), "--iterations");
    else if (arg == "--undirected")
      args.undirected = true;
    else
      throw std::invalid_argument("unknown argument '" + arg + "'");
  }
  if (args.graph.empty()) throw std::invalid_argument("expected --graph FILE");
  return args;
}

/// Reads `path`. \throws std::runtime_error naming the file and line of anything malformed.
inline Graph read_graph(const std::string& path, bool undirected) {
  std::string text;
  {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) throw std::runtime_error("cannot open graph file '" + path + "'");
    char buf[1 << 16];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) text.append(buf, n);
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) throw std::runtime_error("cannot read graph file '" + path + "'");
  }
  Graph graph;
  std::optional<std::uint64_t> declared;
  std::uint64_t largest = 0;
  std::size_t line_number = 0;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    ++line_number;
    while (!line.empty() && blank(line.front())) line.remove_prefix(1);
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    if (line.empty()) continue;
    auto bad = [&] {
      return std::runtime_error(path + ":" + std::to_string(line_number) + ": malformed line");
    };
    if (line.front() == '#') {
      line.remove_prefix(1);
      while (!line.empty() && blank(line.front())) line.remove_prefix(1);
      if (line.substr(0, 6) == "Nodes:") {
        line.remove_prefix(6);
        while (!line.empty() && blank(line.front())) line.remove_prefix(1);
        std::uint64_t n = 0;
        if (std::from_chars(line.data(), line.data() + line.size(), n).ec != std::errc{}) throw bad();
        declared = n;
      }
      continue;
    }
    std::uint64_t src = 0, dst = 0;
    const char* p = line.data();
    const char* const stop = line.data() + line.size();
    auto r = std::from_chars(p, stop, src);
    if (r.ec != std::errc{} || r.ptr == stop || !blank(*r.ptr)) throw bad();
    p = r.ptr;
    while (p < stop && blank(*p)) ++p;
    r = std::from_chars(p, stop, dst);
    if (r.ec != std::errc{} || r.ptr != stop || src >= 0xFFFFFFFFULL || dst >= 0xFFFFFFFFULL) throw bad();
    largest = std::max({largest, src, dst});
    graph.edges.emplace_back(static_cast<Node>(src), static_cast<Node>(dst));
    if (undirected && src != dst) graph.edges.emplace_back(static_cast<Node>(dst), static_cast<Node>(src));
  }
  graph.nodes = declared ? *declared : (graph.edges.empty() ? 0 : largest + 1);
  if (!graph.edges.empty() && largest >= graph.nodes)
    throw std::runtime_error(path + ": node id " + std::to_string(largest) +
                             " not below the declared count " + std::to_string(graph.nodes));
  return graph;
}

/// Compressed sparse rows: the out-edges of node v are targets[offsets[v] .. offsets[v + 1]), in
/// the order listed.
struct Csr {
  std::vector<std::size_t> offsets;
  std::vector<Node> targets;
};

inline Csr out_edges(const Graph& graph) {
  Csr csr;
  csr.offsets.assign(graph.nodes + 1, 0);
  for (const auto& e : graph.edges) ++csr.offsets[e.first + 1];
  for (std::size_t v = 0; v < graph.nodes; ++v) csr.offsets[v + 1] += csr.offsets[v];
  csr.targets.resize(graph.edges.size());
  auto fill = csr.offsets;
  for (const auto& [src, dst] : graph.edges) csr.targets[fill[src]++] = dst;
  return csr;
}

}  // namespace baseline
