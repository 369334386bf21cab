//===- TileOps.cpp - Operations of the phobos dialect ---------------------===//
//
// Verifiers, type inference, folds and canonicalisation patterns of the
// phobos ops, and the kernel op's function-like syntax.
//
// Why this file is long: it holds what ODS cannot say for every op of one
// dialect, op by op in TileOps.td's order (a verifier, a fold or a
// canonicalisation a few dozen lines each), as MLIR dialects keep their ops'
// C++ in one <Dialect>Ops.cpp; an op's code is found by its name, not by a
// file.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <limits>

using namespace mlir;
using namespace phobos::tile;

/// The shape of a tile operand; scalars have rank 0.
static ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tile = dyn_cast<TileType>(type))
    return tile.getShape();
  return {};
}

static Type elementTypeOf(Type type) {
  if (auto tile = dyn_cast<TileType>(type))
    return tile.getElementType();
  return type;
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addRegion();
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  SMLoc loc = parser.getCurrentLocation();
  if (function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildFuncType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name)))
    return failure();
  // The generic function parser takes any attribute; check the inherent
  // ones against their ODS constraints as a generated parser would.
  return verifyInherentAttrs(result.name, result.attributes, [&]() {
    return parser.emitError(loc) << "op ";
  });
}

void KernelOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

SmallVector<StringRef> KernelOp::getArgDimNames(unsigned index) {
  SmallVector<StringRef> names;
  auto dims = getArgAttrOfType<ArrayAttr>(index, kDimsAttrName);
  if (!dims)
    return names;
  for (Attribute dim : dims)
    if (auto name = dyn_cast<StringAttr>(dim))
      names.push_back(name.getValue());
  return names;
}

std::string KernelOp::getArgName(unsigned index) {
  if (auto name = getArgAttrOfType<StringAttr>(index, kNameAttrName))
    return name.getValue().str();
  return "arg" + std::to_string(index);
}

/// The key of the places of @aligned promises in a fused location's metadata.
static constexpr llvm::StringLiteral kAlignedPromisesKey = "phobos.aligned";

