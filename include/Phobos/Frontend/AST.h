//===- AST.h - The Phobos abstract syntax tree ------------------*- C++ -*-===//
//
// What the parser builds: kernels with their attributes, parameters,
// statements and expressions, each with its source position. Sema annotates
// expressions with types and names with the declarations they resolve to.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_AST_H
#define PHOBOS_FRONTEND_AST_H

#include "Phobos/Frontend/Types.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace phobos::frontend::ast {

struct Symbol;

//===----------------------------------------------------------------------===//
// Types as written
//===----------------------------------------------------------------------===//

/// One extent in a written type: a literal or a name.
struct DimSpec {
  std::string name; ///< Empty for a literal.
  int64_t value = 0;
  llvm::SMLoc loc;
  bool isName() const { return !name.empty(); }
};

/// `f32`, `tensor<f32>[M, K]` or `tile<f32>[TM, TN]`.
struct TypeSpec {
  enum class Kind { Scalar, Tensor, Tile };
  Kind kind = Kind::Scalar;
  ScalarKind element = ScalarKind::F32;
  std::vector<DimSpec> dims;
  llvm::SMLoc loc;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind { Int, Float, Bool, Name, Unary, Binary, Call, Subscript,
                    Context };

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

  /// Set by Sema: the value's type in the variant being compiled.
  Type type;

private:
  Kind kind;
  llvm::SMLoc loc;
};

using ExprPtr = std::unique_ptr<Expr>;

class IntExpr : public Expr {
public:
  IntExpr(llvm::SMLoc loc, int64_t value) : Expr(Kind::Int, loc), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Int; }
  int64_t value;
};

class FloatExpr : public Expr {
public:
  FloatExpr(llvm::SMLoc loc, double value)
      : Expr(Kind::Float, loc), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Float; }
  double value;
};

class BoolExpr : public Expr {
public:
  BoolExpr(llvm::SMLoc loc, bool value) : Expr(Kind::Bool, loc), value(value) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Bool; }
  bool value;
};

class NameExpr : public Expr {
public:
  NameExpr(llvm::SMLoc loc, std::string name)
      : Expr(Kind::Name, loc), name(std::move(name)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Name; }
  std::string name;
  Symbol *symbol = nullptr; ///< Set by Sema.
};

enum class UnaryOp { Neg, Not };

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMLoc loc, UnaryOp op, ExprPtr operand)
      : Expr(Kind::Unary, loc), op(op), operand(std::move(operand)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Unary; }
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp { Add, Sub, Mul, Div, Rem, Eq, Ne, Lt, Le, Gt, Ge, And, Or };

/// The operator as the source spells it.
llvm::StringRef spelling(BinaryOp op);

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Kind::Binary, loc), op(op), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Binary; }
  BinaryOp op;
  ExprPtr lhs, rhs;
};

/// The built-in functions, and casts by type name. Sema resolves a call's
/// callee once (lookupBuiltin); later stages switch on the result.
enum class Builtin {
  Unknown,
  Cast, ///< `f16(x)`, `i32(x)`, ...: CallExpr::castTarget says to what
  Exp, Exp2, Log, Log2, Sqrt, Rsqrt, Tanh, Abs,
  TMax, TMin, Where,
  Dot, DotT,
  RowSum, RowMax, RowMin, ColSum, ColMax, ColMin,
  Cumsum, Tril, Transpose,
  Arange, Reshape, ProgramId,
  AtomicAdd, ///< `atomic_add(T[...], v)`: a statement, not a value
};

/// The built-in `name` spells (a scalar type name is a cast), or Unknown.
Builtin lookupBuiltin(llvm::StringRef name);

/// A call of a built-in function or a cast (`f16(x)`).
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMLoc loc, std::string callee, std::vector<ExprPtr> args)
      : Expr(Kind::Call, loc), callee(std::move(callee)),
        args(std::move(args)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Call; }
  std::string callee;
  std::vector<ExprPtr> args;
  /// Set by Sema.
  Builtin builtin = Builtin::Unknown;
  ScalarKind castTarget = ScalarKind::F32; ///< For Builtin::Cast.
};

/// One subscript of `T[...]`.
struct Subscript {
  enum class Kind { Point, Range, Sized, Full };
  Kind kind = Kind::Point;
  ExprPtr start; ///< Point index or slice start; null for Full.
  ExprPtr end;   ///< Range end (exclusive) or Sized length; null otherwise.
  llvm::SMLoc loc;
  /// Set by Sema for slices: the tile extent along this axis.
  int64_t extent = 0;
};

