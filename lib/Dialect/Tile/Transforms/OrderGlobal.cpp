//===- OrderGlobal.cpp - Barriers that keep global memory in program order ===//
//
// The language promises that inside one CTA a statement sees every earlier
// statement's global stores (docs/language.md, "The memory model"). A
// tile's elements are spread over the CTA's threads by its layout, so when
// a store and a later access of the same tensor give an element to two
// different threads, only a barrier (`bar.sync`, which orders global
// memory among the CTA's threads as it does shared memory) keeps them in
// order. The same holds between the reads of a statement and its store
// (`X[0 :+ B] = X[s :+ B] * 2.0` reads all of its right-hand side first).
//
// A forward analysis over the structured control flow, after
// tile-insert-barriers (whose barriers order global memory too, so none is
// added where one already stands) and before the warp specialisation. The
// state is the global accesses since the last barrier. An access conflicts
// with a pending one of the same tensor argument when one of them writes
// (two atomic additions do not conflict), their slices may overlap, and
// the same thread is not known to touch each element of both:
//
// - Distinct tensor arguments are distinct memory (the launchers refuse
//   overlapping arguments that a kernel writes).
// - Two slices are disjoint when, on some axis, their offsets differ by a
//   known constant at least the extent of the first of them (offsets are
//   compared as linear forms over SSA values), or, for accesses of two
//   iterations of one loop, when the offset moves by at least the extent
//   per iteration.
// - Each element is touched by one thread when both accesses move the same
//   slice (the same offsets, point axes and tile type) in a layout that
//   gives every element to exactly one thread of the CTA. Values defined
//   in a loop differ between its iterations, so an access of an earlier
//   iteration matches only through offsets defined outside that loop.
//
// Loops are analysed to a fixed point as in tile-insert-barriers. An
// asynchronous copy (cp.async) reads global memory until its group
// completes: a write it conflicts with first commits and waits for the
// thread's copies. (TMA copies are made only by tile-pipeline, for loops
// that write no tensor and, across a persistent kernel's tiles, only when
// the epilogue writes none of the tensors they read.)
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/DistributedLayout.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

#include <limits>

namespace phobos::tile {
#define GEN_PASS_DEF_TILEORDERGLOBAL
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

constexpr int64_t kWholeAxis = std::numeric_limits<int64_t>::max();

/// `constant + sum(coefficient * value)` over i32 SSA values.
struct Linear {
  llvm::SmallMapVector<Value, int64_t, 4> terms;
  int64_t constant = 0;

  void add(const Linear &other, int64_t scale) {
    constant += scale * other.constant;
    for (auto [value, coefficient] : other.terms) {
      int64_t &slot = terms[value];
      slot += scale * coefficient;
      if (slot == 0)
        terms.erase(value);
    }
  }
};

/// `value` as a linear form, looking through constants, additions,
/// subtractions and multiplications by a constant (a few levels deep; the
/// rest are opaque terms).
Linear linearize(Value value, int depth = 0) {
  Linear form;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant))) {
    form.constant = constant.getSExtValue();
    return form;
  }
  Operation *def = value.getDefiningOp();
  if (def && depth < 8) {
    if (auto add = dyn_cast<arith::AddIOp>(def)) {
      form = linearize(add.getLhs(), depth + 1);
      form.add(linearize(add.getRhs(), depth + 1), 1);
      return form;
    }
    if (auto sub = dyn_cast<arith::SubIOp>(def)) {
      form = linearize(sub.getLhs(), depth + 1);
      form.add(linearize(sub.getRhs(), depth + 1), -1);
      return form;
    }
    if (auto mul = dyn_cast<arith::MulIOp>(def)) {
      for (auto [factor, other] : {std::pair(mul.getLhs(), mul.getRhs()),
                                   std::pair(mul.getRhs(), mul.getLhs())})
        if (matchPattern(factor, m_ConstantInt(&constant))) {
          form.add(linearize(other, depth + 1), constant.getSExtValue());
          return form;
        }
    }
  }
  form.terms[value] = 1;
  return form;
}

/// One global access: the tensor argument, its offsets and the extent it
/// covers on each tensor axis, and the tile whose layout says which thread
/// moves which element (null: not known, as for scalars and TMA copies).
struct Access {
  Operation *op = nullptr;
  Value tensor;
  SmallVector<Value, 4> offsets;
  SmallVector<int64_t, 4> extents;
  ArrayRef<int64_t> pointAxes;
  TileType tile;
  bool writes = false, atomic = false;
  /// Loops whose back edge the access crossed to reach the op it is
  /// compared with: values defined in them differ between the two.
  SmallVector<Operation *, 2> crossed;
};

