//===- Interpreter.cpp - Runs tile-dialect kernels on the CPU -------------===//
//
// A tree-walking interpreter over the phobos, arith, math and scf ops of one
// kernel. Each CTA runs with its own environment of values; CTAs run on a
// pool of threads. Floats are held as doubles rounded to their element type
// after every operation, integers as int64 wrapped to their width, so the
// results match what the GPU stores (up to the order of summations).
//
//===----------------------------------------------------------------------===//

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

using namespace phobos;
using namespace phobos::interp;
using mlir::Operation;
using mlir::Value;
namespace arith = mlir::arith;
namespace math = mlir::math;
namespace scf = mlir::scf;

namespace {

ElementType elementOf(mlir::Type type) {
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

} // namespace

bool Cta::fail(Operation *op, const llvm::Twine &message) {
  if (!error) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << message << " (in CTA " << blockId[0] << ", " << blockId[1] << ", "
       << blockId[2] << ")";
    error = RunError{op->getLoc(), text};
  }
  return false;
}

size_t Cta::traceEntry(const TensorArg &tensor, Operation *op,
                       RaceChecker::Access access) {
  unsigned param = 0;
  while (param < args.size() && std::get_if<TensorArg>(&args[param]) != &tensor)
    ++param;
  AccessKind kind = access == RaceChecker::Access::Read ? AccessKind::Read
                    : access == RaceChecker::Access::Write
                        ? AccessKind::Write
                        : AccessKind::AtomicAdd;
  auto [it, inserted] = traceIndex.try_emplace(
      {op, param * 3 + static_cast<unsigned>(kind)}, trace->accesses.size());
  if (inserted) {
    TracedAccess &entry = trace->accesses.emplace_back();
    entry.op = op;
    entry.param = param;
    entry.kind = kind;
  }
  ++trace->accesses[it->second].executions;
  return it->second;
}

std::optional<RunError> Cta::run() {
  mlir::Block &entry = kernel.getBody().front();
  for (auto [arg, value] : llvm::zip(entry.getArguments(), args)) {
    RtValue rt;
    if (const auto *tensor = std::get_if<TensorArg>(&value)) {
      rt.kind = RtValue::Kind::Tensor;
      rt.tensor = tensor;
      rt.element = tensor->elementType;
    } else {
      const auto &scalar = std::get<ScalarArg>(value);
      ElementType element = elementOf(arg.getType());
      rt = isFloat(element) ? RtValue::scalarF(element, scalar.floatValue)
                            : RtValue::scalarI(element, scalar.intValue);
    }
    set(arg, rt);
  }
  // The environment never grows past its first allocation, so that a
  // reference into it stays valid while the other role of a
  // warp_specialize runs and defines values.
  size_t values = entry.getNumArguments();
  kernel.walk([&](Operation *op) {
    values += op->getNumResults();
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        values += block.getNumArguments();
  });
  env.reserve(values);
  llvm::SmallVector<RtValue> ignored;
  if (runBlock(entry, ignored) && flushSteps(kernel) &&
      (!openGroup.empty() || !committed.empty()))
    fail(kernel.getOperation(), "asynchronous copies are still in flight when the kernel "
                 "ends (no phobos.async_wait 0 retired them)");
  return error;
}

bool Cta::flushSteps(Operation *op) {
  uint64_t total = launchSteps.fetch_add(unflushed) + unflushed;
  unflushed = 0;
  if (total <= options.launchStepLimit)
    return true;
  return fail(op, "the launch did not finish within " +
                      llvm::Twine(options.launchStepLimit) +
                      " steps over all CTAs; --launch-step-limit N "
                      "raises the budget (or use smaller dims or a smaller "
                      "grid)");
}

/// The steps `op` costs: one, and one more for every kElementsPerStep
/// elements of its largest tile (multiply-adds of a dot), so that a step is
/// about the same time whatever the op (~100 ns on one core: the default
/// 2^27 steps are ~10 s). Counted as one step, a spin loop over a 1024 x
/// 1024 tile ran for about 20 hours before the limit stopped it.
static uint64_t stepCost(Operation *op) {
  constexpr int64_t kElementsPerStep = 16;
  // A loop's iteration or an if hands its tiles on without touching their
  // elements: one step (the ops in its regions pay for theirs).
  if (op->getNumRegions() != 0)
    return 1;
  int64_t work = 0;
  auto consider = [&](mlir::Type type) {
    if (auto tileType = llvm::dyn_cast<tile::TileType>(type))
      work = std::max(work, tileType.getNumElements());
  };
  for (mlir::Type type : op->getResultTypes())
    consider(type);
  for (mlir::Type type : op->getOperandTypes())
    consider(type);
  if (auto dot = llvm::dyn_cast<tile::DotOp>(op))
    if (auto a = llvm::dyn_cast<mlir::ShapedType>(dot.getA().getType()))
      if (a.hasRank() && a.getRank() > 0)
        // M x N results of K multiply-adds each, at twice an element's speed.
        if (llvm::MulOverflow(work / 2, std::max<int64_t>(1, a.getShape().back()),
                              work))
          work = std::numeric_limits<int64_t>::max();
  return 1 + static_cast<uint64_t>(work / kElementsPerStep);
}

bool Cta::step(Operation *op) {
  uint64_t cost = stepCost(op);
  steps += cost;
  if (steps > options.stepLimit) {
    Operation *at = loops.empty() ? op : loops.back();
    return fail(at, "the kernel did not finish within " +
                        llvm::Twine(options.stepLimit) +
                        " steps per CTA" +
                        (loops.empty() ? "" : "; this loop may never end") +
                        "; --step-limit N raises the budget");
  }
  unflushed += cost;
  if (unflushed >= 4096)
    return flushSteps(op);
  return true;
}

bool Cta::runBlock(mlir::Block &block, llvm::SmallVectorImpl<RtValue> &yielded) {
  for (Operation &op : block) {
    if (op.hasTrait<mlir::OpTrait::IsTerminator>()) {
      yielded.clear();
      for (Value operand : op.getOperands())
        yielded.push_back(get(operand));
      return true;
    }
    if (!step(&op) || !exec(&op))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// One op, by its family; each family's function answers none for an op
/// of another family.
bool Cta::exec(Operation *op) {
  if (std::optional<bool> done = execIndexOp(op))
    return *done;
  if (std::optional<bool> done = execGlobalOp(op))
    return *done;
  if (std::optional<bool> done = execTileOp(op))
    return *done;
  if (std::optional<bool> done = execStagingOp(op))
    return *done;
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](tile::DotOp o) { return execDot(o); })
      .Case([&](tile::ReduceOp o) { return execReduce(o); })
      .Case([&](scf::ForOp o) { return execFor(o); })
      .Case([&](scf::WhileOp o) { return execWhile(o); })
      .Case([&](scf::IfOp o) { return execIf(o); })
      .Case<tile::AddOp, tile::SubOp, tile::MulOp, tile::DivOp, tile::RemOp,
            tile::MaxOp, tile::MinOp, tile::AndOp, tile::OrOp, tile::CmpOp,
            tile::SelectOp>([&](Operation *o) { return execBinary(o); })
      .Case<tile::NegOp, tile::NotOp, tile::AbsOp, tile::ExpOp, tile::LogOp,
            tile::SqrtOp, tile::RsqrtOp>(
          [&](Operation *o) { return execUnary(o); })
      .Default([&](Operation *o) { return execArith(o); });
}

