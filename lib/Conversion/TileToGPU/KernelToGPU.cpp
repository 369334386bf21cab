//===- KernelToGPU.cpp - Kernels, their parameters and grid queries -------===//
//
// A `phobos.kernel` becomes a `gpu.func` kernel in `gpu.module
// @phobos_kernels` whose parameters follow the launch ABI (Launcher.h): a
// tensor is a global pointer and one i32 per dynamic extent, a scalar its
// value (bool as i8). Its prologue reads the thread id and derives lane and
// warp; the other patterns cache thread-dependent values there. An extent
// that @aligned promises is a multiple of 2^k is rewritten so that LLVM
// knows its low bits are zero. A kernel with TMA copies takes one more
// parameter per tensor map (getTensorMaps), after the others: a generic
// pointer for now, which phobos-mark-tensor-map-params turns into the
// 128-byte by-value `.param` that CUDA passes a CUtensorMap as. A
// `phobos.warp_specialize` becomes a branch on the warpgroup: the last one
// (launched beyond `@launch`'s threads) runs the producer, in its first
// warp (the others give up their registers and exit).
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "Phobos/Conversion/Passes.h"
#include "Phobos/Dialect/Tile/Transforms/KernelMarks.h"
#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

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
  for (size_t k = 0, e = getTensorMaps(kernel).size(); k < e; ++k)
    types.push_back(LLVM::LLVMPointerType::get(context));
  return types;
}

/// `dim` written so that LLVM knows the power-of-two part of `multiple`
/// divides it, as @aligned promises (the launcher rejects launches that
/// break it): (dim >> k) << k, the same value. Row strides then have known
/// low zero bits, so the run-time alignment checks of vector accesses and
/// cp.async fold away, with the element-by-element paths they guard.
static Value withKnownMultiple(OpBuilder &b, Location loc, Value dim,
                               int64_t multiple) {
  if (multiple <= 1)
    return dim;
  int64_t shift = llvm::countr_zero(static_cast<uint64_t>(multiple));
  if (shift == 0)
    return dim;
  shift = std::min<int64_t>(shift, 30);
  Value amount = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(shift));
  return arith::ShLIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, dim, amount), amount);
}

struct KernelLowering : TileToGPUPattern<KernelOp> {
  KernelLowering(const TypeConverter &converter, MLIRContext *context,
                 TileLoweringState &state, gpu::GPUModuleOp gpuModule)
      : TileToGPUPattern(converter, context, state), gpuModule(gpuModule) {}