/// The extents of a slice of `tensor` with tile `shape` and `pointAxes`.
SmallVector<int64_t, 4> sliceExtents(GlobalTensorType tensor,
                                     ArrayRef<int64_t> shape,
                                     ArrayRef<int64_t> pointAxes) {
  SmallVector<int64_t, 4> extents;
  unsigned next = 0;
  for (int64_t axis = 0; axis < tensor.getRank(); ++axis) {
    if (llvm::is_contained(pointAxes, axis))
      extents.push_back(1);
    else
      extents.push_back(next < shape.size() ? shape[next++] : kWholeAxis);
  }
  return extents;
}

std::optional<Access> accessOf(Operation *op) {
  Access access;
  access.op = op;
  auto slice = [&](Value tensor, ValueRange offsets, ArrayRef<int64_t> points,
                   Type type) {
    auto global = cast<GlobalTensorType>(tensor.getType());
    access.tensor = tensor;
    access.offsets.assign(offsets.begin(), offsets.end());
    access.pointAxes = points;
    if (auto tile = dyn_cast_if_present<TileType>(type)) {
      access.tile = tile;
      access.extents = sliceExtents(global, tile.getShape(), points);
    } else {
      access.extents.assign(global.getRank(), 1);
    }
  };
  if (auto load = dyn_cast<LoadOp>(op)) {
    slice(load.getTensor(), load.getOffsets(), load.getPointAxes(),
          load.getType());
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    slice(store.getTensor(), store.getOffsets(), store.getPointAxes(),
          store.getValue().getType());
    access.writes = true;
  } else if (auto add = dyn_cast<AtomicAddOp>(op)) {
    slice(add.getTensor(), add.getOffsets(), add.getPointAxes(),
          add.getValue().getType());
    access.writes = access.atomic = true;
  } else if (auto load = dyn_cast<LoadScalarOp>(op)) {
    slice(load.getTensor(), load.getIndices(), {}, load.getType());
  } else if (auto store = dyn_cast<StoreScalarOp>(op)) {
    slice(store.getTensor(), store.getIndices(), {},
          store.getValue().getType());
    access.writes = true;
  } else if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
    slice(copy.getTensor(), copy.getOffsets(), copy.getPointAxes(),
          copy.getSlice());
  } else if (auto copy = dyn_cast<TmaCopyOp>(op)) {
    // The box is read by the copy engine: no thread owns its elements.
    slice(copy.getTensor(), copy.getOffsets(), {}, Type());
    access.extents.assign(access.extents.size(), kWholeAxis);
  } else {
    return std::nullopt;
  }
  // A scalar is moved by one thread or by all: no element has one owner.
  if (access.tile && !isa_and_nonnull<DistributedLayoutInterface>(
                         access.tile.getEncoding()))
    access.tile = nullptr;
  return access;
}

class Orderer {
public:
  explicit Orderer(KernelOp kernel) : kernel(kernel) {}

  unsigned run() {
    SmallVector<Access> pending;
    processRegion(kernel.getBody(), pending, /*place=*/true);
    return placed;
  }

private:
  /// Whether every element of a `type` tile belongs to exactly one
  /// register of one thread of the CTA.
  bool oneOwner(TileType type) {
    auto [it, inserted] = injective.try_emplace(type, false);
    if (!inserted)
      return it->second;
    DistributedLayout layout =
        cast<DistributedLayoutInterface>(type.getEncoding())
            .distribute(type.getShape());
    int64_t elements = 1;
    for (int64_t extent : type.getShape())
      elements *= extent;
    bool wraps = llvm::any_of(layout.getAxes(), [](const AxisDistribution &a) {
      return a.wraps;
    });
    // Every element is held by some register; as many registers in the CTA
    // as elements, none a wrapped copy, means one each.
    it->second =
        !wraps && layout.numRegisters() * kernel.getCtaSize() == elements;
    return it->second;
  }

  /// Whether `value` has the same run-time value at `earlier` and now.
  static bool stable(Value value, const Access &earlier) {
    return llvm::none_of(earlier.crossed, [&](Operation *loop) {
      Region *defined = value.getParentRegion();
      return loop->isProperAncestor(defined->getParentOp()) ||
             defined->getParentOp() == loop;
    });
  }

