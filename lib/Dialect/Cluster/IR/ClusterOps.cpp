//===- ClusterOps.cpp - Operations of the phobos_cluster dialect ----------===//
//
// Verifiers of the cluster program (tensors, units, refs, leaf launches)
// and of the per-node programs (every buffer allocated before use, filled
// before it is read, computed before it is stored, freed after its last
// use, and no unordered write), and the custom syntax of the region ops.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;

#define GET_OP_CLASSES
#include "Phobos/Dialect/Cluster/IR/ClusterOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

void phobos::cluster::splitLeafArguments(tile::KernelOp leaf,
                                         SmallVectorImpl<unsigned> &tensors,
                                         SmallVectorImpl<unsigned> &scalars) {
  for (auto [index, type] : llvm::enumerate(leaf.getArgumentTypes()))
    (isa<tile::GlobalTensorType>(type) ? tensors : scalars).push_back(index);
}

SmallVector<LeafParamEffect>
phobos::cluster::getLeafEffects(tile::KernelOp leaf) {
  SmallVector<LeafParamEffect> effects;
  for (BlockArgument arg : leaf.getBody().front().getArguments()) {
    if (!isa<tile::GlobalTensorType>(arg.getType()))
      continue;
    LeafParamEffect effect;
    for (Operation *user : arg.getUsers()) {
      effect.read |= isa<tile::LoadOp, tile::LoadScalarOp>(user);
      effect.written |= isa<tile::StoreOp, tile::StoreScalarOp>(user);
    }
    effects.push_back(effect);
  }
  return effects;
}

/// The program around `op`.
static ProgramOp programOf(Operation *op) {
  return op->getParentOfType<ProgramOp>();
}

/// The leaf `name` of the program around `op`, or an error on `op`.
static FailureOr<tile::KernelOp> lookupLeaf(Operation *op,
                                            FlatSymbolRefAttr name,
                                            SymbolTableCollection &tables) {
  auto leaf = tables.lookupNearestSymbolFrom<tile::KernelOp>(op, name);
  if (!leaf)
    return op->emitOpError("'")
           << name.getValue() << "' does not name a leaf kernel of the program";
  return leaf;
}

/// Checks `scalars` against the scalar parameters of `leaf`.
static LogicalResult verifyScalars(Operation *op, tile::KernelOp leaf,
                                   ArrayAttr scalars,
                                   SymbolTableCollection &tables) {
  SmallVector<unsigned> tensorArgs, scalarArgs;
  splitLeafArguments(leaf, tensorArgs, scalarArgs);
  size_t given = scalars ? scalars.size() : 0;
  if (given != scalarArgs.size())
    return op->emitOpError("leaf '")
           << leaf.getName() << "' takes " << scalarArgs.size()
           << " scalars, got " << given;
  for (size_t i = 0; i < given; ++i) {
    auto name = cast<FlatSymbolRefAttr>(scalars[i]);
    auto scalar = tables.lookupNearestSymbolFrom<ScalarOp>(op, name);
    if (!scalar)
      return op->emitOpError("'")
             << name.getValue() << "' does not name a scalar of the program";
    Type expected = leaf.getArgumentTypes()[scalarArgs[i]];
    if (scalar.getType() != expected)
      return op->emitOpError("scalar '")
             << name.getValue() << "' is " << scalar.getType()
             << ", but leaf parameter '" << leaf.getArgName(scalarArgs[i])
             << "' is " << expected;
  }
  return success();
}

