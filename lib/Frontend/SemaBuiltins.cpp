//===- SemaBuiltins.cpp - Checking calls of the built-in functions --------===//
//
// A call's arguments are checked once (those that are compile-time shapes,
// as arange's length, are not values), then the call by its family:
// casts, element-wise functions, dots, reductions and shape functions.
// Each rule is reported at the argument that breaks it.
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "Phobos/Dialect/Tile/IR/TileTypes.h"

#include "llvm/ADT/StringSwitch.h"

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using namespace phobos::frontend::sema;

/// A built-in call and the types of its value arguments, with the rules an
/// argument may have to follow.
struct phobos::frontend::sema::BuiltinCall {
  CallExpr &expr;
  Diagnostics &diags;
  std::vector<Type> args;

  StringRef callee() const { return expr.callee; }

  bool arity(size_t count) const {
    if (expr.args.size() == count)
      return true;
    diags.error(expr.getLoc()) << "'" << callee() << "' takes " << count
                               << (count == 1 ? " argument" : " arguments")
                               << ", got " << expr.args.size();
    return false;
  }

  bool requireFloat(size_t i) const {
    if (isFloat(args[i].element))
      return true;
    diags.error(expr.args[i]->getLoc())
        << "'" << callee() << "' needs a float argument, got " << args[i].str()
        << "; convert with f32(...)";
    return false;
  }

  bool requireNumeric(size_t i) const {
    if (args[i].element != ScalarKind::Bool)
      return true;
    diags.error(expr.args[i]->getLoc())
        << "'" << callee() << "' needs a number, got " << args[i].str();
    return false;
  }

  /// A tile of rank `rank` (any rank when negative).
  bool requireTile(size_t i, int64_t rank) const {
    if (args[i].isTile() && (rank < 0 || args[i].rank() == rank))
      return true;
    auto diag = diags.error(expr.args[i]->getLoc());
    diag << "'" << callee() << "' needs a ";
    if (rank >= 0)
      diag << "rank-" << rank << " ";
    diag << "tile, got " << args[i].str();
    return false;
  }
};

Type Checker::checkCall(CallExpr &expr) {
  StringRef callee = expr.callee;
  expr.builtin = lookupBuiltin(callee);
  if (expr.builtin == Builtin::Unknown) {
    diags.error(expr.getLoc()) << "unknown function '" << callee << "'";
    return Type::invalid();
  }
  Builtin builtin = expr.builtin;
  if (builtin == Builtin::AtomicAdd) {
    diags.error(expr.getLoc()) << "'atomic_add' is a statement: it adds to a "
                                  "tensor and has no value";
    return Type::invalid();
  }
  BuiltinCall call{expr, diags, {}};
  // Arguments that are compile-time shapes are not values.
  bool shapeArgs = builtin == Builtin::Arange || builtin == Builtin::Reshape ||
                   builtin == Builtin::ProgramId;
  if (!shapeArgs || builtin == Builtin::Reshape) {
    for (size_t i = 0; i < expr.args.size(); ++i) {
      if (builtin == Builtin::Reshape && i > 0)
        break;
      call.args.push_back(check(*expr.args[i]));
    }
    for (size_t i = 0; i < call.args.size(); ++i)
      if (!requireValue(call.args[i], expr.args[i]->getLoc(), "an argument"))
        return Type::invalid();
  }

  switch (builtin) {
  case Builtin::Cast: // `f16(x)`
    if (!call.arity(1))
      return Type::invalid();
    expr.castTarget = *parseScalarKind(callee);
    return call.args[0].withElement(expr.castTarget);
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Tanh:
  case Builtin::Abs:
  case Builtin::TMax:
  case Builtin::TMin:
  case Builtin::Where:
    return checkElementwiseCall(call);
  case Builtin::Dot:
  case Builtin::DotT:
    return checkDotCall(call);
  case Builtin::RowSum:
  case Builtin::RowMax:
  case Builtin::RowMin:
  case Builtin::ColSum:
  case Builtin::ColMax:
  case Builtin::ColMin:
  case Builtin::Cumsum:
    return checkReductionCall(call);
  case Builtin::Tril:
  case Builtin::Transpose:
  case Builtin::Arange:
  case Builtin::Reshape:
  case Builtin::ProgramId:
    return checkShapeCall(call);
  case Builtin::Unknown:
  case Builtin::AtomicAdd:
    break; // rejected above
  }
  llvm_unreachable("every built-in is checked above");
}

