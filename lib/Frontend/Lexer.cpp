//===- Lexer.cpp - Tokens of the Phobos language --------------------------===//

#include "Phobos/Frontend/Lexer.h"
#include "Phobos/Frontend/Diagnostics.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace phobos::frontend;
using llvm::StringRef;

const char *phobos::frontend::describe(TokenKind kind) {
  switch (kind) {
  case TokenKind::Eof: return "end of input";
  case TokenKind::Identifier: return "identifier";
  case TokenKind::Integer: return "integer literal";
  case TokenKind::Float: return "float literal";
  case TokenKind::KwKernel: return "'kernel'";
  case TokenKind::KwLet: return "'let'";
  case TokenKind::KwVar: return "'var'";
  case TokenKind::KwIf: return "'if'";
  case TokenKind::KwElse: return "'else'";
  case TokenKind::KwFor: return "'for'";
  case TokenKind::KwIn: return "'in'";
  case TokenKind::KwWhile: return "'while'";
  case TokenKind::KwTrue: return "'true'";
  case TokenKind::KwFalse: return "'false'";
  case TokenKind::At: return "'@'";
  case TokenKind::LParen: return "'('";
  case TokenKind::RParen: return "')'";
  case TokenKind::LBracket: return "'['";
  case TokenKind::RBracket: return "']'";
  case TokenKind::LBrace: return "'{'";
  case TokenKind::RBrace: return "'}'";
  case TokenKind::Comma: return "','";
  case TokenKind::Colon: return "':'";
  case TokenKind::ColonPlus: return "':+'";
  case TokenKind::Semicolon: return "';'";
  case TokenKind::Dot: return "'.'";
  case TokenKind::Assign: return "'='";
  case TokenKind::PlusAssign: return "'+='";
  case TokenKind::MinusAssign: return "'-='";
  case TokenKind::StarAssign: return "'*='";
  case TokenKind::SlashAssign: return "'/='";
  case TokenKind::Plus: return "'+'";
  case TokenKind::Minus: return "'-'";
  case TokenKind::Star: return "'*'";
  case TokenKind::Slash: return "'/'";
  case TokenKind::Percent: return "'%'";
  case TokenKind::EqEq: return "'=='";
  case TokenKind::NotEq: return "'!='";
  case TokenKind::Less: return "'<'";
  case TokenKind::LessEq: return "'<='";
  case TokenKind::Greater: return "'>'";
  case TokenKind::GreaterEq: return "'>='";
  case TokenKind::Not: return "'!'";
  case TokenKind::AndAnd: return "'&&'";
  case TokenKind::OrOr: return "'||'";
  }
  return "token";
}

/// Go's rule: a newline ends the statement after these tokens.
static bool endsStatement(TokenKind kind) {
  switch (kind) {
  case TokenKind::Identifier:
  case TokenKind::Integer:
  case TokenKind::Float:
  case TokenKind::KwTrue:
  case TokenKind::KwFalse:
  case TokenKind::RParen:
  case TokenKind::RBracket:
  case TokenKind::RBrace:
    return true;
  default:
    return false;
  }
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

namespace {
class Lexer {
public:
  Lexer(StringRef buffer, Diagnostics &diags, std::vector<Token> &tokens)
      : buffer(buffer), diags(diags), tokens(tokens) {}

  bool run();

private:
  void push(TokenKind kind, size_t begin, size_t end) {
    Token token;
    token.kind = kind;
    token.text = buffer.slice(begin, end);
    tokens.push_back(token);
  }
  /// Inserts an implicit terminator at `pos` if the last token asks for one.
  void terminateLine(size_t pos) {
    if (!tokens.empty() && endsStatement(tokens.back().kind)) {
      Token token;
      token.kind = TokenKind::Semicolon;
      token.text = buffer.slice(pos, pos);
      token.implicit = true;
      tokens.push_back(token);
    }
  }
  bool error(size_t pos, const llvm::Twine &message);
  bool lexNumber(size_t &pos);

  StringRef buffer;
  Diagnostics &diags;
  std::vector<Token> &tokens;
};
} // namespace

bool Lexer::error(size_t pos, const llvm::Twine &message) {
  diags.error(llvm::SMLoc::getFromPointer(buffer.data() + pos)) << message;
  Token eof;
  eof.kind = TokenKind::Eof;
  eof.text = buffer.slice(pos, pos);
  tokens.push_back(eof);
  return false;
}

bool Lexer::lexNumber(size_t &pos) {
  size_t begin = pos;
  while (pos < buffer.size() && isDigit(buffer[pos]))
    ++pos;
  bool isFloat = false;
  if (pos + 1 < buffer.size() && buffer[pos] == '.' && isDigit(buffer[pos + 1])) {
    isFloat = true;
    ++pos;
    while (pos < buffer.size() && isDigit(buffer[pos]))
      ++pos;
  }
  if (pos < buffer.size() && (buffer[pos] == 'e' || buffer[pos] == 'E')) {
    size_t exp = pos + 1;
    if (exp < buffer.size() && (buffer[exp] == '+' || buffer[exp] == '-'))
      ++exp;
    if (exp >= buffer.size() || !isDigit(buffer[exp]))
      return error(pos, "expected digits in the exponent of a float literal");
    isFloat = true;
    pos = exp;
    while (pos < buffer.size() && isDigit(buffer[pos]))
      ++pos;
  }
  if (pos < buffer.size() && (isIdentStart(buffer[pos]) || buffer[pos] == '.'))
    return error(pos, "unexpected character after a number");

  StringRef text = buffer.slice(begin, pos);
  push(isFloat ? TokenKind::Float : TokenKind::Integer, begin, pos);
  if (isFloat) {
    std::string copy = text.str();
    errno = 0;
    double value = std::strtod(copy.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(value))
      return error(begin, "float literal '" + text + "' is out of range");
    // Every float literal is an f32: rounded once, from the decimal text
    // straight to f32. Through a double first, a literal just above a
    // midpoint of two f32 values can land on the midpoint and round to
    // even, away from its nearest f32. One beyond f32's range becomes an
    // infinity, which Sema refuses.
    llvm::APFloat single(llvm::APFloat::IEEEsingle());
    llvm::Expected<llvm::APFloat::opStatus> status =
        single.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      return error(begin, "float literal '" + text + "' is not a number");
    }
    tokens.back().floatValue = single.convertToFloat();
  } else {
    uint64_t value = 0;
    if (text.getAsInteger(10, value) || value > uint64_t(INT64_MAX))
      return error(begin, "integer literal '" + text +
                              "' does not fit in 64 bits");
    tokens.back().intValue = static_cast<int64_t>(value);
  }
  return true;
}

