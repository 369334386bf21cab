//===- Parser.h - Parses Phobos source into an AST --------------*- C++ -*-===//
//
// A recursive-descent parser over the token stream. It stops at the first
// syntax error, which it reports with its location.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_PARSER_H
#define PHOBOS_FRONTEND_PARSER_H

#include "Phobos/Frontend/AST.h"

#include <cstddef>
#include <memory>

namespace phobos::frontend {

class Diagnostics;

/// The largest source the front end reads (1 MiB).
inline constexpr size_t kMaxSourceBytes = size_t(1) << 20;

/// Parses the whole buffer `diags` was made for (at most kMaxSourceBytes).
/// Returns null after reporting an error.
std::unique_ptr<ast::Program> parseProgram(Diagnostics &diags);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_PARSER_H
