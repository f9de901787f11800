// Inlines the viewer and the report into one HTML page (see html_page.h).
#include "output/html_page.h"

#include <strings.h>

#include <algorithm>
#include <utility>

#include "output/report_output.h"

namespace coz::output {
namespace {

// JSON inside <script type="application/json">: no '<', so no "</script>" or "<!--" can end it.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// "</script" cannot occur in JavaScript outside a string or pattern, where "<\/" means the same.
std::string escape_script_end(std::string js) {
  size_t at = 0;
  while ((at = js.find("</", at)) != std::string::npos) {
    if (strncasecmp(js.c_str() + at + 2, "script", 6) == 0) {
      js.replace(at, 2, "<\\/");
      at += 3;
    } else {
      at += 2;
    }
  }
  return js;
}

// Standard base64 (RFC 4648, padded): the reader's bytes as page text. Its alphabet has no '<',
// so nothing in it can end the script element that holds it.
std::string base64(const std::string& bytes) {
  static const char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    size_t left = bytes.size() - i;
    if (left > 1) {
      n |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    if (left > 2) {
      n |= static_cast<unsigned char>(bytes[i + 2]);
    }
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += left > 1 ? kAlphabet[(n >> 6) & 63] : '=';
    out += left > 2 ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::string json_element(const char* id, const std::string& text) {
  return std::string("<script type=\"application/json\" id=\"") + id + "\">" + script_safe(text) +
         "</script>\n";
}

std::string inline_libs(const ViewerFiles& viewer, const std::string& open) {
  std::string libs;
  for (const std::string& lib : viewer.libs) {
    libs += open + escape_script_end(lib) + "\n</script>\n";
  }
  return libs;
}

// `tmpl` (the viewer's file `name`) with each placeholder replaced by its fill. Each placeholder
// is looked for in the template only, so nothing inserted can be mistaken for one.
bool fill_template(const std::string& tmpl, const char* name,
                   const std::vector<std::pair<std::string, std::string>>& fills, std::string* page,
                   std::string* error) {
  std::vector<std::pair<size_t, size_t>> at;  // (position in the template, fill)
  for (size_t i = 0; i < fills.size(); i++) {
    size_t pos = tmpl.find(fills[i].first);
    if (pos == std::string::npos) {
      *error = std::string("the viewer's ") + name + " lacks its placeholder " + fills[i].first +
               "; reinstall";
      return false;
    }
    at.emplace_back(pos, i);
  }
  std::sort(at.begin(), at.end());
  page->clear();
  size_t from = 0;
  for (const auto& [pos, i] : at) {
    if (pos < from) {
      *error = std::string("the viewer's ") + name + " has overlapping placeholders; reinstall";
      return false;
    }
    page->append(tmpl, from, pos - from);
    page->append(fills[i].second);
    from = pos + fills[i].first.size();
  }
  page->append(tmpl, from, std::string::npos);
  return true;
}

}  // namespace

analysis::AnalysisOptions page_analysis_options() {
  analysis::AnalysisOptions options;
  options.min_speedups = 2;
  return options;
}

std::string page_report_json(const analysis::Report& report, const analysis::ProfileData& data) {
  return render_json(RenderContext{report, data, "impact"});
}

bool build_page(const ViewerFiles& viewer, const PageData& data, const std::string& nonce,
                std::string* page, std::string* error) {
  std::string open = "<script nonce=\"" + nonce + "\">\n";
  std::string libs = inline_libs(viewer, open);
  auto json = json_element;
  std::string view = "{\"min_points\": " + std::to_string(data.min_points) + "}";
  // Each placeholder is looked for in the template only, so nothing inserted can be mistaken for
  // one.
  std::vector<std::pair<std::string, std::string>> fills = {
      {"COZ_NONCE", nonce},
      {"<!--coz:style-->", "<style>\n" + viewer.style + "</style>"},
      {"<!--coz:data-->",
       json("coz-report", data.report_json) + json("coz-sources", data.sources_json) +
           json("coz-sources-left-out", data.left_out_json) + json("coz-view", view)},
      {"<!--coz:libs-->", libs},
      {"<!--coz:reader-->", "<script type=\"application/octet-stream\" id=\"coz-reader\">" +
                                base64(viewer.reader_wasm) + "</script>\n"},
      {"<!--coz:app-->", open + escape_script_end(viewer.app) + "</script>"},
  };
  return fill_template(viewer.index_html, "index.html", fills, page, error);
}

bool build_compare_page(const ViewerFiles& viewer, const std::string& compare_json,
                        const std::string& nonce, std::string* page, std::string* error) {
  std::string open = "<script nonce=\"" + nonce + "\">\n";
  std::vector<std::pair<std::string, std::string>> fills = {
      {"COZ_NONCE", nonce},
      {"<!--coz:style-->", "<style>\n" + viewer.style + "</style>"},
      {"<!--coz:data-->", json_element("coz-compare", compare_json)},
      {"<!--coz:libs-->", inline_libs(viewer, open)},
      {"<!--coz:app-->", open + escape_script_end(viewer.compare_app) + "</script>"},
  };
  return fill_template(viewer.compare_html, "compare.html", fills, page, error);
}

}  // namespace coz::output
