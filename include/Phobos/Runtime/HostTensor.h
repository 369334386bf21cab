//===- HostTensor.h - Dense tensors in host memory --------------*- C++ -*-===//
//
// The tensors phobos-run fills, poisons, passes to a kernel (on the CPU or,
// copied, on the GPU), checks and saves as .npy files.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_RUNTIME_HOSTTENSOR_H
#define PHOBOS_RUNTIME_HOSTTENSOR_H

#include "Phobos/Support/Numerics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <random>
#include <vector>

namespace phobos {

class HostTensor {
public:
  HostTensor() = default;
  HostTensor(ElementType element, llvm::ArrayRef<int64_t> shape);

  ElementType getElementType() const { return element; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t numElements() const;
  size_t byteSize() const { return bytes.size(); }
  void *data() { return bytes.data(); }
  const void *data() const { return bytes.data(); }

  /// Element `index` (row-major) as a double; integers convert exactly up
  /// to 2^53.
  double get(int64_t index) const;
  void set(int64_t index, double value);

  /// Uniform values in [-1, 1) for floats (rounded to the element type),
  /// [-8, 8] for integers, 0/1 for bool.
  void fillRandom(std::mt19937_64 &rng);
  /// Uniform values in [low, high) (rounded; integers truncated).
  void fillRandom(std::mt19937_64 &rng, double low, double high);
  /// 0, 1, 2, ... (rounded to the element type).
  void fillIota();
  void fill(double value);
  /// Every element `value` exactly (as parseElementValue read it).
  void fill(const ElementValue &value);
  /// Fills as --init HOW says: random (uniform in [-1, 1) for floats),
  /// uniform:LO:HI, iota, or a constant of the element type (read by
  /// parseElementValue: exact, rounded once, never wrapped or saturated).
  /// The error says what is wrong with HOW, without naming the option.
  llvm::Error fill(llvm::StringRef how, std::mt19937_64 &rng);
  /// NaN for floats, a sentinel for integers: what an unwritten output
  /// element keeps, so that a check notices it.
  void poison();
  /// The integer sentinel poison() writes.
  static constexpr int64_t kIntPoison = -123456789;
  /// Whether element `index` still holds what poison() wrote (NaN for
  /// floats, the sentinel for integers; never for bool).
  bool isPoisoned(int64_t index) const;

  /// Writes a NumPy .npy file (bf16 is saved widened to f32, exactly).
  llvm::Error writeNpy(llvm::StringRef path) const;

private:
  ElementType element = ElementType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> bytes;
};

} // namespace phobos

#endif // PHOBOS_RUNTIME_HOSTTENSOR_H
