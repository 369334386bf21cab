//===- Launcher.h - Binding arguments to a launch contract ------*- C++ -*-===//
//
// Checks user arguments against a kernel's launch contract before anything
// reaches the GPU (element types, ranks, static extents, dims shared between
// tensors, @aligned promises, extents that overflow the index width, grid)
// and packs them into the kernel's parameter list.
//
// The kernel ABI (what convert-tile-to-gpu emits): for each parameter in
// order, a tensor is a 64-bit global pointer followed by one i32 per
// dynamic axis (in axis order); a scalar is its value (f16/bf16: 2 bytes,
// f32/i32: 4, f64/i64: 8, bool: 1 byte holding 0 or 1). After them come
// the contract's tensor maps, 128 bytes each (a CUtensorMap, which the
// launcher encodes through a TensorMapEncoder: binding needs no driver).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_LAUNCHER_H
#define PHOBOS_RUNTIME_LAUNCHER_H

#include "Phobos/Runtime/LaunchContract.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace phobos {

/// A tensor argument: where its data lives and how it is laid out.
struct TensorArgument {
  uint64_t address = 0; ///< Device address (or host address in tests).
  /// None: an element type Phobos has no name for (a caller's uint8), which
  /// no kernel takes; `elementName` then says what it was.
  std::optional<ElementType> element = ElementType::F32;
  /// How the caller names the element type in messages ("numpy float16");
  /// empty: Phobos's name.
  std::string elementName;
  std::vector<int64_t> shape;
  /// Element strides; empty means dense row-major. Kernels need dense
  /// row-major tensors.
  std::vector<int64_t> strides;
  /// `address` stands in for memory not allocated yet (a check of the
  /// shapes before allocating): the binding does not compare it with the
  /// other tensors' for overlap.
  bool placeholder = false;
};

struct ScalarArgument {
  ScalarArgument(double value = 0, std::optional<int64_t> integer = {})
      : value(value), integer(integer) {}
  double value;
  /// The exact value, where the caller has an integer (an int64 beyond
  /// 2^53 is not a double); integer parameters then check this one.
  std::optional<int64_t> integer;
};

using LaunchArgument = std::variant<TensorArgument, ScalarArgument>;

/// An argument the contract rejects: which parameter, and why.
class LaunchError : public llvm::ErrorInfo<LaunchError> {
public:
  static char ID;
  LaunchError(std::string param, std::string reason)
      : param(std::move(param)), reason(std::move(reason)) {}
  /// "argument 'A': expected f32 elements, got f16".
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &getParam() const { return param; }
  const std::string &getReason() const { return reason; }

private:
  std::string param;
  std::string reason;
};

/// What one tensor map describes: a dense row-major 2-D tensor (or 3-D:
/// `planes` of them) and the box and swizzle of the copies through it (one
/// plane at a time).
struct TensorMapRequest {
  uint64_t address = 0;
  ElementType element = ElementType::F16;
  int64_t planes = 0, rows = 0, cols = 0;
  int64_t boxRows = 0, boxCols = 0, swizzleBytes = 0;
};

/// Writes the 128-byte tensor map for a request (cuda::encodeTensorMap on
/// the GPU).
using TensorMapEncoder =
    llvm::function_ref<llvm::Error(const TensorMapRequest &, void *map)>;

/// A checked launch: the kernel parameters packed per the ABI, the dims
/// the arguments bind, and the grid.
class BoundLaunch {
public:
  /// Pointers to each kernel parameter's value, for cuLaunchKernel.
  std::vector<void *> params();
  const LaunchContract::DimValues &getDims() const { return dims; }
  /// The grid to launch. A persistent kernel's CTAs loop over the tiles of
  /// its grid (getTileGrid): without `residentCtas` one CTA per tile, as
  /// (tiles, 1, 1); with it (the CTAs the GPU holds at once,
  /// cuda::Function::residentCtas) at most that many.
  std::array<int64_t, 3> getGrid(int64_t residentCtas = 0) const;
  /// The grid the source describes: the launched one, or the tiles a
  /// persistent kernel loops over.
  std::array<int64_t, 3> getTileGrid() const { return grid; }
  /// Each kernel parameter's bytes in ABI order (8-byte slots; a value
  /// narrower than 8 bytes sits in the low bytes), without the tensor maps.
  llvm::ArrayRef<std::array<uint8_t, 8>> getParamBytes() const {
    return storage;
  }
  /// The tensor maps after the parameters, 128 bytes each.
  size_t getNumTensorMaps() const { return tensorMaps.size(); }
  const void *getTensorMap(size_t index) const {
    return tensorMaps[index].bytes;
  }

private:
  friend llvm::Expected<BoundLaunch>
  bindParameters(const LaunchContract &, llvm::ArrayRef<LaunchArgument>,
                 TensorMapEncoder);
  friend llvm::Error setGrid(const LaunchContract &, BoundLaunch &,
                             std::optional<std::array<int64_t, 3>>);
  /// Each parameter's bytes, 8-byte aligned slots.
  std::vector<std::array<uint8_t, 8>> storage;
  /// The tensor maps, 64-byte aligned as CUDA requires.
  struct alignas(64) TensorMap {
    uint8_t bytes[128];
  };
  std::vector<TensorMap> tensorMaps;
  LaunchContract::DimValues dims;
  std::array<int64_t, 3> grid = {1, 1, 1};
  bool persistent = false;
};

/// The first half of bindArguments: checks `args` and packs them, without
/// choosing the grid (a caller whose grid is a function of the dims calls
/// setGrid once it has them).
llvm::Expected<BoundLaunch> bindParameters(const LaunchContract &contract,
                                           llvm::ArrayRef<LaunchArgument> args,
                                           TensorMapEncoder encoder = nullptr);

/// The second half: the grid `grid` (checked against the GPU's limits) or,
/// without one, the grid the contract infers from the bound dims; a
/// persistent kernel takes only the inferred one.
llvm::Error setGrid(const LaunchContract &contract, BoundLaunch &launch,
                    std::optional<std::array<int64_t, 3>> grid);

/// A persistent kernel's CTAs walk the grid of its tiles, which the contract
/// infers from `dims`: an error unless `grid` is that grid (setGrid's, for
/// the launch paths that do not bind, such as the interpreter's).
llvm::Error checkPersistentGrid(const LaunchContract &contract,
                                const LaunchContract::DimValues &dims,
                                std::array<int64_t, 3> grid);

/// Checks `args` (one per contract parameter, in order) and packs them.
/// `grid`, when given, overrides the contract's inference (each extent
/// must be positive and at most 2^31-1 on x, 65535 on y and z). A contract
/// with tensor maps needs `encoder`.
llvm::Expected<BoundLaunch>
bindArguments(const LaunchContract &contract, llvm::ArrayRef<LaunchArgument> args,
              std::optional<std::array<int64_t, 3>> grid = std::nullopt,
              TensorMapEncoder encoder = nullptr);

} // namespace phobos

#endif // PHOBOS_RUNTIME_LAUNCHER_H