  LogicalResult
  matchAndRewrite(KernelOp kernel, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = kernel.getLoc();
    rewriter.setInsertionPointToEnd(gpu::GPUModuleOp(gpuModule).getBody());
    auto func = gpu::GPUFuncOp::create(
        rewriter, loc, kernel.getSymName(),
        rewriter.getFunctionType(abiTypes(kernel), {}));
    func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  rewriter.getUnitAttr());
    int32_t threads = static_cast<int32_t>(kernel.getLaunchThreads());
    func.setKnownBlockSizeAttr(rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
    if (std::optional<uint32_t> blocks = kernel.getMinBlocks())
      func->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(*blocks));
    if (std::optional<uint32_t> regs = kernel.getMaxRegs())
      func->setAttr("nvvm.maxnreg", rewriter.getI32IntegerAttr(*regs));
    if (Attribute bytes = kernel->getAttr(KernelOp::kSharedBytesAttrName))
      func->setAttr(KernelOp::kSharedBytesAttrName, bytes);
    // tile-persistent made its CTAs walk the tiles: the launch contract
    // says so, and the launcher chooses the grid.
    if (kernel.walk([](TileCoordOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      func->setAttr(phobos::kPersistentAttrName, rewriter.getUnitAttr());
    // tile-async-staging's mark, for a driver whose kernel spills.
    if (kernel->hasAttr(kRegisterStagingAttrName))
      func->setAttr(kRegisterStagingAttrName, rewriter.getUnitAttr());
    SmallVector<TensorMapUse> maps = getTensorMaps(kernel);
    unsigned firstMap = func.getNumArguments() - maps.size();
    if (!maps.empty()) {
      SmallVector<int32_t> positions;
      for (unsigned k = 0; k < maps.size(); ++k)
        positions.push_back(static_cast<int32_t>(firstMap + k));
      func->setAttr(phobos::kTensorMapParamsAttrName,
                    rewriter.getDenseI32ArrayAttr(positions));
      SmallVector<Attribute> described;
      for (const TensorMapUse &map : maps)
        described.push_back(rewriter.getDenseI64ArrayAttr(
            {map.argument, map.boxRows, map.boxCols, map.swizzleBytes}));
      func->setAttr(phobos::kTensorMapsAttrName, rewriter.getArrayAttr(described));
    }

    // The prologue: thread ids and the shared array.
    Block *entry = &func.getBody().front();
    rewriter.setInsertionPointToStart(entry);
    KernelFrame &frame = state.newFrame(func);
    frame.numWarps = getNumWarps(kernel);
    kernel.walk([&](DotOp dot) {
      frame.asyncProxyReads |= dot.getKind() == DotKind::wgmma;
      frame.fmaDots |= dot.getKind() == DotKind::fma;
    });
    if (auto offset =
            kernel->getAttrOfType<IntegerAttr>(KernelOp::kScratchOffsetAttrName))
      frame.scratchOffset = offset.getInt();
    for (unsigned k = 0; k < maps.size(); ++k)
      frame.tensorMaps.push_back(entry->getArgument(firstMap + k));
    kernel.walk([&](TmaCopyOp copy) {
      frame.tensorMapOf[copy] = static_cast<unsigned>(
          llvm::find(maps, getTensorMapUse(copy)) - maps.begin());
    });
    Type i32 = rewriter.getI32Type();
    frame.tid = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
    frame.lane = arith::AndIOp::create(
        rewriter, loc, frame.tid,
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(31)));
    frame.warp = arith::ShRUIOp::create(
        rewriter, loc, frame.tid,
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(5)));
    frame.sharedBase =
        LLVM::AddressOfOp::create(rewriter, loc, state.getSharedMemory());

    // Parameters, per the launch ABI: each source argument is remapped to
    // the values the type converter gives it.
    Block &body = kernel.getBody().front();
    TypeConverter::SignatureConversion signature(body.getNumArguments());
    // @aligned's promises: dim name -> multiple.
    llvm::StringMap<int64_t> aligned;
    if (DictionaryAttr promises = kernel.getAlignedAttr())
      for (NamedAttribute promise : promises)
        if (auto multiple = dyn_cast<IntegerAttr>(promise.getValue()))
          aligned[promise.getName()] = multiple.getInt();
    unsigned next = 0;
    for (BlockArgument arg : body.getArguments()) {
      if (auto tensorType = dyn_cast<GlobalTensorType>(arg.getType())) {
        SmallVector<Value> values{entry->getArgument(next++)};
        auto names = kernel.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(),
                                                        KernelOp::kDimsAttrName);
        for (int64_t axis = 0; axis < tensorType.getRank(); ++axis) {
          if (!tensorType.isDynamicDim(axis))
            continue;
          Value dim = entry->getArgument(next++);
          auto name = names && axis < int64_t(names.size())
                          ? dyn_cast<StringAttr>(names[axis])
                          : StringAttr();
          auto promise = name ? aligned.find(name.getValue()) : aligned.end();
          if (promise != aligned.end())
            dim = withKnownMultiple(rewriter, loc, dim, promise->second);
          values.push_back(dim);
        }
        signature.remapInput(arg.getArgNumber(), values);
        continue;
      }
      Value value = entry->getArgument(next++);
      if (arg.getType().isInteger(1))
        value = arith::TruncIOp::create(rewriter, loc, rewriter.getI1Type(),
                                        value);
      signature.remapInput(arg.getArgNumber(), {value});
    }
    // Values cached for the whole kernel go before this marker.
    frame.prologueEnd =
        arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));

    Block *source = &body;
    rewriter.inlineRegionBefore(kernel.getBody(), func.getBody(),
                                func.getBody().end());
    Block *converted =
        rewriter.applySignatureConversion(source, signature, getTypeConverter());
    rewriter.mergeBlocks(converted, entry, {});
    rewriter.eraseOp(kernel);
    return success();
  }

  gpu::GPUModuleOp gpuModule;
};

using ReturnLowering = NullaryOpLowering<ReturnOp, gpu::ReturnOp>;

/// BlockIdOp::groupedIndex's index on `axis` (x or y) of the CTA numbered
/// `pid` (x fastest) in a `gx` by `gy` grid, in registers (every value
/// non-negative).
static Value groupedIndex(OpBuilder &b, Location loc, Axis axis, Value pid,
                          Value gx, Value gy, uint32_t group) {
  Value g = arith::ConstantIntOp::create(b, loc, group, 32);
  Value perGroup = arith::MulIOp::create(b, loc, g, gy);
  Value first = arith::MulIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, pid, perGroup), g);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, gx, first), g);
  Value inGroup = arith::RemUIOp::create(b, loc, pid, perGroup);
  if (axis == Axis::x)
    return arith::AddIOp::create(b, loc, first,
                                 arith::RemUIOp::create(b, loc, inGroup, rows));
  return arith::DivUIOp::create(b, loc, inGroup, rows);
}