LocationAttr KernelOp::getAlignedPromiseLoc(StringRef dim) {
  LocationAttr found;
  getLoc()->walk([&](Location loc) {
    auto fused = dyn_cast<FusedLoc>(loc);
    auto metadata =
        fused ? dyn_cast_or_null<DictionaryAttr>(fused.getMetadata()) : nullptr;
    auto places =
        metadata ? metadata.getAs<DictionaryAttr>(kAlignedPromisesKey) : nullptr;
    if (places && (found = places.getAs<LocationAttr>(dim)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found;
}

Location KernelOp::withAlignedPromiseLocs(Location loc, DictionaryAttr places) {
  MLIRContext *context = loc->getContext();
  auto metadata = DictionaryAttr::get(
      context, {NamedAttribute(kAlignedPromisesKey, places)});
  return FusedLoc::get(context, {loc}, metadata);
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  for (BlockArgument arg : region.front().getArguments())
    if (arg.getArgNumber() < getNumArguments())
      if (auto name = getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    kNameAttrName))
        setNameFn(arg, name.getValue());
}

/// Checks that `space` names each dimension once.
static LogicalResult verifySpace(KernelOp op, ArrayAttr space,
                                 StringRef which) {
  llvm::StringSet<> seen;
  for (auto dim : space.getAsRange<TuneDimAttr>())
    if (!seen.insert(dim.getName().getValue()).second)
      return op.emitOpError() << which << " names '" << dim.getName().getValue()
                              << "' twice";
  return success();
}

static TuneDimAttr findDim(ArrayAttr space, StringRef name) {
  if (!space)
    return {};
  for (auto dim : space.getAsRange<TuneDimAttr>())
    if (dim.getName().getValue() == name)
      return dim;
  return {};
}

LogicalResult KernelOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("kernels return nothing, got ")
           << type.getNumResults() << " results";
  for (auto [index, argType] : llvm::enumerate(type.getInputs())) {
    // Parameter names become file names (phobos-run --save) and launch
    // argument names: identifiers only, never '../x' or '/etc/x'.
    if (Attribute name = getArgAttr(index, kNameAttrName)) {
      auto text = dyn_cast<StringAttr>(name);
      auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
      if (!text || text.getValue().empty() || llvm::isDigit(text.getValue()[0]) ||
          !llvm::all_of(text.getValue(), isWordChar))
        return emitOpError("'")
               << kNameAttrName << "' of argument " << index
               << " must be an identifier (letters, digits and '_'), got "
               << name;
    }
    if (auto tensor = dyn_cast<GlobalTensorType>(argType)) {
      auto dims = getArgAttrOfType<ArrayAttr>(index, kDimsAttrName);
      if (getArgAttr(index, kDimsAttrName) && !dims)
        return emitOpError("'") << kDimsAttrName << "' of argument " << index
                                << " must be an array of strings";
      if (dims && (static_cast<int64_t>(dims.size()) != tensor.getRank() ||
                   !llvm::all_of(dims, llvm::IsaPred<StringAttr>)))
        return emitOpError("'")
               << kDimsAttrName << "' of argument " << index << " must name "
               << tensor.getRank() << " dims";
      continue;
    }
    if (!isValidElementType(argType))
      return emitOpError("argument ")
             << index << " must be a !phobos.tensor or a scalar, got "
             << argType;
  }
  Block &entry = getBody().front();
  if (entry.getArgumentTypes() != type.getInputs())
    return emitOpError("entry block arguments must match the kernel's type");

  if (std::optional<uint32_t> threads = getMaxThreads())
    if (*threads % 32 != 0 || *threads > 1024)
      return emitOpError("max_threads must be a multiple of 32 up to 1024, got ")
             << *threads;

  ArrayAttr autotune = getAutotuneAttr();
  if (autotune && failed(verifySpace(*this, autotune, "autotune")))
    return failure();
  if (ArrayAttr cluster = getClusterAttr()) {
    if (failed(verifySpace(*this, cluster, "cluster")))
      return failure();
    for (auto dim : cluster.getAsRange<TuneDimAttr>())
      if (!findDim(autotune, dim.getName().getValue()))
        return emitOpError("cluster dimension '")
               << dim.getName().getValue() << "' is not an autotune dimension";
  }
  if (DictionaryAttr variant = getVariantAttr()) {
    for (NamedAttribute binding : variant) {
      auto value = dyn_cast<IntegerAttr>(binding.getValue());
      if (!value || !value.getType().isSignlessInteger() ||
          value.getType().isInteger(1))
        return emitOpError("variant value of '")
               << binding.getName().getValue() << "' must be an integer";
      TuneDimAttr dim = findDim(autotune, binding.getName().getValue());
      if (!dim)
        return emitOpError("variant binds '")
               << binding.getName().getValue()
               << "', which is not an autotune dimension";
      if (!llvm::is_contained(dim.getValues(), value.getInt()))
        return emitOpError("variant value ")
               << value.getInt() << " of '" << binding.getName().getValue()
               << "' is not in its search space";
    }
    if (autotune)
      for (auto dim : autotune.getAsRange<TuneDimAttr>())
        if (!variant.get(dim.getName()))
          return emitOpError("variant does not bind autotune dimension '")
                 << dim.getName().getValue() << "'";
  }
  if (DictionaryAttr aligned = getAlignedAttr())
    for (NamedAttribute promise : aligned) {
      auto value = dyn_cast<IntegerAttr>(promise.getValue());
      if (!value || !value.getType().isSignlessInteger() ||
          value.getType().isInteger(1) || value.getInt() <= 0)
        return emitOpError("aligned multiple of '")
               << promise.getName().getValue()
               << "' must be a positive integer";
    }
  return success();
}

//===----------------------------------------------------------------------===//
// BlockIdOp
//===----------------------------------------------------------------------===//

LogicalResult BlockIdOp::verify() {
  if (getGroup() && getAxis() == Axis::z)
    return emitOpError("groups only the x and y axes");
  return success();
}

std::pair<int64_t, int64_t> BlockIdOp::groupedIndex(int64_t x, int64_t y,
                                                    int64_t gx, int64_t gy,
                                                    int64_t group) {
  int64_t pid = y * gx + x;
  int64_t perGroup = group * gy;
  int64_t first = pid / perGroup * group;
  int64_t rows = std::min(gx - first, group);
  int64_t inGroup = pid % perGroup;
  return {first + inGroup % rows, inGroup / rows};
}

//===----------------------------------------------------------------------===//
// TileCoordOp
//===----------------------------------------------------------------------===//

LogicalResult TileCoordOp::verify() {
  if (getGroup() && getAxis() == Axis::z)
    return emitOpError("groups only the x and y axes");
  return success();
}

int64_t TileCoordOp::evaluate(Axis axis, int64_t tile, int64_t gx, int64_t gy,
                              std::optional<int64_t> group) {
  int64_t x = tile % gx, y = tile / gx % gy;
  if (axis == Axis::z)
    return tile / (gx * gy);
  if (group) {
    auto [gxIndex, gyIndex] = BlockIdOp::groupedIndex(x, y, gx, gy, *group);
    return axis == Axis::x ? gxIndex : gyIndex;
  }
  return axis == Axis::x ? x : y;
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  if (static_cast<int64_t>(getIndex()) >= getTensor().getType().getRank())
    return emitOpError("index ")
           << getIndex() << " is out of range for a tensor of rank "
           << getTensor().getType().getRank();
  return success();
}

// dim(static extent) -> constant
OpFoldResult DimOp::fold(FoldAdaptor) {
  GlobalTensorType type = getTensor().getType();
  if (static_cast<int64_t>(getIndex()) >= type.getRank() ||
      type.isDynamicDim(getIndex()) ||
      type.getDimSize(getIndex()) > std::numeric_limits<int32_t>::max())
    return {};
  return IntegerAttr::get(IntegerType::get(getContext(), 32),
                          type.getDimSize(getIndex()));
}

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

/// The rules shared by load and store: one offset per tensor axis, point
/// axes in order and in range, the tile's rank the rest, one element type.
static LogicalResult verifySliceAccess(Operation *op, GlobalTensorType tensor,
                                       TileType tile, size_t numOffsets,
                                       ArrayRef<int64_t> pointAxes,
                                       std::optional<ArrayRef<bool>> inBounds) {
  int64_t rank = tensor.getRank();
  if (static_cast<int64_t>(numOffsets) != rank)
    return op->emitOpError("expects ")
           << rank << " offsets, one per tensor axis, got " << numOffsets;
  for (auto [index, axis] : llvm::enumerate(pointAxes)) {
    if (axis < 0 || axis >= rank)
      return op->emitOpError("point axis ") << axis << " is out of range";
    if (index > 0 && pointAxes[index - 1] >= axis)
      return op->emitOpError("point axes must be strictly increasing");
  }
  if (tile.getRank() + static_cast<int64_t>(pointAxes.size()) != rank)
    return op->emitOpError("tile rank ")
           << tile.getRank() << " plus " << pointAxes.size()
           << " point axes must equal the tensor rank " << rank;
  if (tile.getElementType() != tensor.getElementType())
    return op->emitOpError("tile element type ")
           << tile.getElementType() << " differs from the tensor's "
           << tensor.getElementType();
  if (inBounds && static_cast<int64_t>(inBounds->size()) != rank)
    return op->emitOpError("in_bounds needs one flag per tensor axis");
  return success();
}

LogicalResult LoadOp::verify() {
  return verifySliceAccess(*this, getTensor().getType(), getType(),
                           getOffsets().size(), getPointAxes(), getInBounds());
}

LogicalResult StoreOp::verify() {
  return verifySliceAccess(*this, getTensor().getType(), getValue().getType(),
                           getOffsets().size(), getPointAxes(), getInBounds());
}

LogicalResult AtomicAddOp::verify() {
  GlobalTensorType tensor = getTensor().getType();
  Type element = tensor.getElementType();
  if (!element.isF32() && !element.isF64() && !element.isInteger(32) &&
      !element.isInteger(64))
    return emitOpError("adds to f32, f64, i32 or i64 tensors, not ")
           << element;
  if (auto tile = dyn_cast<TileType>(getValue().getType())) {
    return verifySliceAccess(*this, tensor, tile, getOffsets().size(),
                             getPointAxes(), getInBounds());
  }
  if (static_cast<int64_t>(getOffsets().size()) != tensor.getRank() ||
      static_cast<int64_t>(getPointAxes().size()) != tensor.getRank())
    return emitOpError("a scalar value needs a point on every tensor axis");
  for (auto [index, axis] : llvm::enumerate(getPointAxes()))
    if (axis != static_cast<int64_t>(index))
      return emitOpError("a scalar value needs a point on every tensor axis");
  if (getValue().getType() != element)
    return emitOpError("scalar type ")
           << getValue().getType() << " differs from the tensor's " << element;
  if (std::optional<ArrayRef<bool>> inBounds = getInBounds();
      inBounds && static_cast<int64_t>(inBounds->size()) != tensor.getRank())
    return emitOpError("in_bounds needs one flag per tensor axis");
  return success();
}

LogicalResult LoadScalarOp::verify() {
  if (static_cast<int64_t>(getIndices().size()) !=
      getTensor().getType().getRank())
    return emitOpError("expects one index per tensor axis");
  return success();
}

LogicalResult StoreScalarOp::verify() {
  if (static_cast<int64_t>(getIndices().size()) !=
      getTensor().getType().getRank())
    return emitOpError("expects one index per tensor axis");
  return success();
}

//===----------------------------------------------------------------------===//
// ArangeOp, ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  if (getType().getRank() != 1)
    return emitOpError("result must be a rank-1 tile");
  return success();
}

LogicalResult ReshapeOp::verify() {
  TileType source = getSource().getType(), result = getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError("cannot change the element type");
  if (source.getNumElements() != result.getNumElements())
    return emitOpError("cannot reshape ")
           << source.getNumElements() << " elements into "
           << result.getNumElements();
  return success();
}

// reshape(x : T -> T) -> x ; reshape(reshape(x)) -> reshape(x)
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  if (auto inner = getSource().getDefiningOp<ReshapeOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  TileType source = getSource().getType(), result = getType();
  SmallVector<int64_t> shape;
  if (source.getElementType() != result.getElementType())
    return emitOpError("cannot change the element type");
  if (!broadcastShapes(source.getShape(), result.getShape(), shape) ||
      ArrayRef<int64_t>(shape) != result.getShape())
    return emitOpError("cannot broadcast ")
           << shapeString(source.getShape()) << " to "
           << shapeString(result.getShape());
  return success();
}

// broadcast(x : T -> T) -> x
OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return {};
}

