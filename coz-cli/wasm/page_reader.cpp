// The page's own profile reader: the reader and analysis of `coz report`, compiled to WebAssembly
// (wasm32-wasi, a reactor: no main) and inlined into every page `coz plot` writes, so the page
// opens another profile (its file chooser, or a file dropped on it) by exactly the rules of
// `coz report --json`, with no server and no network. The page copies each file's bytes into
// this module's memory and gets back the report's JSON (viewer/src/reader.js, open).
//
// Calls, in order: coz_begin(); for each file coz_alloc + coz_add (0: read; 1: refused, the
// reason in the result); coz_report(); coz_result()/coz_result_size() read the JSON or the reason.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"
#include "output/html_page.h"

#define COZ_EXPORT(name) extern "C" __attribute__((export_name(name), used))

namespace {

std::unique_ptr<coz::analysis::ProfileData> data;
std::string result;

}  // namespace

COZ_EXPORT("coz_alloc") void* coz_alloc(size_t size) {
  return malloc(size ? size : 1);
}

COZ_EXPORT("coz_free") void coz_free(void* p) {
  free(p);
}

// Starts a new set of profiles (the files picked or dropped together merge, as on the command
// line).
COZ_EXPORT("coz_begin") void coz_begin() {
  data = std::make_unique<coz::analysis::ProfileData>();
  result.clear();
}

COZ_EXPORT("coz_add")
int coz_add(const char* name, size_t name_size, const char* text, size_t text_size) {
  if (!data) {
    coz_begin();
  }
  result.clear();
  return data->read_text(std::string(name, name_size), std::string_view(text, text_size), &result)
             ? 0
             : 1;
}

COZ_EXPORT("coz_report") void coz_report() {
  if (!data) {
    coz_begin();
  }
  coz::analysis::Report report =
      coz::analysis::analyse(*data, coz::output::page_analysis_options());
  coz::analysis::rank_in_groups(&report.series, coz::analysis::SortOrder::kImpact);
  result = coz::output::page_report_json(report, *data);
}

COZ_EXPORT("coz_result") const char* coz_result() {
  return result.data();
}

COZ_EXPORT("coz_result_size") size_t coz_result_size() {
  return result.size();
}
