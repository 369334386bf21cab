//===- Lexer.h - Tokens of the Phobos language ------------------*- C++ -*-===//
//
// Splits a source buffer into tokens, inserting statement terminators at
// newlines by Go's rule: after an identifier, a literal, `true`, `false`,
// `)`, `]` or `}`.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_LEXER_H
#define PHOBOS_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <vector>

namespace phobos::frontend {

class Diagnostics;

enum class TokenKind {
  Eof,
  Identifier,
  Integer,
  Float,
  // Keywords.
  KwKernel, KwLet, KwVar, KwIf, KwElse, KwFor, KwIn, KwWhile, KwTrue, KwFalse,
  // Punctuation.
  At, LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Colon,
  ColonPlus, Semicolon, Dot,
  Assign, PlusAssign, MinusAssign, StarAssign, SlashAssign,
  Plus, Minus, Star, Slash, Percent,
  EqEq, NotEq, Less, LessEq, Greater, GreaterEq, Not, AndAnd, OrOr,
};

/// How a token kind reads in a message: `'('`, `identifier`, `newline`.
const char *describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  llvm::StringRef text;
  /// For a Semicolon: true when the lexer inserted it at a newline or at
  /// the end of the input.
  bool implicit = false;
  int64_t intValue = 0;
  /// A Float's value: the literal rounded once to f32 (infinite beyond it).
  double floatValue = 0;

  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(TokenKind k) const { return kind == k; }
};

/// Tokenizes all of `buffer`. On a lexical error, reports it and returns
/// false; `tokens` then ends in Eof at the error.
bool tokenize(llvm::StringRef buffer, Diagnostics &diags,
              std::vector<Token> &tokens);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_LEXER_H
