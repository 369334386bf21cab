//===- phobos-fuzz-ir.cpp - libFuzzer target over the GPU pipeline --------===//
//
// Feeds MLIR modules of phobos kernels to phobos-opt's passes. An input is
// a first line `// pipeline: SPEC` (a textual pass pipeline on
// builtin.module, or `phobos-to-nvvm[{chip=...}]`, optionally followed by
// `+ptx` to serialise the result) and the module; a module that is Phobos
// source rather than MLIR is imported first (so the examples seed the
// corpus as they are). Any input may be rejected (it does not parse, does
// not verify, or a pass fails with a diagnostic); none may crash, abort or
// hang.
//
// The custom mutator works on the IR, not the bytes: it parses the module
// and drops an op (its uses taken over by a value of the same type), swaps
// or replaces operands, changes a tile type everywhere it occurs (extents,
// element type, layout: dropped or another of the module's of the same
// rank), changes integer attributes, duplicates an op, or
// picks another pipeline (single passes out of their order included). When
// the input does not parse it falls back to libFuzzer's byte mutations.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Dialect/Tile/IR/TileOps.h"
#include "Phobos/Frontend/MLIRGen.h"
#include "Phobos/InitAllDialects.h"
#include "Phobos/InitAllPasses.h"
#include "Phobos/Target/PassPipeline.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <random>

using namespace mlir;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

const DialectRegistry &registry() {
  static DialectRegistry *r = [] {
    auto *registry = new DialectRegistry();
    phobos::registerAllDialects(*registry);
    phobos::registerAllPasses();
    return registry;
  }();
  return *r;
}

constexpr llvm::StringLiteral kPipelinePrefix = "// pipeline: ";

/// The pipeline line and the module text of an input.
std::pair<std::string, llvm::StringRef> splitInput(llvm::StringRef input) {
  if (!input.starts_with(kPipelinePrefix))
    return {"phobos-to-nvvm", input};
  auto [line, rest] = input.split('\n');
  // Without a newline `rest` is a null StringRef; MLIR's lexer takes a
  // null buffer start for its code-completion point and crashes. An empty
  // string inside the input is what is meant.
  if (!rest.data())
    rest = input.drop_front(input.size());
  return {line.drop_front(kPipelinePrefix.size()).trim().str(), rest};
}

/// An op of the dialects the GPU lowering produces.
bool isUpstreamLowered(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "gpu" || dialect == "llvm" || dialect == "nvvm";
}

/// Whether every gpu.func has the block arguments its attribution counts
/// claim: upstream's verifier reads them without checking (and crashes),
/// so such text is rejected before it is verified.
bool attributionsFit(ModuleOp module) {
  bool fit = true;
  module.walk([&](gpu::GPUFuncOp func) {
    if (func.getBody().empty())
      return;
    uint64_t claimed = func.getFunctionType().getNumInputs();
    if (auto count = func->getAttrOfType<IntegerAttr>(
            func.getNumWorkgroupAttributionsAttrName()))
      claimed += count.getValue().getZExtValue();
    if (claimed > func.getBody().front().getNumArguments())
      fit = false;
  });
  return fit;
}

/// The module `text` holds: MLIR, or else Phobos source imported in its
/// default variant. Null when it is neither; diagnostics are silenced.
OwningOpRef<ModuleOp> parseModule(llvm::StringRef input, MLIRContext *context,
                                  bool verify) {
  // MLIR's lexer reads the byte after the buffer (it expects a terminating
  // NUL): a symbol at the very end of libFuzzer's unterminated input, as
  // in `phobos.kernel @tw`, read past it (ASan, CI's fuzz run). Parse a
  // terminated copy.
  std::string text = input.str();
  ParserConfig config(context, /*verifyAfterParse=*/false);
  if (OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config)) {
    if (verify && (!attributionsFit(*module) || failed(mlir::verify(*module))))
      return nullptr;
    return module;
  }
  if (!llvm::StringRef(text).contains("kernel "))
    return nullptr;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.ph"), llvm::SMLoc());
  return phobos::frontend::importPhobos(sourceMgr, context, {});
}

