//===- TileTypes.cpp - Types and attributes of the phobos dialect ---------===//
//
// Parsing, printing and verification of !phobos.tile, !phobos.tensor and
// #phobos.tune_dim, and the broadcasting rule.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phobos::tile;

#include "Phobos/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Phobos/Dialect/Tile/IR/TileOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Phobos/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Phobos/Dialect/Tile/IR/TileOpsTypes.cpp.inc"
      >();
}

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Phobos/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

bool phobos::tile::isValidElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  return type.isSignlessInteger(1) || type.isSignlessInteger(32) ||
         type.isSignlessInteger(64);
}

bool phobos::tile::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                   SmallVectorImpl<int64_t> &result) {
  size_t rank = std::max(lhs.size(), rhs.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    if (l != r && l != 1 && r != 1)
      return false;
    result[rank - 1 - i] = l == 1 ? r : l;
  }
  return true;
}

/// Parses `<d0xd1x...xT` (the caller parses what follows).
static ParseResult parseShapeAndElement(AsmParser &parser, bool allowDynamic,
                                        SmallVectorImpl<int64_t> &shape,
                                        Type &elementType) {
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, allowDynamic, /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                                 Type elementType) {
  printer << "<";
  for (int64_t extent : shape) {
    if (ShapedType::isDynamic(extent))
      printer << "?";
    else
      printer << extent;
    printer << "x";
  }
  printer << elementType;
}

static LogicalResult verifyShapeAndElement(
    function_ref<InFlightDiagnostic()> emitError, StringRef what,
    ArrayRef<int64_t> shape, Type elementType, bool allowDynamic) {
  if (shape.empty())
    return emitError() << what << " must have rank 1 or more";
  if (static_cast<int64_t>(shape.size()) > kMaxRank)
    return emitError() << what << " has " << shape.size()
                       << " axes; at most " << kMaxRank << " are allowed";
  // Element counts: a tile's must stay within kMaxTileElements, a tensor's
  // static extents within i32, so that no size product overflows int64.
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (allowDynamic && ShapedType::isDynamic(extent))
      continue;
    if (ShapedType::isDynamic(extent))
      return emitError() << what << " extents must be static";
    if (extent <= 0)
      return emitError() << what << " extents must be positive, got "
                         << extent;
    if (allowDynamic && extent > kMaxTensorExtent)
      return emitError() << what << " extent " << extent
                         << " is beyond the 32-bit index range (at most "
                         << kMaxTensorExtent << ")";
    if (!allowDynamic) {
      if (extent > kMaxTileElements ||
          elements > kMaxTileElements / extent)
        return emitError() << what << " has more than " << kMaxTileElements
                           << " elements";
      elements *= extent;
    }
  }
  if (!isValidElementType(elementType))
    return emitError() << what
                       << " element type must be f16, bf16, f32, f64, i1, "
                          "i32 or i64, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// TileType
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parseShapeAndElement(parser, /*allowDynamic=*/false, shape, elementType))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseAttribute(encoding))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(parser.getContext(), shape, elementType,
                                     encoding);
}

void TileType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  if (getEncoding())
    printer << ", " << getEncoding();
  printer << ">";
}

/// The rank a distributed layout applies to (0 for other attributes).
static unsigned layoutRank(Attribute layout) {
  auto distributed = dyn_cast_or_null<DistributedLayoutInterface>(layout);
  return distributed ? distributed.getRank() : 0;
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               Attribute encoding) {
  if (failed(verifyShapeAndElement(emitError, "tile", shape, elementType,
                                   /*allowDynamic=*/false)))
    return failure();
  // The encoding says which thread holds which element: only a distributed
  // layout does (a shared layout belongs to shared memory), and it must
  // describe as many axes as the tile has.
  if (!encoding)
    return success();
  unsigned rank = layoutRank(encoding);
  if (!rank)
    return emitError() << "a tile's encoding must be a blocked, mma or slice "
                          "layout, not "
                       << encoding;
  if (rank != shape.size())
    return emitError() << "a rank-" << rank << " layout cannot hold a rank-"
                       << shape.size() << " tile";
  return success();
}

TileType TileType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                             Type elementType) const {
  if (shape)
    return TileType::get(getContext(), *shape, elementType, Attribute());
  return TileType::get(getContext(), getShape(), elementType, getEncoding());
}

//===----------------------------------------------------------------------===//
// GlobalTensorType
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parseShapeAndElement(parser, /*allowDynamic=*/true, shape, elementType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<GlobalTensorType>(parser.getContext(), shape,
                                       elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ">";
}

LogicalResult GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType) {
  return verifyShapeAndElement(emitError, "tensor", shape, elementType,
                               /*allowDynamic=*/true);
}

