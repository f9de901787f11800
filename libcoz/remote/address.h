// HOST:PORT, as --coordinator and --listen take it: split at the last colon, an IPv6 host in
// brackets unwrapped. Shared by the members (remote/coordinator_link.cpp) and the coordinator
// (coz-cli/coordinator/listener.cpp). Pure.
#pragma once

#include <string>

namespace coz::remote {

// False when the host or the port is missing.
inline bool split_host_port(const std::string& address, std::string* host, std::string* port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) {
    return false;
  }
  *host = address.substr(0, colon);
  *port = address.substr(colon + 1);
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return true;
}

}  // namespace coz::remote