/// The tile passes, in pipeline order, and the module-level steps after
/// them; mutations recombine them in any order.
const char *const kKernelPasses[] = {
    "tile-choose-cta",       "canonicalize",          "cse",
    "tile-group-blocks",     "tile-hoist-invariants", "tile-drop-masks",
    "tile-split-ragged-loops", "tile-select-mma",
    "tile-assign-layouts",   "tile-promote-shared",
    "tile-swizzle-shared",   "tile-pipeline",
    "tile-allocate-shared",
    "tile-insert-barriers"};
const char *const kModulePasses[] = {"convert-tile-to-gpu", "canonicalize",
                                     "cse", "phobos-check-target-dialects"};

std::string randomPipeline(std::mt19937_64 &rng) {
  switch (rng() % 6) {
  case 0:
    return "phobos-to-nvvm";
  case 1:
    return "phobos-to-nvvm+ptx";
  case 2:
    return std::string("phobos-to-nvvm{chip=") +
           (rng() % 2 ? "sm_80}" : "sm_90a}");
  default:
    break;
  }
  // A random sequence of tile passes, possibly followed by the lowering.
  std::string kernel;
  size_t count = 1 + rng() % 6;
  for (size_t i = 0; i < count; ++i) {
    if (!kernel.empty())
      kernel += ",";
    kernel += kKernelPasses[rng() % std::size(kKernelPasses)];
  }
  std::string spec = "builtin.module(phobos.kernel(" + kernel + ")";
  if (rng() % 3 == 0)
    spec += std::string(",") + kModulePasses[rng() % std::size(kModulePasses)];
  return spec + ")";
}

/// Values that dominate `op` and have type `type` (block arguments and
/// results of earlier ops in `op`'s block and the blocks around it).
SmallVector<Value> valuesBefore(Operation *op, Type type) {
  SmallVector<Value> found;
  for (Operation *at = op; at && at->getBlock(); at = at->getParentOp()) {
    Block *block = at->getBlock();
    for (BlockArgument arg : block->getArguments())
      if (arg.getType() == type)
        found.push_back(arg);
    for (Operation &earlier : *block) {
      if (&earlier == at)
        break;
      for (Value result : earlier.getResults())
        if (result.getType() == type)
          found.push_back(result);
    }
    if (isa<ModuleOp>(at->getParentOp()))
      break;
  }
  return found;
}

/// A changed tile type: other extents, element type or layout (none, or
/// another of `layouts`, the module's, of the tile's rank).
Type mutateTileType(phobos::tile::TileType type, ArrayRef<Attribute> layouts,
                    std::mt19937_64 &rng) {
  MLIRContext *context = type.getContext();
  SmallVector<int64_t> shape(type.getShape());
  Type element = type.getElementType();
  Attribute encoding = type.getEncoding();
  switch (rng() % 5) {
  case 0: {
    int64_t &extent = shape[rng() % shape.size()];
    const int64_t choices[] = {1, 2, 3, 7, 16, 17, 64, 1024, int64_t(1) << 20,
                               int64_t(1) << 24, int64_t(1) << 40};
    extent = rng() % 2 ? choices[rng() % std::size(choices)]
                       : std::max<int64_t>(1, extent * 2 / (1 + rng() % 4));
    break;
  }
  case 1: {
    Type elements[] = {Float16Type::get(context), BFloat16Type::get(context),
                       Float32Type::get(context), Float64Type::get(context),
                       IntegerType::get(context, 1),
                       IntegerType::get(context, 32),
                       IntegerType::get(context, 64)};
    element = elements[rng() % std::size(elements)];
    break;
  }
  case 2: {
    SmallVector<Attribute> fitting;
    for (Attribute layout : layouts)
      if (cast<phobos::tile::DistributedLayoutInterface>(layout).getRank() ==
          shape.size())
        fitting.push_back(layout);
    encoding = fitting.empty() || rng() % 2 ? Attribute()
                                            : fitting[rng() % fitting.size()];
    break;
  }
  case 3:
    if (shape.size() < 4)
      shape.insert(shape.begin() + rng() % (shape.size() + 1), 1 + rng() % 8);
    break;
  default:
    if (shape.size() > 1)
      shape.erase(shape.begin() + rng() % shape.size());
    break;
  }
  if (encoding && shape.size() != type.getShape().size())
    encoding = nullptr;
  return phobos::tile::TileType::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context,
      ArrayRef<int64_t>(shape), element, encoding);
}

