//===- DotToGPU.cpp - Dots on FMA micro-tiles, mma.sync and wgmma ---------===//
//
// Both read their operands from shared memory (tile-promote-shared put
// them there). FMA: each thread accumulates its micro-tiles of the
// accumulator layout, reading for every k the rows of A and columns of B
// it needs, as 16-byte vectors where the buffer layout allows. mma.sync:
// each warp loads the m16n8k16 (k8 for tf32) fragments of its block of the
// accumulator, with ldmatrix for 16-bit operands, and issues one mma per
// fragment pair. wgmma (sm_90a): each warpgroup issues m64nNk16
// instructions on matrix descriptors of the operand buffers.
//
//===----------------------------------------------------------------------===//

#include "PatternBase.h"

#include "Phobos/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace phobos::tile;

namespace {

/// Reads elements of a dot operand buffer.
struct OperandBuffer {
  ThreadEmitter &l;
  SharedMemoryType type;
  Value base; ///< !llvm.ptr<3>

  /// Pointer to element `coords` (in the buffer's own axis order).
  Value pointer(ArrayRef<Value> coords) {
    return l.elementPointer(base, l.sharedIndex(type, coords),
                            type.getElementType());
  }
  unsigned contiguousAxis() const {
    return cast<SharedLayoutAttr>(type.getLayout()).getOrder().front();
  }
  /// Whether `width` elements along the contiguous axis starting at a
  /// multiple of `width` are aligned for one vector load.
  bool vectorizable(int64_t width) const {
    auto layout = cast<SharedLayoutAttr>(type.getLayout());
    return layout.getVectorUnit(type.getShape()) % width == 0;
  }
  Value load(ArrayRef<Value> coords) {
    return LLVM::LoadOp::create(l.b, l.loc, type.getElementType(),
                                pointer(coords));
  }
  Value loadVector(ArrayRef<Value> coords, int64_t width, Type element) {
    auto vectorType = VectorType::get({width}, element);
    int64_t bytes = width * (element.getIntOrFloatBitWidth() / 8);
    return LLVM::LoadOp::create(l.b, l.loc, vectorType, pointer(coords),
                                static_cast<unsigned>(bytes));
  }
};

OperandBuffer operandBuffer(ThreadEmitter &l, Value operand, ValueRange base) {
  return {l, cast<SharedMemoryType>(operand.getType()), base.front()};
}

/// Rounds an f32 operand as the dot's precision says.
Value roundOperand(ThreadEmitter &l, Value value, DotPrecision precision) {
  switch (precision) {
  case DotPrecision::ieee:
    return value;
  case DotPrecision::tf32: {
    Value bits = NVVM::ConvertFloatToTF32Op::create(
        l.b, l.loc, l.b.getI32Type(), value, NVVM::FPRoundingMode::RNA);
    return arith::BitcastOp::create(l.b, l.loc, l.b.getF32Type(), bits);
  }
  case DotPrecision::f16:
  case DotPrecision::bf16: {
    Type narrow = precision == DotPrecision::f16 ? Type(l.b.getF16Type())
                                                 : Type(l.b.getBF16Type());
    Value rounded = arith::TruncFOp::create(l.b, l.loc, narrow, value);
    return arith::ExtFOp::create(l.b, l.loc, l.b.getF32Type(), rounded);
  }
  }
  return value;
}

/// Uses `values` where they are computed, in an empty `asm volatile`, so
/// that LLVM cannot sink their computation into a later block. When a dot's
/// results are used only in a branch (a predicated store into shared
/// memory, after a barrier), InstCombine and MachineSink move the unrolled
/// FMAs there and leave the shared-memory loads behind: every operand of
/// the dot is then live at once (the gla_chunk example spilled 8.3 KiB).
/// The asm emits no instruction.
void keepInPlace(ThreadEmitter &l, ArrayRef<Value> values) {
  constexpr size_t kChunk = 16;
  for (size_t first = 0; first < values.size(); first += kChunk) {
    ArrayRef<Value> chunk =
        values.slice(first, std::min(kChunk, values.size() - first));
    std::string constraints;
    // Accumulators are floats: a 64-, 32- or 16-bit register each.
    for (Value value : chunk) {
      unsigned bits = value.getType().getIntOrFloatBitWidth();
      if (!constraints.empty())
        constraints += ",";
      constraints += bits == 64 ? "d" : bits == 32 ? "f" : "h";
    }
    LLVM::InlineAsmOp::create(
        l.b, l.loc, TypeRange{}, ValueRange(chunk), "", constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
  }
}

/// "Do not unroll": LLVM keeps the loop and NVPTX writes `.pragma
/// "nounroll"` for ptxas.
LLVM::LoopAnnotationAttr rolledLoop(ThreadEmitter &l) {
  MLIRContext *context = l.b.getContext();
  auto disable = LLVM::LoopUnrollAttr::get(context, l.b.getBoolAttr(true), {},
                                           {}, {}, {}, {}, {});
  return LLVM::LoopAnnotationAttr::get(context, {}, {}, {}, disable, {}, {}, {},
                                       {}, {}, {}, {}, {}, {}, {}, {});
}

/// `unroll`: reduction steps per iteration of a rolled K loop (0: none).
/// Sets `unrolledSteps` to K when the whole K slice is unrolled, else 0.
Regs lowerFmaDot(ThreadEmitter &l, DotOp op,
                 DotOp::GenericAdaptor<ArrayRef<ValueRange>> adaptor,
                 int64_t unroll, int64_t &unrolledSteps) {
  TileType resultType = op.getType();
  DistributedLayout layout = layoutOf(resultType);
  const AxisDistribution &rows = layout.axis(0), &cols = layout.axis(1);
  OperandBuffer a = operandBuffer(l, op.getA(), adaptor.getA());
  OperandBuffer bBuffer = operandBuffer(l, op.getB(), adaptor.getB());
  bool transposed = op.getTransposeB();
  int64_t k = a.type.getShape()[1];
  Type accumulate = resultType.getElementType();
  Type aElement = a.type.getElementType();

  Regs acc = op.getAcc() ? Regs(adaptor.getAcc().begin(), adaptor.getAcc().end())
                         : Regs(layout.numRegisters(), l.zero(accumulate));
  SmallVector<Value> rowCoords, colCoords;
  for (int64_t q = 0; q < rows.registers(); ++q)
    rowCoords.push_back(l.coordinate(rows, q));
  for (int64_t q = 0; q < cols.registers(); ++q)
    colCoords.push_back(l.coordinate(cols, q));

  // Loads the values one thread needs along `axis` (0: rows of A, 1:
  // columns of B) for reduction index `kk`.
  auto operandValues = [&](OperandBuffer &buffer, const AxisDistribution &dist,
                           ArrayRef<Value> coords, unsigned freeAxis, Value kk) {
    SmallVector<Value> values(dist.registers());
    int64_t width = std::min<int64_t>(dist.inner, 16 / (aElement.getIntOrFloatBitWidth() / 8));
    bool vector = buffer.contiguousAxis() == freeAxis && !dist.wraps &&
                  dist.innerStep == 1 && width >= 2 &&
                  dist.inner % width == 0 && buffer.vectorizable(width);
    for (int64_t q = 0; q < dist.registers(); ++q) {
      if (values[q])
        continue;
      SmallVector<Value, 2> at(2);
      at[freeAxis] = coords[q];
      at[1 - freeAxis] = kk;
      if (!vector) {
        values[q] = buffer.load(at);
        continue;
      }
      Value vec = buffer.loadVector(at, width, aElement);
      for (int64_t j = 0; j < width; ++j)
        values[q + j] = LLVM::ExtractElementOp::create(l.b, l.loc, vec, l.i32(j));
    }
    for (Value &value : values) {
      if (value.getType() != accumulate)
        value = arith::ExtFOp::create(l.b, l.loc, accumulate, value);
      value = roundOperand(l, value, op.getPrecision());
    }
    return values;
  };

  // One reduction step: the operands at `kIndex`, one FMA per register.
  auto step = [&](Value kIndex, Regs &sums) {
    SmallVector<Value> aValues = operandValues(a, rows, rowCoords, 0, kIndex);
    // B is [K, N] (free axis 1), or [N, K] when transposed (free axis 0).
    SmallVector<Value> bValues =
        operandValues(bBuffer, cols, colCoords, transposed ? 0 : 1, kIndex);
    for (int64_t reg = 0; reg < layout.numRegisters(); ++reg) {
      SmallVector<int64_t, 4> q = layout.perAxisIndices(reg);
      sums[reg] = LLVM::FMAOp::create(l.b, l.loc, aValues[q[0]], bValues[q[1]],
                                      sums[reg]);
    }
  };

  // Unrolled whole, ptxas loads every step's operands early and the
  // largest micro-tiles spill; a loop of `unroll` steps per iteration,
  // kept rolled, bounds them (and gives ptxas far less code).
  int64_t iterations = unroll > 0 ? k / unroll : 0;
  int64_t done = 0;
  unrolledSteps = iterations > 1 ? 0 : k;
  if (iterations > 1) {
    auto loop = scf::ForOp::create(l.b, l.loc, l.i32(0), l.i32(iterations),
                                   l.i32(1), ValueRange(acc));
    {
      OpBuilder::InsertionGuard guard(l.b);
      l.b.setInsertionPointToStart(loop.getBody());
      Regs sums(loop.getRegionIterArgs().begin(),
                loop.getRegionIterArgs().end());
      Value first = arith::MulIOp::create(l.b, l.loc, loop.getInductionVar(),
                                          l.i32(unroll),
                                          arith::IntegerOverflowFlags::nsw);
      for (int64_t j = 0; j < unroll; ++j)
        step(j ? arith::AddIOp::create(l.b, l.loc, first, l.i32(j),
                                       arith::IntegerOverflowFlags::nsw)
               : first,
             sums);
      scf::YieldOp::create(l.b, l.loc, ValueRange(sums));
    }
    loop->setAttr("llvm.loop_annotation", rolledLoop(l));
    acc.assign(loop.getResults().begin(), loop.getResults().end());
    done = iterations * unroll;
  }
  for (int64_t kk = done; kk < k; ++kk)
    step(l.i32(kk), acc);
  keepInPlace(l, acc);
  return acc;
}

/// Two or four 8x8 b16 matrices with one `ldmatrix`; `coords` are the
/// buffer coordinates of the first element of the row this lane addresses
/// (lane l: row l % 8 of matrix l / 8; ldmatrix ignores the addresses of
/// lanes past 8 * count). `.trans` when the buffer's rows run across the
/// fragment's rows.
SmallVector<Value, 4> loadMatrices(ThreadEmitter &l, OperandBuffer &buffer,
                                   int64_t count, bool transposed,
                                   ArrayRef<Value> coords) {
  MLIRContext *context = l.b.getContext();
  Type i32 = l.b.getI32Type();
  Type result =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(count, i32));
  Value loaded = NVVM::LdMatrixOp::create(
      l.b, l.loc, result, buffer.pointer(coords), l.b.getI32IntegerAttr(count),
      NVVM::MMALayoutAttr::get(context, transposed ? NVVM::MMALayout::col
                                                   : NVVM::MMALayout::row),
      NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
      NVVM::LdStMatrixEltTypeAttr::get(context, NVVM::LdStMatrixEltType::B16));
  SmallVector<Value, 4> words;
  for (int64_t j = 0; j < count; ++j)
    words.push_back(
        LLVM::ExtractValueOp::create(l.b, l.loc, loaded, ArrayRef<int64_t>{j}));
  return words;
}

Regs lowerMmaDot(ThreadEmitter &l, DotOp op, DotOp::GenericAdaptor<ArrayRef<ValueRange>> adaptor) {
  TileType resultType = op.getType();
  auto mma = cast<MmaLayoutAttr>(resultType.getEncoding());
  DistributedLayout layout = layoutOf(resultType);
  const AxisDistribution &rows = layout.axis(0), &cols = layout.axis(1);
  OperandBuffer a = operandBuffer(l, op.getA(), adaptor.getA());
  OperandBuffer bBuffer = operandBuffer(l, op.getB(), adaptor.getB());
  bool transposed = op.getTransposeB();
  Type element = a.type.getElementType();
  bool tf32 = element.isF32();
  int64_t kStep = tf32 ? 8 : 16;
  int64_t k = a.type.getShape()[1];
  MLIRContext *context = l.b.getContext();
  Type f32 = l.b.getF32Type(), i32Type = l.b.getI32Type();
  // f16 operands enter mma.sync as <2 x f16>, bf16 ones as i32.
  auto operand = [&](Value word) -> Value {
    if (!element.isF16())
      return word;
    return LLVM::BitcastOp::create(l.b, l.loc, VectorType::get({2}, element),
                                   word);
  };

  Regs acc = op.getAcc() ? Regs(adaptor.getAcc().begin(), adaptor.getAcc().end())
                         : Regs(layout.numRegisters(), l.zero(f32));
  Value g = arith::ShRUIOp::create(l.b, l.loc, l.lane, l.i32(2));
  Value t = arith::AndIOp::create(l.b, l.loc, l.lane, l.i32(3));
  int64_t wm = mma.getWarpsPerCTA()[0], wn = mma.getWarpsPerCTA()[1];
  Value warpCol = arith::RemUIOp::create(l.b, l.loc, l.warp, l.i32(wn));
  Value warpRow = arith::RemUIOp::create(
      l.b, l.loc, arith::DivUIOp::create(l.b, l.loc, l.warp, l.i32(wn)),
      l.i32(wm));
  Value rowBase = l.mul(warpRow, l.i32(16 * rows.outer));
  Value colBase = l.mul(warpCol, l.i32(8 * cols.outer));
  // B's coordinates (k, n) in its buffer, which holds [K, N] or [N, K].
  auto bCoords = [&](Value kIndex, Value n) {
    return transposed ? SmallVector<Value, 2>{n, kIndex}
                      : SmallVector<Value, 2>{kIndex, n};
  };
  // tf32 fragments: one f32 element per register, rounded.
  auto tf32Piece = [&](OperandBuffer &buffer, ArrayRef<Value> coords) -> Value {
    return NVVM::ConvertFloatToTF32Op::create(l.b, l.loc, i32Type,
                                              buffer.load(coords),
                                              NVVM::FPRoundingMode::RNA);
  };

  NVVM::MMATypes ptxType = tf32                ? NVVM::MMATypes::tf32
                           : element.isBF16() ? NVVM::MMATypes::bf16
                                              : NVVM::MMATypes::f16;
  auto resultStruct = LLVM::LLVMStructType::getLiteral(context, {f32, f32, f32, f32});
  // ldmatrix reads 16-byte rows: a buffer whose rows run along M (A) or N
  // (B holding [K, N]) rather than K is read with .trans.
  bool aRowsAlongM = a.contiguousAxis() == 0;
  bool bRowsAlongN = !transposed && bBuffer.contiguousAxis() == 1;
  // ldmatrix addressing, once per dot: lane l addresses row `row` = l % 8
  // of matrix l / 8, whose index bits select `half0` = 8 * (bit 0) and
  // `half1` = 8 * (bit 1) along the fragment's two 8-wide halves.
  Value laneRow = arith::AndIOp::create(l.b, l.loc, l.lane, l.i32(7));
  Value half0 = l.mul(arith::AndIOp::create(
                          l.b, l.loc,
                          arith::ShRUIOp::create(l.b, l.loc, l.lane, l.i32(3)),
                          l.i32(1)),
                      l.i32(8));
  Value half1 = l.mul(arith::ShRUIOp::create(l.b, l.loc, l.lane, l.i32(4)),
                      l.i32(8));
  // The start (x, k) of this lane's row, for the 8x8 matrix whose first
  // element is (x, k) (x is m for A, n for B): a buffer row runs along K,
  // or along x when `rowsAlongX`.
  auto rowStart = [&](Value x, Value kIndex, bool rowsAlongX) {
    return rowsAlongX ? std::make_pair(x, l.add(kIndex, laneRow))
                      : std::make_pair(l.add(x, laneRow), kIndex);
  };
  // tf32 through ldmatrix: an 8x8 b16 matrix is 8 rows of 4 f32, and the
  // 32-bit word lane l receives is the f32 at (row l / 4, column l % 4),
  // which is the m16n8k8 fragment's element. So the f16 addressing serves,
  // with halves of 4 columns along K; it needs rows along K (.trans moves
  // 16-bit halves, not f32), else elements are read one by one.
  bool tf32MatricesA = tf32 && !aRowsAlongM;
  bool tf32MatricesB =
      tf32 && bBuffer.contiguousAxis() == (transposed ? 1u : 0u);
  Value kHalfA = half1, kHalfB = half0;
  if (tf32) {
    kHalfA = l.mul(arith::ShRUIOp::create(l.b, l.loc, l.lane, l.i32(4)), l.i32(4));
    kHalfB = l.mul(arith::AndIOp::create(
                       l.b, l.loc,
                       arith::ShRUIOp::create(l.b, l.loc, l.lane, l.i32(3)),
                       l.i32(1)),
                   l.i32(4));
  }
  // A loaded f32 word, rounded to tf32 as the element path rounds it.
  auto tf32Word = [&](Value word) -> Value {
    return NVVM::ConvertFloatToTF32Op::create(
        l.b, l.loc, i32Type, LLVM::BitcastOp::create(l.b, l.loc, f32, word),
        NVVM::FPRoundingMode::RNA);
  };
  for (int64_t kk = 0; kk < k; kk += kStep) {
    // The A fragments of this warp's 16-row blocks.
    SmallVector<SmallVector<Value, 4>> aFragments;
    for (int64_t fm = 0; fm < rows.outer; ++fm) {
      Value blockRow = l.add(rowBase, l.i32(fm * 16));
      if (tf32 && !tf32MatricesA) {
        Value row0 = l.add(blockRow, g), row1 = l.add(row0, l.i32(8));
        Value k0 = l.add(t, l.i32(kk)), k1 = l.add(k0, l.i32(4));
        aFragments.push_back({tf32Piece(a, {row0, k0}), tf32Piece(a, {row1, k0}),
                              tf32Piece(a, {row0, k1}), tf32Piece(a, {row1, k1})});
        continue;
      }
      // Matrices in order: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15),
      // (m 8-15, k 8-15).
      auto [m, kIndex] = rowStart(l.add(blockRow, half0),
                                  l.add(l.i32(kk), kHalfA), aRowsAlongM);
      SmallVector<Value, 4> words = loadMatrices(l, a, 4, aRowsAlongM, {m, kIndex});
      if (tf32) {
        aFragments.push_back({tf32Word(words[0]), tf32Word(words[1]),
                              tf32Word(words[2]), tf32Word(words[3])});
        continue;
      }
      aFragments.push_back({operand(words[0]), operand(words[1]),
                            operand(words[2]), operand(words[3])});
    }
    // The B fragments of this warp's 8-column blocks, two at a time.
    SmallVector<SmallVector<Value, 2>> bFragments(cols.outer);
    for (int64_t fn = 0; fn < cols.outer; fn += tf32 && !tf32MatricesB ? 1 : 2) {
      Value blockCol = l.add(colBase, l.i32(fn * 8));
      if (tf32 && !tf32MatricesB) {
        Value n = l.add(blockCol, g);
        Value k0 = l.add(t, l.i32(kk)), k1 = l.add(k0, l.i32(4));
        bFragments[fn] = {tf32Piece(bBuffer, bCoords(k0, n)),
                          tf32Piece(bBuffer, bCoords(k1, n))};
        continue;
      }
      int64_t pairs = std::min<int64_t>(2, cols.outer - fn);
      // Matrices in order: (k 0-7, n block fn), (k 8-15, fn), (k 0-7, fn+1),
      // (k 8-15, fn+1).
      auto [n, kIndex] = rowStart(l.add(blockCol, half1),
                                  l.add(l.i32(kk), kHalfB), bRowsAlongN);
      SmallVector<Value, 4> words =
          loadMatrices(l, bBuffer, 2 * pairs, bRowsAlongN, bCoords(kIndex, n));
      for (int64_t p = 0; p < pairs; ++p)
        bFragments[fn + p] =
            tf32 ? SmallVector<Value, 2>{tf32Word(words[2 * p]),
                                         tf32Word(words[2 * p + 1])}
                 : SmallVector<Value, 2>{operand(words[2 * p]),
                                         operand(words[2 * p + 1])};
    }
    for (int64_t fn = 0; fn < cols.outer; ++fn)
      for (int64_t fm = 0; fm < rows.outer; ++fm) {
        int64_t first = (fm * cols.outer + fn) * 4;
        SmallVector<Value, 4> c(acc.begin() + first, acc.begin() + first + 4);
        auto instruction = NVVM::MmaOp::create(
            l.b, l.loc, resultStruct, aFragments[fm], bFragments[fn], c,
            {16, 8, kStep}, std::nullopt, std::nullopt,
            std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                           NVVM::MMALayout::col});
        for (int64_t j = 0; j < 4; ++j)
          acc[first + j] = LLVM::ExtractValueOp::create(l.b, l.loc, instruction,
                                                        ArrayRef<int64_t>{j});
      }
  }
  return acc;
}

