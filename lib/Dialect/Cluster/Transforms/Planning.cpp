//===- Planning.cpp - Per-node programs of a cluster program --------------===//
//
// Binds dims and @cluster sizes, unrolls the units of work, places each on
// the node that owns its output super-tile, and writes every node's
// instructions with their dependencies and frees after last use; the cost
// model plans every combination of @cluster sizes and ranks them. A leaf's
// FLOPs are LeafFlops.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/Transforms/Planning.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;

/// The most super-tiles (all tensors together) and units of work one plan
/// unrolls: each is a few hundred bytes of planner state, and a job of 2^40
/// rows would otherwise allocate until the process is killed.
static constexpr int64_t kMaxSuperTiles = int64_t(1) << 20;
static constexpr int64_t kMaxUnits = int64_t(1) << 20;

std::string phobos::cluster::formatBytes(int64_t bytes, bool exact) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (unit == 0)
    os << bytes << " bytes";
  else
    os << llvm::format("%.1f", value) << " " << units[unit];
  if (unit && exact)
    os << " (" << bytes << " bytes)";
  return text;
}

std::string phobos::cluster::parseNameValues(ArrayRef<std::string> items,
                                             llvm::StringMap<int64_t> &values,
                                             StringRef what) {
  for (StringRef item : items) {
    auto [name, value] = item.split('=');
    name = name.trim();
    value = value.trim();
    int64_t number = 0;
    if (name.empty() || value.empty() || value.getAsInteger(10, number))
      return (what + ": expected NAME=VALUE with an integer VALUE, got '" +
              item + "'")
          .str();
    if (number <= 0)
      return (what + ": '" + name + "' must be positive, got " + value).str();
    if (!values.try_emplace(name, number).second)
      return (what + ": '" + name + "' is given twice").str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Leaf grids
//===----------------------------------------------------------------------===//

/// The first @autotune value of `name` in the leaf's variant.
static std::optional<int64_t> leafValue(tile::KernelOp leaf, StringRef name) {
  if (DictionaryAttr variant = leaf.getVariantAttr())
    if (auto value = variant.getAs<IntegerAttr>(name))
      return value.getInt();
  return std::nullopt;
}

/// The leaf's grid over one super-tile when the @cluster names have the
/// sizes `sizeOf` gives.
static SmallVector<int64_t, 3>
leafGridFor(ProgramOp program, tile::KernelOp leaf,
            llvm::function_ref<std::optional<int64_t>(StringRef)> sizeOf) {
  SmallVector<int64_t, 3> grid = {1, 1, 1};
  UnitsOp units = program.getUnits();
  if (!units)
    return grid;
  for (unsigned axis = 0; axis < units.getNumAxes() && axis < 3; ++axis) {
    StringRef split = cast<StringAttr>(units.getSplit()[axis]).getValue();
    std::optional<int64_t> size = sizeOf(split);
    std::optional<int64_t> cta = leafValue(leaf, split);
    if (size && cta && *cta > 0)
      grid[axis] = (*size + *cta - 1) / *cta;
  }
  return grid;
}

SmallVector<int64_t, 3> phobos::cluster::leafGrid(ProgramOp program,
                                                  tile::KernelOp leaf) {
  return leafGridFor(program, leaf, [&](StringRef name) {
    return program.getBinding(name);
  });
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {

struct TensorPlan {
  TensorOp op;
  SmallVector<int64_t> shape, superShape;
  /// Super-tiles along each split axis, in axis order.
  SmallVector<int64_t> grid;
  int64_t tileBytes = 0;
  unsigned firstTile = 0;
};

struct TileRef {
  unsigned tile;
  AccessMode access;
};

struct Call {
  tile::KernelOp leaf;
  SmallVector<TileRef> tiles;
  ArrayAttr scalars;
};

struct Unit {
  std::vector<Call> calls;
  SmallVector<TileRef> refs;
  unsigned node = 0;
};

struct Instr {
  enum Kind { Allocate, Load, Fetch, Compute, Store, Free };
  Kind kind = Allocate;
  unsigned buffer = 0;
  SmallVector<unsigned> buffers;
  tile::KernelOp leaf;
  ArrayAttr scalars;
  int64_t source = 0;
  bool zero = false;
  int64_t serves = 0;
  llvm::SmallSetVector<unsigned, 4> deps;
};

/// An instruction of the given kind with nothing else set.
static Instr makeInstr(Instr::Kind kind) {
  Instr instr;
  instr.kind = kind;
  return instr;
}

struct Buffer {
  unsigned tile = 0;
  int lastWriter = -1;
  SmallVector<unsigned> readers;
  unsigned free = 0;
};

struct NodeProgram {
  std::vector<Instr> instrs;
  std::vector<Buffer> buffers;
  llvm::DenseMap<unsigned, unsigned> bufferOfTile;
  std::vector<unsigned> order;
  NodeCost cost;
};

class Planner {
public:
  Planner(ProgramOp program, const PlanOptions &options)
      : program(program), options(options) {}

  LogicalResult prepare();
  /// The combinations to consider: explicit sizes, first values, or with
  /// autotune every combination of the @cluster space.
  std::vector<llvm::StringMap<int64_t>> combinations();
  /// Plans one combination; on failure `reason` says why.
  bool plan(const llvm::StringMap<int64_t> &sizes, std::string &reason);
  Candidate describe(const llvm::StringMap<int64_t> &sizes);
  void emit(const llvm::StringMap<int64_t> &sizes);

private:
  int64_t dimValue(StringRef name) { return dims.lookup(name); }
  unsigned tileId(unsigned tensor, ArrayRef<int64_t> coords);
  void generate(unsigned node, ArrayRef<unsigned> unitIds);

  // The steps of plan(); each that can fail says why on `why`.
  /// Splits every tensor into super-tiles of the @cluster sizes, which the
  /// leaves' tiles must divide.
  bool splitTensors(const llvm::StringMap<int64_t> &sizes,
                    llvm::raw_ostream &why);
  /// The units of work, row-major over the units' grid: the super-tiles
  /// each refers to, its leaf calls, and its node (the owner of its output).
  bool enumerateUnits(const llvm::StringMap<int64_t> &sizes,
                      llvm::raw_ostream &why);
  /// Keeps the units that write the wanted outputs, or those a resumed job
  /// has not stored yet, dealt to the nodes anew; when autotuning, fails
  /// where fewer units than nodes are left.
  bool selectUnits(llvm::raw_ostream &why);
  /// Each node's instructions; the holders of stored tiles, and what they
  /// serve.
  void generateNodes();
  /// Each node's peak memory and the cost model's times; fails past the
  /// VRAM.
  bool costNodes(llvm::raw_ostream &why);

  ProgramOp program;
  const PlanOptions &options;
  llvm::StringMap<int64_t> dims;
  SmallVector<std::string> clusterNames;
  SmallVector<tile::KernelOp> leaves;
  llvm::DenseMap<Operation *, SmallVector<LeafParamEffect>> effects;

  // One plan.
  std::vector<TensorPlan> tensors;
  llvm::StringMap<unsigned> tensorIndex;
  std::vector<std::pair<unsigned, SmallVector<int64_t>>> tiles;
  std::vector<int> holders;
  std::vector<Unit> units;
  std::vector<NodeProgram> nodes;
  const llvm::StringMap<int64_t> *currentSizes = nullptr;
};

} // namespace

LogicalResult Planner::prepare() {
  if (program.isPlanned())
    return program.emitError("program '")
           << program.getSymName() << "' is already planned";
  if (!program.getUnits())
    return program.emitError("program '")
           << program.getSymName() << "' has no units of work to plan";
  if (options.nodes <= 0)
    return program.emitError("the number of nodes must be positive, got ")
           << options.nodes;
  if (options.vramBytes < 0)
    return program.emitError("the VRAM size must not be negative");
  if (options.autotune && (options.nodeTflops <= 0 || options.linkGbps <= 0))
    return program.emitError(
        "the cost model needs a positive node TFLOP/s and link GB/s");
  if (ArrayAttr space = program.getClusterAttr())
    for (auto dim : space.getAsRange<tile::TuneDimAttr>())
      clusterNames.push_back(dim.getName().getValue().str());

  // Dims: given, fixed by a tensor type, or by a tensor's shape.
  llvm::StringMap<std::string> where;
  std::vector<std::string> order;
  for (TensorOp tensor : program.getBody().front().getOps<TensorOp>()) {
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      StringRef name = cast<StringAttr>(tensor.getDims()[axis]).getValue();
      int64_t fixed = tensor.getTensorType().getDimSize(axis);
      std::optional<int64_t> shaped;
      if (tensor.getShape())
        shaped = (*tensor.getShape())[axis];
      auto given = options.dims.find(name);
      std::optional<int64_t> value;
      if (given != options.dims.end())
        value = given->second;
      for (std::optional<int64_t> other :
           {ShapedType::isDynamic(fixed) ? std::optional<int64_t>()
                                         : std::optional<int64_t>(fixed),
            shaped}) {
        if (!other)
          continue;
        if (value && *value != *other)
          return program.emitError("dim '")
                 << name << "' is " << *value << ", but axis " << axis
                 << " of tensor '" << tensor.getSymName() << "' has extent "
                 << *other;
        value = other;
      }
      auto known = dims.find(name);
      if (known != dims.end() && value && known->second != *value)
        return program.emitError("dim '")
               << name << "' is " << known->second << " for '" << where[name]
               << "' but " << *value << " for '" << tensor.getSymName() << "'";
      if (known == dims.end()) {
        if (!value)
          return program.emitError("dim '")
                 << name << "' of tensor '" << tensor.getSymName()
                 << "' is not bound; give its extent (dims=" << name
                 << "=...)";
        dims[name] = *value;
        where[name] = tensor.getSymName().str();
        order.push_back(name.str());
      }
    }
  }
  for (auto &entry : options.dims)
    if (!dims.count(entry.getKey())) {
      auto diag = program.emitError("'")
                  << entry.getKey() << "' is not a dim of '"
                  << program.getSymName() << "'; its dims are ";
      llvm::interleaveComma(order, diag);
      return diag;
    }

  // Sizes are checked before anything is counted or allocated: a job may
  // name dims of 2^40 or tensors of 2^64 elements.
  for (TensorOp tensor : program.getBody().front().getOps<TensorOp>()) {
    Type element = tensor.getTensorType().getElementType();
    std::optional<int64_t> bytes =
        element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      StringRef name = cast<StringAttr>(tensor.getDims()[axis]).getValue();
      int64_t extent = dims.lookup(name);
      if (extent <= 0)
        return program.emitError("dim '")
               << name << "' must be positive, got " << extent;
      bytes = bytes ? llvm::checkedMul(*bytes, extent) : std::nullopt;
    }
    if (!bytes)
      return program.emitError("tensor '")
             << tensor.getSymName()
             << "' is larger than 2^63 bytes; its dims are too large";
  }

  for (auto &entry : options.cluster) {
    SmallVector<int64_t> values = program.getClusterValues(entry.getKey());
    if (values.empty())
      return program.emitError("'")
             << entry.getKey() << "' is not an @cluster name of '"
             << program.getSymName() << "'";
    if (!llvm::is_contained(values, entry.getValue())) {
      auto diag = program.emitError("")
                  << entry.getKey() << " = " << entry.getValue()
                  << " is not in its @cluster space (";
      llvm::interleaveComma(values, diag);
      return diag << ")";
    }
  }

  for (tile::KernelOp leaf : program.getBody().front().getOps<tile::KernelOp>()) {
    leaves.push_back(leaf);
    effects[leaf] = getLeafEffects(leaf);
  }
  return success();
}

std::vector<llvm::StringMap<int64_t>> Planner::combinations() {
  std::vector<llvm::StringMap<int64_t>> result(1);
  for (const std::string &name : clusterNames) {
    auto given = options.cluster.find(name);
    SmallVector<int64_t> values = program.getClusterValues(name);
    if (given != options.cluster.end())
      values = {given->second};
    else if (!options.autotune)
      values.resize(1);
    std::vector<llvm::StringMap<int64_t>> next;
    for (const auto &prefix : result)
      for (int64_t value : values) {
        llvm::StringMap<int64_t> sizes = prefix;
        sizes[name] = value;
        next.push_back(std::move(sizes));
      }
    result = std::move(next);
  }
  return result;
}

unsigned Planner::tileId(unsigned tensor, ArrayRef<int64_t> coords) {
  const TensorPlan &plan = tensors[tensor];
  int64_t linear = 0;
  for (auto [coord, count] : llvm::zip(coords, plan.grid))
    linear = linear * count + coord;
  return plan.firstTile + static_cast<unsigned>(linear);
}

bool Planner::plan(const llvm::StringMap<int64_t> &sizes, std::string &reason) {
  currentSizes = &sizes;
  tensors.clear();
  tensorIndex.clear();
  tiles.clear();
  units.clear();
  nodes.clear();
  llvm::raw_string_ostream why(reason);
  if (!splitTensors(sizes, why) || !enumerateUnits(sizes, why) ||
      !selectUnits(why))
    return false;
  generateNodes();
  return costNodes(why);
}

bool Planner::splitTensors(const llvm::StringMap<int64_t> &sizes,
                           llvm::raw_ostream &why) {
  // Super-tiles divide the problem; the leaf's tiles divide super-tiles.
  unsigned nextTile = 0;
  for (TensorOp op : program.getBody().front().getOps<TensorOp>()) {
    TensorPlan plan;
    plan.op = op;
    Type element = op.getTensorType().getElementType();
    int64_t elementBytes =
        element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
    int64_t elements = 1;
    for (unsigned axis = 0; axis < op.getRank(); ++axis) {
      StringRef dim = cast<StringAttr>(op.getDims()[axis]).getValue();
      int64_t extent = dimValue(dim);
      plan.shape.push_back(extent);
      StringRef split = op.getSplitName(axis);
      int64_t super = extent;
      if (!split.empty()) {
        super = sizes.lookup(split);
        if (extent % super != 0) {
          why << "dim '" << dim << "' = " << extent
              << " is not a multiple of the super-tile " << split << " = "
              << super << " (axis " << axis << " of '" << op.getSymName()
              << "')";
          return false;
        }
        plan.grid.push_back(extent / super);
      }
      plan.superShape.push_back(super);
      elements *= super;
    }
    plan.tileBytes = elements * elementBytes;
    plan.firstTile = nextTile;
    std::optional<int64_t> checkedCount = 1;
    for (int64_t extent : plan.grid)
      checkedCount = checkedCount ? llvm::checkedMul(*checkedCount, extent)
                                  : std::nullopt;
    if (!checkedCount || *checkedCount > kMaxSuperTiles - int64_t(nextTile)) {
      why << "'" << op.getSymName() << "' would be split into ";
      if (checkedCount)
        why << *checkedCount;
      else
        why << "more than 2^63";
      why << " super-tiles, more than the " << kMaxSuperTiles
          << " a plan holds; choose larger @cluster sizes";
      return false;
    }
    int64_t count = *checkedCount;
    for (int64_t linear = 0; linear < count; ++linear) {
      SmallVector<int64_t> coords(plan.grid.size());
      int64_t rest = linear;
      for (int64_t axis = plan.grid.size() - 1; axis >= 0; --axis) {
        coords[axis] = rest % plan.grid[axis];
        rest /= plan.grid[axis];
      }
      tiles.push_back({static_cast<unsigned>(tensors.size()), coords});
    }
    nextTile += count;
    tensorIndex[op.getSymName()] = tensors.size();
    tensors.push_back(std::move(plan));
  }
  for (const std::string &name : clusterNames) {
    int64_t size = sizes.lookup(name);
    for (tile::KernelOp leaf : leaves) {
      std::optional<int64_t> cta = leafValue(leaf, name);
      if (cta && size % *cta != 0) {
        why << "the super-tile " << name << " = " << size
            << " is not a multiple of the leaf's tile " << name << " = "
            << *cta << " (its first @autotune value), so the leaf's grid "
            << "does not divide the super-tile";
        return false;
      }
    }
  }
  return true;
}

bool Planner::enumerateUnits(const llvm::StringMap<int64_t> &sizes,
                             llvm::raw_ostream &why) {
  // The units, row-major over the grid, and what each does.
  UnitsOp unitsOp = program.getUnits();
  SmallVector<int64_t> extents;
  std::optional<int64_t> checkedTotal = 1;
  for (unsigned axis = 0; axis < unitsOp.getNumAxes(); ++axis) {
    StringRef dim = cast<StringAttr>(unitsOp.getDims()[axis]).getValue();
    StringRef split = cast<StringAttr>(unitsOp.getSplit()[axis]).getValue();
    extents.push_back(dimValue(dim) / std::max<int64_t>(1, sizes.lookup(split)));
    checkedTotal = checkedTotal ? llvm::checkedMul(*checkedTotal, extents.back())
                                : std::nullopt;
  }
  if (!checkedTotal || *checkedTotal > kMaxUnits) {
    why << "the program would have ";
    if (checkedTotal)
      why << *checkedTotal;
    else
      why << "more than 2^63";
    why << " units of work, more than the " << kMaxUnits
        << " a plan holds; choose larger @cluster sizes";
    return false;
  }
  int64_t total = *checkedTotal;
  llvm::DenseMap<unsigned, unsigned> writer;
  for (int64_t linear = 0; linear < total; ++linear) {
    llvm::DenseMap<Value, int64_t> coordOf;
    int64_t rest = linear;
    for (int64_t axis = extents.size() - 1; axis >= 0; --axis) {
      coordOf[unitsOp.getBodyBlock().getArgument(axis)] = rest % extents[axis];
      rest /= extents[axis];
    }
    Unit unit;
    llvm::DenseMap<Value, TileRef> refOf;
    std::function<void(Block &)> walk = [&](Block &block) {
      for (Operation &op : block) {
        if (auto ref = dyn_cast<RefOp>(op)) {
          unsigned tensor = tensorIndex.lookup(ref.getTensor());
          SmallVector<int64_t> coords;
          for (Value coord : ref.getCoords())
            coords.push_back(coordOf.lookup(coord));
          TileRef tileRef{tileId(tensor, coords), ref.getAccess()};
          refOf[ref.getResult()] = tileRef;
          unit.refs.push_back(tileRef);
        } else if (auto apply = dyn_cast<ApplyOp>(op)) {
          Call call;
          call.leaf = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
              apply, apply.getLeafAttr());
          for (Value tile : apply.getTiles())
            call.tiles.push_back(refOf.lookup(tile));
          call.scalars = apply.getScalarsAttr();
          unit.calls.push_back(std::move(call));
        } else if (auto loop = dyn_cast<LoopOp>(op)) {
          int64_t trips = dimValue(loop.getDim()) / sizes.lookup(loop.getSplit());
          for (int64_t chunk = 0; chunk < trips; ++chunk) {
            coordOf[loop.getInductionVar()] = chunk;
            walk(loop.getBodyBlock());
          }
        }
      }
    };
    walk(unitsOp.getBodyBlock());
    // The owner of the output super-tile: round robin by row-major index.
    const TileRef *output = llvm::find_if(unit.refs, [](const TileRef &ref) {
      return writesStorage(ref.access);
    });
    if (output == unit.refs.end()) {
      why << "a unit of work writes no super-tile";
      return false;
    }
    unsigned tensor = tiles[output->tile].first;
    unit.node = (output->tile - tensors[tensor].firstTile) % options.nodes;
    for (const TileRef &ref : unit.refs)
      if (writesStorage(ref.access) &&
          !writer.try_emplace(ref.tile, units.size()).second) {
        why << "two units of work write the same super-tile of '"
            << tensors[tiles[ref.tile].first].op.getSymName() << "'";
        return false;
      }
    units.push_back(std::move(unit));
  }
  return true;
}

