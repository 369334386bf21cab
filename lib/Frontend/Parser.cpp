//===- Parser.cpp - Parses Phobos source into an AST ----------------------===//
//
// Grammar (terminators `;` come from newlines or are written):
//
//   program   := kernel*
//   kernel    := attribute* 'kernel' IDENT '(' params ')' block
//   attribute := '@' IDENT ( '(' attr-arg (',' attr-arg)* ')' )?
//   attr-arg  := IDENT 'in' '[' INT (',' INT)* ']' | IDENT '=' expr | expr
//   param     := IDENT ':' type
//   type      := IDENT | ('tensor' | 'tile') '<' IDENT '>' '[' dim (',' dim)* ']'
//   block     := '{' (stmt ';')* stmt? '}'
//   stmt      := ('let' | 'var') IDENT (':' type)? '=' expr
//              | 'for' IDENT 'in' IDENT '(' expr ',' expr (',' expr)? ')' block
//              | 'while' expr block
//              | 'if' expr block ('else' (if-stmt | block))?
//              | postfix ('=' | '+=' | '-=' | '*=' | '/=') expr
//              | call            (a built-in with an effect: atomic_add)
//   expr      := binary expressions, loosest first: || && (== !=)
//                (< <= > >=) (+ -) (* / %), then unary - !, then postfix
//   postfix   := primary ('[' subscript (',' subscript)* ']' | '(' args ')'
//                         | '.' IDENT)*
//   subscript := ':' | expr | expr ':' expr | expr ':+' expr
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/Lexer.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;

/// Deeper nesting than this is reported instead of risking the stack.
static constexpr unsigned kMaxNesting = 200;
/// Operators one statement may hold: later stages walk expressions
/// recursively, so a chain `1 + 1 + ...` is as deep as it is long.
static constexpr unsigned kMaxOperators = 1000;

namespace {
class Parser {
public:
  Parser(Diagnostics &diags, std::vector<Token> tokens)
      : diags(diags), tokens(std::move(tokens)) {}

  std::unique_ptr<Program> parseProgram();

private:
  //===--- Token stream ---------------------------------------------------===//
  const Token &tok() const { return tokens[pos]; }
  const Token &peek(size_t ahead = 1) const {
    return tokens[std::min(pos + ahead, tokens.size() - 1)];
  }
  bool is(TokenKind kind) const { return tok().is(kind); }
  void consume() {
    if (pos + 1 < tokens.size())
      ++pos;
  }
  bool consumeIf(TokenKind kind) {
    if (!is(kind))
      return false;
    consume();
    return true;
  }
  void skipTerminators() {
    while (is(TokenKind::Semicolon))
      consume();
  }
  /// Reports `what was expected` at the current token.
  bool expected(const llvm::Twine &what);
  bool expect(TokenKind kind, const llvm::Twine &context);
  bool error(SMLoc loc, const llvm::Twine &message);
  /// How the current token reads in a message.
  std::string describeCurrent() const;

  //===--- Grammar ------------------------------------------------------===//
  std::unique_ptr<Kernel> parseKernel();
  bool parseAttribute(Attribute &attr);
  bool parseParam(Param &param);
  bool parseType(TypeSpec &type);
  bool parseBlock(Block &block);
  /// A block that must start here: reports "expected '{' to open `what`"
  /// when the current token is not '{'.
  bool parseBody(Block &block, const llvm::Twine &what);
  /// Parses `element` up to a ')', which it consumes, the elements
  /// separated by ','; reports "expected ',' or ')' in `where`" when neither
  /// follows one.
  bool parseParenList(const llvm::Twine &where,
                      llvm::function_ref<bool()> element);
  StmtPtr parseStmt();
  StmtPtr parseLet();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  StmtPtr parseIf();
  StmtPtr parseAssign();

  ExprPtr parseExpr();
  /// Parses an expression onto the end of `exprs`.
  bool parseExprInto(std::vector<ExprPtr> &exprs);
  ExprPtr parseBinary(int level);
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  bool parseSubscript(Subscript &sub);
  ExprPtr parseContext(SMLoc loc);

