//===- Cta.h - One CTA of the interpreter, shared by its files --*- C++ -*-===//
//
// The interpreter's values (Tile, RtValue), the broadcasting walk, and Cta,
// which runs one CTA of a kernel. Cta's methods are defined by concern:
// Interpreter.cpp (running blocks, the dispatch by op family, control flow,
// the grid), CtaMemory.cpp (global and shared memory, asynchronous and TMA
// copies, mbarriers, warp roles) and CtaCompute.cpp (element-wise ops, dots,
// reductions, scalar arith and math). Private to lib/Interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_LIB_INTERPRETER_CTA_H
#define PHOBOS_LIB_INTERPRETER_CTA_H

#include "Phobos/Interpreter/Interpreter.h"

#include "Phobos/Dialect/Tile/IR/ElementTypes.h"
#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "RaceCheck.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>

namespace phobos::interp::detail {

using mlir::Operation;
using mlir::Value;
namespace arith = mlir::arith;
namespace math = mlir::math;
namespace scf = mlir::scf;

inline ElementType elementOf(mlir::Type type) {
  // The verifier admits no other element types.
  return tile::getElementType(type).value_or(ElementType::I64);
}

/// A tile's elements: doubles for float types, int64 for the others.
struct Tile {
  llvm::SmallVector<int64_t, 4> shape;
  ElementType element = ElementType::F32;
  std::vector<double> f;
  std::vector<int64_t> i;

  bool isFloat() const { return phobos::isFloat(element); }
  int64_t size() const {
    int64_t n = 1;
    for (int64_t extent : shape)
      n *= extent;
    return n;
  }
  static std::shared_ptr<Tile> make(llvm::ArrayRef<int64_t> shape,
                                    ElementType element) {
    auto tile = std::make_shared<Tile>();
    tile->shape.assign(shape.begin(), shape.end());
    tile->element = element;
    if (tile->isFloat())
      tile->f.assign(tile->size(), 0.0);
    else
      tile->i.assign(tile->size(), 0);
    return tile;
  }
  double getF(int64_t index) const {
    return isFloat() ? f[index] : static_cast<double>(i[index]);
  }
  int64_t getI(int64_t index) const {
    return isFloat() ? static_cast<int64_t>(f[index]) : i[index];
  }
};
using TilePtr = std::shared_ptr<const Tile>;

/// A value in a CTA's environment.
struct RtValue {
  enum class Kind : uint8_t { Scalar, Tile, Tensor, Slot };
  Kind kind = Kind::Scalar;
  ElementType element = ElementType::F32;
  double f = 0;
  int64_t i = 0;
  TilePtr tile;
  const TensorArg *tensor = nullptr;
  /// Slot: a staged buffer's storage (mutable: asynchronous copies write
  /// into it) and the slot (-1: the whole buffer).
  std::shared_ptr<Tile> storage;
  int64_t slot = -1;

  static RtValue scalarF(ElementType element, double value) {
    RtValue v;
    v.element = element;
    v.f = roundTo(element, value);
    return v;
  }
  static RtValue scalarI(ElementType element, int64_t value) {
    RtValue v;
    v.element = element;
    v.i = wrapTo(element, value);
    return v;
  }
  static RtValue ofTile(TilePtr tile) {
    RtValue v;
    v.kind = Kind::Tile;
    v.element = tile->element;
    v.tile = std::move(tile);
    return v;
  }
  bool isTile() const { return kind == Kind::Tile; }
  double asF() const { return phobos::isFloat(element) ? f : double(i); }
  int64_t asI() const { return phobos::isFloat(element) ? int64_t(f) : i; }
  /// A scalar as a rank-0 tile, so that element-wise code sees one form.
  TilePtr asTile() const {
    if (isTile())
      return tile;
    auto t = Tile::make({}, element);
    if (t->isFloat())
      t->f[0] = f;
    else
      t->i[0] = i;
    return t;
  }
};

/// Walks the elements of `shape` in row-major order and, for each operand,
/// the offset of the element it broadcasts to that position.
class BroadcastWalk {
public:
  BroadcastWalk(llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<const Tile *> operands)
      : shape(shape.begin(), shape.end()), index(shape.size(), 0),
        offsets(operands.size(), 0) {
    size_t rank = shape.size();
    for (const Tile *operand : operands) {
      llvm::SmallVector<int64_t, 4> strides(rank, 0);
      int64_t stride = 1;
      size_t opRank = operand->shape.size();
      for (size_t k = 0; k < opRank; ++k) {
        size_t axis = rank - 1 - k;
        int64_t extent = operand->shape[opRank - 1 - k];
        strides[axis] = extent == 1 ? 0 : stride;
        stride *= extent;
      }
      this->strides.push_back(std::move(strides));
    }
  }
  int64_t offset(size_t operand) const { return offsets[operand]; }
  void next() {
    for (size_t axis = shape.size(); axis-- > 0;) {
      for (size_t op = 0; op < offsets.size(); ++op)
        offsets[op] += strides[op][axis];
      if (++index[axis] < shape[axis])
        return;
      for (size_t op = 0; op < offsets.size(); ++op)
        offsets[op] -= strides[op][axis] * shape[axis];
      index[axis] = 0;
    }
  }

private:
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<int64_t, 4> index;
  llvm::SmallVector<int64_t, 4> offsets;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 3> strides;
};

/// Runs one CTA.
class Cta {
public:
  Cta(tile::KernelOp kernel, llvm::ArrayRef<Argument> args,
      const Options &options, std::array<int64_t, 3> blockId,
      std::atomic<uint64_t> &launchSteps, RaceChecker *raceChecker = nullptr,
      int64_t linearId = 0)
      : kernel(kernel), args(args), options(options), blockId(blockId),
        launchSteps(launchSteps), raceChecker(raceChecker), linearId(linearId),
        trace(options.trace && options.trace->cta == blockId ? options.trace
                                                             : nullptr) {}

