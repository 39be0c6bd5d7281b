// timely-run: starts P processes of a timely program on this machine, as mpirun does.
//
//   timely-run -n P [-w W] [--output-dir DIR] [--] PROGRAM ARGS...
//
// Process i runs `PROGRAM ARGS... -n P -p i --rendezvous 127.0.0.1:PORT --launcher none [-w W]`, PORT being a
// loopback port free when timely-run starts (process 0 serves the rendezvous there; see
// timely/communication/initialize.hpp). Each line a process writes to standard output or error
// is copied to timely-run's with the prefix "[i] "; with --output-dir the processes write
// DIR/i.out and DIR/i.err instead. SIGINT, SIGTERM and SIGHUP are forwarded to every process. When
// a process exits with a non-zero status or dies by a signal, the others get SIGTERM (and
// SIGKILL 3 s later), and timely-run exits with that first status (128 + N for signal N; a
// process that crashed, killed by a signal timely-run did not send, wins over the others' exits
// with status 1 on losing it, which may be seen first). After a forwarded signal N it exits 128 + N.
// If timely-run's standard output is a pipe whose reader has gone, the processes get SIGTERM and it
// exits 128 + SIGPIPE, as a pipeline's writer would; the processes themselves start with SIGPIPE's
// default action. Otherwise it exits 0 once all have. The processes die with timely-run (PR_SET_PDEATHSIG),
// even if it is killed. Exit status 2: bad arguments of timely-run itself, or program arguments
// that give an option timely-run sets (-n, -p, --rendezvous, --launcher; -w if timely-run has it)
// or a hostfile.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "argument_errors.hpp"

namespace {

volatile std::sig_atomic_t g_signal = 0;  // the last signal to forward, 0 if none

void on_signal(int signal) { g_signal = signal; }

/// A loopback port that was free a moment ago: bind port 0, read it, close.
int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

/// One output stream of one process: its pipe and the part of a line not yet copied.
struct Stream {
  int fd = -1;
  int to = STDOUT_FILENO;
  std::string pending;
};

struct Child {
  pid_t pid = -1;
  std::optional<int> status;  // as waitpid gives it, once reaped
  Stream out, err;
};

/// Set when our standard output is a pipe whose reader has gone (`timely-run ... | head`): the
/// computation is stopped as a pipeline's writer would be, and timely-run exits 128 + SIGPIPE.
bool g_stdout_gone = false;

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE && fd == STDOUT_FILENO) g_stdout_gone = true;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