/// The wgmma matrix descriptor of `buffer` (an atom layout, axis 1
/// contiguous) for the operand whose first element is at `origin` plus the
/// constant `step`: its shared address, the swizzle mode of the atom width,
/// and the byte offsets between core matrices. K-major (K contiguous: A,
/// and B^T): 8 rows of one atom to the next 8 (SBO); the leading offset is
/// unused (1). MN-major (B as [K, N], a transposed A as [K, M]): the next
/// atom column along N (M) is all K rows later (LBO), the next 8 rows of K
/// are 8 atom rows later (SBO). A
/// start whose row is a multiple of 8 has no swizzle bits of its own (phase
/// 0), so moving it along K inside an atom is how the K steps address their
/// slice.
///
/// The address field is bits 0-13, the address over 16: shared addresses
/// are below 2^18 and the buffer starts 1024-aligned, so the descriptor at
/// `origin + step` is the one at `origin` plus the step's byte offset over
/// 16, a constant. Every k-step then costs one 64-bit add of an immediate
/// (the descriptor at `origin` is computed once and CSE'd), not a shift,
/// mask and or of its own address: the f16 attention loop's uniform
/// datapath instructions were a quarter of its SASS.
Value matrixDescriptor(ThreadEmitter &l, OperandBuffer &buffer,
                       ArrayRef<Value> origin, ArrayRef<int64_t> step,
                       bool kMajor) {
  SharedMemoryType type = buffer.type;
  if (SharedMemoryType slot = getSlotType(type))
    type = slot;
  auto layout = cast<SharedLayoutAttr>(type.getLayout());
  int64_t elementBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t atomBytes = layout.getAtom() * elementBytes;
  int64_t rows = type.getShape()[layout.getOrder()[1]];
  uint64_t leading = kMajor ? 16 : uint64_t(rows * atomBytes);
  uint64_t stride = 8 * uint64_t(atomBytes);
  uint64_t mode = atomBytes == 128 ? 1 : atomBytes == 64 ? 2 : 3;
  uint64_t fixed = ((leading >> 4) << 16) | ((stride >> 4) << 32) | (mode << 62);
  Type i64 = l.b.getI64Type();
  Value address = LLVM::PtrToIntOp::create(l.b, l.loc, l.b.getI32Type(),
                                           buffer.pointer(origin));
  Value field = arith::ShRUIOp::create(l.b, l.loc, address, l.i32(4));
  Value descriptor = arith::OrIOp::create(
      l.b, l.loc, arith::ExtUIOp::create(l.b, l.loc, i64, field),
      arith::ConstantOp::create(l.b, l.loc,
                                l.b.getI64IntegerAttr(static_cast<int64_t>(fixed))));
  int64_t stepBytes = layout.getOffset(type.getShape(), step) * elementBytes;
  assert(stepBytes % 16 == 0 && "a wgmma operand starts 16-byte aligned");
  if (stepBytes == 0)
    return descriptor;
  return arith::AddIOp::create(
      l.b, l.loc, descriptor,
      arith::ConstantOp::create(l.b, l.loc, l.b.getI64IntegerAttr(stepBytes / 16)));
}

