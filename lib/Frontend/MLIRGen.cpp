//===- MLIRGen.cpp - From the Phobos AST to the phobos dialect ------------===//
//
// Scalars become arith/math, tiles become phobos ops, control flow becomes
// scf with the `var`s a statement assigns carried as iter_args and results.
// The conversions Sema allowed (promotion, implicit widening or rounding,
// broadcasting on assignment) are made explicit here.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Dialect/Cluster/IR/ClusterDialect.h"
#include "Phobos/Dialect/Tile/IR/ElementTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Frontend/Diagnostics.h"
#include "Phobos/Frontend/Parser.h"
#include "Phobos/Frontend/Sema.h"
#include "Phobos/Frontend/SpanMap.h"
#include "Phobos/Frontend/StmtVisitor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::SMLoc;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
namespace arith = mlir::arith;
namespace math = mlir::math;
namespace scf = mlir::scf;
namespace tile = phobos::tile;

namespace {

class Generator : private StmtVisitor<Generator> {
  friend class StmtVisitor<Generator>;

public:
  Generator(CheckedKernel &checked, mlir::ModuleOp module, Diagnostics &diags,
            bool markCluster)
      : checked(checked), diags(diags), builder(module.getContext()),
        module(module), markCluster(markCluster && !checked.attrs.cluster.empty()) {}

  void run();

private:
  Location loc(SMLoc at) const { return diags.location(at); }
  mlir::MLIRContext *ctx() { return builder.getContext(); }

  //===--- Types and constants --------------------------------------------===//
  mlir::Type elementType(ScalarKind kind);
  mlir::Type mlirType(const Type &type);
  Value intConstant(int64_t value, ScalarKind kind, Location at);
  Value floatConstant(double value, ScalarKind kind, Location at);

  //===--- Conversions ----------------------------------------------------===//
  /// Converts the elements of `value` (of type `from`) to `to`.
  Value castElements(Value value, const Type &from, ScalarKind to, Location at);
  /// Converts `value` to exactly `to`: elements, then fill or broadcast.
  Value convert(Value value, const Type &from, const Type &to, Location at);

  //===--- Statements -----------------------------------------------------===//
  /// Emits the block's statements; `visit` (of ast::StmtVisitor) emits one
  /// statement by its kind.
  void genBlock(Block &block);
  void visitLetStmt(LetStmt &stmt);
  void visitAssignStmt(AssignStmt &stmt);
  void visitCallStmt(CallStmt &stmt);
  void visitForStmt(ForStmt &stmt);
  void visitWhileStmt(WhileStmt &stmt);
  void visitIfStmt(IfStmt &stmt);
  llvm::SmallVector<Value> carriedValues(const ControlStmt &stmt);
  void bindCarried(const ControlStmt &stmt, mlir::ValueRange values);

  //===--- Expressions ----------------------------------------------------===//
  Value gen(Expr &expr);
  Value genBinary(BinaryOp op, Value lhs, const Type &lhsType, Value rhs,
                  const Type &rhsType, const Type &resultType, Location at);
  Value genCall(CallExpr &expr);
  Value genUnaryMath(ast::Builtin builtin, Value operand, const Type &type,
                     Location at);
  /// The tensor, offsets and point axes of a slice or element access.
  struct Access {
    Value tensor;
    llvm::SmallVector<Value> offsets;
    llvm::SmallVector<int64_t> pointAxes;
  };
  Access genAccess(SubscriptExpr &expr);
  mlir::DenseI64ArrayAttr pointAxesAttr(const Access &access) {
    if (access.pointAxes.empty())
      return nullptr;
    return builder.getDenseI64ArrayAttr(access.pointAxes);
  }
  Value genLoad(SubscriptExpr &expr);

  //===--- Marks for the cluster compiler ---------------------------------===//
  /// The @cluster name `expr` spells, when marking and it is one.
  std::optional<std::string> clusterName(const Expr *expr) const;
  /// Marks `value`'s constant as standing for `expr`'s @cluster name.
  Value markName(Value value, const Expr *expr);
  /// Marks a slice op with the @cluster names its extents are written as.
  void markExtents(mlir::Operation *op, const SubscriptExpr &expr);

  CheckedKernel &checked;
  Diagnostics &diags;
  OpBuilder builder;
  mlir::ModuleOp module;
  bool markCluster;
  llvm::DenseMap<const Symbol *, Value> values;
};

} // namespace

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

mlir::Type Generator::elementType(ScalarKind kind) {
  return tile::getMLIRType(builder.getContext(), kind);
}

mlir::Type Generator::mlirType(const Type &type) {
  mlir::Type element = elementType(type.element);
  switch (type.kind) {
  case Type::Kind::Scalar:
    return element;
  case Type::Kind::Tile:
    return tile::TileType::get(type.shape, element);
  case Type::Kind::Tensor: {
    llvm::SmallVector<int64_t> shape;
    for (int64_t extent : type.shape)
      shape.push_back(extent == Type::kDynamic ? mlir::ShapedType::kDynamic
                                               : extent);
    return tile::GlobalTensorType::get(shape, element);
  }
  case Type::Kind::Invalid:
    break;
  }
  llvm_unreachable("MLIRGen reached an invalid type");
}

