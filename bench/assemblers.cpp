// assemblers.cpp: how long each way of turning PTX into a cubin takes in one
// process, for issue 11's compile-time budget (docs/benchmarks.md).
//
//   g++ -O2 -std=c++17 bench/assemblers.cpp -o assemblers -ldl
//   (with nvPTXCompiler: add -DWITH_PTX_COMPILER -I$CUDA/include
//    $CUDA/lib64/libnvptxcompiler_static.a -lpthread)
//   ./assemblers [--allocator-defaults] ROUNDS FILE.ptx...
//
// Ways: the ptxas process (-O3), nvJitLink in the process (-O3; what the
// tuner uses), the driver's linker (cuLink*, the JIT compiler of libcuda),
// and nvPTXCompiler (ptxas as a static library) where it was built in.
// Each assembly gets a comment no earlier PTX had, so no cache answers; the
// rounds alternate the ways; the table gives each way's median per file
// and the cubin's size (different sizes mean different code).
// malloc keeps what it frees, as the tuner's compile pool sets it, unless
// --allocator-defaults is given (the tools' --experiment allocator-defaults=1).

#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#ifdef WITH_PTX_COMPILER
#include <nvPTXCompiler.h>
#endif

namespace {
std::string readFile(const char *path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

double nowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int nonce = 0;
std::string fresh(const std::string &ptx) {
  return ptx + "\n// assemblers " + std::to_string(getpid()) + "." +
         std::to_string(nonce++) + "\n";
}

// Returns the cubin's size, or -1.
using Way = std::function<long(const std::string &ptx)>;

long viaPtxas(const std::string &ptx) {
  std::string in = "/tmp/assemblers." + std::to_string(getpid()) + ".ptx";
  std::string out = in + ".cubin";
  std::ofstream(in) << ptx;
  std::string command =
      "ptxas -arch=sm_90a -O3 " + in + " -o " + out + " 2>/dev/null";
  if (std::system(command.c_str()) != 0)
    return -1;
  std::ifstream cubin(out, std::ios::binary | std::ios::ate);
  long size = cubin.tellg();
  unlink(in.c_str());
  unlink(out.c_str());
  return size;
}

struct JitLink {
  using Create = int (*)(void **, unsigned, const char **);
  using AddData = int (*)(void *, int, const void *, size_t, const char *);
  using Complete = int (*)(void *);
  using Size = int (*)(void *, size_t *);
  using Destroy = int (*)(void **);
  Create create = nullptr;
  AddData addData = nullptr;
  Complete complete = nullptr;
  Size cubinSize = nullptr;
  Destroy destroy = nullptr;
  bool open() {
    void *library = dlopen("libnvJitLink.so.13", RTLD_NOW);
    if (!library)
      library = dlopen("/usr/local/cuda/lib64/libnvJitLink.so.13", RTLD_NOW);
    if (!library)
      return false;
    create = (Create)dlsym(library, "__nvJitLinkCreate_13_0");
    addData = (AddData)dlsym(library, "__nvJitLinkAddData_13_0");
    complete = (Complete)dlsym(library, "__nvJitLinkComplete_13_0");
    cubinSize = (Size)dlsym(library, "__nvJitLinkGetLinkedCubinSize_13_0");
    destroy = (Destroy)dlsym(library, "__nvJitLinkDestroy_13_0");
    return create && addData && complete && cubinSize && destroy;
  }
  long operator()(const std::string &ptx) const {
    const char *options[] = {"-arch=sm_90a", "-O3"};
    void *handle = nullptr;
    if (create(&handle, 2, options))
      return -1;
    size_t size = 0;
    bool ok = addData(handle, /*NVJITLINK_INPUT_PTX*/ 2, ptx.data(), ptx.size(),
                      "x.ptx") == 0 &&
              complete(handle) == 0 && cubinSize(handle, &size) == 0;
    destroy(&handle);
    return ok ? long(size) : -1;
  }
};

struct DriverLink {
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int *, int);
  using Retain = int (*)(void **, int);
  using SetCurrent = int (*)(void *);
  using LinkCreate = int (*)(unsigned, int *, void **, void **);
  using LinkAdd = int (*)(void *, int, void *, size_t, const char *, unsigned,
                          int *, void **);
  using LinkComplete = int (*)(void *, void **, size_t *);
  using LinkDestroy = int (*)(void *);
  LinkCreate linkCreate = nullptr;
  LinkAdd linkAdd = nullptr;
  LinkComplete linkComplete = nullptr;
  LinkDestroy linkDestroy = nullptr;
  bool open() {
    void *library = dlopen("libcuda.so.1", RTLD_NOW);
    if (!library)
      return false;
    auto init = (Init)dlsym(library, "cuInit");
    auto deviceGet = (DeviceGet)dlsym(library, "cuDeviceGet");
    auto retain = (Retain)dlsym(library, "cuDevicePrimaryCtxRetain");
    auto setCurrent = (SetCurrent)dlsym(library, "cuCtxSetCurrent");
    linkCreate = (LinkCreate)dlsym(library, "cuLinkCreate_v2");
    linkAdd = (LinkAdd)dlsym(library, "cuLinkAddData_v2");
    linkComplete = (LinkComplete)dlsym(library, "cuLinkComplete");
    linkDestroy = (LinkDestroy)dlsym(library, "cuLinkDestroy");
    int device = 0;
    void *context = nullptr;
    return init && deviceGet && retain && setCurrent && linkCreate && linkAdd &&
           linkComplete && linkDestroy && init(0) == 0 &&
           deviceGet(&device, 0) == 0 && retain(&context, device) == 0 &&
           setCurrent(context) == 0;
  }
  long operator()(const std::string &ptx) const {
    void *state = nullptr;
    if (linkCreate(0, nullptr, nullptr, &state))
      return -1;
    void *cubin = nullptr;
    size_t size = 0;
    bool ok =
        linkAdd(state, /*CU_JIT_INPUT_PTX*/ 1, const_cast<char *>(ptx.data()),
                ptx.size() + 1, "x.ptx", 0, nullptr, nullptr) == 0 &&
        linkComplete(state, &cubin, &size) == 0;
    linkDestroy(state);
    return ok ? long(size) : -1;
  }
};

#ifdef WITH_PTX_COMPILER
long viaPtxCompiler(const std::string &ptx) {
  nvPTXCompilerHandle compiler = nullptr;
  if (nvPTXCompilerCreate(&compiler, ptx.size(), ptx.c_str()) !=
      NVPTXCOMPILE_SUCCESS)
    return -1;
  const char *options[] = {"--gpu-name=sm_90a", "-O3"};
  size_t size = 0;
  bool ok =
      nvPTXCompilerCompile(compiler, 2, options) == NVPTXCOMPILE_SUCCESS &&
      nvPTXCompilerGetCompiledProgramSize(compiler, &size) ==
          NVPTXCOMPILE_SUCCESS;
  nvPTXCompilerDestroy(&compiler);
  return ok ? long(size) : -1;
}
#endif
} // namespace

