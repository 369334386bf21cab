//===- RaceCheck.cpp - Unordered accesses between CTAs --------------------===//
//
// See RaceCheck.h. Each shadowed element has five words: its first writer,
// two readers and two atomic adders of different CTAs (two, so that a
// later access by a CTA equal to one of them still meets the other). An
// access checks the words of the kinds it conflicts with, then records
// itself; whichever of two conflicting accesses runs second reports.
//
//===----------------------------------------------------------------------===//

#include "RaceCheck.h"

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include <new>

using namespace phobos::interp;

namespace {
const char *accessName(RaceChecker::Access access) {
  switch (access) {
  case RaceChecker::Access::Read:
    return "read";
  case RaceChecker::Access::Write:
    return "write";
  case RaceChecker::Access::Atomic:
    return "atomic add";
  }
  return "access";
}
} // namespace

RaceChecker::RaceChecker(tile::KernelOp kernel, llvm::ArrayRef<Argument> args,
                         std::array<int64_t, 3> grid)
    : grid(grid) {
  // The parameters the kernel writes, and an id per accessing op.
  llvm::SmallVector<bool> written(args.size(), false);
  kernel.walk([&](mlir::Operation *op) {
    mlir::Value tensor;
    bool writes = false;
    if (auto store = llvm::dyn_cast<tile::StoreOp>(op))
      tensor = store.getTensor(), writes = true;
    else if (auto store = llvm::dyn_cast<tile::StoreScalarOp>(op))
      tensor = store.getTensor(), writes = true;
    else if (auto add = llvm::dyn_cast<tile::AtomicAddOp>(op))
      tensor = add.getTensor(), writes = true;
    else if (auto load = llvm::dyn_cast<tile::LoadOp>(op))
      tensor = load.getTensor();
    else if (auto load = llvm::dyn_cast<tile::LoadScalarOp>(op))
      tensor = load.getTensor();
    else if (auto copy = llvm::dyn_cast<tile::AsyncCopyOp>(op))
      tensor = copy.getTensor();
    else if (auto copy = llvm::dyn_cast<tile::TmaCopyOp>(op))
      tensor = copy.getTensor();
    if (!tensor)
      return;
    opIds[op] = static_cast<unsigned>(ops.size());
    ops.push_back(op);
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(tensor);
        writes && arg && arg.getArgNumber() < written.size())
      written[arg.getArgNumber()] = true;
  });
  // One shadow per written buffer; an argument that shares a written
  // buffer's memory shares its shadow.
  for (auto [index, arg] : llvm::enumerate(args)) {
    const auto *tensor = std::get_if<TensorArg>(&arg);
    if (!tensor || !written[index] || shadows.count(tensor->data))
      continue;
    Shadow &shadow = shadows[tensor->data];
    shadow.param = static_cast<unsigned>(index);
    shadow.elements = 1;
    for (int64_t extent : tensor->shape)
      shadow.elements *= extent;
    bytes += uint64_t(shadow.elements) * 5 * sizeof(uint64_t);
  }
  shapes.resize(args.size());
  for (auto [index, arg] : llvm::enumerate(args))
    if (const auto *tensor = std::get_if<TensorArg>(&arg))
      shapes[index].assign(tensor->shape.begin(), tensor->shape.end());
}

bool RaceChecker::allocate() {
  for (auto &entry : shadows) {
    Shadow &shadow = entry.second;
    auto make = [&] {
      return std::unique_ptr<std::atomic<uint64_t>[]>(
          new (std::nothrow) std::atomic<uint64_t>[size_t(shadow.elements)]());
    };
    shadow.writer = make();
    for (int k = 0; k < 2; ++k) {
      shadow.reader[k] = make();
      shadow.adder[k] = make();
    }
    if (!shadow.writer || !shadow.reader[0] || !shadow.reader[1] ||
        !shadow.adder[0] || !shadow.adder[1])
      return false;
  }
  return true;
}

std::array<int64_t, 3> RaceChecker::ctaIndex(int64_t linear) const {
  return {linear % grid[0], (linear / grid[0]) % grid[1],
          linear / (grid[0] * grid[1])};
}

void RaceChecker::remember(std::atomic<uint64_t> *slots[2], uint64_t word) {
  for (int k = 0; k < 2; ++k) {
    uint64_t seen = slots[k]->load(std::memory_order_relaxed);
    while (seen == 0) {
      if (slots[k]->compare_exchange_weak(seen, word,
                                          std::memory_order_relaxed))
        return;
    }
    if (ctaOf(seen) == ctaOf(word))
      return;
  }
}

RaceChecker::Site RaceChecker::site(const TensorArg &tensor, int64_t cta,
                                    mlir::Operation *op, Access access) {
  auto it = shadows.find(tensor.data);
  if (it == shadows.end())
    return {};
  return {&it->second, pack(cta, opIds.lookup(op)), access};
}

