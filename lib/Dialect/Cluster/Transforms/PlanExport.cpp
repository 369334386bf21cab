//===- PlanExport.cpp - A planned program as text and JSON ----------------===//
//
// What phobos-sched prints and what the runtime reads: every node's
// instructions with deterministic ids, kinds, super-tiles, byte sizes and
// dependencies, read back from the per-node programs in the IR.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/Transforms/Planning.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;
namespace json = llvm::json;

namespace {

/// Tile numbering and shapes of a planned program.
class PlanIndex {
public:
  explicit PlanIndex(ProgramOp program) : program(program) {
    unsigned next = 0;
    for (TensorOp tensor : program.getBody().front().getOps<TensorOp>()) {
      Info info;
      info.op = tensor;
      info.firstTile = next;
      ArrayRef<int64_t> shape = *tensor.getShape();
      Type element = tensor.getTensorType().getElementType();
      info.elementBytes =
          element.isInteger(1) ? 1 : element.getIntOrFloatBitWidth() / 8;
      int64_t count = 1;
      for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
        StringRef split = tensor.getSplitName(axis);
        int64_t super =
            split.empty() ? shape[axis] : *program.getBinding(split);
        info.superShape.push_back(super);
        if (!split.empty()) {
          info.grid.push_back(shape[axis] / super);
          count *= shape[axis] / super;
        }
      }
      next += count;
      infos[tensor.getSymName()] = info;
    }
  }

  struct Info {
    TensorOp op;
    unsigned firstTile = 0;
    int64_t elementBytes = 4;
    SmallVector<int64_t> superShape, grid;
  };

  const Info &info(StringRef tensor) { return infos[tensor]; }

  int64_t tileId(StringRef tensor, ArrayRef<int64_t> coords) {
    const Info &i = infos[tensor];
    int64_t linear = 0;
    for (auto [coord, count] : llvm::zip(coords, i.grid))
      linear = linear * count + coord;
    return i.firstTile + linear;
  }

  int64_t bytes(StringRef tensor) {
    const Info &i = infos[tensor];
    int64_t count = i.elementBytes;
    for (int64_t extent : i.superShape)
      count *= extent;
    return count;
  }

  json::Object tileJSON(AllocateOp alloc) {
    StringRef tensor = alloc.getTensor();
    Info &i = infos[tensor];
    json::Array offsets, coords, shape;
    unsigned next = 0;
    for (unsigned axis = 0; axis < i.superShape.size(); ++axis) {
      int64_t offset = 0;
      if (!i.op.getSplitName(axis).empty())
        offset = alloc.getCoords()[next++] * i.superShape[axis];
      offsets.push_back(offset);
      shape.push_back(i.superShape[axis]);
    }
    for (int64_t coord : alloc.getCoords())
      coords.push_back(coord);
    return json::Object{{"id", tileId(tensor, alloc.getCoords())},
                        {"tensor", tensor},
                        {"coords", std::move(coords)},
                        {"offsets", std::move(offsets)},
                        {"shape", std::move(shape)},
                        {"bytes", bytes(tensor)}};
  }

  /// `C[0,1]`, or `K` for a tensor read whole.
  std::string label(AllocateOp alloc) {
    std::string text = alloc.getTensor().str();
    if (alloc.getCoords().empty())
      return text;
    text += "[";
    for (auto [index, coord] : llvm::enumerate(alloc.getCoords()))
      text += (index ? "," : "") + std::to_string(coord);
    return text + "]";
  }

private:
  ProgramOp program;
  llvm::StringMap<Info> infos;
};

StringRef kindOf(Operation *op) {
  return op->getName().stripDialect();
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

} // namespace

