// The JSON form of a Snapshot (timely/observe/model.hpp), with Boost.JSON compiled into this
// translation unit alone (its header-only mode: boost/json/src.hpp).
#include <timely/observe/model.hpp>

#include <boost/json/src.hpp>

#include <limits>

namespace timely::observe {

namespace json = boost::json;

namespace {

// --- writing -----------------------------------------------------------------------------------

json::array indices(const std::vector<std::size_t>& v) {
  json::array a;
  for (auto x : v) a.emplace_back(static_cast<std::uint64_t>(x));
  return a;
}

json::array pair(std::pair<std::size_t, std::size_t> p) {
  return json::array{static_cast<std::uint64_t>(p.first), static_cast<std::uint64_t>(p.second)};
}

std::int64_t ns(Nanos t) { return t.count(); }

json::value write(const Snapshot& s) {
  json::object root;
  root["now_ns"] = ns(s.now);
  auto& workers = root["workers"].emplace_array();
  for (const auto& w : s.workers)
    workers.emplace_back(json::object{{"worker", static_cast<std::uint64_t>(w.worker)},
                                      {"busy_ns", ns(w.busy)},
                                      {"parked_ns", ns(w.parked)},
                                      {"last_event_ns", ns(w.last_event)},
                                      {"is_parked", w.is_parked}});
  auto& operators = root["operators"].emplace_array();
  for (const auto& o : s.operators) {
    json::array frontiers;
    for (const auto& f : o.input_frontiers) {
      json::array times;
      for (auto t : f) times.emplace_back(t);
      frontiers.emplace_back(std::move(times));
    }
    json::array capabilities;
    for (const auto& port : o.capabilities) {
      json::array held;
      for (const auto& [time, count] : port) held.emplace_back(json::array{time, count});
      capabilities.emplace_back(std::move(held));
    }
    operators.emplace_back(json::object{{"worker", static_cast<std::uint64_t>(o.worker)},
                                        {"id", static_cast<std::uint64_t>(o.id)},
                                        {"address", indices(o.address)},
                                        {"name", o.name},
                                        {"schedules", o.schedules},
                                        {"busy_ns", ns(o.busy)},
                                        {"records_in", o.records_in},
                                        {"records_out", o.records_out},
                                        {"input_frontiers", std::move(frontiers)},
                                        {"capabilities", std::move(capabilities)},
                                        {"shut_down", o.shut_down}});
  }
  auto& channels = root["channels"].emplace_array();
  for (const auto& c : s.channels)
    channels.emplace_back(json::object{{"id", static_cast<std::uint64_t>(c.id)},
                                       {"scope_address", indices(c.scope_address)},
                                       {"source", pair(c.source)},
                                       {"target", pair(c.target)},
                                       {"container", c.container},
                                       {"records", c.records},
                                       {"batches", c.batches}});
  auto& timeline = root["timeline"].emplace_array();
  for (const auto& t : s.timeline)
    timeline.emplace_back(json::object{{"worker", static_cast<std::uint64_t>(t.worker)},
                                       {"id", static_cast<std::uint64_t>(t.id)},
                                       {"start_ns", ns(t.start)},
                                       {"stop_ns", ns(t.stop)}});
  auto& peers = root["peers"].emplace_array();
  for (const auto& p : s.peers)
    peers.emplace_back(json::object{{"process", static_cast<std::uint64_t>(p.process)},
                                    {"peer", static_cast<std::uint64_t>(p.peer)},
                                    {"bytes_sent", p.bytes_sent},
                                    {"bytes_received", p.bytes_received},
                                    {"frames_sent", p.frames_sent},
                                    {"frames_received", p.frames_received},
                                    {"connected", p.connected}});
  return root;
}

// --- reading: every accessor names the field it reads in its errors ----------------------------

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw SnapshotFormatError("snapshot JSON: " + path + " " + what);
}

const json::value& member(const json::object& o, const std::string& path, const char* name) {
  auto it = o.find(name);
  if (it == o.end()) fail(path + "." + name, "is missing");
  return it->value();
}

const json::object& object(const json::value& v, const std::string& path) {
  if (!v.is_object()) fail(path, "is not an object");
  return v.get_object();
}

const json::array& array(const json::value& v, const std::string& path) {
  if (!v.is_array()) fail(path, "is not an array");
  return v.get_array();
}

std::uint64_t u64(const json::value& v, const std::string& path) {
  if (v.is_uint64()) return v.get_uint64();
  if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
  fail(path, "is not an unsigned integer");
}

std::int64_t i64(const json::value& v, const std::string& path) {
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64() && v.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(v.get_uint64());
  fail(path, "is not a 64-bit signed integer");
}

bool boolean(const json::value& v, const std::string& path) {
  if (!v.is_bool()) fail(path, "is not a boolean");
  return v.get_bool();
}

std::string string(const json::value& v, const std::string& path) {
  if (!v.is_string()) fail(path, "is not a string");
  return std::string(v.get_string());
}

// A reader of one object's fields, with the object's path for errors.
struct Fields {
  const json::object& o;
  std::string path;
  Fields(const json::value& v, std::string p) : o(object(v, p)), path(std::move(p)) {}
  [[nodiscard]] std::string at(const char* name) const { return path + "." + name; }
  [[nodiscard]] const json::value& get(const char* name) const { return member(o, path, name); }
  [[nodiscard]] std::uint64_t u(const char* name) const { return u64(get(name), at(name)); }
  [[nodiscard]] std::size_t index(const char* name) const { return static_cast<std::size_t>(u(name)); }
  [[nodiscard]] Nanos time(const char* name) const { return Nanos(i64(get(name), at(name))); }
  [[nodiscard]] bool flag(const char* name) const { return boolean(get(name), at(name)); }
  [[nodiscard]] std::string text(const char* name) const { return string(get(name), at(name)); }
  [[nodiscard]] const json::array& list(const char* name) const { return array(get(name), at(name)); }
  [[nodiscard]] std::vector<std::size_t> indices(const char* name) const {
    std::vector<std::size_t> out;
    const auto& a = list(name);
    for (std::size_t i = 0; i < a.size(); ++i)
      out.push_back(static_cast<std::size_t>(u64(a[i], at(name) + "[" + std::to_string(i) + "]")));
    return out;
  }
  [[nodiscard]] std::pair<std::size_t, std::size_t> pair(const char* name) const {
    const auto& a = list(name);
    if (a.size() != 2) fail(at(name), "has " + std::to_string(a.size()) + " elements, not 2");
    return {static_cast<std::size_t>(u64(a[0], at(name) + "[0]")),
            static_cast<std::size_t>(u64(a[1], at(name) + "[1]"))};
  }
};

// Calls `f(Fields, i)` for each element of array `name` of `root`.
template <class F>
void each(const Fields& root, const char* name, F f) {
  const auto& a = root.list(name);
  for (std::size_t i = 0; i < a.size(); ++i) f(Fields(a[i], root.at(name) + "[" + std::to_string(i) + "]"));
}

Snapshot read(const json::value& v) {
  Fields root(v, "snapshot");
  Snapshot s;
  s.now = root.time("now_ns");
  each(root, "workers", [&](const Fields& f) {
    s.workers.push_back(WorkerState{f.index("worker"), f.time("busy_ns"), f.time("parked_ns"),
                                    f.time("last_event_ns"), f.flag("is_parked")});
  });
  each(root, "operators", [&](const Fields& f) {
    OperatorState o;
    o.worker = f.index("worker");
    o.id = f.index("id");
    o.address = f.indices("address");
    o.name = f.text("name");
    o.schedules = f.u("schedules");
    o.busy = f.time("busy_ns");
    o.records_in = f.u("records_in");
    o.records_out = f.u("records_out");
    const auto& frontiers = f.list("input_frontiers");
    for (std::size_t p = 0; p < frontiers.size(); ++p) {
      const std::string path = f.at("input_frontiers") + "[" + std::to_string(p) + "]";
      auto& frontier = o.input_frontiers.emplace_back();
      const auto& times = array(frontiers[p], path);
      for (std::size_t i = 0; i < times.size(); ++i)
        frontier.push_back(u64(times[i], path + "[" + std::to_string(i) + "]"));
    }
    const auto& capabilities = f.list("capabilities");
    for (std::size_t p = 0; p < capabilities.size(); ++p) {
      const std::string path = f.at("capabilities") + "[" + std::to_string(p) + "]";
      auto& held = o.capabilities.emplace_back();
      const auto& entries = array(capabilities[p], path);
      for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string at = path + "[" + std::to_string(i) + "]";
        const auto& entry = array(entries[i], at);
        if (entry.size() != 2)
          fail(at, "has " + std::to_string(entry.size()) + " elements, not 2 (time, count)");
        held.emplace_back(u64(entry[0], at + "[0]"), i64(entry[1], at + "[1]"));
      }
    }
    o.shut_down = f.flag("shut_down");
    s.operators.push_back(std::move(o));
  });
  each(root, "channels", [&](const Fields& f) {
    s.channels.push_back(ChannelState{f.index("id"), f.indices("scope_address"), f.pair("source"),
                                      f.pair("target"), f.text("container"), f.u("records"), f.u("batches")});
  });
  each(root, "timeline", [&](const Fields& f) {
    s.timeline.push_back(
        ScheduleSpan{f.index("worker"), f.index("id"), f.time("start_ns"), f.time("stop_ns")});
  });
  each(root, "peers", [&](const Fields& f) {
    s.peers.push_back(PeerState{f.index("process"), f.index("peer"), f.u("bytes_sent"), f.u("bytes_received"),
                                f.u("frames_sent"), f.u("frames_received"), f.flag("connected")});
  });
  return s;
}

}  // namespace

std::string to_json(const Snapshot& snapshot) { return json::serialize(write(snapshot)); }

Snapshot snapshot_from_json(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) throw SnapshotFormatError("snapshot JSON: not JSON (" + ec.message() + ")");
  return read(v);
}

}  // namespace timely::observe