Value Generator::intConstant(int64_t value, ScalarKind kind, Location at) {
  return arith::ConstantOp::create(
      builder, at, builder.getIntegerAttr(elementType(kind), value));
}

Value Generator::floatConstant(double value, ScalarKind kind, Location at) {
  return arith::ConstantOp::create(
      builder, at,
      builder.getFloatAttr(mlir::cast<mlir::FloatType>(elementType(kind)),
                           value));
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

Value Generator::castElements(Value value, const Type &from, ScalarKind to,
                              Location at) {
  if (from.element == to)
    return value;
  if (from.isTile())
    return tile::CastOp::create(builder, at,
                                mlirType(from.withElement(to)), value);
  mlir::Type target = elementType(to);
  ScalarKind source = from.element;
  if (to == ScalarKind::Bool) {
    if (isFloat(source))
      return arith::CmpFOp::create(builder, at, arith::CmpFPredicate::UNE,
                                   value, floatConstant(0, source, at));
    return arith::CmpIOp::create(builder, at, arith::CmpIPredicate::ne, value,
                                 intConstant(0, source, at));
  }
  if (source == ScalarKind::Bool) {
    if (isFloat(to))
      return arith::UIToFPOp::create(builder, at, target, value);
    return arith::ExtUIOp::create(builder, at, target, value);
  }
  if (isFloat(source) && isFloat(to)) {
    if (bitWidth(to) > bitWidth(source))
      return arith::ExtFOp::create(builder, at, target, value);
    if (bitWidth(to) < bitWidth(source))
      return arith::TruncFOp::create(builder, at, target, value);
    // f16 <-> bf16 goes through f32.
    Value wide = arith::ExtFOp::create(builder, at, builder.getF32Type(), value);
    return arith::TruncFOp::create(builder, at, target, wide);
  }
  if (isFloat(to))
    return arith::SIToFPOp::create(builder, at, target, value);
  if (isFloat(source)) {
    // Saturating, NaN to 0: the rule tile casts (phobos.cast) and the
    // interpreter follow; a bare fptosi would be poison out of range.
    if (source == ScalarKind::F16 || source == ScalarKind::BF16)
      value = arith::ExtFOp::create(builder, at, builder.getF32Type(), value);
    mlir::Type floatType = value.getType();
    unsigned bits = bitWidth(to);
    double limit = std::ldexp(1.0, bits - 1); // 2^31 or 2^63, exact
    auto floatConst = [&](double x) -> Value {
      return arith::ConstantOp::create(
          builder, at, builder.getFloatAttr(floatType, x));
    };
    auto intConst = [&](llvm::APInt x) -> Value {
      return arith::ConstantOp::create(builder, at,
                                       builder.getIntegerAttr(target, x));
    };
    Value truncated = arith::FPToSIOp::create(builder, at, target, value);
    Value tooLarge = arith::CmpFOp::create(
        builder, at, arith::CmpFPredicate::OGE, value, floatConst(limit));
    Value tooSmall = arith::CmpFOp::create(
        builder, at, arith::CmpFPredicate::OLT, value, floatConst(-limit));
    Value isNaN = arith::CmpFOp::create(builder, at, arith::CmpFPredicate::UNO,
                                        value, value);
    Value result = arith::SelectOp::create(
        builder, at, tooLarge, intConst(llvm::APInt::getSignedMaxValue(bits)),
        truncated);
    result = arith::SelectOp::create(
        builder, at, tooSmall, intConst(llvm::APInt::getSignedMinValue(bits)),
        result);
    return arith::SelectOp::create(builder, at, isNaN,
                                   intConst(llvm::APInt(bits, 0)), result);
  }
  if (bitWidth(to) > bitWidth(source))
    return arith::ExtSIOp::create(builder, at, target, value);
  return arith::TruncIOp::create(builder, at, target, value);
}

Value Generator::convert(Value value, const Type &from, const Type &to,
                         Location at) {
  value = castElements(value, from, to.element, at);
  if (to.isScalar() || (from.isTile() && from.shape == to.shape))
    return value;
  mlir::Type target = mlirType(to);
  if (from.isScalar())
    return tile::FillOp::create(builder, at, target, value);
  return tile::BroadcastOp::create(builder, at, target, value);
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

static mlir::ArrayAttr searchSpaceAttr(mlir::MLIRContext *ctx,
                                       const std::vector<SearchDim> &space) {
  llvm::SmallVector<mlir::Attribute> dims;
  for (const SearchDim &dim : space)
    dims.push_back(tile::TuneDimAttr::get(
        ctx, mlir::StringAttr::get(ctx, dim.name), dim.values));
  return mlir::ArrayAttr::get(ctx, dims);
}

void Generator::run() {
  Kernel &kernel = *checked.kernel;
  const KernelAttributes &attrs = checked.attrs;
  llvm::SmallVector<mlir::Type> argTypes;
  for (Symbol *param : checked.params)
    argTypes.push_back(mlirType(param->type));

  builder.setInsertionPointToEnd(module.getBody());
  auto op = tile::KernelOp::create(builder, loc(kernel.loc), kernel.name,
                                   builder.getFunctionType(argTypes, {}));
  // Attributes of the source.
  if (!attrs.autotune.empty())
    op.setAutotuneAttr(searchSpaceAttr(ctx(), attrs.autotune));
  if (!attrs.cluster.empty())
    op.setClusterAttr(searchSpaceAttr(ctx(), attrs.cluster));
  if (!checked.variant.empty()) {
    llvm::SmallVector<mlir::NamedAttribute> bindings;
    for (auto &[name, value] : checked.variant)
      bindings.push_back(builder.getNamedAttr(
          name, builder.getI64IntegerAttr(value)));
    op.setVariantAttr(builder.getDictionaryAttr(bindings));
  }
  if (checked.maxThreads)
    op.setMaxThreads(static_cast<uint32_t>(*checked.maxThreads));
  if (attrs.minBlocks)
    op.setMinBlocks(static_cast<uint32_t>(*attrs.minBlocks));
  if (attrs.maxRegs)
    op.setMaxRegs(static_cast<uint32_t>(*attrs.maxRegs));
  op.setPipeline(attrs.pipeline);
  if (checked.pipelineStages)
    op.setPipelineStages(static_cast<uint32_t>(*checked.pipelineStages));
  op.setWarpSpecialize(checked.warpSpecialize.value_or(0) != 0);
  op.setPersistent(checked.persistent.value_or(0) != 0);
  if (attrs.tensorcore)
    op.setTensorcore(tile::stringifyDotPrecision(*attrs.tensorcore));
  if (!checked.aligned.empty()) {
    llvm::SmallVector<mlir::NamedAttribute> promises;
    for (auto &[name, multiple] : checked.aligned)
      promises.push_back(
          builder.getNamedAttr(name, builder.getI64IntegerAttr(multiple)));
    op.setAlignedAttr(builder.getDictionaryAttr(promises));
    // Where each promise was written (its multiple), for the launchers'
    // refusal of a launch that breaks it.
    llvm::SmallVector<mlir::NamedAttribute> places;
    for (auto &[name, expr] : attrs.aligned)
      if (llvm::is_contained(llvm::make_first_range(checked.aligned), name))
        places.push_back(builder.getNamedAttr(name, loc(expr->getLoc())));
    op->setLoc(tile::KernelOp::withAlignedPromiseLocs(
        op.getLoc(), builder.getDictionaryAttr(places)));
  }
  if (!attrs.unknown.empty())
    op.setUnknownAttributesAttr(builder.getStrArrayAttr(
        llvm::SmallVector<llvm::StringRef>(attrs.unknown.begin(),
                                           attrs.unknown.end())));

  // Arguments, with the names of each tensor's extents.
  auto *entry = new mlir::Block();
  op.getBody().push_back(entry);
  // All argument attributes at once: setting them one by one copies the
  // whole list each time, quadratic in the number of parameters.
  llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
  argAttrs.reserve(kernel.params.size());
  for (auto [index, param] : llvm::enumerate(kernel.params)) {
    Value arg = entry->addArgument(argTypes[index], loc(param.loc));
    values[checked.params[index]] = arg;
    llvm::SmallVector<mlir::NamedAttribute, 2> attrs;
    attrs.push_back(builder.getNamedAttr(tile::KernelOp::kNameAttrName,
                                         builder.getStringAttr(param.name)));
    if (param.type.kind == TypeSpec::Kind::Tensor) {
      llvm::SmallVector<mlir::Attribute> names;
      for (const DimSpec &dim : param.type.dims)
        names.push_back(builder.getStringAttr(
            dim.isName() ? dim.name : std::to_string(dim.value)));
      attrs.push_back(builder.getNamedAttr(tile::KernelOp::kDimsAttrName,
                                           builder.getArrayAttr(names)));
    }
    argAttrs.push_back(builder.getDictionaryAttr(attrs));
  }
  op.setAllArgAttrs(argAttrs);

  if (markCluster)
    op->setAttr(phobos::cluster::ClusterDialect::kMarkedAttrName,
                builder.getUnitAttr());

  builder.setInsertionPointToStart(entry);
  genBlock(kernel.body);
  tile::ReturnOp::create(builder, loc(kernel.body.loc));
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Generator::genBlock(Block &block) {
  for (StmtPtr &stmt : block.stmts)
    visit(*stmt);
}

void Generator::visitLetStmt(LetStmt &stmt) {
  Value init = gen(*stmt.init);
  values[stmt.symbol] = convert(init, stmt.init->type, stmt.symbol->type,
                                loc(stmt.init->getLoc()));
}

void Generator::visitAssignStmt(AssignStmt &stmt) {
  Location at = loc(stmt.getLoc());
  Value value = gen(*stmt.value);
  Type valueType = stmt.value->type;
  const Type &targetType = stmt.target->type;

  // `x op= v` computes in the promoted, broadcast type, then converts back.
  auto compound = [&](Value current) {
    std::optional<BinaryOp> op = compoundOp(stmt.op);
    ScalarKind element = *promote(targetType.element, valueType.element);
    Type resultType = Type::scalar(element);
    if (targetType.isTile() || valueType.isTile()) {
      llvm::SmallVector<int64_t> shape;
      phobos::tile::broadcastShapes(targetType.shape, valueType.shape, shape);
      resultType = Type::tile(element, shape);
    }
    value = genBinary(*op, current, targetType, value, valueType, resultType,
                      at);
    valueType = resultType;
  };

  if (auto *name = dyn_cast<NameExpr>(stmt.target.get())) {
    if (stmt.op != AssignOp::Set)
      compound(values.lookup(name->symbol));
    values[name->symbol] = convert(value, valueType, targetType, at);
    return;
  }

  auto &slice = *cast<SubscriptExpr>(stmt.target.get());
  if (stmt.op != AssignOp::Set)
    compound(genLoad(slice));
  value = convert(value, valueType, targetType, at);
  Access access = genAccess(slice);
  if (targetType.isScalar()) {
    tile::StoreScalarOp::create(builder, at, value, access.tensor,
                                access.offsets);
    return;
  }
  auto store = tile::StoreOp::create(builder, at, value, access.tensor,
                                     access.offsets, pointAxesAttr(access),
                                     /*in_bounds=*/nullptr);
  markExtents(store, slice);
}

void Generator::visitCallStmt(CallStmt &stmt) {
  // Sema accepts only atomic_add(T[...], value).
  auto &call = cast<CallExpr>(*stmt.call);
  Location at = loc(call.getLoc());
  auto &slice = cast<SubscriptExpr>(*call.args[0]);
  Value value = convert(gen(*call.args[1]), call.args[1]->type, slice.type,
                        loc(call.args[1]->getLoc()));
  Access access = genAccess(slice);
  auto atomic = tile::AtomicAddOp::create(builder, at, value, access.tensor,
                                          access.offsets, pointAxesAttr(access),
                                          /*in_bounds=*/mlir::DenseBoolArrayAttr());
  markExtents(atomic, slice);
}

llvm::SmallVector<Value> Generator::carriedValues(const ControlStmt &stmt) {
  llvm::SmallVector<Value> result;
  for (Symbol *symbol : stmt.carried)
    result.push_back(values.lookup(symbol));
  return result;
}

void Generator::bindCarried(const ControlStmt &stmt, mlir::ValueRange range) {
  for (auto [symbol, value] : llvm::zip(stmt.carried, range))
    values[symbol] = value;
}

void Generator::visitForStmt(ForStmt &stmt) {
  Location at = loc(stmt.getLoc());
  Type ivType = stmt.symbol->type;
  Value lb = convert(gen(*stmt.start), stmt.start->type, ivType,
                     loc(stmt.start->getLoc()));
  Value ub = convert(gen(*stmt.end), stmt.end->type, ivType,
                     loc(stmt.end->getLoc()));
  Value step = intConstant(stmt.stepValue, ivType.element,
                           stmt.step ? loc(stmt.step->getLoc()) : at);
  if (stmt.step)
    step = markName(step, stmt.step.get());
  auto loop = scf::ForOp::create(
      builder, at, lb, ub, step, carriedValues(stmt),
      [&](OpBuilder &, Location, Value iv, mlir::ValueRange args) {
        values[stmt.symbol] = iv;
        bindCarried(stmt, args);
        genBlock(stmt.body);
        scf::YieldOp::create(builder, loc(stmt.body.loc), carriedValues(stmt));
      });
  bindCarried(stmt, loop.getResults());
}

void Generator::visitWhileStmt(WhileStmt &stmt) {
  Location at = loc(stmt.getLoc());
  llvm::SmallVector<Value> init = carriedValues(stmt);
  llvm::SmallVector<mlir::Type> types;
  for (Value value : init)
    types.push_back(value.getType());
  auto loop = scf::WhileOp::create(
      builder, at, types, init,
      [&](OpBuilder &, Location, mlir::ValueRange args) {
        bindCarried(stmt, args);
        Value cond = gen(*stmt.cond);
        scf::ConditionOp::create(builder, loc(stmt.cond->getLoc()), cond,
                                 args);
      },
      [&](OpBuilder &, Location, mlir::ValueRange args) {
        bindCarried(stmt, args);
        genBlock(stmt.body);
        scf::YieldOp::create(builder, loc(stmt.body.loc), carriedValues(stmt));
      });
  bindCarried(stmt, loop.getResults());
}

void Generator::visitIfStmt(IfStmt &stmt) {
  Location at = loc(stmt.getLoc());
  Value cond = gen(*stmt.cond);
  llvm::SmallVector<Value> before = carriedValues(stmt);
  llvm::SmallVector<mlir::Type> types;
  for (Value value : before)
    types.push_back(value.getType());
  auto branch = scf::IfOp::create(builder, at, types, cond, /*withElse=*/true);
  auto fillRegion = [&](mlir::Region &region, Block *block, SMLoc end) {
    OpBuilder::InsertionGuard guard(builder);
    mlir::Block &body = region.front();
    if (!body.empty())
      body.getTerminator()->erase();
    builder.setInsertionPointToEnd(&body);
    bindCarried(stmt, before);
    if (block)
      genBlock(*block);
    scf::YieldOp::create(builder, loc(end), carriedValues(stmt));
  };
  fillRegion(branch.getThenRegion(), &stmt.thenBlock, stmt.thenBlock.loc);
  fillRegion(branch.getElseRegion(),
             stmt.elseBlock ? &*stmt.elseBlock : nullptr,
             stmt.elseBlock ? stmt.elseBlock->loc : stmt.getLoc());
  bindCarried(stmt, branch.getResults());
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Value Generator::gen(Expr &expr) {
  Location at = loc(expr.getLoc());
  switch (expr.getKind()) {
  case Expr::Kind::Int:
    return intConstant(cast<IntExpr>(expr).value, expr.type.element, at);
  case Expr::Kind::Float:
    return floatConstant(cast<FloatExpr>(expr).value, ScalarKind::F32, at);
  case Expr::Kind::Bool:
    return arith::ConstantOp::create(
        builder, at, builder.getBoolAttr(cast<BoolExpr>(expr).value));
  case Expr::Kind::Name: {
    Symbol *symbol = cast<NameExpr>(expr).symbol;
    switch (symbol->kind) {
    case Symbol::Kind::Constant:
      return markName(intConstant(symbol->value, ScalarKind::I32, at), &expr);
    case Symbol::Kind::Dim:
      return tile::DimOp::create(builder, at,
                                 values.lookup(checked.params[symbol->paramIndex]),
                                 symbol->dimAxis);
    default:
      return values.lookup(symbol);
    }
  }
  case Expr::Kind::Unary: {
    auto &unary = cast<UnaryExpr>(expr);
    Value operand = gen(*unary.operand);
    const Type &type = unary.operand->type;
    if (unary.op == UnaryOp::Not) {
      if (type.isTile())
        return tile::NotOp::create(builder, at, operand);
      return arith::XOrIOp::create(builder, at, operand,
                                   arith::ConstantOp::create(
                                       builder, at, builder.getBoolAttr(true)));
    }
    if (type.isTile())
      return tile::NegOp::create(builder, at, operand);
    if (isFloat(type.element))
      return arith::NegFOp::create(builder, at, operand);
    return arith::SubIOp::create(builder, at,
                                 intConstant(0, type.element, at), operand);
  }
  case Expr::Kind::Binary: {
    auto &binary = cast<BinaryExpr>(expr);
    Value lhs = gen(*binary.lhs);
    Value rhs = gen(*binary.rhs);
    return genBinary(binary.op, lhs, binary.lhs->type, rhs, binary.rhs->type,
                     expr.type, at);
  }
  case Expr::Kind::Call:
    return genCall(cast<CallExpr>(expr));
  case Expr::Kind::Subscript:
    return genLoad(cast<SubscriptExpr>(expr));
  case Expr::Kind::Context: {
    auto &context = cast<ContextExpr>(expr);
    auto axis = static_cast<tile::Axis>(context.axis);
    if (context.field == ContextExpr::Field::Block)
      return tile::BlockIdOp::create(builder, at, axis);
    return tile::GridDimOp::create(builder, at, axis);
  }
  }
  llvm_unreachable("unknown expression kind");
}

static arith::CmpIPredicate intPredicate(BinaryOp op) {
  switch (op) {
  case BinaryOp::Eq: return arith::CmpIPredicate::eq;
  case BinaryOp::Ne: return arith::CmpIPredicate::ne;
  case BinaryOp::Lt: return arith::CmpIPredicate::slt;
  case BinaryOp::Le: return arith::CmpIPredicate::sle;
  case BinaryOp::Gt: return arith::CmpIPredicate::sgt;
  default: return arith::CmpIPredicate::sge;
  }
}

static arith::CmpFPredicate floatPredicate(BinaryOp op) {
  switch (op) {
  case BinaryOp::Eq: return arith::CmpFPredicate::OEQ;
  case BinaryOp::Ne: return arith::CmpFPredicate::UNE;
  case BinaryOp::Lt: return arith::CmpFPredicate::OLT;
  case BinaryOp::Le: return arith::CmpFPredicate::OLE;
  case BinaryOp::Gt: return arith::CmpFPredicate::OGT;
  default: return arith::CmpFPredicate::OGE;
  }
}

static tile::CmpPredicate tilePredicate(BinaryOp op) {
  switch (op) {
  case BinaryOp::Eq: return tile::CmpPredicate::eq;
  case BinaryOp::Ne: return tile::CmpPredicate::ne;
  case BinaryOp::Lt: return tile::CmpPredicate::lt;
  case BinaryOp::Le: return tile::CmpPredicate::le;
  case BinaryOp::Gt: return tile::CmpPredicate::gt;
  default: return tile::CmpPredicate::ge;
  }
}

Value Generator::genBinary(BinaryOp op, Value lhs, const Type &lhsType,
                           Value rhs, const Type &rhsType,
                           const Type &resultType, Location at) {
  ScalarKind element = *promote(lhsType.element, rhsType.element);
  lhs = castElements(lhs, lhsType, element, at);
  rhs = castElements(rhs, rhsType, element, at);
  bool comparison = op == BinaryOp::Eq || op == BinaryOp::Ne ||
                    op == BinaryOp::Lt || op == BinaryOp::Le ||
                    op == BinaryOp::Gt || op == BinaryOp::Ge;
  if (resultType.isTile()) {
    if (comparison)
      return tile::CmpOp::create(builder, at, tilePredicate(op), lhs, rhs);
    switch (op) {
    case BinaryOp::Add: return tile::AddOp::create(builder, at, lhs, rhs);
    case BinaryOp::Sub: return tile::SubOp::create(builder, at, lhs, rhs);
    case BinaryOp::Mul: return tile::MulOp::create(builder, at, lhs, rhs);
    case BinaryOp::Div: return tile::DivOp::create(builder, at, lhs, rhs);
    case BinaryOp::Rem: return tile::RemOp::create(builder, at, lhs, rhs);
    case BinaryOp::And: return tile::AndOp::create(builder, at, lhs, rhs);
    case BinaryOp::Or: return tile::OrOp::create(builder, at, lhs, rhs);
    default: break;
    }
    llvm_unreachable("not a tile binary operator");
  }
  bool fp = isFloat(element);
  if (comparison) {
    if (fp)
      return arith::CmpFOp::create(builder, at, floatPredicate(op), lhs, rhs);
    return arith::CmpIOp::create(builder, at, intPredicate(op), lhs, rhs);
  }
  switch (op) {
  case BinaryOp::Add:
    return fp ? Value(arith::AddFOp::create(builder, at, lhs, rhs))
              : Value(arith::AddIOp::create(builder, at, lhs, rhs));
  case BinaryOp::Sub:
    return fp ? Value(arith::SubFOp::create(builder, at, lhs, rhs))
              : Value(arith::SubIOp::create(builder, at, lhs, rhs));
  case BinaryOp::Mul:
    return fp ? Value(arith::MulFOp::create(builder, at, lhs, rhs))
              : Value(arith::MulIOp::create(builder, at, lhs, rhs));
  case BinaryOp::Div:
    return fp ? Value(arith::DivFOp::create(builder, at, lhs, rhs))
              : Value(arith::DivSIOp::create(builder, at, lhs, rhs));
  case BinaryOp::Rem:
    return arith::RemSIOp::create(builder, at, lhs, rhs);
  case BinaryOp::And:
    return arith::AndIOp::create(builder, at, lhs, rhs);
  case BinaryOp::Or:
    return arith::OrIOp::create(builder, at, lhs, rhs);
  default:
    break;
  }
  llvm_unreachable("not a scalar binary operator");
}

Value Generator::genUnaryMath(ast::Builtin builtin, Value operand,
                              const Type &type, Location at) {
  using ast::Builtin;
  if (type.isTile()) {
    switch (builtin) {
    case Builtin::Exp: return tile::ExpOp::create(builder, at, operand);
    case Builtin::Exp2: return tile::Exp2Op::create(builder, at, operand);
    case Builtin::Log: return tile::LogOp::create(builder, at, operand);
    case Builtin::Log2: return tile::Log2Op::create(builder, at, operand);
    case Builtin::Sqrt: return tile::SqrtOp::create(builder, at, operand);
    case Builtin::Rsqrt: return tile::RsqrtOp::create(builder, at, operand);
    case Builtin::Tanh: return tile::TanhOp::create(builder, at, operand);
    default: return tile::AbsOp::create(builder, at, operand);
    }
  }
  switch (builtin) {
  case Builtin::Exp: return math::ExpOp::create(builder, at, operand);
  case Builtin::Exp2: return math::Exp2Op::create(builder, at, operand);
  case Builtin::Log: return math::LogOp::create(builder, at, operand);
  case Builtin::Log2: return math::Log2Op::create(builder, at, operand);
  case Builtin::Sqrt: return math::SqrtOp::create(builder, at, operand);
  case Builtin::Rsqrt: return math::RsqrtOp::create(builder, at, operand);
  case Builtin::Tanh: return math::TanhOp::create(builder, at, operand);
  default:
    if (isFloat(type.element))
      return math::AbsFOp::create(builder, at, operand);
    return math::AbsIOp::create(builder, at, operand);
  }
}

Value Generator::genCall(CallExpr &expr) {
  using ast::Builtin;
  Location at = loc(expr.getLoc());
  auto arg = [&](size_t i) { return gen(*expr.args[i]); };
  auto argType = [&](size_t i) -> const Type & { return expr.args[i]->type; };

  switch (expr.builtin) {
  case Builtin::Unknown:
    break;
  case Builtin::Cast:
    return castElements(arg(0), argType(0), expr.castTarget, at);
  case Builtin::Exp:
  case Builtin::Exp2:
  case Builtin::Log:
  case Builtin::Log2:
  case Builtin::Sqrt:
  case Builtin::Rsqrt:
  case Builtin::Tanh:
  case Builtin::Abs:
    return genUnaryMath(expr.builtin, arg(0), argType(0), at);
  case Builtin::TMax:
  case Builtin::TMin: {
    bool isMax = expr.builtin == Builtin::TMax;
    ScalarKind element = expr.type.element;
    Value lhs = castElements(arg(0), argType(0), element, at);
    Value rhs = castElements(arg(1), argType(1), element, at);
    if (expr.type.isTile())
      return isMax ? Value(tile::MaxOp::create(builder, at, lhs, rhs))
                   : Value(tile::MinOp::create(builder, at, lhs, rhs));
    if (isFloat(element))
      return isMax ? Value(arith::MaximumFOp::create(builder, at, lhs, rhs))
                   : Value(arith::MinimumFOp::create(builder, at, lhs, rhs));
    return isMax ? Value(arith::MaxSIOp::create(builder, at, lhs, rhs))
                 : Value(arith::MinSIOp::create(builder, at, lhs, rhs));
  }
  case Builtin::Where: {
    ScalarKind element = expr.type.element;
    Value cond = arg(0);
    Value lhs = castElements(arg(1), argType(1), element, at);
    Value rhs = castElements(arg(2), argType(2), element, at);
    if (expr.type.isScalar())
      return arith::SelectOp::create(builder, at, cond, lhs, rhs);
    return tile::SelectOp::create(builder, at, cond, lhs, rhs);
  }
  case Builtin::Dot:
  case Builtin::DotT: {
    ScalarKind element = *promote(argType(0).element, argType(1).element);
    Value a = castElements(arg(0), argType(0), element, at);
    Value b = castElements(arg(1), argType(1), element, at);
    tile::DotPrecision precision = tile::DotPrecision::ieee;
    if (element == ScalarKind::F32 && checked.attrs.tensorcore)
      precision = *checked.attrs.tensorcore;
    return tile::DotOp::create(builder, at, mlirType(expr.type), a, b,
                               /*acc=*/Value(), precision,
                               /*transpose_b=*/expr.builtin == Builtin::DotT,
                               /*kind=*/nullptr, /*in_flight=*/nullptr);
  }
  case Builtin::RowSum:
  case Builtin::RowMax:
  case Builtin::RowMin:
  case Builtin::ColSum:
  case Builtin::ColMax:
  case Builtin::ColMin: {
    Builtin b = expr.builtin;
    tile::ReduceKind kind =
        b == Builtin::RowSum || b == Builtin::ColSum   ? tile::ReduceKind::sum
        : b == Builtin::RowMax || b == Builtin::ColMax ? tile::ReduceKind::max
                                                       : tile::ReduceKind::min;
    int64_t axis =
        b == Builtin::RowSum || b == Builtin::RowMax || b == Builtin::RowMin
            ? 1
            : 0;
    return tile::ReduceOp::create(builder, at, mlirType(expr.type), kind,
                                  arg(0), axis);
  }
  case Builtin::Cumsum:
    return tile::CumsumOp::create(builder, at, arg(0), 0);
  case Builtin::Tril:
    return tile::TrilOp::create(builder, at, arg(0));
  case Builtin::Transpose:
    return tile::TransposeOp::create(builder, at, mlirType(expr.type), arg(0));
  case Builtin::Arange:
    return tile::ArangeOp::create(builder, at, mlirType(expr.type));
  case Builtin::Reshape:
    return tile::ReshapeOp::create(builder, at, mlirType(expr.type), arg(0));
  case Builtin::ProgramId: {
    auto axis = static_cast<tile::Axis>(cast<IntExpr>(*expr.args[0]).value);
    return tile::BlockIdOp::create(builder, at, axis);
  }
  case Builtin::AtomicAdd:
    break; // a statement (visitCallStmt)
  }
  llvm_unreachable("Sema accepted an unknown call");
}

Generator::Access Generator::genAccess(SubscriptExpr &expr) {
  Access access;
  auto *base = cast<NameExpr>(expr.base.get());
  access.tensor = values.lookup(base->symbol);
  for (auto [axis, sub] : llvm::enumerate(expr.subscripts)) {
    if (sub.kind == Subscript::Kind::Full) {
      access.offsets.push_back(intConstant(0, ScalarKind::I32, loc(sub.loc)));
      continue;
    }
    access.offsets.push_back(gen(*sub.start));
    if (sub.kind == Subscript::Kind::Point)
      access.pointAxes.push_back(axis);
  }
  return access;
}

Value Generator::genLoad(SubscriptExpr &expr) {
  Location at = loc(expr.getLoc());
  Access access = genAccess(expr);
  if (expr.type.isScalar())
    return tile::LoadScalarOp::create(builder, at, access.tensor,
                                      access.offsets);
  auto load = tile::LoadOp::create(builder, at, mlirType(expr.type),
                                   access.tensor, access.offsets,
                                   pointAxesAttr(access),
                                   /*in_bounds=*/nullptr);
  markExtents(load, expr);
  return load;
}

//===----------------------------------------------------------------------===//
// Marks for the cluster compiler
//===----------------------------------------------------------------------===//

std::optional<std::string> Generator::clusterName(const Expr *expr) const {
  auto *name = llvm::dyn_cast_or_null<NameExpr>(expr);
  if (!markCluster || !name || !name->symbol ||
      name->symbol->kind != Symbol::Kind::Constant)
    return std::nullopt;
  for (const SearchDim &dim : checked.attrs.cluster)
    if (dim.name == name->name)
      return dim.name;
  return std::nullopt;
}

Value Generator::markName(Value value, const Expr *expr) {
  if (std::optional<std::string> name = clusterName(expr))
    value.getDefiningOp()->setAttr(
        phobos::cluster::ClusterDialect::kDimAttrName,
        builder.getStringAttr(*name));
  return value;
}

void Generator::markExtents(mlir::Operation *op, const SubscriptExpr &expr) {
  if (!markCluster)
    return;
  // Per tensor axis: the @cluster name of `:+ NAME`, or "".
  llvm::SmallVector<mlir::Attribute> names;
  bool any = false;
  for (const Subscript &sub : expr.subscripts) {
    std::optional<std::string> name;
    if (sub.kind == Subscript::Kind::Sized)
      name = clusterName(sub.end.get());
    names.push_back(builder.getStringAttr(name ? *name : ""));
    any |= name.has_value();
  }
  if (any)
    op->setAttr(phobos::cluster::ClusterDialect::kExtentsAttrName,
                builder.getArrayAttr(names));
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void phobos::frontend::generateKernel(CheckedKernel &kernel,
                                      mlir::ModuleOp module,
                                      Diagnostics &diags, bool markCluster) {
  Generator(kernel, module, diags, markCluster).run();
}

std::string phobos::frontend::parseVariantSpec(llvm::StringRef text,
                                               llvm::StringMap<int64_t> &variant) {
  llvm::SmallVector<llvm::StringRef> items;
  if (!text.trim().empty())
    text.split(items, ',', -1, /*KeepEmpty=*/true);
  for (llvm::StringRef item : items) {
    if (item.trim().empty())
      return ("expected NAME=VALUE, got an empty entry in '" + text + "'")
          .str();
    auto [name, value] = item.split('=');
    name = name.trim();
    value = value.trim();
    int64_t number = 0;
    if (name.empty() || value.empty() || value.getAsInteger(10, number))
      return ("expected NAME=VALUE with an integer VALUE, got '" + item + "'")
          .str();
    if (!variant.try_emplace(name, number).second)
      return ("'" + name + "' is given twice").str();
  }
  return "";
}

mlir::OwningOpRef<mlir::ModuleOp>
phobos::frontend::importPhobos(llvm::SourceMgr &sourceMgr,
                               mlir::MLIRContext *context,
                               const ImportOptions &options) {
  context->loadDialect<tile::TileDialect, arith::ArithDialect,
                       math::MathDialect, scf::SCFDialect>();
  if (options.markCluster)
    context->loadDialect<phobos::cluster::ClusterDialect>();
  unsigned bufferId = sourceMgr.getMainFileID();
  Diagnostics diags(sourceMgr, context, bufferId);
  std::unique_ptr<Program> program = parseProgram(diags);
  if (!program)
    return nullptr;

  Location fileLoc = diags.location(llvm::SMLoc::getFromPointer(
      diags.getBuffer().data()));
  llvm::StringMap<SMLoc> names;
  std::vector<Kernel *> selected;
  for (auto &kernel : program->kernels) {
    auto [it, inserted] = names.try_emplace(kernel->name, kernel->loc);
    if (!inserted) {
      diags.error(kernel->loc) << "kernel '" << kernel->name
                               << "' is already defined at "
                               << diags.lineCol(it->second);
      return nullptr;
    }
    if (options.kernelName.empty() || options.kernelName == kernel->name)
      selected.push_back(kernel.get());
  }
  if (selected.empty()) {
    auto diag = mlir::emitError(fileLoc);
    diag << "--kernel: no kernel named '" << options.kernelName
         << "'; the file defines ";
    llvm::interleaveComma(program->kernels, diag,
                          [&](auto &kernel) { diag << kernel->name; });
    return nullptr;
  }
  // Every --variant name must belong to some imported kernel.
  for (auto &binding : options.variant) {
    bool known = false;
    for (Kernel *kernel : selected)
      for (const ast::Attribute &attr : kernel->attributes)
        if (attr.name == "autotune")
          for (const AttrArg &arg : attr.args)
            known |= arg.name == binding.getKey();
    if (!known) {
      mlir::emitError(fileLoc) << "--variant names '" << binding.getKey()
                               << "', which no imported kernel declares in "
                                  "@autotune";
      return nullptr;
    }
  }

  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(fileLoc);
  for (Kernel *kernel : selected) {
    std::unique_ptr<CheckedKernel> checked =
        checkKernel(*kernel, options.variant, diags);
    if (checked)
      generateKernel(*checked, *module, diags, options.markCluster);
  }
  if (diags.hadError())
    return nullptr;
  if (options.spanMap)
    options.spanMap->relocate(
        *module, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}