json::Value phobos::cluster::planToJSON(ProgramOp program) {
  PlanIndex index(program);
  json::Object root;
  root["program"] = program.getSymName();
  root["nodes"] = static_cast<int64_t>(*program.getNodes());
  json::Object bindings, dims;
  for (NamedAttribute entry : program.getBindingsAttr())
    bindings[entry.getName().getValue()] =
        cast<IntegerAttr>(entry.getValue()).getInt();
  for (NamedAttribute entry : program.getDimsAttr())
    dims[entry.getName().getValue()] =
        cast<IntegerAttr>(entry.getValue()).getInt();
  root["bindings"] = std::move(bindings);
  root["dims"] = std::move(dims);

  json::Array tensors;
  for (TensorOp tensor : program.getBody().front().getOps<TensorOp>()) {
    const PlanIndex::Info &info = index.info(tensor.getSymName());
    json::Array shape, superShape, grid, split, dimNames;
    ArrayRef<int64_t> bound = *tensor.getShape();
    for (int64_t extent : bound)
      shape.push_back(extent);
    for (int64_t extent : info.superShape)
      superShape.push_back(extent);
    for (int64_t count : info.grid)
      grid.push_back(count);
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      split.push_back(tensor.getSplitName(axis));
      dimNames.push_back(cast<StringAttr>(tensor.getDims()[axis]).getValue());
    }
    json::Object object{
        {"name", tensor.getSymName()},
        {"element", typeString(tensor.getTensorType().getElementType())},
        {"mode", stringifyAccessMode(tensor.getMode())},
        {"dims", std::move(dimNames)},
        {"shape", std::move(shape)},
        {"split", std::move(split)},
        {"super_shape", std::move(superShape)},
        {"grid", std::move(grid)},
        {"first_tile", static_cast<int64_t>(info.firstTile)},
        {"tile_bytes", index.bytes(tensor.getSymName())}};
    object["uri"] = tensor.getUri() ? json::Value(*tensor.getUri())
                                    : json::Value(nullptr);
    tensors.push_back(std::move(object));
  }
  root["tensors"] = std::move(tensors);

  json::Array scalars;
  for (ScalarOp scalar : program.getBody().front().getOps<ScalarOp>()) {
    json::Object object{{"name", scalar.getSymName()},
                        {"type", typeString(scalar.getType())}};
    json::Value value = nullptr;
    if (std::optional<TypedAttr> attr = scalar.getValue()) {
      if (auto f = dyn_cast<FloatAttr>(*attr))
        value = f.getValueAsDouble();
      else if (auto i = dyn_cast<IntegerAttr>(*attr))
        value = i.getValue().getSExtValue();
    }
    object["value"] = std::move(value);
    scalars.push_back(std::move(object));
  }
  root["scalars"] = std::move(scalars);

  json::Array leaves;
  for (tile::KernelOp leaf :
       program.getBody().front().getOps<tile::KernelOp>()) {
    json::Array params, grid;
    for (unsigned i = 0; i < leaf.getNumArguments(); ++i)
      params.push_back(json::Object{
          {"name", leaf.getArgName(i)},
          {"kind", isa<tile::GlobalTensorType>(leaf.getArgumentTypes()[i])
                       ? "tensor"
                       : "scalar"}});
    for (int64_t ctas : leafGrid(program, leaf))
      grid.push_back(ctas);
    leaves.push_back(json::Object{{"name", leaf.getName()},
                                  {"params", std::move(params)},
                                  {"grid", std::move(grid)},
                                  {"cta_threads", leaf.getCtaSize()}});
  }
  root["leaves"] = std::move(leaves);

  json::Array programs;
  int64_t nextId = 0;
  for (NodeOp node : program.getBody().front().getOps<NodeOp>()) {
    llvm::DenseMap<Value, int64_t> ids;
    json::Array instrs;
    for (Operation &op : node.getBodyBlock()) {
      int64_t id = nextId++;
      json::Object object{{"id", id},
                          {"node", static_cast<int64_t>(node.getIndex())},
                          {"kind", kindOf(&op)}};
      json::Array deps;
      for (Value operand : op.getOperands())
        if (isa<TokenType>(operand.getType()))
          deps.push_back(ids.lookup(operand));
      object["deps"] = std::move(deps);
      if (auto compute = dyn_cast<ComputeOp>(op)) {
        auto leaf = SymbolTable::lookupNearestSymbolFrom<tile::KernelOp>(
            compute, compute.getLeafAttr());
        SmallVector<LeafParamEffect> effects = getLeafEffects(leaf);
        json::Array tiles, reads, writes, scalarNames;
        int64_t bytes = 0;
        for (auto [buffer, effect] : llvm::zip(compute.getBuffers(), effects)) {
          auto alloc = buffer.getDefiningOp<AllocateOp>();
          json::Object tile = index.tileJSON(alloc);
          int64_t tileId = index.tileId(alloc.getTensor(), alloc.getCoords());
          bytes += index.bytes(alloc.getTensor());
          if (effect.read)
            reads.push_back(tileId);
          if (effect.written)
            writes.push_back(tileId);
          tiles.push_back(std::move(tile));
        }
        if (ArrayAttr list = compute.getScalarsAttr())
          for (auto name : list.getAsRange<FlatSymbolRefAttr>())
            scalarNames.push_back(name.getValue());
        object["leaf"] = compute.getLeaf();
        object["tiles"] = std::move(tiles);
        object["reads"] = std::move(reads);
        object["writes"] = std::move(writes);
        object["scalars"] = std::move(scalarNames);
        object["bytes"] = bytes;
      } else {
        Value buffer = isa<AllocateOp>(op) ? op.getResult(0) : op.getOperand(0);
        auto alloc = buffer.getDefiningOp<AllocateOp>();
        object["tile"] = index.tileJSON(alloc);
        object["bytes"] = index.bytes(alloc.getTensor());
        TensorOp tensor = index.info(alloc.getTensor()).op;
        if (auto a = dyn_cast<AllocateOp>(op))
          object["zero"] = a.getZero();
        if (auto fetch = dyn_cast<FetchOp>(op))
          object["from"] = static_cast<int64_t>(fetch.getSource());
        if (auto free = dyn_cast<FreeOp>(op))
          object["serves"] =
              static_cast<int64_t>(free.getServes().value_or(0));
        if (isa<LoadOp, StoreOp>(op))
          object["uri"] = tensor.getUri() ? json::Value(*tensor.getUri())
                                          : json::Value(nullptr);
      }
      for (Value result : op.getResults())
        if (isa<TokenType>(result.getType()))
          ids[result] = id;
      instrs.push_back(std::move(object));
    }
    programs.push_back(json::Object{
        {"node", static_cast<int64_t>(node.getIndex())},
        {"peak_bytes", node.getPeakBytes().value_or(0)},
        {"instructions", std::move(instrs)}});
  }
  root["node_programs"] = std::move(programs);
  return root;
}

