// `coz coordinate`'s work (docs/across-hosts.md): one experiment at a time across every program
// that joined. Members connect over TCP; each proves it knows the run's secret when there is
// one; the coordinator asks for a line, takes the first a member offers, tells every member to
// begin (line and speedup), relays the highest delay total any member reached to the others,
// ends the experiment, and writes one record of it from the members' own. Members' other
// records (their processes and samples) go into the same profile as they arrive. End to end
// (--end-to-end), the one experiment lasts the whole run: members that join later begin it at
// once, each member writes its record as it exits, and the merged record is written when the
// last member in it has left (or at SIGINT/SIGTERM, from the members that left by then).
//
// One thread, one poll() loop; every socket is non-blocking and every member's queue bounded, so
// a slow, silent or hostile member costs the others nothing: it is refused, with a reason it is
// sent and the coordinator says once, and the run goes on.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace coz::coordinator {

struct Settings {
  std::string listen = "127.0.0.1:0";  // HOST:PORT
  std::string output;                  // the profile, appended to
  std::string secret;                  // empty: none (loopback only)
  std::string fixed_line;              // FILE:LINE, or empty
  int fixed_speedup = -1;              // 0-100, or -1
  bool end_to_end = false;             // one experiment over the whole run
  uint64_t experiment_length_ns = 0;   // 0: the runtime's default
  std::string port_file;               // written with the port once listening (tests, scripts)
};

// Runs until every member that joined has left (at least one having joined), or `stop` is set
// (SIGINT/SIGTERM). Returns the exit status: 0, or 2 with one line on stderr when it cannot
// listen or write the profile.
int coordinate(const Settings& settings, const std::atomic<bool>& stop);

}  // namespace coz::coordinator
