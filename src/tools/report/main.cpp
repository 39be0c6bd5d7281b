// timely-report: one self-contained HTML page from the log files of a run.
//
//   timely-report LOGFILE... -o report.html [--dot graph.dot]
//
// Reads the files `--log-file PATTERN` wrote (one per worker; logging::FileReader, unclosed files
// and a torn last frame accepted and marked as such: a run killed mid-write or still running), folds their
// "timely" and "timely/frontier/u64" streams into an observe::Model, and writes the page: the dataflow graph
// laid out by Graphviz, a zoomable timeline of schedulings per worker, per-operator totals, and the
// capabilities that held any frontier still unfinished at the end. `--dot` also writes the graph's DOT.
// Errors (a file that cannot be read or is damaged, no files, bad arguments) go to standard error with exit
// status 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <timely/logging/file.hpp>
#include <timely/logging/timely_events.hpp>
#include <timely/observe/model.hpp>

#include "report.hpp"

namespace lg = timely::logging;
namespace ob = timely::observe;

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot create '" + path + "'");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

// Reads every file into `model`. Worker indices: the header's within its process, made global
// as process * W + worker, W the workers per process (every process runs as many).
std::vector<timely::report::LogInput> read_logs(const std::vector<std::string>& paths, ob::Model& model) {
  std::vector<timely::report::LogInput> inputs;
  std::uint64_t per_process = 1;
  // The workers of one process share one logging clock, so their headers name one start (up
  // to the microseconds between each sink's two clock readings): files of one process whose
  // starts lie further apart come from different runs.
  std::map<std::uint64_t, std::pair<std::filesystem::path, lg::FileHeader>> process_start;
  for (const auto& path : paths) {
    lg::FileReader header(path, lg::FileReader::Options{.accept_unclosed = true, .accept_torn_tail = false});
    timely::report::LogInput in;
    in.path = path;
    in.process = header.header().process;
    in.worker = header.header().worker;
    per_process = std::max<std::uint64_t>(per_process, in.worker + 1);
    const auto [it, fresh] = process_start.emplace(in.process, std::pair{in.path, header.header()});
    const auto apart = it->second.second.start - header.header().start;
    if (!fresh && std::chrono::abs(apart) > std::chrono::milliseconds(50))
      throw std::runtime_error("'" + it->second.first.string() + "' and '" + in.path.string() +
                               "' are both from process " + std::to_string(in.process) +
                               " but from different runs (their logging clocks started at different times)");
    inputs.push_back(in);
  }
  std::map<std::size_t, std::filesystem::path> seen;
  for (auto& in : inputs) {
    in.global_worker = static_cast<std::size_t>(in.process * per_process + in.worker);
    if (auto [it, fresh] = seen.emplace(in.global_worker, in.path); !fresh)
      throw std::runtime_error("'" + it->second.string() + "' and '" + in.path.string() +
                               "' are both process " + std::to_string(in.process) + " worker " +
                               std::to_string(in.worker) + " (two runs' logs?)");
    lg::FileReader reader(in.path,
                          lg::FileReader::Options{.accept_unclosed = true, .accept_torn_tail = true});
    const std::size_t w = in.global_worker;
    std::uint64_t& events = in.events;
    reader.on<lg::TimelyEvent>(
        "timely",
        [&model, w, &events](lg::Duration now, std::vector<std::pair<lg::Duration, lg::TimelyEvent>>& batch) {
          for (const auto& [time, event] : batch) model.add(w, time, event);
          events += batch.size();
          model.advance(w, now);
        });
    reader.on<lg::FrontierEvent<std::uint64_t>>(
        "timely/frontier/u64",
        [&model, w, &events](lg::Duration now,
                             std::vector<std::pair<lg::Duration, lg::FrontierEvent<std::uint64_t>>>& batch) {
          for (const auto& [time, event] : batch) model.add(w, time, event);
          events += batch.size();
          model.advance(w, now);
        });
    reader.run();
    in.closed = reader.closed();
    in.torn_bytes = reader.torn_bytes();
  }
  return inputs;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "timely-report: an HTML report (graph, timeline, operator totals, unfinished frontiers) "
      "from the log files a timely run wrote with --log-file"};
  std::vector<std::string> logs;
  std::string output, dot_path;
  app.add_option("LOGFILE", logs, "log files, one per worker (any order)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("-o,--output", output, "the HTML file to write")->required();
  app.add_option("--dot", dot_path, "also write the dataflow graph as Graphviz DOT");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code() == 0 ? app.exit(e) : (app.exit(e), 1);
  }
  try {
    for (const auto& log : logs)
      for (const auto& out : {output, dot_path})
        if (!out.empty() && std::filesystem::exists(out) && std::filesystem::equivalent(log, out))
          throw std::runtime_error("the output '" + out + "' is the log file '" + log +
                                   "': it would be overwritten");
    ob::Model model;
    const auto inputs = read_logs(logs, model);
    const auto snapshot = model.snapshot();
    const std::string dot = timely::report::to_dot(snapshot);
    if (!dot_path.empty()) write_file(dot_path, dot);
    write_file(output, timely::report::render_page(snapshot, inputs, timely::report::layout_svg(dot)));
    std::size_t unclosed = 0;
    for (const auto& in : inputs)
      if (!in.closed) ++unclosed;
    std::fprintf(stderr, "timely-report: %zu file(s)%s, %zu worker(s), %zu operator(s): wrote %s\n",
                 inputs.size(), unclosed > 0 ? (" (" + std::to_string(unclosed) + " unclosed)").c_str() : "",
                 snapshot.workers.size(), timely::report::operator_totals(snapshot).size(), output.c_str());
    return 0;
  } catch (const std::exception& e) {  // LogFileError names the file and the frame at fault
    std::fprintf(stderr, "timely-report: %s\n", e.what());
  }
  return 1;
}
