// libFuzzer target: the `coz plot` page from any profile and any source text. Input: the profile,
// then optionally "\n@@source@@\n" and the text every file the profile names is read as. Checks
// that nothing from the data ends a script element: the page has exactly the script elements the
// builder writes, and no '<' inside its JSON.
#include <strings.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "analysis/causal_profile.h"
#include "commands/source_snippets.h"
#include "fuzz/fuzz_support.h"
#include "output/html_page.h"
#include "output/report_output.h"

namespace {

size_t count_ignoring_case(const std::string& text, const char* needle) {
  size_t n = 0, len = strlen(needle);
  for (size_t at = 0; at + len <= text.size(); at++) {
    n += strncasecmp(text.c_str() + at, needle, len) == 0;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  const std::string mark = "\n@@source@@\n";
  size_t split = input.find(mark);
  std::string profile = input.substr(0, split);
  bool has_source = split != std::string::npos;
  std::string source = has_source ? input.substr(split + mark.size()) : "";

  std::string path =
      coz::fuzz::as_file(reinterpret_cast<const uint8_t*>(profile.data()), profile.size());
  coz::analysis::ProfileData profile_data;
  std::string error;
  if (!profile_data.read(path, &error)) {
    return 0;
  }
  coz::analysis::Report report = coz::analysis::analyse(profile_data, coz::fuzz::quick_options());
  coz::fuzz::check_report(report);
  coz::analysis::rank_in_groups(&report.series, coz::analysis::SortOrder::kImpact);

  coz::cli::Snippets snippets = coz::cli::source_snippets(
      report, [&](const std::string&, std::string* text, std::string* reason) {
        if (!has_source) {
          *reason = "not found";
          return false;
        }
        *text = source;
        return true;
      });
  coz::output::PageData page_data;
  page_data.report_json =
      coz::output::render_json(coz::output::RenderContext{report, profile_data, "impact"});
  page_data.sources_json = snippets.json;
  page_data.left_out_json = snippets.left_out_json();
  snippets.left_out_line();

  coz::output::ViewerFiles viewer;
  viewer.index_html =
      "<html><head><meta content=\"nonce-COZ_NONCE\"><!--coz:style--></head><body>"
      "<!--coz:data--><!--coz:libs--><!--coz:reader--><!--coz:app--></body></html>";
  viewer.style = "body {}";
  viewer.app = "var s = '</script>', t = '</Script\\t';";
  viewer.libs = {"var a = '</SCRIPT >';", "/* </script */", "var c;"};
  viewer.reader_wasm = std::string("\0asm\x01\0\0\0", 8);
  std::string page;
  if (!coz::output::build_page(viewer, page_data, "0123", &page, &error)) {
    abort();
  }
  // Four JSON scripts, three libraries, the reader and the app; nothing else may open or close
  // one.
  if (count_ignoring_case(page, "<script") != 9 || count_ignoring_case(page, "</script") != 9) {
    abort();
  }
  const std::string open = "<script type=\"application/json\"";
  for (size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
    size_t body = page.find('>', at) + 1;
    size_t end = page.find("</script>", body);
    if (end == std::string::npos || page.find('<', body) != end) {
      abort();
    }
  }
  return 0;
}
