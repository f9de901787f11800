// The pieces of `coz plot` that handle untrusted data: `file:line` splitting, which files count as
// source, the snippets taken from them, and the page they are inlined into (issue 12).
#include <gtest/gtest.h>

#include "analysis/location.h"
#include "commands/source_snippets.h"
#include "output/html_page.h"

namespace coz {
namespace {

TEST(Location, SplitsStrictlyAndBoundsTheLine) {
  analysis::Location l = analysis::parse_location("/src/a:b.c:12");
  ASSERT_TRUE(l.is_file_line());
  EXPECT_EQ(l.name, "/src/a:b.c:12");
  EXPECT_EQ(l.file, "/src/a:b.c");
  EXPECT_EQ(l.number, 12u);
  l = analysis::parse_location("a.c:2147483647");
  EXPECT_TRUE(l.is_file_line());
  EXPECT_EQ(l.number, 2147483647u);
  for (const char* bad : {"a.c:2147483648", "a.c:9223372036854775803", "a.c:-1", "a.c:+1", "a.c: 1",
                          "a.c:1x", "a.c:", ":12", "a.c", "a.c:0", "a.c:99999999999999999999"}) {
    l = analysis::parse_location(bad);
    EXPECT_FALSE(l.is_file_line()) << bad;
    EXPECT_EQ(l.name, bad);  // only the name
    EXPECT_EQ(l.file, "") << bad;
    EXPECT_EQ(l.number, 0u) << bad;
  }
}

TEST(SourceSnippets, KnowsSourceFilesByExtension) {
  for (const char* yes :
       {"a.c", "b/a.CPP", "x.h", "m.rs", "k.go", "f.F90", "s.S", "k.cu", "z.zig", "d.d", "t.tcc"}) {
    EXPECT_TRUE(cli::has_source_extension(yes)) << yes;
  }
  for (const char* no : {"id_rsa", ".bashrc", "a.c.bak", "data.bin", "notes.txt", "x.",
                         "dir.c/file", ".c", "passwd", "key.pem"}) {
    EXPECT_FALSE(cli::has_source_extension(no)) << no;
  }
}

analysis::Report report_of(const std::vector<std::string>& lines) {
  analysis::Report r;
  for (const std::string& l : lines) {
    analysis::Series s;
    s.line = analysis::parse_location(l);
    r.series.push_back(s);
  }
  return r;
}

TEST(SourceSnippets, TakesTheLinesAroundEachLineAsCleanText) {
  std::string text;
  for (int i = 1; i <= 20; i++) {
    text += "line " + std::to_string(i) + (i == 10 ? std::string(" \xff\xc3(") : std::string()) +
            (i == 11 ? std::string(5000, 'y') : std::string()) + "\n";
  }
  auto reader = [&](const std::string& file, std::string* out, std::string* reason) {
    if (file == "bin.c") {
      *out = std::string("a\0b\n", 4);
      return true;
    }
    if (file == "gone.c") {
      *reason = "not found";
      return false;
    }
    *out = text;
    return true;
  };
  cli::Snippets s = cli::source_snippets(
      report_of({"a.c:10", "a.c:2147483647", "bin.c:1", "gone.c:1", "bad"}), reader);
  EXPECT_NE(s.json.find("\"6\": \"line 6\""), std::string::npos) << s.json;
  EXPECT_NE(s.json.find("\"14\": \"line 14\""), std::string::npos);
  EXPECT_EQ(s.json.find("\"5\": "), std::string::npos);
  EXPECT_NE(s.json.find("\"10\": \"line 10 \xef\xbf\xbd\xef\xbf\xbd(\""), std::string::npos)
      << "invalid UTF-8 replaced";
  EXPECT_EQ(s.json.find(std::string(1001, 'y')), std::string::npos) << "long lines cut";
  ASSERT_EQ(s.left_out.size(), 2u);
  EXPECT_EQ(s.left_out_line(),
            "source not shown for 2 files: bin.c (not text), gone.c (not found)");
  EXPECT_EQ(s.left_out_json(),
            "[\n  {\n    \"file\": \"bin.c\",\n    \"reason\": \"not text\"\n  },\n  {\n"
            "    \"file\": \"gone.c\",\n    \"reason\": \"not found\"\n  }\n]\n");
}

TEST(HtmlPage, DataCannotEndItsScriptOrFillAPlaceholder) {
  output::ViewerFiles viewer;
  viewer.index_html =
      "<head>COZ_NONCE<!--coz:style--></"
      "head><!--coz:data--><!--coz:libs--><!--coz:reader--><!--coz:app-->";
  viewer.style = "s{}";
  viewer.app = "x = '</script>';";
  viewer.libs = {"lib1", "y = '</SCRIPT>'"};
  viewer.reader_wasm = std::string("\0asm\x01", 5);
  output::PageData data;
  data.report_json = "{\"a\": \"</script><!--coz:app-->\"}";
  data.sources_json = "{\"f\": {\"1\": \"<!--coz:libs-->COZ_NONCE\"}}";
  data.left_out_json = "[]";
  std::string page, error;
  ASSERT_TRUE(output::build_page(viewer, data, "n0nce", &page, &error)) << error;
  EXPECT_EQ(page.find("</script><!--"), std::string::npos);
  EXPECT_NE(page.find("{\"a\": \"\\u003c/script>\\u003c!--coz:app-->\"}"), std::string::npos)
      << page;
  EXPECT_NE(page.find("\\u003c!--coz:libs-->COZ_NONCE"), std::string::npos)
      << "data is never filled in";
  EXPECT_NE(page.find("x = '<\\/script>';"), std::string::npos);
  EXPECT_NE(page.find("y = '<\\/SCRIPT>'"), std::string::npos);
  EXPECT_EQ(page.rfind("<head>n0nce<style>", 0), 0u);
  EXPECT_NE(page.find("id=\"coz-reader\">AGFzbQE=</script>"), std::string::npos)
      << "the reader's bytes, base64";
  viewer.index_html = "<head></head>";
  EXPECT_FALSE(output::build_page(viewer, data, "n", &page, &error));
  EXPECT_NE(error.find("lacks its placeholder"), std::string::npos);
}

}  // namespace
}  // namespace coz
