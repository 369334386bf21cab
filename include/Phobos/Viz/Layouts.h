//===- Layouts.h - Who holds which element, and where it sits ---*- C++ -*-===//
//
// The data of the visualizer's layout panel: for a laid-out tile type, the
// thread (warp, lane) and register that holds each element, as the layout
// interface (DistributedLayout.h) answers; for a shared-memory buffer, its
// layout's padding, swizzle or atom, its bytes and the bank each element of
// a slot falls in. Plain JSON, so that the page draws it and tests check it
// without a browser.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_VIZ_LAYOUTS_H
#define PHOBOS_VIZ_LAYOUTS_H

#include "Phobos/Dialect/Tile/IR/TileOps.h"

#include "llvm/Support/JSON.h"

#include <cstdint>

namespace phobos::viz {

/// Elements of a tile or buffer past which the per-element arrays are left
/// out (a 128 x 256 accumulator has 32768).
inline constexpr int64_t kDefaultMaxGridElements = 65536;

/// `type`'s layout over a CTA of `numWarps` warps:
///
///   {"type": "!phobos.tile<...>", "shape": [R, C], "element": "f32",
///    "kind": "blocked", "encoding": "#phobos.blocked<...>", "warps": W,
///    "registers": registers per thread,
///    "thread": [warp * 32 + lane of each element's first canonical owner,
///               row-major],
///    "register": [that owner's register],
///    "holders": [registers holding each element, copies included]
///               (only when some element has more than one)}
///
/// Past `maxElements` elements the three arrays are left out and
/// "omitted" says why. A type without a distributed layout gives "kind":
/// "none" and no arrays.
llvm::json::Object
describeTileLayout(tile::TileType type, unsigned numWarps,
                   int64_t maxElements = kDefaultMaxGridElements);

/// A shared buffer of `type` (a staged buffer's leading axis is its slots)
/// at byte `offset` (negative: not allocated yet):
///
///   {"type": ..., "shape": [...], "element": "f16", "element_bytes": 2,
///    "slots": S, "slot_shape": [R, C], "order": [...], "padding": P,
///    "swizzle": [vec, perPhase, maxPhase] (when swizzled), "atom": A (when
///    set), "layout": "swizzle [8, 2, 4]", "bytes": all slots,
///    "slot_bytes": one slot's, "offset": bytes,
///    "banks": [the bank (0-31) of each element of slot 0, row-major]}
///
/// "banks" is left out past `maxElements` elements or for a slot that is
/// not two-dimensional.
llvm::json::Object
describeSharedBuffer(tile::SharedMemoryType type, int64_t offset,
                     int64_t maxElements = kDefaultMaxGridElements);

/// "plain", "padding 8", "swizzle [8, 2, 4]", "atom 64, swizzle [8, 1, 8]".
std::string describeSharedLayout(tile::SharedLayoutAttr layout);

/// The bank-conflict model's count (BankConflicts.h) for the accesses the
/// IR makes to `alloc`'s buffer, under its layout and the others
/// tile-swizzle-shared weighs (plain, the XOR swizzle, the chosen one):
///
///   {"accesses": {"store": 4, "ldmatrix": 8},
///    "layouts": [{"layout": "swizzle [8, 2, 4]", "chosen": true,
///                 "excess_wavefronts": 0, "wavefronts": 48, "bytes": 8192},
///                ...]}
///
/// Empty "layouts" when the model knows no access of the buffer; "note"
/// where the model's accesses are not the hardware's (a wgmma operand).
llvm::json::Object describeBankConflicts(tile::LocalAllocOp alloc);

} // namespace phobos::viz

#endif // PHOBOS_VIZ_LAYOUTS_H