/// Keeps the units with an output super-tile that `wanted` accepts, dealt
/// to the nodes anew in order.
static void keepUnitsWriting(std::vector<Unit> &units, int64_t nodes,
                             llvm::function_ref<bool(unsigned)> wanted) {
  std::vector<Unit> kept;
  for (Unit &unit : units)
    if (llvm::any_of(unit.refs, [&](const TileRef &ref) {
          return writesStorage(ref.access) && wanted(ref.tile);
        })) {
      unit.node = kept.size() % nodes;
      kept.push_back(std::move(unit));
    }
  units = std::move(kept);
}

bool Planner::selectUnits(llvm::raw_ostream &why) {
  if (!options.outputs.empty()) {
    // Only the units that write one of the given outputs.
    llvm::DenseSet<int64_t> wanted(options.outputs.begin(),
                                   options.outputs.end());
    keepUnitsWriting(units, options.nodes,
                     [&](unsigned tile) { return wanted.contains(tile); });
    if (units.empty()) {
      why << "no unit of work writes the given outputs";
      return false;
    }
  }
  if (!options.storedOutputs.empty()) {
    // A resumed job: only the units with an output not yet stored.
    llvm::DenseSet<int64_t> stored(options.storedOutputs.begin(),
                                   options.storedOutputs.end());
    keepUnitsWriting(units, options.nodes,
                     [&](unsigned tile) { return !stored.contains(tile); });
  }
  if (static_cast<int64_t>(units.size()) < options.nodes && options.autotune) {
    why << units.size()
        << (units.size() == 1 ? " unit of work leaves " : " units of work leave ")
        << options.nodes - int64_t(units.size()) << " of " << options.nodes
        << " nodes idle";
    return false;
  }
  return true;
}

