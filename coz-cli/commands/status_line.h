// The live status line of `coz run`: one line at the bottom of the terminal, kept out of the
// terminal's scrolling region while the program runs, so the program's own output scrolls above
// it and is never mixed with it. Each update is a single write() (the terminal does not
// interleave it with another process's write) that saves the cursor, draws the bottom row and
// restores the cursor, wherever the program left it. Nothing is drawn unless the descriptor is a
// terminal of at least three rows whose TERM is not "dumb", and only while coz is in the
// terminal's foreground process group (checked before each draw): a job in the background
// draws nothing, and never stops on its writes (`stty tostop`; see signal_relay.h).
#pragma once

#include <string>

namespace coz::cli {

class StatusLine {
 public:
  explicit StatusLine(int fd);
  ~StatusLine() { close(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;

  bool active() const { return active_; }
  // Draws `text` on the bottom row, cut to the terminal's width.
  void show(const std::string& text);
  // The terminal changed size (SIGWINCH): the scrolling region follows, the line is redrawn.
  void resized();
  // Gives the bottom row back to the terminal and clears it.
  void close();

 private:
  bool measure();
  bool in_foreground() const;
  void put(const std::string& bytes);

  int fd_;
  bool active_ = false;
  int rows_ = 0;
  int cols_ = 0;
  bool region_set_ = false;  // the bottom row is out of the scrolling region
  int stale_rows_ = 0;       // the rows when the region was set, if they changed since
  std::string last_;         // the text asked for last
  std::string shown_;        // the text on the row now (an unchanged text is not drawn again)
};

}  // namespace coz::cli
