// The live status line (see status_line.h).
#include "commands/status_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace coz::cli {

StatusLine::StatusLine(int fd) : fd_(fd) {
  const char* term = getenv("TERM");
  if (!isatty(fd) || (term && strcmp(term, "dumb") == 0) || !measure()) {
    return;
  }
  active_ = true;
}

bool StatusLine::in_foreground() const {
  return tcgetpgrp(fd_) == getpgrp();
}

bool StatusLine::measure() {
  winsize ws = {};
  if (ioctl(fd_, TIOCGWINSZ, &ws) != 0 || ws.ws_row < 3 || ws.ws_col < 10) {
    return false;
  }
  rows_ = ws.ws_row;
  cols_ = ws.ws_col;
  return true;
}

void StatusLine::put(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      active_ = false;  // the terminal went away: stop drawing
      return;
    }
    done += static_cast<size_t>(n);
  }
}

void StatusLine::show(const std::string& text) {
  last_ = text;
  if (!active_ || text == shown_ || !in_foreground()) {
    return;
  }
  if (!region_set_) {
    // A new line first, then back up: the cursor's row is never the bottom one, which becomes
    // the status row. Save the cursor, shrink the scrolling region by the last row, restore the
    // cursor (setting a region moves it home).
    put("\n\033[1A\0337\033[1;" + std::to_string(rows_ - 1) + "r\0338");
    region_set_ = true;
  } else if (stale_rows_ > 0) {
    // The terminal was resized while coz was in the background: clear the old status row
    // (it may now be inside the region), then set the new region.
    put("\0337\033[" + std::to_string(stale_rows_) + ";1H\033[2K\033[1;" +
        std::to_string(rows_ - 1) + "r\0338");
  }
  stale_rows_ = 0;
  shown_ = text;
  std::string line =
      text.size() > static_cast<size_t>(cols_ - 1) ? text.substr(0, cols_ - 1) : text;
  put("\0337\033[" + std::to_string(rows_) + ";1H\033[2K" + line + "\0338");
}

void StatusLine::resized() {
  if (!active_) {
    return;
  }
  int old_rows = stale_rows_ > 0 ? stale_rows_ : rows_;
  if (!measure()) {
    close();
    return;
  }
  if (region_set_) {
    stale_rows_ = old_rows;  // the next draw (in the foreground) moves the region
  }
  shown_.clear();
  show(last_);
}

void StatusLine::close() {
  if (!active_) {
    return;
  }
  if (!region_set_) {
    active_ = false;
    return;
  }
  // Even from the background: a scrolling region left behind would break the terminal.
  put("\0337\033[r\0338\0337\033[" + std::to_string(rows_) + ";1H\033[2K\0338");
  active_ = false;
}

}  // namespace coz::cli
