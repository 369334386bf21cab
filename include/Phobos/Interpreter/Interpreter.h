//===- Interpreter.h - Runs tile-dialect kernels on the CPU -----*- C++ -*-===//
//
// Executes one `phobos.kernel` (one bound variant, with or without layouts,
// which do not change values) over a whole grid on host buffers, with the language's semantics: masked
// slices, broadcasting, element types rounded as the GPU stores them, dots
// accumulating in f32. It is the test oracle of the compiler and the engine
// of `phobos-run --interpret`.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_INTERPRETER_INTERPRETER_H
#define PHOBOS_INTERPRETER_INTERPRETER_H

#include "Phobos/Support/Numerics.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace phobos::tile {
class KernelOp;
} // namespace phobos::tile

namespace phobos::interp {

/// A tensor argument: dense row-major host memory owned by the caller, in
/// the storage format of its element type.
struct TensorArg {
  void *data = nullptr;
  ElementType elementType = ElementType::F32;
  llvm::SmallVector<int64_t, 4> shape;
};

/// A scalar argument; `value` is read as the parameter's type.
struct ScalarArg {
  double floatValue = 0;
  int64_t intValue = 0;
};

using Argument = std::variant<TensorArg, ScalarArg>;

struct Race;
struct Trace;
struct WriteMap;

struct Options {
  /// CTAs on each grid axis.
  std::array<int64_t, 3> grid = {1, 1, 1};
  /// Steps one CTA may execute before the run is reported as not
  /// terminating: every op and every loop iteration counts one, and a tile
  /// op one more per 16 elements of its largest tile (32 multiply-adds of
  /// a dot), so that the default is about 10 s of one core whatever the ops.
  uint64_t stepLimit = uint64_t(1) << 27;
  /// Steps all CTAs of the launch may execute together: the budget of the
  /// whole run. A grid of more CTAs than this fails before it starts.
  uint64_t launchStepLimit = uint64_t(1) << 28;
  /// Worker threads for CTAs; 0 picks the machine's core count.
  unsigned threads = 0;
  /// Where the race check reports (null: no race check). Every pair of
  /// accesses to one element by two CTAs that the memory model leaves
  /// unordered (a write and any other access, an atomic addition and a
  /// plain access) is collected here, one Race per pair of ops and tensor.
  std::vector<Race> *races = nullptr;
  /// Where one CTA's accesses of the tensors are recorded (null: none;
  /// the visualizer's memory traffic).
  Trace *trace = nullptr;
  /// Where the race check leaves which CTA wrote each element of the
  /// tensors the kernel writes, over the whole grid (null: nowhere; needs
  /// `races`; the visualizer's grid view).
  WriteMap *writes = nullptr;
};

/// How an op touches a tensor's element.
enum class AccessKind { Read, Write, AtomicAdd };

/// The elements of one tensor that one op of the traced CTA touched, over
/// every time it ran.
struct TracedAccess {
  mlir::Operation *op = nullptr;
  /// The tensor parameter's position.
  unsigned param = 0;
  AccessKind kind = AccessKind::Read;
  /// The flat (row-major) index of each element touched, sorted, once each.
  std::vector<int64_t> elements;
  /// Elements of its slices outside the tensor, which a mask left alone
  /// (counted once per execution).
  int64_t masked = 0;
  /// Those elements, each as its index on every axis of the tensor (one of
  /// them below 0 or past the extent), sorted, once each; at most
  /// kMaxMaskedElements recorded (else `truncated`).
  std::vector<llvm::SmallVector<int64_t, 4>> maskedElements;
  /// Times the op ran (a load in a loop runs once an iteration).
  int64_t executions = 0;
  /// More elements were touched than a trace keeps (kMaxElements): the
  /// list holds the first ones.
  bool truncated = false;

  static constexpr size_t kMaxElements = size_t(1) << 22;
  static constexpr size_t kMaxMaskedElements = size_t(1) << 20;
};

/// What one CTA of a launch read and wrote (Options::trace).
struct Trace {
  /// The CTA traced: block x, y, z.
  std::array<int64_t, 3> cta = {0, 0, 0};
  /// Run that CTA alone: the other CTAs are neither run nor traced (what
  /// a CTA touches depends on the others only through data it reads).
  bool onlyThisCta = true;
  /// One per op, tensor and kind of access, in the order first seen.
  std::vector<TracedAccess> accesses;
};

/// Two accesses of one tensor element by different CTAs that nothing
/// orders.
struct Race {
  /// The two accesses, "write", "read" or "atomic add", and where each op
  /// is: the second is the one the report points at (the one that writes
  /// or adds, or the later CTA's where both do or neither does), whichever
  /// thread ran first.
  std::string firstAccess, secondAccess;
  mlir::Location first, second;
  /// The tensor parameter's position, and the first element (row-major)
  /// with this race (its index on each axis).
  unsigned param = 0;
  llvm::SmallVector<int64_t, 4> element;
  /// The two CTAs of that element (block x, y, z; the first pair where
  /// several race on it).
  std::array<int64_t, 3> firstCta{}, secondCta{};
  /// Elements with a race between these two ops.
  uint64_t count = 0;
};

/// Which CTA wrote each element of each tensor a kernel writes, over the
/// whole grid, as the race check's shadow saw it (Options::writes).
struct WriteMap {
  /// Flags of an element.
  enum : uint8_t {
    /// More than one CTA wrote or atomically added to it.
    kSeveral = 1,
    /// An access of it by one CTA races with another CTA's (a Race).
    kRaced = 2,
  };
  struct Tensor {
    /// The tensor parameter's position (the first, where several share
    /// one buffer).
    unsigned param = 0;
    /// Per element, row-major: the linear index (x + X * (y + Y * z)) of
    /// the CTA that wrote it first, else of the first that added to it;
    /// -1: none did.
    std::vector<int32_t> writer;
    /// Per element: kSeveral and kRaced.
    std::vector<uint8_t> flags;
  };
  /// In parameter order.
  std::vector<Tensor> tensors;
};

/// A run-time error: where in the source, in which CTA, and what.
struct RunError {
  mlir::Location loc;
  std::string message;
};

/// Runs `kernel` over `options.grid`. Arguments are in the kernel's
/// parameter order and must match its types (the caller checks). Returns
/// the first error any CTA met, if any.
std::optional<RunError> runKernel(tile::KernelOp kernel,
                                  llvm::ArrayRef<Argument> args,
                                  const Options &options);

} // namespace phobos::interp

#endif // PHOBOS_INTERPRETER_INTERPRETER_H