//===----------------------------------------------------------------------===//
// Broadcasting element-wise ops
//===----------------------------------------------------------------------===//

/// The broadcast tile type of `operands`, with elements of `elementType`.
static LogicalResult inferBroadcastType(std::optional<Location> location,
                                        TypeRange operands, Type elementType,
                                        SmallVectorImpl<Type> &inferred) {
  SmallVector<int64_t> shape;
  bool anyTile = false;
  for (Type type : operands) {
    anyTile |= isa<TileType>(type);
    SmallVector<int64_t> next;
    if (!broadcastShapes(shape, shapeOf(type), next)) {
      if (location)
        return emitError(*location, "shapes ")
               << shapeString(shape) << " and " << shapeString(shapeOf(type))
               << " do not broadcast";
      return failure();
    }
    shape = std::move(next);
  }
  if (!anyTile) {
    if (location)
      return emitError(*location, "needs at least one tile operand");
    return failure();
  }
  if (!isValidElementType(elementType)) {
    if (location)
      return emitError(*location, "element type ")
             << elementType << " is not a tile element type";
    return failure();
  }
  // The layout carries over when every tile operand agrees on it: an
  // operand of the result's rank holds it as is (an extent-1 axis wraps),
  // a lower-rank one as that layout sliced along its missing leading axes
  // (see sliceToRank), which is what broadcasting without moving data
  // needs.
  Attribute encoding;
  bool first = true;
  for (Type type : operands) {
    auto tile = dyn_cast<TileType>(type);
    if (!tile)
      continue;
    Attribute lifted = tile.getEncoding();
    for (int64_t missing = shape.size() - tile.getRank(); missing > 0 && lifted;
         --missing) {
      auto slice = dyn_cast<SliceLayoutAttr>(lifted);
      lifted = slice && slice.getDim() == 0 ? slice.getParent() : Attribute();
    }
    if (first)
      encoding = lifted;
    else if (encoding != lifted)
      encoding = Attribute();
    first = false;
  }
  inferred.push_back(
      TileType::get(elementType.getContext(), shape, elementType, encoding));
  return success();
}