/// Where the CTA is: its block and tile indices, the grid, a tensor's
/// extents.
std::optional<bool> Cta::execIndexOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<bool>>(op)
      .Case([&](tile::BlockIdOp o) {
        int64_t id = blockId[static_cast<int>(o.getAxis())];
        if (std::optional<uint32_t> group = o.getGroup()) {
          auto [x, y] = tile::BlockIdOp::groupedIndex(
              blockId[0], blockId[1], options.grid[0], options.grid[1],
              *group);
          id = o.getAxis() == tile::Axis::x ? x : y;
        }
        set(o, RtValue::scalarI(ElementType::I32, id));
        return true;
      })
      .Case([&](tile::TileCoordOp o) {
        int64_t gx = get(o.getGx()).i, gy = get(o.getGy()).i;
        if (gx < 1 || gy < 1)
          return fail(o, "a tile grid of " + llvm::Twine(gx) + " by " +
                             llvm::Twine(gy) + " has no tiles");
        std::optional<int64_t> group;
        if (o.getGroup())
          group = *o.getGroup();
        set(o, RtValue::scalarI(ElementType::I32,
                                tile::TileCoordOp::evaluate(o.getAxis(),
                                                            get(o.getTile()).i,
                                                            gx, gy, group)));
        return true;
      })
      .Case([&](tile::GridDimOp o) {
        set(o, RtValue::scalarI(ElementType::I32,
                                options.grid[static_cast<int>(o.getAxis())]));
        return true;
      })
      .Case([&](tile::DimOp o) {
        set(o, RtValue::scalarI(ElementType::I32,
                                get(o.getTensor()).tensor->shape[o.getIndex()]));
        return true;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Global memory: tile loads and stores, atomic adds, scalar accesses.
std::optional<bool> Cta::execGlobalOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<bool>>(op)
      .Case([&](tile::LoadOp o) { return execLoad(o); })
      .Case([&](tile::StoreOp o) { return execStore(o); })
      .Case([&](tile::AtomicAddOp o) { return execAtomicAdd(o); })
      .Case([&](tile::LoadScalarOp o) {
        const TensorArg &tensor = *get(o.getTensor()).tensor;
        int64_t flat;
        if (!execScalarAccess(o, tensor, o.getIndices(), flat))
          return false;
        ElementType element = tensor.elementType;
        note(raceSite(tensor, o, RaceChecker::Access::Read), flat);
        set(o, isFloat(element)
                   ? RtValue::scalarF(element, loadFloat(element, tensor.data, flat))
                   : RtValue::scalarI(element, loadInt(element, tensor.data, flat)));
        return true;
      })
      .Case([&](tile::StoreScalarOp o) {
        const TensorArg &tensor = *get(o.getTensor()).tensor;
        int64_t flat;
        if (!execScalarAccess(o, tensor, o.getIndices(), flat))
          return false;
        const RtValue &value = get(o.getValue());
        note(raceSite(tensor, o, RaceChecker::Access::Write), flat);
        if (isFloat(tensor.elementType))
          storeFloat(tensor.elementType, tensor.data, flat, value.asF());
        else
          storeInt(tensor.elementType, tensor.data, flat, value.asI());
        return true;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Tiles made and rearranged: fill, arange, reshape, broadcast, cast,
/// transpose, tril, cumsum.
std::optional<bool> Cta::execTileOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<bool>>(op)
      .Case([&](tile::FillOp o) {
        auto type = o.getType();
        auto result = Tile::make(type.getShape(), elementOf(type));
        const RtValue &value = get(o.getValue());
        if (result->isFloat())
          std::fill(result->f.begin(), result->f.end(), value.asF());
        else
          std::fill(result->i.begin(), result->i.end(), value.asI());
        setTile(o, result);
        return true;
      })
      .Case([&](tile::ArangeOp o) {
        auto result = Tile::make(o.getType().getShape(), ElementType::I32);
        for (int64_t k = 0; k < result->size(); ++k)
          result->i[k] = k;
        setTile(o, result);
        return true;
      })
      .Case([&](tile::ReshapeOp o) {
        auto result = std::make_shared<Tile>(*get(o.getSource()).tile);
        auto shape = o.getType().getShape();
        result->shape.assign(shape.begin(), shape.end());
        setTile(o, result);
        return true;
      })
      .Case([&](tile::BroadcastOp o) {
        TilePtr source = get(o.getSource()).tile;
        auto result = Tile::make(o.getType().getShape(), source->element);
        BroadcastWalk walk(result->shape, {source.get()});
        for (int64_t k = 0; k < result->size(); ++k, walk.next()) {
          if (result->isFloat())
            result->f[k] = source->f[walk.offset(0)];
          else
            result->i[k] = source->i[walk.offset(0)];
        }
        setTile(o, result);
        return true;
      })
      .Case([&](tile::CastOp o) {
        TilePtr source = get(o.getSource()).tile;
        ElementType to = elementOf(o.getType());
        auto result = Tile::make(source->shape, to);
        for (int64_t k = 0; k < result->size(); ++k) {
          if (isFloat(to) && !source->isFloat() && to == ElementType::F32)
            // One rounding from the exact integer (not through double).
            result->f[k] = static_cast<float>(source->i[k]);
          else if (isFloat(to))
            result->f[k] = roundTo(to, source->getF(k));
          else if (source->isFloat())
            result->i[k] = floatToInt(to, source->f[k]);
          else
            result->i[k] = wrapTo(to, source->i[k]);
        }
        setTile(o, result);
        return true;
      })
      .Case([&](tile::TransposeOp o) {
        TilePtr source = get(o.getOperand()).tile;
        int64_t rows = source->shape[0], cols = source->shape[1];
        auto result = Tile::make({cols, rows}, source->element);
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = 0; c < cols; ++c) {
            if (result->isFloat())
              result->f[c * rows + r] = source->f[r * cols + c];
            else
              result->i[c * rows + r] = source->i[r * cols + c];
          }
        setTile(o, result);
        return true;
      })
      .Case([&](tile::TrilOp o) {
        auto result = std::make_shared<Tile>(*get(o.getOperand()).tile);
        int64_t rows = result->shape[0], cols = result->shape[1];
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t c = r + 1; c < cols; ++c) {
            if (result->isFloat())
              result->f[r * cols + c] = 0;
            else
              result->i[r * cols + c] = 0;
          }
        setTile(o, result);
        return true;
      })
      .Case([&](tile::CumsumOp o) {
        auto result = std::make_shared<Tile>(*get(o.getOperand()).tile);
        int64_t axis = o.getAxis();
        int64_t inner = 1;
        for (size_t k = axis + 1; k < result->shape.size(); ++k)
          inner *= result->shape[k];
        int64_t extent = result->shape[axis];
        int64_t outer = result->size() / (inner * extent);
        for (int64_t a = 0; a < outer; ++a)
          for (int64_t b = 0; b < inner; ++b) {
            // Running sums accumulate in f32 (f64 for f64), as the GPU's
            // scan does, and round to the element type as they are written.
            ElementType accumulate = result->element == ElementType::F64
                                         ? ElementType::F64
                                         : ElementType::F32;
            double fsum = 0;
            int64_t isum = 0;
            for (int64_t k = 0; k < extent; ++k) {
              int64_t at = (a * extent + k) * inner + b;
              if (result->isFloat()) {
                fsum = roundTo(accumulate, fsum + result->f[at]);
                result->f[at] = roundTo(result->element, fsum);
              } else {
                isum = wrapTo(result->element, isum + result->i[at]);
                result->i[at] = isum;
              }
            }
          }
        setTile(o, result);
        return true;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Shared memory and what orders it: staged buffers and their slots,
/// asynchronous and TMA copies, mbarriers, warp roles, barriers, and the
/// layout changes that move a tile between threads.
std::optional<bool> Cta::execStagingOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<bool>>(op)
      // Staged buffers: slots are views into one storage. Asynchronous
      // copies land when a wait retires their group; reading a slot
      // before then is an error, so the waits tile-insert-barriers
      // places are checked here.
      .Case([&](tile::LocalBufferOp o) {
        RtValue rt;
        rt.kind = RtValue::Kind::Slot;
        rt.element = elementOf(o.getType().getElementType());
        rt.storage = Tile::make(o.getType().getShape(), rt.element);
        set(o, rt);
        return true;
      })
      .Case([&](tile::BufferSlotOp o) {
        RtValue rt = get(o.getBuffer());
        int64_t stages = o.getBuffer().getType().getShape().front();
        int64_t index = get(o.getIndex()).i;
        if (index < 0 || index >= stages)
          return fail(o, "slot " + llvm::Twine(index) + " of a buffer of " +
                             llvm::Twine(stages) + " stages");
        rt.slot = index;
        set(o, rt);
        return true;
      })
      .Case([&](tile::AsyncCopyOp o) { return execAsyncCopy(o); })
      .Case([&](tile::LocalStoreOp o) { return execLocalStore(o); })
      // TMA copies land on an mbarrier's phase and become visible at a
      // wait on it; reading a slot before then is an error, as is waiting
      // for a phase no copy completes (the GPU would hang).
      .Case([&](tile::LocalBarriersOp o) {
        Mbarrier initial;
        initial.arrivals = o.getArrivals();
        mbarriers[o.getResult()].assign(o.getType().getShape().front(),
                                        initial);
        set(o, RtValue::scalarI(ElementType::I64, 0));
        return true;
      })
      .Case([&](tile::TmaCopyOp o) { return execTmaCopy(o); })
      .Case([&](tile::MbarrierWaitOp o) { return execMbarrierWait(o); })
      // The CTA runs as one: all its warps arrive together, which
      // completes the phase (its `arrivals` are the warps).
      .Case([&](tile::MbarrierArriveOp o) {
        if (o.getEnable() && get(o.getEnable()).i == 0)
          return true;
        Mbarrier *barrier = mbarrier(o, o.getBarriers(), o.getIndex());
        if (!barrier)
          return false;
        if (barrier->arrived != 0)
          return fail(o, "warps arrive on an mbarrier TMA copies arrive on");
        ++barrier->completed;
        completedPhase();
        return true;
      })
      .Case([&](tile::WarpSpecializeOp o) { return execWarpSpecialize(o); })
      .Case([&](tile::AsyncCommitOp) {
        committed.push_back(std::move(openGroup));
        openGroup.clear();
        return true;
      })
      .Case([&](tile::AsyncWaitOp o) { return execAsyncWait(o); })
      // Layouts and shared memory change who holds a tile, not its value;
      // a wgmma wait changes when, not what.
      .Case<tile::ConvertLayoutOp, tile::LocalAllocOp, tile::LocalLoadOp,
            tile::WgmmaWaitOp>([&](Operation *o) {
        TilePtr value = readShared(o, o->getOperand(0));
        if (!value)
          return false;
        set(o->getResult(0), RtValue::ofTile(std::move(value)));
        return true;
      })
      // Threads of one CTA run as one here: a barrier orders nothing, nor
      // do the consumer warpgroups' turns.
      .Case<tile::BarrierOp, tile::WarpgroupTurnOp>(
          [&](Operation *) { return true; })
      .Default([](Operation *) { return std::nullopt; });
}

//===----------------------------------------------------------------------===//
// Element-wise tile operations
//===----------------------------------------------------------------------===//

/// NaN-propagating maximum and minimum, as arith.maximumf/minimumf.
static double fmaxProp(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
static double fminProp(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

static bool compareF(tile::CmpPredicate p, double a, double b) {
  switch (p) {
  case tile::CmpPredicate::eq: return a == b;
  case tile::CmpPredicate::ne: return a != b; // true for NaN
  case tile::CmpPredicate::lt: return a < b;
  case tile::CmpPredicate::le: return a <= b;
  case tile::CmpPredicate::gt: return a > b;
  case tile::CmpPredicate::ge: return a >= b;
  }
  return false;
}
static bool compareI(tile::CmpPredicate p, int64_t a, int64_t b) {
  switch (p) {
  case tile::CmpPredicate::eq: return a == b;
  case tile::CmpPredicate::ne: return a != b;
  case tile::CmpPredicate::lt: return a < b;
  case tile::CmpPredicate::le: return a <= b;
  case tile::CmpPredicate::gt: return a > b;
  case tile::CmpPredicate::ge: return a >= b;
  }
  return false;
}

bool Cta::execBinary(Operation *op) {
  auto resultType = llvm::cast<tile::TileType>(op->getResult(0).getType());
  ElementType element = elementOf(resultType);
  auto result = Tile::make(resultType.getShape(), element);
  int64_t size = result->size();

  if (auto select = llvm::dyn_cast<tile::SelectOp>(op)) {
    TilePtr cond = get(select.getCondition()).asTile();
    TilePtr a = get(select.getTrueValue()).asTile();
    TilePtr b = get(select.getFalseValue()).asTile();
    BroadcastWalk walk(result->shape, {cond.get(), a.get(), b.get()});
    for (int64_t k = 0; k < size; ++k, walk.next()) {
      bool take = cond->i[walk.offset(0)] != 0;
      if (result->isFloat())
        result->f[k] = take ? a->f[walk.offset(1)] : b->f[walk.offset(2)];
      else
        result->i[k] = take ? a->i[walk.offset(1)] : b->i[walk.offset(2)];
    }
    setTile(op->getResult(0), result);
    return true;
  }

  TilePtr lhs = get(op->getOperand(0)).asTile();
  TilePtr rhs = get(op->getOperand(1)).asTile();
  BroadcastWalk walk(result->shape, {lhs.get(), rhs.get()});

  if (auto cmp = llvm::dyn_cast<tile::CmpOp>(op)) {
    tile::CmpPredicate p = cmp.getPredicate();
    for (int64_t k = 0; k < size; ++k, walk.next())
      result->i[k] = lhs->isFloat()
                         ? compareF(p, lhs->f[walk.offset(0)], rhs->f[walk.offset(1)])
                         : compareI(p, lhs->i[walk.offset(0)], rhs->i[walk.offset(1)]);
    setTile(op->getResult(0), result);
    return true;
  }

  if (result->isFloat()) {
    auto apply = [&](auto fn) {
      for (int64_t k = 0; k < size; ++k, walk.next())
        result->f[k] = roundTo(element, fn(lhs->f[walk.offset(0)],
                                           rhs->f[walk.offset(1)]));
    };
    if (llvm::isa<tile::AddOp>(op)) apply([](double a, double b) { return a + b; });
    else if (llvm::isa<tile::SubOp>(op)) apply([](double a, double b) { return a - b; });
    else if (llvm::isa<tile::MulOp>(op)) apply([](double a, double b) { return a * b; });
    else if (llvm::isa<tile::DivOp>(op)) apply([](double a, double b) { return a / b; });
    else if (llvm::isa<tile::RemOp>(op)) apply([](double a, double b) { return std::fmod(a, b); });
    else if (llvm::isa<tile::MaxOp>(op)) apply(fmaxProp);
    else apply(fminProp);
    setTile(op->getResult(0), result);
    return true;
  }

  bool isDiv = llvm::isa<tile::DivOp>(op), isRem = llvm::isa<tile::RemOp>(op);
  for (int64_t k = 0; k < size; ++k, walk.next()) {
    int64_t a = lhs->i[walk.offset(0)], b = rhs->i[walk.offset(1)];
    int64_t value;
    if (isDiv || isRem) {
      if (b == 0)
        return fail(op, "integer division by zero");
      int64_t minimum = element == ElementType::I32 ? INT32_MIN : INT64_MIN;
      if (a == minimum && b == -1)
        return fail(op, "integer division overflows (minimum / -1)");
      value = isDiv ? a / b : a % b;
    } else if (llvm::isa<tile::AddOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) + uint64_t(b));
    } else if (llvm::isa<tile::SubOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) - uint64_t(b));
    } else if (llvm::isa<tile::MulOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) * uint64_t(b));
    } else if (llvm::isa<tile::MaxOp>(op)) {
      value = std::max(a, b);
    } else if (llvm::isa<tile::MinOp>(op)) {
      value = std::min(a, b);
    } else if (llvm::isa<tile::AndOp>(op)) {
      value = a && b;
    } else {
      value = a || b;
    }
    result->i[k] = wrapTo(element, value);
  }
  setTile(op->getResult(0), result);
  return true;
}