Type Checker::checkElementwiseCall(BuiltinCall &call) {
  CallExpr &expr = call.expr;
  std::vector<Type> &args = call.args;
  switch (expr.builtin) {
  case Builtin::Abs:
    if (!call.arity(1) || !call.requireNumeric(0))
      return Type::invalid();
    return args[0];
  case Builtin::TMax:
  case Builtin::TMin:
    if (!call.arity(2) || !call.requireNumeric(0) || !call.requireNumeric(1))
      return Type::invalid();
    return binaryType(BinaryOp::Add, args[0], args[1], expr.getLoc(),
                      call.callee());
  case Builtin::Where: {
    if (!call.arity(3))
      return Type::invalid();
    if (args[0].element != ScalarKind::Bool) {
      diags.error(expr.args[0]->getLoc())
          << "the condition of 'where' must be bool, got " << args[0].str();
      return Type::invalid();
    }
    std::optional<ScalarKind> element =
        promote(args[1].element, args[2].element);
    if (!element) {
      diags.error(expr.getLoc())
          << "'where' cannot mix " << args[1].str() << " and " << args[2].str();
      return Type::invalid();
    }
    llvm::SmallVector<int64_t> shape, tmp;
    bool ok =
        phobos::tile::broadcastShapes(args[0].shape, args[1].shape, tmp) &&
        phobos::tile::broadcastShapes(tmp, args[2].shape, shape);
    if (!ok) {
      diags.error(expr.getLoc())
          << "shapes do not broadcast in 'where': " << args[0].str() << ", "
          << args[1].str() << ", " << args[2].str();
      return Type::invalid();
    }
    if (args[0].isScalar() && args[1].isScalar() && args[2].isScalar())
      return Type::scalar(*element);
    return Type::tile(*element, shape);
  }
  default: // exp, exp2, log, log2, sqrt, rsqrt, tanh
    if (!call.arity(1) || !call.requireFloat(0))
      return Type::invalid();
    return args[0];
  }
}

Type Checker::checkDotCall(BuiltinCall &call) {
  CallExpr &expr = call.expr;
  std::vector<Type> &args = call.args;
  if (!call.arity(2) || !call.requireTile(0, 2) || !call.requireTile(1, 2) ||
      !call.requireFloat(0) || !call.requireFloat(1))
    return Type::invalid();
  bool transposed = expr.builtin == Builtin::DotT;
  int64_t k = args[0].shape[1];
  int64_t bk = transposed ? args[1].shape[1] : args[1].shape[0];
  if (k != bk) {
    diags.error(expr.getLoc())
        << "'" << call.callee()
        << "' inner dimensions differ: " << args[0].str() << " x "
        << args[1].str() << (transposed ? " (contracting the last axes)" : "");
    return Type::invalid();
  }
  ScalarKind element = *promote(args[0].element, args[1].element);
  int64_t n = transposed ? args[1].shape[0] : args[1].shape[1];
  return Type::tile(element == ScalarKind::F64 ? ScalarKind::F64
                                               : ScalarKind::F32,
                    {args[0].shape[0], n});
}

Type Checker::checkReductionCall(BuiltinCall &call) {
  Builtin builtin = call.expr.builtin;
  if (builtin == Builtin::Cumsum) {
    if (!call.arity(1) || !call.requireTile(0, -1) || !call.requireNumeric(0))
      return Type::invalid();
    return call.args[0];
  }
  if (!call.arity(1) || !call.requireTile(0, 2) || !call.requireNumeric(0))
    return Type::invalid();
  Type type = call.args[0];
  bool rows = builtin == Builtin::RowSum || builtin == Builtin::RowMax ||
              builtin == Builtin::RowMin;
  type.shape[rows ? 1 : 0] = 1;
  return type;
}