/// Element-type checks of the broadcasting ops. `kind` says what elements
/// the value operands accept.
enum class ElementKind { Numeric, Bool, Any };

static LogicalResult verifyBroadcastOperands(Operation *op, ValueRange values,
                                             ElementKind kind) {
  Type element = elementTypeOf(values.front().getType());
  for (Value value : values.drop_front())
    if (elementTypeOf(value.getType()) != element)
      return op->emitOpError("operands must share an element type, got ")
             << element << " and " << elementTypeOf(value.getType());
  if (kind == ElementKind::Numeric && element.isInteger(1))
    return op->emitOpError("expects numeric operands, got i1");
  if (kind == ElementKind::Bool && !element.isInteger(1))
    return op->emitOpError("expects i1 operands, got ") << element;
  return success();
}

#define PHOBOS_BINARY_OP(OpName, Kind)                                         \
  LogicalResult OpName::inferReturnTypes(                                      \
      MLIRContext *, std::optional<Location> location, ValueRange operands,    \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &inferred) {                                       \
    if (operands.size() != 2)                                                  \
      return failure();                                                        \
    return inferBroadcastType(location, operands.getTypes(),                   \
                              elementTypeOf(operands[0].getType()), inferred); \
  }                                                                            \
  LogicalResult OpName::verify() {                                             \
    return verifyBroadcastOperands(*this, {getLhs(), getRhs()},                \
                                   ElementKind::Kind);                         \
  }

PHOBOS_BINARY_OP(AddOp, Numeric)
PHOBOS_BINARY_OP(SubOp, Numeric)
PHOBOS_BINARY_OP(MulOp, Numeric)
PHOBOS_BINARY_OP(DivOp, Numeric)
PHOBOS_BINARY_OP(RemOp, Numeric)
PHOBOS_BINARY_OP(MaxOp, Numeric)
PHOBOS_BINARY_OP(MinOp, Numeric)
PHOBOS_BINARY_OP(AndOp, Bool)
PHOBOS_BINARY_OP(OrOp, Bool)
#undef PHOBOS_BINARY_OP

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> location,
                                      ValueRange operands, DictionaryAttr,
                                      OpaqueProperties, RegionRange,
                                      SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return failure();
  return inferBroadcastType(location, operands.getTypes(),
                            IntegerType::get(context, 1), inferred);
}

LogicalResult CmpOp::verify() {
  return verifyBroadcastOperands(*this, {getLhs(), getRhs()},
                                 ElementKind::Any);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         ValueRange operands, DictionaryAttr,
                                         OpaqueProperties, RegionRange,
                                         SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 3)
    return failure();
  return inferBroadcastType(location, operands.getTypes(),
                            elementTypeOf(operands[1].getType()), inferred);
}

LogicalResult SelectOp::verify() {
  return verifyBroadcastOperands(*this, {getTrueValue(), getFalseValue()},
                                 ElementKind::Any);
}

