/*===-- phobos-c/Compiler.h - C API of the Phobos front door ------*- C -*-===*\
|*                                                                            *|
|* Load a Phobos program, compile its kernel variants through the kernel      *|
|* cache (PTX, cubin, launch contract) and run them on the CPU interpreter:   *|
|* the path phobos-compile and phobos-run take (phobos::Session), for C and   *|
|* for the languages that bind C (the Python package, through ctypes).        *|
|*                                                                            *|
|* Conventions, as in MLIR's C API: objects are opaque handles that the      *|
|* caller destroys; strings are passed as PhobosStringRef (not necessarily   *|
|* NUL-terminated) and those returned stay valid until the object that owns  *|
|* them is destroyed; a function that can fail returns a PhobosError, null   *|
|* (phobosErrorIsNull) on success.                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PHOBOS_C_COMPILER_H
#define PHOBOS_C_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define PHOBOS_CAPI_EXPORTED __declspec(dllexport)
#else
#define PHOBOS_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// A string: `length` bytes at `data`.
typedef struct PhobosStringRef {
  const char *data;
  size_t length;
} PhobosStringRef;

/// A PhobosStringRef of a NUL-terminated string (null: the empty string).
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosStringRefCreateFromCString(const char *text);

#define PHOBOS_DEFINE_C_API_STRUCT(name)                                       \
  typedef struct name {                                                        \
    void *ptr;                                                                 \
  } name

/// A loaded program and the compilers it keeps (phobos::Session).
PHOBOS_DEFINE_C_API_STRUCT(PhobosSession);
/// One compiled kernel variant: its launch contract, PTX and cubin.
PHOBOS_DEFINE_C_API_STRUCT(PhobosKernelBuild);
/// What went wrong: the message as a tool prints it, and where.
PHOBOS_DEFINE_C_API_STRUCT(PhobosError);

#undef PHOBOS_DEFINE_C_API_STRUCT

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static inline bool phobosErrorIsNull(PhobosError error) { return !error.ptr; }

/// Every diagnostic, as phobos-compile would print it: "file:line:col:
/// error: ..." with the source line and a caret, at the span map's places
/// when the program came with one.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosErrorGetMessage(PhobosError error);

/// The first error's file, line and column (1-based); empty and 0 when it
/// has no place in a source (a bad argument, a missing program).
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosErrorGetFile(PhobosError error);
PHOBOS_CAPI_EXPORTED unsigned phobosErrorGetLine(PhobosError error);
PHOBOS_CAPI_EXPORTED unsigned phobosErrorGetColumn(PhobosError error);

/// The kernel argument a rejected launch names (phobos-c/Runtime.h; its
/// message is then the reason alone); empty for other errors.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosErrorGetParameter(PhobosError error);

PHOBOS_CAPI_EXPORTED void phobosErrorDestroy(PhobosError error);

//===----------------------------------------------------------------------===//
// The compiler and its chips
//===----------------------------------------------------------------------===//

/// The compiler's version: part of every kernel cache key.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosCompilerVersion(void);

/// The kernel cache's default root ($PHOBOS_CACHE_DIR, else
/// $XDG_CACHE_HOME/phobos, else ~/.cache/phobos); empty when none can be
/// formed.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosDefaultCacheDir(void);

/// The chip a device of compute capability major.minor compiles for
/// ("sm_90a" for 9.0), NUL-terminated, into `out` of `capacity` bytes.
/// Returns the name's length (without the NUL); larger than capacity - 1
/// when it did not fit.
PHOBOS_CAPI_EXPORTED size_t phobosChipForCapability(int major, int minor,
                                                    char *out, size_t capacity);

/// Whether the compiler targets `chip` ("sm_80" ... "sm_90a").
PHOBOS_CAPI_EXPORTED bool phobosChipIsSupported(PhobosStringRef chip);

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

PHOBOS_CAPI_EXPORTED PhobosSession phobosSessionCreate(void);
PHOBOS_CAPI_EXPORTED void phobosSessionDestroy(PhobosSession session);

/// Loads Phobos source `text`, called `fileName` in messages, in place of
/// the session's earlier program, and checks that it parses.
/// `spanMapJson` (may be empty) is a span map (docs/python.md): messages then
/// name the places it gives, as for kernels written in Python.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionLoad(PhobosSession session,
                                                   PhobosStringRef text,
                                                   PhobosStringRef fileName,
                                                   PhobosStringRef spanMapJson);

/// The number of kernels in the program, and the name of kernel `index`
/// (valid until the next load).
PHOBOS_CAPI_EXPORTED intptr_t phobosSessionGetNumKernels(PhobosSession session);
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosSessionGetKernelName(PhobosSession session,
                                                               intptr_t index);

/// What to compile.
typedef struct PhobosCompileRequest {
  /// The kernel's name.
  PhobosStringRef kernel;
  /// @autotune values, "NAME=V,NAME=V" (empty: every name its first value).
  PhobosStringRef variant;
  /// Extents to specialise for, "NAME=V,..." (phobos-compile
  /// --specialize-dims; empty: the general kernel).
  PhobosStringRef specializeDims;
  /// The target ("sm_90a"), or "contract" for the launch contract alone.
  PhobosStringRef chip;
  /// The kernel cache's root (empty: not cached).
  PhobosStringRef cacheDir;
  /// Whether to assemble a cubin with ptxas where one is found.
  bool assemble;
  /// Whether to leave the line info out of the PTX and cubin (false, as a
  /// zeroed request has it: `.file`/`.loc` at the source lines, for
  /// compute-sanitizer and Nsight Compute; docs/debugging.md).
  bool withoutLineInfo;
} PhobosCompileRequest;

/// Compiles one variant, or takes it from the kernel cache: into `*build`
/// (destroy it with phobosKernelBuildDestroy) on success.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionCompile(PhobosSession session,
                                                      const PhobosCompileRequest *request,
                                                      PhobosKernelBuild *build);

/// The launch contract (JSON, docs/runtime.md section 3, with "chip").
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetContract(PhobosKernelBuild build);
/// The PTX (empty for a contract alone).
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetPtx(PhobosKernelBuild build);
/// Whether ptxas made a cubin, and its bytes.
PHOBOS_CAPI_EXPORTED bool phobosKernelBuildHasCubin(PhobosKernelBuild build);
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetCubin(PhobosKernelBuild build);
/// The kernel cache entry's directory (empty when not cached), and whether
/// the build was read from it.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetCacheEntry(PhobosKernelBuild build);
PHOBOS_CAPI_EXPORTED bool phobosKernelBuildIsFromCache(PhobosKernelBuild build);
/// Notes a tool would print (a damaged cache entry that was rebuilt, ptxas
/// failing, an entry that could not be stored), one per line; may be empty.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetNotes(PhobosKernelBuild build);
/// Warnings the compiler printed, as phobos-compile prints them; may be
/// empty.
PHOBOS_CAPI_EXPORTED PhobosStringRef phobosKernelBuildGetDiagnostics(PhobosKernelBuild build);
PHOBOS_CAPI_EXPORTED void phobosKernelBuildDestroy(PhobosKernelBuild build);

/// Kernel `kernel`'s @autotune space as the language expands it:
/// "NAME=V:V:...,NAME=V:..." in @autotune order, each dimension's default
/// first; empty for a kernel without @autotune. Valid until the session's
/// next call.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionGetAutotuneSpace(
    PhobosSession session, PhobosStringRef kernel, PhobosStringRef *space);

/// The @autotune values ("NAME=V,..." in @autotune order) that a search
/// stored in the tuning cache at `cacheDir` for `kernel` on `chip`
/// ("interpreter" for the CPU) and the extents `dims` ("M=4096,N=4096"),
/// for the specialised kernels, or the general ones with `general`; empty
/// when none is stored. Valid until the session's next call.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionGetTunedVariant(
    PhobosSession session, PhobosStringRef kernel, PhobosStringRef chip,
    PhobosStringRef dims, bool general, PhobosStringRef cacheDir,
    PhobosStringRef *variant);

//===----------------------------------------------------------------------===//
// The CPU interpreter
//===----------------------------------------------------------------------===//

/// One kernel argument, in parameter order.
typedef struct PhobosArgument {
  /// A tensor: dense row-major host memory of `rank` extents `shape`, in
  /// the storage format of `elementType` ("f32", "f16", "bf16", "f64",
  /// "i32", "i64", "bool"). Null `data`: a scalar.
  void *data;
  PhobosStringRef elementType;
  intptr_t rank;
  const int64_t *shape;
  /// A scalar: the value, read as the parameter's type (integers from
  /// `intValue`, floats from `floatValue`).
  double floatValue;
  int64_t intValue;
} PhobosArgument;

/// Runs `kernel`'s variant `variant` ("NAME=V,...") over the grid
/// `grid[0] x grid[1] x grid[2]` on the interpreter, in place on the
/// arguments' memory. The caller checks the arguments against the launch
/// contract first (phobosSessionCompile with chip "contract"); this checks
/// their count and element types. `stepLimit`: steps one CTA may run
/// (0: the default); `threads`: worker threads (0: one per core).
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionInterpret(
    PhobosSession session, PhobosStringRef kernel, PhobosStringRef variant,
    const int64_t grid[3], const PhobosArgument *args, intptr_t numArgs,
    uint64_t stepLimit, unsigned threads);

/// phobosSessionInterpret with the race check (phobos-run --race-check):
/// every pair of accesses to one element by two CTAs that nothing orders
/// is reported. Sets `*races` to the number of such pairs of ops (0 for a
/// clean run); when it is not 0, the error's message has each one at the
/// user's lines of both accesses.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionRaceCheck(
    PhobosSession session, PhobosStringRef kernel, PhobosStringRef variant,
    const int64_t grid[3], const PhobosArgument *args, intptr_t numArgs,
    uint64_t stepLimit, unsigned threads, intptr_t *races);

//===----------------------------------------------------------------------===//
// The visualizer
//===----------------------------------------------------------------------===//

/// Which variant and problem a page shows (phobos-viz's options).
typedef struct PhobosVisualizeRequest {
  /// The kernel's name (empty: the program's only kernel).
  PhobosStringRef kernel;
  /// @autotune values, "NAME=V,NAME=V" (empty: every name its first value).
  PhobosStringRef variant;
  /// The problem's extents, "NAME=V,...": the grid, and the kernel
  /// specialised for them as phobos-run compiles it (empty: the general
  /// kernel, and no grid).
  PhobosStringRef dims;
  /// The target (empty: "sm_90").
  PhobosStringRef chip;
  /// The CTA whose memory traffic the page shows (block x, y, z).
  int64_t cta[3];
  /// Scalars of that run, "NAME=V,..." (floats or integers; the others as
  /// phobos-run gives them).
  PhobosStringRef scalars;
  /// Elements of a tile or buffer past which its grid is left out (0: the
  /// default, 65536).
  int64_t maxGridElements;
  /// The page's data (JSON, include/Phobos/Viz/Visualization.h) instead of
  /// the page.
  bool json;
  /// The launch grid (all 0: the one the kernel's slices infer from
  /// `dims`).
  int64_t grid[3];
  /// Interpreter steps the grid view's run of the whole grid may take (0:
  /// the default, 2^25, about three seconds).
  uint64_t maxGridSteps;
  /// Runs of elements written by one CTA past which the grid view leaves a
  /// tensor's map out (0: the default, 65536).
  int64_t maxWriteRuns;
  /// The autotuning panel's search: a report phobos-tune --json wrote, and
  /// its file's name for messages (empty: the tuning cache's record at
  /// `cacheDir` for these dims, if any).
  PhobosStringRef tuningReport;
  PhobosStringRef tuningReportFile;
  /// The kernel cache whose tuning records are read (empty: none).
  PhobosStringRef cacheDir;
  /// The cluster panel: the plan phobos-sched --plan JOB --json wrote, and
  /// after a run its --summary-json, each with its file's name for
  /// messages (empty: no panel).
  PhobosStringRef clusterPlan;
  PhobosStringRef clusterPlanFile;
  PhobosStringRef clusterSummary;
  PhobosStringRef clusterSummaryFile;
  /// Lines of IR past which a pass is listed by its counts alone (0: no
  /// limit).
  int64_t maxIrLines;
} PhobosVisualizeRequest;

/// The page phobos-viz writes for the session's program (docs/debugging.md
/// "The visualizer"): one self-contained HTML document, or its data. With a
/// span map the code panel shows the file the map names. Into `*page`,
/// valid until the session's next call; errors at the user's lines.
PHOBOS_CAPI_EXPORTED PhobosError phobosSessionVisualize(
    PhobosSession session, const PhobosVisualizeRequest *request,
    PhobosStringRef *page);

#ifdef __cplusplus
}
#endif

#endif /* PHOBOS_C_COMPILER_H */