  /// Whether, on axis `axis`, the slices of `earlier` and `later` cannot
  /// meet.
  static bool disjointOn(const Access &earlier, const Access &later,
                         unsigned axis) {
    int64_t first = earlier.extents[axis], second = later.extents[axis];
    if (first == kWholeAxis || second == kWholeAxis)
      return false;
    Linear difference = linearize(later.offsets[axis]);
    difference.add(linearize(earlier.offsets[axis]), -1);
    // Terms that do not cancel must be the same value at both accesses
    // to cancel; a loop's induction variable, crossed once, moves by at
    // least its step.
    if (!difference.terms.empty())
      return remainderAfterMain(earlier, later, axis, difference);
    // The terms cancelled; they must also be the same values at both.
    std::optional<int64_t> perIteration;
    Linear earlierForm = linearize(earlier.offsets[axis]);
    for (auto [value, coefficient] : earlierForm.terms) {
      if (stable(value, earlier))
        continue;
      // An induction variable of the one loop crossed: the two accesses
      // are `coefficient * step * k` apart, k != 0.
      auto iv = dyn_cast<BlockArgument>(value);
      auto loop = iv ? dyn_cast<scf::ForOp>(iv.getOwner()->getParentOp())
                     : scf::ForOp();
      APInt step;
      if (!loop || loop.getInductionVar() != iv ||
          earlier.crossed.size() != 1 || earlier.crossed.front() != loop ||
          perIteration ||
          !matchPattern(loop.getStep(), m_ConstantInt(&step)))
        return false;
      perIteration = coefficient * step.getSExtValue();
    }
    // `later` starts `d` elements after `earlier`, plus `g` per iteration
    // between them (at least one): the gap only widens with more.
    int64_t d = difference.constant;
    if (perIteration) {
      int64_t g = *perIteration;
      return (g > 0 && g + d >= first) || (g < 0 && -g - d >= second);
    }
    return d >= first || -d >= second;
  }

  /// Whether `later`, in the remainder loop tile-split-ragged-loops left
  /// after a main loop of whole steps, covers other elements along `axis`
  /// than `earlier` in that main loop: with offsets `c * iv + rest` in
  /// both (the same `rest`), the remainder's induction variable starts at
  /// the main loop's bound, at least one step past any of the main loop's.
  static bool remainderAfterMain(const Access &earlier, const Access &later,
                                 unsigned axis, const Linear &difference) {
    if (difference.terms.size() != 2)
      return false;
    auto ivOf = [](Value value) -> scf::ForOp {
      auto arg = dyn_cast<BlockArgument>(value);
      auto loop =
          arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : nullptr;
      return loop && loop.getInductionVar() == arg ? loop : scf::ForOp();
    };
    scf::ForOp main, remainder;
    int64_t coefficient = 0;
    for (auto [value, c] : difference.terms) {
      scf::ForOp loop = ivOf(value);
      if (!loop)
        return false;
      if (c > 0) {
        remainder = loop;
        coefficient = c;
      } else {
        main = loop;
        if (c != -coefficient && coefficient != 0)
          return false;
      }
    }
    APInt lower, step;
    if (!main || !remainder || coefficient <= 0 ||
        difference.terms.lookup(main.getInductionVar()) != -coefficient ||
        remainder.getLowerBound() != main.getUpperBound() ||
        !matchPattern(main.getLowerBound(), m_ConstantInt(&lower)) ||
        lower.getSExtValue() != 0 ||
        !matchPattern(main.getStep(), m_ConstantInt(&step)) ||
        step.getSExtValue() <= 0)
      return false;
    // The main loop runs whole steps: its bound is `(n / step) * step`.
    auto full = main.getUpperBound().getDefiningOp<arith::MulIOp>();
    auto quotient =
        full ? full.getLhs().getDefiningOp<arith::DivSIOp>() : nullptr;
    if (!quotient || full.getRhs() != main.getStep() ||
        quotient.getRhs() != main.getStep())
      return false;
    // The rest of both offsets must be the same value at both accesses.
    Linear rest = linearize(earlier.offsets[axis]);
    rest.terms.erase(main.getInductionVar());
    for (auto [value, c] : rest.terms)
      if (!stable(value, earlier))
        return false;
    int64_t gap = coefficient * step.getSExtValue() + difference.constant;
    return gap >= earlier.extents[axis] && earlier.extents[axis] != kWholeAxis;
  }

  /// Whether the same thread moves each element of both accesses.
  bool sameOwners(const Access &earlier, const Access &later) {
    if (!earlier.tile || earlier.tile != later.tile ||
        earlier.pointAxes != later.pointAxes ||
        earlier.offsets != later.offsets || !oneOwner(earlier.tile))
      return false;
    return llvm::all_of(earlier.offsets,
                        [&](Value v) { return stable(v, earlier); });
  }

  bool conflicts(const Access &earlier, const Access &later) {
    if (earlier.tensor != later.tensor)
      return false;
    if (!earlier.writes && !later.writes)
      return false;
    if (earlier.atomic && later.atomic)
      return false;
    for (unsigned axis = 0; axis < later.offsets.size(); ++axis)
      if (disjointOn(earlier, later, axis))
        return false;
    return !sameOwners(earlier, later);
  }

