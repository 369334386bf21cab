//===- Compiler.h - From Phobos source to PTX and a contract ----*- C++ -*-===//
//
// The compile steps the front door (Session.h) builds on: import one variant
// of each selected kernel, derive its launch contract, run the GPU pipeline
// and serialise PTX; assemble a cubin with ptxas, avoiding spills.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DRIVER_COMPILER_H
#define PHOBOS_DRIVER_COMPILER_H

#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/Target/BuildLaunchContract.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class PassManager;
} // namespace mlir

namespace phobos {

class PTXEmitter;

namespace tile {
class KernelOp;
} // namespace tile

struct CompiledKernel {
  LaunchContract contract;
  std::string chip;
  std::string ptx;
  /// The longest K slice of the FMA dots it unrolled whole (0: none);
  /// SpillRecompile says what it is for.
  int64_t fmaKSteps = 0;
  /// Whether a dot is kept in flight (SpillRecompile).
  bool dotsInFlight = false;
  /// Whether a loop stages a dot operand through registers where
  /// asynchronous copies could (SpillRecompile).
  bool registerStaging = false;
  /// The most k-steps of register fragments a swap_ab wgmma dot loads
  /// before issuing them (0: none; SpillRecompile).
  int64_t wgmmaFragmentSteps = 0;
  /// Whether the kernel has a loop, where LLVM may hoist invariants
  /// (SpillRecompile).
  bool loops = false;
};

/// How a kernel that spills is compiled once more: lighter on registers,
/// usually slower where nothing spills (docs/benchmarks-log.md).
struct SpillRelief {
  /// Steps per iteration of the FMA dots' K loops (above 0: rolled; the
  /// pipeline's fma-k-unroll).
  int64_t fmaKUnroll = 0;
  /// No dot kept in flight (the pipeline's synchronous-dots).
  bool synchronousDots = false;
  /// A loop's dot operands staged by asynchronous copies, not registers
  /// (the pipeline's async-staging).
  bool asyncStaging = false;
  /// 32-bit shared-memory pointers and no loop strength reduction in
  /// LLVM's code generation (PTXEmitter's lean addresses).
  bool leanAddresses = false;
  /// No loop-invariant code motion in LLVM (PTXEmitter's keepInvariants).
  bool keepInvariants = false;
  /// k-steps of a swap_ab wgmma dot issued per group, each loading its own
  /// fragments (above 0; the pipeline's wgmma-fragment-steps).
  int64_t wgmmaFragmentSteps = 0;

  bool any() const {
    return fmaKUnroll > 0 || synchronousDots || asyncStaging || leanAddresses ||
           keepInvariants || wgmmaFragmentSteps > 0;
  }
  /// Only the reliefs that change the MLIR pipeline (not PTXEmitter's).
  SpillRelief lowering() const {
    SpillRelief result = *this;
    result.leanAddresses = false;
    result.keepInvariants = false;
    return result;
  }
  bool operator<(const SpillRelief &other) const {
    return std::tie(fmaKUnroll, synchronousDots, asyncStaging, leanAddresses,
                    keepInvariants, wgmmaFragmentSteps) <
           std::tie(other.fmaKUnroll, other.synchronousDots, other.asyncStaging,
                    other.leanAddresses, other.keepInvariants,
                    other.wgmmaFragmentSteps);
  }
};

/// Where the time of one kernel's compilation went, in milliseconds.
struct CompileTimings {
  /// The MLIR pipeline, from the tile dialect to llvm/nvvm.
  double passesMs = 0;
  /// LLVM: translation to LLVM IR, its optimisation and NVPTX's code
  /// generation (PTXEmitter).
  double llvmMs = 0;
};

/// Compiles kernels one after another in one context with pass managers
/// built once, so that no pass is re-created or re-initialised (the
/// canonicalizer collects its patterns once). compileModule uses one per
/// call; phobos-tune keeps one per worker thread, each with its own
/// context. Not thread-safe.
class KernelCompiler {
public:
  KernelCompiler(mlir::MLIRContext *context, llvm::StringRef chip);
  ~KernelCompiler();

