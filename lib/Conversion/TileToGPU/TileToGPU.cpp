//===- TileToGPU.cpp - Laid-out tile kernels to per-thread GPU code -------===//
//
// The pass, the kernel's signature and prologue, structured control flow
// (the registers of carried tiles become more iter_args), scalars and the
// helpers every op family uses. The op families live in Lower*.cpp.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"


namespace phobos {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#define GEN_PASS_DEF_CHECKTARGETDIALECTS
#include "Phobos/Conversion/Passes.h.inc"
} // namespace phobos

using namespace mlir;
using namespace phobos;
using namespace phobos::tile;

//===----------------------------------------------------------------------===//
// Construction and prologue
//===----------------------------------------------------------------------===//

Lowering::Lowering(KernelOp kernel, gpu::GPUFuncOp func,
                   LLVM::GlobalOp sharedMemory)
    : b(kernel.getContext()), loc(kernel.getLoc()), kernel(kernel),
      numWarps(getNumWarps(kernel)), func(func), sharedMemory(sharedMemory) {}

DistributedLayout Lowering::layoutOf(Type type) const {
  auto tile = cast<TileType>(type);
  return DistributedLayout(tile.getEncoding(), tile.getShape(), numWarps);
}

bool Lowering::fail(Operation *op, const Twine &message) {
  if (!failed)
    op->emitOpError(message);
  failed = true;
  return false;
}

bool Lowering::run() {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  loc = kernel.getLoc();
  tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  lane = arith::AndIOp::create(b, loc, tid, i32(31));
  warp = arith::ShRUIOp::create(b, loc, tid, i32(5));
  sharedBase = LLVM::AddressOfOp::create(b, loc, sharedMemory);
  if (auto offset = kernel->getAttrOfType<IntegerAttr>("phobos.scratch_offset"))
    scratchOffset = offset.getInt();

  // Parameters, per the launch ABI.
  unsigned next = 0;
  Block &body = kernel.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    if (auto tensorType = dyn_cast<GlobalTensorType>(arg.getType())) {
      TensorParam param;
      param.base = entry.getArgument(next++);
      param.element = tensorType.getElementType();
      for (int64_t axis = 0; axis < tensorType.getRank(); ++axis)
        param.dims.push_back(tensorType.isDynamicDim(axis)
                                 ? Value(entry.getArgument(next++))
                                 : i32(tensorType.getDimSize(axis)));
      // Element strides of the dense row-major tensor, in i64.
      param.strides.assign(param.dims.size(), Value());
      Value stride = i64(1);
      for (size_t axis = param.dims.size(); axis-- > 0;) {
        param.strides[axis] = stride;
        stride = mul(stride, arith::ExtSIOp::create(b, loc, b.getI64Type(),
                                                    param.dims[axis]));
      }
      tensors[arg] = param;
      continue;
    }
    Value value = entry.getArgument(next++);
    if (arg.getType().isInteger(1))
      value = arith::TruncIOp::create(b, loc, b.getI1Type(), value);
    mapping.map(arg, value);
  }
  // Values cached for the whole kernel go before this marker.
  prologueEnd = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));

  if (!lowerBlock(body))
    return false;
  gpu::ReturnOp::create(b, kernel.getBody().front().getTerminator()->getLoc());
  return !failed;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Value Lowering::i32(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(value));
}
Value Lowering::i64(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}
Value Lowering::i1(bool value) {
  return arith::ConstantOp::create(b, loc, b.getBoolAttr(value));
}
Value Lowering::zero(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatConst(floatType, 0.0);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
}
Value Lowering::floatConst(Type type, double value) {
  return arith::ConstantOp::create(b, loc,
                                   b.getFloatAttr(cast<FloatType>(type), value));
}
Value Lowering::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value Lowering::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value Lowering::andI(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return arith::AndIOp::create(b, loc, x, y);
}
Value Lowering::select(Value c, Value x, Value y) {
  return arith::SelectOp::create(b, loc, c, x, y);
}
Value Lowering::cmpLt(Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
}
Value Lowering::widen(Value value) {
  Type type = value.getType();
  if (type.isF16() || type.isBF16())
    return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return value;
}
Value Lowering::narrowTo(Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::TruncFOp::create(b, loc, type, value);
}

Value Lowering::threadBase(const AxisDistribution &axis) {
  std::array<int64_t, 6> key = {axis.laneDiv,  axis.laneMod,  axis.laneScale,
                                axis.warpDiv,  axis.warpMod,  axis.warpScale};
  auto it = threadBases.find(key);
  if (it != threadBases.end())
    return it->second;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(prologueEnd);
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
      part(warp, numWarps, axis.warpDiv, axis.warpMod, axis.warpScale);
  Value base = lanePart && warpPart ? add(lanePart, warpPart)
               : lanePart           ? lanePart
               : warpPart           ? warpPart
                                    : i32(0);
  threadBases[key] = base;
  return base;
}