  /// Guards recursion; returns false (after an error) when too deep.
  bool enter(SMLoc loc);
  void leave() { --depth; }
  /// Counts one more operator of the current statement.
  bool countOperator(SMLoc loc);

  Diagnostics &diags;
  std::vector<Token> tokens;
  size_t pos = 0;
  unsigned depth = 0;
  unsigned operators = 0;
  bool failed = false;
};
} // namespace

std::string Parser::describeCurrent() const {
  const Token &t = tok();
  if (t.is(TokenKind::Semicolon) && t.implicit)
    return t.text.data() && *t.text.data() == '\n' ? "end of line"
                                                   : "end of input";
  if (t.is(TokenKind::Eof))
    return "end of input";
  if (t.is(TokenKind::Identifier) || t.is(TokenKind::Integer) ||
      t.is(TokenKind::Float))
    return (llvm::Twine(describe(t.kind)) + " '" + t.text + "'").str();
  return describe(t.kind);
}

bool Parser::error(SMLoc loc, const llvm::Twine &message) {
  if (!failed)
    diags.error(loc) << message.str();
  failed = true;
  return false;
}

bool Parser::expected(const llvm::Twine &what) {
  return error(tok().loc(), "expected " + what + ", got " + describeCurrent());
}

bool Parser::expect(TokenKind kind, const llvm::Twine &context) {
  if (consumeIf(kind))
    return true;
  return expected(llvm::Twine(describe(kind)) + " " + context);
}

bool Parser::parseParenList(const llvm::Twine &where,
                            llvm::function_ref<bool()> element) {
  while (!is(TokenKind::RParen)) {
    if (!element())
      return false;
    if (consumeIf(TokenKind::Comma))
      continue;
    if (!is(TokenKind::RParen))
      return expected("',' or ')' in " + where);
  }
  consume();
  return true;
}

bool Parser::countOperator(SMLoc loc) {
  if (++operators <= kMaxOperators)
    return true;
  return error(loc, "a statement holds more than " + llvm::Twine(kMaxOperators) +
                        " operators; split it with 'let'");
}

