//===- LowerCompute.cpp - Element-wise tile ops, register by register -----===//
//
// Fills, aranges, arithmetic, comparisons, selects, casts, broadcasts and
// tril touch only the registers a thread already holds: operands that
// broadcast are read from the register holding the broadcast element (the
// layouts make sure the same thread has it). Half-precision values compute
// in f32 and round back, as the interpreter does.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace phobos::tile;

/// Converts one element from `from` to `to` (the semantics of phobos.cast).
static Value castElement(Lowering &l, Value value, Type to) {
  Type from = value.getType();
  OpBuilder &b = l.b;
  Location loc = l.loc;
  if (from == to)
    return value;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   l.zero(from));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 l.zero(from));
  }
  if (from.isInteger(1)) {
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(b, loc, to, value);
    return arith::ExtUIOp::create(b, loc, to, value);
  }
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat) {
    unsigned fromBits = from.getIntOrFloatBitWidth();
    unsigned toBits = to.getIntOrFloatBitWidth();
    if (fromBits == toBits) // f16 <-> bf16
      return arith::TruncFOp::create(
          b, loc, to, arith::ExtFOp::create(b, loc, b.getF32Type(), value));
    if (toBits > fromBits)
      return arith::ExtFOp::create(b, loc, to, value);
    return arith::TruncFOp::create(b, loc, to, value);
  }
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, value);
  // Float to integer saturates (NaN is 0), as the language says.
  if (fromFloat) {
    Value wide = l.widen(value);
    std::string name = ("llvm.fptosi.sat.i" + Twine(to.getIntOrFloatBitWidth()) +
                        ".f" + Twine(wide.getType().getIntOrFloatBitWidth()))
                           .str();
    return LLVM::CallIntrinsicOp::create(b, loc, to, b.getStringAttr(name),
                                         ValueRange{wide})
        .getResult(0);
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, value);
  return arith::TruncIOp::create(b, loc, to, value);
}

Value Lowering::mathFunction(MathFunction function, Value x) {
  Type type = x.getType();
  if (isa<IntegerType>(type)) { // abs and neg of integers
    Value negated = arith::SubIOp::create(b, loc, zero(type), x);
    if (function == MathFunction::Neg)
      return negated;
    return select(cmpLt(x, zero(type)), negated, x);
  }
  Value wide = widen(x);
  Type wideType = wide.getType();
  // Called as intrinsics: convert-gpu-to-nvvm would turn the llvm.intr ops
  // into libdevice calls.
  auto intrinsic = [&](StringRef name) -> Value {
    return LLVM::CallIntrinsicOp::create(b, loc, wideType, b.getStringAttr(name),
                                         ValueRange{wide})
        .getResult(0);
  };
  StringRef suffix = wideType.isF64() ? ".f64" : ".f32";
  bool f64 = wideType.isF64();
  Value result;
  switch (function) {
  case MathFunction::Neg:
    result = arith::NegFOp::create(b, loc, wide);
    break;
  case MathFunction::Abs:
    result = intrinsic(("llvm.fabs" + suffix).str());
    break;
  case MathFunction::Exp: {
    if (f64)
      return Value();
    // e^x = 2^(x log2 e): ex2.approx, relative error about 2^-22.
    wide = arith::MulFOp::create(b, loc, wide, floatConst(wideType, M_LOG2E));
    result = intrinsic("llvm.exp2.f32");
    break;
  }
  case MathFunction::Log:
    if (f64)
      return Value();
    result = arith::MulFOp::create(b, loc, intrinsic("llvm.nvvm.lg2.approx.f"),
                                   floatConst(wideType, M_LN2));
    break;
  case MathFunction::Sqrt:
    result = intrinsic(("llvm.sqrt" + suffix).str());
    break;
  case MathFunction::Rsqrt:
    if (f64) {
      Value root = intrinsic("llvm.sqrt.f64");
      result = arith::DivFOp::create(b, loc, floatConst(wideType, 1.0), root);
    } else {
      result = intrinsic("llvm.nvvm.rsqrt.approx.f");
    }
    break;
  }
  return narrowTo(result, type);
}

