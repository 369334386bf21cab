//===- JitLink.cpp - PTX to cubin inside the process ----------------------===//

#include "Phobos/Driver/JitLink.h"

#include "Phobos/Driver/Compiler.h"
#include "Phobos/Runtime/CudaDriver.h"
#include "Phobos/Support/Environment.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

using namespace phobos;

namespace {
using Handle = void *;
// nvJitLink.h of CUDA 13: the versioned entry points its inline wrappers
// call, and NVJITLINK_INPUT_PTX.
using CreateFn = int (*)(Handle *, uint32_t, const char **);
using DestroyFn = int (*)(Handle *);
using AddDataFn = int (*)(Handle, int, const void *, size_t, const char *);
using CompleteFn = int (*)(Handle);
using SizeFn = int (*)(Handle, size_t *);
using CubinFn = int (*)(Handle, void *);
using LogFn = int (*)(Handle, char *);
constexpr int kInputPtx = 2;
/// Ends the comment that makes PTX new to CUDA's JIT cache (assemble).
constexpr llvm::StringLiteral kReportNonceTag = " (for ptxas's report)\n";
} // namespace

struct JitLinker::Api {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  AddDataFn addData = nullptr;
  CompleteFn complete = nullptr;
  SizeFn cubinSize = nullptr;
  CubinFn cubin = nullptr;
  SizeFn errorLogSize = nullptr;
  LogFn errorLog = nullptr;
  SizeFn infoLogSize = nullptr;
  LogFn infoLog = nullptr;
};

std::unique_ptr<JitLinker> JitLinker::open(std::string *why) {
  std::vector<std::string> candidates;
  if (std::optional<std::string> given = getEnvironment("PHOBOS_NVJITLINK"))
    candidates.push_back(*given);
  candidates.push_back("libnvJitLink.so.13");
  if (std::optional<std::string> ptxas = findPtxas()) {
    llvm::SmallString<256> path(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(*ptxas)));
    llvm::sys::path::append(path, "lib64", "libnvJitLink.so.13");
    candidates.push_back(std::string(path));
  }
  std::unique_ptr<JitLinker> linker(new JitLinker());
  for (const std::string &candidate : candidates) {
    linker->library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (linker->library) {
      linker->libraryPath = candidate;
      break;
    }
  }
  if (!linker->library) {
    if (why)
      *why = "libnvJitLink.so.13 not found";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  bool complete = true;
  auto bind = [&](auto &slot, const char *name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(linker->library, name));
    complete &= slot != nullptr;
  };
  bind(api->create, "__nvJitLinkCreate_13_0");
  bind(api->destroy, "__nvJitLinkDestroy_13_0");
  bind(api->addData, "__nvJitLinkAddData_13_0");
  bind(api->complete, "__nvJitLinkComplete_13_0");
  bind(api->cubinSize, "__nvJitLinkGetLinkedCubinSize_13_0");
  bind(api->cubin, "__nvJitLinkGetLinkedCubin_13_0");
  bind(api->errorLogSize, "__nvJitLinkGetErrorLogSize_13_0");
  bind(api->errorLog, "__nvJitLinkGetErrorLog_13_0");
  bind(api->infoLogSize, "__nvJitLinkGetInfoLogSize_13_0");
  bind(api->infoLog, "__nvJitLinkGetInfoLog_13_0");
  if (!complete) {
    if (why)
      *why = linker->libraryPath + " lacks CUDA 13's nvJitLink entry points";
    return nullptr;
  }
  linker->api = std::move(api);
  return linker;
}

JitLinker::~JitLinker() {
  if (library)
    dlclose(library);
}

llvm::Expected<std::string> JitLinker::assemble(llvm::StringRef ptx,
                                                llvm::StringRef chip,
                                                AssemblyReport *report) const {
  std::string arch = ("-arch=" + chip).str();
  // ptxas's default optimisation level, unless the experiment ptxas= gives
  // its own (-O3 conflicts with -Ofc); -verbose puts ptxas's resource lines
  // (ptxas -v) into the info log.
  std::vector<const char *> options = {arch.c_str()};
  const std::vector<std::string> &extra = getExtraPtxasOptions();
  if (extra.empty())
    options.push_back("-O3");
  for (const std::string &option : extra)
    options.push_back(option.c_str());
  if (report)
    options.push_back("-verbose");
  // The PTX's `.loc` lines as the cubin's line table (ptxHasLineInfo).
  if (cuda::ptxHasLineInfo(ptx))
    options.push_back("-lineinfo");
  Handle handle = nullptr;
  if (int status = api->create(&handle, options.size(), options.data()))
    return llvm::createStringError("nvJitLinkCreate failed (%d) for %s", status,
                                   arch.c_str());
  auto readLog = [&](SizeFn sizeOf, LogFn read) {
    size_t size = 0;
    std::string log;
    if (sizeOf(handle, &size) == 0 && size > 1) {
      log.resize(size);
      read(handle, log.data());
      log.resize(size - 1);
    }
    return log;
  };
  std::string result;
  int status =
      api->addData(handle, kInputPtx, ptx.data(), ptx.size(), "phobos.ptx");
  if (status == 0)
    status = api->complete(handle);
  size_t size = 0;
  if (status == 0)
    status = api->cubinSize(handle, &size);
  if (status == 0) {
    result.resize(size);
    status = api->cubin(handle, result.data());
  }
  std::string log =
      status ? readLog(api->errorLogSize, api->errorLog) : std::string();
  if (status == 0 && report)
    *report = parsePtxasReport(readLog(api->infoLogSize, api->infoLog));
  api->destroy(&handle);
  if (status)
    return llvm::createStringError("nvJitLink failed (%d): %s", status,
                                   log.c_str());
  // nvJitLink keeps the cubins it makes in CUDA's JIT cache (~/.nv/
  // ComputeCache, keyed by the PTX) and returns them again without ptxas's
  // resource lines: a kernel that spills then looked as if it did not, and
  // assembleAvoidingSpills kept it (a second tune of the sgemm space ran
  // its spilling variants slower, docs/benchmarks-log.md; setting
  // CUDA_CACHE_DISABLE in the process did not stop it, and the ptxas
  // process makes other code than nvJitLink). So the PTX is assembled once
  // more with a comment no earlier PTX had: the same code, not in the
  // cache, with its report.
  if (report && report->registers < 0 && !ptx.ends_with(kReportNonceTag)) {
    static std::atomic<uint64_t> count{0};
    std::string unseen =
        (ptx +
         "\n// phobos: " + llvm::Twine(llvm::sys::Process::getProcessId()) +
         "." + llvm::Twine(llvm::sys::Process::GetRandomNumber()) + "." +
         llvm::Twine(count++) + kReportNonceTag)
            .str();
    return assemble(unseen, chip, report);
  }
  return result;
}