namespace {
/// add(acc, dot(a, b)) -> dot(a, b, acc), when the dot has no other use and
/// `acc` already has the dot's type (no broadcast hides in the add).
struct FuseAddIntoDot : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned side = 0; side < 2; ++side) {
      Value product = add->getOperand(side);
      Value acc = add->getOperand(1 - side);
      auto dot = product.getDefiningOp<DotOp>();
      // Same block: a dot hoisted out of a loop must not move back in.
      if (!dot || dot.getAcc() || !dot->hasOneUse() ||
          dot->getBlock() != add->getBlock() ||
          acc.getType() != dot.getType() || add.getType() != dot.getType())
        continue;
      rewriter.replaceOpWithNewOp<DotOp>(add, dot.getType(), dot.getA(),
                                         dot.getB(), acc, dot.getPrecisionAttr(),
                                         dot.getTransposeBAttr(),
                                         dot.getKindAttr(), dot.getInFlightAttr(),
                                         dot.getSwapAbAttr());
      rewriter.eraseOp(dot);
      return success();
    }
    return failure();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<FuseAddIntoDot>(context);
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  if (getSource().getType().getShape() != getType().getShape())
    return emitOpError("cannot change the shape from ")
           << shapeString(getSource().getType().getShape()) << " to "
           << shapeString(getType().getShape());
  return success();
}

// cast(x : T to T) -> x
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return {};
}

//===----------------------------------------------------------------------===//
// DotOp
//===----------------------------------------------------------------------===//

/// The shape and element type of a tile or shared-memory operand.
static std::pair<ArrayRef<int64_t>, Type> shapeAndElement(Type type) {
  if (auto smem = dyn_cast<SharedMemoryType>(type))
    return {smem.getShape(), smem.getElementType()};
  auto tile = cast<TileType>(type);
  return {tile.getShape(), tile.getElementType()};
}

/// A dot on promoted operands reads them from shared memory; on register
/// tiles it has no effect.
void DotOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand *operand : {&getAMutable(), &getBMutable()})
    if (isa<SharedMemoryType>(operand->get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), operand,
                           SharedMemoryResource::get());
}

LogicalResult DotOp::verify() {
  auto [aShape, aElement] = shapeAndElement(getA().getType());
  auto [bShape, bElement] = shapeAndElement(getB().getType());
  TileType result = getType();
  if (aShape.size() != 2 || bShape.size() != 2 || result.getRank() != 2)
    return emitOpError("operands and result must be rank 2");
  if (getInFlight() && getKind() != DotKind::wgmma)
    return emitOpError("in_flight needs kind(wgmma): only warpgroup MMAs "
                       "run asynchronously");
  if (getSwapAb() && (getKind() != DotKind::wgmma || getTransposeB()))
    return emitOpError("swap_ab needs kind(wgmma) and a b that is not "
                       "transposed");
  if (getTransposeA() &&
      (getKind() != DotKind::wgmma || getSwapAb() ||
       !isa<SharedMemoryType>(getA().getType()) ||
       aElement.getIntOrFloatBitWidth() != 16))
    return emitOpError("transpose_a needs kind(wgmma) without swap_ab and a "
                       "16-bit a in shared memory");
  // Shared-memory operands may hold f32 operands rounded to f16/bf16.
  bool promoted = isa<SharedMemoryType>(getA().getType()) ||
                  isa<SharedMemoryType>(getB().getType());
  if (aElement != bElement && !promoted)
    return emitOpError("operands must share an element type, got ")
           << aElement << " and " << bElement;
  int64_t m = getTransposeA() ? aShape[1] : aShape[0];
  int64_t k = getTransposeA() ? aShape[0] : aShape[1];
  int64_t bk = getTransposeB() ? bShape[1] : bShape[0];
  int64_t n = getTransposeB() ? bShape[0] : bShape[1];
  if (k != bk)
    return emitOpError("inner dimensions differ: ")
           << shapeString(aShape) << " x " << shapeString(bShape)
           << (getTransposeA() ? " (a transposed)" : "")
           << (getTransposeB() ? " (b transposed)" : "");
  if (result.getDimSize(0) != m || result.getDimSize(1) != n)
    return emitOpError("result must be ")
           << shapeString({m, n}) << ", got " << shapeString(result.getShape());
  Type expected = aElement.isF64() ? Type(Float64Type::get(getContext()))
                                   : Type(Float32Type::get(getContext()));
  if (result.getElementType() != expected)
    return emitOpError("result element type must be ")
           << expected << " for " << aElement << " operands";
  if (getAcc() && getAcc().getType() != result)
    return emitOpError("accumulator must have the result's type");
  if (getPrecision() != DotPrecision::ieee && !aElement.isF32() && !promoted)
    return emitOpError("precision '")
           << stringifyDotPrecision(getPrecision())
           << "' applies to f32 operands only";
  return success();
}