bool Cta::execUnary(Operation *op) {
  TilePtr source = get(op->getOperand(0)).tile;
  auto result = std::make_shared<Tile>(*source);
  ElementType element = result->element;
  if (result->isFloat()) {
    double (*fn)(double) = nullptr;
    if (llvm::isa<tile::NegOp>(op)) fn = [](double x) { return -x; };
    else if (llvm::isa<tile::AbsOp>(op)) fn = [](double x) { return std::fabs(x); };
    else if (llvm::isa<tile::LogOp>(op)) fn = [](double x) { return std::log(x); };
    else if (llvm::isa<tile::SqrtOp>(op)) fn = [](double x) { return std::sqrt(x); };
    else if (!llvm::isa<tile::ExpOp>(op)) fn = [](double x) { return 1.0 / std::sqrt(x); };
    for (double &x : result->f)
      x = roundTo(element, fn ? fn(x) : flushedExp(element, x));
  } else {
    for (int64_t &x : result->i) {
      if (llvm::isa<tile::NotOp>(op))
        x = !x;
      else if (llvm::isa<tile::NegOp>(op))
        x = wrapTo(element, static_cast<int64_t>(0 - uint64_t(x)));
      else
        x = wrapTo(element, x < 0 ? static_cast<int64_t>(0 - uint64_t(x)) : x);
    }
  }
  setTile(op->getResult(0), result);
  return true;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The tensor element of each tile element of a slice access: its flat
/// index, or -1 when the element lies outside the tensor (masked).
static bool sliceIndices(const TensorArg &tensor, llvm::ArrayRef<int64_t> offsets,
                         llvm::ArrayRef<int64_t> pointAxes,
                         llvm::ArrayRef<int64_t> tileShape,
                         std::optional<llvm::ArrayRef<bool>> inBounds,
                         std::vector<int64_t> &flat, int64_t &brokenAxis) {
  size_t rank = tensor.shape.size();
  // Tensor axis -> tile axis (-1 for a point axis).
  llvm::SmallVector<int64_t, 4> tileAxis(rank, -1);
  for (size_t axis = 0, t = 0; axis < rank; ++axis)
    if (!llvm::is_contained(pointAxes, static_cast<int64_t>(axis)))
      tileAxis[axis] = t++;
  llvm::SmallVector<int64_t, 4> strides(rank, 1);
  for (size_t axis = rank; axis-- > 1;)
    strides[axis - 1] = strides[axis] * tensor.shape[axis];

  int64_t size = 1;
  for (int64_t extent : tileShape)
    size *= extent;
  flat.assign(size, 0);
  brokenAxis = -1;
  llvm::SmallVector<int64_t, 4> index(tileShape.size(), 0);
  for (int64_t k = 0; k < size; ++k) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t axis = 0; axis < rank; ++axis) {
      int64_t at = offsets[axis] + (tileAxis[axis] >= 0 ? index[tileAxis[axis]] : 0);
      if (at < 0 || at >= tensor.shape[axis]) {
        inside = false;
        if (inBounds && (*inBounds)[axis] && brokenAxis < 0)
          brokenAxis = axis;
        continue;
      }
      offset += at * strides[axis];
    }
    flat[k] = inside ? offset : -1;
    for (size_t axis = tileShape.size(); axis-- > 0;) {
      if (++index[axis] < tileShape[axis])
        break;
      index[axis] = 0;
    }
  }
  return brokenAxis < 0;
}

