//===- PatternBase.cpp - The per-thread code every pattern builds ---------===//

#include "PatternBase.h"

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace phobos::tile;

KernelFrame &TileLoweringState::frame(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  assert(func && frames.count(func) && "op outside a lowered kernel");
  return frames[func];
}

DistributedLayout phobos::tile::layoutOf(Type type) {
  auto tile = cast<TileType>(type);
  return cast<DistributedLayoutInterface>(tile.getEncoding())
      .distribute(tile.getShape());
}

int64_t phobos::tile::vectorWidth(const DistributedLayout &layout,
                                  unsigned axis, Type element,
                                  int64_t rowLength) {
  int64_t bytes = element.isInteger(1) ? 0 : getElementBytes(element);
  return layout.vectorWidth(axis, bytes, rowLength);
}

//===----------------------------------------------------------------------===//
// Constants and arithmetic
//===----------------------------------------------------------------------===//

Value ThreadEmitter::i32(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}
Value ThreadEmitter::i64(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}
Value ThreadEmitter::i1(bool value) {
  return arith::ConstantOp::create(b, loc, b.getBoolAttr(value));
}
Value ThreadEmitter::zero(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatConst(floatType, 0.0);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}
Value ThreadEmitter::floatConst(Type type, double value) {
  return arith::ConstantOp::create(b, loc,
                                   b.getFloatAttr(cast<FloatType>(type), value));
}
Value ThreadEmitter::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value ThreadEmitter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value ThreadEmitter::andI(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}
Value ThreadEmitter::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}
Value ThreadEmitter::cmpLt(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
}
Value ThreadEmitter::widen(Value value) {
  Type type = value.getType();
  if (type.isF16() || type.isBF16())
    return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return value;
}
Value ThreadEmitter::narrowTo(Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::TruncFOp::create(b, loc, type, value);
}

Value ThreadEmitter::mathFunction(MathFunction function, Value x) {
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
    // e^x = 2^(x log2 e): ex2.approx, relative error about 2^-22. The ftz
    // form is one MUFU.EX2; without it ptxas adds three instructions per
    // call to produce subnormal results. Results below 2^-126 are 0, as the
    // interpreter's flushedExp has it (docs/language.md).
    wide = arith::MulFOp::create(b, loc, wide, floatConst(wideType, M_LOG2E));
    result = intrinsic("llvm.nvvm.ex2.approx.ftz.f32");
    break;
  }
  case MathFunction::Exp2:
    // The same instruction without the multiply: a kernel that keeps its
    // values in log2 units (attention's scores scaled by scale * log2 e, as
    // Triton's tutorial and FlashAttention do) saves an FMUL per element.
    if (f64)
      return Value();
    result = intrinsic("llvm.nvvm.ex2.approx.ftz.f32");
    break;
  case MathFunction::Log:
    if (f64)
      return Value();
    result = arith::MulFOp::create(b, loc, intrinsic("llvm.nvvm.lg2.approx.f"),
                                   floatConst(wideType, M_LN2));
    break;
  case MathFunction::Log2:
    if (f64)
      return Value();
    result = intrinsic("llvm.nvvm.lg2.approx.f");
    break;
  case MathFunction::Sqrt:
    result = intrinsic(("llvm.sqrt" + suffix).str());
    break;
  case MathFunction::Tanh: {
    if (f64)
      return Value();
    // With afn, NVPTX selects tanh.approx.f32 (one MUFU.TANH on sm_75 and
    // later, relative error about 2^-11), as CUDA's fast-math tanhf does.
    auto afn = LLVM::FastmathFlagsAttr::get(b.getContext(),
                                            LLVM::FastmathFlags::afn);
    result = LLVM::CallIntrinsicOp::create(b, loc, TypeRange{wideType},
                                           b.getStringAttr("llvm.tanh.f32"),
                                           ValueRange{wide}, afn)
                 .getResult(0);
    break;
  }
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

Regs ThreadEmitter::halfExp2(ValueRange xs) {
  auto pairType = VectorType::get({2}, b.getF16Type());
  Regs results;
  results.reserve(xs.size());
  for (size_t i = 0; i + 1 < xs.size(); i += 2) {
    Value pair = LLVM::PoisonOp::create(b, loc, pairType);
    pair = LLVM::InsertElementOp::create(b, loc, pair, xs[i], i32(0));
    pair = LLVM::InsertElementOp::create(b, loc, pair, xs[i + 1], i32(1));
    Value powers =
        LLVM::CallIntrinsicOp::create(b, loc, pairType,
                                      b.getStringAttr("llvm.nvvm.ex2.approx.v2f16"),
                                      ValueRange{pair})
            .getResult(0);
    results.push_back(LLVM::ExtractElementOp::create(b, loc, powers, i32(0)));
    results.push_back(LLVM::ExtractElementOp::create(b, loc, powers, i32(1)));
  }
  if (xs.size() % 2)
    results.push_back(mathFunction(MathFunction::Exp2, xs.back()));
  return results;
}