void RaceChecker::record(const Site &site, int64_t flat) {
  Shadow &shadow = *site.shadow;
  if (flat < 0 || flat >= shadow.elements)
    return;
  uint64_t word = site.word;
  int64_t cta = ctaOf(word);
  Access access = site.access;
  auto conflicts = [&](std::atomic<uint64_t> &slot, Access earlier) {
    uint64_t seen = slot.load(std::memory_order_relaxed);
    if (seen != 0 && ctaOf(seen) != cta)
      report(shadow, flat, seen, earlier, word, access);
  };
  // Writes conflict with everything; reads and atomic additions with
  // writes and with each other (an addition among additions is ordered).
  conflicts(shadow.writer[flat], Access::Write);
  if (access != Access::Read)
    for (int k = 0; k < 2; ++k)
      conflicts(shadow.reader[k][flat], Access::Read);
  if (access != Access::Atomic)
    for (int k = 0; k < 2; ++k)
      conflicts(shadow.adder[k][flat], Access::Atomic);
  switch (access) {
  case Access::Write: {
    uint64_t none = 0;
    shadow.writer[flat].compare_exchange_strong(none, word,
                                                std::memory_order_relaxed);
    break;
  }
  case Access::Read: {
    std::atomic<uint64_t> *slots[2] = {&shadow.reader[0][flat],
                                       &shadow.reader[1][flat]};
    remember(slots, word);
    break;
  }
  case Access::Atomic: {
    std::atomic<uint64_t> *slots[2] = {&shadow.adder[0][flat],
                                       &shadow.adder[1][flat]};
    remember(slots, word);
    break;
  }
  }
}

void RaceChecker::report(Shadow &shadow, int64_t flat, uint64_t earlier,
                         Access earlierAccess, uint64_t later,
                         Access laterAccess) {
  // The report does not depend on which thread ran first: the error points
  // at the access that writes (or adds), or at the later CTA's where both
  // do or neither does, and of the pairs of one race the first element
  // (then the first CTAs) is named.
  auto writes = [](Access access) { return access != Access::Read; };
  if (writes(earlierAccess) > writes(laterAccess) ||
      (writes(earlierAccess) == writes(laterAccess) &&
       ctaOf(earlier) > ctaOf(later))) {
    std::swap(earlier, later);
    std::swap(earlierAccess, laterAccess);
  }
  // One report per unordered pair of ops and accesses: which of the two
  // the threads happened to run first does not make another race.
  std::pair<unsigned, int> a{opOf(earlier), int(earlierAccess)},
      b{opOf(later), int(laterAccess)};
  if (b < a)
    std::swap(a, b);
  auto key = std::make_tuple(a.first, b.first, a.second, b.second,
                             shadow.param);
  std::lock_guard<std::mutex> guard(mutex);
  if (keepRaced) {
    if (shadow.raced.empty())
      shadow.raced.assign(size_t(shadow.elements), 0);
    // 1: raced; 2: with a second writer.
    shadow.raced[flat] |= 1 | (earlierAccess != Access::Read &&
                                       laterAccess != Access::Read
                                   ? 2
                                   : 0);
  }
  auto it = found.find(key);
  if (it != found.end() &&
      std::make_tuple(it->second.flat, ctaOf(it->second.first),
                      ctaOf(it->second.second)) <=
          std::make_tuple(flat, ctaOf(earlier), ctaOf(later))) {
    ++it->second.race.count;
    return;
  }
  uint64_t count = it != found.end() ? it->second.race.count + 1 : 1;
  Race race{accessName(earlierAccess), accessName(laterAccess),
            ops[opOf(earlier)]->getLoc(), ops[opOf(later)]->getLoc()};
  race.param = shadow.param;
  // The element's index on each axis, from the row-major offset.
  const llvm::SmallVector<int64_t, 4> &shape = shapes[shadow.param];
  race.element.resize(shape.size());
  int64_t rest = flat;
  for (size_t axis = shape.size(); axis-- > 0;) {
    race.element[axis] = shape[axis] ? rest % shape[axis] : 0;
    rest = shape[axis] ? rest / shape[axis] : 0;
  }
  race.firstCta = ctaIndex(ctaOf(earlier));
  race.secondCta = ctaIndex(ctaOf(later));
  race.count = count;
  found.insert_or_assign(key, Found{std::move(race), flat, earlier, later});
}

std::vector<Race> RaceChecker::races() const {
  std::lock_guard<std::mutex> guard(mutex);
  std::vector<Race> all;
  for (const auto &entry : found)
    all.push_back(entry.second.race);
  return all;
}

WriteMap RaceChecker::writeMap() const {
  std::lock_guard<std::mutex> guard(mutex);
  WriteMap map;
  for (const auto &entry : shadows) {
    const Shadow &shadow = entry.second;
    WriteMap::Tensor &tensor = map.tensors.emplace_back();
    tensor.param = shadow.param;
    tensor.writer.assign(size_t(shadow.elements), -1);
    tensor.flags.assign(size_t(shadow.elements), 0);
    for (int64_t flat = 0; flat < shadow.elements; ++flat) {
      uint64_t writer = shadow.writer[flat].load(std::memory_order_relaxed);
      uint64_t adders[2] = {
          shadow.adder[0][flat].load(std::memory_order_relaxed),
          shadow.adder[1][flat].load(std::memory_order_relaxed)};
      uint64_t first = writer ? writer : adders[0];
      if (first)
        tensor.writer[flat] = static_cast<int32_t>(ctaOf(first));
      // The adder slots hold different CTAs; a second writer is a race.
      bool several = adders[1] != 0 ||
                     (writer && adders[0] && ctaOf(writer) != ctaOf(adders[0]));
      uint8_t flags = several ? WriteMap::kSeveral : 0;
      if (!shadow.raced.empty() && shadow.raced[flat]) {
        flags |= WriteMap::kRaced;
        if (shadow.raced[flat] & 2)
          flags |= WriteMap::kSeveral;
      }
      tensor.flags[flat] = flags;
    }
  }
  llvm::sort(map.tensors,
             [](const WriteMap::Tensor &a, const WriteMap::Tensor &b) {
               return a.param < b.param;
             });
  return map;
}
