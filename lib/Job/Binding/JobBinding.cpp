//===- JobBinding.cpp - A job bound to its cluster program ----------------===//

#include "Phobos/Job/JobBinding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace phobos;
using namespace phobos::job;
namespace cluster = phobos::cluster;

namespace {
/// Binds the job's tensors and scalars to the program, reporting mistakes
/// at the job's lines.
class JobBinder {
public:
  JobBinder(const Job &job, cluster::ProgramOp program,
            BindingErrorReporter report)
      : job(job), program(program), report(report) {}

  bool bind(llvm::StringMap<int64_t> &dims);

private:
  bool error(llvm::SMLoc loc, const llvm::Twine &message) {
    report(loc, message);
    return false;
  }

  const Job &job;
  cluster::ProgramOp program;
  BindingErrorReporter report;
};
} // namespace

/// `A: tensor<f32>[M, K]`, as the kernel declares it.
static std::string describeParam(cluster::TensorOp tensor) {
  std::string text = (tensor.getSymName() + ": tensor<").str();
  llvm::raw_string_ostream os(text);
  os << tensor.getTensorType().getElementType() << ">[";
  llvm::interleaveComma(tensor.getDims(), os, [&](Attribute dim) {
    os << cast<StringAttr>(dim).getValue();
  });
  os << "]";
  return text;
}

bool JobBinder::bind(llvm::StringMap<int64_t> &dims) {
  MLIRContext *ctx = program.getContext();
  Builder builder(ctx);
  StringRef kernel = program.getSymName();
  llvm::StringSet<> kernelDims;
  for (const Dim &dim : job.dims)
    dims[dim.name] = dim.value;

  for (cluster::TensorOp tensor :
       program.getBody().front().getOps<cluster::TensorOp>()) {
    const Tensor *given = job.findTensor(tensor.getSymName());
    if (!given)
      return error(job.sourceLoc, "the job gives no tensor '" +
                                      tensor.getSymName() + "' (kernel '" +
                                      kernel + "' has " +
                                      describeParam(tensor) + ")");
    Type element = tensor.getTensorType().getElementType();
    std::string spelled;
    llvm::raw_string_ostream os(spelled);
    os << element;
    if (spelled != name(given->element))
      return error(given->elementLoc, "tensor '" + given->name + "' is " +
                                          spelled + " in kernel '" + kernel +
                                          "', not " + name(given->element));
    if (static_cast<int64_t>(given->shape.size()) != tensor.getRank())
      return error(given->shapeLoc,
                   "tensor '" + given->name + "' has rank " +
                       llvm::Twine(tensor.getRank()) + " in kernel '" + kernel +
                       "' (" + describeParam(tensor) + "), but the job gives " +
                       llvm::Twine(given->shape.size()) + " extents");
    for (unsigned axis = 0; axis < tensor.getRank(); ++axis) {
      StringRef dim = cast<StringAttr>(tensor.getDims()[axis]).getValue();
      kernelDims.insert(dim);
      int64_t extent = given->shape[axis];
      int64_t fixed = tensor.getTensorType().getDimSize(axis);
      if (!ShapedType::isDynamic(fixed) && fixed != extent)
        return error(given->shapeLoc,
                     "axis " + llvm::Twine(axis) + " of '" + given->name +
                         "' is " + llvm::Twine(fixed) + " in kernel '" +
                         kernel + "', but the job gives " +
                         llvm::Twine(extent));
      auto [it, inserted] = dims.try_emplace(dim, extent);
      if (!inserted && it->second != extent)
        return error(given->shapeLoc,
                     "axis " + llvm::Twine(axis) + " of '" + given->name +
                         "' is dim " + dim + ", which is " +
                         llvm::Twine(it->second) + ", but the shape says " +
                         llvm::Twine(extent));
    }
    // The job's mode against what the kernel does.
    cluster::AccessMode kernelMode = tensor.getMode();
    Mode mode = given->mode;
    if (kernelMode == cluster::AccessMode::read && mode != Mode::Read)
      return error(given->modeLoc, "kernel '" + kernel + "' only reads '" +
                                       given->name + "', so its mode is read");
    if (kernelMode == cluster::AccessMode::write && mode != Mode::Write)
      return error(given->modeLoc, "kernel '" + kernel + "' only writes '" +
                                       given->name + "', so its mode is write");
    if (kernelMode == cluster::AccessMode::rmw && mode == Mode::Read)
      return error(given->modeLoc,
                   "kernel '" + kernel + "' writes '" + given->name +
                       "', so its mode is rmw (or write, to start from zeros)");
    tensor.setMode(mode == Mode::Read    ? cluster::AccessMode::read
                   : mode == Mode::Write ? cluster::AccessMode::write
                                              : cluster::AccessMode::rmw);
    tensor.setShapeAttr(builder.getDenseI64ArrayAttr(given->shape));
    tensor.setUriAttr(builder.getStringAttr(given->uri));
  }
  for (const Tensor &given : job.tensors)
    if (!program.lookupTensor(given.name))
      return error(given.loc, "'" + given.name +
                                  "' is not a tensor parameter of kernel '" +
                                  kernel + "'");
  for (const Dim &dim : job.dims)
    if (!kernelDims.contains(dim.name))
      return error(dim.loc, "'" + dim.name + "' is not a dim of kernel '" +
                                kernel + "'");

  for (cluster::ScalarOp scalar :
       program.getBody().front().getOps<cluster::ScalarOp>()) {
    const Scalar *given = job.findScalar(scalar.getSymName());
    std::string spelled;
    llvm::raw_string_ostream os(spelled);
    os << scalar.getType();
    if (!given)
      return error(job.sourceLoc, "the job gives no scalar '" +
                                      scalar.getSymName() + "' (kernel '" +
                                      kernel + "' has " + scalar.getSymName() +
                                      ": " + spelled + ")");
    if (spelled != name(given->type))
      return error(given->typeLoc, "scalar '" + given->name + "' is " +
                                       spelled + " in kernel '" + kernel +
                                       "', not " + name(given->type));
    Type type = scalar.getType();
    TypedAttr value;
    if (auto floatType = dyn_cast<FloatType>(type))
      value = builder.getFloatAttr(floatType, given->value);
    else
      value = builder.getIntegerAttr(type, static_cast<int64_t>(given->value));
    scalar.setValueAttr(value);
  }
  for (const Scalar &given : job.scalars)
    if (!program.lookupScalar(given.name))
      return error(given.loc, "'" + given.name +
                                  "' is not a scalar parameter of kernel '" +
                                  kernel + "'");
  return true;
}

bool phobos::job::bindJob(const Job &job, cluster::ProgramOp program,
                          llvm::StringMap<int64_t> &dims,
                          BindingErrorReporter report) {
  return JobBinder(job, program, report).bind(dims);
}