LogicalResult WgmmaWaitOp::verify() {
  // What a wait passes on or holds is a wgmma's accumulator or tf32
  // fragments: 32-bit float registers.
  if (!getValue().getType().getElementType().isF32())
    return emitOpError("waits for an f32 accumulator, got ")
           << getValue().getType();
  if (getHeld()) {
    Type held = cast<TileType>(getHeld().getType()).getElementType();
    if (!held.isF32() && !held.isF16() && !held.isBF16())
      return emitOpError("holds f32 (tf32 fragments), f16 or bf16 registers "
                         "(a register A operand), got ")
             << getHeld().getType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp, CumsumOp, TrilOp, TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  TileType operand = getOperand().getType();
  if (static_cast<int64_t>(getAxis()) >= operand.getRank())
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << operand.getRank();
  SmallVector<int64_t> expected(operand.getShape());
  expected[getAxis()] = 1;
  if (getType().getShape() != ArrayRef<int64_t>(expected) ||
      getType().getElementType() != operand.getElementType())
    return emitOpError("result must be ")
           << TileType::get(expected, operand.getElementType());
  if (getKeepLanePartials() || getCombineLanePartials()) {
    if (getKind() != ReduceKind::sum)
      return emitOpError("lane partials are kept and combined only for sums");
    if (getKeepLanePartials() && getCombineLanePartials())
      return emitOpError("keeps lane partials or combines them, not both");
    if (getCombineLanePartials() && operand.getShape()[getAxis()] != 1)
      return emitOpError("combines lane partials only of an operand of "
                         "extent 1 along the axis");
  }
  return success();
}

LogicalResult CumsumOp::verify() {
  if (static_cast<int64_t>(getAxis()) >= getType().getRank())
    return emitOpError("axis ") << getAxis() << " is out of range for rank "
                                << getType().getRank();
  return success();
}

LogicalResult TrilOp::verify() {
  if (getType().getRank() != 2)
    return emitOpError("expects a rank-2 tile");
  return success();
}

LogicalResult TransposeOp::verify() {
  TileType operand = getOperand().getType(), result = getType();
  if (operand.getRank() != 2)
    return emitOpError("expects a rank-2 tile");
  if (result.getRank() != 2 || result.getDimSize(0) != operand.getDimSize(1) ||
      result.getDimSize(1) != operand.getDimSize(0) ||
      result.getElementType() != operand.getElementType())
    return emitOpError("result must be ")
           << TileType::get({operand.getDimSize(1), operand.getDimSize(0)},
                            operand.getElementType());
  return success();
}

// transpose(transpose(x)) -> x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (auto inner = getOperand().getDefiningOp<TransposeOp>())
    if (inner.getOperand().getType() == getType())
      return inner.getOperand();
  return {};
}

//===----------------------------------------------------------------------===//
// ConvertLayoutOp, LocalAllocOp, LocalLoadOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  TileType source = getSource().getType(), result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError("changes only the layout: shapes and element types "
                       "must agree");
  return success();
}

// convert_layout(x : T -> T) -> x; convert_layout(convert_layout(x)) ->
// convert_layout(x)
OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  if (auto inner = getSource().getDefiningOp<ConvertLayoutOp>()) {
    getSourceMutable().assign(inner.getSource());
    return getResult();
  }
  return {};
}

LogicalResult LocalAllocOp::verify() {
  TileType source = getSource().getType();
  SharedMemoryType result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError("the buffer must have the tile's shape and element "
                       "type");
  return success();
}

LogicalResult LocalLoadOp::verify() {
  SharedMemoryType source = getSource().getType();
  TileType result = getType();
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError("the tile must have the buffer's shape and element "
                       "type");
  return success();
}

LogicalResult LocalStoreOp::verify() {
  TileType value = getValue().getType();
  SharedMemoryType destination = getDestination().getType();
  if (value.getShape() != destination.getShape() ||
      value.getElementType() != destination.getElementType())
    return emitOpError("the buffer must have the tile's shape and element "
                       "type");
  return success();
}

#define GET_OP_CLASSES
#include "Phobos/Dialect/Tile/IR/TileOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Software pipelines
//===----------------------------------------------------------------------===//

SharedMemoryType phobos::tile::getSlotType(SharedMemoryType buffer) {
  auto layout = cast<SharedLayoutAttr>(buffer.getLayout());
  if (layout.getOrder().size() + 1 != buffer.getShape().size())
    return {};
  return SharedMemoryType::get(buffer.getContext(),
                               buffer.getShape().drop_front(),
                               buffer.getElementType(), layout);
}

SharedMemoryType phobos::tile::getStagedType(SharedMemoryType slot,
                                             int64_t stages) {
  SmallVector<int64_t> shape{stages};
  llvm::append_range(shape, slot.getShape());
  return SharedMemoryType::get(slot.getContext(), shape, slot.getElementType(),
                               slot.getLayout());
}

LogicalResult LocalBufferOp::verify() {
  SharedMemoryType type = getType();
  if (type.getShape().size() < 2 || !getSlotType(type))
    return emitOpError("a staged buffer needs a leading stage axis (one axis "
                       "more than its layout), got ")
           << type;
  return success();
}

