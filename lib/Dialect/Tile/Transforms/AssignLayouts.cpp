//===- AssignLayouts.cpp - Decide which thread holds which element --------===//
//
// Phase 1 walks the kernel in order and decides a layout for every tile
// value (dot results first, element-wise ops after their dot-derived
// operands, loop-carried values by iterating the loop body to a fixed
// point); values with no preference of their own (fill, arange) take the
// layout of their first user. Phase 2 retypes the values and inserts
// `phobos.convert_layout` where an op needs an operand in another layout,
// after first trying to move cheap single-use producers (fills, aranges,
// loads, element-wise chains of them) to the needed layout instead, and
// then to compute the operand again in the needed layout (as Triton's
// RemoveLayoutConversions rematerialises): an element-wise chain over
// fills, aranges, scalars and tiles much smaller than its result (a row or
// a column, converted once where it is defined) is cloned in the layout
// its user needs, so that an index mask such as attention's causal
// `where(causal, cols <= rows, cols < N)` costs a few integer operations
// a thread instead of a conversion through shared memory each iteration.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

/// Ops whose result takes its operands' layout, element by element (a
/// wgmma_wait passes its operand through).
static bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, RemOp, MaxOp, MinOp, AndOp, OrOp,
             CmpOp, SelectOp, NegOp, NotOp, AbsOp, ExpOp, Exp2Op, LogOp, Log2Op, SqrtOp,
             RsqrtOp, TanhOp, CastOp, BroadcastOp, TrilOp, CumsumOp, WgmmaWaitOp>(op);
}

static bool isTile(Value value) { return isa<TileType>(value.getType()); }

/// Whether some tensor-core dot's result reaches a reduction along its rows
/// (axis 1) through element-wise ops: attention's softmax. Then every row
/// of the kernel's accumulators should live in one warp, so that the row
/// statistics need no exchange between warps (and no barriers), and the
/// other accumulators combine with them without a layout conversion.
static bool reducesMmaRows(KernelOp kernel) {
  bool found = false;
  kernel.walk([&](DotOp dot) {
    if (dot.getKind() != DotKind::mma_sync && dot.getKind() != DotKind::wgmma)
      return;
    SmallVector<Value> work{dot.getResult()};
    DenseSet<Value> seen;
    while (!work.empty() && !found) {
      Value value = work.pop_back_val();
      if (!seen.insert(value).second || seen.size() > 64)
        continue;
      for (Operation *user : value.getUsers()) {
        if (auto reduce = dyn_cast<ReduceOp>(user)) {
          found |= reduce.getAxis() == 1;
          continue;
        }
        if (isElementwise(user))
          work.push_back(user->getResult(0));
      }
    }
  });
  return found;
}

namespace {

class LayoutAssigner {
public:
  LayoutAssigner(KernelOp kernel)
      : kernel(kernel), context(kernel.getContext()),
        numWarps(getNumWarps(kernel)), rowsInWarp(reducesMmaRows(kernel)) {}

  /// Returns the number of conversions inserted.
  unsigned run();

private:
  Attribute get(Value value) const { return layouts.lookup(value); }
  void set(Value value, Attribute layout, bool anchor) {
    layouts[value] = layout;
    if (anchor)
      anchored.insert(value);
    else
      anchored.erase(value);
  }
  Attribute defaultLayout(Value value) {
    auto type = cast<TileType>(value.getType());
    return getDefaultBlockedLayout(context, type.getShape(),
                                   getElementBytes(type.getElementType()),
                                   numWarps);
  }
  /// The layout `value` has, deciding the default if it has none yet.
  Attribute decided(Value value) {
    if (!get(value))
      set(value, defaultLayout(value), false);
    return get(value);
  }
  /// The layout an operand of rank `rank` needs to combine with a result
  /// in `layout`.
  Attribute operandLayout(Attribute layout, Value operand) {
    unsigned rank = cast<TileType>(operand.getType()).getRank();
    return sliceToRank(layout, rank);
  }
  Attribute accumulatorLayout(DotOp dot);

  void processBlock(Block &block);
  void processOp(Operation *op);
  void processElementwise(Operation *op);
  void processFor(scf::ForOp op);
  void processWhile(scf::WhileOp op);
  void processIf(scf::IfOp op);