  void processRegion(Region &region, SmallVectorImpl<Access> &pending,
                     bool place) {
    for (Block &block : region)
      for (Operation &op : block)
        processOp(&op, pending, place);
  }

  void processOp(Operation *op, SmallVectorImpl<Access> &pending, bool place) {
    if (isa<BarrierOp>(op)) {
      pending.clear();
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      SmallVector<Access> thenState(pending.begin(), pending.end());
      SmallVector<Access> elseState(pending.begin(), pending.end());
      processRegion(branch.getThenRegion(), thenState, place);
      processRegion(branch.getElseRegion(), elseState, place);
      pending = thenState;
      join(pending, elseState);
      return;
    }
    if (op->getNumRegions() != 0)
      return processLoop(op, pending, place);
    std::optional<Access> access = accessOf(op);
    if (!access)
      return;
    if (llvm::any_of(pending,
                     [&](const Access &p) { return conflicts(p, *access); })) {
      ++counted;
      if (place) {
        OpBuilder builder(op);
        // An asynchronous copy reads when it runs, not when it is issued: a
        // write after it waits for the thread's copies (committed first, so
        // that the wait covers them), then for the CTA.
        if (llvm::any_of(pending, [&](const Access &p) {
              return isa<AsyncCopyOp>(p.op) && conflicts(p, *access);
            })) {
          AsyncCommitOp::create(builder, op->getLoc());
          AsyncWaitOp::create(builder, op->getLoc(),
                              builder.getI32IntegerAttr(0));
        }
        BarrierOp::create(builder, op->getLoc());
        ++placed;
      }
      pending.clear();
    }
    pending.push_back(*access);
  }

  static bool same(const Access &a, const Access &b) {
    return a.op == b.op && a.crossed == b.crossed;
  }

  static void join(SmallVectorImpl<Access> &into, ArrayRef<Access> more) {
    for (const Access &access : more)
      if (llvm::none_of(into, [&](const Access &a) { return same(a, access); }))
        into.push_back(access);
  }

  /// One pass over the regions of `op`, in order, from `state`.
  SmallVector<Access> passOver(Operation *op, SmallVector<Access> state,
                               bool place) {
    for (Region &region : op->getRegions())
      processRegion(region, state, place);
    return state;
  }

  /// What reaches the start of an iteration of `op` when `before` is
  /// pending on entry: `before` and what an iteration leaves, having
  /// crossed the back edge, to a fixed point. Sets `barriers` to how many
  /// barriers one pass from there places.
  SmallVector<Access> loopEntry(Operation *op, ArrayRef<Access> before,
                                unsigned &barriers) {
    SmallVector<Access> entry(before.begin(), before.end());
    for (int round = 0;; ++round) {
      unsigned start = counted;
      SmallVector<Access> end = passOver(op, entry, /*place=*/false);
      barriers = counted - start;
      SmallVector<Access> next(before.begin(), before.end());
      for (Access &access : end)
        if (!llvm::is_contained(access.crossed, op))
          access.crossed.push_back(op);
      join(next, end);
      // The state only grows, and is bounded by the accesses in and
      // before the loop.
      if (next.size() == entry.size() || round > 64)
        return entry;
      entry = std::move(next);
    }
  }

  /// The regions of `op` run in order any number of times (a while loop's
  /// condition runs once more on exit, which a fixed point covers too).
  /// When what is pending before the loop makes its body place barriers
  /// (a tensor written before the loop and read in it), one barrier in
  /// front of the loop replaces them.
  void processLoop(Operation *op, SmallVectorImpl<Access> &pending,
                   bool place) {
    unsigned withPending = 0, fromClean = 0;
    SmallVector<Access> entry = loopEntry(op, pending, withPending);
    if (!pending.empty() && withPending > 0) {
      SmallVector<Access> cleanEntry = loopEntry(op, {}, fromClean);
      if (fromClean < withPending) {
        ++counted;
        if (place) {
          OpBuilder builder(op);
          BarrierOp::create(builder, op->getLoc());
          ++placed;
        }
        pending.clear();
        entry = std::move(cleanEntry);
      }
    }
    SmallVector<Access> end = passOver(op, entry, place);
    pending.assign(entry.begin(), entry.end());
    join(pending, end);
  }

  KernelOp kernel;
  llvm::DenseMap<Type, bool> injective;
  /// Barriers placed, and barriers placed or counted by dry runs.
  unsigned placed = 0, counted = 0;
};

struct TileOrderGlobal
    : phobos::tile::impl::TileOrderGlobalBase<TileOrderGlobal> {
  using TileOrderGlobalBase::TileOrderGlobalBase;
  void runOnOperation() override {
    numBarriers += Orderer(getOperation()).run();
  }
};

} // namespace
