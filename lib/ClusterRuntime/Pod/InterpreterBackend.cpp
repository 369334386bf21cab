//===- InterpreterBackend.cpp - Pods that run leaves on the CPU -----------===//
//
// Tiles in host memory; each leaf arrives as tile-dialect MLIR and runs on
// the interpreter, the language's reference semantics. A pod started with
// --interpret runs the whole distributed path on a machine without a GPU.
//
//===----------------------------------------------------------------------===//

#include "Phobos/ClusterRuntime/PodBackend.h"

#include "Phobos/Dialect/Cluster/IR/ClusterDialect.h"
#include "Phobos/Dialect/Tile/IR/ElementTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Interpreter/Interpreter.h"
#include "phobos_cluster.pb.h"

#include "absl/strings/str_cat.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <thread>

using namespace phobos;
using namespace phobos::cluster::runtime;
namespace wire = phobos::cluster::wire;

namespace {

class HostBuffer : public TileBuffer {
public:
  HostBuffer(int64_t bytes, bool zero)
      : storage(new uint8_t[static_cast<size_t>(bytes)]) {
    size = bytes;
    if (zero)
      std::memset(storage.get(), 0, static_cast<size_t>(bytes));
  }
  void *host() override { return storage.get(); }

private:
  std::unique_ptr<uint8_t[]> storage;
};

class InterpreterBackend : public Backend {
public:
  explicit InterpreterBackend(unsigned threads) : threads(threads) {
    context.loadDialect<tile::TileDialect, cluster::ClusterDialect,
                        mlir::arith::ArithDialect, mlir::math::MathDialect,
                        mlir::scf::SCFDialect>();
    context.printOpOnDiagnostic(false);
  }

  std::string kind() const override { return "interpreter"; }
  std::string describe() const override {
    unsigned count = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    return absl::StrCat("interpreter (", count, count == 1 ? " thread)" : " threads)");
  }

  absl::Status prepare(const wire::StartJob &job) override {
    leaves.clear();
    for (const wire::LeafSpec &spec : job.leaves()) {
      if (spec.mlir().empty())
        return absl::InvalidArgumentError(absl::StrCat(
            "leaf '", spec.name(), "' came without its MLIR; the scheduler "
            "sends it to interpreter pods"));
      std::string errors;
      mlir::OwningOpRef<mlir::ModuleOp> module;
      {
        llvm::raw_string_ostream os(errors);
        mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
          os << d << "\n";
          return mlir::success();
        });
        module = mlir::parseSourceString<mlir::ModuleOp>(spec.mlir(), &context);
      }
      if (!module)
        return absl::InvalidArgumentError(
            absl::StrCat("leaf '", spec.name(), "' does not parse: ", errors));
      tile::KernelOp kernel;
      for (tile::KernelOp candidate : module->getOps<tile::KernelOp>())
        if (candidate.getName() == spec.name())
          kernel = candidate;
      if (!kernel)
        return absl::InvalidArgumentError(
            absl::StrCat("the MLIR of leaf '", spec.name(), "' has no kernel of that name"));
      Leaf leaf;
      leaf.kernel = kernel;
      for (mlir::Type type : kernel.getArgumentTypes()) {
        std::optional<ElementType> element = tile::getElementType(type);
        if (!element)
          return absl::InvalidArgumentError(absl::StrCat(
              "leaf '", spec.name(), "' has a parameter of an unknown type"));
        leaf.elements.push_back(*element);
        leaf.isTensor.push_back(mlir::isa<tile::GlobalTensorType>(type));
      }
      for (int axis = 0; axis < 3 && axis < spec.grid_size(); ++axis)
        leaf.grid[axis] = std::max<int64_t>(1, spec.grid(axis));
      leaf.module = std::move(module);
      leaves.push_back(std::move(leaf));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::unique_ptr<TileBuffer>> allocate(int64_t bytes,
                                                       bool zero) override {
    return std::unique_ptr<TileBuffer>(new HostBuffer(bytes, zero));
  }
  bool reusesTileBuffers() const override { return true; }

  absl::Status upload(TileBuffer &buffer, const void *data,
                      int64_t bytes) override {
    if (buffer.host() != data)
      std::memcpy(buffer.host(), data, static_cast<size_t>(bytes));
    return absl::OkStatus();
  }

  absl::Status download(const TileBuffer &buffer, void *data,
                        int64_t bytes) override {
    void *source = const_cast<TileBuffer &>(buffer).host();
    if (source != data)
      std::memcpy(data, source, static_cast<size_t>(bytes));
    return absl::OkStatus();
  }

  size_t numLeaves() const override { return leaves.size(); }

  absl::Status computeLeaf(unsigned leafIndex,
                           const std::vector<TileBuffer *> &tensors,
                           const std::vector<std::vector<int64_t>> &shapes,
                           const std::vector<LeafScalar> &scalars) override {
    Leaf &leaf = leaves[leafIndex];
    std::vector<interp::Argument> args;
    size_t nextTensor = 0, nextScalar = 0;
    for (size_t i = 0; i < leaf.isTensor.size(); ++i) {
      if (leaf.isTensor[i]) {
        if (nextTensor >= tensors.size())
          return absl::InvalidArgumentError(absl::StrCat(
              "leaf '", leaf.kernel.getName().str(), "' needs more tensors"));
        interp::TensorArg arg;
        arg.data = tensors[nextTensor]->host();
        arg.elementType = leaf.elements[i];
        arg.shape.assign(shapes[nextTensor].begin(), shapes[nextTensor].end());
        ++nextTensor;
        args.push_back(arg);
      } else {
        if (nextScalar >= scalars.size())
          return absl::InvalidArgumentError(absl::StrCat(
              "leaf '", leaf.kernel.getName().str(), "' needs more scalars"));
        interp::ScalarArg arg;
        arg.floatValue = scalars[nextScalar].value;
        arg.intValue = static_cast<int64_t>(scalars[nextScalar].value);
        ++nextScalar;
        args.push_back(arg);
      }
    }
    interp::Options options;
    options.grid = leaf.grid;
    options.threads = threads;
    if (std::optional<interp::RunError> error =
            interp::runKernel(leaf.kernel, args, options)) {
      std::string where;
      llvm::raw_string_ostream os(where);
      os << error->loc;
      return absl::InternalError(absl::StrCat(
          "leaf '", leaf.kernel.getName().str(), "' failed at ", where, ": ",
          error->message));
    }
    return absl::OkStatus();
  }

private:
  struct Leaf {
    mlir::OwningOpRef<mlir::ModuleOp> module;
    tile::KernelOp kernel;
    std::vector<ElementType> elements;
    std::vector<bool> isTensor;
    std::array<int64_t, 3> grid = {1, 1, 1};
  };

  unsigned threads;
  mlir::MLIRContext context;
  std::vector<Leaf> leaves;
};

} // namespace

std::unique_ptr<Backend>
phobos::cluster::runtime::createInterpreterBackend(unsigned threads) {
  return std::make_unique<InterpreterBackend>(threads);
}