/// Checks that the tensors bound to `leaf`'s tensor parameters have their
/// element types and ranks.
static LogicalResult verifyTensorBinding(Operation *op, tile::KernelOp leaf,
                                         ArrayRef<TensorOp> tensors) {
  SmallVector<unsigned> tensorArgs, scalarArgs;
  splitLeafArguments(leaf, tensorArgs, scalarArgs);
  if (tensors.size() != tensorArgs.size())
    return op->emitOpError("leaf '")
           << leaf.getName() << "' takes " << tensorArgs.size()
           << " tensors, got " << tensors.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    TensorOp tensor = tensors[i];
    auto param =
        cast<tile::GlobalTensorType>(leaf.getArgumentTypes()[tensorArgs[i]]);
    tile::GlobalTensorType type = tensor.getTensorType();
    if (param.getElementType() != type.getElementType() ||
        param.getRank() != type.getRank())
      return op->emitOpError("tile ")
             << i << " belongs to @" << tensor.getSymName() << " (" << type
             << "), but leaf parameter '" << leaf.getArgName(tensorArgs[i])
             << "' is " << param;
    for (unsigned axis = 0; axis < param.getRank(); ++axis)
      if (!tensor.getSplitName(axis).empty() &&
          !ShapedType::isDynamic(param.getDimSize(axis)))
        return op->emitOpError("axis ")
               << axis << " of @" << tensor.getSymName()
               << " is cut into super-tiles, so leaf parameter '"
               << leaf.getArgName(tensorArgs[i])
               << "' must take its extent at launch, not "
               << param.getDimSize(axis);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

UnitsOp ProgramOp::getUnits() {
  auto range = getBody().front().getOps<UnitsOp>();
  return range.empty() ? UnitsOp() : *range.begin();
}

TensorOp ProgramOp::lookupTensor(StringRef name) {
  return dyn_cast_or_null<TensorOp>(mlir::SymbolTable::lookupSymbolIn(
      *this, StringAttr::get(getContext(), name)));
}

ScalarOp ProgramOp::lookupScalar(StringRef name) {
  return dyn_cast_or_null<ScalarOp>(mlir::SymbolTable::lookupSymbolIn(
      *this, StringAttr::get(getContext(), name)));
}

static std::optional<int64_t> lookupInt(DictionaryAttr dict, StringRef name) {
  if (!dict)
    return std::nullopt;
  if (auto value = dict.getAs<IntegerAttr>(name))
    return value.getInt();
  return std::nullopt;
}

std::optional<int64_t> ProgramOp::getBinding(StringRef name) {
  return lookupInt(getBindingsAttr(), name);
}

std::optional<int64_t> ProgramOp::getDimValue(StringRef name) {
  return lookupInt(getDimsAttr(), name);
}

SmallVector<int64_t> ProgramOp::getClusterValues(StringRef name) {
  if (ArrayAttr space = getClusterAttr())
    for (auto dim : space.getAsRange<tile::TuneDimAttr>())
      if (dim.getName().getValue() == name)
        return SmallVector<int64_t>(dim.getValues());
  return {};
}

/// Checks that every value of `dict` is a positive integer; `what` names
/// the dictionary in messages. With `space`, every key must be in it.
static LogicalResult verifyPositiveDict(ProgramOp op, DictionaryAttr dict,
                                        StringRef what, ArrayAttr space) {
  if (!dict)
    return success();
  for (NamedAttribute entry : dict) {
    auto value = dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || value.getInt() <= 0)
      return op.emitOpError() << what << " '" << entry.getName().getValue()
                              << "' must be a positive integer";
    if (space && op.getClusterValues(entry.getName().getValue()).empty())
      return op.emitOpError()
             << what << " '" << entry.getName().getValue()
             << "' is not an @cluster name of the program";
  }
  return success();
}

LogicalResult ProgramOp::verify() {
  llvm::StringSet<> names;
  if (ArrayAttr space = getClusterAttr())
    for (Attribute dim : space) {
      auto tune = dyn_cast<tile::TuneDimAttr>(dim);
      if (!tune)
        return emitOpError("cluster must be an array of #phobos.tune_dim");
      if (!names.insert(tune.getName().getValue()).second)
        return emitOpError("@cluster name '")
               << tune.getName().getValue() << "' appears twice";
    }
  if (failed(verifyPositiveDict(*this, getBindingsAttr(), "binding",
                                getClusterAttr())) ||
      failed(verifyPositiveDict(*this, getDimsAttr(), "dim", nullptr)))
    return failure();
  return success();
}

