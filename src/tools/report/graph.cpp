// The dataflow graph of a snapshot as DOT, and laid out as SVG by Graphviz (cgraph + gvc).
#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "report.hpp"

namespace timely::report {

std::string dotted(const std::vector<std::size_t>& address) {
  std::string out;
  for (std::size_t i = 0; i < address.size(); ++i) {
    if (i > 0) out += '.';
    out += std::to_string(address[i]);
  }
  return out;
}

std::map<std::vector<std::size_t>, OperatorTotals> operator_totals(const observe::Snapshot& snapshot) {
  std::map<std::vector<std::size_t>, OperatorTotals> totals;
  for (const auto& o : snapshot.operators) {
    if (o.address.empty()) continue;  // seen only through frontier events, never announced
    auto& t = totals[o.address];
    t.address = o.address;
    if (t.name.empty()) t.name = o.name;
    ++t.workers;
    t.schedules += o.schedules;
    t.busy += o.busy;
    t.records_in += o.records_in;
    t.records_out += o.records_out;
    if (o.shut_down) ++t.shut_down;
  }
  for (auto& [address, t] : totals) {
    if (address.size() == 1) t.is_scope = true;  // a dataflow
    if (address.size() > 1) {
      auto parent = totals.find(std::vector<std::size_t>(address.begin(), address.end() - 1));
      if (parent != totals.end()) parent->second.is_scope = true;
    }
  }
  return totals;
}

namespace {

// A DOT double-quoted string: quotes and backslashes escaped, a line feed as DOT's centred line
// break, a carriage return dropped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\r') continue;
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string op_id(const std::vector<std::size_t>& a) { return "op_" + dotted(a); }
std::string in_id(const std::vector<std::size_t>& a) { return "in_" + dotted(a); }
std::string out_id(const std::vector<std::size_t>& a) { return "out_" + dotted(a); }

class DotWriter {
 public:
  explicit DotWriter(const observe::Snapshot& s) : snapshot_(s), totals_(operator_totals(s)) {}

  std::string write() {
    // Edges first: they decide which boundary nodes and unannounced operators exist.
    std::ostringstream edges;
    for (const auto& c : snapshot_.channels) {
      if (c.container.empty()) continue;  // never seen built: no place in the graph
      auto [from, ltail] = end_of(c.scope_address, c.source.first, true);
      auto [to, lhead] = end_of(c.scope_address, c.target.first, false);
      edges << "  " << quoted(from) << " -> " << quoted(to) << " [label=" << quoted(thousands(c.records))
            << ", id=" << quoted("ch-" + std::to_string(c.id)) << ", tooltip="
            << quoted("channel " + std::to_string(c.id) + ": " + std::to_string(c.records) + " records in " +
                      std::to_string(c.batches) + " batches (" + c.container + ")");
      if (!ltail.empty()) edges << ", ltail=" << quoted(ltail);
      if (!lhead.empty()) edges << ", lhead=" << quoted(lhead);
      edges << "];\n";
    }
    std::ostringstream out;
    out << "digraph dataflow {\n"
           "  graph [compound=true, rankdir=LR, fontname=\"Helvetica,Arial,sans-serif\", fontsize=11, "
           "nodesep=0.3, ranksep=0.4];\n"
           "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#e8f0fb\", color=\"#4a6fa5\", "
           "fontname=\"Helvetica,Arial,sans-serif\", fontsize=10];\n"
           "  edge [color=\"#555555\", fontname=\"Helvetica,Arial,sans-serif\", fontsize=9];\n";
    for (const auto& [address, t] : totals_)
      if (address.size() == 1) cluster(out, t, 1);
    for (const auto& line : orphans_) out << "  " << line << "\n";
    out << edges.str() << "}\n";
    return out.str();
  }

 private:
  // The DOT node for node `node` of the scope at `scope`, as a channel's source or target, and
  // the cluster the edge is clipped at when that node is a scope of its own.
  std::pair<std::string, std::string> end_of(const std::vector<std::size_t>& scope, std::size_t node,
                                             bool is_source) {
    if (node == 0) {  // the scope's own boundary, seen from inside
      auto& b = boundaries_[scope];
      (is_source ? b.first : b.second) = true;
      return {is_source ? in_id(scope) : out_id(scope), ""};
    }
    auto address = scope;
    address.push_back(node);
    auto it = totals_.find(address);
    if (it == totals_.end()) {
      if (unknown_.insert(address).second)
        orphans_.push_back(
            quoted(op_id(address)) + " [label=" +
            quoted("node " + std::to_string(node) + " of scope " + dotted(scope) + " (unannounced)") +
            ", style=dashed];");
      return {op_id(address), ""};
    }
    if (!it->second.is_scope) return {op_id(address), ""};
    // An edge into a scope ends at its inputs' node, one out of it starts at its outputs'.
    auto& b = boundaries_[address];
    (is_source ? b.second : b.first) = true;
    return {is_source ? out_id(address) : in_id(address), "cluster_" + dotted(address)};
  }

