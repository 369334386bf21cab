//===- ComputeToGPU.cpp - Element-wise tile ops, register by register -----===//
//
// Fills, aranges, arithmetic, comparisons, selects, casts, broadcasts and
// tril touch only the registers a thread already holds: operands that
// broadcast are read from the register holding the broadcast element (the
// layouts make sure the same thread has it). Half-precision values compute
// in f32 and round back, as the interpreter does, except exp2 of f16, which
// takes ex2.approx.f16x2 two registers at a time. Scalar math takes the
// same NVPTX fast paths as tile math.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Converts one element from its type to `to` (the semantics of
/// phobos.cast, docs/language.md "Casts").
Value castElement(ThreadEmitter &e, Value value, Type to) {
  Type from = value.getType();
  OpBuilder &b = e.b;
  Location loc = e.loc;
  if (from == to)
    return value;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   e.zero(from));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 e.zero(from));
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
    Value wide = e.widen(value);
    std::string name =
        ("llvm.fptosi.sat.i" + Twine(to.getIntOrFloatBitWidth()) + ".f" +
         Twine(wide.getType().getIntOrFloatBitWidth()))
            .str();
    return LLVM::CallIntrinsicOp::create(b, loc, to, b.getStringAttr(name),
                                         ValueRange{wide})
        .getResult(0);
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, value);
  return arith::TruncIOp::create(b, loc, to, value);
}

/// `lhs op rhs` for two elements of one type.
Value binary(ThreadEmitter &e, Operation *op, Value lhs, Value rhs) {
  OpBuilder &b = e.b;
  Location loc = e.loc;
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
      return arith::CmpFOp::create(b, loc, p, e.widen(lhs), e.widen(rhs));
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
    Value x = e.widen(lhs), y = e.widen(rhs);
    Value result = llvm::TypeSwitch<Operation *, Value>(op)
        .Case([&](AddOp) { return arith::AddFOp::create(b, loc, x, y); })
        .Case([&](SubOp) { return arith::SubFOp::create(b, loc, x, y); })
        .Case([&](MulOp) { return arith::MulFOp::create(b, loc, x, y); })
        .Case([&](DivOp) { return arith::DivFOp::create(b, loc, x, y); })
        .Case([&](RemOp) { return arith::RemFOp::create(b, loc, x, y); })
        .Case([&](MaxOp) { return arith::MaximumFOp::create(b, loc, x, y); })
        .Case([&](MinOp) { return arith::MinimumFOp::create(b, loc, x, y); })
        .Default([&](Operation *) { return Value(); });
    return result ? e.narrowTo(result, type) : Value();
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

using MathFunction = ThreadEmitter::MathFunction;

template <typename Op>
constexpr MathFunction mathFunctionOf() {
  if constexpr (std::is_same_v<Op, NegOp>)
    return MathFunction::Neg;
  else if constexpr (std::is_same_v<Op, AbsOp> ||
                     std::is_same_v<Op, math::AbsFOp> ||
                     std::is_same_v<Op, math::AbsIOp>)
    return MathFunction::Abs;
  else if constexpr (std::is_same_v<Op, ExpOp> || std::is_same_v<Op, math::ExpOp>)
    return MathFunction::Exp;
  else if constexpr (std::is_same_v<Op, Exp2Op> ||
                     std::is_same_v<Op, math::Exp2Op>)
    return MathFunction::Exp2;
  else if constexpr (std::is_same_v<Op, LogOp> || std::is_same_v<Op, math::LogOp>)
    return MathFunction::Log;
  else if constexpr (std::is_same_v<Op, Log2Op> ||
                     std::is_same_v<Op, math::Log2Op>)
    return MathFunction::Log2;
  else if constexpr (std::is_same_v<Op, SqrtOp> ||
                     std::is_same_v<Op, math::SqrtOp>)
    return MathFunction::Sqrt;
  else if constexpr (std::is_same_v<Op, TanhOp> ||
                     std::is_same_v<Op, math::TanhOp>)
    return MathFunction::Tanh;
  else
    return MathFunction::Rsqrt;
}

/// A tile op whose result register `reg` is computed from the registers
/// of its operands (broadcast to the result's layout).
template <typename Op>
struct ElementwiseLowering : TileToGPUPattern<Op> {
  using TileToGPUPattern<Op>::TileToGPUPattern;
  using OneToNOpAdaptor = typename TileToGPUPattern<Op>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(Op op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = this->emitter(op, rewriter);
    auto resultType = cast<TileType>(op.getType());
    DistributedLayout layout = layoutOf(resultType);
    int64_t count = layout.numRegisters();
    ArrayRef<ValueRange> operands = adaptor.getOperands();
    auto operand = [&](unsigned index, int64_t reg) {
      return e.broadcastOperand(op->getOperand(index).getType(),
                                operands[index], layout, reg);
    };
    if constexpr (std::is_same_v<Op, Exp2Op>) {
      // Two f16 results per MUFU.EX2: the tile's type asks for f16 powers,
      // so the pair instruction's error (about 2^-9.9) is within the type.
      if (resultType.getElementType().isF16()) {
        replaceWithRegisters(rewriter, op, e.halfExp2(operands[0]));
        return success();
      }
    }
    Regs values;
    values.reserve(count);
    for (int64_t reg = 0; reg < count; ++reg) {
      Value value;
      if constexpr (std::is_same_v<Op, FillOp>) {
        value = operands[0].front();
      } else if constexpr (std::is_same_v<Op, ArangeOp>) {
        value = e.coordinate(layout.axis(0), reg);
      } else if constexpr (std::is_same_v<Op, BroadcastOp>) {
        value = operand(0, reg);
      } else if constexpr (std::is_same_v<Op, CastOp>) {
        value = castElement(e, operands[0][reg], resultType.getElementType());
      } else if constexpr (std::is_same_v<Op, NotOp>) {
        value = arith::XOrIOp::create(e.b, e.loc, operands[0][reg], e.i1(true));
      } else if constexpr (std::is_same_v<Op, TrilOp>) {
        SmallVector<Value, 4> coords = e.coordinates(layout, reg);
        Value keep = arith::CmpIOp::create(e.b, e.loc, arith::CmpIPredicate::sle,
                                           coords[1], coords[0]);
        value = e.select(keep, operands[0][reg],
                         e.zero(resultType.getElementType()));
      } else if constexpr (std::is_same_v<Op, SelectOp>) {
        value = e.select(operand(0, reg), operand(1, reg), operand(2, reg));
      } else if constexpr (std::is_same_v<Op, NegOp> ||
                           std::is_same_v<Op, AbsOp> ||
                           std::is_same_v<Op, ExpOp> ||
                           std::is_same_v<Op, Exp2Op> ||
                           std::is_same_v<Op, LogOp> ||
                           std::is_same_v<Op, Log2Op> ||
                           std::is_same_v<Op, SqrtOp> ||
                           std::is_same_v<Op, RsqrtOp> ||
                           std::is_same_v<Op, TanhOp>) {
        // f64 exp, exp2, log, log2 and tanh were refused before the conversion started.
        value = e.mathFunction(mathFunctionOf<Op>(), operands[0][reg]);
      } else {
        value = binary(e, op, operand(0, reg), operand(1, reg));
      }
      if (!value)
        return rewriter.notifyMatchFailure(op, "no GPU form for this element type");
      values.push_back(value);
    }
    replaceWithRegisters(rewriter, op, values);
    return success();
  }
};

/// Scalar transcendentals take the NVPTX fast paths (no libdevice).
template <typename Op>
struct ScalarMathLowering : OpConversionPattern<Op> {
  ScalarMathLowering(const TypeConverter &converter, MLIRContext *context,
                     TileLoweringState &state)
      : OpConversionPattern<Op>(converter, context), state(state) {}
  LogicalResult
  matchAndRewrite(Op op, typename OpConversionPattern<Op>::OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e(rewriter, op.getLoc(), state.frame(op));
    Value result = e.mathFunction(mathFunctionOf<Op>(), adaptor.getOperand());
    if (!result)
      return rewriter.notifyMatchFailure(op, "no GPU form for this type");
    rewriter.replaceOp(op, result);
    return success();
  }
  TileLoweringState &state;
};

} // namespace

