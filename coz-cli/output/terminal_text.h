// Text from a profile made safe for a terminal. Profiles are untrusted: a name holding an escape
// sequence could retitle the window, clear the screen or rewrite what was printed before. Every
// text output of the CLI (tables, CSV, warnings, the status line, run summaries) goes through here.
#pragma once

#include <string>
#include <string_view>

namespace coz::output {

// `text` with every control character escaped: C0 (tab and line feed included) and DEL as
// "\xNN", C1 (U+0080-U+009F) as "\u00NN", and each byte of invalid UTF-8 as "\xNN". Printable
// UTF-8 passes unchanged.
std::string terminal_safe(std::string_view text);

// The same for a whole document of lines: line feeds are kept.
std::string terminal_safe_lines(std::string_view text);

// `text` as lines of at most `width` characters, broken at spaces (a longer word stands alone),
// joined by '\n', without a final one.
std::string wrap_words(const std::string& text, size_t width);

}  // namespace coz::output
