// One member's connection at the coordinator (coordinator.h): its socket, what it sent that is
// not yet a whole line, what waits to be sent to it (bounded), and where it is in the run.
#pragma once

#include <cstdint>
#include <string>

#include "coordinator/run_records.h"
#include "remote/message.h"
#include "remote/send_queue.h"

namespace coz::coordinator {

struct MemberConnection {
  MemberConnection(int socket, std::string from);
  ~MemberConnection();
  MemberConnection(const MemberConnection&) = delete;
  MemberConnection& operator=(const MemberConnection&) = delete;

  // Queues `m`; a member that lets the send queue fill (remote/send_queue.h) is dropped.
  void send(const remote::Message& m);
  // Sends the reason (best effort), says it once on stderr, and closes the connection.
  void refuse(const std::string& why);
  // Reads what arrived; false when the connection closed or failed.
  bool receive();
  // Sends what is queued, as far as the socket takes it.
  void flush();
  void close();
  bool wants_to_send() const { return !out.empty(); }

  int fd = -1;
  std::string peer;  // address:port
  std::string nonce;
  remote::LineSplitter in;
  remote::SendQueue out;
  bool joined = false, closed = false, leaving = false;
  std::string host, name;  // program@host
  // The experiment: whether the member was in it as it began, the record it is sending, and
  // the record it sent.
  bool in_experiment = false, capturing = false, has_result = false;
  MemberExperiment current, result;
};

}  // namespace coz::coordinator
