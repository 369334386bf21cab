//===- SemaAttributes.cpp - A kernel's attributes and search space --------===//
//
// @autotune, @launch, @pipeline, @tensorcore, @aligned, @warp_specialize
// and @persistent read and checked once per kernel, before any variant is
// bound, and the variants of the search space enumerated.
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "Phobos/Dialect/Tile/IR/TileTypes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using namespace phobos::frontend::sema;

//===----------------------------------------------------------------------===//
// Attributes and search spaces
//===----------------------------------------------------------------------===//

const SearchDim *KernelAttributes::findAutotune(StringRef name) const {
  for (const SearchDim &dim : autotune)
    if (dim.name == name)
      return &dim;
  return nullptr;
}

std::vector<int64_t>
phobos::frontend::expandSearchValues(llvm::ArrayRef<int64_t> values) {
  if (values.size() == 2 && values[0] < values[1]) {
    std::vector<int64_t> expanded;
    for (int64_t v = values[0]; v <= values[1]; v *= 2)
      expanded.push_back(v);
    return expanded;
  }
  if (values.size() == 2 && values[0] == values[1])
    return {values[0]};
  return std::vector<int64_t>(values.begin(), values.end());
}

std::optional<uint64_t>
phobos::frontend::countVariants(const KernelAttributes &attrs, uint64_t limit) {
  uint64_t count = 1;
  for (const SearchDim &dim : attrs.autotune) {
    uint64_t values = dim.values.size();
    if (values && count > limit / values)
      return std::nullopt;
    count *= values;
  }
  if (count > limit)
    return std::nullopt;
  return count;
}

Variant phobos::frontend::lastVariant(const KernelAttributes &attrs) {
  Variant variant;
  for (const SearchDim &dim : attrs.autotune)
    variant.emplace_back(dim.name, dim.values.back());
  return variant;
}

std::vector<Variant>
phobos::frontend::enumerateVariants(const KernelAttributes &attrs) {
  // The caller bounds the space first (countVariants): the product of a
  // few dozen dimensions does not fit in memory.
  assert(countVariants(attrs, kMaxEnumeratedVariants) &&
         "enumerating a space of more than kMaxEnumeratedVariants variants");
  std::vector<Variant> variants(1);
  for (const SearchDim &dim : attrs.autotune) {
    std::vector<Variant> next;
    for (const Variant &prefix : variants)
      for (int64_t value : dim.values) {
        Variant v = prefix;
        v.emplace_back(dim.name, value);
        next.push_back(std::move(v));
      }
    variants = std::move(next);
  }
  return variants;
}

/// Whether `threads` is a CTA size @launch accepts; reports why not at `loc`.
bool phobos::frontend::sema::checkMaxThreads(int64_t threads, SMLoc loc, Diagnostics &diags) {
  if (threads > 0 && threads <= 1024 && threads % 32 == 0)
    return true;
  diags.error(loc)
      << "maxThreads must be a positive multiple of 32 up to 1024, got "
      << threads;
  return false;
}

/// Whether `flag` is a value @warp_specialize accepts (0 or 1).
bool phobos::frontend::sema::checkFlag(int64_t flag, SMLoc loc, Diagnostics &diags) {
  if (flag == 0 || flag == 1)
    return true;
  diags.error(loc) << "@warp_specialize takes 1 (a producer warpgroup) or 0 "
                      "(none), got "
                   << flag;
  return false;
}

/// Whether `flag` is a value @persistent accepts (0 or 1).
bool phobos::frontend::sema::checkPersistentFlag(int64_t flag, SMLoc loc, Diagnostics &diags) {
  if (flag == 0 || flag == 1)
    return true;
  diags.error(loc) << "@persistent takes 1 (CTAs loop over the tiles) or 0 "
                      "(one CTA per tile), got "
                   << flag;
  return false;
}

/// Whether `stages` is a stage count @pipeline accepts; reports why not.
bool phobos::frontend::sema::checkStages(int64_t stages, SMLoc loc, Diagnostics &diags) {
  if (stages >= 1 && stages <= 8)
    return true;
  diags.error(loc) << "@pipeline's number of stages must be between 1 and 8, "
                      "got "
                   << stages;
  return false;
}

namespace {
/// Checks one kernel's attributes.
class AttributeReader {
public:
  AttributeReader(const Kernel &kernel, Diagnostics &diags)
      : kernel(kernel), diags(diags) {}

  std::optional<KernelAttributes> run();

private:
  bool readSpace(const Attribute &attr, std::vector<SearchDim> &space);
  bool readLaunch(const Attribute &attr);
  bool readTensorcore(const Attribute &attr);
  bool readAligned(const Attribute &attr);
  /// The one argument of `attr` (`what` it is, in errors): a literal that
  /// `valid` accepts into `value`, or an expression of the @autotune names
  /// into `expr`, which the checker resolves in each variant.
  bool readCount(const Attribute &attr, StringRef what,
                 bool (*valid)(int64_t, SMLoc, Diagnostics &),
                 std::optional<int64_t> &value, const ast::Expr *&expr);
  bool readPipeline(const Attribute &attr);
  bool readWarpSpecialize(const Attribute &attr);
  bool readPersistent(const Attribute &attr);
  std::optional<int64_t> literal(const AttrArg &arg, StringRef what);