bool Cta::execLoad(tile::LoadOp op) {
  const TensorArg &tensor = *get(op.getTensor()).tensor;
  llvm::SmallVector<int64_t, 4> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(get(offset).i);
  auto result = Tile::make(op.getType().getShape(), tensor.elementType);
  std::vector<int64_t> flat;
  int64_t broken;
  if (!sliceIndices(tensor, offsets, op.getPointAxes(), result->shape,
                    op.getInBounds(), flat, broken))
    return fail(op, "in_bounds promises axis " + llvm::Twine(broken) +
                        " stays inside the tensor, but the slice leaves it");
  AccessSite race = raceSite(tensor, op, RaceChecker::Access::Read);
  for (size_t k = 0; k < flat.size(); ++k) {
    note(race, flat[k]);
    if (flat[k] < 0)
      continue; // masked: reads zero
    if (result->isFloat())
      result->f[k] = loadFloat(tensor.elementType, tensor.data, flat[k]);
    else
      result->i[k] = loadInt(tensor.elementType, tensor.data, flat[k]);
  }
  setTile(op, result);
  return true;
}

TilePtr Cta::readShared(Operation *reader, Value value) {
  const RtValue &rt = get(value);
  if (rt.kind != RtValue::Kind::Slot)
    return rt.tile;
  if (copyInFlight(rt.storage, rt.slot)) {
    fail(reader, "reads slot " + llvm::Twine(rt.slot) +
                     " of a staged buffer while an asynchronous copy into it "
                     "is in flight (no phobos.async_wait or "
                     "phobos.mbarrier_wait retired it)");
    return nullptr;
  }
  const Tile &storage = *rt.storage;
  llvm::ArrayRef<int64_t> shape = llvm::ArrayRef(storage.shape).drop_front();
  auto slot = Tile::make(shape, storage.element);
  int64_t size = slot->size();
  for (int64_t k = 0; k < size; ++k) {
    if (slot->isFloat())
      slot->f[k] = storage.f[rt.slot * size + k];
    else
      slot->i[k] = storage.i[rt.slot * size + k];
  }
  return slot;
}

bool Cta::copyInFlight(const std::shared_ptr<Tile> &storage,
                       int64_t slot) const {
  auto writes = [&](const CopyGroup &group) {
    return llvm::any_of(group, [&](const PendingCopy &copy) {
      return copy.storage == storage && copy.slot == slot;
    });
  };
  if (writes(openGroup) || llvm::any_of(committed, writes))
    return true;
  for (const auto &entry : mbarriers)
    for (const Mbarrier &barrier : entry.second)
      if (writes(barrier.open) || writes(barrier.landed))
        return true;
  return false;
}

Cta::Mbarrier *Cta::mbarrier(Operation *op, Value barriers, Value index) {
  auto found = mbarriers.find(barriers);
  if (found == mbarriers.end()) {
    fail(op, "names mbarriers no phobos.local_barriers made");
    return nullptr;
  }
  int64_t at = get(index).i;
  if (at < 0 || at >= int64_t(found->second.size())) {
    fail(op, "mbarrier " + llvm::Twine(at) + " of " +
                 llvm::Twine(found->second.size()));
    return nullptr;
  }
  return &found->second[at];
}