  /// The layout operand `index` of `op` must have, or null for any.
  Attribute required(Operation *op, unsigned index);
  bool canRetarget(Value value, unsigned depth);
  void retarget(OpOperand &use, Attribute layout);
  bool canRecompute(Value value, int64_t resultElements, unsigned depth);
  Value recompute(Value value, Attribute layout, int64_t resultElements);
  void apply();

  KernelOp kernel;
  MLIRContext *context;
  unsigned numWarps;
  /// Accumulator rows stay inside one warp (see reducesMmaRows).
  bool rowsInWarp;
  DenseMap<Value, Attribute> layouts;
  DenseSet<Value> anchored;
  /// Values computed again (or converted once) in another layout.
  DenseMap<std::pair<Value, Attribute>, Value> recomputed;
  /// Originals that recomputation may have left without users.
  llvm::SetVector<Operation *> maybeDead;
  unsigned conversions = 0;
};

} // namespace

Attribute LayoutAssigner::accumulatorLayout(DotOp dot) {
  TileType type = dot.getType();
  int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  // wgmma: warp w of warpgroup g holds rows 64 g + 16 w .. + 15, every
  // column, in mma.sync's fragment order: the mma layout with the warps
  // stacked along M (tile-select-mma checked M = 16 x warps).
  if (dot.getKind() == DotKind::wgmma && dot.getSwapAb())
    return getSwappedWgmmaAccumulatorLayout(context, numWarps);
  if (dot.getKind() == DotKind::wgmma)
    return MmaLayoutAttr::get(context, {numWarps, 1});
  if (dot.getKind() == DotKind::mma_sync)
    if (auto warps = getMmaWarps(m, n, numWarps, rowsInWarp))
      return MmaLayoutAttr::get(context, {warps->first, warps->second});
  return getFmaAccumulatorLayout(context, m, n, numWarps);
}

void LayoutAssigner::processBlock(Block &block) {
  for (Operation &op : block)
    processOp(&op);
}

void LayoutAssigner::processElementwise(Operation *op) {
  Value result = op->getResult(0);
  auto resultType = cast<TileType>(result.getType());
  // The operand to follow: a full-shape one derived from a dot, else the
  // first full-shape operand with a layout.
  Value leader;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<TileType>(operand.getType());
    if (!type || type.getShape() != resultType.getShape() || !get(operand))
      continue;
    if (!leader || (anchored.contains(operand) && !anchored.contains(leader)))
      leader = operand;
  }
  Attribute layout = leader ? get(leader) : defaultLayout(result);
  // Operands with no preference adopt what the result needs.
  for (Value operand : op->getOperands())
    if (isTile(operand) && !get(operand))
      set(operand, operandLayout(layout, operand), false);
  set(result, layout, leader && anchored.contains(leader));
}