void Planner::generateNodes() {
  // Holders: the node of the first unit that reads a tile from storage.
  holders.assign(tiles.size(), -1);
  for (const Unit &unit : units)
    for (const TileRef &ref : unit.refs)
      if (ref.access == AccessMode::read && holders[ref.tile] < 0)
        holders[ref.tile] = unit.node;

  nodes.resize(options.nodes);
  for (int64_t node = 0; node < options.nodes; ++node) {
    SmallVector<unsigned> mine;
    for (auto [index, unit] : llvm::enumerate(units))
      if (unit.node == node)
        mine.push_back(index);
    generate(node, mine);
  }

  // Serves: a holder frees a tile once every fetch of it has been served.
  for (NodeProgram &reader : nodes)
    for (const Instr &instr : reader.instrs)
      if (instr.kind == Instr::Fetch) {
        unsigned tile = reader.buffers[instr.buffer].tile;
        NodeProgram &holder = nodes[instr.source];
        Buffer &buffer = holder.buffers[holder.bufferOfTile.lookup(tile)];
        holder.instrs[buffer.free].serves++;
        holder.cost.outBytes += tensors[tiles[tile].first].tileBytes;
      }
}

bool Planner::costNodes(llvm::raw_ostream &why) {
  // Memory and the cost model.
  for (NodeProgram &node : nodes) {
    int64_t live = 0;
    for (unsigned index : node.order) {
      const Instr &instr = node.instrs[index];
      int64_t bytes =
          instr.kind == Instr::Compute
              ? 0
              : tensors[tiles[node.buffers[instr.buffer].tile].first].tileBytes;
      if (instr.kind == Instr::Allocate)
        live += bytes;
      if (instr.kind == Instr::Free)
        live -= bytes;
      if (instr.kind == Instr::Load || instr.kind == Instr::Fetch)
        node.cost.inBytes += bytes;
      if (instr.kind == Instr::Store)
        node.cost.outBytes += bytes;
      node.cost.peakBytes = std::max(node.cost.peakBytes, live);
    }
    node.cost.computeSeconds = node.cost.flops / (options.nodeTflops * 1e12);
    node.cost.transferSeconds =
        static_cast<double>(std::max(node.cost.inBytes, node.cost.outBytes)) /
        (options.linkGbps * 1e9);
  }
  if (options.vramBytes > 0)
    for (auto [index, node] : llvm::enumerate(nodes))
      if (node.cost.peakBytes > options.vramBytes) {
        why << "node " << index << " needs " << formatBytes(node.cost.peakBytes)
            << " at its peak, more than the " << formatBytes(options.vramBytes)
            << " of VRAM";
        return false;
      }
  return true;
}