//===----------------------------------------------------------------------===//
// Threads and layouts
//===----------------------------------------------------------------------===//

Value ThreadEmitter::threadBase(const AxisDistribution &axis) {
  std::array<int64_t, 6> key = {axis.laneDiv,  axis.laneMod,  axis.laneScale,
                                axis.warpDiv,  axis.warpMod,  axis.warpScale};
  auto it = frame.threadBases.find(key);
  if (it != frame.threadBases.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(frame.prologueEnd);
  // `count` is how many ids there are (32 lanes, or the CTA's warps): the
  // modulo is dropped where it cannot wrap.
  auto part = [&](Value id, int64_t count, int64_t div, int64_t mod,
                  int64_t scale) -> Value {
    if (mod <= 1 || scale == 0)
      return Value();
    Value x = id;
    if (div > 1)
      x = arith::DivUIOp::create(b, loc, x, i32(div));
    if (div * mod < count)
      x = arith::RemUIOp::create(b, loc, x, i32(mod));
    return scale == 1 ? x : mul(x, i32(scale));
  };
  Value lanePart = part(lane, 32, axis.laneDiv, axis.laneMod, axis.laneScale);
  Value warpPart =
      part(warp, frame.numWarps, axis.warpDiv, axis.warpMod, axis.warpScale);
  Value base = lanePart && warpPart ? add(lanePart, warpPart)
               : lanePart           ? lanePart
               : warpPart           ? warpPart
                                    : i32(0);
  frame.threadBases[key] = base;
  return base;
}

Value ThreadEmitter::coordinate(const AxisDistribution &axis, int64_t q) {
  Value raw = add(threadBase(axis), i32(axis.constOffset(q)));
  if (!axis.wraps)
    return raw;
  if (axis.extent == 1)
    return i32(0);
  return arith::RemUIOp::create(b, loc, raw, i32(axis.extent));
}

Value ThreadEmitter::canonical(const AxisDistribution &axis, int64_t q) {
  if (!axis.wraps)
    return Value();
  Value raw = add(threadBase(axis), i32(axis.constOffset(q)));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, raw,
                               i32(axis.extent));
}

SmallVector<Value, 4> ThreadEmitter::coordinates(const DistributedLayout &layout,
                                                 int64_t reg) {
  SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
  SmallVector<Value, 4> coords;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    coords.push_back(coordinate(layout.axis(a), q[a]));
  return coords;
}

Value ThreadEmitter::linearIndex(ArrayRef<int64_t> shape,
                                 ArrayRef<Value> coords) {
  Value index = coords[0];
  for (size_t a = 1; a < shape.size(); ++a)
    index = add(mul(index, i32(shape[a])), coords[a]);
  return index;
}

Value ThreadEmitter::isCanonical(const DistributedLayout &layout, int64_t reg) {
  SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
  Value result;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    result = andI(result, canonical(layout.axis(a), q[a]));
  return result;
}

Value ThreadEmitter::shuffleXor(Value value, int64_t mask) {
  Type type = value.getType();
  auto shfl = [&](Value word) -> Value {
    return NVVM::ShflOp::create(
        b, loc, word.getType(), i32(-1), word, i32(mask), i32(31),
        NVVM::ShflKindAttr::get(b.getContext(), NVVM::ShflKind::bfly),
        UnitAttr());
  };
  if (type.getIntOrFloatBitWidth() == 32)
    return shfl(value);
  // 64-bit: two 32-bit halves.
  Value bits = arith::BitcastOp::create(b, loc, b.getI64Type(), value);
  Value low = arith::TruncIOp::create(b, loc, b.getI32Type(), bits);
  Value high = arith::TruncIOp::create(
      b, loc, b.getI32Type(), arith::ShRUIOp::create(b, loc, bits, i64(32)));
  low = arith::ExtUIOp::create(b, loc, b.getI64Type(), shfl(low));
  high = arith::ExtUIOp::create(b, loc, b.getI64Type(), shfl(high));
  Value joined = arith::OrIOp::create(
      b, loc, low, arith::ShLIOp::create(b, loc, high, i64(32)));
  return arith::BitcastOp::create(b, loc, type, joined);
}

