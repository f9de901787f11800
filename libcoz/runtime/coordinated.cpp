// The root of a member of a run across programs joins the coordinator (docs/across-hosts.md):
// its runner then follows the coordinator's experiments (profiler/coordinated_experiments.cpp).
#include <sys/stat.h>
#include <unistd.h>

#include "base/platform.h"
#include "config/file_line.h"
#include "remote/secret_proof.h"
#include "runtime/runtime.h"

namespace coz {

void Runtime::join_coordinator() {
  remote::MemberSettings member;
  member.address = config_.coordinator;
  member.program = platform::program_name();
  member.pid = static_cast<uint64_t>(getpid());
  member.profile = config_.output;
  member.fixed_line = config_.fixed_line;
  member.fixed_speedup = config_.fixed_speedup;
  member.end_to_end = config_.end_to_end;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  member.host = host;
  std::string why;
  link_ = std::make_unique<remote::CoordinatorLink>();
  if (!remote::read_secret(config_.secret, config_.secret_file, &member.secret, &why) ||
      !link_->start(member, &why)) {
    // The program runs as it would, sampled, with no experiments.
    link_trouble_ = why;
    reporter_.say("warning: " + why + "; this program runs without experiments", true);
  }
  runner_->follow_coordinator(
      link_.get(),
      [this](const std::string& name) {
        FileLine at;
        if (!parse_file_line(name, &at)) {
          return SourceLine::key_of(name, 0);  // no line of this program's
        }
        bool ambiguous = false;
        const SourceLine* line = lines_.table().find(at.file, at.line, &ambiguous);
        return line ? line->key : SourceLine::key_of(at.file, at.line);
      },
      [this](const std::string& lost) {
        link_trouble_ = lost;
        reporter_.say("warning: " + lost + "; this program's experiments end and it runs on", true);
      });
}

void Runtime::woken_by_member(ThreadState& t, int fd) {
  struct stat st;
  // fd < 0: an epoll_wait or select that returned ready descriptors, which it does not name
  // (epoll's events carry the program's own data): taken for a socket too.
  if (member_credit_ && (fd < 0 || (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)))) {
    delays_.woken_by_member(t);  // credited as it settles, next
  }
}

}  // namespace coz