void LayoutAssigner::processFor(scf::ForOp op) {
  unsigned count = op.getInitArgs().size();
  SmallVector<Attribute> args(count);
  SmallVector<bool> argAnchored(count, false);
  for (unsigned i = 0; i < count; ++i)
    if (isTile(op.getInitArgs()[i])) {
      args[i] = get(op.getInitArgs()[i]);
      argAnchored[i] = anchored.contains(op.getInitArgs()[i]);
    }
  auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
  for (int round = 0; round < 4; ++round) {
    for (unsigned i = 0; i < count; ++i)
      if (isTile(op.getRegionIterArgs()[i]))
        set(op.getRegionIterArgs()[i], args[i], argAnchored[i]);
    processBlock(*op.getBody());
    bool changed = false;
    for (unsigned i = 0; i < count; ++i) {
      Value arg = op.getRegionIterArgs()[i];
      if (!isTile(arg))
        continue;
      Value yielded = yield.getOperand(i);
      Attribute candidate = decided(yielded);
      bool candidateAnchored = anchored.contains(yielded);
      if (!args[i]) {
        // The body decided the argument (a use adopted a layout) or the
        // yield does.
        args[i] = get(arg) && !candidateAnchored ? get(arg) : candidate;
        argAnchored[i] = candidateAnchored;
        changed = true;
      } else if (args[i] != candidate && candidateAnchored && !argAnchored[i]) {
        args[i] = candidate;
        argAnchored[i] = true;
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  for (unsigned i = 0; i < count; ++i) {
    if (!isTile(op.getResult(i)))
      continue;
    set(op.getResult(i), args[i], argAnchored[i]);
    if (!get(op.getInitArgs()[i]))
      set(op.getInitArgs()[i], args[i], false);
  }
}

void LayoutAssigner::processWhile(scf::WhileOp op) {
  unsigned count = op.getInits().size();
  SmallVector<Attribute> args(count);
  for (unsigned i = 0; i < count; ++i)
    if (isTile(op.getInits()[i]))
      args[i] = decided(op.getInits()[i]);
  auto condition = op.getConditionOp();
  auto yield = cast<scf::YieldOp>(op.getAfterBody()->getTerminator());
  for (int round = 0; round < 4; ++round) {
    for (unsigned i = 0; i < count; ++i)
      if (isTile(op.getBeforeArguments()[i]))
        set(op.getBeforeArguments()[i], args[i], false);
    processBlock(op.getBefore().front());
    for (auto [arg, passed] :
         llvm::zip(op.getAfterArguments(), condition.getArgs()))
      if (isTile(arg))
        set(arg, decided(passed), anchored.contains(passed));
    processBlock(op.getAfter().front());
    bool changed = false;
    for (unsigned i = 0; i < count; ++i) {
      Value yielded = yield.getOperand(i);
      if (isTile(yielded) && decided(yielded) != args[i] &&
          anchored.contains(yielded)) {
        args[i] = get(yielded);
        changed = true;
      }
    }
    if (!changed)
      break;
  }
  for (auto [result, passed] : llvm::zip(op.getResults(), condition.getArgs()))
    if (isTile(result))
      set(result, decided(passed), anchored.contains(passed));
}

void LayoutAssigner::processIf(scf::IfOp op) {
  processBlock(op.getThenRegion().front());
  if (!op.getElseRegion().empty())
    processBlock(op.getElseRegion().front());
  for (unsigned i = 0; i < op.getNumResults(); ++i) {
    if (!isTile(op.getResult(i)))
      continue;
    Value fromThen = op.thenYield().getOperand(i);
    Value fromElse = op.getElseRegion().empty()
                         ? Value()
                         : op.elseYield().getOperand(i);
    Value source = get(fromThen) || !fromElse ? fromThen : fromElse;
    set(op.getResult(i), decided(source), anchored.contains(source));
  }
}

void LayoutAssigner::processOp(Operation *op) {
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](LoadOp load) { set(load, defaultLayout(load), false); })
      .Case([&](DotOp dot) {
        Attribute layout = accumulatorLayout(dot);
        if (dot.getAcc() && !get(dot.getAcc()))
          set(dot.getAcc(), layout, false);
        set(dot, layout, true);
      })
      .Case([&](ReduceOp reduce) {
        Value operand = reduce.getOperand();
        set(reduce, decided(operand), anchored.contains(operand));
      })
      .Case<TransposeOp, ReshapeOp>([&](Operation *o) {
        decided(o->getOperand(0));
        set(o->getResult(0), defaultLayout(o->getResult(0)), false);
      })
      .Case([&](StoreOp store) { decided(store.getValue()); })
      .Case([&](AtomicAddOp atomic) {
        if (isTile(atomic.getValue()))
          decided(atomic.getValue());
      })
      .Case([&](ConvertLayoutOp convert) {
        set(convert, cast<TileType>(convert.getType()).getEncoding(), false);
      })
      .Case([&](scf::ForOp loop) { processFor(loop); })
      .Case([&](scf::WhileOp loop) { processWhile(loop); })
      .Case([&](scf::IfOp branch) { processIf(branch); })
      .Default([&](Operation *other) {
        if (isElementwise(other))
          processElementwise(other);
        // Other regions (a warp_specialize's roles) run their ops in order.
        for (Region &region : other->getRegions())
          for (Block &block : region)
            processBlock(block);
      });
}

Attribute LayoutAssigner::required(Operation *op, unsigned index) {
  Value operand = op->getOperand(index);
  if (!isTile(operand))
    return {};
  if (isElementwise(op))
    return operandLayout(decided(op->getResult(0)), operand);
  if (auto dot = dyn_cast<DotOp>(op))
    return operand == dot.getAcc() ? get(dot) : Attribute();
  if (auto yield = dyn_cast<scf::YieldOp>(op)) {
    Operation *parent = op->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(parent))
      return get(loop.getRegionIterArgs()[index]);
    if (auto branch = dyn_cast<scf::IfOp>(parent))
      return get(branch.getResult(index));
    if (auto loop = dyn_cast<scf::WhileOp>(parent))
      return get(loop.getBeforeArguments()[index]);
  }
  if (auto condition = dyn_cast<scf::ConditionOp>(op)) {
    auto loop = cast<scf::WhileOp>(op->getParentOp());
    return index == 0 ? Attribute() : get(loop.getAfterArguments()[index - 1]);
  }
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    unsigned first = loop.getNumControlOperands();
    return index >= first ? get(loop.getRegionIterArgs()[index - first])
                          : Attribute();
  }
  if (auto loop = dyn_cast<scf::WhileOp>(op))
    return get(loop.getBeforeArguments()[index]);
  return {};
}