/// Between nodes: every fetch names a node that holds the tile, and that
/// node frees it only after serving every fetch.
static LogicalResult verifyFetches(ProgramOp program) {
  using TileKey = std::pair<StringRef, SmallVector<int64_t>>;
  auto keyOf = [](Value buffer) {
    auto alloc = buffer.getDefiningOp<AllocateOp>();
    return TileKey(alloc.getTensor(), SmallVector<int64_t>(alloc.getCoords()));
  };
  // node -> tile -> its free; (holder, tile) -> fetches from other nodes.
  std::map<int64_t, std::map<TileKey, FreeOp>> frees;
  std::map<std::pair<int64_t, TileKey>, std::pair<int64_t, FetchOp>> fetches;
  for (NodeOp node : program.getBody().front().getOps<NodeOp>())
    for (Operation &op : node.getBodyBlock()) {
      if (auto free = dyn_cast<FreeOp>(op))
        frees[node.getIndex()][keyOf(free.getBuffer())] = free;
      if (auto fetch = dyn_cast<FetchOp>(op)) {
        auto &entry = fetches[{static_cast<int64_t>(fetch.getSource()),
                               keyOf(fetch.getBuffer())}];
        entry.first++;
        entry.second = fetch;
      }
    }
  for (auto &[key, entry] : fetches) {
    auto &[holder, tile] = key;
    auto [count, fetch] = entry;
    auto tileName = [&, &tile = tile]() {
      std::string text = ("@" + tile.first + " [").str();
      for (auto [i, coord] : llvm::enumerate(tile.second))
        text += (i ? ", " : "") + std::to_string(coord);
      return text + "]";
    };
    auto it = frees[holder].find(tile);
    if (it == frees[holder].end())
      return fetch.emitOpError("fetches tile ")
             << tileName() << " from node " << holder
             << ", which never holds it";
    int64_t serves = it->second.getServes().value_or(0);
    if (serves != count)
      return it->second.emitOpError("frees tile ")
             << tileName() << " after serving " << serves << " fetches, but "
             << count << " are made from this node";
  }
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  unsigned units = 0;
  llvm::SmallDenseSet<int64_t> nodeIndices;
  for (Operation &op : getBody().front()) {
    if (isa<TensorOp, ScalarOp, tile::KernelOp>(op))
      continue;
    if (isa<UnitsOp>(op)) {
      if (++units > 1)
        return op.emitOpError("a program has one units op");
      continue;
    }
    if (auto node = dyn_cast<NodeOp>(op)) {
      if (!getNodes())
        return node.emitOpError("a per-node program needs a planned program "
                                "(with 'nodes')");
      if (node.getIndex() >= *getNodes())
        return node.emitOpError("node ")
               << node.getIndex() << " is out of range; the plan has "
               << *getNodes() << " nodes";
      if (!nodeIndices.insert(node.getIndex()).second)
        return node.emitOpError("node ") << node.getIndex() << " appears twice";
      continue;
    }
    return op.emitOpError("is not allowed in a phobos_cluster.program");
  }
  if (failed(verifyFetches(*this)))
    return failure();
  if (!getBindingsAttr())
    return success();
  // A planned program binds every @cluster name its tensors split by and
  // gives every tensor its shape.
  for (TensorOp tensor : getBody().front().getOps<TensorOp>()) {
    if (!tensor.getShape())
      return tensor.emitOpError("a planned program gives every tensor a shape");
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      StringRef split = tensor.getSplitName(axis);
      if (split.empty())
        continue;
      std::optional<int64_t> size = getBinding(split);
      if (!size)
        return tensor.emitOpError("@cluster name '")
               << split << "' is not bound by the plan";
      int64_t extent = (*tensor.getShape())[axis];
      if (extent % *size != 0)
        return tensor.emitOpError("axis ")
               << axis << " (" << extent << ") is not a multiple of its "
               << "super-tile " << split << " = " << *size;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TensorOp, ScalarOp
//===----------------------------------------------------------------------===//

StringRef TensorOp::getSplitName(unsigned axis) {
  return cast<StringAttr>(getSplit()[axis]).getValue();
}

unsigned TensorOp::getNumSplitAxes() {
  unsigned count = 0;
  for (unsigned axis = 0; axis < getRank(); ++axis)
    count += !getSplitName(axis).empty();
  return count;
}

LogicalResult TensorOp::verify() {
  int64_t rank = getRank();
  if (static_cast<int64_t>(getDims().size()) != rank)
    return emitOpError("needs one dim name per axis (") << rank << "), got "
                                                        << getDims().size();
  if (static_cast<int64_t>(getSplit().size()) != rank)
    return emitOpError("needs one split entry per axis (")
           << rank << "), got " << getSplit().size();
  ProgramOp program = (*this)->getParentOfType<ProgramOp>();
  for (int64_t axis = 0; axis < rank; ++axis) {
    StringRef split = getSplitName(axis);
    if (split.empty())
      continue;
    if (program && program.getClusterValues(split).empty())
      return emitOpError("axis ")
             << axis << " is split by '" << split
             << "', which is not an @cluster name of the program";
    if (!ShapedType::isDynamic(getTensorType().getDimSize(axis)))
      return emitOpError("axis ")
             << axis << " has the compile-time extent "
             << getTensorType().getDimSize(axis)
             << " and cannot be cut into super-tiles";
  }
  if (std::optional<ArrayRef<int64_t>> shape = getShape()) {
    if (static_cast<int64_t>(shape->size()) != rank)
      return emitOpError("shape needs ") << rank << " extents, got "
                                         << shape->size();
    for (int64_t axis = 0; axis < rank; ++axis) {
      int64_t extent = (*shape)[axis];
      int64_t fixed = getTensorType().getDimSize(axis);
      if (extent <= 0)
        return emitOpError("shape extents must be positive, got ") << extent;
      if (!ShapedType::isDynamic(fixed) && fixed != extent)
        return emitOpError("axis ")
               << axis << " has the compile-time extent " << fixed
               << ", but the shape gives " << extent;
    }
  }
  if (getUri() && getUri()->empty())
    return emitOpError("uri must not be empty");
  return success();
}

LogicalResult ScalarOp::verify() {
  if (!tile::isValidElementType(getType()))
    return emitOpError("a scalar has a tile element type, got ") << getType();
  if (std::optional<TypedAttr> value = getValue())
    if (value->getType() != getType())
      return emitOpError("value has type ")
             << value->getType() << ", but the scalar is " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// UnitsOp, LoopOp: syntax
//===----------------------------------------------------------------------===//

/// `"M" / "TILE_M"`
static void printSplitPair(OpAsmPrinter &printer, StringAttr dim,
                           StringAttr split) {
  printer.printAttribute(dim);
  printer << " / ";
  printer.printAttribute(split);
}

static ParseResult parseSplitPair(OpAsmParser &parser, StringAttr &dim,
                                  StringAttr &split) {
  if (parser.parseAttribute(dim) || parser.parseSlash() ||
      parser.parseAttribute(split))
    return failure();
  return success();
}

void UnitsOp::build(OpBuilder &builder, OperationState &state,
                    ArrayRef<StringRef> dims, ArrayRef<StringRef> split) {
  state.addAttribute(getDimsAttrName(state.name), builder.getStrArrayAttr(dims));
  state.addAttribute(getSplitAttrName(state.name),
                     builder.getStrArrayAttr(split));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (size_t i = 0; i < dims.size(); ++i)
    block->addArgument(builder.getIndexType(), state.location);
}

void UnitsOp::print(OpAsmPrinter &printer) {
  printer << " (";
  llvm::interleaveComma(getBodyBlock().getArguments(), printer,
                        [&](BlockArgument arg) { printer.printOperand(arg); });
  printer << ") in [";
  for (unsigned i = 0; i < getNumAxes(); ++i) {
    if (i)
      printer << ", ";
    printSplitPair(printer, cast<StringAttr>(getDims()[i]),
                   cast<StringAttr>(getSplit()[i]));
  }
  printer << "]";
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getDimsAttrName(), getSplitAttrName()});
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/false);
}

