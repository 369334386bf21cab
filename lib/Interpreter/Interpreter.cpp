//===- Interpreter.cpp - Runs tile-dialect kernels on the CPU -------------===//
//
// A tree-walking interpreter over the phobos, arith, math and scf ops of one
// kernel. Each CTA runs with its own environment of values; CTAs run on a
// pool of threads. Floats are held as doubles rounded to their element type
// after every operation, integers as int64 wrapped to their width, so the
// results match what the GPU stores (up to the order of summations).
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

#include "llvm/ADT/TypeSwitch.h"

#include <thread>

using namespace phobos;
using namespace phobos::interp;
using namespace phobos::interp::detail;

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
      .Case<tile::NegOp, tile::NotOp, tile::AbsOp, tile::ExpOp, tile::Exp2Op,
            tile::LogOp, tile::Log2Op, tile::SqrtOp, tile::RsqrtOp, tile::TanhOp>(
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
      std::vector<llvm::SmallVector<int64_t, 4>> &masked =
          access.maskedElements;
      llvm::sort(masked);
      masked.erase(std::unique(masked.begin(), masked.end()), masked.end());
    }
  return first;
}