void phobos::cluster::printPlan(ProgramOp program, llvm::raw_ostream &os) {
  PlanIndex index(program);
  os << "plan of '" << program.getSymName() << "' on " << *program.getNodes()
     << " node" << (*program.getNodes() == 1 ? "" : "s") << ":";
  for (NamedAttribute entry : program.getBindingsAttr())
    os << " " << entry.getName().getValue() << "="
       << cast<IntegerAttr>(entry.getValue()).getInt();
  os << ";";
  for (NamedAttribute entry : program.getDimsAttr())
    os << " " << entry.getName().getValue() << "="
       << cast<IntegerAttr>(entry.getValue()).getInt();
  os << "\n";
  int64_t nextId = 0;
  for (NodeOp node : program.getBody().front().getOps<NodeOp>()) {
    llvm::StringMap<unsigned> counts;
    for (Operation &op : node.getBodyBlock())
      counts[kindOf(&op)]++;
    os << "node " << node.getIndex() << ": "
       << node.getBodyBlock().getOperations().size() << " instructions (";
    bool first = true;
    for (StringRef kind :
         {"allocate", "load", "fetch", "compute", "store", "free"}) {
      os << (first ? "" : ", ") << counts.lookup(kind) << " " << kind;
      first = false;
    }
    os << "), peak " << formatBytes(node.getPeakBytes().value_or(0)) << "\n";
    llvm::DenseMap<Value, int64_t> ids;
    for (Operation &op : node.getBodyBlock()) {
      int64_t id = nextId++;
      os << "  #" << llvm::left_justify(std::to_string(id), 5) << " "
         << llvm::left_justify(kindOf(&op), 9) << " ";
      auto labelOf = [&](Value buffer) {
        return index.label(buffer.getDefiningOp<AllocateOp>());
      };
      if (auto alloc = dyn_cast<AllocateOp>(op)) {
        os << index.label(alloc) << "  "
           << formatBytes(index.bytes(alloc.getTensor()), /*exact=*/false)
           << (alloc.getZero() ? ", zeroed" : "");
      } else if (auto compute = dyn_cast<ComputeOp>(op)) {
        os << compute.getLeaf() << "(";
        llvm::interleaveComma(compute.getBuffers(), os,
                              [&](Value buffer) { os << labelOf(buffer); });
        os << ")";
      } else {
        os << labelOf(op.getOperand(0));
        if (auto fetch = dyn_cast<FetchOp>(op))
          os << " from node " << fetch.getSource();
        if (auto free = dyn_cast<FreeOp>(op))
          if (free.getServes())
            os << "  once it has served " << *free.getServes() << " fetch"
               << (*free.getServes() == 1 ? "" : "es");
      }
      SmallVector<int64_t> deps;
      for (Value operand : op.getOperands())
        if (isa<TokenType>(operand.getType()))
          deps.push_back(ids.lookup(operand));
      if (!deps.empty()) {
        os << "  after ";
        llvm::interleave(
            deps, os, [&](int64_t dep) { os << "#" << dep; }, " ");
      }
      os << "\n";
      for (Value result : op.getResults())
        if (isa<TokenType>(result.getType()))
          ids[result] = id;
    }
  }
}

