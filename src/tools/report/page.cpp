// The report page: report.html with its {{...}} parts filled in from a snapshot.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "report.hpp"

namespace timely::report {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ms(observe::Nanos t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(t.count()) / 1e6);
  return buf;
}

// A numeric cell: shown as `text`, sorted by `value`.
std::string num(const std::string& cls, long long value, const std::string& text) {
  return "<td class=\"num " + cls + "\" data-value=\"" + std::to_string(value) + "\">" + escape(text) +
         "</td>";
}
std::string num(const std::string& cls, std::uint64_t value) {
  return num(cls, static_cast<long long>(value), std::to_string(value));
}

// Fills the template's markers in the order they appear, each searched after the text put in
// for the one before (a name in that text may look like a marker).
class Filler {
 public:
  explicit Filler(std::string page) : page_(std::move(page)) {}
  void fill(const std::string& marker, const std::string& text) {
    const auto at = page_.find(marker, from_);
    if (at == std::string::npos) throw std::logic_error("report template: no " + marker + " where expected");
    page_.replace(at, marker.size(), text);
    from_ = at + text.size();
  }
  std::string take() { return std::move(page_); }

 private:
  std::string page_;
  std::size_t from_ = 0;
};

std::string operators_table(const std::map<std::vector<std::size_t>, OperatorTotals>& totals) {
  std::ostringstream out;
  out << "<table class=\"sortable\" id=\"operators\"><thead><tr><th>operator</th><th>address</th>"
         "<th class=\"num\">workers</th><th class=\"num\">invocations</th><th class=\"num\">time</th>"
         "<th class=\"num\">records in</th><th class=\"num\">records "
         "out</th><th>state</th></tr></thead><tbody>\n";
  for (const auto& [address, t] : totals) {
    out << "<tr class=\"operator\" data-name=\"" << escape(t.name) << "\" data-address=\"" << dotted(address)
        << "\"><td class=\"name\" style=\"padding-left:" << 10 + 14 * (address.size() - 1) << "px\">"
        << escape(t.name) << "</td><td class=\"address\">" << dotted(address) << "</td>"
        << num("workers", t.workers) << num("schedules", t.schedules)
        << num("busy", t.busy.count(), ms(t.busy)) << num("records-in", t.records_in)
        << num("records-out", t.records_out) << "<td class=\"state\">"
        << (t.shut_down == t.workers ? "shut down"
                                     : std::to_string(t.workers - t.shut_down) + " of " +
                                           std::to_string(t.workers) + " still running")
        << "</td></tr>\n";
  }
  out << "</tbody></table>";
  return out.str();
}

std::string workers_table(const observe::Snapshot& s) {
  std::ostringstream out;
  out << "<table class=\"sortable\" id=\"workers\"><thead><tr><th class=\"num\">worker</th>"
         "<th class=\"num\">busy</th><th class=\"num\">parked</th><th class=\"num\">other</th>"
         "<th class=\"num\">last event</th></tr></thead><tbody>\n";
  for (const auto& w : s.workers) {
    const auto other = std::max(observe::Nanos(0), w.last_event - w.busy - w.parked);
    out << "<tr class=\"worker\" data-worker=\"" << w.worker << "\">"
        << num("worker", static_cast<std::uint64_t>(w.worker)) << num("busy", w.busy.count(), ms(w.busy))
        << num("parked", w.parked.count(), ms(w.parked)) << num("other", other.count(), ms(other))
        << num("last-event", w.last_event.count(), ms(w.last_event)) << "</tr>\n";
  }
  out << "</tbody></table><p>Busy: inside a dataflow's scheduling; other: stepping with nothing "
         "scheduled, and the time before the first event.</p>";
  return out.str();
}

