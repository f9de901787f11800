// `coz plot`: the causal profile as one self-contained HTML page (the viewer, the Vega libraries,
// the report and source snippets inlined), written to a file or served on 127.0.0.1.
#pragma once

#include <string>
#include <vector>

namespace coz::cli {

// Returns the exit status: 0 when the page was written (or served until interrupted), 1 when
// the profile has nothing to show (the page is still written and explains why), 2 for usage
// errors, unreadable profiles, a missing viewer, or a page that would overwrite an input profile.
int plot_command(const std::vector<std::string>& args);

// Serves `html` at http://127.0.0.1:<free port>/ until the process is interrupted; prints the
// URL on stdout and, with `open_browser`, tries to open it. Any other path gets 404, a Host
// header (in any case) naming another host 403, two Host headers 400. Running out of
// descriptors or threads only delays connections. Returns an exit status (2 when the socket
// cannot be set up).
int serve_page(const std::string& html, bool open_browser);

// Tries `xdg-open target`; false when no browser could be started.
bool open_in_browser(const std::string& target);

}  // namespace coz::cli
