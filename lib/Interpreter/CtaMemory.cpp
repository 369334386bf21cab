//===- CtaMemory.cpp - The interpreter's memory ops -----------------------===//
//
// Global memory (tile and scalar loads and stores, atomic adds, each
// recorded for the race check and the trace), shared memory read at its
// reader, asynchronous copies retired by their waits, TMA copies landing on
// mbarrier phases, and the producer and consumer roles of a
// warp-specialized kernel.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

using namespace phobos;
using namespace phobos::interp;
using namespace phobos::interp::detail;

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

void Cta::noteMasked(const AccessSite &site, llvm::ArrayRef<int64_t> offsets,
                     llvm::ArrayRef<int64_t> pointAxes,
                     llvm::ArrayRef<int64_t> tileShape, int64_t k) {
  if (site.traced == SIZE_MAX)
    return;
  llvm::SmallVector<int64_t, 4> tileIndex(tileShape.size(), 0);
  for (size_t axis = tileShape.size(); axis-- > 0;) {
    tileIndex[axis] = k % tileShape[axis];
    k /= tileShape[axis];
  }
  llvm::SmallVector<int64_t, 4> index;
  for (size_t axis = 0, t = 0; axis < offsets.size(); ++axis)
    index.push_back(offsets[axis] +
                    (llvm::is_contained(pointAxes, static_cast<int64_t>(axis))
                         ? 0
                         : tileIndex[t++]));
  traceMasked(trace->accesses[site.traced], index);
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
    if (flat[k] < 0) {
      noteMasked(race, offsets, op.getPointAxes(), result->shape, k);
      continue; // masked: reads zero
    }
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
        if (rank == 3)
          noteMasked(race, {plane, row, col});
        else
          noteMasked(race, {row, col});
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
    if (enabled && !inside)
      noteMasked(race, offsets, op.getPointAxes(), slice.getShape(), k);
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
    if (flat[k] < 0) {
      noteMasked(race, offsets, op.getPointAxes(), value->shape, k);
      continue; // masked: not stored
    }
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
  llvm::SmallVector<int64_t, 4> offsets;
  if (value.kind == RtValue::Kind::Tile) {
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
    if (flat[k] < 0) {
      // A scalar access out of range stops the run; only a slice masks.
      noteMasked(race, offsets, op.getPointAxes(), value.tile->shape, k);
      continue; // masked: not added
    }
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