/// One IR-level mutation of `module`; false when none applied.
bool mutateModule(ModuleOp module, std::mt19937_64 &rng) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (op != module.getOperation() && !isa<phobos::tile::KernelOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return false;
  Operation *op = ops[rng() % ops.size()];
  switch (rng() % 7) {
  case 0: { // drop an op; its results' users take another value
    if (op->hasTrait<OpTrait::IsTerminator>())
      return false;
    for (Value result : op->getResults()) {
      SmallVector<Value> others = valuesBefore(op, result.getType());
      if (result.use_empty())
        continue;
      if (others.empty())
        return false;
      result.replaceAllUsesWith(others[rng() % others.size()]);
    }
    op->erase();
    return true;
  }
  case 1: { // swap two operands, or take another value of the same type
    if (op->getNumOperands() == 0)
      return false;
    unsigned i = rng() % op->getNumOperands();
    if (op->getNumOperands() > 1 && rng() % 2) {
      unsigned j = rng() % op->getNumOperands();
      Value a = op->getOperand(i), b = op->getOperand(j);
      op->setOperand(i, b);
      op->setOperand(j, a);
      return true;
    }
    SmallVector<Value> others = valuesBefore(op, op->getOperand(i).getType());
    if (others.empty())
      return false;
    op->setOperand(i, others[rng() % others.size()]);
    return true;
  }
  case 2:
  case 3: { // change one tile type everywhere it occurs
    SmallVector<Type> tiles;
    llvm::SetVector<Attribute> layouts;
    module.walk([&](Operation *nested) {
      for (Value result : nested->getResults())
        if (auto tile = dyn_cast<phobos::tile::TileType>(result.getType())) {
          tiles.push_back(tile);
          if (tile.getEncoding())
            layouts.insert(tile.getEncoding());
        }
    });
    if (tiles.empty())
      return false;
    auto from = cast<phobos::tile::TileType>(tiles[rng() % tiles.size()]);
    Type to = mutateTileType(from, layouts.getArrayRef(), rng);
    if (!to)
      return false;
    bool everywhere = rng() % 3 != 0;
    bool changed = false;
    module.walk([&](Operation *nested) {
      for (Value result : nested->getResults())
        if (result.getType() == from && (everywhere || !changed)) {
          result.setType(to);
          changed = true;
        }
      for (Region &region : nested->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (arg.getType() == from && everywhere)
              arg.setType(to);
    });
    return changed;
  }
  case 4: { // change an integer or array attribute, or drop one
    // Only changes that text could also express: an inherent attribute
    // (a property) that rejects the new value (an enum given an integer
    // outside its cases) would be left null, which no parsed op can be.
    // Not on lowered ops: upstream verifiers trust some of their attributes
    // (gpu.func's workgroup_attributions is read as a count of block
    // arguments without a check), and Phobos's passes never write them
    // from anything but their own lowering.
    if (isUpstreamLowered(op))
      return false;
    SmallVector<NamedAttribute> attrs(op->getAttrs());
    if (attrs.empty())
      return false;
    NamedAttribute named = attrs[rng() % attrs.size()];
    Builder builder(op->getContext());
    Attribute changed;
    if (auto integer = dyn_cast<IntegerAttr>(named.getValue())) {
      const int64_t choices[] = {0, 1, -1, 2, 3, 16, 1 << 20, INT32_MAX};
      int64_t value = rng() % 2 ? choices[rng() % std::size(choices)]
                                : integer.getInt() + int64_t(rng() % 5) - 2;
      if (!integer.getType().isIntOrIndex())
        return false;
      changed = IntegerAttr::get(integer.getType(), value);
    } else if (auto flags = dyn_cast<DenseBoolArrayAttr>(named.getValue())) {
      SmallVector<bool> values(flags.asArrayRef());
      if (values.empty() || rng() % 4 == 0)
        values.push_back(true);
      else
        values[rng() % values.size()] = !values[rng() % values.size()];
      changed = builder.getDenseBoolArrayAttr(values);
    } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(named.getValue())) {
      SmallVector<int64_t> values(ints.asArrayRef());
      if (values.empty() || rng() % 4 == 0)
        values.push_back(int64_t(rng() % 4));
      else
        values[rng() % values.size()] = int64_t(rng() % 5) - 1;
      changed = builder.getDenseI64ArrayAttr(values);
    }
    bool inherent = !op->getDiscardableAttrDictionary().contains(
        named.getName());
    if (!changed) {
      if (inherent)
        return false;
      op->removeDiscardableAttr(named.getName());
      return true;
    }
    op->setAttr(named.getName(), changed);
    if (op->getAttr(named.getName()) != changed) {
      op->setAttr(named.getName(), named.getValue());
      return false;
    }
    return true;
  }
  case 5: { // duplicate an op in place
    if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumRegions())
      return false;
    OpBuilder builder(op);
    builder.clone(*op);
    return true;
  }
  default: { // move an op to the start of its block
    if (op->hasTrait<OpTrait::IsTerminator>() || op == &op->getBlock()->front())
      return false;
    op->moveBefore(&op->getBlock()->front());
    return true;
  }
  }
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned int seed) {
  std::mt19937_64 rng(seed);
  // Now and then, or when the input is not IR, mutate the bytes.
  if (rng() % 16 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  auto [pipeline, text] =
      splitInput(llvm::StringRef(reinterpret_cast<const char *>(data), size));
  if (rng() % 6 == 0)
    pipeline = randomPipeline(rng);
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  // Only verified IR is worth passing on: the target rejects the rest at
  // once, and IR that does not verify may not even print (an op without an
  // attribute its printer needs crashes the printer, not a pass). A few
  // attempts, each from the original, before falling back to bytes.
  for (unsigned attempt = 0; attempt < 8; ++attempt) {
    OwningOpRef<ModuleOp> module =
        parseModule(text, &context, /*verify=*/false);
    if (!module)
      break;
    for (unsigned i = 0, n = 1 + rng() % 3; i < n; ++i)
      mutateModule(*module, rng);
    if (!attributionsFit(*module) || failed(verify(*module)))
      continue;
    std::string out = std::string(kPipelinePrefix) + pipeline + "\n";
    llvm::raw_string_ostream os(out);
    OpPrintingFlags flags;
    flags.assumeVerified();
    module->print(os, flags);
    if (out.size() > maxSize)
      return size;
    std::memcpy(data, out.data(), out.size());
    return out.size();
  }
  return LLVMFuzzerMutate(data, size, maxSize);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto [pipeline, text] =
      splitInput(llvm::StringRef(reinterpret_cast<const char *>(data), size));
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  // Parsing verifies: everything after this point is verified IR.
  OwningOpRef<ModuleOp> module = parseModule(text, &context, /*verify=*/true);
  if (!module)
    return 0;
  llvm::StringRef spec = pipeline;
  bool toPtx = spec.consume_back("+ptx");
  PassManager pm(&context);
  if (spec.starts_with("phobos-to-nvvm"))
    pm.enableVerifier(true);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  std::string full = spec.starts_with("builtin.module")
                         ? spec.str()
                         : "builtin.module(" + spec.str() + ")";
  if (failed(parsePassPipeline(full, pm, errorStream)))
    return 0;
  if (failed(pm.run(*module)))
    return 0;
  if (toPtx)
    (void)phobos::serializeToPTX(*module, "sm_90");
  return 0;
}
