//===- Compiler.cpp - From Phobos source to PTX and a contract ------------===//

#include "Phobos/Driver/Compiler.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Target/Pipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace phobos;

FailureOr<std::vector<CompiledKernel>>
phobos::compilePhobos(llvm::SourceMgr &sourceMgr, MLIRContext *context,
                      const frontend::ImportOptions &options, StringRef chip) {
  if (!isValidChip(chip)) {
    emitError(UnknownLoc::get(context))
        << "--chip: unsupported chip '" << chip << "'; Phobos targets "
        << supportedChips();
    return failure();
  }
  OwningOpRef<ModuleOp> module =
      frontend::importPhobos(sourceMgr, context, options);
  if (!module)
    return failure();
  return compileModule(*module, chip);
}

FailureOr<std::vector<CompiledKernel>> phobos::compileModule(ModuleOp module,
                                                             StringRef chip) {
  MLIRContext *context = module.getContext();
  if (!isValidChip(chip))
    return module.emitError("unsupported chip '")
           << chip << "'; Phobos targets " << supportedChips();
  std::vector<CompiledKernel> compiled;
  for (tile::KernelOp kernel : module.getOps<tile::KernelOp>()) {
    CompiledKernel result;
    result.chip = chip.str();
    result.contract = buildLaunchContract(kernel);
    // One module per kernel, so that each gets its own PTX.
    OpBuilder builder(context);
    OwningOpRef<ModuleOp> single = ModuleOp::create(kernel.getLoc());
    builder.setInsertionPointToStart(single->getBody());
    builder.clone(*kernel.getOperation());
    PassManager pm(context);
    PhobosToNVVMOptions pipelineOptions;
    pipelineOptions.chip = chip.str();
    buildPhobosToNVVMPipeline(pm, pipelineOptions);
    if (failed(pm.run(*single)))
      return failure();
    single->walk([&](LLVM::LLVMFuncOp func) {
      if (auto bytes = func->getAttrOfType<IntegerAttr>(phobos::tile::KernelOp::kSharedBytesAttrName))
        result.contract.sharedMemoryBytes = bytes.getInt();
    });
    FailureOr<std::string> ptx = serializeToPTX(*single, chip);
    if (failed(ptx))
      return failure();
    result.ptx = std::move(*ptx);
    compiled.push_back(std::move(result));
  }
  return compiled;
}

std::optional<std::string> phobos::findPtxas() {
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

llvm::Expected<std::string> phobos::assembleCubin(StringRef ptxas, StringRef ptx,
                                                  StringRef chip) {
  SmallString<128> input, output, log;
  int fd;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("phobos", "ptx", fd, input))
    return llvm::createStringError(error, "cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  llvm::sys::fs::createTemporaryFile("phobos", "cubin", output);
  llvm::sys::fs::createTemporaryFile("phobos", "log", log);
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> args = {ptxas, arch, "-o", output, input};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/120, 0, &message);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(input);
    llvm::sys::fs::remove(output);
    llvm::sys::fs::remove(log);
  });
  if (status != 0) {
    std::string text;
    if (auto buffer = llvm::MemoryBuffer::getFile(log))
      text = (*buffer)->getBuffer().str();
    return llvm::createStringError("ptxas failed (%d): %s%s", status,
                                   message.c_str(), text.c_str());
  }
  auto cubin = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (!cubin)
    return llvm::createStringError(cubin.getError(), "ptxas wrote no cubin");
  return (*cubin)->getBuffer().str();
}