/// The axes a reshape adds, when all it does is add axes of extent 1 (a
/// row `[N]` made `[1, N]` or `[N, 1]`); nullopt otherwise.
static std::optional<SmallVector<unsigned>> addedUnitAxes(ReshapeOp reshape) {
  ArrayRef<int64_t> from = cast<TileType>(reshape.getOperand().getType()).getShape();
  ArrayRef<int64_t> to = reshape.getType().getShape();
  SmallVector<unsigned> added;
  size_t next = 0;
  for (auto [axis, extent] : llvm::enumerate(to)) {
    if (next < from.size() && from[next] == extent) {
      ++next;
      continue;
    }
    if (extent != 1)
      return std::nullopt;
    added.push_back(axis);
  }
  if (next != from.size() || added.empty())
    return std::nullopt;
  return added;
}

bool LayoutAssigner::canRetarget(Value value, unsigned depth) {
  Operation *producer = value.getDefiningOp();
  if (!producer || depth > 8)
    return false;
  // Fills and aranges cost nothing: shared ones are cloned per user.
  if (isa<FillOp, ArangeOp>(producer))
    return true;
  if (!value.hasOneUse())
    return false;
  if (isa<LoadOp>(producer))
    return true;
  // A row given unit axes (`reshape(lse[r :+ BR], 1, BR)`): its source in
  // the needed layout's slice, which the reshape only renames
  // (getRegisterPermutation).
  if (auto reshape = dyn_cast<ReshapeOp>(producer))
    return addedUnitAxes(reshape) &&
           canRetarget(reshape.getOperand(), depth + 1);
  if (!isElementwise(producer) || isa<CumsumOp, TrilOp>(producer))
    return false;
  for (Value operand : producer->getOperands())
    if (isTile(operand) && !canRetarget(operand, depth + 1))
      return false;
  return true;
}

void LayoutAssigner::retarget(OpOperand &use, Attribute layout) {
  Value value = use.get();
  Operation *producer = value.getDefiningOp();
  if (isa<FillOp, ArangeOp>(producer) && !value.hasOneUse()) {
    OpBuilder builder(use.getOwner());
    Operation *clone = builder.clone(*producer);
    set(clone->getResult(0), layout, false);
    use.set(clone->getResult(0));
    return;
  }
  set(value, layout, anchored.contains(value));
  if (auto reshape = dyn_cast<ReshapeOp>(producer)) {
    Attribute sliced = layout;
    // Named: a range-for does not keep an inner temporary alive.
    SmallVector<unsigned> added = *addedUnitAxes(reshape);
    for (unsigned axis : llvm::reverse(added))
      sliced = SliceLayoutAttr::get(context, axis, sliced);
    retarget(reshape->getOpOperand(0), sliced);
    return;
  }
  if (!isElementwise(producer))
    return;
  for (OpOperand &operand : producer->getOpOperands())
    if (isTile(operand.get()))
      retarget(operand, operandLayout(layout, operand.get()));
}

/// A tile small enough against a result of `resultElements` that
/// converting it once is cheaper than converting the result: a row or a
/// column of it.
static bool isSmallLeaf(Value value, int64_t resultElements) {
  auto type = dyn_cast<TileType>(value.getType());
  return type && type.getNumElements() * 8 <= resultElements;
}

bool LayoutAssigner::canRecompute(Value value, int64_t resultElements,
                                  unsigned depth) {
  Operation *producer = value.getDefiningOp();
  if (!producer || depth > 8)
    return false;
  if (isa<FillOp, ArangeOp>(producer))
    return true;
  // A conversion inserted for another user is looked through.
  if (auto convert = dyn_cast<ConvertLayoutOp>(producer))
    return canRecompute(convert.getSource(), resultElements, depth + 1) ||
           isSmallLeaf(convert.getSource(), resultElements);
  if (!isElementwise(producer) ||
      isa<CumsumOp, TrilOp, WgmmaWaitOp>(producer))
    return false;
  for (Value operand : producer->getOperands())
    if (isTile(operand) && !canRecompute(operand, resultElements, depth + 1) &&
        !isSmallLeaf(operand, resultElements))
      return false;
  return true;
}

