//===- ChooseCta.cpp - The CTA size of a kernel without @launch -----------===//
//
// The rule is chooseCtaSize (LayoutUtils.cpp), which the launch contract
// made before the pipeline asks too; this pass records its answer as the
// kernel's max_threads, before any pass reads the CTA size.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/Transforms/LayoutUtils.h"
#include "Phobos/Dialect/Tile/Transforms/Passes.h"

namespace phobos::tile {
#define GEN_PASS_DEF_TILECHOOSECTA
#include "Phobos/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace phobos::tile

using namespace mlir;
using namespace phobos::tile;

namespace {

struct TileChooseCta
    : phobos::tile::impl::TileChooseCtaBase<TileChooseCta> {
  using TileChooseCtaBase::TileChooseCtaBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::optional<int64_t> threads = chooseCtaSize(kernel, chip);
    if (!threads)
      return;
    kernel.setMaxThreads(static_cast<uint32_t>(*threads));
    ++numChosen;
  }
};

} // namespace