LogicalResult BufferSlotOp::verify() {
  SharedMemoryType slot = getSlotType(getBuffer().getType());
  if (!slot)
    return emitOpError("reads a slot of a buffer that has no stage axis: ")
           << getBuffer().getType();
  if (slot != getType())
    return emitOpError("a slot of ")
           << getBuffer().getType() << " has type " << slot << ", not "
           << getType();
  if (getLag() < 0 || getLag() >= getBuffer().getType().getShape().front())
    return emitOpError("lag ")
           << getLag() << " is outside the buffer's "
           << getBuffer().getType().getShape().front() << " stages";
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  auto slice = cast<TileType>(getSlice());
  if (failed(verifySliceAccess(*this, getTensor().getType(), slice,
                               getOffsets().size(), getPointAxes(),
                               getInBounds())))
    return failure();
  if (!isa_and_nonnull<DistributedLayoutInterface>(slice.getEncoding()))
    return emitOpError("the slice needs a distributed layout (who copies "
                       "what), got ")
           << slice;
  SharedMemoryType destination = getDestination().getType();
  if (destination.getShape() != slice.getShape() ||
      destination.getElementType() != slice.getElementType())
    return emitOpError("copies a ")
           << slice << " into a buffer of another shape or element type: "
           << destination;
  return success();
}

//===----------------------------------------------------------------------===//
// TMA copies and mbarriers
//===----------------------------------------------------------------------===//

/// An array of mbarriers: one axis of i64.
static LogicalResult verifyBarriers(Operation *op, SharedMemoryType type) {
  if (type.getShape().size() != 1 || !type.getElementType().isInteger(64))
    return op->emitOpError("mbarriers are a one-axis buffer of i64, got ")
           << type;
  return success();
}

LogicalResult LocalBarriersOp::verify() {
  return verifyBarriers(*this, getType());
}

LogicalResult TmaCopyOp::verify() {
  GlobalTensorType tensor = getTensor().getType();
  SharedMemoryType destination = getDestination().getType();
  if (tensor.getRank() < 2 || tensor.getRank() > 3 ||
      destination.getShape().size() != 2)
    return emitOpError("copies a box of a 2-D tensor (or of one plane of a "
                       "3-D one) into a 2-D buffer, got ")
           << tensor << " and " << destination;
  if (static_cast<int64_t>(getOffsets().size()) != tensor.getRank())
    return emitOpError("needs ")
           << tensor.getRank() << " offsets, got " << getOffsets().size();
  if (tensor.getElementType() != destination.getElementType())
    return emitOpError("copies ")
           << tensor.getElementType() << " elements into a buffer of "
           << destination.getElementType();
  auto layout = dyn_cast<SharedLayoutAttr>(destination.getLayout());
  if (!layout || !layout.getAtom() || layout.getOrder().front() != 1)
    return emitOpError("the destination needs an atom layout whose "
                       "contiguous axis is the tensor's last, got ")
           << destination;
  int64_t rows = destination.getShape()[0], cols = destination.getShape()[1];
  if (rows > 256 || cols % layout.getAtom() != 0)
    return emitOpError("a TMA box has at most 256 rows and whole atoms, got ")
           << destination;
  if (failed(verifyBarriers(*this, getBarriers().getType())))
    return failure();
  if (!getReleased() != !getParity())
    return emitOpError("the released mbarriers and the parity go together");
  if (Value released = getReleased()) {
    if (failed(
            verifyBarriers(*this, cast<SharedMemoryType>(released.getType()))))
      return failure();
    if (cast<SharedMemoryType>(released.getType()).getShape() !=
        getBarriers().getType().getShape())
      return emitOpError("the released mbarriers pair with the arrival ones "
                         "(one per slot), got ")
             << released.getType() << " and " << getBarriers().getType();
  }
  auto argument = dyn_cast<BlockArgument>(getTensor());
  if (!argument || !isa<KernelOp>(argument.getOwner()->getParentOp()))
    return emitOpError("the tensor must be a kernel parameter (its tensor map "
                       "is passed with the launch)");
  return success();
}

LogicalResult MbarrierWaitOp::verify() {
  return verifyBarriers(*this, getBarriers().getType());
}

LogicalResult MbarrierArriveOp::verify() {
  return verifyBarriers(*this, getBarriers().getType());
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

/// Matches `id(axis)` or `id(axis) * constant` (either order), where `id`
/// is a `phobos.block_id` or, in a persistent kernel, a `phobos.tile_coord`:
/// the axis and the multiplier.
static std::optional<std::pair<int, int64_t>> matchBlockOffset(Value value) {
  auto axisOf = [](Value v) -> std::optional<int> {
    if (auto id = v.getDefiningOp<BlockIdOp>())
      return static_cast<int>(id.getAxis());
    if (auto coord = v.getDefiningOp<TileCoordOp>())
      return static_cast<int>(coord.getAxis());
    return std::nullopt;
  };
  if (std::optional<int> axis = axisOf(value))
    return std::make_pair(*axis, int64_t(1));
  auto mul = value.getDefiningOp<arith::MulIOp>();
  if (!mul)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    std::optional<int> axis = axisOf(mul->getOperand(side));
    APInt factor;
    if (axis &&
        matchPattern(mul->getOperand(1 - side), m_ConstantInt(&factor)) &&
        factor.getSExtValue() > 0)
      return std::make_pair(*axis, factor.getSExtValue());
  }
  return std::nullopt;
}