int main(int argc, char **argv) {
  bool allocatorDefaults =
      argc > 1 && std::string(argv[1]) == "--allocator-defaults";
  if (allocatorDefaults) {
    --argc;
    ++argv;
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s [--allocator-defaults] ROUNDS FILE.ptx...\n",
                 argv[0]);
    return 2;
  }
  if (!allocatorDefaults) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
  }
  int rounds = std::atoi(argv[1]);
  std::vector<std::pair<std::string, Way>> ways;
  ways.push_back({"ptxas process", viaPtxas});
  static JitLink jitLink;
  if (jitLink.open())
    ways.push_back({"nvJitLink", std::cref(jitLink)});
  static DriverLink driver;
  if (driver.open())
    ways.push_back({"driver cuLink", std::cref(driver)});
#ifdef WITH_PTX_COMPILER
  ways.push_back({"nvPTXCompiler", viaPtxCompiler});
#endif
  std::printf("| PTX | lines |");
  for (auto &way : ways)
    std::printf(" %s ms (cubin bytes) |", way.first.c_str());
  std::printf("\n|---|---|");
  for (size_t i = 0; i < ways.size(); ++i)
    std::printf("---|");
  std::printf("\n");
  for (int file = 2; file < argc; ++file) {
    std::string ptx = readFile(argv[file]);
    // One untimed assembly per way: the libraries' first call.
    std::vector<long> sizes;
    for (auto &way : ways)
      sizes.push_back(way.second(fresh(ptx)));
    std::vector<std::vector<double>> times(ways.size());
    for (int round = 0; round < rounds; ++round)
      for (size_t i = 0; i < ways.size(); ++i) {
        std::string text = fresh(ptx);
        double start = nowMs();
        ways[i].second(text);
        times[i].push_back(nowMs() - start);
      }
    std::string name = argv[file];
    name = name.substr(name.rfind('/') + 1);
    std::printf("| %s | %ld |", name.c_str(),
                (long)std::count(ptx.begin(), ptx.end(), '\n'));
    for (size_t i = 0; i < ways.size(); ++i) {
      std::sort(times[i].begin(), times[i].end());
      std::printf(" %.1f (%ld) |", times[i][times[i].size() / 2], sizes[i]);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
