/// \file
/// Hostfiles: `Address` (where one process listens), `parse_address` (`host:port`, IPv6 as
/// `[addr]:port`), `parse_hostfile` and `read_hostfile` (one address a line for process 0, 1,
/// ...).
///
/// Source: the reference's `-h/--hostfile` argument of `timely_communication::Config`
/// (SEMANTICS.md §7.7). Thread-safety: pure functions (`read_hostfile` reads a file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace timely::communication {

/// One line of a hostfile: where a process listens.
struct Address {
  std::string host;    ///< a host name or IPv4 address, or an IPv6 address without brackets
  std::uint16_t port;  ///< 1 to 65535
  [[nodiscard]] std::string to_string() const;
};

/// Parses `host:port` (IPv6 as `[addr]:port`). `where` names the text in errors (e.g.
/// "line 3 of hosts.txt"). \throws ConfigError if the host is empty or the port is missing,
/// not a number, or outside 1..65535.
Address parse_address(const std::string& text, const std::string& where);

/// Reads a hostfile: one `host:port` a line for process 0, 1, ...; lines starting with `#` are
/// comments. At least `processes` lines are needed; further lines are ignored.
/// \throws ConfigError naming the file and line for a blank line, a malformed address, or too
/// few lines; and if the file cannot be read.
std::vector<Address> parse_hostfile(std::istream& in, const std::string& name, std::size_t processes);
/// `parse_hostfile` on the file at `path`.
std::vector<Address> read_hostfile(const std::string& path, std::size_t processes);

}  // namespace timely::communication