void Planner::generate(unsigned node, ArrayRef<unsigned> unitIds) {
  NodeProgram &out = nodes[node];
  std::vector<Instr> &instrs = out.instrs;
  auto add = [&](Instr instr) {
    instrs.push_back(std::move(instr));
    return static_cast<unsigned>(instrs.size() - 1);
  };
  // Makes the tile resident: allocate, then load or fetch it if the unit
  // reads its stored value.
  auto resident = [&](const TileRef &ref) {
    auto [it, inserted] = out.bufferOfTile.try_emplace(ref.tile, 0);
    if (!inserted)
      return it->second;
    unsigned index = out.buffers.size();
    it->second = index;
    out.buffers.emplace_back();
    out.buffers.back().tile = ref.tile;
    const TensorPlan &tensor = tensors[tiles[ref.tile].first];
    TensorOp tensorOp = tensor.op;
    AccessMode mode = tensorOp.getMode();
    Instr alloc = makeInstr(Instr::Allocate);
    alloc.buffer = index;
    alloc.zero = ref.access == AccessMode::rmw && mode == AccessMode::write;
    unsigned allocIndex = add(std::move(alloc));
    out.buffers[index].lastWriter = allocIndex;
    bool load = ref.access == AccessMode::rmw && mode == AccessMode::rmw;
    if (ref.access == AccessMode::read) {
      int holder = holders[ref.tile];
      if (options.ingest == Ingest::Direct || holder == int(node)) {
        load = true;
      } else {
        Instr fetch = makeInstr(Instr::Fetch);
        fetch.buffer = index;
        fetch.source = holder;
        fetch.deps.insert(allocIndex);
        out.buffers[index].lastWriter = add(std::move(fetch));
      }
    }
    if (load) {
      Instr instr = makeInstr(Instr::Load);
      instr.buffer = index;
      instr.deps.insert(allocIndex);
      out.buffers[index].lastWriter = add(std::move(instr));
    }
    return index;
  };

  llvm::DenseMap<Operation *, double> flopsOfLeaf;
  for (unsigned unitId : unitIds) {
    const Unit &unit = units[unitId];
    out.cost.units++;
    for (const Call &call : unit.calls) {
      SmallVector<unsigned> buffers;
      for (const TileRef &ref : call.tiles)
        buffers.push_back(resident(ref));
      ArrayRef<LeafParamEffect> leafEffects = effects[call.leaf];
      Instr compute = makeInstr(Instr::Compute);
      compute.leaf = call.leaf;
      compute.scalars = call.scalars;
      compute.buffers = buffers;
      for (auto [buffer, effect] : llvm::zip(buffers, leafEffects)) {
        Buffer &state = out.buffers[buffer];
        compute.deps.insert(state.lastWriter);
        if (effect.written)
          compute.deps.insert(state.readers.begin(), state.readers.end());
      }
      unsigned index = add(std::move(compute));
      for (auto [buffer, effect] : llvm::zip(buffers, leafEffects)) {
        Buffer &state = out.buffers[buffer];
        if (effect.written) {
          state.lastWriter = index;
          state.readers.clear();
        } else {
          state.readers.push_back(index);
        }
      }
      // FLOPs: every super-tile of a tensor has one shape in a plan.
      auto [it, inserted] = flopsOfLeaf.try_emplace(call.leaf, 0.0);
      if (inserted) {
        SmallVector<SmallVector<int64_t>> shapes;
        for (const TileRef &ref : call.tiles)
          shapes.push_back(tensors[tiles[ref.tile].first].superShape);
        int64_t ctas = 1;
        for (int64_t extent :
             leafGridFor(program, call.leaf,
                         [&](StringRef name) -> std::optional<int64_t> {
                           return currentSizes->lookup(name);
                         }))
          ctas *= extent;
        it->second = estimateLeafFlops(call.leaf, shapes, ctas);
      }
      out.cost.flops += it->second;
      out.cost.computes++;
    }
    for (const TileRef &ref : unit.refs) {
      if (!writesStorage(ref.access))
        continue;
      Buffer &state = out.buffers[out.bufferOfTile.lookup(ref.tile)];
      Instr store = makeInstr(Instr::Store);
      store.buffer = out.bufferOfTile.lookup(ref.tile);
      store.deps.insert(state.lastWriter);
      state.readers.push_back(add(std::move(store)));
    }
  }
  // Frees after each buffer's last use, in program order.
  std::vector<SmallVector<unsigned>> freesAfter(instrs.size());
  for (auto [index, buffer] : llvm::enumerate(out.buffers)) {
    // After the last write and every read since (the readers depend on
    // the write already).
    Instr free = makeInstr(Instr::Free);
    free.buffer = index;
    if (buffer.readers.empty())
      free.deps.insert(buffer.lastWriter);
    free.deps.insert(buffer.readers.begin(), buffer.readers.end());
    unsigned last = *std::max_element(free.deps.begin(), free.deps.end());
    buffer.free = add(std::move(free));
    freesAfter[last].push_back(buffer.free);
  }
  for (unsigned index = 0; index < freesAfter.size(); ++index) {
    out.order.push_back(index);
    for (unsigned free : freesAfter[index])
      out.order.push_back(free);
  }
}

