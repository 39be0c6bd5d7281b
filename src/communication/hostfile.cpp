// Hostfile parsing (include/timely/communication/hostfile.hpp).
#include <timely/communication/hostfile.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <timely/communication/error.hpp>

namespace timely::communication {

std::string Address::to_string() const {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Address parse_address(const std::string& text, const std::string& where) {
  const auto bad = [&](const std::string& why) -> ConfigError {
    return ConfigError("timely: " + where + ": '" + text + "' is not host:port (" + why + ")");
  };
  std::string host;
  std::string port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos) throw bad("unclosed '[' of an IPv6 address");
    host = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') throw bad("missing ':port' after the address");
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) throw bad("missing ':port'");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string::npos) throw bad("write an IPv6 address as [address]:port");
  }
  if (host.empty()) throw bad("empty host");
  if (host.find_first_of(" \t") != std::string::npos) throw bad("space in the host");
  if (port.empty()) throw bad("empty port");
  while (port.size() > 1 && port.front() == '0') port.erase(port.begin());
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw bad("the port must be a number from 1 to 65535");
  const auto number = std::stoul(port);
  if (number < 1 || number > 65535) throw bad("the port must be a number from 1 to 65535");
  return Address{host, static_cast<std::uint16_t>(number)};
}

std::vector<Address> parse_hostfile(std::istream& in, const std::string& name, std::size_t processes) {
  std::vector<Address> out;
  std::string line;
  std::size_t number = 0;
  while (out.size() < processes && std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      throw ConfigError("timely: hostfile " + name + ": line " + std::to_string(number) +
                        " is blank; every line must be host:port (the address of process " +
                        std::to_string(out.size()) + ")");
    if (line[first] == '#') continue;
    const auto last = line.find_last_not_of(" \t");
    out.push_back(parse_address(line.substr(first, last - first + 1),
                                "hostfile " + name + ", line " + std::to_string(number)));
  }
  if (out.size() < processes)
    throw ConfigError("timely: hostfile " + name + " lists " + std::to_string(out.size()) + " address" +
                      (out.size() == 1 ? "" : "es") + ", but " + std::to_string(processes) +
                      " processes need one each (-n " + std::to_string(processes) + ")");
  return out;
}

std::vector<Address> read_hostfile(const std::string& path, std::size_t processes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("timely: cannot read hostfile '" + path + "': it is a directory");
  std::ifstream in(path);
  if (!in) throw ConfigError("timely: cannot read hostfile '" + path + "': " + std::strerror(errno));
  return parse_hostfile(in, "'" + path + "'", processes);
}

}  // namespace timely::communication