void phobos::cluster::printRanking(ArrayRef<Candidate> ranking,
                                   llvm::raw_ostream &os) {
  if (ranking.empty())
    return;
  os << "rank";
  for (auto &[name, value] : ranking.front().sizes)
    os << "  " << name;
  os << "  units  busiest  compute_ms  transfer_ms  time_ms  peak\n";
  unsigned rank = 0;
  for (const Candidate &candidate : ranking) {
    if (!candidate.dropped.empty())
      continue;
    os << llvm::left_justify(std::to_string(++rank), 4);
    for (auto &[name, value] : candidate.sizes)
      os << "  "
         << llvm::left_justify(std::to_string(value),
                               std::max<size_t>(name.size(), 1));
    const NodeCost &busiest = candidate.nodes[candidate.busiest];
    int64_t peak = 0;
    for (const NodeCost &node : candidate.nodes)
      peak = std::max(peak, node.peakBytes);
    os << "  " << llvm::left_justify(std::to_string(candidate.units), 5)
       << "  node " << llvm::left_justify(std::to_string(candidate.busiest), 3)
       << "  " << llvm::format("%10.3f", busiest.computeSeconds * 1e3)
       << "  " << llvm::format("%11.3f", busiest.transferSeconds * 1e3)
       << "  " << llvm::format("%7.3f", candidate.seconds * 1e3) << "  "
       << formatBytes(peak, /*exact=*/false) << "\n";
  }
  for (const Candidate &candidate : ranking) {
    if (candidate.dropped.empty())
      continue;
    os << "dropped";
    for (auto &[name, value] : candidate.sizes)
      os << " " << name << "=" << value;
    os << ": " << candidate.dropped << "\n";
  }
}