  /// Compiles `kernel` (a bound variant; not changed) alone in a module:
  /// the contract, the GPU pipeline, then the PTX. When the lowered kernel
  /// needs more than `sharedLimitBytes` of shared memory (when that is not
  /// negative), stops before LLVM and returns the kernel without PTX, its
  /// contract holding the shared memory it needs.
  /// `relief` compiles it lighter on registers (SpillRelief). With
  /// `lineInfo`, the PTX has `.file`/`.loc` lines at the kernel's source
  /// locations (PTXEmitter::emit).
  mlir::FailureOr<CompiledKernel> compile(tile::KernelOp kernel,
                                          CompileTimings *timings = nullptr,
                                          int64_t sharedLimitBytes = -1,
                                          SpillRelief relief = {},
                                          bool lineInfo = true);

private:
  mlir::MLIRContext *context;
  std::string chip;
  std::unique_ptr<mlir::PassManager> pipeline;
  /// The pipelines of other SpillReliefs, built when first asked for.
  std::map<SpillRelief, std::unique_ptr<mlir::PassManager>> reliefPipelines;
  std::unique_ptr<PTXEmitter> emitter;
  /// The emitters of the reliefs PTXEmitter gives (lean addresses, kept
  /// invariants), indexed by their bits, made when first asked for.
  std::unique_ptr<PTXEmitter> reliefEmitters[4];
};

/// Compiles the kernels `options` selects from the main buffer of
/// `sourceMgr` for `chip`, one PTX module each. Errors (with source
/// locations) go to `context`'s diagnostic handler.
mlir::FailureOr<std::vector<CompiledKernel>>
compilePhobos(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context,
              const frontend::ImportOptions &options, llvm::StringRef chip);

/// Compiles every `phobos.kernel` of `module` (the front end's output, one
/// variant each; `module` is not changed).
mlir::FailureOr<std::vector<CompiledKernel>>
compileModule(mlir::ModuleOp module, llvm::StringRef chip,
              SpillRelief relief = {});

/// Specialises `kernel` for the extents of one launch, as Triton
/// specialises on integer arguments divisible by 16: each named tensor
/// extent in `dims` whose value is a multiple of 2, 4, 8 or 16 (the largest
/// of them) becomes an @aligned promise of that multiple, merged with the
/// kernel's own (least common multiple). The lowering then knows which
/// rows start 16-byte aligned and drops the run-time checks and the
/// element-by-element paths of their vector accesses; the launcher rejects
/// a launch whose extents break the promises, so the specialised kernel
/// runs only where it is valid. Returns the promises added (for the kernel
/// cache's key), sorted by name.
std::vector<std::pair<std::string, int64_t>>
specializeAlignment(tile::KernelOp kernel,
                    const llvm::StringMap<int64_t> &dims);

/// The multiple a launch's specialisation promises for an extent: the
/// largest of 2, 4, 8 and 16 that divides it, else 1.
int64_t specializationMultiple(int64_t extent);

/// The ptxas next to the CUDA toolkit (PATH, then /usr/local/cuda/bin).
std::optional<std::string> findPtxas();

/// Options added to every assembly, ptxas's or nvJitLink's, for A/B
/// measurements: the experiment ptxas= (`-Ofc=min`, Support/Experiments.h),
/// empty without one. The compiler version names them (compilerVersion), so
/// cached kernels assembled with them stay apart.
const std::vector<std::string> &getExtraPtxasOptions();

/// What ptxas reports for a kernel with `-v`: registers per thread and the
/// bytes of local memory its spills and stack take per thread (-1: not
/// reported).
struct AssemblyReport {
  int registers = -1;
  int spillStoreBytes = -1;
  int spillLoadBytes = -1;
  int stackFrameBytes = -1;

