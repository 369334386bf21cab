//===- LaunchContract.h - What a launch of a kernel must agree to -*- C++ -*-===//
//
// A compiled kernel variant's launch contract: its parameter slots in order
// (tensors with their element type and dim names, scalars), the index
// width, the CTA size, the shared memory, the @aligned promises and the
// grid as a function of the dims. Derived from the tile-dialect kernel by
// the compiler (Phobos/Target/BuildLaunchContract.h); written beside the
// PTX as JSON; read by every launcher. Plain C++ and LLVM Support: a
// program that only launches cached kernels needs no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_LAUNCHCONTRACT_H
#define PHOBOS_RUNTIME_LAUNCHCONTRACT_H

#include "Phobos/Support/Numerics.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace phobos {

/// One parameter of the kernel, in order.
struct ParamSlot {
  enum class Kind { Tensor, Scalar };
  Kind kind = Kind::Tensor;
  std::string name;
  ElementType element = ElementType::F32;
  /// Tensor: the source name of each extent ("M", or "64" for a literal).
  std::vector<std::string> dims;
  /// Tensor: each extent's compile-time value, or -1 when bound at launch.
  std::vector<int64_t> staticShape;
  /// Tensor: whether the kernel reads / writes it.
  bool read = false, written = false;
};

/// A tensor map the kernel takes after its other parameters (sm_90a TMA
/// copies): the 2-D tensor parameter it describes, the box one copy moves
/// (`boxRows` x `boxCols` elements) and the swizzle (32, 64 or 128 bytes,
/// the shared-memory atom's width). The launcher encodes it
/// (cuTensorMapEncodeTiled) for the tensor's address and extents.
struct TensorMapSlot {
  std::string param;
  int64_t boxRows = 0, boxCols = 0, swizzleBytes = 0;
};

/// `ceil(dim / divisor)`: the CTAs a grid axis needs to cover `dim` when a
/// slice offset is `ctx.block.<axis> * divisor`.
struct GridTerm {
  std::string dim;
  int64_t divisor = 1;
};

struct GridAxis {
  /// The extent is the largest term (1 when there is none).
  std::vector<GridTerm> terms;
  /// The body reads this axis's block index but no term says how far it
  /// goes: the launcher must be told the grid.
  bool needsExplicitGrid = false;
};

struct LaunchContract {
  std::string kernel;
  /// The variant: @autotune name -> value, in source order.
  std::vector<std::pair<std::string, int64_t>> variant;
  std::vector<ParamSlot> params;
  /// Tensor maps, passed in this order after `params` (128 bytes each).
  std::vector<TensorMapSlot> tensorMaps;
  /// Per-axis offsets and dims are i32.
  unsigned indexBits = 32;
  int64_t ctaThreads = 256;
  int64_t sharedMemoryBytes = 0;
  /// @aligned: dim name -> the multiple the launch must respect.
  std::vector<std::pair<std::string, int64_t>> aligned;
  /// Where the source promised them: dim name -> "file:line:col" (the
  /// user's `.ph` or Python line), for the refusal of a launch that breaks
  /// one; promises a specialisation added have none.
  std::vector<std::pair<std::string, std::string>> alignedAt;
  std::array<GridAxis, 3> grid;
  /// @persistent (tile-persistent): the kernel loops over the tiles of
  /// `grid` (its virtual grid) from its CTA's x index, by the launched
  /// grid's x extent, so any launch of (P, 1, 1) CTAs with P >= 1 computes
  /// the whole grid; the launcher chooses P (BoundLaunch::getGrid).
  bool persistent = false;

  /// The extent each dim name has in a launch; every name must be given.
  using DimValues = llvm::StringMap<int64_t>;
  /// The grid for `dims`, or an error naming what is missing.
  llvm::Expected<std::array<int64_t, 3>> gridFor(const DimValues &dims) const;
  /// Every dim name the parameters use that is bound at launch.
  std::vector<std::string> dynamicDims() const;
  const ParamSlot *findParam(llvm::StringRef name) const;

  llvm::json::Value toJSON() const;
  static llvm::Expected<LaunchContract> fromJSON(const llvm::json::Value &json);
};


} // namespace phobos

#endif // PHOBOS_RUNTIME_LAUNCHCONTRACT_H