ParseResult UnitsOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Attribute> dims, split;
  if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&] {
        StringAttr dim, name;
        if (parseSplitPair(parser, dim, name))
          return failure();
        dims.push_back(dim);
        split.push_back(name);
        return success();
      }))
    return failure();
  Builder &builder = parser.getBuilder();
  for (OpAsmParser::Argument &arg : args)
    arg.type = builder.getIndexType();
  result.addAttribute("dims", builder.getArrayAttr(dims));
  result.addAttribute("split", builder.getArrayAttr(split));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  if (body->empty())
    body->push_back(new Block());
  return success();
}

void LoopOp::build(OpBuilder &builder, OperationState &state, StringRef dim,
                   StringRef split) {
  state.addAttribute(getDimAttrName(state.name), builder.getStringAttr(dim));
  state.addAttribute(getSplitAttrName(state.name), builder.getStringAttr(split));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
}

void LoopOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printOperand(getInductionVar());
  printer << " in ";
  printSplitPair(printer, getDimAttr(), getSplitAttr());
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getDimAttrName(), getSplitAttrName()});
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/false);
}

ParseResult LoopOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  StringAttr dim, split;
  if (parser.parseArgument(iv) || parser.parseKeyword("in") ||
      parseSplitPair(parser, dim, split))
    return failure();
  iv.type = parser.getBuilder().getIndexType();
  result.addAttribute("dim", dim);
  result.addAttribute("split", split);
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  if (body->empty())
    body->push_back(new Block());
  return success();
}

void UnitsOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
  static const char *names[] = {"x", "y", "z"};
  for (BlockArgument arg : region.getArguments())
    if (arg.getArgNumber() < 3)
      setNameFn(arg, names[arg.getArgNumber()]);
}

void LoopOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  for (BlockArgument arg : region.getArguments())
    setNameFn(arg, "chunk");
}

//===----------------------------------------------------------------------===//
// UnitsOp, LoopOp: verification
//===----------------------------------------------------------------------===//

LogicalResult UnitsOp::verify() {
  if (getDims().size() != getSplit().size())
    return emitOpError("needs one split name per grid axis");
  if (getNumAxes() > 3)
    return emitOpError("the super-tile grid has at most 3 axes, got ")
           << getNumAxes();
  if (getBody().front().getNumArguments() != getNumAxes())
    return emitOpError("needs one coordinate per grid axis");
  ProgramOp program = (*this)->getParentOfType<ProgramOp>();
  for (unsigned i = 0; i < getNumAxes(); ++i) {
    StringRef split = cast<StringAttr>(getSplit()[i]).getValue();
    if (program && program.getClusterValues(split).empty())
      return emitOpError("grid axis ")
             << i << " is split by '" << split
             << "', which is not an @cluster name of the program";
  }
  return success();
}

/// Checks the ops of a units or loop body.
static LogicalResult verifyUnitBody(Block &block, bool allowLoop) {
  unsigned loops = 0;
  for (Operation &op : block) {
    if (isa<RefOp, ApplyOp>(op))
      continue;
    if (allowLoop && isa<LoopOp>(op)) {
      if (++loops > 1)
        return op.emitOpError("a unit of work has at most one cluster loop");
      continue;
    }
    return op.emitOpError("is not allowed in a unit of work");
  }
  return success();
}

LogicalResult LoopOp::verifyRegions() {
  if (getBody().front().getNumArguments() != 1 ||
      !getInductionVar().getType().isIndex())
    return emitOpError("takes one index coordinate");
  if (getDim().empty() || getSplit().empty())
    return emitOpError("needs a dim and the @cluster name that splits it");
  return verifyUnitBody(getBody().front(), /*allowLoop=*/false);
}