bool Cta::execTmaCopy(tile::TmaCopyOp op) {
  if (op.getEnable() && get(op.getEnable()).i == 0)
    return true;
  Mbarrier *barrier = mbarrier(op, op.getBarriers(), op.getIndex());
  if (!barrier)
    return false;
  // A refill waits until the slot's readers released it.
  if (op.getReleased()) {
    Mbarrier *released = mbarrier(op, op.getReleased(), op.getIndex());
    if (!released)
      return false;
    int64_t parity = get(op.getParity()).i & 1;
    if (!waitUntil([&] { return (released->completed & 1) != parity; }))
      return fail(op, "waits for the release of phase parity " +
                          llvm::Twine(get(op.getParity()).i & 1) +
                          " of a slot that no arrival completes: the GPU "
                          "would wait forever");
  }
  const TensorArg &tensor = *get(op.getTensor()).tensor;
  const RtValue &destination = get(op.getDestination());
  if (copyInFlight(destination.storage, destination.slot))
    return fail(op, "copies into slot " + llvm::Twine(destination.slot) +
                        " of a staged buffer while an earlier copy into it "
                        "is in flight");
  llvm::ArrayRef<int64_t> shape = op.getDestination().getType().getShape();
  int64_t size = shape[0] * shape[1];
  PendingCopy copy{destination.storage, destination.slot, {}, {}};
  if (destination.storage->isFloat())
    copy.f.assign(size, 0.0);
  else
    copy.i.assign(size, 0);
  // A 3-D tensor: the box is cut from the plane the first offset names.
  size_t rank = tensor.shape.size();
  int64_t plane = rank == 3 ? get(op.getOffsets()[0]).i : 0;
  int64_t row0 = get(op.getOffsets()[rank - 2]).i;
  int64_t col0 = get(op.getOffsets()[rank - 1]).i;
  int64_t rows = tensor.shape[rank - 2], cols = tensor.shape[rank - 1];
  int64_t planes = rank == 3 ? tensor.shape[0] : 1;
  // Outside the tensor (either side) TMA writes zeros.
  AccessSite race = raceSite(tensor, op, RaceChecker::Access::Read);
  for (int64_t r = 0; r < shape[0]; ++r)
    for (int64_t c = 0; c < shape[1]; ++c) {
      int64_t row = row0 + r, col = col0 + c;
      if (row < 0 || row >= rows || col < 0 || col >= cols || plane < 0 ||
          plane >= planes) {
        note(race, -1);
        continue;
      }
      int64_t flat = (plane * rows + row) * cols + col, k = r * shape[1] + c;
      note(race, flat);
      if (destination.storage->isFloat())
        copy.f[k] = loadFloat(tensor.elementType, tensor.data, flat);
      else
        copy.i[k] = loadInt(tensor.elementType, tensor.data, flat);
    }
  barrier->open.push_back(std::move(copy));
  if (++barrier->arrived == barrier->arrivals) {
    barrier->arrived = 0;
    ++barrier->completed;
    completedPhase();
    for (PendingCopy &landed : barrier->open)
      barrier->landed.push_back(std::move(landed));
    barrier->open.clear();
  }
  return true;
}

bool Cta::execMbarrierWait(tile::MbarrierWaitOp op) {
  Mbarrier *barrier = mbarrier(op, op.getBarriers(), op.getIndex());
  if (!barrier)
    return false;
  int64_t parity = get(op.getPhase()).i;
  // The phase of that parity is complete when the current one is not it.
  if (!waitUntil([&] { return (barrier->completed & 1) != (parity & 1); }))
    return fail(op, "waits for a phase of parity " + llvm::Twine(parity) +
                        " that no copy completes (" +
                        llvm::Twine(barrier->arrived) + " of " +
                        llvm::Twine(barrier->arrivals) +
                        " arrivals): the GPU would wait forever");
  retire(barrier->landed);
  return true;
}

bool Cta::waitUntil(llvm::function_ref<bool()> ready) {
  if (ready())
    return true;
  if (!roles)
    return false;
  std::unique_lock<std::mutex> lock(roles->mutex);
  int self = roles->turn, other = 1 - self;
  while (!ready()) {
    // The other role cannot change it: done, or itself waiting with no
    // phase completed since.
    if (roles->abort || roles->finished[other] ||
        (roles->blocked[other] && roles->blockedAt[other] == roles->phases))
      return false;
    roles->blocked[self] = true;
    roles->blockedAt[self] = roles->phases;
    roles->loops[self] = std::move(loops);
    loops = std::move(roles->loops[other]);
    roles->turn = other;
    roles->changed.notify_all();
    roles->changed.wait(lock, [&] { return roles->turn == self; });
    roles->blocked[self] = false;
    if (roles->abort)
      return false;
  }
  return true;
}

void Cta::finishRole(int self, bool ok) {
  int other = 1 - self;
  roles->finished[self] = true;
  roles->abort |= !ok;
  roles->loops[self] = std::move(loops);
  loops = std::move(roles->loops[other]);
  roles->turn = other;
  roles->changed.notify_all();
}

bool Cta::execWarpSpecialize(tile::WarpSpecializeOp op) {
  if (roles)
    return fail(op, "a warp_specialize inside another");
  llvm::SmallVector<Operation *, 4> outer = loops;
  roles = std::make_unique<Roles>();
  roles->loops[1] = loops;
  auto runRole = [&](int self, mlir::Block &block) {
    bool aborted;
    {
      std::unique_lock<std::mutex> lock(roles->mutex);
      roles->changed.wait(lock, [&] { return roles->turn == self; });
      aborted = roles->abort;
    }
    llvm::SmallVector<RtValue> ignored;
    bool ok = !aborted && runBlock(block, ignored);
    std::unique_lock<std::mutex> lock(roles->mutex);
    finishRole(self, ok);
  };
  std::thread producer([&] { runRole(0, op.getProducerBlock()); });
  runRole(1, op.getConsumerBlock());
  {
    std::unique_lock<std::mutex> lock(roles->mutex);
    roles->changed.wait(lock, [&] { return roles->finished[0]; });
  }
  producer.join();
  bool ok = !roles->abort;
  loops = std::move(outer);
  roles.reset();
  if (!ok && !error)
    return fail(op, "a role of the warp_specialize failed");
  return ok;
}

void Cta::retire(CopyGroup &group) {
  for (PendingCopy &copy : group) {
    Tile &storage = *copy.storage;
    int64_t size = storage.isFloat() ? copy.f.size() : copy.i.size();
    int64_t base = copy.slot * size;
    for (int64_t k = 0; k < size; ++k) {
      if (storage.isFloat())
        storage.f[base + k] = copy.f[k];
      else
        storage.i[base + k] = copy.i[k];
    }
  }
  group.clear();
}

bool Cta::execAsyncWait(tile::AsyncWaitOp op) {
  // wait_group N: all but the newest N committed groups have landed.
  int64_t keep = op.getPending();
  while (int64_t(committed.size()) > keep) {
    retire(committed.front());
    committed.pop_front();
  }
  return true;
}

bool Cta::execAsyncCopy(tile::AsyncCopyOp op) {
  const TensorArg &tensor = *get(op.getTensor()).tensor;
  const RtValue &destination = get(op.getDestination());
  auto slice = llvm::cast<tile::TileType>(op.getSlice());
  int64_t size = slice.getNumElements();
  PendingCopy copy{destination.storage, destination.slot, {}, {}};
  // A copy into a slot a pending copy also writes: which lands last is
  // undefined on the GPU.
  auto sameSlot = [&](const CopyGroup &group) {
    return llvm::any_of(group, [&](const PendingCopy &other) {
      return other.storage == copy.storage && other.slot == copy.slot;
    });
  };
  if (sameSlot(openGroup) || llvm::any_of(committed, sameSlot))
    return fail(op, "copies into slot " + llvm::Twine(copy.slot) +
                        " of a staged buffer while an earlier copy into it "
                        "is in flight");
  if (destination.storage->isFloat())
    copy.f.assign(size, 0.0);
  else
    copy.i.assign(size, 0);
  bool enabled = !op.getEnable() || get(op.getEnable()).i != 0;
  llvm::SmallVector<int64_t, 4> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(get(offset).i);
  std::vector<int64_t> flat;
  int64_t broken;
  if (enabled && !sliceIndices(tensor, offsets, op.getPointAxes(),
                               slice.getShape(), op.getInBounds(), flat, broken))
    return fail(op, "in_bounds promises axis " + llvm::Twine(broken) +
                        " stays inside the tensor, but the slice leaves it");
  AccessSite race = raceSite(tensor, op, RaceChecker::Access::Read);
  for (int64_t k = 0; k < size; ++k) {
    bool inside = enabled && flat[k] >= 0;
    if (enabled)
      note(race, flat[k]);
    if (!inside)
      continue; // zero-filled
    if (destination.storage->isFloat())
      copy.f[k] = loadFloat(tensor.elementType, tensor.data, flat[k]);
    else
      copy.i[k] = loadInt(tensor.elementType, tensor.data, flat[k]);
  }
  openGroup.push_back(std::move(copy));
  return true;
}

