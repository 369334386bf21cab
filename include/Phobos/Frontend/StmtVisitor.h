//===- StmtVisitor.h - Dispatch over the AST's statement kinds --*- C++ -*-===//
//
// The one switch over ast::Stmt::Kind, for the passes that walk a kernel's
// statements (Sema's checker, MLIRGen): each says what it does with a kind
// of statement, not how to tell the kinds apart. A CRTP base, as clang's
// StmtVisitor: no virtual calls, and a pass that lacks a kind's method
// does not compile.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_STMTVISITOR_H
#define PHOBOS_FRONTEND_STMTVISITOR_H

#include "Phobos/Frontend/AST.h"

#include "llvm/Support/ErrorHandling.h"

namespace phobos::frontend::ast {

/// Calls `Derived::visit<Kind>Stmt(<Kind>Stmt &)` for the kind of the
/// statement it is given (visitLetStmt, visitAssignStmt, visitCallStmt,
/// visitForStmt, visitWhileStmt, visitIfStmt) and returns what it returns.
/// A Derived that keeps these methods private befriends
/// `ast::StmtVisitor<Derived>`.
template <typename Derived, typename RetTy = void> class StmtVisitor {
public:
  RetTy visit(Stmt &stmt) {
    Derived &self = static_cast<Derived &>(*this);
    switch (stmt.getKind()) {
#define PHOBOS_VISIT_STMT(KIND)                                                \
  case Stmt::Kind::KIND:                                                       \
    return self.visit##KIND##Stmt(llvm::cast<KIND##Stmt>(stmt));
      PHOBOS_VISIT_STMT(Let)
      PHOBOS_VISIT_STMT(Assign)
      PHOBOS_VISIT_STMT(Call)
      PHOBOS_VISIT_STMT(For)
      PHOBOS_VISIT_STMT(While)
      PHOBOS_VISIT_STMT(If)
#undef PHOBOS_VISIT_STMT
    }
    llvm_unreachable("unknown statement kind");
  }
};

} // namespace phobos::frontend::ast

#endif // PHOBOS_FRONTEND_STMTVISITOR_H