  std::optional<RunError> run();

private:
  bool runBlock(mlir::Block &block, llvm::SmallVectorImpl<RtValue> &yielded);
  /// Counts one step of `op` (an op, or an iteration of a loop) against
  /// the CTA's and the launch's budgets.
  bool step(Operation *op);
  /// Adds the steps not yet counted to the launch's total.
  bool flushSteps(Operation *op);
  bool exec(Operation *op);
  /// The op families exec() dispatches to: each runs an op of its family
  /// and answers none for any other.
  std::optional<bool> execIndexOp(Operation *op);
  std::optional<bool> execGlobalOp(Operation *op);
  std::optional<bool> execTileOp(Operation *op);
  std::optional<bool> execStagingOp(Operation *op);
  bool fail(Operation *op, const llvm::Twine &message);
  /// Where the race check and the trace (when there are) record `op`'s
  /// accesses of `tensor`, looked up once per op; note() records one
  /// element (a negative one: masked, not accessed).
  struct AccessSite {
    RaceChecker::Site race;
    /// The trace's entry (its index: the list grows), or none.
    size_t traced = SIZE_MAX;
  };
  AccessSite raceSite(const TensorArg &tensor, Operation *op,
                      RaceChecker::Access access) {
    AccessSite site;
    if (raceChecker)
      site.race = raceChecker->site(tensor, linearId, op, access);
    if (trace)
      site.traced = traceEntry(tensor, op, access);
    return site;
  }
  void note(const AccessSite &site, int64_t flat) {
    if (site.race.shadow)
      raceChecker->record(site.race, flat);
    if (site.traced != SIZE_MAX)
      traceElement(trace->accesses[site.traced], flat);
  }
  size_t traceEntry(const TensorArg &tensor, Operation *op,
                    RaceChecker::Access access);
  /// Records element `k` (row-major) of a slice of `tileShape` at
  /// `offsets` as masked, by its index on each axis of the tensor; only
  /// where the trace follows the access (the race check needs no more than
  /// note()'s -1).
  void noteMasked(const AccessSite &site, llvm::ArrayRef<int64_t> offsets,
                  llvm::ArrayRef<int64_t> pointAxes,
                  llvm::ArrayRef<int64_t> tileShape, int64_t k);
  void noteMasked(const AccessSite &site, llvm::ArrayRef<int64_t> index) {
    if (site.traced != SIZE_MAX)
      traceMasked(trace->accesses[site.traced], index);
  }
  static void traceMasked(TracedAccess &entry, llvm::ArrayRef<int64_t> index) {
    if (entry.maskedElements.size() < TracedAccess::kMaxMaskedElements)
      entry.maskedElements.emplace_back(index.begin(), index.end());
    else
      entry.truncated = true;
  }
  static void traceElement(TracedAccess &entry, int64_t flat) {
    if (flat < 0)
      ++entry.masked;
    else if (entry.elements.size() < TracedAccess::kMaxElements)
      entry.elements.push_back(flat);
    else
      entry.truncated = true;
  }

  const RtValue &get(Value value) { return env.find(value)->second; }
  void set(Value value, RtValue rt) { env[value] = std::move(rt); }
  void setTile(Value value, std::shared_ptr<Tile> tile) {
    set(value, RtValue::ofTile(std::move(tile)));
  }