bool Cta::execLocalStore(tile::LocalStoreOp op) {
  TilePtr value = get(op.getValue()).tile;
  const RtValue &destination = get(op.getDestination());
  if (destination.kind != RtValue::Kind::Slot)
    return fail(op, "stores into a buffer that is not a slot of a "
                    "phobos.local_buffer");
  // A copy in flight into the slot would land after (or over) this store.
  if (copyInFlight(destination.storage, destination.slot))
    return fail(op, "stores into slot " + llvm::Twine(destination.slot) +
                        " of a staged buffer while an asynchronous copy into "
                        "it is in flight");
  Tile &storage = *destination.storage;
  int64_t size = value->size();
  int64_t base = destination.slot * size;
  for (int64_t k = 0; k < size; ++k) {
    if (storage.isFloat())
      storage.f[base + k] = value->f[k];
    else
      storage.i[base + k] = value->i[k];
  }
  return true;
}

bool Cta::execStore(tile::StoreOp op) {
  const TensorArg &tensor = *get(op.getTensor()).tensor;
  TilePtr value = get(op.getValue()).tile;
  llvm::SmallVector<int64_t, 4> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(get(offset).i);
  std::vector<int64_t> flat;
  int64_t broken;
  if (!sliceIndices(tensor, offsets, op.getPointAxes(), value->shape,
                    op.getInBounds(), flat, broken))
    return fail(op, "in_bounds promises axis " + llvm::Twine(broken) +
                        " stays inside the tensor, but the slice leaves it");
  AccessSite race = raceSite(tensor, op, RaceChecker::Access::Write);
  for (size_t k = 0; k < flat.size(); ++k) {
    note(race, flat[k]);
    if (flat[k] < 0)
      continue; // masked: not stored
    if (value->isFloat())
      storeFloat(tensor.elementType, tensor.data, flat[k], value->f[k]);
    else
      storeInt(tensor.elementType, tensor.data, flat[k], value->i[k]);
  }
  return true;
}

/// CTAs run on several threads: atomic additions take this lock, so that
/// each one is a whole read-modify-write, as on the GPU.
static std::mutex atomicLock;

bool Cta::execAtomicAdd(tile::AtomicAddOp op) {
  const TensorArg &tensor = *get(op.getTensor()).tensor;
  ElementType element = tensor.elementType;
  const RtValue &value = get(op.getValue());
  std::vector<int64_t> flat;
  std::vector<double> addF;
  std::vector<int64_t> addI;
  if (value.kind == RtValue::Kind::Tile) {
    llvm::SmallVector<int64_t, 4> offsets;
    for (Value offset : op.getOffsets())
      offsets.push_back(get(offset).i);
    int64_t broken;
    if (!sliceIndices(tensor, offsets, op.getPointAxes(), value.tile->shape,
                      op.getInBounds(), flat, broken))
      return fail(op, "in_bounds promises axis " + llvm::Twine(broken) +
                          " stays inside the tensor, but the slice leaves it");
    addF = value.tile->f;
    addI = value.tile->i;
  } else {
    int64_t at;
    if (!execScalarAccess(op, tensor, op.getOffsets(), at))
      return false;
    flat.push_back(at);
    addF.push_back(value.asF());
    addI.push_back(value.asI());
  }
  AccessSite race = raceSite(tensor, op, RaceChecker::Access::Atomic);
  std::lock_guard<std::mutex> guard(atomicLock);
  for (size_t k = 0; k < flat.size(); ++k) {
    note(race, flat[k]);
    if (flat[k] < 0)
      continue; // masked: not added
    if (isFloat(element))
      storeFloat(element, tensor.data, flat[k],
                 loadFloat(element, tensor.data, flat[k]) + addF[k]);
    else
      storeInt(element, tensor.data, flat[k],
               loadInt(element, tensor.data, flat[k]) + addI[k]);
  }
  return true;
}

bool Cta::execScalarAccess(Operation *op, const TensorArg &tensor,
                           mlir::ValueRange indices, int64_t &flat) {
  flat = 0;
  bool inside = true;
  for (auto [axis, index] : llvm::enumerate(indices)) {
    int64_t at = get(index).i;
    inside &= at >= 0 && at < tensor.shape[axis];
    flat = flat * tensor.shape[axis] + at;
  }
  if (inside)
    return true;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << (llvm::isa<tile::LoadScalarOp>(op)    ? "read"
         : llvm::isa<tile::AtomicAddOp>(op) ? "atomic add"
                                             : "write")
     << " of element [";
  llvm::interleaveComma(indices, os, [&](Value v) { os << get(v).i; });
  os << "] is outside the tensor of shape [";
  llvm::interleaveComma(tensor.shape, os);
  os << "]";
  return fail(op, text);
}

//===----------------------------------------------------------------------===//
// Dot and reductions
//===----------------------------------------------------------------------===//

bool Cta::execDot(tile::DotOp op) {
  TilePtr a = readShared(op, op.getA());
  if (!a)
    return false;
  TilePtr b = readShared(op, op.getB());
  if (!b)
    return false;
  bool transposed = op.getTransposeB();
  int64_t m = a->shape[0], k = a->shape[1];
  int64_t n = transposed ? b->shape[0] : b->shape[1];
  ElementType out = elementOf(op.getType());
  auto round = [&](double x) {
    switch (op.getPrecision()) {
    case tile::DotPrecision::tf32: return roundToTF32(x);
    case tile::DotPrecision::f16: return roundTo(ElementType::F16, x);
    case tile::DotPrecision::bf16: return roundTo(ElementType::BF16, x);
    case tile::DotPrecision::ieee: return x;
    }
    return x;
  };
  // Operands rounded once; b laid out [k, n].
  std::vector<double> av(m * k), bv(k * n);
  for (int64_t x = 0; x < m * k; ++x)
    av[x] = round(a->f[x]);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      bv[r * n + c] = round(transposed ? b->f[c * k + r] : b->f[r * n + c]);
  auto result = Tile::make({m, n}, out);
  if (op.getAcc())
    result->f = get(op.getAcc()).tile->f;
  // A chain of fused multiply-adds in the result type, as on the GPU.
  for (int64_t i = 0; i < m; ++i) {
    double *row = &result->f[i * n];
    for (int64_t p = 0; p < k; ++p) {
      double x = av[i * k + p];
      const double *brow = &bv[p * n];
      if (out == ElementType::F32)
        for (int64_t j = 0; j < n; ++j)
          row[j] = std::fmaf(static_cast<float>(x), static_cast<float>(brow[j]),
                             static_cast<float>(row[j]));
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] = std::fma(x, brow[j], row[j]);
    }
  }
  setTile(op, result);
  return true;
}

