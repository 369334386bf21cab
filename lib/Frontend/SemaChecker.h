//===- SemaChecker.h - The checker, shared by Sema's files ------*- C++ -*-===//
//
// Sema is one class, Checker, in files by concern: Sema.cpp (scopes, types,
// the kernel's parameters, expressions, slices, compile-time constants, the
// entry point), SemaAttributes.cpp (attributes and search spaces),
// SemaStatements.cpp (statements) and SemaBuiltins.cpp (built-in calls).
// Private to lib/Frontend; it also names, once, the LLVM types and casts
// those files use unqualified.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_FRONTEND_SEMACHECKER_H
#define PHOBOS_LIB_FRONTEND_SEMACHECKER_H

#include "Phobos/Frontend/AST.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/Frontend/StmtVisitor.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phobos::frontend::sema {

// LLVM's casts and value types by their short names in Sema's files, as
// mlir/Support/LLVM.h brings them into namespace mlir.
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::StringRef;

/// Search-space values and compile-time constants stay in i32.
inline constexpr int64_t kMaxConstant = INT32_MAX;

/// Checks of attribute values, for a literal (SemaAttributes.cpp) and for
/// an @autotune expression in each variant (Checker::run); each reports
/// why not at `loc`.
bool checkMaxThreads(int64_t threads, llvm::SMLoc loc, Diagnostics &diags);
bool checkFlag(int64_t flag, llvm::SMLoc loc, Diagnostics &diags);
bool checkPersistentFlag(int64_t flag, llvm::SMLoc loc, Diagnostics &diags);
bool checkStages(int64_t stages, llvm::SMLoc loc, Diagnostics &diags);

/// A built-in call being checked (SemaBuiltins.cpp).
struct BuiltinCall;

/// A sum of terms times coefficients plus a constant: how Sema proves that
/// `e - s` of a slice `s : e` is a compile-time constant.
struct LinearForm {
  std::map<std::string, int64_t> terms;
  int64_t constant = 0;
};

/// Checks one kernel in one variant: names, types, shapes and the
/// language's rules. Its methods are defined in the file of their concern.
class Checker : private ast::StmtVisitor<Checker> {
  friend class ast::StmtVisitor<Checker>;

public:
  Checker(CheckedKernel &result, Diagnostics &diags)
      : result(result), diags(diags) {}

  bool run();

private:
  //===--- Scopes and symbols ---------------------------------------------===//
  ast::Symbol *declare(ast::Symbol::Kind kind, llvm::StringRef name,
                       llvm::SMLoc loc, Type type);
  ast::Symbol *lookup(llvm::StringRef name) const;
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  //===--- Types ----------------------------------------------------------===//
  Type resolveType(const ast::TypeSpec &spec, unsigned paramIndex,
                   bool isParam);
  bool checkTileShape(llvm::ArrayRef<int64_t> shape, llvm::SMLoc loc);

  //===--- Statements -----------------------------------------------------===//
  /// Checks the block's statements in a scope of its own; `visit` (of
  /// ast::StmtVisitor) checks one statement by its kind.
  void checkBlock(ast::Block &block);
  void visitLetStmt(ast::LetStmt &stmt);
  void visitAssignStmt(ast::AssignStmt &stmt);
  void visitCallStmt(ast::CallStmt &stmt);
  void visitForStmt(ast::ForStmt &stmt);
  void visitWhileStmt(ast::WhileStmt &stmt);
  void visitIfStmt(ast::IfStmt &stmt);
  /// Records that `symbol` is assigned inside the enclosing control
  /// statements it was declared outside of.
  void noteAssigned(ast::Symbol *symbol);
  /// Whether a value of type `from` may be stored into `to`; reports why not
  /// at `loc`, naming `target`.
  bool checkConvertible(const Type &from, const Type &to, llvm::SMLoc loc,
                        const llvm::Twine &target);
  Type checkCondition(ast::Expr &cond, llvm::StringRef what);

  //===--- Expressions ----------------------------------------------------===//
  Type check(ast::Expr &expr);
  Type checkName(ast::NameExpr &expr);
  Type checkUnary(ast::UnaryExpr &expr);
  Type checkBinary(ast::BinaryExpr &expr);
  Type checkSubscript(ast::SubscriptExpr &expr);
  /// The type of `lhs op rhs` for already-checked operand types.
  /// `spelled` names the operation in messages (default: the operator).
  Type binaryType(ast::BinaryOp op, const Type &lhs, const Type &rhs,
                  llvm::SMLoc loc, llvm::StringRef spelled = "");
  /// Operands that must be a scalar or a tile; reports otherwise.
  bool requireValue(const Type &type, llvm::SMLoc loc, llvm::StringRef what);
  bool requireScalarInt(const Type &type, llvm::SMLoc loc,
                        llvm::StringRef what);
  /// A tensor index or slice start: an i32 scalar.
  bool requireIndex(const Type &type, llvm::SMLoc loc, llvm::StringRef what);

  //===--- Built-in calls (SemaBuiltins.cpp) ------------------------------===//
  Type checkCall(ast::CallExpr &expr);
  /// exp, exp2, log, log2, sqrt, rsqrt, tanh, abs, tmax, tmin, where.
  Type checkElementwiseCall(BuiltinCall &call);
  /// dot, dot_t.
  Type checkDotCall(BuiltinCall &call);
  /// rowsum, rowmax, rowmin, colsum, colmax, colmin, cumsum.
  Type checkReductionCall(BuiltinCall &call);
  /// tril, transpose, arange, reshape, program_id.
  Type checkShapeCall(BuiltinCall &call);

  //===--- Compile-time constants -----------------------------------------===//
  std::optional<int64_t> evalConst(const ast::Expr &expr);
  std::optional<LinearForm> linearize(const ast::Expr &expr);
  /// A positive compile-time constant argument, or an error naming `what`.
  /// A compile-time constant of at least `least` (errors name `what`).
  std::optional<int64_t> requireConst(const ast::Expr &expr,
                                      llvm::StringRef what, int64_t least = 1);

  CheckedKernel &result;
  Diagnostics &diags;
  std::vector<llvm::StringMap<ast::Symbol *>> scopes;
  /// Enclosing control statements and the scope depth at which each began.
  std::vector<std::pair<ast::ControlStmt *, size_t>> controls;
  std::map<const ast::Symbol *, size_t> symbolDepth;
};

} // namespace phobos::frontend::sema

#endif // PHOBOS_LIB_FRONTEND_SEMACHECKER_H