Value Lowering::coordinate(const AxisDistribution &axis, int64_t q) {
  Value raw = add(threadBase(axis), i32(axis.constOffset(q)));
  if (!axis.wraps)
    return raw;
  if (axis.extent == 1)
    return i32(0);
  return arith::RemUIOp::create(b, loc, raw, i32(axis.extent));
}

Value Lowering::canonical(const AxisDistribution &axis, int64_t q) {
  if (!axis.wraps)
    return Value();
  Value raw = add(threadBase(axis), i32(axis.constOffset(q)));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, raw,
                               i32(axis.extent));
}

SmallVector<Value, 4> Lowering::coordinates(const DistributedLayout &layout,
                                            int64_t reg) {
  SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
  SmallVector<Value, 4> coords;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    coords.push_back(coordinate(layout.axis(a), q[a]));
  return coords;
}

Value Lowering::isCanonical(const DistributedLayout &layout, int64_t reg) {
  SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
  Value result;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    result = andI(result, canonical(layout.axis(a), q[a]));
  return result;
}

Value Lowering::broadcastOperand(Value operand, const DistributedLayout &result,
                                 int64_t reg) {
  auto type = dyn_cast<TileType>(operand.getType());
  if (!type)
    return scalar(operand);
  DistributedLayout layout = layoutOf(type);
  SmallVector<int64_t, 4> q = result.perAxisIndices(reg);
  unsigned dropped = result.getRank() - layout.getRank();
  SmallVector<int64_t, 4> mine;
  for (unsigned a = 0; a < layout.getRank(); ++a)
    mine.push_back(q[a + dropped] % layout.axis(a).registers());
  return regs(operand)[layout.registerIndex(mine)];
}

Value Lowering::sharedPointer(int64_t byteOffset, Value elementIndex,
                              Type element) {
  Type memory = memoryType(element);
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value bytePointer =
      LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), sharedBase,
                          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(byteOffset)});
  return LLVM::GEPOp::create(b, loc, ptrType, memory, bytePointer,
                             ValueRange{elementIndex});
}

void Lowering::barrier() {
  NVVM::Barrier0Op::create(b, loc);
  sharedWritten = sharedRead = false;
}

Type Lowering::memoryType(Type element) {
  return element.isInteger(1) ? b.getI8Type() : element;
}
Value Lowering::toMemory(Value value) {
  if (value.getType().isInteger(1))
    return arith::ExtUIOp::create(b, loc, b.getI8Type(), value);
  return value;
}
Value Lowering::fromMemory(Value value, Type element) {
  if (element.isInteger(1))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 zero(value.getType()));
  return value;
}

//===----------------------------------------------------------------------===//
// Walking the kernel
//===----------------------------------------------------------------------===//

SmallVector<Value> Lowering::flatten(ValueRange values) {
  SmallVector<Value> flat;
  for (Value value : values) {
    if (isa<TileType>(value.getType()))
      llvm::append_range(flat, regs(value));
    else
      flat.push_back(scalar(value));
  }
  return flat;
}

SmallVector<Type> Lowering::flatTypes(TypeRange types) {
  SmallVector<Type> flat;
  for (Type type : types) {
    if (auto tile = dyn_cast<TileType>(type))
      flat.append(layoutOf(tile).numRegisters(), tile.getElementType());
    else
      flat.push_back(type);
  }
  return flat;
}

void Lowering::bindFlat(ValueRange values, ValueRange flat) {
  size_t next = 0;
  for (Value value : values) {
    if (auto tile = dyn_cast<TileType>(value.getType())) {
      int64_t count = layoutOf(tile).numRegisters();
      setRegs(value, Regs(flat.begin() + next, flat.begin() + next + count));
      next += count;
    } else {
      setScalar(value, flat[next++]);
    }
  }
}

bool Lowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    loc = op.getLoc();
    if (!lowerOp(&op))
      return false;
  }
  return true;
}

