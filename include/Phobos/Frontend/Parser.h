//===- Parser.h - Parses Phobos source into an AST --------------*- C++ -*-===//
//
// A recursive-descent parser over the token stream. It stops at the first
// syntax error, which it reports with its location.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_PARSER_H
#define PHOBOS_FRONTEND_PARSER_H

#include "Phobos/Frontend/AST.h"

#include <memory>

namespace phobos::frontend {

class Diagnostics;

/// Parses the whole buffer `diags` was made for. Returns null after
/// reporting an error.
std::unique_ptr<ast::Program> parseProgram(Diagnostics &diags);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_PARSER_H
