//===- Sema.cpp - Semantic checks of a Phobos kernel ----------------------===//
//
// Name resolution, typing with the bound variant's static shapes, and the
// language's rules, each reported at the construct that breaks it. Errors
// are recovered from by giving the expression an invalid type, which
// silences the errors that would only repeat the first one.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Frontend/Sema.h"
#include "Phobos/Dialect/Tile/IR/TileTypes.h"
#include "Phobos/Frontend/Diagnostics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <map>

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using llvm::SMLoc;
using llvm::StringRef;

/// The most elements one tile may hold (far above what fits on a GPU, low
/// enough that the interpreter can always allocate it) and the most axes:
/// the dialect's limits, which its verifier enforces on IR as well.
using phobos::tile::kMaxRank;
using phobos::tile::kMaxTileElements;
/// The most bytes of parameters one CUDA kernel launch may pass (CUDA 12.1
/// and later on Volta and later).
static constexpr int64_t kMaxParamBytes = 32764;
/// Search-space values and compile-time constants stay in i32.
static constexpr int64_t kMaxConstant = INT32_MAX;

llvm::StringRef phobos::frontend::ast::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Rem: return "%";
  case BinaryOp::Eq: return "==";
  case BinaryOp::Ne: return "!=";
  case BinaryOp::Lt: return "<";
  case BinaryOp::Le: return "<=";
  case BinaryOp::Gt: return ">";
  case BinaryOp::Ge: return ">=";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  }
  return "?";
}

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
static bool checkMaxThreads(int64_t threads, SMLoc loc, Diagnostics &diags) {
  if (threads > 0 && threads <= 1024 && threads % 32 == 0)
    return true;
  diags.error(loc)
      << "maxThreads must be a positive multiple of 32 up to 1024, got "
      << threads;
  return false;
}

/// Whether `flag` is a value @warp_specialize accepts (0 or 1).
static bool checkFlag(int64_t flag, SMLoc loc, Diagnostics &diags) {
  if (flag == 0 || flag == 1)
    return true;
  diags.error(loc) << "@warp_specialize takes 1 (a producer warpgroup) or 0 "
                      "(none), got "
                   << flag;
  return false;
}

/// Whether `flag` is a value @persistent accepts (0 or 1).
static bool checkPersistentFlag(int64_t flag, SMLoc loc, Diagnostics &diags) {
  if (flag == 0 || flag == 1)
    return true;
  diags.error(loc) << "@persistent takes 1 (CTAs loop over the tiles) or 0 "
                      "(one CTA per tile), got "
                   << flag;
  return false;
}