void phobos::tile::populateComputeToGPUPatterns(const TypeConverter &converter,
                                                RewritePatternSet &patterns,
                                                TileLoweringState &state) {
  patterns.add<ElementwiseLowering<FillOp>, ElementwiseLowering<ArangeOp>,
               ElementwiseLowering<BroadcastOp>, ElementwiseLowering<CastOp>,
               ElementwiseLowering<NotOp>, ElementwiseLowering<TrilOp>,
               ElementwiseLowering<SelectOp>, ElementwiseLowering<NegOp>,
               ElementwiseLowering<AbsOp>, ElementwiseLowering<ExpOp>,
               ElementwiseLowering<Exp2Op>, ElementwiseLowering<LogOp>,
               ElementwiseLowering<Log2Op>, ElementwiseLowering<SqrtOp>,
               ElementwiseLowering<RsqrtOp>, ElementwiseLowering<TanhOp>,
               ElementwiseLowering<AddOp>,
               ElementwiseLowering<SubOp>, ElementwiseLowering<MulOp>,
               ElementwiseLowering<DivOp>, ElementwiseLowering<RemOp>,
               ElementwiseLowering<MaxOp>, ElementwiseLowering<MinOp>,
               ElementwiseLowering<AndOp>, ElementwiseLowering<OrOp>,
               ElementwiseLowering<CmpOp>>(converter, patterns.getContext(),
                                           state);
  patterns.add<ScalarMathLowering<math::ExpOp>, ScalarMathLowering<math::Exp2Op>,
               ScalarMathLowering<math::LogOp>, ScalarMathLowering<math::Log2Op>,
               ScalarMathLowering<math::SqrtOp>,
               ScalarMathLowering<math::RsqrtOp>,
               ScalarMathLowering<math::TanhOp>,
               ScalarMathLowering<math::AbsFOp>,
               ScalarMathLowering<math::AbsIOp>>(converter,
                                                 patterns.getContext(), state);
}