struct BlockIdLowering : TileToGPUPattern<BlockIdOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(BlockIdOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value id;
    if (std::optional<uint32_t> group = op.getGroup()) {
      Value x = NVVM::BlockIdXOp::create(rewriter, loc, i32);
      Value y = NVVM::BlockIdYOp::create(rewriter, loc, i32);
      Value gx = NVVM::GridDimXOp::create(rewriter, loc, i32);
      Value gy = NVVM::GridDimYOp::create(rewriter, loc, i32);
      Value pid = arith::AddIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, y, gx), x);
      id = groupedIndex(rewriter, loc, op.getAxis(), pid, gx, gy, *group);
    } else {
      switch (op.getAxis()) {
      case Axis::x: id = NVVM::BlockIdXOp::create(rewriter, loc, i32); break;
      case Axis::y: id = NVVM::BlockIdYOp::create(rewriter, loc, i32); break;
      case Axis::z: id = NVVM::BlockIdZOp::create(rewriter, loc, i32); break;
      }
    }
    rewriter.replaceOp(op, id);
    return success();
  }
};

/// TileCoordOp::evaluate in registers (every value non-negative).
struct TileCoordLowering : TileToGPUPattern<TileCoordOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(TileCoordOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tile = adaptor.getTile().front(), gx = adaptor.getGx().front(),
          gy = adaptor.getGy().front();
    Value id;
    if (op.getAxis() == Axis::z) {
      id = arith::DivUIOp::create(rewriter, loc, tile,
                                  arith::MulIOp::create(rewriter, loc, gx, gy));
    } else if (std::optional<uint32_t> group = op.getGroup()) {
      // The tiles of later z planes follow the first plane's order.
      Value plane = arith::MulIOp::create(rewriter, loc, gx, gy);
      Value pid = arith::RemUIOp::create(rewriter, loc, tile, plane);
      id = groupedIndex(rewriter, loc, op.getAxis(), pid, gx, gy, *group);
    } else if (op.getAxis() == Axis::x) {
      id = arith::RemUIOp::create(rewriter, loc, tile, gx);
    } else {
      id = arith::RemUIOp::create(
          rewriter, loc, arith::DivUIOp::create(rewriter, loc, tile, gx), gy);
    }
    rewriter.replaceOp(op, id);
    return success();
  }
};

struct GridDimLowering : TileToGPUPattern<GridDimOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(GridDimOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Location loc = op.getLoc();
    Value dim;
    switch (op.getAxis()) {
    case Axis::x: dim = NVVM::GridDimXOp::create(rewriter, loc, i32); break;
    case Axis::y: dim = NVVM::GridDimYOp::create(rewriter, loc, i32); break;
    case Axis::z: dim = NVVM::GridDimZOp::create(rewriter, loc, i32); break;
    }
    rewriter.replaceOp(op, dim);
    return success();
  }
};

/// A tensor's extent: the parameter for a dynamic one, a constant else.
struct DimLowering : TileToGPUPattern<DimOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(DimOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    TensorParam tensor = e.tensor(op.getTensor().getType(), adaptor.getTensor());
    rewriter.replaceOp(op, tensor.dims[op.getIndex()]);
    return success();
  }
};

struct BarrierLowering : TileToGPUPattern<BarrierOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // wgmma reads its operands through the async proxy: what this thread
    // wrote (st.shared, cp.async, completed before the barrier) must be
    // fenced for it before the barrier publishes it to the warpgroups.
    if (state.frame(op).asyncProxyReads)
      NVVM::FenceProxyOp::create(
          rewriter, op.getLoc(),
          NVVM::ProxyKindAttr::get(rewriter.getContext(),
                                   NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                     NVVM::SharedSpace::shared_cta));
    emitter(op, rewriter).barrier();
    rewriter.eraseOp(op);
    return success();
  }
};

/// The thread's warpgroup index, made uniform across its warp (a shuffle
/// from lane 0).
Value uniformWarpgroup(ThreadEmitter &e) {
  Value group = arith::DivUIOp::create(
      e.b, e.loc, e.tid, e.i32(WarpSpecializeOp::kProducerThreads));
  return NVVM::ShflOp::create(
      e.b, e.loc, e.b.getI32Type(), e.i32(-1), group, e.i32(0), e.i32(31),
      NVVM::ShflKindAttr::get(e.b.getContext(), NVVM::ShflKind::idx),
      UnitAttr());
}

