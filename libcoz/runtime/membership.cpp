// This process in a run across programs (see membership.h).
#include "runtime/membership.h"

#include <sys/stat.h>
#include <unistd.h>

#include "base/platform.h"
#include "config/file_line.h"
#include "remote/secret_proof.h"

namespace coz {

void Membership::take_part(bool root, ExperimentRunner& runner, const LineTable& lines) {
  credit_ = config_.member_credit;
  if (!root) {
    return;
  }
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
    trouble_ = why;
    reporter_.say("warning: " + why + "; this program runs without experiments", true);
  }
  runner.follow_coordinator(
      link_.get(),
      [&lines](const std::string& name) {
        FileLine at;
        if (!parse_file_line(name, &at)) {
          return SourceLine::key_of(name, 0);  // no line of this program's
        }
        bool ambiguous = false;
        const SourceLine* line = lines.find(at.file, at.line, &ambiguous);
        return line ? line->key : SourceLine::key_of(at.file, at.line);
      },
      [this](const std::string& lost) {
        trouble_ = lost;
        reporter_.say("warning: " + lost + "; this program's experiments end and it runs on", true);
      });
}

void Membership::woken(ThreadState& t, int fd) {
  struct stat st;
  // fd < 0: an epoll_wait or select that returned ready descriptors, which it does not name
  // (epoll's events carry the program's own data): taken for a socket too.
  if (credit_ && (fd < 0 || (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)))) {
    delays_.woken_by_member(t);  // credited as it settles, next
  }
}

void Membership::finish() {
  if (!link_) {
    return;
  }
  link_->finish(1000);                              // the profile's last records, then goodbye
  if (trouble_.empty() && !link_->ever_joined()) {  // it ended before the link could tell
    reporter_.say("warning: cannot reach the coordinator at " + config_.coordinator +
                      "; this program's records are only in " + config_.output,
                  true);
  }
}

}  // namespace coz