bool Lowering::lowerOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](scf::ForOp o) { return lowerFor(o); })
      .Case([&](scf::WhileOp o) { return lowerWhile(o); })
      .Case([&](scf::IfOp o) { return lowerIf(o); })
      .Case([&](BlockIdOp o) {
        Value id;
        switch (o.getAxis()) {
        case Axis::x: id = NVVM::BlockIdXOp::create(b, loc, b.getI32Type()); break;
        case Axis::y: id = NVVM::BlockIdYOp::create(b, loc, b.getI32Type()); break;
        case Axis::z: id = NVVM::BlockIdZOp::create(b, loc, b.getI32Type()); break;
        }
        setScalar(o, id);
        return true;
      })
      .Case([&](GridDimOp o) {
        Value dim;
        switch (o.getAxis()) {
        case Axis::x: dim = NVVM::GridDimXOp::create(b, loc, b.getI32Type()); break;
        case Axis::y: dim = NVVM::GridDimYOp::create(b, loc, b.getI32Type()); break;
        case Axis::z: dim = NVVM::GridDimZOp::create(b, loc, b.getI32Type()); break;
        }
        setScalar(o, dim);
        return true;
      })
      .Case([&](DimOp o) {
        setScalar(o, tensor(o.getTensor()).dims[o.getIndex()]);
        return true;
      })
      .Case([&](DotOp o) { return lowerDot(o); })
      .Case<LoadOp, StoreOp, LoadScalarOp, StoreScalarOp, LocalAllocOp,
            LocalLoadOp>([&](Operation *o) { return lowerMemory(o); })
      .Case<ConvertLayoutOp, ReshapeOp, TransposeOp, CumsumOp, ReduceOp>(
          [&](Operation *o) { return lowerThroughShared(o); })
      .Default([&](Operation *o) {
        if (o->getDialect() == kernel->getDialect())
          return lowerCompute(o);
        return lowerScalar(o);
      });
}

bool Lowering::lowerFor(scf::ForOp op) {
  SmallVector<Value> inits = flatten(op.getInitArgs());
  auto loop = scf::ForOp::create(b, loc, scalar(op.getLowerBound()),
                                 scalar(op.getUpperBound()),
                                 scalar(op.getStep()), inits);
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  setScalar(op.getInductionVar(), loop.getInductionVar());
  bindFlat(op.getRegionIterArgs(), loop.getRegionIterArgs());
  sharedWritten = sharedRead = true; // the previous iteration may be pending
  if (!lowerBlock(*op.getBody()))
    return false;
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  scf::YieldOp::create(b, yield.getLoc(), flatten(yield.getOperands()));
  b.setInsertionPointAfter(loop);
  bindFlat(op.getResults(), loop.getResults());
  sharedWritten = sharedRead = true;
  return true;
}

bool Lowering::lowerWhile(scf::WhileOp op) {
  SmallVector<Value> inits = flatten(op.getInits());
  auto condition = op.getConditionOp();
  SmallVector<Type> afterTypes = flatTypes(condition.getArgs().getTypes());
  auto loop = scf::WhileOp::create(b, loc, afterTypes, inits);
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, flatTypes(op.getInits().getTypes()),
                                SmallVector<Location>(inits.size(), loc));
  bindFlat(op.getBeforeArguments(), before->getArguments());
  sharedWritten = sharedRead = true;
  if (!lowerBlock(op.getBefore().front()))
    return false;
  scf::ConditionOp::create(b, condition.getLoc(),
                           scalar(condition.getCondition()),
                           flatten(condition.getArgs()));
  Block *after = b.createBlock(&loop.getAfter(), {}, afterTypes,
                               SmallVector<Location>(afterTypes.size(), loc));
  bindFlat(op.getAfterArguments(), after->getArguments());
  sharedWritten = sharedRead = true;
  if (!lowerBlock(op.getAfter().front()))
    return false;
  auto yield = cast<scf::YieldOp>(op.getAfter().front().getTerminator());
  scf::YieldOp::create(b, yield.getLoc(), flatten(yield.getOperands()));
  b.setInsertionPointAfter(loop);
  bindFlat(op.getResults(), loop.getResults());
  sharedWritten = sharedRead = true;
  return true;
}

bool Lowering::lowerIf(scf::IfOp op) {
  SmallVector<Type> types = flatTypes(op.getResultTypes());
  auto branch = scf::IfOp::create(b, loc, types, scalar(op.getCondition()),
                                  /*withElseRegion=*/true);
  auto lowerRegion = [&](Region &source, Region &target) {
    Block &block = target.front();
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
      block.back().erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&block);
    bool saveWritten = sharedWritten, saveRead = sharedRead;
    if (!source.empty()) {
      if (!lowerBlock(source.front()))
        return false;
      auto yield = cast<scf::YieldOp>(source.front().getTerminator());
      scf::YieldOp::create(b, yield.getLoc(), flatten(yield.getOperands()));
    } else {
      scf::YieldOp::create(b, loc);
    }
    // Either branch may have run: keep the pessimistic state of both.
    sharedWritten |= saveWritten;
    sharedRead |= saveRead;
    return true;
  };
  if (!lowerRegion(op.getThenRegion(), branch.getThenRegion()) ||
      !lowerRegion(op.getElseRegion(), branch.getElseRegion()))
    return false;
  bindFlat(op.getResults(), branch.getResults());
  return true;
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