  /// The tile a shared-memory value holds now (a slot is read when its
  /// reader runs, not when the slot was named); null, with the error set,
  /// when a copy into the slot is still in flight.
  TilePtr readShared(Operation *reader, Value value);

  /// An asynchronous copy's data, written into its slot when a wait
  /// retires its group (as on the GPU, where nothing says when it lands
  /// before that).
  struct PendingCopy {
    std::shared_ptr<Tile> storage;
    int64_t slot;
    std::vector<double> f;
    std::vector<int64_t> i;
  };
  using CopyGroup = std::vector<PendingCopy>;
  void retire(CopyGroup &group);
  bool execAsyncWait(tile::AsyncWaitOp op);
  /// Whether a copy not yet retired writes `slot` of `storage`.
  bool copyInFlight(const std::shared_ptr<Tile> &storage, int64_t slot) const;
  /// An mbarrier: arrivals per phase, arrivals so far in the open phase,
  /// phases completed, the TMA copies of the open phase and those of
  /// completed phases that no wait has made visible yet.
  struct Mbarrier {
    int64_t arrivals = 1, arrived = 0, completed = 0;
    CopyGroup open, landed;
  };
  bool execTmaCopy(tile::TmaCopyOp op);
  bool execMbarrierWait(tile::MbarrierWaitOp op);
  Mbarrier *mbarrier(Operation *op, Value barriers, Value index);
  /// Counts a completed mbarrier phase (what may unblock the other role).
  void completedPhase() {
    if (roles)
      ++roles->phases;
  }

  /// A `phobos.warp_specialize`'s two roles, run as coroutines: the
  /// producer on a thread of its own, one role at a time, switching where
  /// the running one waits for an mbarrier phase that is not complete.
  struct Roles {
    std::mutex mutex;
    std::condition_variable changed;
    int turn = 0; ///< 0: the producer runs, 1: the consumer
    bool finished[2] = {false, false};
    bool blocked[2] = {false, false};
    /// `phases` when each role last blocked.
    uint64_t blockedAt[2] = {0, 0};
    uint64_t phases = 0;
    bool abort = false;
    /// The loops each role is in while the other runs.
    llvm::SmallVector<Operation *, 4> loops[2];
  };
  std::unique_ptr<Roles> roles;
  bool execWarpSpecialize(tile::WarpSpecializeOp op);
  /// Whether `ready` holds, after letting the other role run (under warp
  /// specialisation) as long as that can change it; false when nothing
  /// will (the GPU would wait forever).
  bool waitUntil(llvm::function_ref<bool()> ready);
  /// Ends role `self`'s turn for good (`roles->mutex` held).
  void finishRole(int self, bool ok);

  // Families of ops.
  bool execAsyncCopy(tile::AsyncCopyOp op);
  bool execLocalStore(tile::LocalStoreOp op);
  bool execBinary(Operation *op);
  bool execUnary(Operation *op);
  bool execArith(Operation *op);
  bool execLoad(tile::LoadOp op);
  bool execStore(tile::StoreOp op);
  bool execAtomicAdd(tile::AtomicAddOp op);
  bool execScalarAccess(Operation *op, const TensorArg &tensor,
                        mlir::ValueRange indices, int64_t &flat);
  bool execDot(tile::DotOp op);
  bool execReduce(tile::ReduceOp op);
  bool execFor(scf::ForOp op);
  bool execWhile(scf::WhileOp op);
  bool execIf(scf::IfOp op);

  tile::KernelOp kernel;
  llvm::ArrayRef<Argument> args;
  const Options &options;
  std::array<int64_t, 3> blockId;
  llvm::DenseMap<Value, RtValue> env;
  uint64_t steps = 0;
  /// Steps not yet added to `launchSteps` (added in batches).
  uint64_t unflushed = 0;
  std::atomic<uint64_t> &launchSteps;
  RaceChecker *raceChecker;
  int64_t linearId;
  /// Options::trace where this is the CTA it traces, else null; its entry
  /// of each (op, tensor parameter and kind).
  Trace *trace;
  llvm::DenseMap<std::pair<Operation *, unsigned>, size_t> traceIndex;
  llvm::SmallVector<Operation *, 4> loops;
  std::optional<RunError> error;
  /// Asynchronous copies since the last commit, and the committed groups
  /// not yet retired, oldest first.
  CopyGroup openGroup;
  std::deque<CopyGroup> committed;
  /// Each phobos.local_barriers' mbarriers.
  llvm::DenseMap<Value, std::vector<Mbarrier>> mbarriers;
};

} // namespace phobos::interp::detail

#endif // PHOBOS_LIB_INTERPRETER_CTA_H
