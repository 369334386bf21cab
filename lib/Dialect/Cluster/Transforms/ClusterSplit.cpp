//===- ClusterSplit.cpp - @cluster kernels into cluster programs ----------===//
//
// --phobos-cluster-split: reads an @cluster kernel at the cluster level
// (the @cluster names the front end marked are super-tile sizes, ctx.block
// counts super-tiles) to find how each tensor is cut and what each unit of
// work touches, checks the rules of seed 003 at the source locations, and
// replaces the kernel by a phobos_cluster.program holding its leaves.
//
// Why this file is long: it is one pass over one analysis. The Splitter
// finds the cluster loop, classifies every access by axis (with slice
// offsets as polynomials), checks the accumulator, the loops and the grid at
// the user's lines, and then builds the program and its leaves from what it
// found; the building half reads the analysis's state throughout, so the two
// halves stay one class.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <map>

namespace phobos::cluster {
#define GEN_PASS_DEF_CLUSTERSPLIT
#include "Phobos/Dialect/Cluster/Transforms/Passes.h.inc"
} // namespace phobos::cluster

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;

namespace {

//===----------------------------------------------------------------------===//
// Slice offsets as polynomials
//===----------------------------------------------------------------------===//

/// An offset as a sum of integer multiples of products of atoms: grid
/// indices (`ctx.block.x`), @cluster names (`@TILE_M`), loop variables
/// (`iv#n`) and opaque values (`v#n`). The empty product is the constant.
struct Poly {
  using Monomial = std::vector<std::string>;
  std::map<Monomial, int64_t> terms;

  static Poly constant(int64_t value) {
    Poly p;
    if (value)
      p.terms[{}] = value;
    return p;
  }
  static Poly atom(std::string name) {
    Poly p;
    p.terms[{std::move(name)}] = 1;
    return p;
  }
  Poly plus(const Poly &other, int64_t sign) const {
    Poly sum = *this;
    for (auto &[monomial, coeff] : other.terms)
      if ((sum.terms[monomial] += sign * coeff) == 0)
        sum.terms.erase(monomial);
    return sum;
  }
  Poly times(const Poly &other) const {
    Poly product;
    for (auto &[a, ca] : terms)
      for (auto &[b, cb] : other.terms) {
        Monomial m = a;
        m.insert(m.end(), b.begin(), b.end());
        llvm::sort(m);
        if ((product.terms[m] += ca * cb) == 0)
          product.terms.erase(m);
      }
    return product;
  }
  /// Whether some monomial has an atom starting with `prefix`.
  bool mentions(StringRef prefix) const {
    for (auto &[monomial, coeff] : terms)
      for (const std::string &atom : monomial)
        if (StringRef(atom).starts_with(prefix))
          return true;
    return false;
  }
  /// The only monomial when there is exactly one with coefficient 1.
  const Monomial *single() const {
    if (terms.size() != 1 || terms.begin()->second != 1)
      return nullptr;
    return &terms.begin()->first;
  }
};

/// `file:line:col` of an op, for messages that point at a second place.
static std::string where(Operation *op) {
  if (auto loc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return (llvm::sys::path::filename(loc.getFilename().getValue()) + ":" +
            Twine(loc.getLine()) + ":" + Twine(loc.getColumn()))
        .str();
  return "an unknown location";
}

static StringRef axisLetter(unsigned axis) {
  return axis == 0 ? "x" : axis == 1 ? "y" : "z";
}

//===----------------------------------------------------------------------===//
// The splitter
//===----------------------------------------------------------------------===//

/// How one slice axis sits in the super-tile structure.
enum class AxisKind { Grid, Loop, Whole };

/// One axis of one tensor access.
struct AxisUse {
  Operation *op;
  unsigned arg;  ///< the tensor's argument index
  unsigned axis; ///< tensor axis
  AxisKind kind;
  unsigned gridAxis = 0;
  std::string split; ///< @cluster name for Grid and Loop
};

/// What the split decides for a dim name.
struct DimSplit {
  AxisKind kind = AxisKind::Whole;
  unsigned gridAxis = 0;
  std::string split;
  Operation *where = nullptr;
};

/// The accumulator shape of a kernel with a cluster loop.
struct Accumulator {
  tile::StoreOp store;
  /// `beta * c_old`, its `beta` and `c_old`; null for `C[..] = acc`.
  Operation *betaTerm = nullptr;
  Value beta;
  tile::LoadOp cOld;
};

class Splitter {
public:
  Splitter(tile::KernelOp kernel) : kernel(kernel) {}

  LogicalResult analyze();
  /// Builds the program before the kernel; returns the number of leaves.
  FailureOr<unsigned> build();

private:
  LogicalResult findClusterLoop();
  LogicalResult classifyAccesses();
  LogicalResult classifyAxis(Operation *op, unsigned arg, unsigned axis,
                             Value offset, StringRef extent, bool point);
  LogicalResult resolveDims();
  LogicalResult checkLoops();
  LogicalResult checkAccumulator();
  LogicalResult checkGrid();
  void warnUnusedNames();

  Poly linearize(Value value, unsigned depth = 0);
  std::optional<StringRef> clusterName(Value value);
  StringRef argName(unsigned arg) { return names[arg]; }
  StringRef dimName(unsigned arg, unsigned axis) { return dims[arg][axis]; }
  InFlightDiagnostic accumulatorError(Operation *at, const Twine &reason);

  FailureOr<tile::KernelOp> buildInitLeaf(OpBuilder &builder, StringRef name);
  void buildStepLeaf(tile::KernelOp step);
  std::string uniqueLeafName(StringRef base);

  tile::KernelOp kernel;
  SmallVector<std::string> names;
  SmallVector<SmallVector<std::string>> dims;
  scf::ForOp clusterLoop;
  std::string clusterLoopSplit, clusterLoopDim;
  DenseMap<Value, unsigned> ivIndex;
  std::vector<AxisUse> uses;
  std::map<std::string, DimSplit> dimSplits;
  struct GridAxis {
    bool used = false;
    std::string dim, split;
  };
  GridAxis grid[3];
  unsigned numGridAxes = 0;
  Accumulator acc;
  /// Per tensor argument: read, written.
  std::map<unsigned, std::pair<bool, bool>> effects;
  llvm::StringSet<> usedNames;
};

std::optional<StringRef> Splitter::clusterName(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto name =
            constant->getAttrOfType<StringAttr>(ClusterDialect::kDimAttrName))
      return name.getValue();
  return std::nullopt;
}

Poly Splitter::linearize(Value value, unsigned depth) {
  auto opaque = [&] {
    return Poly::atom("v#" + std::to_string(reinterpret_cast<uintptr_t>(
                                 value.getAsOpaquePointer())));
  };
  if (depth > 32)
    return opaque();
  if (auto it = ivIndex.find(value); it != ivIndex.end())
    return Poly::atom("iv#" + std::to_string(it->second));
  Operation *def = value.getDefiningOp();
  if (!def)
    return opaque();
  if (std::optional<StringRef> name = clusterName(value)) {
    usedNames.insert(*name);
    return Poly::atom(("@" + *name).str());
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(def))
    if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
      return Poly::constant(integer.getInt());
  if (auto block = dyn_cast<tile::BlockIdOp>(def))
    return Poly::atom(
        ("ctx.block." + axisLetter(static_cast<unsigned>(block.getAxis())))
            .str());
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(
          def))
    return linearize(def->getOperand(0), depth + 1);
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    Poly lhs = linearize(def->getOperand(0), depth + 1);
    Poly rhs = linearize(def->getOperand(1), depth + 1);
    if (isa<arith::MulIOp>(def))
      return lhs.times(rhs);
    return lhs.plus(rhs, isa<arith::AddIOp>(def) ? 1 : -1);
  }
  return opaque();
}