  const Kernel &kernel;
  Diagnostics &diags;
  KernelAttributes attrs;
};
} // namespace

std::optional<int64_t> AttributeReader::literal(const AttrArg &arg,
                                                StringRef what) {
  if (arg.kind == AttrArg::Kind::Positional)
    if (auto *value = dyn_cast<IntExpr>(arg.value.get()))
      return value->value;
  diags.error(arg.loc) << what << " must be an integer literal";
  return std::nullopt;
}

bool AttributeReader::readSpace(const Attribute &attr,
                                std::vector<SearchDim> &space) {
  if (attr.args.empty()) {
    diags.error(attr.loc) << "@" << attr.name
                          << " needs at least one 'NAME in [values]'";
    return false;
  }
  for (const AttrArg &arg : attr.args) {
    if (arg.kind != AttrArg::Kind::InList) {
      diags.error(arg.loc) << "@" << attr.name
                           << " arguments have the form 'NAME in [a, b, ...]'";
      return false;
    }
    for (const SearchDim &dim : space)
      if (dim.name == arg.name) {
        diags.error(arg.loc) << "'" << arg.name << "' appears twice in @"
                             << attr.name;
        return false;
      }
    std::vector<int64_t> raw;
    for (auto [value, loc] : arg.values) {
      if (value <= 0 || value > kMaxConstant) {
        diags.error(loc) << "search values must be between 1 and "
                         << kMaxConstant << ", got " << value;
        return false;
      }
      raw.push_back(value);
    }
    if (raw.size() >= 3) {
      llvm::SmallDenseSet<int64_t> seen;
      for (auto [value, loc] : arg.values)
        if (!seen.insert(value).second) {
          diags.error(loc) << "value " << value << " appears twice in the list "
                           << "of '" << arg.name << "'";
          return false;
        }
    }
    SearchDim dim;
    dim.name = arg.name;
    dim.loc = arg.loc;
    dim.values = expandSearchValues(raw);
    if (raw.size() == 2 && raw[0] < raw[1] && dim.values.back() != raw[1])
      diags.warning(arg.values[1].second)
          << "doubling from " << raw[0] << " does not reach " << raw[1]
          << "; the search for '" << arg.name << "' ends at "
          << dim.values.back();
    space.push_back(std::move(dim));
  }
  return true;
}

bool AttributeReader::readCount(const Attribute &attr, StringRef what,
                                bool (*valid)(int64_t, SMLoc, Diagnostics &),
                                std::optional<int64_t> &value,
                                const Expr *&expr) {
  if (attr.args.size() > 1) {
    diags.error(attr.loc) << "@" << attr.name << " takes at most one argument ("
                          << what << "), got " << attr.args.size();
    return false;
  }
  // A literal is checked now; an expression of the @autotune names
  // (`@pipeline(STAGES)`, Triton's num_stages as a tuning choice) when the
  // checker binds them.
  const AttrArg &arg = attr.args[0];
  if (arg.kind == AttrArg::Kind::Positional &&
      !isa<IntExpr>(arg.value.get())) {
    value.reset();
    expr = arg.value.get();
    return true;
  }
  std::optional<int64_t> literalValue = literal(arg, what);
  if (!literalValue || !valid(*literalValue, arg.loc, diags))
    return false;
  value = literalValue;
  return true;
}

bool AttributeReader::readPipeline(const Attribute &attr) {
  // 1 stage does not pipeline.
  attrs.pipeline = true;
  return attr.args.empty() ||
         readCount(attr, "the number of stages", checkStages,
                   attrs.pipelineStages, attrs.pipelineStagesExpr);
}

bool AttributeReader::readLaunch(const Attribute &attr) {
  if (attr.args.empty() || attr.args.size() > 3) {
    diags.error(attr.loc) << "@launch takes 1 to 3 arguments (maxThreads, "
                             "minBlocks, maxRegs), got "
                          << attr.args.size();
    return false;
  }
  // A literal is checked here, before any variant; an expression of the
  // @autotune names (`@launch(2 * TILE_M)`, Triton's num_warps as a tuning
  // choice) when the checker binds them.
  const AttrArg &first = attr.args[0];
  if (first.kind == AttrArg::Kind::Positional &&
      !isa<IntExpr>(first.value.get())) {
    attrs.maxThreadsExpr = first.value.get();
  } else {
    std::optional<int64_t> threads = literal(first, "maxThreads");
    if (!threads || !checkMaxThreads(*threads, first.loc, diags))
      return false;
    attrs.maxThreads = threads;
  }
  if (attr.args.size() > 1) {
    std::optional<int64_t> blocks = literal(attr.args[1], "minBlocks");
    if (!blocks)
      return false;
    if (*blocks < 1 || *blocks > 64) {
      diags.error(attr.args[1].loc)
          << "minBlocks must be between 1 and 64, got " << *blocks;
      return false;
    }
    attrs.minBlocks = blocks;
  }
  if (attr.args.size() > 2) {
    std::optional<int64_t> regs = literal(attr.args[2], "maxRegs");
    if (!regs)
      return false;
    if (*regs < 16 || *regs > 255) {
      diags.error(attr.args[2].loc)
          << "maxRegs must be between 16 and 255, got " << *regs;
      return false;
    }
    attrs.maxRegs = regs;
  }
  return true;
}

