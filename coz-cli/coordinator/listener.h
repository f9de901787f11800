// Where members connect (coordinator.h): a listening socket on HOST:PORT, refused for any address
// but loopback when the run has no shared secret, and one member's connection accepted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "coordinator/member_connection.h"

namespace coz::coordinator {

// A non-blocking listening socket, or -1 with `why`; `shown` and `port` say where (port 0 in the
// address picks a free one).
int listen_on(const std::string& address, bool has_secret, std::string* shown, uint16_t* port,
              std::string* why);
// Writes `port` and a newline to `path`, renamed into place, so a script never reads half of it.
void write_port_file(const std::string& path, uint16_t port);
// The next waiting connection (non-blocking, TCP_NODELAY), or nullptr when none.
std::unique_ptr<MemberConnection> accept_one(int listen_fd);

}  // namespace coz::coordinator