bool Lowering::lowerScalar(Operation *op) {
  // Transcendentals take the NVPTX fast paths (no libdevice).
  if (isa<math::ExpOp, math::LogOp, math::SqrtOp, math::RsqrtOp, math::AbsFOp,
          math::AbsIOp>(op)) {
    MathFunction function = isa<math::ExpOp>(op)     ? MathFunction::Exp
                            : isa<math::LogOp>(op)   ? MathFunction::Log
                            : isa<math::SqrtOp>(op)  ? MathFunction::Sqrt
                            : isa<math::RsqrtOp>(op) ? MathFunction::Rsqrt
                                                     : MathFunction::Abs;
    Value result = mathFunction(function, scalar(op->getOperand(0)));
    if (!result)
      return fail(op, "f64 exp and log are not supported on the GPU");
    setScalar(op->getResult(0), result);
    return true;
  }
  if (op->getNumRegions() != 0 ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return isa<TileType, GlobalTensorType>(t); }))
    return fail(op, "cannot be lowered to the GPU");
  b.clone(*op, mapping);
  return true;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

/// The kernel's GPU signature, per the launch ABI.
SmallVector<Type> abiTypes(KernelOp kernel) {
  MLIRContext *context = kernel.getContext();
  SmallVector<Type> types;
  for (Type type : kernel.getArgumentTypes()) {
    if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
      types.push_back(LLVM::LLVMPointerType::get(context, 1));
      for (int64_t axis = 0; axis < tensor.getRank(); ++axis)
        if (tensor.isDynamicDim(axis))
          types.push_back(IntegerType::get(context, 32));
      continue;
    }
    types.push_back(type.isInteger(1) ? IntegerType::get(context, 8) : type);
  }
  return types;
}

struct ConvertTileToGPU
    : phobos::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "phobos_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    builder.setInsertionPointToStart(gpuModule.getBody());
    auto i8 = builder.getI8Type();
    auto shared = LLVM::GlobalOp::create(
        builder, module.getLoc(), LLVM::LLVMArrayType::get(i8, 0),
        /*isConstant=*/false, LLVM::Linkage::External, "phobos_smem",
        Attribute(), /*alignment=*/16, /*addrSpace=*/3);

    for (KernelOp kernel : kernels) {
      // Every tile must carry a distributed layout by now.
      WalkResult unlaid = kernel.walk([&](Operation *op) {
        for (Type type : op->getResultTypes())
          if (auto tile = dyn_cast<TileType>(type))
            if (!isa_and_nonnull<BlockedLayoutAttr, MmaLayoutAttr, SliceLayoutAttr>(
                    tile.getEncoding())) {
              op->emitOpError("has a tile without a layout; run "
                              "tile-assign-layouts first");
              return WalkResult::interrupt();
            }
        return WalkResult::advance();
      });
      if (unlaid.wasInterrupted())
        return signalPassFailure();
      builder.setInsertionPointToEnd(gpuModule.getBody());
      auto func = gpu::GPUFuncOp::create(
          builder, kernel.getLoc(), kernel.getSymName(),
          builder.getFunctionType(abiTypes(kernel), {}));
      func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    builder.getUnitAttr());
      int32_t threads = static_cast<int32_t>(kernel.getCtaSize());
      func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr({threads, 1, 1}));
      if (std::optional<uint32_t> blocks = kernel.getMinBlocks())
        func->setAttr("nvvm.minctasm", builder.getI32IntegerAttr(*blocks));
      if (std::optional<uint32_t> regs = kernel.getMaxRegs())
        func->setAttr("nvvm.maxnreg", builder.getI32IntegerAttr(*regs));
      if (Attribute bytes = kernel->getAttr("phobos.shared_bytes"))
        func->setAttr("phobos.shared_bytes", bytes);
      Lowering lowering(kernel, func, shared);
      if (!lowering.run())
        return signalPassFailure();
      kernel.erase();
    }
  }
};

struct CheckTargetDialects
    : phobos::impl::CheckTargetDialectsBase<CheckTargetDialects> {
  using CheckTargetDialectsBase::CheckTargetDialectsBase;

  void runOnOperation() override {
    getOperation().walk([&](gpu::GPUModuleOp module) {
      module.walk([&](Operation *op) {
        if (op == module.getOperation() || isa<gpu::GPUModuleOp>(op))
          return;
        StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace()
                                             : StringRef();
        if (dialect == "llvm" || dialect == "nvvm")
          return;
        op->emitError("'") << op->getName()
                           << "' is left after lowering; only llvm and nvvm "
                              "ops may reach PTX";
        signalPassFailure();
      });
    });
  }
};

} // namespace