/// `lhs op rhs` for two elements of one type.
static Value binary(Lowering &l, Operation *op, Value lhs, Value rhs) {
  OpBuilder &b = l.b;
  Location loc = l.loc;
  Type type = lhs.getType();
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    if (isa<FloatType>(type)) {
      arith::CmpFPredicate p;
      switch (cmp.getPredicate()) {
      case CmpPredicate::eq: p = arith::CmpFPredicate::OEQ; break;
      case CmpPredicate::ne: p = arith::CmpFPredicate::UNE; break;
      case CmpPredicate::lt: p = arith::CmpFPredicate::OLT; break;
      case CmpPredicate::le: p = arith::CmpFPredicate::OLE; break;
      case CmpPredicate::gt: p = arith::CmpFPredicate::OGT; break;
      case CmpPredicate::ge: p = arith::CmpFPredicate::OGE; break;
      }
      return arith::CmpFOp::create(b, loc, p, l.widen(lhs), l.widen(rhs));
    }
    arith::CmpIPredicate p;
    switch (cmp.getPredicate()) {
    case CmpPredicate::eq: p = arith::CmpIPredicate::eq; break;
    case CmpPredicate::ne: p = arith::CmpIPredicate::ne; break;
    case CmpPredicate::lt: p = arith::CmpIPredicate::slt; break;
    case CmpPredicate::le: p = arith::CmpIPredicate::sle; break;
    case CmpPredicate::gt: p = arith::CmpIPredicate::sgt; break;
    case CmpPredicate::ge: p = arith::CmpIPredicate::sge; break;
    }
    return arith::CmpIOp::create(b, loc, p, lhs, rhs);
  }
  if (isa<FloatType>(type)) {
    Value x = l.widen(lhs), y = l.widen(rhs);
    Value result = llvm::TypeSwitch<Operation *, Value>(op)
        .Case([&](AddOp) { return arith::AddFOp::create(b, loc, x, y); })
        .Case([&](SubOp) { return arith::SubFOp::create(b, loc, x, y); })
        .Case([&](MulOp) { return arith::MulFOp::create(b, loc, x, y); })
        .Case([&](DivOp) { return arith::DivFOp::create(b, loc, x, y); })
        .Case([&](RemOp) { return arith::RemFOp::create(b, loc, x, y); })
        .Case([&](MaxOp) { return arith::MaximumFOp::create(b, loc, x, y); })
        .Case([&](MinOp) { return arith::MinimumFOp::create(b, loc, x, y); })
        .Default([&](Operation *) { return Value(); });
    return l.narrowTo(result, type);
  }
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return arith::AddIOp::create(b, loc, lhs, rhs); })
      .Case([&](SubOp) { return arith::SubIOp::create(b, loc, lhs, rhs); })
      .Case([&](MulOp) { return arith::MulIOp::create(b, loc, lhs, rhs); })
      .Case([&](DivOp) { return arith::DivSIOp::create(b, loc, lhs, rhs); })
      .Case([&](RemOp) { return arith::RemSIOp::create(b, loc, lhs, rhs); })
      .Case([&](MaxOp) { return arith::MaxSIOp::create(b, loc, lhs, rhs); })
      .Case([&](MinOp) { return arith::MinSIOp::create(b, loc, lhs, rhs); })
      .Case([&](AndOp) { return arith::AndIOp::create(b, loc, lhs, rhs); })
      .Case([&](OrOp) { return arith::OrIOp::create(b, loc, lhs, rhs); })
      .Default([&](Operation *) { return Value(); });
}

bool Lowering::lowerCompute(Operation *op) {
  if (op->getNumResults() != 1 || !isa<TileType>(op->getResult(0).getType()))
    return fail(op, "cannot be lowered to the GPU");
  Value result = op->getResult(0);
  auto resultType = cast<TileType>(result.getType());
  DistributedLayout layout = layoutOf(resultType);
  int64_t count = layout.numRegisters();
  Regs values;
  values.reserve(count);

  if (auto fill = dyn_cast<FillOp>(op)) {
    values.assign(count, scalar(fill.getValue()));
  } else if (isa<ArangeOp>(op)) {
    for (int64_t reg = 0; reg < count; ++reg)
      values.push_back(coordinate(layout.axis(0), reg));
  } else if (isa<BroadcastOp>(op)) {
    for (int64_t reg = 0; reg < count; ++reg)
      values.push_back(broadcastOperand(op->getOperand(0), layout, reg));
  } else if (auto cast = dyn_cast<CastOp>(op)) {
    for (int64_t reg = 0; reg < count; ++reg)
      values.push_back(castElement(*this, regs(cast.getSource())[reg],
                                   resultType.getElementType()));
  } else if (isa<NotOp>(op)) {
    for (Value x : regs(op->getOperand(0)))
      values.push_back(arith::XOrIOp::create(b, loc, x, i1(true)));
  } else if (isa<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp>(op)) {
    MathFunction function = isa<NegOp>(op)   ? MathFunction::Neg
                            : isa<AbsOp>(op) ? MathFunction::Abs
                            : isa<ExpOp>(op) ? MathFunction::Exp
                            : isa<LogOp>(op) ? MathFunction::Log
                            : isa<SqrtOp>(op) ? MathFunction::Sqrt
                                              : MathFunction::Rsqrt;
    for (Value x : regs(op->getOperand(0))) {
      Value value = mathFunction(function, x);
      if (!value)
        return fail(op, "f64 exp and log are not supported on the GPU");
      values.push_back(value);
    }
  } else if (isa<TrilOp>(op)) {
    const Regs &source = regs(op->getOperand(0));
    for (int64_t reg = 0; reg < count; ++reg) {
      SmallVector<Value, 4> coords = coordinates(layout, reg);
      Value keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                         coords[1], coords[0]);
      values.push_back(select(keep, source[reg],
                              zero(resultType.getElementType())));
    }
  } else if (auto sel = dyn_cast<SelectOp>(op)) {
    for (int64_t reg = 0; reg < count; ++reg)
      values.push_back(select(broadcastOperand(sel.getCondition(), layout, reg),
                              broadcastOperand(sel.getTrueValue(), layout, reg),
                              broadcastOperand(sel.getFalseValue(), layout, reg)));
  } else if (op->getNumOperands() == 2) {
    for (int64_t reg = 0; reg < count; ++reg) {
      Value value = binary(*this, op, broadcastOperand(op->getOperand(0), layout, reg),
                           broadcastOperand(op->getOperand(1), layout, reg));
      if (!value)
        return fail(op, "cannot be lowered to the GPU");
      values.push_back(value);
    }
  } else {
    return fail(op, "cannot be lowered to the GPU");
  }
  setRegs(result, std::move(values));
  return true;
}