/// The two roles as the branches of one `if`, on the warpgroup index made
/// uniform across each warp (a shuffle from lane 0), so that ptxas sees no
/// divergence around the consumers' wgmma. Each side first sets its
/// warps' registers.
struct WarpSpecializeLowering : TileToGPUPattern<WarpSpecializeOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Location loc = op.getLoc();
    int64_t producerGroup =
        int64_t(e.frame.numWarps) * 32 / WarpSpecializeOp::kProducerThreads;
    Value uniform = uniformWarpgroup(e);
    Value isProducer = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, uniform, e.i32(producerGroup));
    auto branch = scf::IfOp::create(rewriter, loc, isProducer,
                                    /*withElseRegion=*/true);
    branch->setAttr(kRoleBranchAttrName, rewriter.getUnitAttr());
    auto fill = [&](Block *target, Block &source, int32_t registers,
                    NVVM::SetMaxRegisterAction action) {
      rewriter.setInsertionPointToStart(target);
      NVVM::SetMaxRegisterOp::create(rewriter, loc, registers, action);
      rewriter.inlineBlockBefore(&source, target->getTerminator());
    };
    // The producer's program runs in its first warp only: its copies are
    // issued by one thread, and the other warps would only wait on the
    // same mbarriers, spinning in `try_wait` on the issue slots the
    // consumer warps of their SM sub-partitions need (in the f16 attention
    // kernel at D 128, about an eighth of all it issued). They have
    // set their registers (setmaxnreg is the warpgroup's) and exit.
    rewriter.setInsertionPointToStart(branch.thenBlock());
    NVVM::SetMaxRegisterOp::create(rewriter, loc, op.getProducerRegisters(),
                                   NVVM::SetMaxRegisterAction::decrease);
    Value firstWarp = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq,
        arith::DivUIOp::create(rewriter, loc, e.tid, e.i32(32)),
        e.i32(e.frame.numWarps));
    auto copier = scf::IfOp::create(rewriter, loc, firstWarp,
                                    /*withElseRegion=*/false);
    rewriter.inlineBlockBefore(&op.getProducerBlock(),
                               copier.thenBlock()->getTerminator());
    fill(branch.elseBlock(), op.getConsumerBlock(), op.getConsumerRegisters(),
         NVVM::SetMaxRegisterAction::increase);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The consumer warpgroups' turns as named barriers: warpgroup w's turn is
/// barrier kFirstTurnBarrier + w, completed by w's `bar.sync` and the
/// previous warpgroup's `bar.arrive` (two warpgroups' threads). Barrier 0
/// is the CTA's, 1 the consumers' (ThreadEmitter::barrier).
struct WarpgroupTurnLowering : TileToGPUPattern<WarpgroupTurnOp> {
  using TileToGPUPattern::TileToGPUPattern;
  static constexpr int64_t kFirstTurnBarrier = 2;
  LogicalResult
  matchAndRewrite(WarpgroupTurnOp op, OneToNOpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ThreadEmitter e = emitter(op, rewriter);
    Location loc = op.getLoc();
    int64_t groups =
        int64_t(e.frame.numWarps) * 32 / WarpSpecializeOp::kProducerThreads;
    Value pair = e.i32(2 * WarpSpecializeOp::kProducerThreads);
    Value group = uniformWarpgroup(e);
    auto turnOf = [&](Value w) { return e.add(w, e.i32(kFirstTurnBarrier)); };
    auto inGroup = [&](int64_t w, auto body) {
      Value is = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                       group, e.i32(w));
      auto branch = scf::IfOp::create(rewriter, loc, is);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(branch.thenBlock());
      body();
    };
    switch (op.getStep()) {
    case TurnStep::start:
      inGroup(groups - 1, [&] {
        NVVM::BarrierArriveOp::create(rewriter, loc, e.i32(kFirstTurnBarrier),
                                      pair);
      });
      break;
    case TurnStep::take:
      NVVM::BarrierOp::create(rewriter, loc, TypeRange{}, turnOf(group), pair,
                              NVVM::BarrierReductionAttr(), Value());
      break;
    case TurnStep::give: {
      Value next = arith::RemUIOp::create(rewriter, loc, e.add(group, e.i32(1)),
                                          e.i32(groups));
      NVVM::BarrierArriveOp::create(rewriter, loc, turnOf(next), pair);
      break;
    }
    case TurnStep::finish:
      inGroup(0, [&] {
        NVVM::BarrierOp::create(rewriter, loc, TypeRange{},
                                e.i32(kFirstTurnBarrier), pair,
                                NVVM::BarrierReductionAttr(), Value());
      });
      break;
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void phobos::tile::populateKernelToGPUPatterns(const TypeConverter &converter,
                                               RewritePatternSet &patterns,
                                               TileLoweringState &state) {
  MLIRContext *context = patterns.getContext();
  patterns.add<KernelLowering>(converter, context, state, state.getGPUModule());
  patterns.add<ReturnLowering, BlockIdLowering, TileCoordLowering,
               GridDimLowering, DimLowering, BarrierLowering,
               WarpSpecializeLowering, WarpgroupTurnLowering>(converter,
                                                              context, state);
}
