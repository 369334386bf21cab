//===- Page.cpp - The visualizer's self-contained page --------------------===//
//
// The page is Page/viz.html with Page/viz.css, Page/viz.js and the data
// put in at its three markers; the three files are compiled into the
// library (EmbedPage.cmake), so the tool needs no file beside it and the
// page no server and no network.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Viz/Visualization.h"

#include "llvm/ADT/StringRef.h"

namespace {
#include "PageAssets.inc"
} // namespace

/// JSON as the text of a `<script>` element: `<` only occurs inside JSON
/// strings, where `\u003c` means the same, so no `</script>` or `<!--` can
/// end or change the element.
static void writeScriptSafeJson(const llvm::json::Value &data,
                                llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream json(text);
  json << data;
  for (char c : text) {
    if (c == '<')
      os << "\\u003c";
    else
      os << c;
  }
}

void phobos::viz::writeVisualizationPage(const llvm::json::Value &data,
                                         llvm::raw_ostream &os) {
  llvm::StringRef page = kPageHtml;
  struct Marker {
    llvm::StringRef text;
    std::function<void()> write;
  };
  const Marker markers[] = {
      {"<!--PHOBOS_VIZ_STYLE-->",
       [&] { os << "<style>\n"
                << kPageCss << "</style>"; }},
      {"<!--PHOBOS_VIZ_DATA-->",
       [&] {
         os << "<script type=\"application/json\" id=\"phobos-viz-data\">";
         writeScriptSafeJson(data, os);
         os << "</script>";
       }},
      {"<!--PHOBOS_VIZ_SCRIPT-->",
       [&] { os << "<script>\n"
                << kPageJs << "</script>"; }},
  };
  for (const Marker &marker : markers) {
    auto [before, after] = page.split(marker.text);
    os << before;
    marker.write();
    page = after;
  }
  os << page;
}
