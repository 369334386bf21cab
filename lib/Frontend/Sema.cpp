//===- Sema.cpp - Semantic checks of a Phobos kernel ----------------------===//
//
// Name resolution, typing with the bound variant's static shapes, and the
// language's rules, each reported at the construct that breaks it. Errors
// are recovered from by giving the expression an invalid type, which
// silences the errors that would only repeat the first one. This file holds
// the checker's core (scopes, types, parameters, expressions, slices,
// compile-time constants) and the entry point; attributes, statements and
// built-in calls have files of their own (SemaChecker.h lists them).
//
//===----------------------------------------------------------------------===//

#include "SemaChecker.h"

#include "Phobos/Dialect/Tile/IR/TileTypes.h"

#include "llvm/ADT/STLExtras.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <map>

using namespace phobos::frontend;
using namespace phobos::frontend::ast;
using namespace phobos::frontend::sema;

/// The most elements one tile may hold (far above what fits on a GPU, low
/// enough that the interpreter can always allocate it) and the most axes:
/// the dialect's limits, which its verifier enforces on IR as well.
using phobos::tile::kMaxRank;
using phobos::tile::kMaxTileElements;
/// The most bytes of parameters one CUDA kernel launch may pass (CUDA 12.1
/// and later on Volta and later).
static constexpr int64_t kMaxParamBytes = 32764;

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
// The checker
//===----------------------------------------------------------------------===//

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
    // A multiple of 1 promises nothing (`@aligned(N = 1 + 7 * (TILE_M /
    // 192))` promises only in the variants that need it): not recorded.
    if (*multiple != 1)
      result.aligned.emplace_back(name, *multiple);
  }

  pushScope();
  checkBlock(kernel.body);
  popScope();
  popScope();
  return true;
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