class SubscriptExpr : public Expr {
public:
  SubscriptExpr(llvm::SMLoc loc, ExprPtr base, std::vector<Subscript> subs)
      : Expr(Kind::Subscript, loc), base(std::move(base)),
        subscripts(std::move(subs)) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Subscript; }
  ExprPtr base;
  std::vector<Subscript> subscripts;
};

/// `ctx.block.x` (a CTA's index) or `ctx.grid.y` (the grid's extent).
class ContextExpr : public Expr {
public:
  enum class Field { Block, Grid };
  ContextExpr(llvm::SMLoc loc, Field field, unsigned axis)
      : Expr(Kind::Context, loc), field(field), axis(axis) {}
  static bool classof(const Expr *e) { return e->getKind() == Kind::Context; }
  Field field;
  unsigned axis;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt {
public:
  enum class Kind { Let, Assign, Call, For, While, If };
  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  Kind kind;
  llvm::SMLoc loc;
};

using StmtPtr = std::unique_ptr<Stmt>;

struct Block {
  std::vector<StmtPtr> stmts;
  llvm::SMLoc loc;
};

/// `let`/`var` NAME (`:` TYPE)? `=` EXPR
class LetStmt : public Stmt {
public:
  LetStmt(llvm::SMLoc loc) : Stmt(Kind::Let, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Let; }
  bool isVar = false;
  std::string name;
  llvm::SMLoc nameLoc;
  std::optional<TypeSpec> declaredType;
  ExprPtr init;
  Symbol *symbol = nullptr; ///< Set by Sema.
};

enum class AssignOp { Set, Add, Sub, Mul, Div };

/// The operator a compound assignment applies (`+=`: Add), none for `=`.
std::optional<BinaryOp> compoundOp(AssignOp op);

/// NAME op= EXPR, or TENSOR[...] op= EXPR.
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMLoc loc) : Stmt(Kind::Assign, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Assign; }
  AssignOp op = AssignOp::Set;
  ExprPtr target; ///< A NameExpr or a SubscriptExpr.
  ExprPtr value;
};

/// A built-in called for its effect on a tensor: `atomic_add(T[...], v)`.
class CallStmt : public Stmt {
public:
  CallStmt(llvm::SMLoc loc, ExprPtr call)
      : Stmt(Kind::Call, loc), call(std::move(call)) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::Call; }
  ExprPtr call; ///< A CallExpr.
};

/// Statements that carry mutable state through structured control flow
/// (scf iter_args and results): Sema lists the variables they assign that
/// were declared outside them.
class ControlStmt : public Stmt {
public:
  using Stmt::Stmt;
  static bool classof(const Stmt *s) {
    return s->getKind() == Kind::For || s->getKind() == Kind::While ||
           s->getKind() == Kind::If;
  }
  std::vector<Symbol *> carried;
};

/// `for NAME in range(start, end [, step]) { ... }`
class ForStmt : public ControlStmt {
public:
  ForStmt(llvm::SMLoc loc) : ControlStmt(Kind::For, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::For; }
  std::string var;
  llvm::SMLoc varLoc;
  llvm::SMLoc rangeLoc;
  ExprPtr start, end, step; ///< step may be null (1).
  Block body;
  Symbol *symbol = nullptr; ///< The induction variable, set by Sema.
  int64_t stepValue = 1;    ///< Set by Sema.
};

class WhileStmt : public ControlStmt {
public:
  WhileStmt(llvm::SMLoc loc) : ControlStmt(Kind::While, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::While; }
  ExprPtr cond;
  Block body;
};

class IfStmt : public ControlStmt {
public:
  IfStmt(llvm::SMLoc loc) : ControlStmt(Kind::If, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == Kind::If; }
  ExprPtr cond;
  Block thenBlock;
  /// `else { ... }`; an `else if` is a block holding one IfStmt.
  std::optional<Block> elseBlock;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// One argument of an attribute: `NAME in [a, b, ...]`, `NAME = expr` or a
/// positional expression.
struct AttrArg {
  enum class Kind { InList, Assign, Positional };
  Kind kind = Kind::Positional;
  std::string name;
  llvm::SMLoc loc;
  std::vector<std::pair<int64_t, llvm::SMLoc>> values; ///< InList.
  ExprPtr value;                                       ///< Assign/Positional.
};

struct Attribute {
  std::string name;
  llvm::SMLoc loc;
  bool hasParens = false;
  std::vector<AttrArg> args;
};

struct Param {
  std::string name;
  llvm::SMLoc loc;
  TypeSpec type;
};

struct Kernel {
  std::vector<Attribute> attributes;
  std::string name;
  llvm::SMLoc loc;
  std::vector<Param> params;
  Block body;
};

struct Program {
  std::vector<std::unique_ptr<Kernel>> kernels;
};

} // namespace phobos::frontend::ast

#endif // PHOBOS_FRONTEND_AST_H
