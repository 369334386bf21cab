//===- Sema.h - Semantic checks of a Phobos kernel --------------*- C++ -*-===//
//
// Reads a kernel's attributes (its @autotune search space, @launch, ...),
// binds one variant, resolves every name, types every expression with the
// variant's static shapes, and reports what breaks the language's rules at
// the construct's location. MLIRGen consumes the annotated AST.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_FRONTEND_SEMA_H
#define PHOBOS_FRONTEND_SEMA_H

#include "Phobos/Dialect/Tile/IR/TileTypes.h"
#include "Phobos/Frontend/AST.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <vector>

namespace phobos::frontend {

class Diagnostics;

namespace ast {
/// What a name in the source refers to.
struct Symbol {
  enum class Kind {
    Param,    ///< A kernel parameter (tensor or scalar).
    Dim,      ///< A tensor extent bound at launch (`M` in tensor<f32>[M, K]).
    Constant, ///< An @autotune name, or a literal tensor extent's name.
    Local,    ///< A let or var.
    LoopVar,  ///< A for loop's induction variable.
  };
  Kind kind = Kind::Local;
  std::string name;
  llvm::SMLoc loc;
  Type type;
  bool isMutable = false;
  unsigned paramIndex = 0; ///< Param: its position. Dim: the first tensor.
  unsigned dimAxis = 0;    ///< Dim: the axis of that tensor.
  int64_t value = 0;       ///< Constant: its value in the variant.
};
} // namespace ast

/// One dimension of an @autotune or @cluster space.
struct SearchDim {
  std::string name;
  std::vector<int64_t> values;
  llvm::SMLoc loc;
};

/// A kernel's attributes, checked.
struct KernelAttributes {
  std::vector<SearchDim> autotune;
  std::vector<SearchDim> cluster;
  std::optional<int64_t> maxThreads, minBlocks, maxRegs;
  /// `@launch(2 * TILE_M)`: a thread count that depends on the variant (the
  /// checker resolves it); null when the count is a literal or absent.
  const ast::Expr *maxThreadsExpr = nullptr;
  bool pipeline = false;
  /// `@pipeline(N)`: the number of stages; absent for `@pipeline`.
  std::optional<int64_t> pipelineStages;
  /// `@pipeline(STAGES)`: a stage count that depends on the variant (the
  /// checker resolves it); null when the count is a literal or absent.
  const ast::Expr *pipelineStagesExpr = nullptr;
  /// `@warp_specialize` (1), `@warp_specialize(0)`; absent without it.
  std::optional<int64_t> warpSpecialize;
  /// `@warp_specialize(WS)`: a flag that depends on the variant.
  const ast::Expr *warpSpecializeExpr = nullptr;
  /// `@persistent` (1), `@persistent(0)`; absent without it.
  std::optional<int64_t> persistent;
  /// `@persistent(P)`: a flag that depends on the variant.
  const ast::Expr *persistentExpr = nullptr;
  /// `@tensorcore`: what dots on f32 operands round to (f16, tf32, bf16).
  std::optional<tile::DotPrecision> tensorcore;
  /// `@aligned(M = TILE_M)`: dim name, the expression of the multiple.
  std::vector<std::pair<std::string, const ast::Expr *>> aligned;
  std::vector<std::string> unknown;

  const SearchDim *findAutotune(llvm::StringRef name) const;
};

/// Reads and checks the attributes of `kernel`: everything that does not
/// depend on the variant. Returns nullopt after reporting an error.
std::optional<KernelAttributes> readAttributes(const ast::Kernel &kernel,
                                               Diagnostics &diags);

/// The expansion of `@autotune(NAME in [values])`: two values `a < b` are
/// the doubling steps from a up to b; otherwise the values themselves.
std::vector<int64_t> expandSearchValues(llvm::ArrayRef<int64_t> values);

/// A value for every @autotune name, in the order the source lists them.
using Variant = std::vector<std::pair<std::string, int64_t>>;

/// The most variants a tool enumerates (`phobos-compile --all-variants`).
inline constexpr uint64_t kMaxEnumeratedVariants = 4096;

/// The number of variants of the search space (the product of the
/// dimensions' value counts), or nullopt when it is above `limit`; never
/// builds the space.
std::optional<uint64_t> countVariants(const KernelAttributes &attrs,
                                      uint64_t limit);

/// The variant that takes the last value of every @autotune dimension.
Variant lastVariant(const KernelAttributes &attrs);

/// Every variant of the search space (the Cartesian product), default
/// first. The space must have at most kMaxEnumeratedVariants variants
/// (check with countVariants first).
std::vector<Variant> enumerateVariants(const KernelAttributes &attrs);

/// A kernel checked for one variant: the symbols its AST now points to.
struct CheckedKernel {
  ast::Kernel *kernel = nullptr;
  KernelAttributes attrs;
  Variant variant;
  /// `@aligned` resolved in this variant: dim name -> multiple.
  std::vector<std::pair<std::string, int64_t>> aligned;
  /// `@launch`'s thread count and `@pipeline`'s stage count in this variant.
  std::optional<int64_t> maxThreads, pipelineStages;
  /// `@warp_specialize`'s flag in this variant (absent: none).
  std::optional<int64_t> warpSpecialize;
  /// `@persistent`'s flag in this variant (absent: none).
  std::optional<int64_t> persistent;
  std::vector<ast::Symbol *> params;
  std::vector<std::unique_ptr<ast::Symbol>> symbols;
};

/// Checks `kernel` in the variant that takes `overrides` for the names it
/// lists and the first value of every other @autotune dimension; names the
/// kernel does not declare are ignored. Annotates the AST. Returns null
/// after reporting errors.
std::unique_ptr<CheckedKernel>
checkKernel(ast::Kernel &kernel, const llvm::StringMap<int64_t> &overrides,
            Diagnostics &diags);

} // namespace phobos::frontend

#endif // PHOBOS_FRONTEND_SEMA_H