LogicalResult UnitsOp::verifyRegions() {
  if (failed(verifyUnitBody(getBodyBlock(), /*allowLoop=*/true)))
    return failure();
  // The effects of the applies on each ref, in launch order.
  struct RefUse {
    bool firstReads = false, firstWrites = false, written = false, used = false;
    StringRef firstLeaf;
  };
  llvm::MapVector<Value, RefUse> uses;
  SymbolTableCollection tables;
  auto visit = [&](ApplyOp apply) {
    auto leaf = tables.lookupNearestSymbolFrom<tile::KernelOp>(
        apply, apply.getLeafAttr());
    if (!leaf) {
      // Reported by the apply's symbol verifier; its tiles are used.
      for (Value tile : apply.getTiles())
        uses[tile] = RefUse{false, false, true, true, ""};
      return;
    }
    SmallVector<LeafParamEffect> effects = getLeafEffects(leaf);
    for (auto [tile, effect] : llvm::zip(apply.getTiles(), effects)) {
      RefUse &use = uses[tile];
      if (!use.used) {
        use.used = true;
        use.firstReads = effect.read;
        use.firstWrites = effect.written;
        use.firstLeaf = leaf.getName();
      }
      use.written |= effect.written;
    }
  };
  getBodyBlock().walk([&](ApplyOp apply) { visit(apply); });
  for (RefOp ref : getBodyBlock().getOps<RefOp>())
    uses.insert({ref.getResult(), RefUse()});
  for (LoopOp loop : getBodyBlock().getOps<LoopOp>())
    for (RefOp ref : loop.getBodyBlock().getOps<RefOp>())
      uses.insert({ref.getResult(), RefUse()});
  for (auto &[value, use] : uses) {
    auto ref = value.getDefiningOp<RefOp>();
    if (!ref)
      continue;
    if (!use.used)
      return ref.emitOpError("names a super-tile no leaf uses");
    if (use.firstLeaf.empty())
      continue; // its leaf is missing
    switch (ref.getAccess()) {
    case AccessMode::read:
      if (use.written)
        return ref.emitOpError("is read-only, but a leaf writes it");
      break;
    case AccessMode::write:
      if (use.firstReads)
        return ref.emitOpError("is write-only, but its first leaf, '")
               << use.firstLeaf << "', reads it; its access is rmw";
      break;
    case AccessMode::rmw:
      if (!use.written)
        return ref.emitOpError("is rmw, but no leaf writes it");
      if (!use.firstReads)
        return ref.emitOpError("is rmw, but its first leaf, '")
               << use.firstLeaf << "', writes it without reading it; its "
               << "access is write";
      break;
    }
    // An output must be one unit's own: cut along every grid axis.
    if (writesStorage(ref.getAccess()))
      for (BlockArgument axis : getBodyBlock().getArguments())
        if (!llvm::is_contained(ref.getCoords(), axis))
          return ref.emitOpError("writes a super-tile that does not depend on "
                                 "grid axis ")
                 << axis.getArgNumber()
                 << ", so every unit along that axis would write it";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// RefOp, ApplyOp
//===----------------------------------------------------------------------===//

LogicalResult RefOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto tensor = tables.lookupNearestSymbolFrom<TensorOp>(*this, getTensorAttr());
  if (!tensor)
    return emitOpError("'") << getTensor()
                            << "' does not name a tensor of the program";
  if (getCoords().size() != tensor.getNumSplitAxes())
    return emitOpError("@")
           << getTensor() << " is cut into super-tiles along "
           << tensor.getNumSplitAxes() << " axes, got " << getCoords().size()
           << " coordinates";
  unsigned next = 0;
  for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
    StringRef split = tensor.getSplitName(axis);
    if (split.empty())
      continue;
    StringRef dim = cast<StringAttr>(tensor.getDims()[axis]).getValue();
    Value coord = getCoords()[next++];
    auto arg = dyn_cast<BlockArgument>(coord);
    bool matches = false;
    if (arg) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto units = dyn_cast<UnitsOp>(owner))
        matches = cast<StringAttr>(units.getDims()[arg.getArgNumber()])
                          .getValue() == dim &&
                  cast<StringAttr>(units.getSplit()[arg.getArgNumber()])
                          .getValue() == split;
      else if (auto loop = dyn_cast<LoopOp>(owner))
        matches = loop.getDim() == dim && loop.getSplit() == split;
    }
    if (!matches)
      return emitOpError("coordinate ")
             << next - 1 << " of @" << getTensor()
             << " must be the grid coordinate or cluster loop chunk that runs "
             << "over dim '" << dim << "' in " << split << " super-tiles";
  }
  AccessMode mode = tensor.getMode();
  if (writesStorage(getAccess()) && !writesStorage(mode))
    return emitOpError("writes @") << getTensor()
                                   << ", whose mode is read";
  if (getAccess() == AccessMode::read && !readsStorage(mode))
    return emitOpError("reads @")
           << getTensor() << ", whose mode is write: storage holds nothing to "
           << "read";
  return success();
}

