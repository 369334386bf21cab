//===- SemaStatements.cpp - Checking a kernel's statements ----------------===//
//
// let, assignments, statement calls (stores, atomic_add), for, while and
// if: what each may declare, assign and store, and where.
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "Phobos/Dialect/Tile/IR/TileTypes.h"

#include "llvm/ADT/STLExtras.h"

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using namespace phobos::frontend::sema;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Checker::checkBlock(Block &block) {
  pushScope();
  for (StmtPtr &stmt : block.stmts)
    visit(*stmt);
  popScope();
}

bool Checker::checkConvertible(const Type &from, const Type &to, SMLoc loc,
                               const llvm::Twine &target) {
  if (from.isInvalid() || to.isInvalid())
    return false;
  if (!from.isValue()) {
    diags.error(loc) << "a " << from.str() << " cannot be stored in " << target
                     << "; slice it first";
    return false;
  }
  if (to.isScalar() && from.isTile()) {
    diags.error(loc) << "cannot store a " << from.str() << " in " << target
                     << " of type " << to.str();
    return false;
  }
  if (to.isTile() && from.isTile()) {
    llvm::SmallVector<int64_t> shape;
    if (!phobos::tile::broadcastShapes(from.shape, to.shape, shape) ||
        llvm::ArrayRef<int64_t>(shape) != llvm::ArrayRef<int64_t>(to.shape)) {
      diags.error(loc) << "shape mismatch: cannot store a " << from.str()
                       << " in " << target << " of type " << to.str();
      return false;
    }
  }
  if (!isImplicitlyConvertible(from.element, to.element)) {
    diags.error(loc) << "cannot convert " << spelling(from.element) << " to "
                     << spelling(to.element) << " implicitly for " << target
                     << "; write " << spelling(to.element) << "(...)";
    return false;
  }
  return true;
}

void Checker::visitLetStmt(LetStmt &stmt) {
  Type init = check(*stmt.init);
  Type type = init;
  if (stmt.declaredType) {
    type = resolveType(*stmt.declaredType, 0, /*isParam=*/false);
    if (!type.isInvalid() && !init.isInvalid() &&
        !checkConvertible(init, type, stmt.init->getLoc(),
                          "'" + stmt.name + "'"))
      type = Type::invalid();
  } else if (init.isTensor()) {
    diags.error(stmt.init->getLoc())
        << "a tensor cannot be bound to a name; slice it (T[...])";
    type = Type::invalid();
  }
  stmt.symbol = declare(Symbol::Kind::Local, stmt.name, stmt.nameLoc, type);
  if (stmt.symbol)
    stmt.symbol->isMutable = stmt.isVar;
}

void Checker::noteAssigned(Symbol *symbol) {
  size_t depth = symbolDepth[symbol];
  for (auto &[control, controlDepth] : controls)
    if (depth <= controlDepth && !llvm::is_contained(control->carried, symbol))
      control->carried.push_back(symbol);
}

std::optional<BinaryOp> phobos::frontend::ast::compoundOp(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return std::nullopt;
  case AssignOp::Add: return BinaryOp::Add;
  case AssignOp::Sub: return BinaryOp::Sub;
  case AssignOp::Mul: return BinaryOp::Mul;
  case AssignOp::Div: return BinaryOp::Div;
  }
  return std::nullopt;
}

void Checker::visitAssignStmt(AssignStmt &stmt) {
  Type value = check(*stmt.value);
  Type target;
  std::string targetName;
  if (auto *name = dyn_cast<NameExpr>(stmt.target.get())) {
    target = checkName(*name);
    name->type = target;
    targetName = "'" + name->name + "'";
    Symbol *symbol = name->symbol;
    if (!symbol)
      return;
    if (symbol->kind != Symbol::Kind::Local || !symbol->isMutable) {
      auto diag = diags.error(name->getLoc());
      switch (symbol->kind) {
      case Symbol::Kind::Local:
        diag << "cannot assign to '" << name->name << "', declared with 'let' at "
             << diags.lineCol(symbol->loc) << "; declare it with 'var'";
        break;
      case Symbol::Kind::Param:
        diag << "cannot assign to parameter '" << name->name << "'";
        if (symbol->type.isTensor())
          diag << "; store into a slice of it, " << name->name << "[...] = ...";
        break;
      case Symbol::Kind::LoopVar:
        diag << "cannot assign to loop variable '" << name->name << "'";
        break;
      case Symbol::Kind::Dim:
        diag << "cannot assign to dimension '" << name->name
             << "' (bound at launch from the tensors' shapes)";
        break;
      case Symbol::Kind::Constant:
        diag << "cannot assign to compile-time name '" << name->name << "'";
        break;
      }
      return;
    }
    noteAssigned(symbol);
  } else {
    auto *sub = cast<SubscriptExpr>(stmt.target.get());
    target = check(*sub);
    targetName = "the slice";
  }
  if (target.isInvalid() || value.isInvalid())
    return;
  if (std::optional<BinaryOp> op = compoundOp(stmt.op)) {
    value = binaryType(*op, target, value, stmt.getLoc());
    if (value.isInvalid())
      return;
  }
  checkConvertible(value, target, stmt.value->getLoc(), targetName);
}