GlobalTensorType GlobalTensorType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                 Type elementType) const {
  return GlobalTensorType::get(getContext(), shape ? *shape : getShape(),
                         elementType);
}

//===----------------------------------------------------------------------===//
// SharedMemoryType
//===----------------------------------------------------------------------===//

Type SharedMemoryType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute layout;
  if (parseShapeAndElement(parser, /*allowDynamic=*/false, shape,
                           elementType) ||
      parser.parseComma() || parser.parseAttribute(layout) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<SharedMemoryType>(parser.getContext(), shape,
                                             elementType, layout);
}

void SharedMemoryType::print(AsmPrinter &printer) const {
  printShapeAndElement(printer, getShape(), getElementType());
  printer << ", " << getLayout() << ">";
}

LogicalResult
SharedMemoryType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType,
                         Attribute layout) {
  if (failed(verifyShapeAndElement(emitError, "shared memory buffer", shape,
                                   elementType, /*allowDynamic=*/false)))
    return failure();
  auto shared = dyn_cast<SharedLayoutAttr>(layout);
  if (!shared)
    return emitError() << "shared memory buffer layout must be a "
                          "#phobos.shared, got "
                       << layout;
  // A staged buffer (the slots of a software pipeline) has one axis more
  // than its layout: the leading stage axis.
  if (shared.getOrder().size() != shape.size() &&
      shared.getOrder().size() + 1 != shape.size())
    return emitError() << "shared layout order has "
                       << shared.getOrder().size() << " axes for a rank-"
                       << shape.size() << " buffer";
  // The xor of a row's units stays inside the row.
  if (shared.isSwizzled()) {
    int64_t row = shape[shape.size() - shared.getOrder().size() +
                        shared.getOrder().front()];
    int64_t span = int64_t(shared.getVec()) * shared.getMaxPhase();
    if (row % span)
      return emitError() << "a swizzle of " << shared.getMaxPhase()
                         << " phases of " << shared.getVec()
                         << " elements needs rows of a multiple of " << span
                         << " elements, got " << row;
  }
  // Atoms split the row evenly, and hold whole groups of 8 rows (the core
  // matrices a wgmma descriptor steps over).
  if (unsigned atom = shared.getAtom()) {
    size_t first = shape.size() - shared.getOrder().size();
    int64_t row = shape[first + shared.getOrder().front()];
    int64_t rows = 1;
    for (size_t axis = 0; axis < shared.getOrder().size(); ++axis)
      if (axis != shared.getOrder().front())
        rows *= shape[first + axis];
    if (row % atom || rows % 8)
      return emitError() << "a shared layout of " << atom
                         << "-element atoms needs rows of a multiple of "
                         << atom << " elements and a multiple of 8 rows, got "
                         << rows << " rows of " << row;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

/// Whether `order` is a permutation of 0..n-1.
static bool isPermutation(ArrayRef<unsigned> order) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned axis : order) {
    if (axis >= order.size() || seen[axis])
      return false;
    seen[axis] = true;
  }
  return true;
}

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> sizePerThread,
                          ArrayRef<unsigned> threadsPerWarp,
                          ArrayRef<unsigned> warpsPerCTA,
                          ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (rank == 0 || sizePerThread.size() != rank ||
      threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "blocked layout needs one entry per axis in each "
                          "of its four lists";
  if (!isPermutation(order))
    return emitError() << "blocked layout order must be a permutation";
  unsigned lanes = 1;
  for (size_t axis = 0; axis < rank; ++axis) {
    if (sizePerThread[axis] == 0 || threadsPerWarp[axis] == 0 ||
        warpsPerCTA[axis] == 0)
      return emitError() << "blocked layout entries must be positive";
    lanes *= threadsPerWarp[axis];
  }
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32, got " << lanes;
  return success();
}

unsigned BlockedLayoutAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned count : getWarpsPerCTA())
    warps *= count;
  return warps;
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  unsigned rank = layoutRank(parent);
  if (!rank)
    return emitError() << "a slice layout's parent must be a blocked, mma or "
                          "slice layout";
  if (rank < 2 || dim >= rank)
    return emitError() << "cannot slice axis " << dim << " of a rank-" << rank
                       << " layout";
  return success();
}

