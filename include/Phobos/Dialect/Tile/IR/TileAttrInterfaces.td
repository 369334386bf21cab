//===- TileAttrInterfaces.td - What a layout means ---------*- tablegen -*-===//
//
// The interface every register layout of the phobos dialect implements:
// given a tile shape, which warp, lane and register hold each element.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_TILE_IR_TILEATTRINTERFACES_TD
#define PHOBOS_DIALECT_TILE_IR_TILEATTRINTERFACES_TD

include "mlir/IR/Interfaces.td"

def Tile_DistributedLayoutInterface
    : AttrInterface<"DistributedLayoutInterface"> {
  let cppNamespace = "::phobos::tile";
  let description = [{
    A register layout: how a tile's elements are spread over the warps,
    lanes and registers of a CTA. Each layout states, per axis of a tile
    shape, the lane, warp and register terms of the coordinate a register
    holds (`AxisDistribution`, see DistributedLayout.h); every question
    about the layout (which threads own an element, which element a
    register holds, which are copies, how many registers a thread needs,
    how wide a vector access can be) is answered from that one form by
    `DistributedLayout`. Passes and the GPU lowering ask this interface;
    they do not re-derive the formulas.
  }];
  let methods = [
    InterfaceMethod<[{
        The distribution of each axis of a tile of `shape` (whose rank is
        the layout's rank).
      }], "::llvm::SmallVector<::phobos::tile::AxisDistribution, 4>",
      "getAxisDistributions", (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The rank of the tiles the layout applies to.",
      "unsigned", "getRank">,
  ];
  let extraSharedClassDeclaration = [{
    /// The layout applied to a tile of `shape`.
    ::phobos::tile::DistributedLayout distribute(
        ::llvm::ArrayRef<int64_t> shape) const {
      return ::phobos::tile::DistributedLayout(
          shape, $_attr.getAxisDistributions(shape));
    }
    /// Registers a thread holds of a tile of `shape`.
    int64_t getNumRegisters(::llvm::ArrayRef<int64_t> shape) const {
      return distribute(shape).numRegisters();
    }
  }];
}

#endif // PHOBOS_DIALECT_TILE_IR_TILEATTRINTERFACES_TD