bool AttributeReader::readWarpSpecialize(const Attribute &attr) {
  attrs.warpSpecialize = 1;
  return attr.args.empty() ||
         readCount(attr, "1 or 0", checkFlag, attrs.warpSpecialize,
                   attrs.warpSpecializeExpr);
}

bool AttributeReader::readPersistent(const Attribute &attr) {
  attrs.persistent = 1;
  return attr.args.empty() || readCount(attr, "1 or 0", checkPersistentFlag,
                                        attrs.persistent, attrs.persistentExpr);
}

bool AttributeReader::readTensorcore(const Attribute &attr) {
  if (attr.args.empty()) {
    attrs.tensorcore = phobos::tile::DotPrecision::f16;
    return true;
  }
  auto *name = attr.args.size() == 1 &&
                       attr.args[0].kind == AttrArg::Kind::Positional
                   ? dyn_cast<NameExpr>(attr.args[0].value.get())
                   : nullptr;
  // The spellings are the dot precisions', less `ieee` (no tensor cores).
  std::optional<phobos::tile::DotPrecision> precision;
  if (name)
    precision = phobos::tile::symbolizeDotPrecision(name->name);
  if (!precision || *precision == phobos::tile::DotPrecision::ieee) {
    diags.error(attr.args[0].loc)
        << "@tensorcore takes one of f16, tf32 or bf16 (the precision f32 "
           "operands are rounded to)";
    return false;
  }
  attrs.tensorcore = precision;
  return true;
}

bool AttributeReader::readAligned(const Attribute &attr) {
  if (attr.args.empty()) {
    diags.error(attr.loc) << "@aligned needs at least one 'DIM = MULTIPLE'";
    return false;
  }
  llvm::StringSet<> dimNames;
  for (const Param &param : kernel.params)
    if (param.type.kind == TypeSpec::Kind::Tensor)
      for (const DimSpec &dim : param.type.dims)
        if (dim.isName())
          dimNames.insert(dim.name);
  for (const AttrArg &arg : attr.args) {
    if (arg.kind != AttrArg::Kind::Assign) {
      diags.error(arg.loc) << "@aligned arguments have the form 'DIM = MULTIPLE'";
      return false;
    }
    if (!dimNames.contains(arg.name)) {
      diags.error(arg.loc) << "@aligned names '" << arg.name
                           << "', which is not a tensor dimension";
      return false;
    }
    for (auto &[name, expr] : attrs.aligned)
      if (name == arg.name) {
        diags.error(arg.loc) << "'" << arg.name << "' appears twice in @aligned";
        return false;
      }
    attrs.aligned.emplace_back(arg.name, arg.value.get());
  }
  return true;
}

std::optional<KernelAttributes> AttributeReader::run() {
  llvm::StringMap<SMLoc> seen;
  for (const Attribute &attr : kernel.attributes) {
    auto [it, inserted] = seen.try_emplace(attr.name, attr.loc);
    if (!inserted) {
      diags.error(attr.loc) << "@" << attr.name << " is given twice (first at "
                            << diags.lineCol(it->second) << ")";
      return std::nullopt;
    }
    bool ok = true;
    if (attr.name == "autotune")
      ok = readSpace(attr, attrs.autotune);
    else if (attr.name == "cluster")
      ok = readSpace(attr, attrs.cluster);
    else if (attr.name == "launch")
      ok = readLaunch(attr);
    else if (attr.name == "pipeline")
      ok = readPipeline(attr);
    else if (attr.name == "warp_specialize")
      ok = readWarpSpecialize(attr);
    else if (attr.name == "persistent")
      ok = readPersistent(attr);
    else if (attr.name == "tensorcore")
      ok = readTensorcore(attr);
    else if (attr.name == "aligned")
      ok = readAligned(attr);
    else {
      diags.warning(attr.loc) << "unknown attribute '@" << attr.name
                              << "' (kept on the kernel, not interpreted)";
      attrs.unknown.push_back(attr.name);
    }
    if (!ok)
      return std::nullopt;
  }
  for (const SearchDim &dim : attrs.cluster)
    if (!attrs.findAutotune(dim.name)) {
      diags.error(dim.loc) << "@cluster dimension '" << dim.name
                           << "' is not an @autotune name";
      return std::nullopt;
    }
  return attrs;
}

std::optional<KernelAttributes>
phobos::frontend::readAttributes(const Kernel &kernel, Diagnostics &diags) {
  return AttributeReader(kernel, diags).run();
}
