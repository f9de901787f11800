// The `coz plot` page: the viewer's template with its style, libraries, script and data inlined.
// Pure (no files, no clock, no randomness): the caller reads the viewer and draws the nonce, so a
// fuzz target can build pages from any report.
#pragma once

#include <string>
#include <vector>

#include "analysis/causal_profile.h"
#include "analysis/profile_data.h"

namespace coz::output {

// The viewer as installed: index.html with its placeholders (COZ_NONCE, <!--coz:style-->,
// <!--coz:data-->, <!--coz:libs-->, <!--coz:reader-->, <!--coz:app-->), its style and script, the
// Vega libraries and the reader compiled to WebAssembly.
struct ViewerFiles {
  std::string index_html;
  std::string style;
  std::string app;
  std::vector<std::string> libs;  // vega, vega-lite, vega-embed, in load order
  std::string reader_wasm;        // coz-reader.wasm: the page's own profile reader (binary), or
                                  // empty in a build without it
  // The page of `coz compare --html`: compare.html (placeholders COZ_NONCE, <!--coz:style-->,
  // <!--coz:data-->, <!--coz:libs-->, <!--coz:app-->) and its script.
  std::string compare_html;
  std::string compare_app;
};

// The analysis a page shows: coz report's, but lines down to two distinct speedups (the page
// hides those below its "min points" control, and can show them). `coz plot` starts from it, and
// the page's reader (coz-cli/wasm) uses it as it is.
analysis::AnalysisOptions page_analysis_options();

// The report a page embeds, as `coz report --json` writes it: `report` must come ranked by
// impact within each progress point and load (analysis::rank_in_groups, SortOrder::kImpact).
std::string page_report_json(const analysis::Report& report, const analysis::ProfileData& data);

// What the page shows: each a JSON document, untrusted (names come from the profile).
struct PageData {
  std::string report_json;    // coz report --json
  std::string sources_json;   // {"file": {"12": "line text", ...}, ...}
  std::string left_out_json;  // [{"file": ..., "reason": ...}]: files whose source is not shown
  size_t min_points = 5;
};

// The page, or false with `error` when the template lacks a placeholder. JSON goes into
// <script type="application/json"> with every '<' escaped, and "</script" in the scripts is
// escaped, so nothing from the data or the libraries can end a script element.
bool build_page(const ViewerFiles& viewer, const PageData& data, const std::string& nonce,
                std::string* page, std::string* error);

// The page of a comparison (`coz compare --json`'s document, untrusted), or false with `error`
// when the template lacks a placeholder; escaped as build_page escapes.
bool build_compare_page(const ViewerFiles& viewer, const std::string& compare_json,
                        const std::string& nonce, std::string* page, std::string* error);

}  // namespace coz::output