LogicalResult ApplyOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<tile::KernelOp> leaf = lookupLeaf(*this, getLeafAttr(), tables);
  if (failed(leaf))
    return failure();
  SmallVector<TensorOp> tensors;
  for (Value tile : getTiles()) {
    // Tiles are refs: a unit of work holds nothing else (UnitsOp checks).
    auto ref = tile.getDefiningOp<RefOp>();
    if (!ref)
      return failure();
    auto tensor =
        tables.lookupNearestSymbolFrom<TensorOp>(*this, ref.getTensorAttr());
    if (!tensor)
      return failure(); // reported by the ref
    tensors.push_back(tensor);
  }
  // What the leaf does with each ref is checked by UnitsOp, in order.
  if (failed(verifyTensorBinding(*this, *leaf, tensors)) ||
      failed(verifyScalars(*this, *leaf, getScalarsAttr(), tables)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Per-node instructions
//===----------------------------------------------------------------------===//

/// `@A [0, 1]`, the super-tile a buffer holds.
static std::string describeTile(AllocateOp alloc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "@" << alloc.getTensor() << " [";
  llvm::interleaveComma(alloc.getCoords(), os);
  os << "]";
  return text;
}

LogicalResult AllocateOp::verifySymbolUses(SymbolTableCollection &tables) {
  auto tensor = tables.lookupNearestSymbolFrom<TensorOp>(*this, getTensorAttr());
  if (!tensor)
    return emitOpError("'") << getTensor()
                            << "' does not name a tensor of the program";
  BufferType buffer = getBuffer().getType();
  if (buffer.getElementType() != tensor.getTensorType().getElementType() ||
      static_cast<int64_t>(buffer.getShape().size()) != tensor.getRank())
    return emitOpError("a buffer of @")
           << getTensor() << " is " << tensor.getTensorType().getElementType()
           << " of rank " << tensor.getRank() << ", got " << buffer;
  if (getCoords().size() != tensor.getNumSplitAxes())
    return emitOpError("@")
           << getTensor() << " is cut into super-tiles along "
           << tensor.getNumSplitAxes() << " axes, got " << getCoords().size()
           << " coordinates";
  ProgramOp program = programOf(*this);
  std::optional<ArrayRef<int64_t>> shape = tensor.getShape();
  if (!program || !program.getBindingsAttr() || !shape)
    return success();
  unsigned next = 0;
  for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
    StringRef split = tensor.getSplitName(axis);
    int64_t extent = (*shape)[axis];
    if (!split.empty()) {
      std::optional<int64_t> size = program.getBinding(split);
      if (!size)
        return success(); // reported by the program
      int64_t count = extent / *size;
      int64_t coord = getCoords()[next++];
      if (coord < 0 || coord >= count)
        return emitOpError("coordinate ")
               << next - 1 << " of @" << getTensor() << " is " << coord
               << ", but the tensor has " << count
               << " super-tiles along axis " << axis;
      extent = *size;
    }
    if (buffer.getShape()[axis] != extent)
      return emitOpError("a super-tile of @")
             << getTensor() << " has extent " << extent << " along axis "
             << axis << ", but the buffer has " << buffer.getShape()[axis];
  }
  return success();
}

LogicalResult ComputeOp::verifySymbolUses(SymbolTableCollection &tables) {
  FailureOr<tile::KernelOp> leaf = lookupLeaf(*this, getLeafAttr(), tables);
  if (failed(leaf))
    return failure();
  SmallVector<TensorOp> tensors;
  for (Value buffer : getBuffers()) {
    // Buffers are allocations: a node holds nothing else (NodeOp checks).
    auto alloc = buffer.getDefiningOp<AllocateOp>();
    if (!alloc)
      return failure();
    auto tensor =
        tables.lookupNearestSymbolFrom<TensorOp>(*this, alloc.getTensorAttr());
    if (!tensor)
      return failure(); // reported by the allocate
    tensors.push_back(tensor);
  }
  if (failed(verifyTensorBinding(*this, *leaf, tensors)) ||
      failed(verifyScalars(*this, *leaf, getScalarsAttr(), tables)))
    return failure();
  return success();
}

namespace {
/// One instruction's use of a buffer.
struct BufferUse {
  unsigned index;
  Operation *op;
  bool reads;
  bool writes;
};
} // namespace

LogicalResult NodeOp::verifyRegions() {
  Block &block = getBodyBlock();
  SmallVector<Operation *> instrs;
  DenseMap<Value, unsigned> tokenIndex;
  SmallVector<llvm::BitVector> ancestors;
  for (Operation &op : block) {
    if (!isa<AllocateOp, LoadOp, FetchOp, ComputeOp, StoreOp, FreeOp>(op))
      return op.emitOpError("is not a per-node instruction");
    unsigned index = instrs.size();
    instrs.push_back(&op);
    ancestors.emplace_back(block.getOperations().size());
    for (Value operand : op.getOperands()) {
      if (!isa<TokenType>(operand.getType()))
        continue;
      unsigned dep = tokenIndex.lookup(operand);
      ancestors[index].set(dep);
      ancestors[index] |= ancestors[dep];
    }
    for (Value result : op.getResults())
      if (isa<TokenType>(result.getType()))
        tokenIndex[result] = index;
  }
  auto ordered = [&](unsigned before, unsigned after) {
    return ancestors[after].test(before);
  };

  ProgramOp program = programOf(*this);
  SymbolTableCollection tables;
  // The uses of each buffer, in program order.
  llvm::MapVector<Value, SmallVector<BufferUse>> uses;
  for (auto [index, op] : llvm::enumerate(instrs)) {
    if (auto alloc = dyn_cast<AllocateOp>(op)) {
      uses[alloc.getBuffer()].push_back({unsigned(index), op, false, true});
      continue;
    }
    if (auto compute = dyn_cast<ComputeOp>(op)) {
      auto leaf = tables.lookupNearestSymbolFrom<tile::KernelOp>(
          op, compute.getLeafAttr());
      if (!leaf)
        continue; // reported by the compute
      for (auto [buffer, effect] :
           llvm::zip(compute.getBuffers(), getLeafEffects(leaf)))
        uses[buffer].push_back(
            {unsigned(index), op, effect.read, effect.written});
      continue;
    }
    Value buffer = op->getOperand(0);
    bool writes = isa<LoadOp, FetchOp>(op);
    bool reads = isa<StoreOp>(op);
    uses[buffer].push_back({unsigned(index), op, reads, writes});
    auto alloc = buffer.getDefiningOp<AllocateOp>();
    auto tensor = tables.lookupNearestSymbolFrom<TensorOp>(
        alloc, alloc.getTensorAttr());
    if (auto fetch = dyn_cast<FetchOp>(op)) {
      if (fetch.getSource() == getIndex())
        return op->emitOpError("fetches tile ")
               << describeTile(alloc) << " from its own node";
      if (program && program.getNodes() &&
          fetch.getSource() >= *program.getNodes())
        return op->emitOpError("fetches from node ")
               << fetch.getSource() << ", but the plan has "
               << *program.getNodes() << " nodes";
    }
    if (tensor && isa<LoadOp>(op) && !readsStorage(tensor.getMode()))
      return op->emitOpError("loads @")
             << alloc.getTensor()
             << ", whose mode is write: storage holds nothing to load";
    if (tensor && isa<StoreOp>(op) && !writesStorage(tensor.getMode()))
      return op->emitOpError("stores @")
             << alloc.getTensor() << ", whose mode is read";
  }

  for (auto &[buffer, list] : uses) {
    auto alloc = buffer.getDefiningOp<AllocateOp>();
    if (!alloc)
      continue;
    std::string tile = describeTile(alloc);
    unsigned allocIndex = list.front().index;
    Operation *freeOp = nullptr;
    unsigned freeIndex = 0;
    for (const BufferUse &use : ArrayRef(list).drop_front()) {
      if (!ordered(allocIndex, use.index))
        return use.op->emitOpError("uses tile ")
               << tile << " without depending on its allocate";
      if (isa<FreeOp>(use.op)) {
        if (freeOp)
          return use.op->emitOpError("frees tile ") << tile << " twice";
        freeOp = use.op;
        freeIndex = use.index;
      }
    }
    if (!freeOp)
      return alloc.emitOpError("tile ") << tile << " is never freed";
    for (const BufferUse &use : ArrayRef(list).drop_front()) {
      if (use.op == freeOp)
        continue;
      if (!ordered(use.index, freeIndex))
        return freeOp->emitOpError("frees tile ")
               << tile << " before its last use, '" << use.op->getName()
               << "' (instruction " << use.index << " of the node)";
      // Reads see a fill: a load, a fetch, a compute, or zeros.
      if (use.reads && !alloc.getZero() &&
          llvm::none_of(list, [&](const BufferUse &fill) {
            return fill.op != alloc && fill.writes &&
                   ordered(fill.index, use.index);
          }))
        return use.op->emitOpError("uses tile ")
               << tile << " before it is loaded, fetched or computed";
      if (isa<StoreOp>(use.op) &&
          llvm::none_of(list, [&](const BufferUse &fill) {
            return isa<ComputeOp>(fill.op) && fill.writes &&
                   ordered(fill.index, use.index);
          }))
        return use.op->emitOpError("stores tile ")
               << tile << ", which no compute wrote";
    }
    // A write and any other use must be ordered one way or the other.
    for (auto [i, first] : llvm::enumerate(ArrayRef(list).drop_front()))
      for (const BufferUse &second : ArrayRef(list).drop_front(i + 2)) {
        if (!first.writes && !second.writes)
          continue;
        if (!ordered(first.index, second.index) &&
            !ordered(second.index, first.index))
          return second.op->emitOpError("and '")
                 << first.op->getName() << "' (instruction " << first.index
                 << " of the node) both use tile " << tile
                 << ", one writing it, with no dependency between them";
      }
  }
  return success();
}