Value LayoutAssigner::recompute(Value value, Attribute layout,
                                int64_t resultElements) {
  if (decided(value) == layout)
    return value;
  auto key = std::make_pair(value, layout);
  if (Value done = recomputed.lookup(key))
    return done;
  Operation *producer = value.getDefiningOp();
  if (auto convert = dyn_cast_or_null<ConvertLayoutOp>(producer)) {
    Value result = recompute(convert.getSource(), layout, resultElements);
    maybeDead.insert(producer);
    recomputed[key] = result;
    return result;
  }
  OpBuilder builder(context);
  if (producer)
    builder.setInsertionPointAfter(producer);
  else
    builder.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
  Value result;
  if (!canRecompute(value, resultElements, 0)) {
    // A small leaf: converted once, where it is defined (outside the loop
    // when it is loop-invariant).
    auto type = withLayout(cast<TileType>(value.getType()), layout);
    result = ConvertLayoutOp::create(builder, value.getLoc(), type, value);
    ++conversions;
  } else {
    SmallVector<Value> operands;
    for (Value operand : producer->getOperands())
      operands.push_back(isTile(operand)
                             ? recompute(operand, operandLayout(layout, operand),
                                         resultElements)
                             : operand);
    // The operands' recomputation may have moved the insertion point's
    // anchor; clone right after the original, which they all dominate.
    builder.setInsertionPointAfter(producer);
    Operation *clone = builder.clone(*producer);
    clone->setOperands(operands);
    result = clone->getResult(0);
    maybeDead.insert(producer);
  }
  set(result, layout, false);
  recomputed[key] = result;
  return result;
}

void LayoutAssigner::apply() {
  // Insert conversions (or move cheap producers) where layouts disagree.
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) { ops.push_back(op); });
  OpBuilder builder(context);
  for (Operation *op : ops)
    for (unsigned index = 0; index < op->getNumOperands(); ++index) {
      Attribute need = required(op, index);
      Value operand = op->getOperand(index);
      if (!need || decided(operand) == need)
        continue;
      if (canRetarget(operand, 0)) {
        retarget(op->getOpOperand(index), need);
        continue;
      }
      int64_t elements = cast<TileType>(operand.getType()).getNumElements();
      if (canRecompute(operand, elements, 0)) {
        op->setOperand(index, recompute(operand, need, elements));
        continue;
      }
      // A loop-invariant operand is converted once, where it is defined,
      // not in every iteration of the loop that uses it.
      auto loop = op->getParentOfType<LoopLikeOpInterface>();
      bool invariant = loop && !loop->isAncestor(operand.getParentBlock()->getParentOp());
      if (invariant)
        if (Value done = recomputed.lookup({operand, need})) {
          op->setOperand(index, done);
          continue;
        }
      if (!invariant)
        builder.setInsertionPoint(op);
      else if (Operation *producer = operand.getDefiningOp())
        builder.setInsertionPointAfter(producer);
      else
        builder.setInsertionPointToStart(operand.getParentBlock());
      auto type = withLayout(cast<TileType>(operand.getType()), need);
      auto convert =
          ConvertLayoutOp::create(builder, operand.getLoc(), type, operand);
      layouts[convert] = need;
      if (invariant)
        recomputed[{operand, need}] = convert;
      op->setOperand(index, convert);
      ++conversions;
    }
  // What recomputation left without users (the chains in their first
  // layouts), users first.
  for (Operation *op : llvm::reverse(maybeDead))
    if (op->use_empty()) {
      layouts.erase(op->getResult(0));
      anchored.erase(op->getResult(0));
      op->erase();
    }
  // Retype every tile value.
  auto retype = [&](Value value) {
    if (auto type = dyn_cast<TileType>(value.getType()))
      value.setType(withLayout(type, decided(value)));
  };
  kernel.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
    for (Value result : op->getResults())
      retype(result);
  });
}

unsigned LayoutAssigner::run() {
  processBlock(kernel.getBody().front());
  apply();
  return conversions;
}

namespace {
struct TileAssignLayouts : phobos::tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using TileAssignLayoutsBase::TileAssignLayoutsBase;
  void runOnOperation() override {
    numConversions += LayoutAssigner(getOperation()).run();
  }
};
} // namespace
