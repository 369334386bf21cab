//===- LeafFlops.cpp - The floating-point work of a cluster leaf ---------===//
//
// estimateLeafFlops: a leaf's floating-point work with its tensor shapes
// bound, what the planner's cost model charges a node for each call of a
// leaf. Loops count their trips where the bounds evaluate, a branch its
// costlier side, a dot 2*M*N*K, element-wise ops and reductions their
// elements; an add that a dot's accumulator absorbs counts nothing.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/Transforms/Planning.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <optional>

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;

namespace {
/// Counts a leaf's floating-point work with its tensor shapes bound.
class FlopCounter {
public:
  FlopCounter(tile::KernelOp leaf, ArrayRef<SmallVector<int64_t>> shapes)
      : leaf(leaf) {
    unsigned next = 0;
    for (auto [index, type] : llvm::enumerate(leaf.getArgumentTypes()))
      if (isa<tile::GlobalTensorType>(type) && next < shapes.size())
        tensorShapes[index] = shapes[next++];
  }

  double count(Block &block) {
    double total = 0;
    for (Operation &op : block)
      total += count(op);
    return total;
  }

private:
  std::optional<int64_t> evaluate(Value value, unsigned depth = 0) {
    if (depth > 16)
      return std::nullopt;
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        return integer.getInt();
    if (auto dim = value.getDefiningOp<tile::DimOp>()) {
      auto arg = dyn_cast<BlockArgument>(dim.getTensor());
      if (!arg)
        return std::nullopt;
      auto it = tensorShapes.find(arg.getArgNumber());
      if (it == tensorShapes.end() || dim.getIndex() >= it->second.size())
        return std::nullopt;
      return it->second[dim.getIndex()];
    }
    Operation *def = value.getDefiningOp();
    if (def && isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(def))
      return evaluate(def->getOperand(0), depth + 1);
    if (def && isa<arith::AddIOp, arith::SubIOp, arith::MulIOp,
                   arith::DivSIOp>(def)) {
      std::optional<int64_t> lhs = evaluate(def->getOperand(0), depth + 1);
      std::optional<int64_t> rhs = evaluate(def->getOperand(1), depth + 1);
      if (!lhs || !rhs)
        return std::nullopt;
      if (isa<arith::AddIOp>(def))
        return *lhs + *rhs;
      if (isa<arith::SubIOp>(def))
        return *lhs - *rhs;
      if (isa<arith::MulIOp>(def))
        return *lhs * *rhs;
      return *rhs ? std::optional<int64_t>(*lhs / *rhs) : std::nullopt;
    }
    return std::nullopt;
  }

  static double elements(Type type) {
    auto tileType = dyn_cast<tile::TileType>(type);
    if (!tileType)
      return 0;
    double count = 1;
    for (int64_t extent : tileType.getShape())
      count *= static_cast<double>(extent);
    return count;
  }

  double count(Operation &op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      std::optional<int64_t> lb = evaluate(loop.getLowerBound());
      std::optional<int64_t> ub = evaluate(loop.getUpperBound());
      std::optional<int64_t> step = evaluate(loop.getStep());
      double trips = 1;
      if (lb && ub && step && *step > 0)
        trips = *ub > *lb ? static_cast<double>((*ub - *lb + *step - 1) / *step)
                          : 0;
      return trips * count(*loop.getBody());
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      double thenFlops = count(branch.getThenRegion().front());
      double elseFlops = branch.getElseRegion().empty()
                             ? 0
                             : count(branch.getElseRegion().front());
      return std::max(thenFlops, elseFlops);
    }
    if (op.getNumRegions()) {
      double total = 0;
      for (Region &region : op.getRegions())
        for (Block &block : region)
          total += count(block);
      return total;
    }
    if (auto dot = dyn_cast<tile::DotOp>(op)) {
      auto a = cast<tile::TileType>(dot.getA().getType());
      double k = static_cast<double>(a.getShape().back());
      return 2 * elements(dot.getType()) * k;
    }
    if (isa<tile::ReduceOp, tile::CumsumOp>(op))
      return elements(op.getOperand(0).getType());
    // acc + dot(a, b) folds into the dot's accumulator on the GPU.
    if (auto add = dyn_cast<tile::AddOp>(op))
      for (Value operand : add->getOperands())
        if (operand.getDefiningOp<tile::DotOp>() && operand.hasOneUse())
          return 0;
    if (isa<tile::AddOp, tile::SubOp, tile::MulOp, tile::DivOp, tile::RemOp,
            tile::MaxOp, tile::MinOp, tile::NegOp, tile::AbsOp, tile::ExpOp,
            tile::Exp2Op, tile::LogOp, tile::Log2Op, tile::SqrtOp, tile::RsqrtOp, tile::TanhOp, tile::CmpOp,
            tile::SelectOp>(op))
      return elements(op.getResult(0).getType());
    return 0;
  }

  tile::KernelOp leaf;
  llvm::DenseMap<unsigned, SmallVector<int64_t>> tensorShapes;
};
} // namespace

double phobos::cluster::estimateLeafFlops(tile::KernelOp leaf,
                                          ArrayRef<SmallVector<int64_t>> shapes,
                                          int64_t ctas) {
  FlopCounter counter(leaf, shapes);
  return static_cast<double>(ctas) * counter.count(leaf.getBody().front());
}