bool Cta::execReduce(tile::ReduceOp op) {
  TilePtr source = get(op.getOperand()).tile;
  int64_t axis = op.getAxis();
  auto result = Tile::make(op.getType().getShape(), source->element);
  int64_t inner = 1;
  for (size_t k = axis + 1; k < source->shape.size(); ++k)
    inner *= source->shape[k];
  int64_t extent = source->shape[axis];
  int64_t outer = source->size() / (inner * extent);
  tile::ReduceKind kind = op.getKind();
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t b = 0; b < inner; ++b) {
      int64_t out = a * inner + b;
      if (source->isFloat()) {
        // Sums accumulate in double and round once.
        double acc = kind == tile::ReduceKind::sum ? 0.0
                     : kind == tile::ReduceKind::max
                         ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < extent; ++k) {
          double x = source->f[(a * extent + k) * inner + b];
          acc = kind == tile::ReduceKind::sum   ? acc + x
                : kind == tile::ReduceKind::max ? fmaxProp(acc, x)
                                                : fminProp(acc, x);
        }
        result->f[out] = roundTo(source->element, acc);
      } else {
        int64_t acc = kind == tile::ReduceKind::sum ? 0
                      : kind == tile::ReduceKind::max ? INT64_MIN
                                                      : INT64_MAX;
        for (int64_t k = 0; k < extent; ++k) {
          int64_t x = source->i[(a * extent + k) * inner + b];
          acc = kind == tile::ReduceKind::sum
                    ? wrapTo(source->element,
                             static_cast<int64_t>(uint64_t(acc) + uint64_t(x)))
                : kind == tile::ReduceKind::max ? std::max(acc, x)
                                                : std::min(acc, x);
        }
        result->i[out] = acc;
      }
    }
  setTile(op, result);
  return true;
}

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

bool Cta::execFor(scf::ForOp op) {
  int64_t lb = get(op.getLowerBound()).i;
  int64_t ub = get(op.getUpperBound()).i;
  int64_t step = get(op.getStep()).i;
  if (step <= 0)
    return fail(op, "the loop step must be positive, got " + llvm::Twine(step));
  llvm::SmallVector<RtValue> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  mlir::Block &body = *op.getBody();
  ElementType ivType = elementOf(op.getInductionVar().getType());
  loops.push_back(op);
  llvm::SmallVector<RtValue> yielded;
  for (int64_t iv = lb; iv < ub; iv += step) {
    // An iteration counts even when the body is empty.
    if (!this->step(op))
      return false;
    set(op.getInductionVar(), RtValue::scalarI(ivType, iv));
    for (auto [arg, value] : llvm::zip(op.getRegionIterArgs(), carried))
      set(arg, value);
    if (!runBlock(body, yielded))
      return false;
    carried.assign(yielded.begin(), yielded.end());
    if (ub - iv <= step)
      break; // iv + step would pass ub (and could overflow)
  }
  loops.pop_back();
  for (auto [result, value] : llvm::zip(op.getResults(), carried))
    set(result, value);
  return true;
}

bool Cta::execWhile(scf::WhileOp op) {
  llvm::SmallVector<RtValue> carried;
  for (Value init : op.getInits())
    carried.push_back(get(init));
  loops.push_back(op);
  llvm::SmallVector<RtValue> yielded;
  while (true) {
    if (!step(op))
      return false;
    for (auto [arg, value] : llvm::zip(op.getBeforeArguments(), carried))
      set(arg, value);
    if (!runBlock(op.getBefore().front(), yielded))
      return false;
    // scf.condition: the flag, then the values passed on.
    bool proceed = yielded.front().i != 0;
    llvm::SmallVector<RtValue> passed(yielded.begin() + 1, yielded.end());
    if (!proceed) {
      carried = std::move(passed);
      break;
    }
    for (auto [arg, value] : llvm::zip(op.getAfterArguments(), passed))
      set(arg, value);
    if (!runBlock(op.getAfter().front(), yielded))
      return false;
    carried.assign(yielded.begin(), yielded.end());
  }
  loops.pop_back();
  for (auto [result, value] : llvm::zip(op.getResults(), carried))
    set(result, value);
  return true;
}

bool Cta::execIf(scf::IfOp op) {
  bool cond = get(op.getCondition()).i != 0;
  mlir::Region &region = cond ? op.getThenRegion() : op.getElseRegion();
  llvm::SmallVector<RtValue> yielded;
  if (!region.empty() && !runBlock(region.front(), yielded))
    return false;
  for (auto [result, value] : llvm::zip(op.getResults(), yielded))
    set(result, value);
  return true;
}

//===----------------------------------------------------------------------===//
// Scalar arith and math
//===----------------------------------------------------------------------===//

bool Cta::execArith(Operation *op) {
  auto resultElement = [&] { return elementOf(op->getResult(0).getType()); };
  auto setF = [&](double value) {
    set(op->getResult(0), RtValue::scalarF(resultElement(), value));
    return true;
  };
  auto setI = [&](int64_t value) {
    set(op->getResult(0), RtValue::scalarI(resultElement(), value));
    return true;
  };
  auto f = [&](unsigned k) { return get(op->getOperand(k)).asF(); };
  auto i = [&](unsigned k) { return get(op->getOperand(k)).i; };
  auto u = [&](unsigned k) { return uint64_t(get(op->getOperand(k)).i); };

  if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op)) {
    mlir::Attribute value = constant.getValue();
    if (auto floatAttr = llvm::dyn_cast<mlir::FloatAttr>(value))
      return setF(floatAttr.getValueAsDouble());
    if (auto intAttr = llvm::dyn_cast<mlir::IntegerAttr>(value))
      return setI(intAttr.getType().isInteger(1) ? intAttr.getValue().getZExtValue()
                                                 : intAttr.getValue().getSExtValue());
    return fail(op, "the interpreter cannot hold this constant");
  }
  if (llvm::isa<arith::AddFOp>(op)) return setF(f(0) + f(1));
  if (llvm::isa<arith::SubFOp>(op)) return setF(f(0) - f(1));
  if (llvm::isa<arith::MulFOp>(op)) return setF(f(0) * f(1));
  if (llvm::isa<arith::DivFOp>(op)) return setF(f(0) / f(1));
  if (llvm::isa<arith::RemFOp>(op)) return setF(std::fmod(f(0), f(1)));
  if (llvm::isa<arith::NegFOp>(op)) return setF(-f(0));
  if (llvm::isa<arith::MaximumFOp>(op)) return setF(fmaxProp(f(0), f(1)));
  if (llvm::isa<arith::MinimumFOp>(op)) return setF(fminProp(f(0), f(1)));
  if (llvm::isa<arith::MaxNumFOp>(op)) return setF(std::fmax(f(0), f(1)));
  if (llvm::isa<arith::MinNumFOp>(op)) return setF(std::fmin(f(0), f(1)));
  if (llvm::isa<arith::AddIOp>(op)) return setI(int64_t(u(0) + u(1)));
  if (llvm::isa<arith::SubIOp>(op)) return setI(int64_t(u(0) - u(1)));
  if (llvm::isa<arith::MulIOp>(op)) return setI(int64_t(u(0) * u(1)));
  if (llvm::isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                arith::FloorDivSIOp>(op)) {
    if (i(1) == 0)
      return fail(op, "integer division by zero");
    ElementType element = resultElement();
    int64_t minimum = element == ElementType::I32 ? INT32_MIN : INT64_MIN;
    if (i(0) == minimum && i(1) == -1)
      return fail(op, "integer division overflows (minimum / -1)");
    int64_t q = i(0) / i(1), r = i(0) % i(1);
    if (llvm::isa<arith::DivSIOp>(op)) return setI(q);
    if (llvm::isa<arith::RemSIOp>(op)) return setI(r);
    bool inexact = r != 0;
    bool negative = (i(0) < 0) != (i(1) < 0);
    if (llvm::isa<arith::CeilDivSIOp>(op))
      return setI(q + (inexact && !negative));
    return setI(q - (inexact && negative));
  }
  if (llvm::isa<arith::MaxSIOp>(op)) return setI(std::max(i(0), i(1)));
  if (llvm::isa<arith::MinSIOp>(op)) return setI(std::min(i(0), i(1)));
  if (llvm::isa<arith::AndIOp>(op)) return setI(i(0) & i(1));
  if (llvm::isa<arith::OrIOp>(op)) return setI(i(0) | i(1));
  if (llvm::isa<arith::XOrIOp>(op)) return setI(i(0) ^ i(1));
  if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    int64_t a = i(0), b = i(1);
    uint64_t ua = u(0), ub = u(1);
    switch (cmp.getPredicate()) {
    case P::eq: return setI(a == b);
    case P::ne: return setI(a != b);
    case P::slt: return setI(a < b);
    case P::sle: return setI(a <= b);
    case P::sgt: return setI(a > b);
    case P::sge: return setI(a >= b);
    case P::ult: return setI(ua < ub);
    case P::ule: return setI(ua <= ub);
    case P::ugt: return setI(ua > ub);
    case P::uge: return setI(ua >= ub);
    }
  }
  if (auto cmp = llvm::dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    double a = f(0), b = f(1);
    bool unordered = std::isnan(a) || std::isnan(b);
    switch (cmp.getPredicate()) {
    case P::AlwaysFalse: return setI(0);
    case P::AlwaysTrue: return setI(1);
    case P::OEQ: return setI(!unordered && a == b);
    case P::OGT: return setI(!unordered && a > b);
    case P::OGE: return setI(!unordered && a >= b);
    case P::OLT: return setI(!unordered && a < b);
    case P::OLE: return setI(!unordered && a <= b);
    case P::ONE: return setI(!unordered && a != b);
    case P::ORD: return setI(!unordered);
    case P::UEQ: return setI(unordered || a == b);
    case P::UGT: return setI(unordered || a > b);
    case P::UGE: return setI(unordered || a >= b);
    case P::ULT: return setI(unordered || a < b);
    case P::ULE: return setI(unordered || a <= b);
    case P::UNE: return setI(unordered || a != b);
    case P::UNO: return setI(unordered);
    }
  }
  if (auto select = llvm::dyn_cast<arith::SelectOp>(op)) {
    set(op->getResult(0), get(op->getOperand(i(0) != 0 ? 1 : 2)));
    return true;
  }
  if (llvm::isa<arith::ExtFOp, arith::TruncFOp>(op)) return setF(f(0));
  if (llvm::isa<arith::SIToFPOp>(op)) {
    // One rounding from the exact integer.
    if (resultElement() == ElementType::F32)
      return setF(static_cast<float>(i(0)));
    return setF(double(i(0)));
  }
  if (llvm::isa<arith::UIToFPOp>(op)) {
    unsigned width = op->getOperand(0).getType().getIntOrFloatBitWidth();
    uint64_t value = width >= 64 ? u(0) : u(0) & ((uint64_t(1) << width) - 1);
    return setF(double(value));
  }
  if (llvm::isa<arith::FPToSIOp>(op)) return setI(floatToInt(resultElement(), f(0)));
  if (llvm::isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return setI(i(0));
  if (llvm::isa<arith::ExtUIOp>(op)) {
    unsigned width = op->getOperand(0).getType().getIntOrFloatBitWidth();
    return setI(width >= 64 ? i(0) : int64_t(u(0) & ((uint64_t(1) << width) - 1)));
  }
  if (llvm::isa<math::ExpOp>(op)) return setF(flushedExp(resultElement(), f(0)));
  if (llvm::isa<math::Exp2Op>(op)) return setF(std::exp2(f(0)));
  if (llvm::isa<math::LogOp>(op)) return setF(std::log(f(0)));
  if (llvm::isa<math::SqrtOp>(op)) return setF(std::sqrt(f(0)));
  if (llvm::isa<math::RsqrtOp>(op)) return setF(1.0 / std::sqrt(f(0)));
  if (llvm::isa<math::AbsFOp>(op)) return setF(std::fabs(f(0)));
  if (llvm::isa<math::AbsIOp>(op))
    return setI(i(0) < 0 ? int64_t(0 - u(0)) : i(0));
  if (llvm::isa<math::FmaOp>(op)) return setF(std::fma(f(0), f(1), f(2)));
  return fail(op, "the interpreter does not support '" +
                      op->getName().getStringRef() + "'");
}