Type Checker::checkShapeCall(BuiltinCall &call) {
  CallExpr &expr = call.expr;
  std::vector<Type> &args = call.args;
  switch (expr.builtin) {
  case Builtin::Tril:
    if (!call.arity(1) || !call.requireTile(0, 2))
      return Type::invalid();
    return args[0];
  case Builtin::Transpose:
    if (!call.arity(1) || !call.requireTile(0, 2))
      return Type::invalid();
    return Type::tile(args[0].element, {args[0].shape[1], args[0].shape[0]});
  case Builtin::Arange: {
    if (!call.arity(1))
      return Type::invalid();
    std::optional<int64_t> n = requireConst(*expr.args[0], "the arange length");
    if (!n || !checkTileShape({*n}, expr.getLoc()))
      return Type::invalid();
    return Type::tile(ScalarKind::I32, {*n});
  }
  case Builtin::Reshape: {
    if (expr.args.size() < 2) {
      diags.error(expr.getLoc()) << "'reshape' takes a tile and its new "
                                    "extents, reshape(t, d0, d1, ...)";
      return Type::invalid();
    }
    if (!call.requireTile(0, -1))
      return Type::invalid();
    llvm::SmallVector<int64_t> shape;
    for (size_t i = 1; i < expr.args.size(); ++i) {
      std::optional<int64_t> extent =
          requireConst(*expr.args[i], "a reshape extent");
      if (!extent)
        return Type::invalid();
      shape.push_back(*extent);
    }
    if (!checkTileShape(shape, expr.getLoc()))
      return Type::invalid();
    Type type = Type::tile(args[0].element, shape);
    if (type.numElements() != args[0].numElements()) {
      diags.error(expr.getLoc())
          << "cannot reshape " << args[0].str() << " to " << shapeString(shape)
          << ": the element counts differ";
      return Type::invalid();
    }
    return type;
  }
  default: { // program_id
    if (!call.arity(1))
      return Type::invalid();
    auto *axis = dyn_cast<IntExpr>(expr.args[0].get());
    if (!axis || axis->value > 2) {
      diags.error(expr.args[0]->getLoc())
          << "program_id takes the axis 0, 1 or 2";
      return Type::invalid();
    }
    expr.args[0]->type = Type::scalar(ScalarKind::I32);
    return Type::scalar(ScalarKind::I32);
  }
  }
}

Builtin phobos::frontend::ast::lookupBuiltin(llvm::StringRef name) {
  if (parseScalarKind(name))
    return Builtin::Cast;
  return llvm::StringSwitch<Builtin>(name)
      .Case("exp", Builtin::Exp)
      .Case("atomic_add", Builtin::AtomicAdd)
      .Case("exp2", Builtin::Exp2)
      .Case("log", Builtin::Log)
      .Case("log2", Builtin::Log2)
      .Case("sqrt", Builtin::Sqrt)
      .Case("rsqrt", Builtin::Rsqrt)
      .Case("tanh", Builtin::Tanh)
      .Case("abs", Builtin::Abs)
      .Case("tmax", Builtin::TMax)
      .Case("tmin", Builtin::TMin)
      .Case("where", Builtin::Where)
      .Case("dot", Builtin::Dot)
      .Case("dot_t", Builtin::DotT)
      .Case("rowsum", Builtin::RowSum)
      .Case("rowmax", Builtin::RowMax)
      .Case("rowmin", Builtin::RowMin)
      .Case("colsum", Builtin::ColSum)
      .Case("colmax", Builtin::ColMax)
      .Case("colmin", Builtin::ColMin)
      .Case("cumsum", Builtin::Cumsum)
      .Case("tril", Builtin::Tril)
      .Case("transpose", Builtin::Transpose)
      .Case("arange", Builtin::Arange)
      .Case("reshape", Builtin::Reshape)
      .Case("program_id", Builtin::ProgramId)
      .Default(Builtin::Unknown);
}