/// wgmma: warpgroup g computes rows 64 g .. 64 g + 63 of the accumulator,
/// every column, one m64nNk16 per 16 of K (m64nNk8 per 8 for tf32), from
/// descriptors of the operand buffers. tf32 operands are the f32 values the
/// buffers hold: wgmma ignores their low 13 bits (rounds toward zero), where
/// mma.sync's fragments are rounded to nearest first. The accumulator registers
/// are the mma layout's with the warps stacked along M, which are in wgmma's
/// order (per 8 columns: (r, c), (r, c + 1), (r + 8, c), (r + 8, c + 1)). The
/// group is waited for before the dot ends, so that its shared-memory reads are
/// done when the next barrier lets the buffers be overwritten; with `in_flight
/// = 1` (tile-pipeline) only the previous group is, and this one keeps running.
/// One wgmma with A in registers, B through `descB`, accumulating into `d`
/// (a struct of N/2 f32), as inline PTX: the NVVM op takes A only as a
/// descriptor. m64nNk16 for 16-bit elements (four 32-bit registers of two
/// elements each), m64nNk8 for tf32 (four f32 bit patterns; tf32 has no
/// transposed B).
Value wgmmaRegisterA(ThreadEmitter &l, Value d, ArrayRef<Value> aRegs,
                     Value descB, int64_t n, Type element, bool transB,
                     bool accumulate) {
  int64_t count = n / 2;
  bool tf32 = element.isF32();
  std::string kind = tf32 ? "tf32" : element.isBF16() ? "bf16" : "f16";
  std::string text = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                     std::to_string(2 * count + 5) +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(n) + (tf32 ? "k8" : "k16") + ".f32." +
                     kind + "." + kind + " {";
  for (int64_t i = 0; i < count; ++i)
    text += (i ? ", $" : "$") + std::to_string(i);
  text += "}, {";
  for (int64_t i = 0; i < 4; ++i)
    text += (i ? ", $" : "$") + std::to_string(2 * count + i);
  text += "}, $" + std::to_string(2 * count + 4) + ", p, 1, 1" +
          (tf32 ? "" : transB ? ", 1" : ", 0") + ";\n}";
  std::string constraints;
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i)
    constraints += (i ? ",=f" : "=f");
  for (int64_t i = 0; i < count; ++i) {
    constraints += "," + std::to_string(i);
    operands.push_back(
        LLVM::ExtractValueOp::create(l.b, l.loc, d, ArrayRef<int64_t>{i}));
  }
  for (Value reg : aRegs) {
    constraints += ",r";
    operands.push_back(reg);
  }
  constraints += ",l,r";
  operands.push_back(descB);
  operands.push_back(l.i32(accumulate ? 1 : 0));
  auto mma = LLVM::InlineAsmOp::create(
      l.b, l.loc, d.getType(), operands, text, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
      ArrayAttr());
  return mma.getResult(0);
}