Value ThreadEmitter::broadcastOperand(Type operandType, ValueRange values,
                                      const DistributedLayout &result,
                                      int64_t reg) {
  if (!isa<TileType>(operandType))
    return values.front();
  DistributedLayout layout = layoutOf(operandType);
  SmallVector<int64_t, 4> q = result.perAxisIndices(reg);
  unsigned dropped = result.getRank() - layout.getRank();
  SmallVector<int64_t, 4> mine;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    mine.push_back(q[a + dropped] % layout.axis(a).registers());
  return values[layout.registerIndex(mine)];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TensorParam ThreadEmitter::tensor(Type type, ValueRange values) {
  auto tensorType = cast<GlobalTensorType>(type);
  TensorParam param;
  param.base = values.front();
  param.element = tensorType.getElementType();
  // Extents and strides are computed once, in the prologue.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(frame.prologueEnd);
  size_t next = 1;
  for (int64_t axis = 0; axis < tensorType.getRank(); ++axis)
    param.dims.push_back(tensorType.isDynamicDim(axis)
                             ? values[next++]
                             : i32(tensorType.getDimSize(axis)));
  auto &strides = frame.strides[param.base];
  if (strides.empty()) {
    // Element strides of the dense row-major tensor, in i64.
    strides.assign(param.dims.size(), Value());
    Value stride = i64(1);
    for (size_t axis = param.dims.size(); axis-- > 0;) {
      strides[axis] = stride;
      stride = mul(stride, arith::ExtSIOp::create(b, loc, b.getI64Type(),
                                                  param.dims[axis]));
    }
  }
  param.strides = strides;
  return param;
}

Value ThreadEmitter::offsetShared(Value base, int64_t byteOffset) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::GEPOp::create(
      b, loc, ptrType, b.getI8Type(), base,
      ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(byteOffset)});
}

Value ThreadEmitter::elementPointer(Value base, Value elementIndex,
                                    Type element) {
  return LLVM::GEPOp::create(b, loc, base.getType(), memoryType(element), base,
                             ValueRange{elementIndex});
}

Value ThreadEmitter::sharedIndex(SharedMemoryType type, ArrayRef<Value> coords) {
  if (SharedMemoryType slot = getSlotType(type))
    type = slot;
  auto layout = cast<SharedLayoutAttr>(type.getLayout());
  ArrayRef<unsigned> order = layout.getOrder();
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rowLength = layout.getRowLength(shape);
  // Rows: the row-major index of the other axes, slowest last in `order`.
  Value row = i32(0);
  int64_t stride = 1;
  for (size_t k = 1; k < order.size(); ++k) {
    row = add(row, mul(coords[order[k]], i32(stride)));
    stride *= shape[order[k]];
  }
  // SharedLayoutAttr::getOffset, in registers: the atom column first (a
  // power of two), then the row's phase xors the unit bits of the column
  // (vec, perPhase and maxPhase are powers of 2).
  Value column = coords[order[0]];
  Value atomBase;
  if (layout.getAtom() && shape[order[0]] > rowLength) {
    unsigned shift = llvm::Log2_64(rowLength);
    atomBase = mul(arith::ShRUIOp::create(b, loc, column, i32(shift)),
                   i32(stride * rowLength));
    column = arith::AndIOp::create(b, loc, column, i32(rowLength - 1));
  }
  if (layout.isSwizzled()) {
    Value phase = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(b, loc, row,
                               i32(llvm::Log2_32(layout.getPerPhase()))),
        i32(layout.getMaxPhase() - 1));
    column = arith::XOrIOp::create(
        b, loc, column,
        arith::ShLIOp::create(b, loc, phase,
                              i32(llvm::Log2_32(layout.getVec()))));
  }
  Value index = add(mul(row, i32(rowLength)), column);
  return atomBase ? add(atomBase, index) : index;
}

Value ThreadEmitter::scratchPointer(Value elementIndex, Type element) {
  return elementPointer(offsetShared(frame.sharedBase, frame.scratchOffset),
                        elementIndex, element);
}

ThreadRole phobos::tile::roleOf(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(parent);
    if (!branch || !branch->hasAttr(kRoleBranchAttrName))
      continue;
    return branch.getThenRegion().isAncestor(op->getParentRegion())
               ? ThreadRole::Producer
               : ThreadRole::Consumer;
  }
  return ThreadRole::All;
}

Value ThreadEmitter::firstThread() {
  return i32(role == ThreadRole::Producer ? frame.numWarps * 32 : 0);
}

void ThreadEmitter::barrier() {
  if (role != ThreadRole::Consumer) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  NVVM::BarrierOp::create(b, loc, TypeRange{}, i32(1), i32(frame.numWarps * 32),
                          NVVM::BarrierReductionAttr(), Value());
}

Type ThreadEmitter::memoryType(Type element) {
  return element.isInteger(1) ? b.getI8Type() : element;
}
Value ThreadEmitter::toMemory(Value value) {
  if (value.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  return value;
}
Value ThreadEmitter::fromMemory(Value value, Type element) {
  if (element.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero(value.getType()));
  return value;
}

void ThreadEmitter::predicatedStore(Value predicate, Value value, Value pointer,
                                    unsigned alignment) {
  OpBuilder::InsertionGuard guard(b);
  if (predicate) {
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, predicate, false);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
  }
  LLVM::StoreOp::create(b, loc, value, pointer, alignment);
}

Value ThreadEmitter::packVector(ValueRange values, ArrayRef<int64_t> registers,
                                Type element) {
  auto vectorType =
      VectorType::get({static_cast<int64_t>(registers.size())}, element);
  Value vector = LLVM::UndefOp::create(b, loc, vectorType);
  for (auto [k, reg] : llvm::enumerate(registers))
    vector = LLVM::InsertElementOp::create(b, loc, vector, values[reg], i32(k));
  return vector;
}