void Checker::visitCallStmt(CallStmt &stmt) {
  auto &call = cast<CallExpr>(*stmt.call);
  call.builtin = lookupBuiltin(call.callee);
  if (call.builtin == Builtin::Unknown) {
    diags.error(call.getLoc()) << "unknown function '" << call.callee << "'";
    return;
  }
  if (call.builtin != Builtin::AtomicAdd) {
    diags.error(call.getLoc())
        << "the value of '" << call.callee << "' is not used; only a call "
        << "that changes a tensor (atomic_add) can stand alone";
    return;
  }
  if (call.args.size() != 2) {
    diags.error(call.getLoc()) << "'atomic_add' takes 2 arguments, got "
                               << call.args.size();
    return;
  }
  auto *slice = dyn_cast<SubscriptExpr>(call.args[0].get());
  Type target = check(*call.args[0]);
  Type value = check(*call.args[1]);
  if (target.isInvalid() || value.isInvalid())
    return;
  if (!slice || !target.isValue()) {
    diags.error(call.args[0]->getLoc())
        << "the first argument of 'atomic_add' must be a slice or an element "
        << "of a tensor (T[...]), got " << target.str();
    return;
  }
  switch (target.element) {
  case ScalarKind::F32: case ScalarKind::F64:
  case ScalarKind::I32: case ScalarKind::I64:
    break;
  default:
    diags.error(call.args[0]->getLoc())
        << "'atomic_add' adds to f32, f64, i32 or i64 tensors, not "
        << spelling(target.element);
    return;
  }
  if (!requireValue(value, call.args[1]->getLoc(), "an argument"))
    return;
  checkConvertible(value, target, call.args[1]->getLoc(), "the slice");
}

bool Checker::requireScalarInt(const Type &type, SMLoc loc, StringRef what) {
  if (type.isInvalid())
    return false;
  if (!type.isScalar() || !isInteger(type.element)) {
    diags.error(loc) << what << " must be an integer scalar, got "
                     << type.str();
    return false;
  }
  return true;
}

bool Checker::requireIndex(const Type &type, SMLoc loc, StringRef what) {
  if (!requireScalarInt(type, loc, what))
    return false;
  if (type.element != ScalarKind::I32) {
    diags.error(loc) << what << " must be i32 (the index width of a kernel), "
                     << "got " << type.str() << "; convert with i32(...)";
    return false;
  }
  return true;
}

void Checker::visitForStmt(ForStmt &stmt) {
  Type start = check(*stmt.start);
  Type end = check(*stmt.end);
  bool ok = requireScalarInt(start, stmt.start->getLoc(), "the range start");
  ok &= requireScalarInt(end, stmt.end->getLoc(), "the range end");
  ScalarKind kind = ScalarKind::I32;
  if (ok)
    kind = *promote(start.element, end.element);
  if (stmt.step) {
    Type step = check(*stmt.step);
    if (requireScalarInt(step, stmt.step->getLoc(), "the range step")) {
      std::optional<int64_t> value = evalConst(*stmt.step);
      if (!value || *value <= 0)
        diags.error(stmt.step->getLoc())
            << "the range step must be a positive compile-time constant "
               "(a literal or an @autotune name)";
      else
        stmt.stepValue = *value;
      kind = *promote(kind, step.element);
    }
  }
  stmt.carried.clear();
  controls.emplace_back(&stmt, scopes.size());
  pushScope();
  stmt.symbol = declare(Symbol::Kind::LoopVar, stmt.var, stmt.varLoc,
                        Type::scalar(kind));
  checkBlock(stmt.body);
  popScope();
  controls.pop_back();
}

Type Checker::checkCondition(Expr &cond, StringRef what) {
  Type type = check(cond);
  if (type.isInvalid())
    return type;
  if (!type.isScalar() || type.element != ScalarKind::Bool) {
    diags.error(cond.getLoc())
        << "the condition of '" << what << "' must be a scalar bool, got "
        << type.str() << (type.isTile() ? "; use where() on tiles" : "");
    return Type::invalid();
  }
  return type;
}

void Checker::visitWhileStmt(WhileStmt &stmt) {
  stmt.carried.clear();
  controls.emplace_back(&stmt, scopes.size());
  checkCondition(*stmt.cond, "while");
  checkBlock(stmt.body);
  controls.pop_back();
}

void Checker::visitIfStmt(IfStmt &stmt) {
  stmt.carried.clear();
  checkCondition(*stmt.cond, "if");
  controls.emplace_back(&stmt, scopes.size());
  checkBlock(stmt.thenBlock);
  if (stmt.elseBlock)
    checkBlock(*stmt.elseBlock);
  controls.pop_back();
}