bool Lexer::run() {
  size_t pos = 0;
  while (pos < buffer.size()) {
    char c = buffer[pos];
    if (c == '\n') {
      terminateLine(pos);
      ++pos;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos;
      continue;
    }
    if (c == '/' && pos + 1 < buffer.size() && buffer[pos + 1] == '/') {
      while (pos < buffer.size() && buffer[pos] != '\n')
        ++pos;
      continue;
    }
    if (isIdentStart(c)) {
      size_t begin = pos;
      while (pos < buffer.size() &&
             (isIdentStart(buffer[pos]) || isDigit(buffer[pos])))
        ++pos;
      StringRef text = buffer.slice(begin, pos);
      TokenKind kind = llvm::StringSwitch<TokenKind>(text)
                           .Case("kernel", TokenKind::KwKernel)
                           .Case("let", TokenKind::KwLet)
                           .Case("var", TokenKind::KwVar)
                           .Case("if", TokenKind::KwIf)
                           .Case("else", TokenKind::KwElse)
                           .Case("for", TokenKind::KwFor)
                           .Case("in", TokenKind::KwIn)
                           .Case("while", TokenKind::KwWhile)
                           .Case("true", TokenKind::KwTrue)
                           .Case("false", TokenKind::KwFalse)
                           .Default(TokenKind::Identifier);
      push(kind, begin, pos);
      continue;
    }
    if (isDigit(c)) {
      if (!lexNumber(pos))
        return false;
      continue;
    }
    char next = pos + 1 < buffer.size() ? buffer[pos + 1] : '\0';
    auto two = [&](TokenKind kind) {
      push(kind, pos, pos + 2);
      pos += 2;
    };
    auto one = [&](TokenKind kind) {
      push(kind, pos, pos + 1);
      pos += 1;
    };
    switch (c) {
    case '@': one(TokenKind::At); continue;
    case '(': one(TokenKind::LParen); continue;
    case ')': one(TokenKind::RParen); continue;
    case '[': one(TokenKind::LBracket); continue;
    case ']': one(TokenKind::RBracket); continue;
    case '{': one(TokenKind::LBrace); continue;
    case '}': one(TokenKind::RBrace); continue;
    case ',': one(TokenKind::Comma); continue;
    case ';': one(TokenKind::Semicolon); continue;
    case '.': one(TokenKind::Dot); continue;
    case '%': one(TokenKind::Percent); continue;
    case ':':
      if (next == '+') two(TokenKind::ColonPlus); else one(TokenKind::Colon);
      continue;
    case '=':
      if (next == '=') two(TokenKind::EqEq); else one(TokenKind::Assign);
      continue;
    case '+':
      if (next == '=') two(TokenKind::PlusAssign); else one(TokenKind::Plus);
      continue;
    case '-':
      if (next == '=') two(TokenKind::MinusAssign); else one(TokenKind::Minus);
      continue;
    case '*':
      if (next == '=') two(TokenKind::StarAssign); else one(TokenKind::Star);
      continue;
    case '/':
      if (next == '=') two(TokenKind::SlashAssign); else one(TokenKind::Slash);
      continue;
    case '!':
      if (next == '=') two(TokenKind::NotEq); else one(TokenKind::Not);
      continue;
    case '<':
      if (next == '=') two(TokenKind::LessEq); else one(TokenKind::Less);
      continue;
    case '>':
      if (next == '=') two(TokenKind::GreaterEq); else one(TokenKind::Greater);
      continue;
    case '&':
      if (next == '&') { two(TokenKind::AndAnd); continue; }
      break;
    case '|':
      if (next == '|') { two(TokenKind::OrOr); continue; }
      break;
    default:
      break;
    }
    unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f)
      return error(pos, "unexpected character '" + std::string(1, c) + "'");
    std::string hex;
    llvm::raw_string_ostream os(hex);
    os << llvm::format_hex(byte, 4);
    return error(pos, "unexpected byte " + hex + " (Phobos source is ASCII)");
  }
  terminateLine(pos);
  Token eof;
  eof.kind = TokenKind::Eof;
  eof.text = buffer.slice(pos, pos);
  tokens.push_back(eof);
  return true;
}

bool phobos::frontend::tokenize(StringRef buffer, Diagnostics &diags,
                                std::vector<Token> &tokens) {
  tokens.clear();
  return Lexer(buffer, diags, tokens).run();
}
