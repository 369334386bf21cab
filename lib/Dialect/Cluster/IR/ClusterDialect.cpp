//===- ClusterDialect.cpp - The phobos_cluster dialect --------------------===//
//
// Registers the dialect's ops and types, parses and prints the buffer type,
// and verifies the marks the front end leaves for the split.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Cluster/IR/ClusterOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace phobos::cluster;
namespace tile = phobos::tile;

#include "Phobos/Dialect/Cluster/IR/ClusterEnums.cpp.inc"
#include "Phobos/Dialect/Cluster/IR/ClusterOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Phobos/Dialect/Cluster/IR/ClusterOpsTypes.cpp.inc"

void ClusterDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Phobos/Dialect/Cluster/IR/ClusterOps.cpp.inc"
      >();
  registerTypes();
}

void ClusterDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Phobos/Dialect/Cluster/IR/ClusterOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseGreater())
    return {};
  return parser.getChecked<BufferType>(parser.getContext(), shape, element);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t extent : getShape())
    printer << extent << "x";
  printer << getElementType() << ">";
}

LogicalResult
BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "a buffer holds a super-tile of rank 1 or more";
  for (int64_t extent : shape)
    if (extent <= 0)
      return emitError() << "buffer extents must be positive, got " << extent;
  if (!tile::isValidElementType(elementType))
    return emitError() << "buffer element type must be a tile element type, got "
                       << elementType;
  return success();
}

int64_t BufferType::getNumElements() const {
  int64_t count = 1;
  for (int64_t extent : getShape())
    count *= extent;
  return count;
}

int64_t BufferType::getSizeInBytes() const {
  Type element = getElementType();
  int64_t bits = element.isInteger(1) ? 8 : element.getIntOrFloatBitWidth();
  return getNumElements() * (bits / 8);
}

//===----------------------------------------------------------------------===//
// The front end's marks
//===----------------------------------------------------------------------===//

/// The @cluster names of the kernel around `op`, or null when there is no
/// such kernel or it has no @cluster space.
static ArrayAttr clusterSpaceAround(Operation *op) {
  auto kernel = dyn_cast<tile::KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<tile::KernelOp>();
  return kernel ? kernel.getClusterAttr() : nullptr;
}

static bool inSpace(ArrayAttr space, StringRef name) {
  return llvm::any_of(space.getAsRange<tile::TuneDimAttr>(),
                      [&](tile::TuneDimAttr dim) {
                        return dim.getName().getValue() == name;
                      });
}

LogicalResult ClusterDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kMarkedAttrName) {
    if (!isa<tile::KernelOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitOpError("'")
             << name << "' is a unit attribute of a phobos.kernel";
    return success();
  }
  if (name == kDimAttrName) {
    auto constant = dyn_cast<arith::ConstantOp>(op);
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!constant || !isa<IntegerType>(constant.getType()) || !value ||
        value.getValue().empty())
      return op->emitOpError("'")
             << name << "' marks an integer arith.constant with the @cluster "
             << "name it stands for";
    ArrayAttr space = clusterSpaceAround(op);
    if (space && !inSpace(space, value.getValue()))
      return op->emitOpError("'")
             << name << "' names '" << value.getValue()
             << "', which is not in the kernel's @cluster space";
    return success();
  }
  if (name == kExtentsAttrName) {
    Value tensor;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      tensor = load.getTensor();
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      tensor = store.getTensor();
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!tensor || !names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return op->emitOpError("'")
             << name << "' is an array of strings on a phobos.load or "
             << "phobos.store";
    int64_t rank = cast<tile::GlobalTensorType>(tensor.getType()).getRank();
    if (static_cast<int64_t>(names.size()) != rank)
      return op->emitOpError("'") << name << "' needs one name per tensor axis ("
                                  << rank << "), got " << names.size();
    ArrayAttr space = clusterSpaceAround(op);
    for (auto extent : names.getAsRange<StringAttr>())
      if (space && !extent.getValue().empty() &&
          !inSpace(space, extent.getValue()))
        return op->emitOpError("'")
               << name << "' names '" << extent.getValue()
               << "', which is not in the kernel's @cluster space";
    return success();
  }
  return op->emitOpError("unknown attribute '") << name << "'";
}