/// A 16-bit A operand in registers (the accumulator's layout), packed for
/// wgmma: per k-step of 16, rows g and g + 8 of the warp's 16, columns 2t,
/// 2t + 1 of its two 8-column accumulator fragments, in pairs: (g, lo),
/// (g + 8, lo), (g, hi), (g + 8, hi), each pair an i32.
SmallVector<SmallVector<Value, 4>> packRegisterA(ThreadEmitter &l,
                                                 TileType aTile,
                                                 ValueRange values) {
  DistributedLayout aLayout = layoutOf(aTile);
  Type element = aTile.getElementType();
  SmallVector<SmallVector<Value, 4>> fragments;
  for (int64_t kk = 0; kk < aTile.getDimSize(1); kk += 16) {
    SmallVector<Value, 4> &aRegs = fragments.emplace_back();
    for (int64_t half = 0; half < 2; ++half)
      for (int64_t row = 0; row < 2; ++row) {
        int64_t column = (kk / 8 + half) * 2;
        Value pair = l.packVector(values,
                                  {aLayout.registerIndex({row, column}),
                                   aLayout.registerIndex({row, column + 1})},
                                  element);
        aRegs.push_back(
            LLVM::BitcastOp::create(l.b, l.loc, l.b.getI32Type(), pair));
      }
  }
  return fragments;
}