std::string files_table(const std::vector<LogInput>& inputs) {
  std::ostringstream out;
  out << "<table id=\"files\"><thead><tr><th>file</th><th class=\"num\">process</th>"
         "<th class=\"num\">worker</th><th class=\"num\">events</th><th>state</th></tr></thead><tbody>\n";
  for (const auto& in : inputs)
    out << "<tr class=\"file " << (in.closed ? "closed" : "unclosed") << "\"><td><code>"
        << escape(in.path.string()) << "</code></td>" << num("process", in.process)
        << num("worker", static_cast<std::uint64_t>(in.global_worker)) << num("events", in.events) << "<td>"
        << (in.closed           ? std::string("closed")
            : in.torn_bytes > 0 ? "unclosed (its writer did not finish; the last " +
                                      std::to_string(in.torn_bytes) + " bytes, a torn frame, are left out)"
                                : std::string("unclosed (its writer did not finish)"))
        << "</td></tr>\n";
  out << "</tbody></table>";
  return out.str();
}

std::string times(const std::vector<std::pair<std::uint64_t, std::int64_t>>& held) {
  std::string out;
  for (const auto& [time, count] : held) {
    if (!out.empty()) out += ", ";
    out += std::to_string(time);
    if (count != 1) out += " (\u00d7" + std::to_string(count) + ")";
  }
  return out;
}

// The capabilities still held and the inputs not complete at the end, or a line saying none.
std::string frontiers(const observe::Snapshot& s) {
  std::map<std::pair<std::size_t, std::size_t>, bool> dataflow_done;  // (worker, dataflow index)
  for (const auto& o : s.operators)
    if (o.address.size() == 1) dataflow_done[{o.worker, o.address[0]}] = o.shut_down;
  std::ostringstream held, open;
  std::size_t n_held = 0, n_open = 0;
  for (const auto& o : s.operators) {
    std::string where = "<td class=\"name\">" + escape(o.name.empty() ? "(unannounced)" : o.name) +
                        "</td><td class=\"address\">" + dotted(o.address) + "</td>" +
                        num("worker", static_cast<std::uint64_t>(o.worker));
    std::string dataflow = "running";
    if (!o.address.empty()) {
      auto it = dataflow_done.find({o.worker, o.address[0]});
      if (it != dataflow_done.end() && it->second) dataflow = "shut down (dropped) while held";
    }
    for (std::size_t port = 0; port < o.capabilities.size(); ++port) {
      if (o.capabilities[port].empty()) continue;
      ++n_held;
      held << "<tr class=\"held\" data-name=\"" << escape(o.name) << "\" data-address=\"" << dotted(o.address)
           << "\" data-worker=\"" << o.worker << "\" data-port=\"" << port << "\">" << where
           << num("port", static_cast<std::uint64_t>(port)) << "<td class=\"times\">"
           << times(o.capabilities[port]) << "</td><td class=\"dataflow\">" << dataflow << "</td></tr>\n";
    }
    for (std::size_t port = 0; port < o.input_frontiers.size(); ++port) {
      if (o.input_frontiers[port].empty()) continue;
      ++n_open;
      std::string frontier;
      for (auto t : o.input_frontiers[port]) frontier += (frontier.empty() ? "" : ", ") + std::to_string(t);
      open << "<tr class=\"open-input\" data-name=\"" << escape(o.name) << "\" data-address=\""
           << dotted(o.address) << "\" data-worker=\"" << o.worker << "\">" << where
           << num("port", static_cast<std::uint64_t>(port)) << "<td class=\"frontier\">{" << frontier
           << "}</td></tr>\n";
    }
  }
  if (n_held == 0 && n_open == 0)
    return "<p id=\"frontiers-complete\" class=\"ok\">Every frontier completed: no operator held a "
           "capability and every input was complete at the end of the log.</p>";
  std::ostringstream out;
  out << "<p class=\"bad\" id=\"frontiers-unfinished\">The log ends with unfinished frontiers: " << n_held
      << " output port(s) still held capabilities, and " << n_open
      << " input(s) had not completed. The capabilities below (u64 times, per worker) are what held "
         "them.</p>\n";
  if (n_held > 0)
    out << "<h3>Capabilities held</h3><table class=\"sortable\" id=\"held\"><thead><tr><th>operator</th>"
           "<th>address</th><th class=\"num\">worker</th><th class=\"num\">output port</th><th>times</th>"
           "<th>dataflow</th></tr></thead><tbody>\n"
        << held.str() << "</tbody></table>\n";
  if (n_open > 0)
    out << "<h3>Inputs not complete</h3><table class=\"sortable\" id=\"open-inputs\"><thead><tr>"
           "<th>operator</th><th>address</th><th class=\"num\">worker</th><th class=\"num\">input port</th>"
           "<th>frontier</th></tr></thead><tbody>\n"
        << open.str() << "</tbody></table>\n";
  return out.str();
}