LogicalResult Splitter::findClusterLoop() {
  WalkResult result = kernel.walk([&](scf::ForOp loop) {
    std::optional<StringRef> step = clusterName(loop.getStep());
    if (!step)
      return WalkResult::advance();
    if (clusterLoop) {
      loop.emitError("a kernel has at most one cluster loop (a for whose step "
                     "is an @cluster name); the first is at ")
          << where(clusterLoop);
      return WalkResult::interrupt();
    }
    if (loop->getParentOp() != kernel.getOperation()) {
      loop.emitError("a cluster loop (its step ")
          << *step << " is an @cluster name) must be at the top level of the "
          << "kernel, not inside another loop or branch";
      return WalkResult::interrupt();
    }
    clusterLoop = loop;
    clusterLoopSplit = step->str();
    usedNames.insert(*step);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  unsigned next = 0;
  kernel.walk([&](scf::ForOp loop) { ivIndex[loop.getInductionVar()] = next++; });
  return success();
}

LogicalResult Splitter::classifyAxis(Operation *op, unsigned arg,
                                     unsigned axis, Value offset,
                                     StringRef extent, bool point) {
  bool written = isa<tile::StoreOp, tile::StoreScalarOp>(op);
  StringRef verb = written ? "written" : "read";
  Poly poly = linearize(offset);
  AxisUse use{op, arg, axis, AxisKind::Whole, 0, ""};
  std::string clusterIv;
  if (clusterLoop)
    clusterIv = "iv#" + std::to_string(ivIndex[clusterLoop.getInductionVar()]);

  auto wrongExtent = [&](StringRef name, StringRef where) -> LogicalResult {
    return op->emitError("a super-tile slice of '")
           << argName(arg) << "' (axis " << axis << ") at " << where << " * "
           << name << " must have extent " << name << "; write [" << where
           << " * " << name << " :+ " << name << "]";
  };
  auto halo = [&]() -> LogicalResult {
    return op->emitError("tensor '")
           << argName(arg) << "' is " << verb
           << " at two different super-tile coordinates in one unit of work "
              "(a halo, which would need an exchange between nodes): along "
              "axis "
           << axis << " a slice must start exactly at the unit's super-tile, "
           << "ctx.block.<axis> * S or the cluster loop's variable";
  };

  if (const Poly::Monomial *m = poly.single()) {
    // ctx.block.<a> * S: sorted, '@' comes before 'c'.
    if (m->size() == 2 && StringRef((*m)[0]).starts_with("@") &&
        StringRef((*m)[1]).starts_with("ctx.block.")) {
      StringRef name = StringRef((*m)[0]).drop_front();
      StringRef block = (*m)[1];
      if (point || extent != name)
        return wrongExtent(name, block);
      use.kind = AxisKind::Grid;
      use.gridAxis = block.back() - 'x';
      use.split = name.str();
      uses.push_back(use);
      return success();
    }
    if (m->size() == 1 && (*m)[0] == clusterIv) {
      if (point || extent != clusterLoopSplit)
        return op->emitError("a slice of '")
               << argName(arg) << "' (axis " << axis
               << ") at the cluster loop's variable must have extent "
               << clusterLoopSplit << ", the loop's step";
      use.kind = AxisKind::Loop;
      use.split = clusterLoopSplit;
      uses.push_back(use);
      return success();
    }
  }
  if (poly.mentions("ctx.block.")) {
    for (auto &[monomial, coeff] : poly.terms) {
      bool block = false, name = false;
      for (const std::string &atom : monomial) {
        block |= StringRef(atom).starts_with("ctx.block.");
        name |= StringRef(atom).starts_with("@");
      }
      if (block && name)
        return halo();
    }
    return op->emitError("a grid axis comes from a slice offset "
                         "ctx.block.<axis> * S with extent S, where S is an "
                         "@cluster name; axis ")
           << axis << " of '" << argName(arg)
           << "' uses ctx.block otherwise";
  }
  if (!clusterIv.empty() && poly.mentions(clusterIv))
    return halo();
  if (poly.mentions("@") || !extent.empty())
    return op->emitError("axis ")
           << axis << " of '" << argName(arg)
           << "' is sliced with an @cluster name away from a super-tile "
              "(ctx.block.<axis> * S :+ S or the cluster loop's chunk); the "
              "leaf, where the name is the CTA's tile, would read a different "
              "slice than the cluster level";
  uses.push_back(use);
  return success();
}

LogicalResult Splitter::classifyAccesses() {
  WalkResult result = kernel.walk([&](Operation *op) {
    Value tensor;
    ValueRange offsets;
    ArrayRef<int64_t> pointAxes;
    bool allPoints = false;
    if (auto load = dyn_cast<tile::LoadOp>(op)) {
      tensor = load.getTensor();
      offsets = load.getOffsets();
      pointAxes = load.getPointAxes();
    } else if (auto store = dyn_cast<tile::StoreOp>(op)) {
      tensor = store.getTensor();
      offsets = store.getOffsets();
      pointAxes = store.getPointAxes();
    } else if (auto load = dyn_cast<tile::LoadScalarOp>(op)) {
      tensor = load.getTensor();
      offsets = load.getIndices();
      allPoints = true;
    } else if (auto store = dyn_cast<tile::StoreScalarOp>(op)) {
      tensor = store.getTensor();
      offsets = store.getIndices();
      allPoints = true;
    } else {
      return WalkResult::advance();
    }
    auto arg = dyn_cast<BlockArgument>(tensor);
    if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation()) {
      op->emitError("the cluster compiler needs tensors that are kernel "
                    "parameters");
      return WalkResult::interrupt();
    }
    unsigned index = arg.getArgNumber();
    bool written = isa<tile::StoreOp, tile::StoreScalarOp>(op);
    auto &effect = effects[index];
    (written ? effect.second : effect.first) = true;
    auto extents =
        op->getAttrOfType<ArrayAttr>(ClusterDialect::kExtentsAttrName);
    for (auto [axis, offset] : llvm::enumerate(offsets)) {
      StringRef extent =
          extents ? cast<StringAttr>(extents[axis]).getValue() : "";
      if (extent.size())
        usedNames.insert(extent);
      bool point = allPoints || llvm::is_contained(pointAxes, axis);
      if (failed(classifyAxis(op, index, axis, offset, extent, point)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult Splitter::resolveDims() {
  // Cut dims: every cut of a dim agrees, a grid axis cuts one dim.
  for (const AxisUse &use : uses) {
    if (use.kind == AxisKind::Whole)
      continue;
    StringRef dim = dimName(use.arg, use.axis);
    auto type = cast<tile::GlobalTensorType>(
        kernel.getArgumentTypes()[use.arg]);
    if (!ShapedType::isDynamic(type.getDimSize(use.axis)))
      return use.op->emitError("dim '")
             << dim << "' of '" << argName(use.arg)
             << "' has the compile-time extent " << type.getDimSize(use.axis)
             << " and cannot be cut into super-tiles";
    std::string how = use.kind == AxisKind::Grid
                          ? ("ctx.block." + axisLetter(use.gridAxis)).str()
                          : std::string("the cluster loop");
    if (use.kind == AxisKind::Loop && clusterLoopDim != dim)
      return use.op->emitError("the cluster loop runs over dim '")
             << clusterLoopDim << "', but its variable slices dim '" << dim
             << "' of '" << argName(use.arg) << "'";
    DimSplit &split = dimSplits[dim.str()];
    if (!split.where) {
      split = {use.kind, use.gridAxis, use.split, use.op};
    } else if (split.kind != use.kind || split.gridAxis != use.gridAxis ||
               split.split != use.split) {
      return use.op->emitError("dim '")
             << dim << "' is cut here by " << how << " into " << use.split
             << " super-tiles, but differently at " << where(split.where)
             << "; a dim is cut one way";
    }
    if (use.kind == AxisKind::Grid) {
      GridAxis &axis = grid[use.gridAxis];
      if (axis.used && axis.dim != dim)
        return use.op->emitError("ctx.block.")
               << axisLetter(use.gridAxis) << " cuts dim '" << dim
               << "' here but dim '" << axis.dim
               << "' elsewhere; a grid axis cuts one dim";
      axis = {true, dim.str(), use.split};
    }
  }
  // Whole reads of a cut dim would need other units' super-tiles.
  for (const AxisUse &use : uses) {
    if (use.kind != AxisKind::Whole)
      continue;
    auto it = dimSplits.find(dimName(use.arg, use.axis).str());
    if (it == dimSplits.end())
      continue;
    bool written = isa<tile::StoreOp, tile::StoreScalarOp>(use.op);
    return use.op->emitError("tensor '")
           << argName(use.arg) << "' is " << (written ? "written" : "read")
           << " at two different super-tile coordinates in one unit of work "
              "(a halo, which would need an exchange between nodes): its axis "
           << use.axis << " (dim '" << it->first << "') is cut into "
           << it->second.split << " super-tiles at " << where(it->second.where)
           << ", so a slice of it must start exactly at the unit's super-tile";
  }
  for (unsigned axis = 0; axis < 3; ++axis) {
    if (!grid[axis].used)
      continue;
    if (axis != numGridAxes)
      return kernel.emitError("the super-tile grid uses ctx.block.")
             << axisLetter(axis) << " without ctx.block."
             << axisLetter(numGridAxes) << "; use the grid axes in order";
    ++numGridAxes;
  }
  return success();
}

/// The dim name a loop bound names, if it is a symbolic dim of a kernel
/// tensor.
static std::optional<std::string> loopDim(tile::KernelOp kernel, Value bound) {
  while (auto cast = bound.getDefiningOp<arith::IndexCastOp>())
    bound = cast.getIn();
  auto dim = bound.getDefiningOp<tile::DimOp>();
  if (!dim)
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(dim.getTensor());
  if (!arg || arg.getOwner()->getParentOp() != kernel.getOperation())
    return std::nullopt;
  auto type = cast<tile::GlobalTensorType>(arg.getType());
  if (!ShapedType::isDynamic(type.getDimSize(dim.getIndex())))
    return std::nullopt;
  SmallVector<StringRef> names = kernel.getArgDimNames(arg.getArgNumber());
  if (dim.getIndex() >= names.size())
    return std::nullopt;
  return names[dim.getIndex()].str();
}

static Location locOf(Value value, Operation *fallback) {
  if (Operation *def = value.getDefiningOp())
    return def->getLoc();
  return fallback->getLoc();
}

LogicalResult Splitter::checkLoops() {
  WalkResult result = kernel.walk([&](scf::ForOp loop) {
    auto lb = loop.getLowerBound().getDefiningOp<arith::ConstantOp>();
    auto zero = lb ? dyn_cast<IntegerAttr>(lb.getValue()) : nullptr;
    if (!zero || zero.getInt() != 0 || clusterName(loop.getLowerBound())) {
      emitError(locOf(loop.getLowerBound(), loop),
                "a loop inside the leaf must start at 0: the leaf's tensors "
                "are one super-tile each, and a loop over a dim covers it "
                "from 0");
      return WalkResult::interrupt();
    }
    std::optional<std::string> dim = loopDim(kernel, loop.getUpperBound());
    if (!dim) {
      emitError(locOf(loop.getUpperBound(), loop),
                "a loop inside the leaf must run to a symbolic dim (a tensor "
                "extent such as N): in the leaf, dims are the super-tile's "
                "extents");
      return WalkResult::interrupt();
    }
    if (loop == clusterLoop)
      return WalkResult::advance();
    auto it = dimSplits.find(*dim);
    if (it != dimSplits.end()) {
      emitError(locOf(loop.getUpperBound(), loop), "this loop runs over dim '")
          << *dim << "', which is cut into " << it->second.split
          << " super-tiles: in the leaf it would cover one super-tile only; "
          << "loop over a dim that is read whole, or make the step an "
          << "@cluster name (a cluster loop)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

InFlightDiagnostic Splitter::accumulatorError(Operation *at,
                                              const Twine &reason) {
  return at->emitError("a cluster loop (its step ")
         << clusterLoopSplit
         << " is an @cluster name) must carry only an accumulator: a tile "
            "that starts at zero, is summed over the loop (acc += ...) and is "
            "stored once as C[..] = acc or C[..] = alpha * acc + beta * "
            "c_old; "
         << reason;
}

/// `lhs` and `rhs` compute the same value (structurally).
static bool sameValue(Value lhs, Value rhs, unsigned depth = 0) {
  if (lhs == rhs)
    return true;
  Operation *a = lhs.getDefiningOp(), *b = rhs.getDefiningOp();
  if (!a || !b || depth > 16 || a->getName() != b->getName() ||
      a->getAttrDictionary() != b->getAttrDictionary() ||
      a->getNumOperands() != b->getNumOperands() || a->getNumRegions() ||
      !isMemoryEffectFree(a))
    return false;
  for (auto [x, y] : llvm::zip(a->getOperands(), b->getOperands()))
    if (!sameValue(x, y, depth + 1))
      return false;
  return true;
}

/// `op` is `phobos.mul` of a scalar and `value` (either order); returns the
/// scalar.
static Value scalarFactor(Operation *op, Value value) {
  auto mul = dyn_cast_or_null<tile::MulOp>(op);
  if (!mul)
    return nullptr;
  Value lhs = mul.getLhs(), rhs = mul.getRhs();
  if (rhs == value && !isa<tile::TileType>(lhs.getType()))
    return lhs;
  if (lhs == value && !isa<tile::TileType>(rhs.getType()))
    return rhs;
  return nullptr;
}

LogicalResult Splitter::checkAccumulator() {
  if (!clusterLoop)
    return success();
  scf::ForOp loop = clusterLoop;
  if (loop.getNumRegionIterArgs() != 1)
    return accumulatorError(loop, "this one carries ")
           << loop.getNumRegionIterArgs() << " values";
  Value init = loop.getInitArgs()[0];
  auto fill = init.getDefiningOp<tile::FillOp>();
  auto zero = fill ? fill.getValue().getDefiningOp<arith::ConstantOp>()
                   : arith::ConstantOp();
  auto zeroAttr = zero ? dyn_cast<TypedAttr>(zero.getValue()) : nullptr;
  bool isZero = false;
  if (auto f = dyn_cast_or_null<FloatAttr>(zeroAttr))
    isZero = f.getValue().isZero();
  if (auto i = dyn_cast_or_null<IntegerAttr>(zeroAttr))
    isZero = i.getValue().isZero();
  if (!isZero)
    return accumulatorError(loop, "its state does not start at zero");

  Value state = loop.getRegionIterArgs()[0];
  Value next = cast<scf::YieldOp>(loop.getBody()->getTerminator()).getOperand(0);
  bool summed = false;
  if (state.hasOneUse()) {
    if (auto add = next.getDefiningOp<tile::AddOp>())
      summed = add.getLhs() == state || add.getRhs() == state;
    if (auto dot = next.getDefiningOp<tile::DotOp>())
      summed = dot.getAcc() == state;
  }
  if (!summed)
    return accumulatorError(loop, "its state is not summed as acc += ...");

  SmallVector<tile::StoreOp> stores;
  kernel.walk([&](tile::StoreOp store) { stores.push_back(store); });
  bool scalarStores = false;
  kernel.walk([&](tile::StoreScalarOp) { scalarStores = true; });
  Value result = loop.getResult(0);
  auto storeNote = "its result must be stored once as C[..] = acc or "
                   "C[..] = alpha * acc + beta * c_old";
  if (stores.size() != 1 || scalarStores)
    return accumulatorError(loop, "the kernel may store nothing but the "
                                  "accumulator, once");
  tile::StoreOp store = stores.front();
  if (store->getParentOp() != kernel.getOperation() || !result.hasOneUse())
    return accumulatorError(loop, storeNote);
  acc.store = store;

  // result -> [alpha *] -> store, or result -> [alpha *] -> + beta * c_old.
  Value term = result;
  Operation *user = *result.getUsers().begin();
  if (scalarFactor(user, term)) {
    term = user->getResult(0);
    if (!term.hasOneUse())
      return accumulatorError(loop, storeNote);
    user = *term.getUsers().begin();
  }
  if (user == store.getOperation() && store.getValue() == term)
    return success();
  auto add = dyn_cast<tile::AddOp>(user);
  if (!add || !add.getResult().hasOneUse() ||
      *add.getResult().getUsers().begin() != store.getOperation() ||
      store.getValue() != add.getResult())
    return accumulatorError(loop, storeNote);
  Value other = add.getLhs() == term ? add.getRhs() : add.getLhs();
  Operation *betaTerm = other.getDefiningOp();
  tile::LoadOp cOld;
  Value beta;
  if (auto mul = dyn_cast_or_null<tile::MulOp>(betaTerm)) {
    Value lhs = mul.getLhs(), rhs = mul.getRhs();
    for (Value candidate : {lhs, rhs})
      if (auto load = candidate.getDefiningOp<tile::LoadOp>())
        if ((beta = scalarFactor(mul, candidate)))
          cOld = load;
  }
  if (!cOld || !other.hasOneUse() || !cOld.getResult().hasOneUse() ||
      cOld.getTensor() != store.getTensor() ||
      cOld.getPointAxes() != store.getPointAxes() ||
      cOld.getOffsets().size() != store.getOffsets().size() ||
      !llvm::all_of(llvm::zip(cOld.getOffsets(), store.getOffsets()),
                    [](auto pair) {
                      return sameValue(std::get<0>(pair), std::get<1>(pair));
                    }))
    return accumulatorError(loop, storeNote);
  acc.betaTerm = betaTerm;
  acc.beta = beta;
  acc.cOld = cOld;
  return success();
}

LogicalResult Splitter::checkGrid() {
  // Every output is one unit's own: cut along every grid axis.
  for (auto &[arg, effect] : effects) {
    if (!effect.second)
      continue;
    for (unsigned axis = 0; axis < numGridAxes; ++axis) {
      unsigned output = arg;
      bool cut = llvm::any_of(uses, [&](const AxisUse &use) {
        return use.arg == output && use.kind == AxisKind::Grid &&
               use.gridAxis == axis;
      });
      if (cut)
        continue;
      Operation *store = nullptr;
      for (const AxisUse &use : uses)
        if (use.arg == output &&
            isa<tile::StoreOp, tile::StoreScalarOp>(use.op))
          store = store ? store : use.op;
      return store->emitError("tensor '")
             << argName(arg) << "' is written by every unit of work along "
             << "ctx.block." << axisLetter(axis)
             << "; each unit must write its own super-tile, so an output is "
             << "cut along every grid axis";
    }
  }
  return success();
}

void Splitter::warnUnusedNames() {
  for (auto dim : kernel.getClusterAttr().getAsRange<tile::TuneDimAttr>())
    if (StringRef name = dim.getName().getValue(); !usedNames.contains(name))
      kernel.emitWarning("@cluster name '")
          << name << "' cuts nothing: no super-tile slice or cluster loop "
          << "uses it";
  // ctx.block other than in a super-tile offset counts CTAs in the leaf.
  kernel.walk([&](tile::BlockIdOp block) {
    for (Operation *user : block->getUsers()) {
      auto mul = dyn_cast<arith::MulIOp>(user);
      bool offset = mul && (clusterName(mul.getLhs()) || clusterName(mul.getRhs()));
      if (offset)
        offset = llvm::all_of(mul->getUsers(), [](Operation *op) {
          return isa<tile::LoadOp, tile::StoreOp>(op);
        });
      if (!offset) {
        user->emitWarning("ctx.block.")
            << tile::stringifyAxis(block.getAxis())
            << " is used here other than as a super-tile offset; in the leaf "
            << "it counts CTAs inside the super-tile, not super-tiles";
        return;
      }
    }
  });
}

LogicalResult Splitter::analyze() {
  if (!kernel->hasAttr(ClusterDialect::kMarkedAttrName))
    return kernel.emitError("kernel '")
           << kernel.getName()
           << "' has @cluster but was imported without the marks the split "
              "needs; import it with phobos-translate --import-phobos --cluster";
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i) {
    names.push_back(kernel.getArgName(i));
    SmallVector<std::string> axes;
    for (StringRef dim : kernel.getArgDimNames(i))
      axes.push_back(dim.str());
    if (auto type = dyn_cast<tile::GlobalTensorType>(kernel.getArgumentTypes()[i]))
      for (int64_t axis = axes.size(); axis < type.getRank(); ++axis)
        axes.push_back(("?" + Twine(axis)).str());
    dims.push_back(std::move(axes));
  }
  if (failed(findClusterLoop()))
    return failure();
  if (clusterLoop) {
    std::optional<std::string> dim = loopDim(kernel, clusterLoop.getUpperBound());
    clusterLoopDim = dim ? *dim : "";
  }
  if (failed(classifyAccesses()) || failed(resolveDims()) ||
      failed(checkLoops()) || failed(checkAccumulator()) || failed(checkGrid()))
    return failure();
  if (clusterLoop && !clusterLoopDim.empty())
    dimSplits[clusterLoopDim] = {AxisKind::Loop, 0, clusterLoopSplit,
                                 clusterLoop};
  warnUnusedNames();
  return success();
}

//===----------------------------------------------------------------------===//
// Building the program
//===----------------------------------------------------------------------===//

/// Removes @cluster and the front end's marks from a leaf.
static void stripClusterMarks(tile::KernelOp leaf) {
  leaf.removeClusterAttr();
  leaf->removeAttr(ClusterDialect::kMarkedAttrName);
  leaf.walk([](Operation *op) {
    op->removeAttr(ClusterDialect::kDimAttrName);
    op->removeAttr(ClusterDialect::kExtentsAttrName);
  });
}

std::string Splitter::uniqueLeafName(StringRef base) {
  std::string name = base.str();
  while (llvm::is_contained(names, name))
    name += "_leaf";
  return name;
}

/// Collects the ops `value` depends on inside `kernel`, and the kernel
/// arguments it reaches.
static void collectSlice(Value value, llvm::SetVector<Operation *> &ops,
                         llvm::SetVector<unsigned> &args) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    args.insert(arg.getArgNumber());
    return;
  }
  Operation *def = value.getDefiningOp();
  if (!def || ops.contains(def))
    return;
  for (Value operand : def->getOperands())
    collectSlice(operand, ops, args);
  ops.insert(def);
}

FailureOr<tile::KernelOp> Splitter::buildInitLeaf(OpBuilder &builder,
                                                  StringRef name) {
  tile::StoreOp store = acc.store;
  llvm::SetVector<Operation *> slice;
  llvm::SetVector<unsigned> args;
  unsigned output = cast<BlockArgument>(store.getTensor()).getArgNumber();
  args.insert(output);
  for (Value offset : store.getOffsets())
    collectSlice(offset, slice, args);
  if (acc.beta)
    collectSlice(acc.beta, slice, args);
  if (acc.cOld)
    for (Value offset : acc.cOld.getOffsets())
      collectSlice(offset, slice, args);
  const char *sliceRule = "the store's offsets and beta may depend only on "
                          "ctx.block, constants and scalars";
  for (Operation *op : slice)
    if (op->getNumRegions() || !isMemoryEffectFree(op)) {
      accumulatorError(op, sliceRule);
      return failure();
    }
  for (unsigned arg : args)
    if (arg != output &&
        isa<tile::GlobalTensorType>(kernel.getArgumentTypes()[arg])) {
      accumulatorError(store, sliceRule);
      return failure();
    }
  SmallVector<unsigned> order(args.begin(), args.end());
  llvm::sort(order);
  SmallVector<Type> types;
  for (unsigned arg : order)
    types.push_back(kernel.getArgumentTypes()[arg]);
  auto init = tile::KernelOp::create(builder, kernel.getLoc(), name,
                                     builder.getFunctionType(types, {}));
  for (NamedAttribute attr : kernel->getAttrs()) {
    StringRef key = attr.getName().getValue();
    if (key == "autotune" || key == "variant" || key == "max_threads" ||
        key == "min_blocks" || key == "max_regs")
      init->setAttr(attr.getName(), attr.getValue());
  }
  // @aligned promises about the dims the init leaf still has.
  if (DictionaryAttr aligned = kernel.getAlignedAttr()) {
    SmallVector<NamedAttribute> kept;
    SmallVector<StringRef> outputDims = kernel.getArgDimNames(output);
    for (NamedAttribute promise : aligned)
      if (llvm::is_contained(outputDims, promise.getName().getValue()))
        kept.push_back(promise);
    if (!kept.empty())
      init.setAlignedAttr(builder.getDictionaryAttr(kept));
  }
  Block *entry = new Block();
  init.getBody().push_back(entry);
  IRMapping mapping;
  for (auto [index, arg] : llvm::enumerate(order)) {
    BlockArgument original = kernel.getArgument(arg);
    mapping.map(original, entry->addArgument(original.getType(),
                                             original.getLoc()));
    if (DictionaryAttr attrs = kernel.getArgAttrDict(arg))
      init.setArgAttrs(index, attrs);
  }
  OpBuilder body = OpBuilder::atBlockEnd(entry);
  for (Operation &op : kernel.getBody().front())
    if (slice.contains(&op))
      body.clone(op, mapping);
  Value seed;
  if (acc.betaTerm) {
    body.clone(*acc.cOld, mapping);
    seed = body.clone(*acc.betaTerm, mapping)->getResult(0);
  } else {
    auto type = cast<tile::TileType>(store.getValue().getType());
    Value zero = arith::ConstantOp::create(
        body, store.getLoc(), body.getZeroAttr(type.getElementType()));
    seed = tile::FillOp::create(body, store.getLoc(), type, zero);
  }
  Operation *newStore = body.clone(*store, mapping);
  newStore->setOperand(0, seed);
  tile::ReturnOp::create(body, kernel.getLoc());
  stripClusterMarks(init);
  return init;
}

void Splitter::buildStepLeaf(tile::KernelOp step) {
  tile::StoreOp store;
  step.walk([&](tile::StoreOp op) { store = op; });
  OpBuilder builder(store);
  if (!acc.betaTerm) {
    // C[..] = acc becomes C[..] = acc + C[..]: the init leaf zeroed it.
    auto old = tile::LoadOp::create(
        builder, store.getLoc(), store.getValue().getType(), store.getTensor(),
        store.getOffsets(), store.getPointAxesAttr(), store.getInBoundsAttr());
    Value sum = tile::AddOp::create(builder, store.getLoc(), store.getValue(),
                                    old.getResult());
    store.getValueMutable().assign(sum);
    return;
  }
  // alpha * acc + beta * c_old becomes alpha * acc + c_old: the init leaf
  // applied beta once.
  auto add = cast<tile::AddOp>(store.getValue().getDefiningOp());
  for (OpOperand &operand : add->getOpOperands()) {
    auto mul = operand.get().getDefiningOp<tile::MulOp>();
    if (!mul)
      continue;
    Value lhs = mul.getLhs(), rhs = mul.getRhs();
    for (Value factor : {lhs, rhs})
      if (factor.getDefiningOp<tile::LoadOp>() &&
          !isa<tile::TileType>((factor == lhs ? rhs : lhs).getType())) {
        operand.set(factor);
        mul.erase();
        return;
      }
  }
}

FailureOr<unsigned> Splitter::build() {
  OpBuilder builder(kernel);
  MLIRContext *ctx = kernel.getContext();
  auto program = ProgramOp::create(builder, kernel.getLoc(), kernel.getName(),
                                   kernel.getClusterAttr(), DictionaryAttr(),
                                   DictionaryAttr(), IntegerAttr());
  Block *body = new Block();
  program.getBody().push_back(body);
  builder.setInsertionPointToEnd(body);

  // Which tensor argument is cut by the cluster loop, and the access of
  // each in a unit of work.
  SmallVector<unsigned> tensorArgs, scalarArgs;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes()))
    (isa<tile::GlobalTensorType>(type) ? tensorArgs : scalarArgs)
        .push_back(index);
  unsigned output = acc.store
                        ? cast<BlockArgument>(acc.store.getTensor())
                              .getArgNumber()
                        : ~0u;
  auto accessOf = [&](unsigned arg) {
    auto found = effects.find(arg);
    auto [read, written] = found == effects.end()
                               ? std::pair<bool, bool>(false, false)
                               : found->second;
    if (arg == output) // init then steps
      return acc.betaTerm ? AccessMode::rmw : AccessMode::write;
    if (written)
      return read ? AccessMode::rmw : AccessMode::write;
    return AccessMode::read;
  };
  DenseMap<unsigned, bool> inLoop;
  for (unsigned arg : tensorArgs) {
    auto type = cast<tile::GlobalTensorType>(kernel.getArgumentTypes()[arg]);
    SmallVector<StringRef> dimNames, split;
    bool loopCut = false;
    for (int64_t axis = 0; axis < type.getRank(); ++axis) {
      dimNames.push_back(dims[arg][axis]);
      auto it = dimSplits.find(dims[arg][axis]);
      bool cut = it != dimSplits.end() && ShapedType::isDynamic(type.getDimSize(axis));
      split.push_back(cut ? StringRef(it->second.split) : StringRef());
      loopCut |= cut && it->second.kind == AxisKind::Loop;
    }
    inLoop[arg] = loopCut;
    TensorOp::create(builder, kernel.getLoc(), argName(arg), accessOf(arg),
                     builder.getStrArrayAttr(dimNames),
                     builder.getStrArrayAttr(split), DenseI64ArrayAttr(),
                     StringAttr(), type);
  }
  for (unsigned arg : scalarArgs)
    ScalarOp::create(builder, kernel.getLoc(), argName(arg),
                     kernel.getArgumentTypes()[arg], TypedAttr());

  SmallVector<StringRef> gridDims, gridSplit;
  for (unsigned axis = 0; axis < numGridAxes; ++axis) {
    gridDims.push_back(grid[axis].dim);
    gridSplit.push_back(grid[axis].split);
  }
  auto units = UnitsOp::create(builder, kernel.getLoc(), gridDims, gridSplit);

  // The leaves.
  OpBuilder leafBuilder = OpBuilder::atBlockEnd(body);
  std::string stepName, initName;
  unsigned leaves = 0;
  tile::KernelOp init;
  if (clusterLoop) {
    initName = uniqueLeafName((kernel.getName() + "_init").str());
    stepName = uniqueLeafName((kernel.getName() + "_step").str());
    FailureOr<tile::KernelOp> made = buildInitLeaf(leafBuilder, initName);
    if (failed(made)) {
      program.erase();
      return failure();
    }
    init = *made;
    ++leaves;
  } else {
    stepName = uniqueLeafName(kernel.getName());
  }
  auto step = cast<tile::KernelOp>(leafBuilder.clone(*kernel));
  step.setSymName(stepName);
  stripClusterMarks(step);
  if (clusterLoop)
    buildStepLeaf(step);
  ++leaves;

  // The units of work.
  OpBuilder unitBuilder = OpBuilder::atBlockEnd(&units.getBodyBlock());
  auto refFor = [&](OpBuilder &b, unsigned arg, Value loopIv) {
    auto type = cast<tile::GlobalTensorType>(kernel.getArgumentTypes()[arg]);
    SmallVector<Value> coords;
    for (int64_t axis = 0; axis < type.getRank(); ++axis) {
      auto it = dimSplits.find(dims[arg][axis]);
      if (it == dimSplits.end() || !ShapedType::isDynamic(type.getDimSize(axis)))
        continue;
      coords.push_back(it->second.kind == AxisKind::Loop
                           ? loopIv
                           : units.getBodyBlock().getArgument(
                                 it->second.gridAxis));
    }
    return RefOp::create(b, kernel.getLoc(), SuperTileType::get(ctx),
                         accessOf(arg),
                         argName(arg), coords)
        .getResult();
  };
  DenseMap<unsigned, Value> refs;
  for (unsigned arg : tensorArgs)
    if (!inLoop[arg])
      refs[arg] = refFor(unitBuilder, arg, nullptr);
  auto scalarsFor = [&](tile::KernelOp leaf) -> ArrayAttr {
    SmallVector<Attribute> list;
    for (unsigned i = 0; i < leaf.getNumArguments(); ++i)
      if (!isa<tile::GlobalTensorType>(leaf.getArgumentTypes()[i]))
        list.push_back(FlatSymbolRefAttr::get(ctx, leaf.getArgName(i)));
    return list.empty() ? nullptr : ArrayAttr::get(ctx, list);
  };
  OpBuilder applyBuilder = unitBuilder;
  Value loopIv;
  if (clusterLoop) {
    ApplyOp::create(unitBuilder, kernel.getLoc(), initName,
                    ValueRange{refs[output]}, scalarsFor(init));
    auto loop = LoopOp::create(unitBuilder, clusterLoop.getLoc(),
                               clusterLoopDim, clusterLoopSplit);
    applyBuilder = OpBuilder::atBlockEnd(&loop.getBodyBlock());
    loopIv = loop.getInductionVar();
    for (unsigned arg : tensorArgs)
      if (inLoop[arg])
        refs[arg] = refFor(applyBuilder, arg, loopIv);
  }
  SmallVector<Value> operands;
  for (unsigned arg : tensorArgs)
    operands.push_back(refs[arg]);
  ApplyOp::create(applyBuilder, kernel.getLoc(), stepName, operands,
                  scalarsFor(step));
  return leaves;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ClusterSplit : phobos::cluster::impl::ClusterSplitBase<ClusterSplit> {
  using ClusterSplitBase::ClusterSplitBase;

  void runOnOperation() override {
    SmallVector<tile::KernelOp> kernels;
    for (auto kernel : getOperation().getOps<tile::KernelOp>())
      if (kernel.getClusterAttr())
        kernels.push_back(kernel);
    for (tile::KernelOp kernel : kernels) {
      Splitter splitter(kernel);
      if (failed(splitter.analyze()))
        return signalPassFailure();
      FailureOr<unsigned> leaves = splitter.build();
      if (failed(leaves))
        return signalPassFailure();
      kernel.erase();
      ++numPrograms;
      numLeaves += *leaves;
    }
  }
};

} // namespace