void KernelOp::getGridTerms(std::array<SmallVector<GridTerm>, 3> &terms,
                            std::array<bool, 3> &axisUsed) {
  Block &entry = getBody().front();
  for (int axis = 0; axis < 3; ++axis) {
    terms[axis].clear();
    axisUsed[axis] = false;
  }
  auto visit = [&](Value tensor, ValueRange offsets) {
    auto argument = dyn_cast<BlockArgument>(tensor);
    if (!argument || argument.getOwner() != &entry)
      return;
    for (auto [tensorAxis, offset] : llvm::enumerate(offsets)) {
      std::optional<std::pair<int, int64_t>> match = matchBlockOffset(offset);
      if (!match)
        continue;
      GridTerm term{argument.getArgNumber(), static_cast<unsigned>(tensorAxis),
                    match->second};
      // Extents of the same name are equal at launch: one term each.
      auto nameOf = [&](const GridTerm &t) -> std::string {
        SmallVector<StringRef> names = getArgDimNames(t.argument);
        if (t.tensorAxis < names.size())
          return names[t.tensorAxis].str();
        return getArgName(t.argument) + "." + std::to_string(t.tensorAxis);
      };
      SmallVector<GridTerm> &list = terms[match->first];
      if (llvm::none_of(list, [&](const GridTerm &t) {
            return t.divisor == term.divisor &&
                   ((t.argument == term.argument &&
                     t.tensorAxis == term.tensorAxis) ||
                    nameOf(t) == nameOf(term));
          }))
        list.push_back(term);
    }
  };
  // In a persistent kernel the hardware's block index only walks the tiles.
  bool persistent = false;
  walk([&](TileCoordOp) { persistent = true; });
  walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      visit(load.getTensor(), load.getOffsets());
    else if (auto store = dyn_cast<StoreOp>(op))
      visit(store.getTensor(), store.getOffsets());
    else if (auto load = dyn_cast<LoadScalarOp>(op))
      visit(load.getTensor(), load.getIndices());
    else if (auto store = dyn_cast<StoreScalarOp>(op))
      visit(store.getTensor(), store.getIndices());
    else if (auto atomic = dyn_cast<AtomicAddOp>(op))
      visit(atomic.getTensor(), atomic.getOffsets());
    else if (auto id = dyn_cast<BlockIdOp>(op); id && !persistent)
      axisUsed[static_cast<int>(id.getAxis())] = true;
    else if (auto coord = dyn_cast<TileCoordOp>(op))
      axisUsed[static_cast<int>(coord.getAxis())] = true;
  });
}

int64_t KernelOp::getLaunchThreads() {
  bool specialized = false;
  for (Operation &op : getBody().front())
    specialized |= isa<WarpSpecializeOp>(op);
  return getCtaSize() + (specialized ? WarpSpecializeOp::kProducerThreads : 0);
}

LogicalResult WarpgroupTurnOp::verify() {
  auto split = (*this)->getParentOfType<WarpSpecializeOp>();
  if (!split || !split.getConsumer().isAncestor((*this)->getParentRegion()))
    return emitOpError("orders the consumer warpgroups of a warp_specialize "
                       "and belongs in its consumer region");
  int64_t threads = (*this)->getParentOfType<KernelOp>().getCtaSize();
  if (threads < 2 * WarpSpecializeOp::kProducerThreads)
    return emitOpError("needs at least two consumer warpgroups (256 "
                       "threads), got ")
           << threads;
  return success();
}

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel.getCtaSize() % kProducerThreads != 0)
    return emitOpError("needs a CTA of whole warpgroups (a multiple of 128 "
                       "threads), got ")
           << kernel.getCtaSize();
  for (int32_t registers : {getProducerRegisters(), getConsumerRegisters()})
    if (registers % 8 != 0)
      return emitOpError("register counts are multiples of 8 (setmaxnreg), "
                         "got ")
             << registers;
  if (llvm::count_if(kernel.getBody().front(), [](Operation &op) {
        return isa<WarpSpecializeOp>(op);
      }) > 1)
    return emitOpError("a kernel is split into roles once");
  // The producer's threads hold no part of a tile (the layouts cover the
  // consumers) and do not take part in the consumers' barriers.
  WalkResult walk = getProducer().walk([&](Operation *op) -> WalkResult {
    if (isa<BarrierOp, MbarrierArriveOp>(op)) {
      op->emitOpError("is not allowed in a warp_specialize producer (only "
                      "the consumers synchronise this way)");
      return WalkResult::interrupt();
    }
    auto isTile = [](Type type) { return isa<TileType>(type); };
    if (llvm::any_of(op->getOperandTypes(), isTile) ||
        llvm::any_of(op->getResultTypes(), isTile)) {
      op->emitOpError("computes on a tile in a warp_specialize producer, "
                      "whose threads hold none");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
