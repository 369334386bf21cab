/*===-- phobos-c/Runtime.h - C API of the launch checks -----------*- C -*-===*\
|*                                                                            *|
|* Checks a launch's arguments against a kernel variant's launch contract     *|
|* (the contract phobosKernelBuildGetContract returns) and packs them in the  *|
|* kernel's parameter ABI, with the grid: phobos::bindArguments, the checks   *|
|* phobos-run, the tuner and the pods make, for launchers in other languages  *|
|* (the Python package). A rejected argument comes back as a PhobosError      *|
|* whose message is the reason and whose phobosErrorGetParameter names it.    *|
|* The launch itself (cuLaunchKernel) stays the caller's.                     *|
|*                                                                            *|
|* Conventions as in phobos-c/Compiler.h.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef PHOBOS_C_RUNTIME_H
#define PHOBOS_C_RUNTIME_H

#include "phobos-c/Compiler.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PHOBOS_DEFINE_C_API_STRUCT(name)                                       \
  typedef struct name {                                                        \
    void *ptr;                                                                 \
  } name

/// A kernel variant's launch contract, parsed once (phobos::LaunchContract).
PHOBOS_DEFINE_C_API_STRUCT(PhobosLaunchContract);
/// A checked launch: the parameters packed per the kernel ABI, the dims the
/// arguments bind, the tensor maps and the grid (phobos::BoundLaunch).
PHOBOS_DEFINE_C_API_STRUCT(PhobosBoundLaunch);

#undef PHOBOS_DEFINE_C_API_STRUCT

/// Parses a launch contract (its JSON, docs/runtime.md section 3).
PHOBOS_CAPI_EXPORTED PhobosError
phobosLaunchContractCreate(PhobosStringRef json, PhobosLaunchContract *contract);
PHOBOS_CAPI_EXPORTED void
phobosLaunchContractDestroy(PhobosLaunchContract contract);

/// One launch argument, in parameter order.
typedef struct PhobosLaunchArgument {
  bool isTensor;
  /// A tensor: its device address (a host address on the interpreter),
  /// element type ("f32", ...; any other name is a type no kernel takes),
  /// the caller's name for that type in messages (empty: `elementType`),
  /// `rank` extents and element strides (null: dense row-major).
  uint64_t address;
  PhobosStringRef elementType;
  PhobosStringRef elementName;
  intptr_t rank;
  const int64_t *shape;
  const int64_t *strides;
  /// A scalar: `intValue` when `isInteger` (checked exactly), else
  /// `floatValue`.
  bool isInteger;
  int64_t intValue;
  double floatValue;
} PhobosLaunchArgument;

/// The CUDA driver's cuTensorMapEncodeTiled (CUresult and its enums as int).
/// The runtime declares it too (cuda::EncodeTiledFunction in
/// Phobos/Runtime/CudaDriver.h): this header is C and cannot include it, and
/// the runtime does not depend on the C API; a static_assert in
/// lib/CAPI/Runtime.cpp keeps the two the same.
typedef int (*PhobosEncodeTiledFunction)(void *map, int type, uint32_t rank,
                                         void *address, const uint64_t *dims,
                                         const uint64_t *strides,
                                         const uint32_t *box,
                                         const uint32_t *elementStrides,
                                         int interleave, int swizzle, int l2,
                                         int fill);

/// Checks `numArgs` arguments against `contract` and packs them, stopping
/// at the first problem. The contract's TMA tensor maps are encoded with
/// the caller's `encodeTiled` (the launcher's own handle on libcuda); a
/// contract that has them is rejected when it is null. The grid is chosen
/// by phobosBoundLaunchSetGrid.
PHOBOS_CAPI_EXPORTED PhobosError phobosLaunchBind(
    PhobosLaunchContract contract, const PhobosLaunchArgument *args,
    intptr_t numArgs, PhobosEncodeTiledFunction encodeTiled,
    PhobosBoundLaunch *bound);

/// Chooses the grid: `grid` (3 extents, checked against the GPU's limits)
/// or, when null, the one the contract infers from the bound dims. A
/// persistent kernel takes only the inferred one.
PHOBOS_CAPI_EXPORTED PhobosError phobosBoundLaunchSetGrid(
    PhobosLaunchContract contract, PhobosBoundLaunch bound, const int64_t *grid);

/// The grid to launch (a persistent kernel: at most `residentCtas` CTAs,
/// the ones the GPU holds at once; 0: one per tile) and the grid the
/// source describes (a persistent kernel's tiles), 3 extents each.
PHOBOS_CAPI_EXPORTED void phobosBoundLaunchGetGrid(PhobosBoundLaunch bound,
                                                   int64_t residentCtas,
                                                   int64_t *grid);
PHOBOS_CAPI_EXPORTED void phobosBoundLaunchGetTileGrid(PhobosBoundLaunch bound,
                                                       int64_t *grid);

/// The kernel parameters in ABI order, 8 bytes each (a narrower value in
/// the low bytes), then the 128-byte tensor maps.
PHOBOS_CAPI_EXPORTED intptr_t phobosBoundLaunchGetNumParams(PhobosBoundLaunch bound);
PHOBOS_CAPI_EXPORTED const void *phobosBoundLaunchGetParam(PhobosBoundLaunch bound,
                                                           intptr_t index);
PHOBOS_CAPI_EXPORTED intptr_t
phobosBoundLaunchGetNumTensorMaps(PhobosBoundLaunch bound);
PHOBOS_CAPI_EXPORTED const void *
phobosBoundLaunchGetTensorMap(PhobosBoundLaunch bound, intptr_t index);

/// The dims the tensors bind ("M" = 4096), in no particular order.
PHOBOS_CAPI_EXPORTED intptr_t phobosBoundLaunchGetNumDims(PhobosBoundLaunch bound);
PHOBOS_CAPI_EXPORTED PhobosStringRef
phobosBoundLaunchGetDimName(PhobosBoundLaunch bound, intptr_t index);
PHOBOS_CAPI_EXPORTED int64_t phobosBoundLaunchGetDimValue(PhobosBoundLaunch bound,
                                                          intptr_t index);

PHOBOS_CAPI_EXPORTED void phobosBoundLaunchDestroy(PhobosBoundLaunch bound);

#ifdef __cplusplus
}
#endif

#endif // PHOBOS_C_RUNTIME_H