// A JSON string (the names are the program's own: quotes, backslashes and controls escaped; "</"
// as "<\/", so that the text cannot end the <script> element holding it).
std::string json_string(const std::string& s) {
  std::string out = "\"";
  char prev = 0;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else if (c == '/' && prev == '<') {
      out += "\\/";
    } else {
      out += c;
    }
    prev = c;
  }
  return out + "\"";
}

// What the script needs: workers, operators (name, address, depth) and spans referring to them.
std::string script_data(const observe::Snapshot& s) {
  std::ostringstream out;
  out << "{\"workers\":[";
  for (std::size_t i = 0; i < s.workers.size(); ++i) out << (i ? "," : "") << s.workers[i].worker;
  out << "],\"operators\":[";
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> index;  // (worker, id) -> position
  for (const auto& o : s.operators) {
    out << (index.empty() ? "" : ",") << "{\"name\":" << json_string(o.name) << ",\"address\":\""
        << dotted(o.address) << "\",\"depth\":" << std::max<std::size_t>(1, o.address.size()) << "}";
    index.emplace(std::pair{o.worker, o.id}, index.size());
  }
  out << "],\"spans\":[";
  bool first = true;
  for (const auto& span : s.timeline) {
    auto it = index.find({span.worker, span.id});
    if (it == index.end()) continue;
    out << (first ? "" : ",") << "[" << span.worker << "," << it->second << "," << span.start.count() << ","
        << span.stop.count() << "]";
    first = false;
  }
  out << "]}";
  return out.str();
}

}  // namespace

std::string render_page(const observe::Snapshot& s, const std::vector<LogInput>& inputs,
                        const std::string& svg) {
  const auto totals = operator_totals(s);
  std::size_t unclosed = 0;
  for (const auto& in : inputs)
    if (!in.closed) ++unclosed;
  std::string title =
      inputs.size() == 1 ? inputs[0].path.filename().string() : std::to_string(inputs.size()) + " log files";
  std::ostringstream subtitle;
  subtitle << s.workers.size() << " worker(s), " << totals.size() << " operator(s), " << s.channels.size()
           << " channel(s), " << ms(s.now) << " of log time";
  std::string notices;
  if (unclosed > 0)
    notices = "<p class=\"warning\" id=\"unclosed\">" + std::to_string(unclosed) + " of " +
              std::to_string(inputs.size()) +
              " log file(s) were not closed: their run crashed, was killed, or is still running. The report "
              "shows what they hold up to their last complete frame.</p>";
  Filler page(kPageTemplate);
  page.fill("{{TITLE}}", escape(title));
  page.fill("{{SUBTITLE}}", escape(subtitle.str()));
  page.fill("{{NOTICES}}", notices);
  page.fill("{{GRAPH}}", svg);
  page.fill("{{FRONTIERS}}", frontiers(s));
  page.fill("{{OPERATORS}}", operators_table(totals));
  page.fill("{{WORKERS}}", workers_table(s));
  page.fill("{{FILES}}", files_table(inputs));
  page.fill("{{DATA}}", script_data(s));
  return page.take();
}

}  // namespace timely::report