Candidate Planner::describe(const llvm::StringMap<int64_t> &sizes) {
  Candidate candidate;
  for (const std::string &name : clusterNames)
    candidate.sizes.emplace_back(name, sizes.lookup(name));
  candidate.units = units.size();
  for (NodeProgram &node : nodes)
    candidate.nodes.push_back(node.cost);
  for (auto [index, cost] : llvm::enumerate(candidate.nodes))
    if (cost.seconds() > candidate.seconds) {
      candidate.seconds = cost.seconds();
      candidate.busiest = index;
    }
  return candidate;
}

void Planner::emit(const llvm::StringMap<int64_t> &sizes) {
  MLIRContext *ctx = program.getContext();
  OpBuilder builder(ctx);
  Location loc = program.getLoc();
  SmallVector<NamedAttribute> bindings, dimAttrs;
  for (const std::string &name : clusterNames)
    bindings.push_back(
        builder.getNamedAttr(name, builder.getI64IntegerAttr(sizes.lookup(name))));
  for (auto &entry : dims)
    dimAttrs.push_back(builder.getNamedAttr(
        entry.getKey(), builder.getI64IntegerAttr(entry.getValue())));
  program.setBindingsAttr(builder.getDictionaryAttr(bindings));
  program.setDimsAttr(builder.getDictionaryAttr(dimAttrs));
  program.setNodesAttr(builder.getI64IntegerAttr(options.nodes));
  for (TensorPlan &tensor : tensors)
    tensor.op.setShapeAttr(builder.getDenseI64ArrayAttr(tensor.shape));

  auto tokenType = TokenType::get(ctx);
  builder.setInsertionPointToEnd(&program.getBody().front());
  for (auto [index, node] : llvm::enumerate(nodes)) {
    auto nodeOp = NodeOp::create(builder, loc, builder.getI64IntegerAttr(index),
                                 builder.getI64IntegerAttr(node.cost.peakBytes));
    Block *body = new Block();
    nodeOp.getBody().push_back(body);
    OpBuilder b = OpBuilder::atBlockEnd(body);
    std::vector<Value> tokens(node.instrs.size());
    std::vector<Value> buffers(node.buffers.size());
    for (unsigned id : node.order) {
      const Instr &instr = node.instrs[id];
      SmallVector<Value> deps;
      for (unsigned dep : instr.deps)
        deps.push_back(tokens[dep]);
      Value buffer = instr.kind == Instr::Compute ? Value() : buffers[instr.buffer];
      switch (instr.kind) {
      case Instr::Allocate: {
        auto [tensor, coords] = tiles[node.buffers[instr.buffer].tile];
        const TensorPlan &plan = tensors[tensor];
        TensorOp tensorOp = plan.op;
        auto type = BufferType::get(ctx, plan.superShape,
                                    tensorOp.getTensorType().getElementType());
        auto alloc = AllocateOp::create(
            b, loc, type, tokenType,
            FlatSymbolRefAttr::get(tensorOp.getSymNameAttr()),
            b.getDenseI64ArrayAttr(coords),
            instr.zero ? b.getUnitAttr() : UnitAttr(), deps);
        buffers[instr.buffer] = alloc.getBuffer();
        tokens[id] = alloc.getToken();
        break;
      }
      case Instr::Load:
        tokens[id] = LoadOp::create(b, loc, tokenType, buffer, deps).getToken();
        break;
      case Instr::Fetch:
        tokens[id] = FetchOp::create(b, loc, tokenType, buffer,
                                     b.getI64IntegerAttr(instr.source), deps)
                         .getToken();
        break;
      case Instr::Compute: {
        SmallVector<Value> operands;
        for (unsigned index : instr.buffers)
          operands.push_back(buffers[index]);
        tile::KernelOp leaf = instr.leaf;
        tokens[id] = ComputeOp::create(
            b, loc, tokenType, FlatSymbolRefAttr::get(leaf.getSymNameAttr()),
            operands, instr.scalars, deps)
                         .getToken();
        break;
      }
      case Instr::Store:
        tokens[id] = StoreOp::create(b, loc, tokenType, buffer, deps).getToken();
        break;
      case Instr::Free:
        tokens[id] = FreeOp::create(
            b, loc, tokenType, buffer,
            instr.serves ? b.getI64IntegerAttr(instr.serves) : IntegerAttr(),
            deps)
                         .getToken();
        break;
      }
    }
  }
}