  void cluster(std::ostringstream& out, const OperatorTotals& scope, int depth) {
    const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
    out << pad << "subgraph " << quoted("cluster_" + dotted(scope.address)) << " {\n"
        << pad << "  label=" << quoted(scope.name + " " + dotted(scope.address))
        << "; id=" << quoted("scope-" + dotted(scope.address)) << "; style=\"rounded\"; color=\"#8899aa\"; "
        << "bgcolor=\"" << (depth % 2 == 1 ? "#fafafa" : "#f0f2f5") << "\";\n";
    // The boundary nodes exist for a scope with channels across it, and for every dataflow.
    auto b = boundaries_.find(scope.address);
    if (b != boundaries_.end() && b->second.first)
      out << pad << "  " << quoted(in_id(scope.address))
          << " [label=\"inputs\", shape=invhouse, style=filled, fillcolor=\"#ffffff\", fontsize=8];\n";
    if (b != boundaries_.end() && b->second.second)
      out << pad << "  " << quoted(out_id(scope.address))
          << " [label=\"outputs\", shape=house, style=filled, fillcolor=\"#ffffff\", fontsize=8];\n";
    bool empty = b == boundaries_.end();
    for (const auto& [address, t] : totals_) {
      if (address.size() != scope.address.size() + 1 ||
          !std::equal(scope.address.begin(), scope.address.end(), address.begin()))
        continue;
      empty = false;
      if (t.is_scope) {
        cluster(out, t, depth + 1);
      } else {
        out << pad << "  " << quoted(op_id(address)) << " [label=" << quoted(t.name + "\n" + dotted(address))
            << ", id=" << quoted("op-" + dotted(address)) << ", tooltip="
            << quoted(t.name + ": " + std::to_string(t.schedules) + " schedulings, " +
                      std::to_string(t.records_in) + " records in, " + std::to_string(t.records_out) + " out")
            << "];\n";
      }
    }
    // Graphviz draws no empty cluster: a scope with nothing in it shows as a plain node.
    if (empty)
      out << pad << "  " << quoted(in_id(scope.address)) << " [label=\"(empty)\", shape=plaintext];\n";
    out << pad << "}\n";
  }

  const observe::Snapshot& snapshot_;
  std::map<std::vector<std::size_t>, OperatorTotals> totals_;
  std::map<std::vector<std::size_t>, std::pair<bool, bool>> boundaries_;  // (inputs, outputs) used
  std::set<std::vector<std::size_t>> unknown_;
  std::vector<std::string> orphans_;
};

}  // namespace

std::string to_dot(const observe::Snapshot& snapshot) { return DotWriter(snapshot).write(); }

std::string layout_svg(const std::string& dot) {
  std::unique_ptr<GVC_t, int (*)(GVC_t*)> gvc(gvContext(), gvFreeContext);
  if (!gvc) throw std::runtime_error("Graphviz: cannot make a context");
  std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(agmemread(dot.c_str()), agclose);
  if (!graph) throw std::runtime_error("Graphviz: cannot read the graph's DOT");
  if (gvLayout(gvc.get(), graph.get(), "dot") != 0)
    throw std::runtime_error("Graphviz: the dot layout failed (are Graphviz's plugins installed?)");
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = gvRenderData(gvc.get(), graph.get(), "svg", &data, &length);
  std::string svg = data != nullptr ? std::string(data, length) : std::string();
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(gvc.get(), graph.get());
  if (rc != 0 || svg.empty()) throw std::runtime_error("Graphviz: cannot render the graph as SVG");
  // The element alone, for embedding in HTML (no XML prolog, no DOCTYPE, no comments before it).
  const auto start = svg.find("<svg");
  if (start == std::string::npos) throw std::runtime_error("Graphviz: its SVG has no <svg> element");
  return svg.substr(start);
}

}  // namespace timely::report