//===----------------------------------------------------------------------===//
// The grid
//===----------------------------------------------------------------------===//

std::optional<RunError> phobos::interp::runKernel(tile::KernelOp kernel,
                                                  llvm::ArrayRef<Argument> args,
                                                  const Options &options) {
  int64_t gx = options.grid[0], gy = options.grid[1], gz = options.grid[2];
  int64_t total = 0;
  if (gx < 1 || gy < 1 || gz < 1 || llvm::MulOverflow(gx, gy, total) ||
      llvm::MulOverflow(total, gz, total))
    return RunError{kernel.getLoc(),
                    "the grid (" + std::to_string(gx) + ", " +
                        std::to_string(gy) + ", " + std::to_string(gz) +
                        ") is not a valid grid"};
  // Every CTA runs at least one op: a larger grid cannot fit the budget,
  // and would otherwise run for hours before saying so.
  if (static_cast<uint64_t>(total) > options.launchStepLimit)
    return RunError{kernel.getLoc(),
                    "the grid has " + std::to_string(total) +
                        " CTAs, more than the " +
                        std::to_string(options.launchStepLimit) +
                        " steps a launch may run; use a smaller grid "
                        "(or --launch-step-limit N to raise the budget)"};
  unsigned threads = options.threads ? options.threads
                                     : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<int64_t>(threads, std::max<int64_t>(total, 1)));

  // The race check's shadow of the written tensors.
  std::unique_ptr<RaceChecker> raceChecker;
  if (options.races) {
    raceChecker = std::make_unique<RaceChecker>(kernel, args, options.grid);
    if (options.writes)
      raceChecker->keepRacedElements();
    constexpr uint64_t kMaxShadowBytes = uint64_t(16) << 30;
    if (raceChecker->shadowBytes() > kMaxShadowBytes ||
        !raceChecker->allocate())
      return RunError{kernel.getLoc(),
                      "the race check needs " +
                          std::to_string(raceChecker->shadowBytes() >> 20) +
                          " MiB of shadow memory (40 bytes an element of "
                          "the tensors the kernel writes), more than it can "
                          "have; check a smaller problem"};
  }
  // A trace of one CTA alone runs that CTA.
  int64_t start = 0;
  if (options.trace && options.trace->onlyThisCta) {
    std::array<int64_t, 3> cta = options.trace->cta;
    if (cta[0] < 0 || cta[0] >= gx || cta[1] < 0 || cta[1] >= gy ||
        cta[2] < 0 || cta[2] >= gz)
      return RunError{kernel.getLoc(),
                      "the CTA to trace (" + std::to_string(cta[0]) + ", " +
                          std::to_string(cta[1]) + ", " +
                          std::to_string(cta[2]) + ") is not in the grid (" +
                          std::to_string(gx) + ", " + std::to_string(gy) +
                          ", " + std::to_string(gz) + ")"};
    start = (cta[2] * gy + cta[1]) * gx + cta[0];
    total = start + 1;
    threads = 1;
  }
  std::atomic<int64_t> next{start};
  std::atomic<uint64_t> launchSteps{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::optional<RunError> first;
  int64_t firstIndex = INT64_MAX;
  auto worker = [&] {
    while (!stop.load()) {
      int64_t index = next.fetch_add(1);
      if (index >= total)
        return;
      std::array<int64_t, 3> blockId = {index % gx, (index / gx) % gy,
                                        index / (gx * gy)};
      std::optional<RunError> error =
          Cta(kernel, args, options, blockId, launchSteps, raceChecker.get(),
              index)
              .run();
      if (error) {
        std::lock_guard<std::mutex> lock(mutex);
        if (index < firstIndex) {
          firstIndex = index;
          first = std::move(error);
        }
        stop = true;
      }
    }
  };
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(worker);
    for (std::thread &thread : pool)
      thread.join();
  }
  if (raceChecker && !first) {
    *options.races = raceChecker->races();
    if (options.writes)
      *options.writes = raceChecker->writeMap();
  }
  if (options.trace)
    for (TracedAccess &access : options.trace->accesses) {
      llvm::sort(access.elements);
      access.elements.erase(
          std::unique(access.elements.begin(), access.elements.end()),
          access.elements.end());
    }
  return first;
}
