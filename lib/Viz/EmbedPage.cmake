# Writes the visualizer's page (Page/viz.html, viz.css, viz.js) as C++ raw
# string literals, so that the library carries the page and the tool needs
# no file beside it.
# Usage: cmake -DOUTPUT=F.inc -DHTML=... -DCSS=... -DJS=... -P EmbedPage.cmake
set(text "// Generated from lib/Viz/Page by EmbedPage.cmake; do not edit.\n")
foreach(pair "kPageHtml;${HTML}" "kPageCss;${CSS}" "kPageJs;${JS}")
  list(GET pair 0 name)
  list(GET pair 1 path)
  file(READ "${path}" content)
  string(FIND "${content}" ")phobosviz\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw string's end marker")
  endif()
  string(APPEND text "static constexpr char ${name}[] = R\"phobosviz(${content})phobosviz\";\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