LogicalResult
SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<unsigned> order, unsigned padding,
                         unsigned vec, unsigned perPhase, unsigned maxPhase,
                         unsigned atom) {
  if (order.empty() || !isPermutation(order))
    return emitError() << "shared layout order must be a permutation";
  for (auto [name, value] : {std::pair<StringRef, unsigned>{"vec", vec},
                             {"perPhase", perPhase},
                             {"maxPhase", maxPhase}})
    if (!llvm::isPowerOf2_32(value))
      return emitError() << "shared layout swizzle " << name
                         << " must be a power of two, got " << value;
  if (maxPhase > 1 && padding)
    return emitError() << "a swizzled shared layout has no padding";
  if (atom && (!llvm::isPowerOf2_32(atom) || padding || atom % vec ||
               atom < vec * maxPhase))
    return emitError() << "shared layout atom " << atom
                       << " must be a power of two, unpadded, and hold the "
                          "swizzle's units (vec * maxPhase = "
                       << vec * maxPhase << ")";
  return success();
}

Attribute SharedLayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<unsigned> order;
  unsigned padding = 0;
  SmallVector<unsigned, 3> swizzle;
  unsigned atom = 0;
  auto parseList = [&](SmallVectorImpl<unsigned> &values) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          unsigned value;
          if (parser.parseInteger(value))
            return failure();
          values.push_back(value);
          return success();
        });
  };
  if (parser.parseLess() || parser.parseKeyword("order") ||
      parser.parseEqual() || parseList(order) || parser.parseComma() ||
      parser.parseKeyword("padding") || parser.parseEqual() ||
      parser.parseInteger(padding))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("atom"))) {
      if (parser.parseEqual() || parser.parseInteger(atom))
        return {};
      continue;
    }
    if (parser.parseKeyword("swizzle") || parser.parseEqual() ||
        parseList(swizzle))
      return {};
    if (swizzle.size() != 3) {
      parser.emitError(at, "swizzle takes [vec, perPhase, maxPhase]");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  if (swizzle.empty())
    swizzle = {1, 1, 1};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), order, padding, swizzle[0],
                    swizzle[1], swizzle[2], atom);
}

void SharedLayoutAttr::print(AsmPrinter &printer) const {
  printer << "<order = [";
  llvm::interleaveComma(getOrder(), printer);
  printer << "], padding = " << getPadding();
  if (getVec() != 1 || getPerPhase() != 1 || getMaxPhase() != 1)
    printer << ", swizzle = [" << getVec() << ", " << getPerPhase() << ", "
            << getMaxPhase() << "]";
  if (getAtom())
    printer << ", atom = " << getAtom();
  printer << ">";
}

int64_t SharedLayoutAttr::getRowLength(ArrayRef<int64_t> shape) const {
  if (getAtom())
    return std::min<int64_t>(getAtom(), shape[getOrder().front()]);
  return shape[getOrder().front()] + getPadding();
}

int64_t SharedLayoutAttr::getOffset(ArrayRef<int64_t> shape,
                                    ArrayRef<int64_t> coords) const {
  ArrayRef<unsigned> order = getOrder();
  int64_t row = 0, stride = 1;
  for (size_t k = 1; k < order.size(); ++k) {
    row += coords[order[k]] * stride;
    stride *= shape[order[k]];
  }
  int64_t column = coords[order.front()];
  // With atoms: the atom column first (`stride` is now the row count).
  int64_t atomBase = 0;
  if (int64_t atom = getRowLength(shape); getAtom()) {
    atomBase = column / atom * stride * atom;
    column %= atom;
  }
  if (isSwizzled()) {
    int64_t phase = (row / getPerPhase()) % getMaxPhase();
    column ^= phase * getVec();
  }
  return atomBase + row * getRowLength(shape) + column;
}

int64_t SharedLayoutAttr::getVectorUnit(ArrayRef<int64_t> shape) const {
  return isSwizzled() ? getVec() : getRowLength(shape);
}

LogicalResult
MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2 || !warpsPerCTA[0] || !warpsPerCTA[1])
    return emitError() << "mma layout needs two positive warp counts";
  return success();
}

//===----------------------------------------------------------------------===//
// TuneDimAttr
//===----------------------------------------------------------------------===//

LogicalResult TuneDimAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  StringAttr name, ArrayRef<int64_t> values) {
  if (!name || name.getValue().empty())
    return emitError() << "search dimension needs a name";
  if (values.empty())
    return emitError() << "search dimension '" << name.getValue()
                       << "' needs at least one value";
  for (int64_t value : values)
    if (value <= 0)
      return emitError() << "search dimension '" << name.getValue()
                         << "' has a non-positive value " << value;
  return success();
}