LogicalResult phobos::cluster::planProgram(ProgramOp program,
                                           const PlanOptions &options,
                                           std::vector<Candidate> *ranking) {
  Planner planner(program, options);
  if (failed(planner.prepare()))
    return failure();
  std::vector<llvm::StringMap<int64_t>> combinations = planner.combinations();
  std::vector<Candidate> ranked, dropped;
  std::vector<int64_t> peaks;
  for (const llvm::StringMap<int64_t> &sizes : combinations) {
    std::string reason;
    bool ok = planner.plan(sizes, reason);
    Candidate candidate = planner.describe(sizes);
    if (!ok) {
      candidate.dropped = reason;
      dropped.push_back(std::move(candidate));
      continue;
    }
    int64_t peak = 0;
    for (const NodeCost &node : candidate.nodes)
      peak = std::max(peak, node.peakBytes);
    peaks.push_back(peak);
    ranked.push_back(std::move(candidate));
  }
  // Fastest first, then the smallest peak; ties keep the order of the
  // @cluster space.
  SmallVector<unsigned> byTime = llvm::to_vector(
      llvm::seq<unsigned>(0, static_cast<unsigned>(ranked.size())));
  llvm::sort(byTime, [&](unsigned a, unsigned b) {
    // Times equal to the nanosecond tie (the sums differ in rounding).
    auto key = [&](unsigned i) {
      return std::make_tuple(std::llround(ranked[i].seconds * 1e9), peaks[i],
                             i);
    };
    return key(a) < key(b);
  });
  std::vector<Candidate> sorted;
  for (unsigned index : byTime)
    sorted.push_back(ranked[index]);
  ranked = std::move(sorted);
  if (ranking) {
    *ranking = ranked;
    ranking->insert(ranking->end(), dropped.begin(), dropped.end());
  }
  if (ranked.empty()) {
    if (combinations.size() == 1)
      return program.emitError("cannot plan '")
             << program.getSymName() << "': " << dropped.front().dropped;
    auto diag = program.emitError("cannot plan '")
                << program.getSymName() << "': none of the "
                << combinations.size()
                << " combinations of @cluster sizes fits";
    for (const Candidate &candidate : dropped) {
      std::string sizes;
      for (auto &[name, value] : candidate.sizes)
        sizes += (sizes.empty() ? "" : ", ") + name + "=" + std::to_string(value);
      diag.attachNote() << sizes << ": " << candidate.dropped;
    }
    return diag;
  }
  llvm::StringMap<int64_t> best;
  for (auto &[name, value] : ranked.front().sizes)
    best[name] = value;
  std::string reason;
  planner.plan(best, reason);
  Candidate chosen = planner.describe(best);
  if (chosen.units < options.nodes && options.outputs.empty() &&
      options.storedOutputs.empty())
    program.emitWarning("")
        << chosen.units
        << (chosen.units == 1 ? " unit of work leaves " : " units of work leave ")
        << options.nodes - chosen.units << " of " << options.nodes
        << " nodes idle";
  planner.emit(best);
  return success();
}