/// Whether `stages` is a stage count @pipeline accepts; reports why not.
static bool checkStages(int64_t stages, SMLoc loc, Diagnostics &diags) {
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

//===----------------------------------------------------------------------===//
// The checker
//===----------------------------------------------------------------------===//

namespace {

/// A sum of terms times coefficients plus a constant: how Sema proves that
/// `e - s` of a slice `s : e` is a compile-time constant.
struct LinearForm {
  std::map<std::string, int64_t> terms;
  int64_t constant = 0;
};

class Checker {
public:
  Checker(CheckedKernel &result, Diagnostics &diags)
      : result(result), diags(diags) {}

  bool run();

private:
  //===--- Scopes and symbols ---------------------------------------------===//
  Symbol *declare(Symbol::Kind kind, StringRef name, SMLoc loc, Type type);
  Symbol *lookup(StringRef name) const;
  void pushScope() { scopes.emplace_back(); }
  void popScope() { scopes.pop_back(); }

  //===--- Types ----------------------------------------------------------===//
  Type resolveType(const TypeSpec &spec, unsigned paramIndex, bool isParam);
  bool checkTileShape(llvm::ArrayRef<int64_t> shape, SMLoc loc);

  //===--- Statements -----------------------------------------------------===//
  void checkBlock(Block &block);
  void checkStmt(Stmt &stmt);
  void checkLet(LetStmt &stmt);
  void checkAssign(AssignStmt &stmt);
  void checkCallStmt(CallStmt &stmt);
  void checkFor(ForStmt &stmt);
  void checkWhile(WhileStmt &stmt);
  void checkIf(IfStmt &stmt);
  /// Records that `symbol` is assigned inside the enclosing control
  /// statements it was declared outside of.
  void noteAssigned(Symbol *symbol);
  /// Whether a value of type `from` may be stored into `to`; reports why not
  /// at `loc`, naming `target`.
  bool checkConvertible(const Type &from, const Type &to, SMLoc loc,
                        const llvm::Twine &target);
  Type checkCondition(Expr &cond, StringRef what);

  //===--- Expressions ----------------------------------------------------===//
  Type check(Expr &expr);
  Type checkName(NameExpr &expr);
  Type checkUnary(UnaryExpr &expr);
  Type checkBinary(BinaryExpr &expr);
  Type checkCall(CallExpr &expr);
  Type checkSubscript(SubscriptExpr &expr);
  /// The type of `lhs op rhs` for already-checked operand types.
  /// `spelled` names the operation in messages (default: the operator).
  Type binaryType(BinaryOp op, const Type &lhs, const Type &rhs, SMLoc loc,
                  StringRef spelled = "");
  /// Operands that must be a scalar or a tile; reports otherwise.
  bool requireValue(const Type &type, SMLoc loc, StringRef what);
  bool requireScalarInt(const Type &type, SMLoc loc, StringRef what);
  /// A tensor index or slice start: an i32 scalar.
  bool requireIndex(const Type &type, SMLoc loc, StringRef what);

  std::optional<int64_t> evalConst(const Expr &expr);
  std::optional<LinearForm> linearize(const Expr &expr);
  /// A positive compile-time constant argument, or an error naming `what`.
  /// A compile-time constant of at least `least` (errors name `what`).
  std::optional<int64_t> requireConst(const Expr &expr, StringRef what,
                                      int64_t least = 1);

  CheckedKernel &result;
  Diagnostics &diags;
  std::vector<llvm::StringMap<Symbol *>> scopes;
  /// Enclosing control statements and the scope depth at which each began.
  std::vector<std::pair<ControlStmt *, size_t>> controls;
  std::map<const Symbol *, size_t> symbolDepth;
};

} // namespace

Symbol *Checker::declare(Symbol::Kind kind, StringRef name, SMLoc loc,
                         Type type) {
  if (Symbol *existing = lookup(name)) {
    diags.error(loc) << "'" << name << "' is already declared at "
                     << diags.lineCol(existing->loc);
    return nullptr;
  }
  auto symbol = std::make_unique<Symbol>();
  symbol->kind = kind;
  symbol->name = name.str();
  symbol->loc = loc;
  symbol->type = std::move(type);
  Symbol *raw = symbol.get();
  result.symbols.push_back(std::move(symbol));
  scopes.back()[name] = raw;
  symbolDepth[raw] = scopes.size();
  return raw;
}

Symbol *Checker::lookup(StringRef name) const {
  for (auto scope = scopes.rbegin(); scope != scopes.rend(); ++scope) {
    auto it = scope->find(name);
    if (it != scope->end())
      return it->second;
  }
  return nullptr;
}

bool Checker::checkTileShape(llvm::ArrayRef<int64_t> shape, SMLoc loc) {
  if (static_cast<int64_t>(shape.size()) > kMaxRank) {
    diags.error(loc) << "a tile has at most " << kMaxRank << " axes";
    return false;
  }
  int64_t count = 1;
  for (int64_t extent : shape) {
    count *= extent;
    if (count > kMaxTileElements) {
      diags.error(loc) << "tile " << shapeString(shape) << " has more than "
                       << kMaxTileElements << " elements";
      return false;
    }
  }
  return true;
}

Type Checker::resolveType(const TypeSpec &spec, unsigned paramIndex,
                          bool isParam) {
  if (spec.kind == TypeSpec::Kind::Scalar)
    return Type::scalar(spec.element);
  bool isTensor = spec.kind == TypeSpec::Kind::Tensor;
  if (isTensor && !isParam) {
    diags.error(spec.loc) << "tensors are kernel parameters; a local value "
                             "is a scalar or a tile";
    return Type::invalid();
  }
  if (!isTensor && isParam) {
    diags.error(spec.loc) << "a kernel parameter cannot be a tile; pass a "
                             "tensor and slice it";
    return Type::invalid();
  }
  if (static_cast<int64_t>(spec.dims.size()) > kMaxRank) {
    diags.error(spec.loc) << "at most " << kMaxRank << " extents are allowed";
    return Type::invalid();
  }
  llvm::SmallVector<int64_t, 4> shape;
  for (auto [axis, dim] : llvm::enumerate(spec.dims)) {
    if (!dim.isName()) {
      if (dim.value <= 0 || dim.value > kMaxConstant) {
        diags.error(dim.loc) << "extents must be between 1 and "
                             << kMaxConstant << ", got " << dim.value;
        return Type::invalid();
      }
      shape.push_back(dim.value);
      continue;
    }
    Symbol *symbol = lookup(dim.name);
    if (symbol && symbol->kind == Symbol::Kind::Constant) {
      shape.push_back(symbol->value);
      continue;
    }
    if (!isTensor) {
      diags.error(dim.loc) << "tile extent '" << dim.name
                           << "' must be an integer literal or an @autotune "
                              "name";
      return Type::invalid();
    }
    if (symbol && symbol->kind != Symbol::Kind::Dim) {
      diags.error(dim.loc) << "dimension '" << dim.name
                           << "' has the name of a parameter declared at "
                           << diags.lineCol(symbol->loc);
      return Type::invalid();
    }
    if (!symbol) {
      symbol = declare(Symbol::Kind::Dim, dim.name, dim.loc,
                       Type::scalar(ScalarKind::I32));
      symbol->paramIndex = paramIndex;
      symbol->dimAxis = axis;
    }
    shape.push_back(Type::kDynamic);
  }
  if (isTensor)
    return Type::tensor(spec.element, shape);
  if (!checkTileShape(shape, spec.loc))
    return Type::invalid();
  return Type::tile(spec.element, shape);
}

bool Checker::run() {
  Kernel &kernel = *result.kernel;
  pushScope();
  // @autotune names are the variant's constants.
  for (auto &[name, value] : result.variant) {
    const SearchDim *dim = result.attrs.findAutotune(name);
    Symbol *symbol = declare(Symbol::Kind::Constant, name, dim->loc,
                             Type::scalar(ScalarKind::I32));
    if (!symbol)
      return false;
    symbol->value = value;
  }
  // Parameter names first, so that a dim named like a parameter is caught
  // whichever comes first.
  llvm::StringMap<SMLoc> paramNames;
  for (const Param &param : kernel.params) {
    auto [it, inserted] = paramNames.try_emplace(param.name, param.loc);
    if (!inserted) {
      diags.error(param.loc) << "parameter '" << param.name
                             << "' is already declared at "
                             << diags.lineCol(it->second);
      return false;
    }
    if (lookup(param.name)) {
      diags.error(param.loc) << "parameter '" << param.name
                             << "' has the name of an @autotune dimension";
      return false;
    }
  }
  for (const Param &param : kernel.params)
    for (const DimSpec &dim : param.type.dims)
      if (dim.isName() && paramNames.count(dim.name) &&
          !lookup(dim.name)) {
        diags.error(dim.loc) << "dimension '" << dim.name
                             << "' has the name of a parameter declared at "
                             << diags.lineCol(paramNames.lookup(dim.name));
        return false;
      }
  // The bytes the kernel's parameters take in a launch (runtime.md §2):
  // each at its natural alignment, a tensor a pointer and an i32 per
  // dynamic extent.
  int64_t paramBytes = 0;
  auto place = [&](int64_t bytes) {
    paramBytes = (paramBytes + bytes - 1) / bytes * bytes + bytes;
  };
  for (auto [index, param] : llvm::enumerate(kernel.params)) {
    Type type = resolveType(param.type, index, /*isParam=*/true);
    if (type.isInvalid())
      return false;
    Symbol *symbol = declare(Symbol::Kind::Param, param.name, param.loc, type);
    if (!symbol)
      return false;
    symbol->paramIndex = index;
    result.params.push_back(symbol);
    if (type.isTensor()) {
      place(8);
      for (int64_t extent : type.shape)
        if (extent == Type::kDynamic)
          place(4);
    } else {
      place(std::max<int64_t>(1, bitWidth(type.element) / 8));
    }
    if (paramBytes > kMaxParamBytes) {
      diags.error(param.loc)
          << "the kernel's parameters take more than " << kMaxParamBytes
          << " bytes from parameter " << index + 1 << " ('" << param.name
          << "') on, more than one CUDA launch may pass; pass fewer "
             "parameters (gather scalars into a tensor)";
      return false;
    }
  }
  // @launch's and @pipeline's counts: the literal, or the expression of the
  // @autotune names resolved in this variant and checked by `valid`.
  auto resolveCount =
      [&](std::optional<int64_t> &count, std::optional<int64_t> literal,
          const Expr *expr, StringRef what,
          bool (*valid)(int64_t, SMLoc, Diagnostics &), int64_t least = 1) {
        count = literal;
        if (!expr)
          return true;
        count = requireConst(*const_cast<Expr *>(expr), what, least);
        return count && valid(*count, expr->getLoc(), diags);
      };
  if (!resolveCount(result.maxThreads, result.attrs.maxThreads,
                    result.attrs.maxThreadsExpr, "the @launch thread count",
                    checkMaxThreads) ||
      !resolveCount(result.pipelineStages, result.attrs.pipelineStages,
                    result.attrs.pipelineStagesExpr,
                    "the @pipeline stage count", checkStages) ||
      !resolveCount(result.warpSpecialize, result.attrs.warpSpecialize,
                    result.attrs.warpSpecializeExpr,
                    "the @warp_specialize flag", checkFlag, /*least=*/0) ||
      !resolveCount(result.persistent, result.attrs.persistent,
                    result.attrs.persistentExpr, "the @persistent flag",
                    checkPersistentFlag, /*least=*/0))
    return false;
  // @aligned multiples are compile-time constants of the variant.
  for (auto &[name, expr] : result.attrs.aligned) {
    std::optional<int64_t> multiple =
        requireConst(*const_cast<Expr *>(expr), "an @aligned multiple");
    if (!multiple)
      return false;
    // A dim fixed at compile time either keeps the promise or never can.
    int64_t extent = -1;
    for (Symbol *param : result.params)
      if (param->type.isTensor())
        for (auto [axis, dim] : llvm::enumerate(kernel.params[param->paramIndex].type.dims))
          if (dim.name == name && param->type.shape[axis] != Type::kDynamic)
            extent = param->type.shape[axis];
    if (extent > 0 && extent % *multiple != 0) {
      diags.error(expr->getLoc())
          << "@aligned promises that '" << name << "' is a multiple of "
          << *multiple << ", but it is " << extent;
      return false;
    }
    result.aligned.emplace_back(name, *multiple);
  }

  pushScope();
  checkBlock(kernel.body);
  popScope();
  popScope();
  return true;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Checker::checkBlock(Block &block) {
  pushScope();
  for (StmtPtr &stmt : block.stmts)
    checkStmt(*stmt);
  popScope();
}

void Checker::checkStmt(Stmt &stmt) {
  if (auto *let = dyn_cast<LetStmt>(&stmt))
    return checkLet(*let);
  if (auto *assign = dyn_cast<AssignStmt>(&stmt))
    return checkAssign(*assign);
  if (auto *call = dyn_cast<CallStmt>(&stmt))
    return checkCallStmt(*call);
  if (auto *loop = dyn_cast<ForStmt>(&stmt))
    return checkFor(*loop);
  if (auto *loop = dyn_cast<WhileStmt>(&stmt))
    return checkWhile(*loop);
  if (auto *branch = dyn_cast<IfStmt>(&stmt))
    return checkIf(*branch);
}

bool Checker::checkConvertible(const Type &from, const Type &to, SMLoc loc,
                               const llvm::Twine &target) {
  if (from.isInvalid() || to.isInvalid())
    return false;
  if (!from.isValue()) {
    diags.error(loc) << "a " << from.str() << " cannot be stored in " << target
                     << "; slice it first";
    return false;
  }
  if (to.isScalar() && from.isTile()) {
    diags.error(loc) << "cannot store a " << from.str() << " in " << target
                     << " of type " << to.str();
    return false;
  }
  if (to.isTile() && from.isTile()) {
    llvm::SmallVector<int64_t> shape;
    if (!phobos::tile::broadcastShapes(from.shape, to.shape, shape) ||
        llvm::ArrayRef<int64_t>(shape) != llvm::ArrayRef<int64_t>(to.shape)) {
      diags.error(loc) << "shape mismatch: cannot store a " << from.str()
                       << " in " << target << " of type " << to.str();
      return false;
    }
  }
  if (!isImplicitlyConvertible(from.element, to.element)) {
    diags.error(loc) << "cannot convert " << spelling(from.element) << " to "
                     << spelling(to.element) << " implicitly for " << target
                     << "; write " << spelling(to.element) << "(...)";
    return false;
  }
  return true;
}

void Checker::checkLet(LetStmt &stmt) {
  Type init = check(*stmt.init);
  Type type = init;
  if (stmt.declaredType) {
    type = resolveType(*stmt.declaredType, 0, /*isParam=*/false);
    if (!type.isInvalid() && !init.isInvalid() &&
        !checkConvertible(init, type, stmt.init->getLoc(),
                          "'" + stmt.name + "'"))
      type = Type::invalid();
  } else if (init.isTensor()) {
    diags.error(stmt.init->getLoc())
        << "a tensor cannot be bound to a name; slice it (T[...])";
    type = Type::invalid();
  }
  stmt.symbol = declare(Symbol::Kind::Local, stmt.name, stmt.nameLoc, type);
  if (stmt.symbol)
    stmt.symbol->isMutable = stmt.isVar;
}

void Checker::noteAssigned(Symbol *symbol) {
  size_t depth = symbolDepth[symbol];
  for (auto &[control, controlDepth] : controls)
    if (depth <= controlDepth && !llvm::is_contained(control->carried, symbol))
      control->carried.push_back(symbol);
}

static std::optional<BinaryOp> compoundOp(AssignOp op) {
  switch (op) {
  case AssignOp::Set: return std::nullopt;
  case AssignOp::Add: return BinaryOp::Add;
  case AssignOp::Sub: return BinaryOp::Sub;
  case AssignOp::Mul: return BinaryOp::Mul;
  case AssignOp::Div: return BinaryOp::Div;
  }
  return std::nullopt;
}

void Checker::checkAssign(AssignStmt &stmt) {
  Type value = check(*stmt.value);
  Type target;
  std::string targetName;
  if (auto *name = dyn_cast<NameExpr>(stmt.target.get())) {
    target = checkName(*name);
    name->type = target;
    targetName = "'" + name->name + "'";
    Symbol *symbol = name->symbol;
    if (!symbol)
      return;
    if (symbol->kind != Symbol::Kind::Local || !symbol->isMutable) {
      auto diag = diags.error(name->getLoc());
      switch (symbol->kind) {
      case Symbol::Kind::Local:
        diag << "cannot assign to '" << name->name << "', declared with 'let' at "
             << diags.lineCol(symbol->loc) << "; declare it with 'var'";
        break;
      case Symbol::Kind::Param:
        diag << "cannot assign to parameter '" << name->name << "'";
        if (symbol->type.isTensor())
          diag << "; store into a slice of it, " << name->name << "[...] = ...";
        break;
      case Symbol::Kind::LoopVar:
        diag << "cannot assign to loop variable '" << name->name << "'";
        break;
      case Symbol::Kind::Dim:
        diag << "cannot assign to dimension '" << name->name
             << "' (bound at launch from the tensors' shapes)";
        break;
      case Symbol::Kind::Constant:
        diag << "cannot assign to compile-time name '" << name->name << "'";
        break;
      }
      return;
    }
    noteAssigned(symbol);
  } else {
    auto *sub = cast<SubscriptExpr>(stmt.target.get());
    target = check(*sub);
    targetName = "the slice";
  }
  if (target.isInvalid() || value.isInvalid())
    return;
  if (std::optional<BinaryOp> op = compoundOp(stmt.op)) {
    value = binaryType(*op, target, value, stmt.getLoc());
    if (value.isInvalid())
      return;
  }
  checkConvertible(value, target, stmt.value->getLoc(), targetName);
}

void Checker::checkCallStmt(CallStmt &stmt) {
  auto &call = cast<CallExpr>(*stmt.call);
  call.builtin = lookupBuiltin(call.callee);
  if (call.builtin == Builtin::Unknown) {
    diags.error(call.getLoc()) << "unknown function '" << call.callee << "'";
    return;
  }
  if (call.builtin != Builtin::AtomicAdd) {
    diags.error(call.getLoc())
        << "the value of '" << call.callee << "' is not used; only a call "
        << "that changes a tensor (atomic_add) can stand alone";
    return;
  }
  if (call.args.size() != 2) {
    diags.error(call.getLoc()) << "'atomic_add' takes 2 arguments, got "
                               << call.args.size();
    return;
  }
  auto *slice = dyn_cast<SubscriptExpr>(call.args[0].get());
  Type target = check(*call.args[0]);
  Type value = check(*call.args[1]);
  if (target.isInvalid() || value.isInvalid())
    return;
  if (!slice || !target.isValue()) {
    diags.error(call.args[0]->getLoc())
        << "the first argument of 'atomic_add' must be a slice or an element "
        << "of a tensor (T[...]), got " << target.str();
    return;
  }
  switch (target.element) {
  case ScalarKind::F32: case ScalarKind::F64:
  case ScalarKind::I32: case ScalarKind::I64:
    break;
  default:
    diags.error(call.args[0]->getLoc())
        << "'atomic_add' adds to f32, f64, i32 or i64 tensors, not "
        << spelling(target.element);
    return;
  }
  if (!requireValue(value, call.args[1]->getLoc(), "an argument"))
    return;
  checkConvertible(value, target, call.args[1]->getLoc(), "the slice");
}

bool Checker::requireScalarInt(const Type &type, SMLoc loc, StringRef what) {
  if (type.isInvalid())
    return false;
  if (!type.isScalar() || !isInteger(type.element)) {
    diags.error(loc) << what << " must be an integer scalar, got "
                     << type.str();
    return false;
  }
  return true;
}

bool Checker::requireIndex(const Type &type, SMLoc loc, StringRef what) {
  if (!requireScalarInt(type, loc, what))
    return false;
  if (type.element != ScalarKind::I32) {
    diags.error(loc) << what << " must be i32 (the index width of a kernel), "
                     << "got " << type.str() << "; convert with i32(...)";
    return false;
  }
  return true;
}

void Checker::checkFor(ForStmt &stmt) {
  Type start = check(*stmt.start);
  Type end = check(*stmt.end);
  bool ok = requireScalarInt(start, stmt.start->getLoc(), "the range start");
  ok &= requireScalarInt(end, stmt.end->getLoc(), "the range end");
  ScalarKind kind = ScalarKind::I32;
  if (ok)
    kind = *promote(start.element, end.element);
  if (stmt.step) {
    Type step = check(*stmt.step);
    if (requireScalarInt(step, stmt.step->getLoc(), "the range step")) {
      std::optional<int64_t> value = evalConst(*stmt.step);
      if (!value || *value <= 0)
        diags.error(stmt.step->getLoc())
            << "the range step must be a positive compile-time constant "
               "(a literal or an @autotune name)";
      else
        stmt.stepValue = *value;
      kind = *promote(kind, step.element);
    }
  }
  stmt.carried.clear();
  controls.emplace_back(&stmt, scopes.size());
  pushScope();
  stmt.symbol = declare(Symbol::Kind::LoopVar, stmt.var, stmt.varLoc,
                        Type::scalar(kind));
  checkBlock(stmt.body);
  popScope();
  controls.pop_back();
}

Type Checker::checkCondition(Expr &cond, StringRef what) {
  Type type = check(cond);
  if (type.isInvalid())
    return type;
  if (!type.isScalar() || type.element != ScalarKind::Bool) {
    diags.error(cond.getLoc())
        << "the condition of '" << what << "' must be a scalar bool, got "
        << type.str() << (type.isTile() ? "; use where() on tiles" : "");
    return Type::invalid();
  }
  return type;
}

void Checker::checkWhile(WhileStmt &stmt) {
  stmt.carried.clear();
  controls.emplace_back(&stmt, scopes.size());
  checkCondition(*stmt.cond, "while");
  checkBlock(stmt.body);
  controls.pop_back();
}

void Checker::checkIf(IfStmt &stmt) {
  stmt.carried.clear();
  checkCondition(*stmt.cond, "if");
  controls.emplace_back(&stmt, scopes.size());
  checkBlock(stmt.thenBlock);
  if (stmt.elseBlock)
    checkBlock(*stmt.elseBlock);
  controls.pop_back();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

bool Checker::requireValue(const Type &type, SMLoc loc, StringRef what) {
  if (type.isInvalid())
    return false;
  if (type.isTensor()) {
    diags.error(loc) << what << " cannot be a whole tensor; slice it (T[...])";
    return false;
  }
  return true;
}

Type Checker::check(Expr &expr) {
  Type type;
  switch (expr.getKind()) {
  case Expr::Kind::Int: {
    int64_t value = cast<IntExpr>(expr).value;
    type = Type::scalar(value <= INT32_MAX ? ScalarKind::I32 : ScalarKind::I64);
    break;
  }
  case Expr::Kind::Float: {
    double value = cast<FloatExpr>(expr).value;
    if (std::fabs(value) > FLT_MAX) {
      diags.error(expr.getLoc()) << "float literal does not fit in f32";
      type = Type::invalid();
    } else {
      type = Type::scalar(ScalarKind::F32);
    }
    break;
  }
  case Expr::Kind::Bool:
    type = Type::scalar(ScalarKind::Bool);
    break;
  case Expr::Kind::Name:
    type = checkName(cast<NameExpr>(expr));
    break;
  case Expr::Kind::Unary:
    type = checkUnary(cast<UnaryExpr>(expr));
    break;
  case Expr::Kind::Binary:
    type = checkBinary(cast<BinaryExpr>(expr));
    break;
  case Expr::Kind::Call:
    type = checkCall(cast<CallExpr>(expr));
    break;
  case Expr::Kind::Subscript:
    type = checkSubscript(cast<SubscriptExpr>(expr));
    break;
  case Expr::Kind::Context:
    type = Type::scalar(ScalarKind::I32);
    break;
  }
  expr.type = type;
  return type;
}

Type Checker::checkName(NameExpr &expr) {
  expr.symbol = lookup(expr.name);
  if (!expr.symbol) {
    auto diag = diags.error(expr.getLoc());
    diag << "unknown name '" << expr.name << "'";
    if (expr.name == "ctx")
      diag << "; write ctx.block.x or ctx.grid.x";
    return Type::invalid();
  }
  return expr.symbol->type;
}

Type Checker::checkUnary(UnaryExpr &expr) {
  Type operand = check(*expr.operand);
  if (!requireValue(operand, expr.operand->getLoc(), "an operand"))
    return Type::invalid();
  if (expr.op == UnaryOp::Neg && operand.element == ScalarKind::Bool) {
    diags.error(expr.getLoc()) << "'-' needs a number, got " << operand.str();
    return Type::invalid();
  }
  if (expr.op == UnaryOp::Not && operand.element != ScalarKind::Bool) {
    diags.error(expr.getLoc()) << "'!' needs a bool, got " << operand.str();
    return Type::invalid();
  }
  return operand;
}

Type Checker::binaryType(BinaryOp op, const Type &lhs, const Type &rhs,
                         SMLoc loc, StringRef spelled) {
  std::optional<ScalarKind> element = promote(lhs.element, rhs.element);
  bool logical = op == BinaryOp::And || op == BinaryOp::Or;
  bool equality = op == BinaryOp::Eq || op == BinaryOp::Ne;
  bool comparison = equality || op == BinaryOp::Lt || op == BinaryOp::Le ||
                    op == BinaryOp::Gt || op == BinaryOp::Ge;
  if (!element) {
    diags.error(loc) << "'" << spelling(op) << "' cannot mix " << lhs.str()
                     << " and " << rhs.str();
    return Type::invalid();
  }
  if (logical && *element != ScalarKind::Bool) {
    diags.error(loc) << "'" << spelling(op) << "' needs bool operands, got "
                     << lhs.str() << " and " << rhs.str();
    return Type::invalid();
  }
  if (!logical && !equality && *element == ScalarKind::Bool) {
    diags.error(loc) << "'" << spelling(op) << "' needs numbers, got "
                     << lhs.str() << " and " << rhs.str();
    return Type::invalid();
  }
  if (op == BinaryOp::Rem && isFloat(*element)) {
    diags.error(loc) << "'%' needs integers, got " << lhs.str() << " and "
                     << rhs.str();
    return Type::invalid();
  }
  ScalarKind resultElement = comparison ? ScalarKind::Bool : *element;
  if (lhs.isScalar() && rhs.isScalar())
    return Type::scalar(resultElement);
  llvm::SmallVector<int64_t> shape;
  if (!phobos::tile::broadcastShapes(lhs.shape, rhs.shape, shape)) {
    if (!spelled.empty())
      diags.error(loc) << "shapes do not broadcast in '" << spelled
                       << "': " << lhs.str() << " and " << rhs.str();
    else
      diags.error(loc) << "shapes do not broadcast: " << lhs.str() << " "
                       << spelling(op) << " " << rhs.str();
    return Type::invalid();
  }
  return Type::tile(resultElement, shape);
}

Type Checker::checkBinary(BinaryExpr &expr) {
  Type lhs = check(*expr.lhs);
  Type rhs = check(*expr.rhs);
  bool ok = requireValue(lhs, expr.lhs->getLoc(), "an operand");
  ok &= requireValue(rhs, expr.rhs->getLoc(), "an operand");
  if (!ok)
    return Type::invalid();
  return binaryType(expr.op, lhs, rhs, expr.getLoc());
}

//===----------------------------------------------------------------------===//
// Built-in calls
//===----------------------------------------------------------------------===//

Type Checker::checkCall(CallExpr &expr) {
  StringRef callee = expr.callee;
  expr.builtin = lookupBuiltin(callee);
  if (expr.builtin == Builtin::Unknown) {
    diags.error(expr.getLoc()) << "unknown function '" << callee << "'";
    return Type::invalid();
  }
  Builtin builtin = expr.builtin;
  if (builtin == Builtin::AtomicAdd) {
    diags.error(expr.getLoc()) << "'atomic_add' is a statement: it adds to a "
                                  "tensor and has no value";
    return Type::invalid();
  }
  std::vector<Type> args;
  auto arity = [&](size_t count) {
    if (expr.args.size() == count)
      return true;
    diags.error(expr.getLoc()) << "'" << callee << "' takes " << count
                               << (count == 1 ? " argument" : " arguments")
                               << ", got " << expr.args.size();
    return false;
  };
  // Arguments that are compile-time shapes are not values.
  bool shapeArgs = builtin == Builtin::Arange ||
                   builtin == Builtin::Reshape || builtin == Builtin::ProgramId;
  if (!shapeArgs || builtin == Builtin::Reshape) {
    for (size_t i = 0; i < expr.args.size(); ++i) {
      if (builtin == Builtin::Reshape && i > 0)
        break;
      args.push_back(check(*expr.args[i]));
    }
    for (size_t i = 0; i < args.size(); ++i)
      if (!requireValue(args[i], expr.args[i]->getLoc(), "an argument"))
        return Type::invalid();
  }

  // Casts: `f16(x)`.
  if (builtin == Builtin::Cast) {
    if (!arity(1))
      return Type::invalid();
    expr.castTarget = *parseScalarKind(callee);
    return args[0].withElement(expr.castTarget);
  }
  auto requireFloat = [&](size_t i) {
    if (isFloat(args[i].element))
      return true;
    diags.error(expr.args[i]->getLoc())
        << "'" << callee << "' needs a float argument, got " << args[i].str()
        << "; convert with f32(...)";
    return false;
  };
  auto requireNumeric = [&](size_t i) {
    if (args[i].element != ScalarKind::Bool)
      return true;
    diags.error(expr.args[i]->getLoc())
        << "'" << callee << "' needs a number, got " << args[i].str();
    return false;
  };
  auto requireTile = [&](size_t i, int64_t rank) {
    if (args[i].isTile() && (rank < 0 || args[i].rank() == rank))
      return true;
    auto diag = diags.error(expr.args[i]->getLoc());
    diag << "'" << callee << "' needs a ";
    if (rank >= 0)
      diag << "rank-" << rank << " ";
    diag << "tile, got " << args[i].str();
    return false;
  };

  switch (builtin) {
  case Builtin::Unknown:
  case Builtin::Cast:
    break;
  case Builtin::Exp:
  case Builtin::Log:
  case Builtin::Sqrt:
  case Builtin::Rsqrt: {
    if (!arity(1) || !requireFloat(0))
      return Type::invalid();
    return args[0];
  }
  case Builtin::Abs: {
    if (!arity(1) || !requireNumeric(0))
      return Type::invalid();
    return args[0];
  }
  case Builtin::TMax:
  case Builtin::TMin: {
    if (!arity(2) || !requireNumeric(0) || !requireNumeric(1))
      return Type::invalid();
    return binaryType(BinaryOp::Add, args[0], args[1], expr.getLoc(), callee);
  }
  case Builtin::Where: {
    if (!arity(3))
      return Type::invalid();
    if (args[0].element != ScalarKind::Bool) {
      diags.error(expr.args[0]->getLoc())
          << "the condition of 'where' must be bool, got " << args[0].str();
      return Type::invalid();
    }
    std::optional<ScalarKind> element =
        promote(args[1].element, args[2].element);
    if (!element) {
      diags.error(expr.getLoc()) << "'where' cannot mix " << args[1].str()
                                 << " and " << args[2].str();
      return Type::invalid();
    }
    llvm::SmallVector<int64_t> shape, tmp;
    bool ok = phobos::tile::broadcastShapes(args[0].shape, args[1].shape, tmp) &&
              phobos::tile::broadcastShapes(tmp, args[2].shape, shape);
    if (!ok) {
      diags.error(expr.getLoc())
          << "shapes do not broadcast in 'where': " << args[0].str() << ", "
          << args[1].str() << ", " << args[2].str();
      return Type::invalid();
    }
    if (args[0].isScalar() && args[1].isScalar() && args[2].isScalar())
      return Type::scalar(*element);
    return Type::tile(*element, shape);
  }
  case Builtin::Dot:
  case Builtin::DotT: {
    if (!arity(2) || !requireTile(0, 2) || !requireTile(1, 2) ||
        !requireFloat(0) || !requireFloat(1))
      return Type::invalid();
    bool transposed = builtin == Builtin::DotT;
    int64_t k = args[0].shape[1];
    int64_t bk = transposed ? args[1].shape[1] : args[1].shape[0];
    if (k != bk) {
      diags.error(expr.getLoc())
          << "'" << callee << "' inner dimensions differ: " << args[0].str()
          << " x " << args[1].str()
          << (transposed ? " (contracting the last axes)" : "");
      return Type::invalid();
    }
    ScalarKind element = *promote(args[0].element, args[1].element);
    int64_t n = transposed ? args[1].shape[0] : args[1].shape[1];
    return Type::tile(element == ScalarKind::F64 ? ScalarKind::F64
                                                 : ScalarKind::F32,
                      {args[0].shape[0], n});
  }
  case Builtin::RowSum:
  case Builtin::RowMax:
  case Builtin::RowMin:
  case Builtin::ColSum:
  case Builtin::ColMax:
  case Builtin::ColMin: {
    if (!arity(1) || !requireTile(0, 2) || !requireNumeric(0))
      return Type::invalid();
    Type type = args[0];
    bool rows = builtin == Builtin::RowSum || builtin == Builtin::RowMax ||
                builtin == Builtin::RowMin;
    type.shape[rows ? 1 : 0] = 1;
    return type;
  }
  case Builtin::Cumsum: {
    if (!arity(1) || !requireTile(0, -1) || !requireNumeric(0))
      return Type::invalid();
    return args[0];
  }
  case Builtin::Tril: {
    if (!arity(1) || !requireTile(0, 2))
      return Type::invalid();
    return args[0];
  }
  case Builtin::Transpose: {
    if (!arity(1) || !requireTile(0, 2))
      return Type::invalid();
    return Type::tile(args[0].element, {args[0].shape[1], args[0].shape[0]});
  }
  case Builtin::Arange: {
    if (!arity(1))
      return Type::invalid();
    std::optional<int64_t> n = requireConst(*expr.args[0], "the arange length");
    if (!n || !checkTileShape({*n}, expr.getLoc()))
      return Type::invalid();
    return Type::tile(ScalarKind::I32, {*n});
  }
  case Builtin::Reshape: {
    if (expr.args.size() < 2) {
      diags.error(expr.getLoc()) << "'reshape' takes a tile and its new "
                                    "extents, reshape(t, d0, d1, ...)";
      return Type::invalid();
    }
    if (!requireTile(0, -1))
      return Type::invalid();
    llvm::SmallVector<int64_t> shape;
    for (size_t i = 1; i < expr.args.size(); ++i) {
      std::optional<int64_t> extent =
          requireConst(*expr.args[i], "a reshape extent");
      if (!extent)
        return Type::invalid();
      shape.push_back(*extent);
    }
    if (!checkTileShape(shape, expr.getLoc()))
      return Type::invalid();
    Type type = Type::tile(args[0].element, shape);
    if (type.numElements() != args[0].numElements()) {
      diags.error(expr.getLoc()) << "cannot reshape " << args[0].str()
                                 << " to " << shapeString(shape)
                                 << ": the element counts differ";
      return Type::invalid();
    }
    return type;
  }
  case Builtin::ProgramId: {
    if (!arity(1))
      return Type::invalid();
    auto *axis = dyn_cast<IntExpr>(expr.args[0].get());
    if (!axis || axis->value > 2) {
      diags.error(expr.args[0]->getLoc())
          << "program_id takes the axis 0, 1 or 2";
      return Type::invalid();
    }
    expr.args[0]->type = Type::scalar(ScalarKind::I32);
    return Type::scalar(ScalarKind::I32);
  }
  case Builtin::AtomicAdd:
    break; // rejected above
  }
  llvm_unreachable("every built-in is checked above");
}

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

Type Checker::checkSubscript(SubscriptExpr &expr) {
  auto *base = dyn_cast<NameExpr>(expr.base.get());
  Type baseType = base ? check(*base) : check(*expr.base);
  if (baseType.isInvalid())
    return Type::invalid();
  if (!baseType.isTensor()) {
    diags.error(expr.getLoc())
        << "only tensor parameters can be subscripted, got " << baseType.str();
    return Type::invalid();
  }
  if (static_cast<int64_t>(expr.subscripts.size()) != baseType.rank()) {
    diags.error(expr.getLoc())
        << "'" << (base ? base->name : "tensor") << "' has rank "
        << baseType.rank() << " but " << expr.subscripts.size()
        << (expr.subscripts.size() == 1 ? " subscript is" : " subscripts are")
        << " given";
    return Type::invalid();
  }
  llvm::SmallVector<int64_t, 4> shape;
  bool ok = true;
  for (auto [axis, sub] : llvm::enumerate(expr.subscripts)) {
    switch (sub.kind) {
    case Subscript::Kind::Point:
      ok &= requireIndex(check(*sub.start), sub.start->getLoc(), "an index");
      break;
    case Subscript::Kind::Full: {
      int64_t extent = baseType.shape[axis];
      if (extent == Type::kDynamic) {
        diags.error(sub.loc)
            << "':' takes the whole axis, but axis " << axis << " of '"
            << (base ? base->name : "tensor")
            << "' is only known at launch; slice it with 's :+ n' (a tile's "
               "extent must be a compile-time constant)";
        ok = false;
        break;
      }
      sub.extent = extent;
      shape.push_back(extent);
      break;
    }
    case Subscript::Kind::Sized: {
      ok &= requireIndex(check(*sub.start), sub.start->getLoc(),
                         "a slice start");
      check(*sub.end);
      std::optional<int64_t> extent =
          requireConst(*sub.end, "the slice length after ':+'");
      if (!extent) {
        ok = false;
        break;
      }
      sub.extent = *extent;
      shape.push_back(*extent);
      break;
    }
    case Subscript::Kind::Range: {
      ok &= requireIndex(check(*sub.start), sub.start->getLoc(),
                         "a slice start");
      ok &= requireIndex(check(*sub.end), sub.end->getLoc(), "a slice end");
      if (!ok)
        break;
      std::optional<LinearForm> start = linearize(*sub.start);
      std::optional<LinearForm> end = linearize(*sub.end);
      std::optional<int64_t> extent;
      if (start && end) {
        bool constant = true;
        for (auto &[term, coeff] : end->terms) {
          auto it = start->terms.find(term);
          int64_t other = it == start->terms.end() ? 0 : it->second;
          constant &= coeff == other;
        }
        for (auto &[term, coeff] : start->terms)
          constant &= end->terms.count(term) || coeff == 0;
        if (constant)
          extent = end->constant - start->constant;
      }
      if (!extent) {
        diags.error(sub.loc) << "the length of slice 's : e' must be a "
                                "compile-time constant (e - s); write "
                                "'s :+ n' with a constant n";
        ok = false;
        break;
      }
      if (*extent <= 0 || *extent > kMaxConstant) {
        diags.error(sub.loc) << "slice length must be positive, got "
                             << *extent;
        ok = false;
        break;
      }
      sub.extent = *extent;
      shape.push_back(*extent);
      break;
    }
    }
  }
  if (!ok)
    return Type::invalid();
  if (shape.empty())
    return Type::scalar(baseType.element);
  if (!checkTileShape(shape, expr.getLoc()))
    return Type::invalid();
  return Type::tile(baseType.element, shape);
}

//===----------------------------------------------------------------------===//
// Compile-time constants
//===----------------------------------------------------------------------===//

std::optional<int64_t> Checker::evalConst(const Expr &expr) {
  auto checked = [](__int128 value) -> std::optional<int64_t> {
    if (value > kMaxConstant || value < -int64_t(kMaxConstant))
      return std::nullopt;
    return static_cast<int64_t>(value);
  };
  switch (expr.getKind()) {
  case Expr::Kind::Int:
    return checked(cast<IntExpr>(expr).value);
  case Expr::Kind::Name: {
    Symbol *symbol = lookup(cast<NameExpr>(expr).name);
    if (symbol && symbol->kind == Symbol::Kind::Constant)
      return symbol->value;
    return std::nullopt;
  }
  case Expr::Kind::Unary: {
    auto &unary = cast<UnaryExpr>(expr);
    if (unary.op != UnaryOp::Neg)
      return std::nullopt;
    if (std::optional<int64_t> value = evalConst(*unary.operand))
      return -*value;
    return std::nullopt;
  }
  case Expr::Kind::Binary: {
    auto &binary = cast<BinaryExpr>(expr);
    std::optional<int64_t> lhs = evalConst(*binary.lhs);
    std::optional<int64_t> rhs = evalConst(*binary.rhs);
    if (!lhs || !rhs)
      return std::nullopt;
    switch (binary.op) {
    case BinaryOp::Add: return checked(__int128(*lhs) + *rhs);
    case BinaryOp::Sub: return checked(__int128(*lhs) - *rhs);
    case BinaryOp::Mul: return checked(__int128(*lhs) * *rhs);
    case BinaryOp::Div:
      if (*rhs == 0)
        return std::nullopt;
      return *lhs / *rhs;
    case BinaryOp::Rem:
      if (*rhs == 0)
        return std::nullopt;
      return *lhs % *rhs;
    default:
      return std::nullopt;
    }
  }
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> Checker::requireConst(const Expr &expr, StringRef what,
                                             int64_t least) {
  std::optional<int64_t> value = evalConst(expr);
  if (auto *literal = dyn_cast<IntExpr>(&expr); !value && literal) {
    diags.error(expr.getLoc())
        << what << " " << literal->value
        << " is larger than a compile-time constant may be ("
        << kMaxConstant << ")";
    return std::nullopt;
  }
  if (!value) {
    diags.error(expr.getLoc())
        << what << " must be a compile-time constant (literals and @autotune "
                   "names)";
    return std::nullopt;
  }
  if (*value < least) {
    diags.error(expr.getLoc())
        << what << " must be " << (least == 1 ? "positive" : "non-negative")
        << ", got " << *value;
    return std::nullopt;
  }
  return value;
}

std::optional<LinearForm> Checker::linearize(const Expr &expr) {
  if (std::optional<int64_t> value = evalConst(expr)) {
    LinearForm form;
    form.constant = *value;
    return form;
  }
  if (auto *name = dyn_cast<NameExpr>(&expr)) {
    LinearForm form;
    form.terms[name->name] = 1;
    return form;
  }
  if (auto *context = dyn_cast<ContextExpr>(&expr)) {
    LinearForm form;
    std::string key = context->field == ContextExpr::Field::Block ? "ctx.block."
                                                                  : "ctx.grid.";
    key += char('x' + context->axis);
    form.terms[key] = 1;
    return form;
  }
  if (auto *call = dyn_cast<CallExpr>(&expr)) {
    auto *axis = call->callee == "program_id" && call->args.size() == 1
                     ? dyn_cast<IntExpr>(call->args[0].get())
                     : nullptr;
    if (!axis || axis->value < 0 || axis->value > 2)
      return std::nullopt;
    LinearForm form;
    form.terms[std::string("ctx.block.") + char('x' + axis->value)] = 1;
    return form;
  }
  auto scale = [](LinearForm form, int64_t by) {
    for (auto &[term, coeff] : form.terms)
      coeff *= by;
    form.constant *= by;
    return form;
  };
  if (auto *unary = dyn_cast<UnaryExpr>(&expr)) {
    if (unary->op != UnaryOp::Neg)
      return std::nullopt;
    if (std::optional<LinearForm> inner = linearize(*unary->operand))
      return scale(*inner, -1);
    return std::nullopt;
  }
  auto *binary = dyn_cast<BinaryExpr>(&expr);
  if (!binary)
    return std::nullopt;
  if (binary->op == BinaryOp::Mul) {
    if (std::optional<int64_t> factor = evalConst(*binary->lhs))
      if (std::optional<LinearForm> form = linearize(*binary->rhs))
        return scale(*form, *factor);
    if (std::optional<int64_t> factor = evalConst(*binary->rhs))
      if (std::optional<LinearForm> form = linearize(*binary->lhs))
        return scale(*form, *factor);
    return std::nullopt;
  }
  if (binary->op != BinaryOp::Add && binary->op != BinaryOp::Sub)
    return std::nullopt;
  std::optional<LinearForm> lhs = linearize(*binary->lhs);
  std::optional<LinearForm> rhs = linearize(*binary->rhs);
  if (!lhs || !rhs)
    return std::nullopt;
  int64_t sign = binary->op == BinaryOp::Add ? 1 : -1;
  for (auto &[term, coeff] : rhs->terms)
    lhs->terms[term] += sign * coeff;
  lhs->constant += sign * rhs->constant;
  return lhs;
}

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

std::unique_ptr<CheckedKernel>
phobos::frontend::checkKernel(Kernel &kernel,
                              const llvm::StringMap<int64_t> &overrides,
                              Diagnostics &diags) {
  diags.setVariantContext("");
  std::optional<KernelAttributes> attrs = readAttributes(kernel, diags);
  if (!attrs)
    return nullptr;
  auto result = std::make_unique<CheckedKernel>();
  result->kernel = &kernel;
  result->attrs = std::move(*attrs);
  for (const SearchDim &dim : result->attrs.autotune) {
    int64_t value = dim.values.front();
    auto it = overrides.find(dim.name);
    if (it != overrides.end()) {
      if (!llvm::is_contained(dim.values, it->second)) {
        auto diag = diags.error(dim.loc);
        diag << "--variant " << dim.name << "=" << it->second
             << " is not in the search space of '" << dim.name << "' (";
        llvm::interleaveComma(dim.values, diag);
        diag << ")";
        return nullptr;
      }
      value = it->second;
    }
    result->variant.emplace_back(dim.name, value);
  }
  // Errors that only a non-default variant shows name that variant.
  std::string context;
  for (auto &[name, value] : result->variant)
    if (value != result->attrs.findAutotune(name)->values.front()) {
      context = "in variant ";
      llvm::raw_string_ostream os(context);
      llvm::interleave(
          result->variant, os,
          [&](const auto &binding) { os << binding.first << "=" << binding.second; },
          ",");
      break;
    }
  diags.setVariantContext(context);
  unsigned errorsBefore = diags.getErrorCount();
  Checker checker(*result, diags);
  if (!checker.run() || diags.getErrorCount() != errorsBefore)
    return nullptr;
  return result;
}

Builtin phobos::frontend::ast::lookupBuiltin(llvm::StringRef name) {
  if (parseScalarKind(name))
    return Builtin::Cast;
  return llvm::StringSwitch<Builtin>(name)
      .Case("exp", Builtin::Exp)
      .Case("atomic_add", Builtin::AtomicAdd)
      .Case("log", Builtin::Log)
      .Case("sqrt", Builtin::Sqrt)
      .Case("rsqrt", Builtin::Rsqrt)
      .Case("abs", Builtin::Abs)
      .Case("tmax", Builtin::TMax)
      .Case("tmin", Builtin::TMin)
      .Case("where", Builtin::Where)
      .Case("dot", Builtin::Dot)
      .Case("dot_t", Builtin::DotT)
      .Case("rowsum", Builtin::RowSum)
      .Case("rowmax", Builtin::RowMax)
      .Case("rowmin", Builtin::RowMin)
      .Case("colsum", Builtin::ColSum)
      .Case("colmax", Builtin::ColMax)
      .Case("colmin", Builtin::ColMin)
      .Case("cumsum", Builtin::Cumsum)
      .Case("tril", Builtin::Tril)
      .Case("transpose", Builtin::Transpose)
      .Case("arange", Builtin::Arange)
      .Case("reshape", Builtin::Reshape)
      .Case("program_id", Builtin::ProgramId)
      .Default(Builtin::Unknown);
}