Regs lowerWgmmaDot(ThreadEmitter &l, DotOp op,
                   DotOp::GenericAdaptor<ArrayRef<ValueRange>> adaptor) {
  TileType resultType = op.getType();
  DistributedLayout layout = layoutOf(resultType);
  // A in shared memory (a descriptor per k-step), or in registers in the
  // result's layout (isWgmmaRegisterOperand).
  auto aTile = dyn_cast<TileType>(op.getA().getType());
  std::optional<OperandBuffer> a;
  if (!aTile)
    a.emplace(operandBuffer(l, op.getA(), adaptor.getA()));
  OperandBuffer bBuffer = operandBuffer(l, op.getB(), adaptor.getB());
  bool transposed = op.getTransposeB();
  Type element = aTile ? aTile.getElementType() : a->type.getElementType();
  bool tf32 = element.isF32();
  int64_t kStep = tf32 ? 8 : 16;
  // transpose_a: A's buffer is [K, M], M contiguous (read M-major).
  bool aTransposed = op.getTransposeA();
  int64_t k = aTile ? aTile.getDimSize(1)
                    : a->type.getShape()[aTransposed ? 0 : 1];
  int64_t n = resultType.getDimSize(1);
  MLIRContext *context = l.b.getContext();
  Type f32 = l.b.getF32Type();
  // Without an accumulator the first wgmma does not read D (scale-d = 0),
  // so D starts undefined instead of as zeros moved into every register.
  bool fresh = !op.getAcc();
  Regs acc = op.getAcc() ? Regs(adaptor.getAcc().begin(), adaptor.getAcc().end())
                         : Regs(layout.numRegisters(), Value());
  // B is K-major when its buffer's contiguous axis is K: axis 1 of B^T
  // [N, K], axis 0 of B [K, N] (tf32).
  bool bKMajor = bBuffer.contiguousAxis() == (transposed ? 1u : 0u);
  auto structType =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(n / 2, f32));
  Value d = fresh ? Value(LLVM::UndefOp::create(l.b, l.loc, structType))
                  : Value(LLVM::PoisonOp::create(l.b, l.loc, structType));
  if (!fresh)
    for (int64_t i = 0; i < n / 2; ++i)
      d = LLVM::InsertValueOp::create(l.b, l.loc, d, acc[i],
                                      ArrayRef<int64_t>{i});
  Value rowBase = l.mul(arith::ShRUIOp::create(l.b, l.loc, l.warp, l.i32(2)),
                        l.i32(64));
  NVVM::WGMMATypes type = tf32              ? NVVM::WGMMATypes::tf32
                          : element.isBF16() ? NVVM::WGMMATypes::bf16
                                             : NVVM::WGMMATypes::f16;
  // Register A: every k-step's fragment is packed before the fence, so
  // that no register a wgmma reads is written between the wgmmas (ptxas
  // would insert a warpgroup.arrive before each).
  SmallVector<SmallVector<Value, 4>> aFragments;
  if (aTile)
    aFragments = packRegisterA(l, aTile, adaptor.getA());
  NVVM::WgmmaFenceAlignedOp::create(l.b, l.loc);
  for (int64_t kk = 0; kk < k; kk += kStep) {
    Value descA;
    if (a && aTransposed)
      descA = matrixDescriptor(l, *a, {l.i32(0), rowBase}, {kk, 0},
                               /*kMajor=*/false);
    else if (a)
      descA = matrixDescriptor(l, *a, {rowBase, l.i32(0)}, {0, kk},
                               /*kMajor=*/true);
    // A K-major B (layout col) is read as is; an N-major one (a 16-bit B
    // as [K, N]) is read transposed (layout row, imm-trans-b = 1).
    Value descB = matrixDescriptor(
        l, bBuffer, {l.i32(0), l.i32(0)},
        transposed ? SmallVector<int64_t, 2>{0, kk}
                   : SmallVector<int64_t, 2>{kk, 0},
        bKMajor);
    bool accumulate = !fresh || kk > 0;
    if (!a) {
      d = wgmmaRegisterA(l, d, aFragments[kk / kStep], descB, n, element,
                         !bKMajor, accumulate);
      continue;
    }
    d = NVVM::WgmmaMmaAsyncOp::create(
        l.b, l.loc, structType, d, descA, descB,
        NVVM::MMAShapeAttr::get(context, 64, static_cast<int>(n),
                                static_cast<int>(kStep)),
        type, type, NVVM::WGMMATypes::f32,
        accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
        aTransposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        bKMajor ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(l.b, l.loc);
  // in_flight = N (tile-pipeline): the last N groups keep running; a later
  // dot's wait or a phobos.wgmma_wait retires them.
  NVVM::WgmmaWaitGroupSyncOp::create(l.b, l.loc,
                                     op.getInFlight().value_or(0));
  for (int64_t i = 0; i < n / 2; ++i)
    acc[i] = LLVM::ExtractValueOp::create(l.b, l.loc, d, ArrayRef<int64_t>{i});
  return acc;
}

/// swap_ab: the wgmmas compute the transpose, D^T [N, M] = B^T A^T, so a
/// tf32 B stored [K, N] is read as it is. Warpgroup g computes columns
/// 64 g .. 64 g + 63 of the result, every row, one m64nMk8 per 8 of K: the
/// instruction's A (B^T) comes from registers, its B (A, K-major) through a
/// descriptor. The instruction's row g (g + 8) of warp w is column
/// 16 w + 2g (+ 1) of the result, so a thread's A fragment (rows g, g + 8 x
/// k t, t + 4) is two 8-byte loads of B's buffer, (t, 2g .. 2g + 1) and
/// (t + 4, ...), and its accumulator register 4j + 2h + c (row g + 8h,
/// column 8j + 2t + c of the instruction) is the result's (8j + 2t + c,
/// 2g + h): register 4j + 2c + h of getSwappedWgmmaAccumulatorLayout.
Regs lowerSwappedWgmmaDot(ThreadEmitter &l, DotOp op,
                          DotOp::GenericAdaptor<ArrayRef<ValueRange>> adaptor,
                          int64_t groupSteps, int64_t &loadedSteps) {
  TileType resultType = op.getType();
  OperandBuffer aBuffer = operandBuffer(l, op.getA(), adaptor.getA());
  // B in shared memory (the fragments are loaded here), or already in
  // registers in getSwappedWgmmaFragmentLayout (tile-pipeline loads them
  // before a dot it keeps in flight, and holds them until the group's wait).
  bool bInRegisters = isa<TileType>(op.getB().getType());
  std::optional<OperandBuffer> bBuffer;
  if (!bInRegisters)
    bBuffer.emplace(operandBuffer(l, op.getB(), adaptor.getB()));
  int64_t m = resultType.getDimSize(0);
  int64_t k = aBuffer.type.getShape()[1];
  constexpr int64_t kStep = 8;
  MLIRContext *context = l.b.getContext();
  Type f32 = l.b.getF32Type(), i32 = l.b.getI32Type();
  int64_t count = m / 2;
  Regs acc = op.getAcc()
                 ? Regs(adaptor.getAcc().begin(), adaptor.getAcc().end())
                 : Regs(count, l.zero(f32));
  auto position = [](int64_t r) {
    return (r & ~int64_t(3)) | ((r & 1) << 1) | ((r >> 1) & 1);
  };
  auto structType =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(count, f32));
  Value d = LLVM::PoisonOp::create(l.b, l.loc, structType);
  for (int64_t r = 0; r < count; ++r)
    d = LLVM::InsertValueOp::create(l.b, l.loc, d, acc[position(r)],
                                    ArrayRef<int64_t>{r});
  // Every k-step's fragment is loaded before the fence (as for a register
  // A above), unless `groupSteps` (wgmma-fragment-steps) splits the k-steps
  // into groups: each loads its own fragments after the wait that retires
  // the group before (ptxas may reuse a fragment's registers once the
  // instructions are issued, not once they have read them).
  Value g = arith::DivUIOp::create(l.b, l.loc, l.lane, l.i32(4));
  Value t = arith::RemUIOp::create(l.b, l.loc, l.lane, l.i32(4));
  Value column = l.add(l.mul(l.warp, l.i32(16)), l.mul(g, l.i32(2)));
  auto fragment = [&](int64_t kk) {
    SmallVector<Value, 4> regs;
    if (bInRegisters) {
      for (int64_t i = 0; i < 4; ++i)
        regs.push_back(LLVM::BitcastOp::create(
            l.b, l.loc, i32, adaptor.getB()[(kk / kStep) * 4 + i]));
      return regs;
    }
    for (int64_t half = 0; half < 2; ++half) {
      Value row = l.add(t, l.i32(kk + 4 * half));
      Value pair = bBuffer->loadVector({row, column}, 2, i32);
      for (int64_t i = 0; i < 2; ++i)
        regs.push_back(LLVM::ExtractElementOp::create(l.b, l.loc, pair,
                                                      l.i32(i)));
    }
    return regs;
  };
  int64_t groupK = k;
  if (groupSteps > 0 && !bInRegisters)
    groupK = std::min(k, groupSteps * kStep);
  loadedSteps = bInRegisters ? 0 : groupK / kStep;
  for (int64_t start = 0; start < k; start += groupK) {
    if (start > 0) {
      NVVM::WgmmaGroupSyncAlignedOp::create(l.b, l.loc);
      NVVM::WgmmaWaitGroupSyncOp::create(l.b, l.loc, 0);
    }
    int64_t end = std::min(k, start + groupK);
    SmallVector<SmallVector<Value, 4>> fragments;
    for (int64_t kk = start; kk < end; kk += kStep)
      fragments.push_back(fragment(kk));
    NVVM::WgmmaFenceAlignedOp::create(l.b, l.loc);
    for (int64_t kk = start; kk < end; kk += kStep) {
      Value descB = matrixDescriptor(l, aBuffer, {l.i32(0), l.i32(0)}, {0, kk},
                                     /*kMajor=*/true);
      d = wgmmaRegisterA(l, d, fragments[(kk - start) / kStep], descB, m, f32,
                         /*transB=*/false, /*accumulate=*/true);
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(l.b, l.loc);
  NVVM::WgmmaWaitGroupSyncOp::create(l.b, l.loc,
                                     op.getInFlight().value_or(0));
  for (int64_t r = 0; r < count; ++r)
    acc[position(r)] =
        LLVM::ExtractValueOp::create(l.b, l.loc, d, ArrayRef<int64_t>{r});
  return acc;
}

struct DotLowering : TileToGPUPattern<DotOp> {
  using TileToGPUPattern::TileToGPUPattern;

  /// Records on the kernel the most `steps` under `name`: the longest K
  /// slice an FMA dot unrolled whole (kFmaKStepsAttrName), the k-steps of
  /// fragments a swap_ab wgmma dot loads at once
  /// (kWgmmaFragmentStepsAttrName). lib/Driver compiles a kernel that
  /// spills once more with fewer, where that changes the code.
  static void noteSteps(ConversionPatternRewriter &rewriter, DotOp op,
                        StringRef name, int64_t steps) {
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    auto known = func->getAttrOfType<IntegerAttr>(name);
    if (known && known.getInt() >= steps)
      return;
    rewriter.modifyOpInPlace(
        func, [&] { func->setAttr(name, rewriter.getI64IntegerAttr(steps)); });
  }
  LogicalResult
  matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Both operands in shared memory and, for mma.sync, rows ldmatrix can
    // read were checked before the conversion started.
    ThreadEmitter e = emitter(op, rewriter);
    bool mmaLayout = isa<MmaLayoutAttr>(op.getType().getEncoding());
    int64_t unrolledSteps = 0, fragmentSteps = 0;
    Regs acc =
        op.getKind() == DotKind::wgmma && op.getSwapAb()
            ? lowerSwappedWgmmaDot(e, op, adaptor,
                                   state.getWgmmaFragmentSteps(), fragmentSteps)
        : op.getKind() == DotKind::wgmma && mmaLayout
            ? lowerWgmmaDot(e, op, adaptor)
        : op.getKind() == DotKind::mma_sync && mmaLayout
            ? lowerMmaDot(e, op, adaptor)
            : lowerFmaDot(e, op, adaptor, state.getFmaKUnroll(), unrolledSteps);
    if (unrolledSteps > 0)
      noteSteps(rewriter, op, phobos::kFmaKStepsAttrName, unrolledSteps);
    if (fragmentSteps > 0)
      noteSteps(rewriter, op, phobos::kWgmmaFragmentStepsAttrName,
                fragmentSteps);
    if (op.getInFlight()) {
      auto func = op->getParentOfType<gpu::GPUFuncOp>();
      rewriter.modifyOpInPlace(func, [&] {
        func->setAttr(phobos::kDotsInFlightAttrName, rewriter.getUnitAttr());
      });
    }
    replaceWithRegisters(rewriter, op, acc);
    return success();
  }
};

/// `wgmma.wait_group N`, with the accumulator registers passed through
/// the same inline assembly (tied operands), so that nothing reads them
/// before the wait: LLVM sees them defined by it.
struct WgmmaWaitLowering : TileToGPUPattern<WgmmaWaitOp> {
  using TileToGPUPattern::TileToGPUPattern;
  LogicalResult
  matchAndRewrite(WgmmaWaitOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange registers = adaptor.getValue();
    Location loc = op.getLoc();
    std::string constraints;
    for (size_t i = 0; i < registers.size(); ++i)
      constraints += (i ? ",=f" : "=f");
    for (size_t i = 0; i < registers.size(); ++i)
      constraints += "," + std::to_string(i);
    // Held registers are inputs: allocated, unchanged, until the wait. A
    // 16-bit A operand is held as the packed pairs its wgmma reads (the
    // same values as the dot's, which LLVM's CSE makes the same registers).
    SmallVector<Value> inputs(registers.begin(), registers.end());
    if (op.getHeld()) {
      auto held = cast<TileType>(op.getHeld().getType());
      if (held.getElementType().isF32()) {
        for (Value reg : adaptor.getHeld()) {
          constraints += ",f";
          inputs.push_back(reg);
        }
      } else if (isa<MmaLayoutAttr>(held.getEncoding())) {
        // (Only an A in the accumulator's layout is read from registers.)
        ThreadEmitter e = emitter(op, rewriter);
        for (const SmallVector<Value, 4> &fragment :
             packRegisterA(e, held, adaptor.getHeld()))
          for (Value reg : fragment) {
            constraints += ",r";
            inputs.push_back(reg);
          }
      }
    }
    SmallVector<Type> types(registers.size(), rewriter.getF32Type());
    auto resultType =
        LLVM::LLVMStructType::getLiteral(rewriter.getContext(), types);
    auto wait = LLVM::InlineAsmOp::create(
        rewriter, loc, resultType, inputs,
        "wgmma.wait_group.sync.aligned " + std::to_string(op.getPending()) +
            ";",
        constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
        ArrayAttr());
    Regs result;
    for (size_t i = 0; i < registers.size(); ++i)
      result.push_back(LLVM::ExtractValueOp::create(
          rewriter, loc, wait.getResult(0), ArrayRef<int64_t>{int64_t(i)}));
    replaceWithRegisters(rewriter, op, result);
    return success();
  }
};

} // namespace

void phobos::tile::populateDotToGPUPatterns(const TypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            TileLoweringState &state) {
  patterns.add<DotLowering, WgmmaWaitLowering>(converter, patterns.getContext(),
                                               state);
}