/// Copies what is readable from `s` to its destination, complete lines prefixed; at the end of
/// the stream, the rest too. Returns false once the stream has ended.
bool drain(Stream& s, const std::string& prefix) {
  char buffer[65536];
  const auto n = ::read(s.fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (n > 0) {
    s.pending.append(buffer, static_cast<std::size_t>(n));
    std::string lines;
    std::size_t start = 0;
    for (auto end = s.pending.find('\n'); end != std::string::npos; end = s.pending.find('\n', start)) {
      lines += prefix;
      lines.append(s.pending, start, end + 1 - start);
      start = end + 1;
    }
    s.pending.erase(0, start);
    write_all(s.to, lines);
    return true;
  }
  if (!s.pending.empty()) write_all(s.to, prefix + s.pending + "\n");  // a last line without its newline
  s.pending.clear();
  ::close(s.fd);
  s.fd = -1;
  return false;
}

/// The exit status timely-run reports for a process's `status` (waitpid's).
int exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

/// Starts `argv` with its output in pipes (or in files under `output_dir`), in a process group
/// of its own so that a terminal's Ctrl-C reaches it only through us, and dying with us.
Child spawn(const std::vector<std::string>& argv, std::size_t index, const std::string& output_dir) {
  Child child;
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  int files[2] = {-1, -1};
  if (output_dir.empty()) {
    if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return child;
  } else {
    const auto base = output_dir + "/" + std::to_string(index);
    files[0] = ::open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    files[1] = ::open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (files[0] < 0 || files[1] < 0) {
      std::fprintf(stderr, "timely-run: cannot create %s.out or .err: %s\n", base.c_str(),
                   std::strerror(errno));
      return child;
    }
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGHUP, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);  // ours is ignored (we see EPIPE instead); theirs must not be
    ::dup2(output_dir.empty() ? out[1] : files[0], STDOUT_FILENO);
    ::dup2(output_dir.empty() ? err[1] : files[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const auto message = "timely-run: cannot run " + argv[0] + ": " + std::strerror(errno) + "\n";
    write_all(STDERR_FILENO, message);
    ::_exit(127);
  }
  child.pid = pid;
  if (output_dir.empty()) {
    ::close(out[1]);
    ::close(err[1]);
    if (pid < 0) {
      ::close(out[0]);
      ::close(err[0]);
      return child;
    }
    child.out = Stream{out[0], STDOUT_FILENO, {}};
    child.err = Stream{err[0], STDERR_FILENO, {}};
    ::fcntl(out[0], F_SETFL, O_NONBLOCK);
    ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  } else {
    ::close(files[0]);
    ::close(files[1]);
  }
  return child;
}

void signal_all(std::vector<Child>& children, int signal) {
  for (auto& c : children)
    if (c.pid > 0 && !c.status) ::kill(-c.pid, signal);  // its whole group: the program's own children too
}

/// The usage line.
constexpr const char* usage = "timely-run -n P [-w W] [--output-dir DIR] [--] PROGRAM ARGS...";

/// The worker option that `arg`, one of the program's arguments, gives, if timely-run gives it
/// to every process itself (or if it contradicts what timely-run gives); "" otherwise. Short
/// options may be clustered and carry their value (`-rp1` is `-r -p 1`): the flags `-r` and `-z`
/// are skipped, and the first option that takes a value ends the cluster.
std::string clashing_option(const std::string& arg, bool sets_workers) {
  if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
    for (std::size_t k = 1; k < arg.size(); ++k) {
      const char c = arg[k];
      if (c == 'r' || c == 'z') continue;
      if (c == 'n' || c == 'p' || c == 'h' || (c == 'w' && sets_workers)) return std::string("-") + c;
      return "";
    }
    return "";
  }
  const std::string name = arg.substr(0, arg.find('='));
  for (const char* ours : {"--processes", "--process", "--rendezvous", "--launcher", "--hostfile"})
    if (name == ours) return name;
  if (sets_workers && (name == "--workers" || name == "--threads")) return name;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app(
      "Runs P processes of a timely program on this machine, meeting at a rendezvous on a free "
      "loopback port; each line of their output prefixed with [process].",
      "timely-run");
  // CLI11's usage line would say `timely-run [OPTIONS]`: a prefix command is not shown.
  struct Usage : CLI::Formatter {
    std::string make_usage(const CLI::App*, std::string) const override {
      return std::string("Usage: ") + usage + "\n";
    }
  };
  app.formatter(std::make_shared<Usage>());
  std::size_t processes = 0;
  std::size_t workers = 0;
  std::optional<std::string> output_dir;
  app.set_help_flag("--help", "Print this help and exit");  // not -h: a program's -h is its hostfile
  app.add_option("-n,--processes", processes, "Processes to start, 1 to 1024 (required)")
      ->check(timely::detail::whole_number("a whole number of processes", 1, 1024))
      ->option_text("P");
  app.add_option("-w,--workers", workers, "Worker threads per process, 1 to 4096 (passed on as -w W)")
      ->check(timely::detail::whole_number("a whole number of workers", 1, 4096))
      ->option_text("W");
  app.add_option("--output-dir", output_dir,
                 "Write process i's output to DIR/i.out and DIR/i.err, unprefixed")
      ->option_text("DIR");
  app.prefix_command();  // PROGRAM and everything after it (or after --) is the command
  app.footer("Example: timely-run -n 3 -w 2 -- wordcount words.txt");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);  // prints the help
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "timely-run: %s\nusage: %s (try --help)\n",
                 timely::detail::describe_parse_error(e, false).c_str(), usage);
    return 2;
  }
  auto command = app.remaining();
  const bool separated = !command.empty() && command.front() == "--";
  if (separated) command.erase(command.begin());
  // Without `--`, the first word CLI11 did not know starts the command: a mistyped option would
  // otherwise be run as a program.
  if (!separated && !command.empty() && command.front().size() > 1 && command.front().front() == '-') {
    std::fprintf(stderr, "timely-run: unknown option '%s'\nusage: %s\n", command.front().c_str(), usage);
    return 2;
  }
  if (processes == 0) {
    std::fprintf(stderr,
                 "timely-run: -n P (--processes) is required: how many processes to start\nusage: %s\n",
                 usage);
    return 2;
  }
  if (command.empty()) {
    std::fprintf(stderr, "timely-run: no PROGRAM given\nusage: %s\n", usage);
    return 2;
  }
  if (output_dir && output_dir->empty()) {
    std::fprintf(stderr, "timely-run: --output-dir is empty; give a directory\nusage: %s\n", usage);
    return 2;
  }
  // timely-run gives each process -n, -p, --rendezvous and --launcher (and -w if it has one);
  // given again, or with a hostfile beside the rendezvous, the program would refuse them in
  // every process. Its own positional arguments (after a `--` of its own) may be anything.
  auto own_end = std::find(command.begin() + 1, command.end(), std::string("--"));
  for (auto it = command.begin() + 1; it != own_end; ++it) {
    const std::string name = clashing_option(*it, workers > 0);
    if (name.empty()) continue;
    const std::string in = *it == name ? std::string() : " (in '" + *it + "')";
    std::fprintf(stderr,
                 "timely-run: the program's arguments give %s%s; timely-run gives each process -n, -p, "
                 "--rendezvous and --launcher itself (and -w when it has -w), and a hostfile would "
                 "contradict them: leave it out\n",
                 name.c_str(), in.c_str());
    return 2;
  }
  if (output_dir) {
    std::error_code ec;
    std::filesystem::create_directories(*output_dir, ec);
    if (ec) {
      std::fprintf(stderr, "timely-run: cannot create the output directory %s: %s\n", output_dir->c_str(),
                   ec.message().c_str());
      return 2;
    }
  }
  const int port = free_loopback_port();
  if (port < 0) {
    std::fprintf(stderr, "timely-run: cannot find a free loopback port: %s\n", std::strerror(errno));
    return 1;
  }

  struct sigaction action {};
  action.sa_handler = on_signal;
  ::sigemptyset(&action.sa_mask);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  std::vector<Child> children;
  std::optional<int> first_failure;
  for (std::size_t i = 0; i < processes; ++i) {
    // --launcher none: timely-run is the launcher, whatever an outer one (an salloc shell, an
    // mpirun) left in the environment. The worker options go before the program's own `--`, if
    // it has one: after it they would be positional arguments.
    std::vector<std::string> given = {
        "-n",           std::to_string(processes),           "-p",         std::to_string(i),
        "--rendezvous", "127.0.0.1:" + std::to_string(port), "--launcher", "none"};
    if (workers > 0) {
      given.emplace_back("-w");
      given.push_back(std::to_string(workers));
    }
    auto args = command;
    args.insert(std::find(args.begin() + 1, args.end(), std::string("--")), given.begin(), given.end());
    children.push_back(spawn(args, i, output_dir.value_or("")));
    if (children.back().pid <= 0) {
      std::fprintf(stderr, "timely-run: cannot start process %zu: %s\n", i, std::strerror(errno));
      first_failure = 1;
      break;
    }
  }
  if (first_failure) signal_all(children, SIGTERM);

  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> kill_at;  // SIGKILL for the rest, once they were told to stop
  std::optional<int> forwarded;
  bool crashed = false;  // first_failure is a death by a signal we did not send
  if (first_failure) kill_at = Clock::now() + std::chrono::seconds(3);
  for (;;) {
    if (g_stdout_gone && !forwarded) {
      forwarded = SIGPIPE;
      signal_all(children, SIGTERM);
      if (!kill_at) kill_at = Clock::now() + std::chrono::seconds(3);
    }
    if (g_signal != 0) {
      const int s = g_signal;
      g_signal = 0;
      if (!forwarded) forwarded = s;
      signal_all(children, s);
      if (!kill_at) kill_at = Clock::now() + std::chrono::seconds(3);
    }
    // Output first, so a process's last lines come before the news of its end.
    std::vector<pollfd> fds;
    std::vector<Stream*> streams;
    for (auto& c : children)
      for (auto* s : {&c.out, &c.err})
        if (s->fd >= 0) {
          fds.push_back(pollfd{s->fd, POLLIN, 0});
          streams.push_back(s);
        }
    if (!fds.empty()) {
      if (::poll(fds.data(), fds.size(), 50) > 0) {
        for (std::size_t k = 0; k < fds.size(); ++k)
          if (fds[k].revents != 0) {
            const auto index = static_cast<std::size_t>(
                std::find_if(children.begin(), children.end(),
                             [&](const Child& c) { return &c.out == streams[k] || &c.err == streams[k]; }) -
                children.begin());
            drain(*streams[k], "[" + std::to_string(index) + "] ");
          }
      }
    } else {
      ::usleep(20'000);
    }
    bool running = false;
    for (std::size_t i = 0; i < children.size(); ++i) {
      auto& c = children[i];
      if (c.pid <= 0 || c.status) continue;
      int status = 0;
      const auto r = ::waitpid(c.pid, &status, WNOHANG);
      if (r == 0) {
        running = true;
        continue;
      }
      c.status = r == c.pid ? status : (1 << 8);
      if (exit_code(*c.status) == 0 || forwarded) continue;
      // A death by a signal we did not send is a crash, and the cause: the others exit non-zero
      // because they lost it, and may be reaped first. Its status is the one to report.
      const bool crash =
          WIFSIGNALED(*c.status) &&
          !(first_failure && (WTERMSIG(*c.status) == SIGTERM || WTERMSIG(*c.status) == SIGKILL));
      if (!first_failure || (crash && !crashed)) {
        std::fprintf(stderr, "timely-run: process %zu %s%s\n", i, describe(*c.status).c_str(),
                     first_failure ? "" : "; stopping the others");
        first_failure = exit_code(*c.status);
        crashed = crash;
      }
      if (!kill_at) {
        signal_all(children, SIGTERM);
        kill_at = Clock::now() + std::chrono::seconds(3);
      }
    }
    if (kill_at && Clock::now() >= *kill_at) {
      signal_all(children, SIGKILL);
      kill_at = Clock::now() + std::chrono::seconds(1);
    }
    if (!running) {
      // Every process is gone; copy what their pipes still hold (a process's own children may
      // hold them open: give up on those after the copy).
      for (auto& c : children)
        for (auto* s : {&c.out, &c.err})
          while (s->fd >= 0) {
            pollfd p{s->fd, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) {
              ::close(s->fd);
              s->fd = -1;
              break;
            }
            drain(*s, "[" + std::to_string(&c - children.data()) + "] ");
          }
      break;
    }
  }
  if (forwarded) return 128 + *forwarded;
  return first_failure.value_or(0);
}