bool Parser::enter(SMLoc loc) {
  if (++depth > kMaxNesting) {
    --depth;
    return error(loc, "nesting is deeper than " + llvm::Twine(kMaxNesting) +
                          " levels");
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Kernels, attributes, parameters, types
//===----------------------------------------------------------------------===//

std::unique_ptr<Program> Parser::parseProgram() {
  auto program = std::make_unique<Program>();
  skipTerminators();
  while (!is(TokenKind::Eof)) {
    auto kernel = parseKernel();
    if (!kernel)
      return nullptr;
    program->kernels.push_back(std::move(kernel));
    skipTerminators();
  }
  if (program->kernels.empty()) {
    error(tok().loc(), "expected a kernel, got end of input");
    return nullptr;
  }
  return program;
}

std::unique_ptr<Kernel> Parser::parseKernel() {
  auto kernel = std::make_unique<Kernel>();
  while (is(TokenKind::At)) {
    Attribute attr;
    if (!parseAttribute(attr))
      return nullptr;
    kernel->attributes.push_back(std::move(attr));
    skipTerminators();
  }
  if (!is(TokenKind::KwKernel)) {
    expected(kernel->attributes.empty() ? "'kernel' or an attribute"
                                        : "'kernel' after the attributes");
    return nullptr;
  }
  consume();
  if (!is(TokenKind::Identifier)) {
    expected("the kernel's name");
    return nullptr;
  }
  kernel->name = tok().text.str();
  kernel->loc = tok().loc();
  consume();
  if (!expect(TokenKind::LParen, "to open the parameter list"))
    return nullptr;
  bool paramsParsed = parseParenList("the parameter list", [&] {
    Param param;
    if (!parseParam(param))
      return false;
    kernel->params.push_back(std::move(param));
    return true;
  });
  if (!paramsParsed)
    return nullptr;
  if (!parseBody(kernel->body, "the kernel's body"))
    return nullptr;
  if (!is(TokenKind::Semicolon) && !is(TokenKind::Eof)) {
    expected("a new line after the kernel's body");
    return nullptr;
  }
  return kernel;
}

bool Parser::parseAttribute(Attribute &attr) {
  consume(); // '@'
  if (!is(TokenKind::Identifier))
    return expected("an attribute name after '@'");
  attr.name = tok().text.str();
  attr.loc = tok().loc();
  consume();
  if (!consumeIf(TokenKind::LParen))
    return true;
  attr.hasParens = true;
  return parseParenList("the arguments of @" + attr.name, [&] {
    AttrArg arg;
    arg.loc = tok().loc();
    if (is(TokenKind::Identifier) && peek().is(TokenKind::KwIn)) {
      arg.kind = AttrArg::Kind::InList;
      arg.name = tok().text.str();
      consume();
      consume(); // 'in'
      if (!expect(TokenKind::LBracket, "to open the list of values"))
        return false;
      while (true) {
        bool negative = consumeIf(TokenKind::Minus);
        if (!is(TokenKind::Integer))
          return expected("an integer in the list of values");
        int64_t value = tok().intValue;
        arg.values.emplace_back(negative ? -value : value, tok().loc());
        consume();
        if (consumeIf(TokenKind::Comma))
          continue;
        if (!expect(TokenKind::RBracket, "to close the list of values"))
          return false;
        break;
      }
    } else if (is(TokenKind::Identifier) && peek().is(TokenKind::Assign)) {
      arg.kind = AttrArg::Kind::Assign;
      arg.name = tok().text.str();
      consume();
      consume(); // '='
      arg.value = parseExpr();
      if (!arg.value)
        return false;
    } else {
      arg.kind = AttrArg::Kind::Positional;
      arg.value = parseExpr();
      if (!arg.value)
        return false;
    }
    attr.args.push_back(std::move(arg));
    return true;
  });
}

bool Parser::parseParam(Param &param) {
  if (!is(TokenKind::Identifier))
    return expected("a parameter name");
  param.name = tok().text.str();
  param.loc = tok().loc();
  consume();
  if (!expect(TokenKind::Colon, "and a type after the parameter name"))
    return false;
  return parseType(param.type);
}

bool Parser::parseType(TypeSpec &type) {
  if (!is(TokenKind::Identifier))
    return expected("a type");
  type.loc = tok().loc();
  llvm::StringRef name = tok().text;
  if (name == "tensor" || name == "tile") {
    type.kind = name == "tensor" ? TypeSpec::Kind::Tensor : TypeSpec::Kind::Tile;
    consume();
    if (!expect(TokenKind::Less, "after '" + name + "'"))
      return false;
    if (!is(TokenKind::Identifier))
      return expected("an element type");
    std::optional<ScalarKind> element = parseScalarKind(tok().text);
    if (!element)
      return error(tok().loc(), "unknown element type '" + tok().text +
                                    "'; expected f16, bf16, f32, f64, i32, "
                                    "i64 or bool");
    type.element = *element;
    consume();
    if (!expect(TokenKind::Greater, "after the element type"))
      return false;
    if (!expect(TokenKind::LBracket, "to open the " + name + "'s extents"))
      return false;
    while (true) {
      DimSpec dim;
      dim.loc = tok().loc();
      if (is(TokenKind::Identifier)) {
        dim.name = tok().text.str();
      } else if (is(TokenKind::Integer)) {
        dim.value = tok().intValue;
      } else {
        return expected("an extent (a name or an integer)");
      }
      consume();
      type.dims.push_back(std::move(dim));
      if (consumeIf(TokenKind::Comma))
        continue;
      return expect(TokenKind::RBracket, "to close the extents");
    }
  }
  std::optional<ScalarKind> scalar = parseScalarKind(name);
  if (!scalar)
    return error(type.loc, "unknown type '" + name +
                               "'; expected a scalar type, tensor<T>[...] or "
                               "tile<T>[...]");
  type.kind = TypeSpec::Kind::Scalar;
  type.element = *scalar;
  consume();
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

bool Parser::parseBody(Block &block, const llvm::Twine &what) {
  if (!is(TokenKind::LBrace))
    return expected("'{' to open " + what);
  return parseBlock(block);
}

bool Parser::parseBlock(Block &block) {
  block.loc = tok().loc();
  if (!enter(block.loc))
    return false;
  consume(); // '{'
  skipTerminators();
  while (!is(TokenKind::RBrace)) {
    if (is(TokenKind::Eof)) {
      leave();
      return error(block.loc, "this '{' is never closed");
    }
    StmtPtr stmt = parseStmt();
    if (!stmt) {
      leave();
      return false;
    }
    block.stmts.push_back(std::move(stmt));
    if (is(TokenKind::RBrace))
      break;
    if (!is(TokenKind::Semicolon)) {
      leave();
      return expected("a new line or ';' after the statement");
    }
    skipTerminators();
  }
  consume(); // '}'
  leave();
  return true;
}

StmtPtr Parser::parseStmt() {
  operators = 0;
  switch (tok().kind) {
  case TokenKind::KwLet:
  case TokenKind::KwVar:
    return parseLet();
  case TokenKind::KwFor:
    return parseFor();
  case TokenKind::KwWhile:
    return parseWhile();
  case TokenKind::KwIf:
    return parseIf();
  case TokenKind::KwElse:
    error(tok().loc(), "'else' must follow the '}' of an 'if' on the same "
                       "line");
    return nullptr;
  default:
    return parseAssign();
  }
}

StmtPtr Parser::parseLet() {
  auto stmt = std::make_unique<LetStmt>(tok().loc());
  stmt->isVar = is(TokenKind::KwVar);
  consume();
  if (!is(TokenKind::Identifier)) {
    expected(llvm::Twine("a name after '") + (stmt->isVar ? "var" : "let") +
             "'");
    return nullptr;
  }
  stmt->name = tok().text.str();
  stmt->nameLoc = tok().loc();
  consume();
  if (consumeIf(TokenKind::Colon)) {
    TypeSpec type;
    if (!parseType(type))
      return nullptr;
    stmt->declaredType = std::move(type);
  }
  if (!expect(TokenKind::Assign, "and an initial value")) {
    return nullptr;
  }
  stmt->init = parseExpr();
  if (!stmt->init)
    return nullptr;
  return stmt;
}

StmtPtr Parser::parseFor() {
  auto stmt = std::make_unique<ForStmt>(tok().loc());
  consume();
  if (!is(TokenKind::Identifier)) {
    expected("a loop variable after 'for'");
    return nullptr;
  }
  stmt->var = tok().text.str();
  stmt->varLoc = tok().loc();
  consume();
  if (!expect(TokenKind::KwIn, "after the loop variable"))
    return nullptr;
  if (!is(TokenKind::Identifier) || tok().text != "range") {
    expected("'range(...)' after 'in'");
    return nullptr;
  }
  stmt->rangeLoc = tok().loc();
  consume();
  if (!expect(TokenKind::LParen, "after 'range'"))
    return nullptr;
  std::vector<ExprPtr> args;
  if (!parseParenList("range(...)", [&] { return parseExprInto(args); }))
    return nullptr;
  if (args.size() < 2 || args.size() > 3) {
    error(stmt->rangeLoc, "range takes 2 or 3 arguments (start, end[, step]), "
                          "got " + llvm::Twine(args.size()));
    return nullptr;
  }
  stmt->start = std::move(args[0]);
  stmt->end = std::move(args[1]);
  if (args.size() == 3)
    stmt->step = std::move(args[2]);
  if (!parseBody(stmt->body, "the loop body"))
    return nullptr;
  return stmt;
}

StmtPtr Parser::parseWhile() {
  auto stmt = std::make_unique<WhileStmt>(tok().loc());
  consume();
  stmt->cond = parseExpr();
  if (!stmt->cond)
    return nullptr;
  if (!parseBody(stmt->body, "the loop body"))
    return nullptr;
  return stmt;
}

StmtPtr Parser::parseIf() {
  auto stmt = std::make_unique<IfStmt>(tok().loc());
  if (!enter(stmt->getLoc()))
    return nullptr;
  consume();
  stmt->cond = parseExpr();
  if (!stmt->cond) {
    leave();
    return nullptr;
  }
  if (!parseBody(stmt->thenBlock, "the body of the 'if'")) {
    leave();
    return nullptr;
  }
  if (is(TokenKind::Semicolon) && tok().implicit &&
      peek().is(TokenKind::KwElse)) {
    leave();
    error(peek().loc(), "'else' must be on the same line as the '}' that "
                        "closes the 'if'");
    return nullptr;
  }
  if (consumeIf(TokenKind::KwElse)) {
    Block elseBlock;
    elseBlock.loc = tok().loc();
    if (is(TokenKind::KwIf)) {
      StmtPtr nested = parseIf();
      if (!nested) {
        leave();
        return nullptr;
      }
      elseBlock.stmts.push_back(std::move(nested));
    } else if (is(TokenKind::LBrace)) {
      if (!parseBlock(elseBlock)) {
        leave();
        return nullptr;
      }
    } else {
      leave();
      expected("'{' or 'if' after 'else'");
      return nullptr;
    }
    stmt->elseBlock = std::move(elseBlock);
  }
  leave();
  return stmt;
}

StmtPtr Parser::parseAssign() {
  SMLoc loc = tok().loc();
  ExprPtr target = parsePostfix();
  if (!target)
    return nullptr;
  // A call ends the statement: `atomic_add(T[i :+ n], v)`. Sema says which
  // built-ins may stand alone.
  if (isa<CallExpr>(target.get()) &&
      (is(TokenKind::Semicolon) || is(TokenKind::RBrace) || is(TokenKind::Eof)))
    return std::make_unique<CallStmt>(loc, std::move(target));
  AssignOp op;
  switch (tok().kind) {
  case TokenKind::Assign: op = AssignOp::Set; break;
  case TokenKind::PlusAssign: op = AssignOp::Add; break;
  case TokenKind::MinusAssign: op = AssignOp::Sub; break;
  case TokenKind::StarAssign: op = AssignOp::Mul; break;
  case TokenKind::SlashAssign: op = AssignOp::Div; break;
  default:
    expected("'=' or a compound assignment; a statement is let, var, for, "
             "while, if, an assignment or a call of atomic_add");
    return nullptr;
  }
  SMLoc opLoc = tok().loc();
  consume();
  if (!isa<NameExpr>(target.get()) && !isa<SubscriptExpr>(target.get())) {
    error(loc, "only a name or a tensor slice can be assigned to");
    return nullptr;
  }
  auto stmt = std::make_unique<AssignStmt>(opLoc);
  stmt->op = op;
  stmt->target = std::move(target);
  stmt->value = parseExpr();
  if (!stmt->value)
    return nullptr;
  return stmt;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseExpr() {
  if (!enter(tok().loc()))
    return nullptr;
  ExprPtr expr = parseBinary(0);
  leave();
  return expr;
}

bool Parser::parseExprInto(std::vector<ExprPtr> &exprs) {
  ExprPtr expr = parseExpr();
  if (!expr)
    return false;
  exprs.push_back(std::move(expr));
  return true;
}

/// Binary operators by level, loosest first.
static std::optional<BinaryOp> binaryAt(int level, TokenKind kind) {
  switch (level) {
  case 0:
    if (kind == TokenKind::OrOr) return BinaryOp::Or;
    return std::nullopt;
  case 1:
    if (kind == TokenKind::AndAnd) return BinaryOp::And;
    return std::nullopt;
  case 2:
    if (kind == TokenKind::EqEq) return BinaryOp::Eq;
    if (kind == TokenKind::NotEq) return BinaryOp::Ne;
    return std::nullopt;
  case 3:
    if (kind == TokenKind::Less) return BinaryOp::Lt;
    if (kind == TokenKind::LessEq) return BinaryOp::Le;
    if (kind == TokenKind::Greater) return BinaryOp::Gt;
    if (kind == TokenKind::GreaterEq) return BinaryOp::Ge;
    return std::nullopt;
  case 4:
    if (kind == TokenKind::Plus) return BinaryOp::Add;
    if (kind == TokenKind::Minus) return BinaryOp::Sub;
    return std::nullopt;
  case 5:
    if (kind == TokenKind::Star) return BinaryOp::Mul;
    if (kind == TokenKind::Slash) return BinaryOp::Div;
    if (kind == TokenKind::Percent) return BinaryOp::Rem;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

ExprPtr Parser::parseBinary(int level) {
  if (level > 5)
    return parseUnary();
  ExprPtr lhs = parseBinary(level + 1);
  if (!lhs)
    return nullptr;
  while (std::optional<BinaryOp> op = binaryAt(level, tok().kind)) {
    SMLoc loc = tok().loc();
    consume();
    if (!countOperator(loc))
      return nullptr;
    ExprPtr rhs = parseBinary(level + 1);
    if (!rhs)
      return nullptr;
    lhs = std::make_unique<BinaryExpr>(loc, *op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

ExprPtr Parser::parseUnary() {
  if (is(TokenKind::Minus) || is(TokenKind::Not)) {
    SMLoc loc = tok().loc();
    UnaryOp op = is(TokenKind::Minus) ? UnaryOp::Neg : UnaryOp::Not;
    consume();
    if (!countOperator(loc))
      return nullptr;
    if (!enter(loc))
      return nullptr;
    ExprPtr operand = parseUnary();
    leave();
    if (!operand)
      return nullptr;
    return std::make_unique<UnaryExpr>(loc, op, std::move(operand));
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  SMLoc startLoc = tok().loc();
  if (is(TokenKind::Identifier) && tok().text == "ctx" &&
      peek().is(TokenKind::Dot))
    return parseContext(startLoc);
  ExprPtr expr = parsePrimary();
  if (!expr)
    return nullptr;
  while (true) {
    if ((is(TokenKind::LParen) || is(TokenKind::LBracket)) &&
        !countOperator(tok().loc()))
      return nullptr;
    if (is(TokenKind::LParen)) {
      auto *name = dyn_cast<NameExpr>(expr.get());
      if (!name) {
        error(tok().loc(), "only built-in functions can be called");
        return nullptr;
      }
      consume();
      std::vector<ExprPtr> args;
      if (!parseParenList("the arguments of '" + name->name + "'",
                          [&] { return parseExprInto(args); }))
        return nullptr;
      expr = std::make_unique<CallExpr>(name->getLoc(), name->name,
                                        std::move(args));
      continue;
    }
    if (is(TokenKind::LBracket)) {
      SMLoc loc = tok().loc();
      consume();
      std::vector<Subscript> subs;
      while (true) {
        Subscript sub;
        if (!parseSubscript(sub))
          return nullptr;
        subs.push_back(std::move(sub));
        if (consumeIf(TokenKind::Comma))
          continue;
        if (!expect(TokenKind::RBracket, "to close the subscripts"))
          return nullptr;
        break;
      }
      expr = std::make_unique<SubscriptExpr>(loc, std::move(expr),
                                             std::move(subs));
      continue;
    }
    if (is(TokenKind::Dot)) {
      error(tok().loc(), "'.' only follows 'ctx' (ctx.block.x, ctx.grid.y)");
      return nullptr;
    }
    return expr;
  }
}

ExprPtr Parser::parseContext(SMLoc loc) {
  consume(); // ctx
  consume(); // .
  if (!is(TokenKind::Identifier) ||
      (tok().text != "block" && tok().text != "grid")) {
    expected("'block' or 'grid' after 'ctx.'");
    return nullptr;
  }
  auto field = tok().text == "block" ? ContextExpr::Field::Block
                                     : ContextExpr::Field::Grid;
  llvm::StringRef fieldName = tok().text;
  consume();
  if (!expect(TokenKind::Dot, "and an axis after 'ctx." + fieldName + "'"))
    return nullptr;
  if (!is(TokenKind::Identifier) ||
      (tok().text != "x" && tok().text != "y" && tok().text != "z")) {
    expected("'x', 'y' or 'z' after 'ctx." + fieldName + ".'");
    return nullptr;
  }
  unsigned axis = tok().text[0] - 'x';
  consume();
  return std::make_unique<ContextExpr>(loc, field, axis);
}

bool Parser::parseSubscript(Subscript &sub) {
  sub.loc = tok().loc();
  if (is(TokenKind::Colon)) {
    consume();
    if (!is(TokenKind::Comma) && !is(TokenKind::RBracket))
      return error(sub.loc, "open-ended slices are not allowed: write "
                            "'s : e', 's :+ n' or ':' for the whole axis");
    sub.kind = Subscript::Kind::Full;
    return true;
  }
  sub.start = parseExpr();
  if (!sub.start)
    return false;
  if (is(TokenKind::Colon) || is(TokenKind::ColonPlus)) {
    bool sized = is(TokenKind::ColonPlus);
    SMLoc colon = tok().loc();
    consume();
    if (is(TokenKind::Comma) || is(TokenKind::RBracket))
      return error(colon, "open-ended slices are not allowed: write "
                          "'s : e', 's :+ n' or ':' for the whole axis");
    sub.kind = sized ? Subscript::Kind::Sized : Subscript::Kind::Range;
    sub.end = parseExpr();
    return sub.end != nullptr;
  }
  sub.kind = Subscript::Kind::Point;
  return true;
}

ExprPtr Parser::parsePrimary() {
  const Token &t = tok();
  switch (t.kind) {
  case TokenKind::Integer: {
    auto expr = std::make_unique<IntExpr>(t.loc(), t.intValue);
    consume();
    return expr;
  }
  case TokenKind::Float: {
    auto expr = std::make_unique<FloatExpr>(t.loc(), t.floatValue);
    consume();
    return expr;
  }
  case TokenKind::KwTrue:
  case TokenKind::KwFalse: {
    auto expr = std::make_unique<BoolExpr>(t.loc(), t.is(TokenKind::KwTrue));
    consume();
    return expr;
  }
  case TokenKind::Identifier: {
    auto expr = std::make_unique<NameExpr>(t.loc(), t.text.str());
    consume();
    return expr;
  }
  case TokenKind::LParen: {
    SMLoc open = t.loc();
    consume();
    ExprPtr inner = parseExpr();
    if (!inner)
      return nullptr;
    if (!is(TokenKind::RParen)) {
      if (is(TokenKind::Semicolon) && tok().implicit &&
          describeCurrent() == "end of line")
        error(tok().loc(), "expected ')' to close the '(' at " +
                               diags.lineCol(open) +
                               "; a line that ends in an operand ends the "
                               "statement");
      else
        expected("')' to close the '(' at " + diags.lineCol(open));
      return nullptr;
    }
    consume();
    return inner;
  }
  default:
    expected("an expression");
    return nullptr;
  }
}

std::unique_ptr<Program> phobos::frontend::parseProgram(Diagnostics &diags) {
  // Compile time and memory grow with the source (a few seconds and a few
  // hundred MB per MiB of statements); kernels are far smaller, so a larger
  // source is almost surely a mistake, not a kernel.
  llvm::StringRef buffer = diags.getBuffer();
  if (buffer.size() > kMaxSourceBytes) {
    diags.error(llvm::SMLoc::getFromPointer(buffer.data()))
        << "the source is " << buffer.size() << " bytes, more than the "
        << kMaxSourceBytes
        << " Phobos compiles; split it into files of fewer kernels";
    return nullptr;
  }
  std::vector<Token> tokens;
  if (!tokenize(diags.getBuffer(), diags, tokens))
    return nullptr;
  return Parser(diags, std::move(tokens)).parseProgram();
}