  /// Spill stores and loads together (0 when not reported).
  int spilledBytes() const {
    return std::max(spillStoreBytes, 0) + std::max(spillLoadBytes, 0);
  }
};

/// Reads ptxas's `-v` lines ("Used 207 registers, ...", "0 bytes stack
/// frame, 0 bytes spill stores, 0 bytes spill loads") for one kernel.
AssemblyReport parsePtxasReport(llvm::StringRef log);

/// Assembles `ptx` for `chip` with `ptxas`; the cubin bytes, or an error
/// holding ptxas's output. With `report`, ptxas runs with `-v` and its
/// resource lines fill `report`.
llvm::Expected<std::string> assembleCubin(llvm::StringRef ptxas,
                                          llvm::StringRef ptx,
                                          llvm::StringRef chip,
                                          AssemblyReport *report = nullptr);

/// Assembles one kernel's PTX into a cubin, filling `report` (ptxas -v).
using Assembler = llvm::function_ref<llvm::Expected<std::string>(
    llvm::StringRef ptx, AssemblyReport *report)>;

/// The PTX of `ptx` with every entry asking for one CTA per SM
/// (`.minnctapersm 1`): a larger request (tile-choose-occupancy's two CTAs)
/// is lowered, an entry without one gets it after its `.maxntid` or
/// `.reqntid`. Without a request, ptxas picks the registers a thread may use
/// from its own occupancy heuristic, and at times spills a few bytes below
/// 255 registers; with one CTA requested it may use them all. Nullopt when
/// nothing changes or an entry fixes its registers itself (`.maxnreg`, the
/// warp-specialised kernels).
std::optional<std::string> requestOneCtaPerSM(llvm::StringRef ptx);

/// The registers the consumer warpgroups of a warp-specialised kernel ask
/// for (its `setmaxnreg.inc`), or nullopt where it has none.
std::optional<int> consumerRegisters(llvm::StringRef ptx);

/// The PTX of `ptx` with its consumers' `setmaxnreg.inc` asking for
/// `registers` (a multiple of 8, 24 to 256): the producer keeps its share,
/// so the launch still fits the SM's registers. Nullopt where there is no
/// such instruction or `registers` is not valid.
std::optional<std::string> withConsumerRegisters(llvm::StringRef ptx,
                                                 int registers);

/// How many lower consumer register counts, 8 apart, are tried for a
/// warp-specialised kernel that spills, before it is compiled again with
/// reliefs. ptxas's spills do not fall monotonically with the registers:
/// the f16 attention example at D 128 with its dots in flight and its
/// warpgroups taking turns spills 32 bytes at 232 registers, 40 at 224, 88
/// at 216, 148 at 208 and none at 200 and 192, where the reliefs' first
/// success (no dot in flight) gave up both (docs/benchmarks-log.md).
inline constexpr int kConsumerRegisterSteps = 6;

/// Steps per iteration of the FMA dots' K loops when a kernel that spills
/// is compiled again with them rolled. Unrolled whole, ptxas loads every
/// step's operands early, which is fastest until the registers run out
/// (rolled, the kernels that do not spill ran slower); where they spill,
/// 8 steps removed the spills of most FMA variants and made the measured
/// ones faster (figures in docs/benchmarks-log.md).
inline constexpr int64_t kSpillingFmaKUnroll = 8;

/// k-steps per group of a swap_ab wgmma dot that spills: half of a K 64
/// tf32 tile's 8, so that its fragments take 16 registers, not 32 (with
/// kept invariants it took the 128 x 256 x 64 tf32 GEMM, 128 registers a
/// thread, from 72 bytes of spills to none; docs/benchmarks-log.md).
inline constexpr int64_t kSpillingWgmmaFragmentSteps = 4;

/// Steps per iteration of the FMA dots' K loops in the last relief tried,
/// with every other one available: where 8 steps still spill, 2 leave
/// ptxas fewer operands to load early (f32 attention with 128 rows, 128
/// key columns and D 128: 48 bytes of spills at 8 steps, none at 2;
/// docs/benchmarks-log.md).
inline constexpr int64_t kTightFmaKUnroll = 2;

/// The reliefs that give `kernel` other code: its FMA dots' K loops rolled
/// (a dot unrolled more steps than a rolled loop takes), no dot in flight
/// (a dot was), asynchronous staging (a loop staged an operand through
/// registers); none that an experiment fixes for A/B measurements
/// (fma-k-unroll, sync-dots, async-staging, lean-addresses,
/// Support/Experiments.h); lean addresses where the
/// kernel uses shared memory. (The pipeline's wgmma-fragment-steps is not one:
/// docs/benchmarks-log.md.)
SpillRelief availableReliefs(const CompiledKernel &kernel);

/// How to compile a kernel once more where it spills: `available` is
/// availableReliefs of it, `compile` returns the kernel compiled with a
/// SpillRelief. Empty (the default), nothing is compiled again.
struct SpillRecompile {
  SpillRelief available;
  llvm::function_ref<mlir::FailureOr<CompiledKernel>(SpillRelief)> compile;

  /// The reliefs tried, in order: asynchronous staging alone; then rolled
  /// FMA loops, then no dot in flight as well (each adding the next
  /// available one to the one before); then those again with asynchronous
  /// staging; where the FMA loops are rolled, all of them with
  /// kTightFmaKUnroll steps; last, where the kernel uses shared memory,
  /// lean addresses alone, with all the others, and with all the others at
  /// kTightFmaKUnroll steps; after those, every available relief with
  /// invariants kept in their loops, then that with kSpillingWgmmaFragmentSteps
  /// steps per wgmma group, and invariants kept alone. ptxas's spills do not fall monotonically with the
  /// registers a kernel asks for, so a relief that helps one kernel can hurt
  /// the next and each combination is worth an assembly
  /// (docs/benchmarks-log.md).
  llvm::SmallVector<SpillRelief, 11> reliefs() const;
};

/// Assembles `kernel.ptx` with `assemble`, and where ptxas spills, once
/// more from requestOneCtaPerSM(ptx): the occupancy a kernel asks for (or
/// ptxas picks) is worth less than the local-memory traffic of spills.
/// A warp-specialised kernel that spills is assembled with fewer consumer
/// registers (withConsumerRegisters, up to kConsumerRegisterSteps counts)
/// until one does not spill, and so is each relieved kernel that keeps its
/// dots in flight. Where the best still spills, the kernel is compiled again
/// with each of `recompile`'s reliefs in turn, each assembled the same way,
/// until one does not spill. Keeps the assembly that spills fewest bytes
/// (the first on a tie) and sets `kernel` to the kernel it came from (its
/// PTX, and its contract: a relieved pipeline may take fewer stages of
/// shared memory), so a kernel cache stores the PTX of its cubin. ptxas's
/// refusal of an instruction that needs more registers than the occupancy
/// leaves (C7602, "Insufficient registers") counts as a spill larger than
/// any other; where every assembly is refused, the first refusal is the
/// error. `report` (optional) describes the cubin returned.
llvm::Expected<std::string>
assembleAvoidingSpills(CompiledKernel &kernel, Assembler assemble,
                       AssemblyReport *report = nullptr,
                       SpillRecompile recompile = {});

/// assembleAvoidingSpills with ptxas.
llvm::Expected<std::string>
assembleAvoidingSpills(llvm::StringRef ptxas, CompiledKernel &kernel,
                       AssemblyReport *report = nullptr,
                       SpillRecompile recompile = {});

} // namespace phobos

#endif // PHOBOS_DRIVER_COMPILER_H
