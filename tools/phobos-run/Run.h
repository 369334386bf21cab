//===- Run.h - What the files of phobos-run share ------------------------===//
//
// phobos-run in files by concern: phobos-run.cpp (the options, main, the
// program read and its variant chosen, the interpreter's run, the outputs
// written, checked and reported), RunArguments.cpp (the command line bound
// to the kernel's parameters and checked before anything is allocated) and
// RunGpu.cpp (the kernel compiled for the GPU, run and timed there). Private
// to the tool.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_RUN_RUN_H
#define PHOBOS_TOOLS_PHOBOS_RUN_RUN_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Interpreter/Interpreter.h"
#include "Phobos/Reference/Reference.h"
#include "Phobos/Runtime/HostTensor.h"
#include "Phobos/Runtime/LaunchContract.h"
#include "Phobos/Tools/KernelOptions.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace phobos::run {

// The options the files read beyond phobos-run.cpp (which defines them).
extern tools::KernelOptions kernelOptions;
extern tools::MeasureOptions measure;
extern llvm::cl::opt<bool> interpret;
extern llvm::cl::opt<bool> bench;
extern llvm::cl::opt<bool> specialize;
extern llvm::cl::opt<bool> lineInfo;
extern llvm::cl::opt<bool> noCache;
extern llvm::cl::list<std::string> inputSpecs;
extern llvm::cl::list<std::string> outputSpecs;
extern llvm::cl::opt<uint64_t> maxHostBytes;

/// Reports a usage error and exits with 2.
[[noreturn]] void usage(const llvm::Twine &message);

/// `bytes`, and in GiB or MiB where that reads better.
std::string formatBytes(uint64_t bytes);

/// What the command line binds besides the kernel's variant: tensors read
/// from files, files to write, the dims.
struct Bindings {
  std::map<std::string, HostTensor> inputs;
  llvm::StringMap<std::string> outputs;
  LaunchContract::DimValues dims;
  /// The dims bound at launch, in the order the run line prints them.
  std::vector<std::string> dynamic;
};

/// The run's arguments, by parameter index.
struct Arguments {
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// What the kernel runs on; scalars: empty.
  std::vector<HostTensor> tensors;
  /// The tensors before the run, which the check's reference reads.
  std::vector<HostTensor> initial;
  /// The interpreter's view of `tensors` and the scalars.
  std::vector<interp::Argument> interpreted;
  /// The reference's view of `initial` and every scalar's value.
  reference::Problem referenceInputs;
  /// Integer scalars given with --scalar, exactly.
  llvm::StringMap<int64_t> integerScalars;
};

/// --input, --output and the dims (--dim, or an --input's shape).
Bindings readBindings(const LaunchContract &contract);

/// The arguments, every option about them checked before any tensor is
/// allocated.
void prepareArguments(tile::KernelOp kernel, const LaunchContract &contract,
                      const Bindings &bindings, Arguments &arguments);

/// Arrays from files can disagree with each other: the launcher's checks
/// say how, by argument.
void checkInputsAgree(const LaunchContract &contract,
                      const Arguments &arguments);

/// Compiles for the GPU, copies the tensors there, launches (and times),
/// and copies them back.
bool runOnGpu(mlir::ModuleOp sourceModule, llvm::StringRef source,
              const llvm::StringMap<int64_t> &dims,
              std::vector<HostTensor> &tensors,
              const llvm::StringMap<double> &scalars,
              const llvm::StringMap<int64_t> &integerScalars,
              std::array<int64_t, 3> grid, bool timing, unsigned runs,
              std::vector<double> &times, std::string &backend);

} // namespace phobos::run

#endif // PHOBOS_TOOLS_PHOBOS_RUN_RUN_H
