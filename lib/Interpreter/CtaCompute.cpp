//===- CtaCompute.cpp - The interpreter's compute ops ---------------------===//
//
// Element-wise tile ops, dots, reductions, and the scalar arith and math
// ops, each rounded to its element type as the GPU rounds it.
//
//===----------------------------------------------------------------------===//

#include "Cta.h"

using namespace phobos;
using namespace phobos::interp;
using namespace phobos::interp::detail;

//===----------------------------------------------------------------------===//
// Element-wise tile operations
//===----------------------------------------------------------------------===//

/// NaN-propagating maximum and minimum, as arith.maximumf/minimumf.
static double fmaxProp(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
static double fminProp(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

static bool compareF(tile::CmpPredicate p, double a, double b) {
  switch (p) {
  case tile::CmpPredicate::eq: return a == b;
  case tile::CmpPredicate::ne: return a != b; // true for NaN
  case tile::CmpPredicate::lt: return a < b;
  case tile::CmpPredicate::le: return a <= b;
  case tile::CmpPredicate::gt: return a > b;
  case tile::CmpPredicate::ge: return a >= b;
  }
  return false;
}
static bool compareI(tile::CmpPredicate p, int64_t a, int64_t b) {
  switch (p) {
  case tile::CmpPredicate::eq: return a == b;
  case tile::CmpPredicate::ne: return a != b;
  case tile::CmpPredicate::lt: return a < b;
  case tile::CmpPredicate::le: return a <= b;
  case tile::CmpPredicate::gt: return a > b;
  case tile::CmpPredicate::ge: return a >= b;
  }
  return false;
}

bool Cta::execBinary(Operation *op) {
  auto resultType = llvm::cast<tile::TileType>(op->getResult(0).getType());
  ElementType element = elementOf(resultType);
  auto result = Tile::make(resultType.getShape(), element);
  int64_t size = result->size();

  if (auto select = llvm::dyn_cast<tile::SelectOp>(op)) {
    TilePtr cond = get(select.getCondition()).asTile();
    TilePtr a = get(select.getTrueValue()).asTile();
    TilePtr b = get(select.getFalseValue()).asTile();
    BroadcastWalk walk(result->shape, {cond.get(), a.get(), b.get()});
    for (int64_t k = 0; k < size; ++k, walk.next()) {
      bool take = cond->i[walk.offset(0)] != 0;
      if (result->isFloat())
        result->f[k] = take ? a->f[walk.offset(1)] : b->f[walk.offset(2)];
      else
        result->i[k] = take ? a->i[walk.offset(1)] : b->i[walk.offset(2)];
    }
    setTile(op->getResult(0), result);
    return true;
  }

  TilePtr lhs = get(op->getOperand(0)).asTile();
  TilePtr rhs = get(op->getOperand(1)).asTile();
  BroadcastWalk walk(result->shape, {lhs.get(), rhs.get()});

  if (auto cmp = llvm::dyn_cast<tile::CmpOp>(op)) {
    tile::CmpPredicate p = cmp.getPredicate();
    for (int64_t k = 0; k < size; ++k, walk.next())
      result->i[k] = lhs->isFloat()
                         ? compareF(p, lhs->f[walk.offset(0)], rhs->f[walk.offset(1)])
                         : compareI(p, lhs->i[walk.offset(0)], rhs->i[walk.offset(1)]);
    setTile(op->getResult(0), result);
    return true;
  }

  if (result->isFloat()) {
    auto apply = [&](auto fn) {
      for (int64_t k = 0; k < size; ++k, walk.next())
        result->f[k] = roundTo(element, fn(lhs->f[walk.offset(0)],
                                           rhs->f[walk.offset(1)]));
    };
    if (llvm::isa<tile::AddOp>(op)) apply([](double a, double b) { return a + b; });
    else if (llvm::isa<tile::SubOp>(op)) apply([](double a, double b) { return a - b; });
    else if (llvm::isa<tile::MulOp>(op)) apply([](double a, double b) { return a * b; });
    else if (llvm::isa<tile::DivOp>(op)) apply([](double a, double b) { return a / b; });
    else if (llvm::isa<tile::RemOp>(op)) apply([](double a, double b) { return std::fmod(a, b); });
    else if (llvm::isa<tile::MaxOp>(op)) apply(fmaxProp);
    else apply(fminProp);
    setTile(op->getResult(0), result);
    return true;
  }

  bool isDiv = llvm::isa<tile::DivOp>(op), isRem = llvm::isa<tile::RemOp>(op);
  for (int64_t k = 0; k < size; ++k, walk.next()) {
    int64_t a = lhs->i[walk.offset(0)], b = rhs->i[walk.offset(1)];
    int64_t value;
    if (isDiv || isRem) {
      if (b == 0)
        return fail(op, "integer division by zero");
      int64_t minimum = element == ElementType::I32 ? INT32_MIN : INT64_MIN;
      if (a == minimum && b == -1)
        return fail(op, "integer division overflows (minimum / -1)");
      value = isDiv ? a / b : a % b;
    } else if (llvm::isa<tile::AddOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) + uint64_t(b));
    } else if (llvm::isa<tile::SubOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) - uint64_t(b));
    } else if (llvm::isa<tile::MulOp>(op)) {
      value = static_cast<int64_t>(uint64_t(a) * uint64_t(b));
    } else if (llvm::isa<tile::MaxOp>(op)) {
      value = std::max(a, b);
    } else if (llvm::isa<tile::MinOp>(op)) {
      value = std::min(a, b);
    } else if (llvm::isa<tile::AndOp>(op)) {
      value = a && b;
    } else {
      value = a || b;
    }
    result->i[k] = wrapTo(element, value);
  }
  setTile(op->getResult(0), result);
  return true;
}

bool Cta::execUnary(Operation *op) {
  TilePtr source = get(op->getOperand(0)).tile;
  auto result = std::make_shared<Tile>(*source);
  ElementType element = result->element;
  if (result->isFloat()) {
    double (*fn)(double) = nullptr;
    if (llvm::isa<tile::NegOp>(op)) fn = [](double x) { return -x; };
    else if (llvm::isa<tile::AbsOp>(op)) fn = [](double x) { return std::fabs(x); };
    else if (llvm::isa<tile::LogOp>(op)) fn = [](double x) { return std::log(x); };
    else if (llvm::isa<tile::Log2Op>(op)) fn = [](double x) { return std::log2(x); };
    else if (llvm::isa<tile::SqrtOp>(op)) fn = [](double x) { return std::sqrt(x); };
    else if (llvm::isa<tile::RsqrtOp>(op)) fn = [](double x) { return 1.0 / std::sqrt(x); };
    else if (llvm::isa<tile::TanhOp>(op)) fn = [](double x) { return std::tanh(x); };
    // exp and exp2 flush as the GPU's ex2.approx.ftz does.
    auto expOf = llvm::isa<tile::Exp2Op>(op) ? flushedExp2 : flushedExp;
    for (double &x : result->f)
      x = roundTo(element, fn ? fn(x) : expOf(element, x));
  } else {
    for (int64_t &x : result->i) {
      if (llvm::isa<tile::NotOp>(op))
        x = !x;
      else if (llvm::isa<tile::NegOp>(op))
        x = wrapTo(element, static_cast<int64_t>(0 - uint64_t(x)));
      else
        x = wrapTo(element, x < 0 ? static_cast<int64_t>(0 - uint64_t(x)) : x);
    }
  }
  setTile(op->getResult(0), result);
  return true;
}

//===----------------------------------------------------------------------===//
// Dot and reductions
//===----------------------------------------------------------------------===//

bool Cta::execDot(tile::DotOp op) {
  TilePtr a = readShared(op, op.getA());
  if (!a)
    return false;
  TilePtr b = readShared(op, op.getB());
  if (!b)
    return false;
  bool transposed = op.getTransposeB();
  // transpose_a: a holds A as [k, m].
  bool aTransposed = op.getTransposeA();
  int64_t m = a->shape[aTransposed ? 1 : 0], k = a->shape[aTransposed ? 0 : 1];
  int64_t n = transposed ? b->shape[0] : b->shape[1];
  ElementType out = elementOf(op.getType());
  auto round = [&](double x) {
    switch (op.getPrecision()) {
    case tile::DotPrecision::tf32: return roundToTF32(x);
    case tile::DotPrecision::f16: return roundTo(ElementType::F16, x);
    case tile::DotPrecision::bf16: return roundTo(ElementType::BF16, x);
    case tile::DotPrecision::ieee: return x;
    }
    return x;
  };
  // Operands rounded once; a laid out [m, k], b [k, n].
  std::vector<double> av(m * k), bv(k * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p)
      av[i * k + p] = round(aTransposed ? a->f[p * m + i] : a->f[i * k + p]);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      bv[r * n + c] = round(transposed ? b->f[c * k + r] : b->f[r * n + c]);
  auto result = Tile::make({m, n}, out);
  if (op.getAcc())
    result->f = get(op.getAcc()).tile->f;
  // A chain of fused multiply-adds in the result type, as on the GPU.
  for (int64_t i = 0; i < m; ++i) {
    double *row = &result->f[i * n];
    for (int64_t p = 0; p < k; ++p) {
      double x = av[i * k + p];
      const double *brow = &bv[p * n];
      if (out == ElementType::F32)
        for (int64_t j = 0; j < n; ++j)
          row[j] = std::fmaf(static_cast<float>(x), static_cast<float>(brow[j]),
                             static_cast<float>(row[j]));
      else
        for (int64_t j = 0; j < n; ++j)
          row[j] = std::fma(x, brow[j], row[j]);
    }
  }
  setTile(op, result);
  return true;
}

bool Cta::execReduce(tile::ReduceOp op) {
  TilePtr source = get(op.getOperand()).tile;
  int64_t axis = op.getAxis();
  auto result = Tile::make(op.getType().getShape(), source->element);
  int64_t inner = 1;
  for (size_t k = axis + 1; k < source->shape.size(); ++k)
    inner *= source->shape[k];
  int64_t extent = source->shape[axis];
  int64_t outer = source->size() / (inner * extent);
  tile::ReduceKind kind = op.getKind();
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t b = 0; b < inner; ++b) {
      int64_t out = a * inner + b;
      if (source->isFloat()) {
        // Sums accumulate in double and round once.
        double acc = kind == tile::ReduceKind::sum ? 0.0
                     : kind == tile::ReduceKind::max
                         ? -std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < extent; ++k) {
          double x = source->f[(a * extent + k) * inner + b];
          acc = kind == tile::ReduceKind::sum   ? acc + x
                : kind == tile::ReduceKind::max ? fmaxProp(acc, x)
                                                : fminProp(acc, x);
        }
        result->f[out] = roundTo(source->element, acc);
      } else {
        int64_t acc = kind == tile::ReduceKind::sum ? 0
                      : kind == tile::ReduceKind::max ? INT64_MIN
                                                      : INT64_MAX;
        for (int64_t k = 0; k < extent; ++k) {
          int64_t x = source->i[(a * extent + k) * inner + b];
          acc = kind == tile::ReduceKind::sum
                    ? wrapTo(source->element,
                             static_cast<int64_t>(uint64_t(acc) + uint64_t(x)))
                : kind == tile::ReduceKind::max ? std::max(acc, x)
                                                : std::min(acc, x);
        }
        result->i[out] = acc;
      }
    }
  setTile(op, result);
  return true;
}

//===----------------------------------------------------------------------===//
// Scalar arith and math
//===----------------------------------------------------------------------===//

bool Cta::execArith(Operation *op) {
  auto resultElement = [&] { return elementOf(op->getResult(0).getType()); };
  auto setF = [&](double value) {
    set(op->getResult(0), RtValue::scalarF(resultElement(), value));
    return true;
  };
  auto setI = [&](int64_t value) {
    set(op->getResult(0), RtValue::scalarI(resultElement(), value));
    return true;
  };
  auto f = [&](unsigned k) { return get(op->getOperand(k)).asF(); };
  auto i = [&](unsigned k) { return get(op->getOperand(k)).i; };
  auto u = [&](unsigned k) { return uint64_t(get(op->getOperand(k)).i); };

  if (auto constant = llvm::dyn_cast<arith::ConstantOp>(op)) {
    mlir::Attribute value = constant.getValue();
    if (auto floatAttr = llvm::dyn_cast<mlir::FloatAttr>(value))
      return setF(floatAttr.getValueAsDouble());
    if (auto intAttr = llvm::dyn_cast<mlir::IntegerAttr>(value))
      return setI(intAttr.getType().isInteger(1) ? intAttr.getValue().getZExtValue()
                                                 : intAttr.getValue().getSExtValue());
    return fail(op, "the interpreter cannot hold this constant");
  }
  if (llvm::isa<arith::AddFOp>(op)) return setF(f(0) + f(1));
  if (llvm::isa<arith::SubFOp>(op)) return setF(f(0) - f(1));
  if (llvm::isa<arith::MulFOp>(op)) return setF(f(0) * f(1));
  if (llvm::isa<arith::DivFOp>(op)) return setF(f(0) / f(1));
  if (llvm::isa<arith::RemFOp>(op)) return setF(std::fmod(f(0), f(1)));
  if (llvm::isa<arith::NegFOp>(op)) return setF(-f(0));
  if (llvm::isa<arith::MaximumFOp>(op)) return setF(fmaxProp(f(0), f(1)));
  if (llvm::isa<arith::MinimumFOp>(op)) return setF(fminProp(f(0), f(1)));
  if (llvm::isa<arith::MaxNumFOp>(op)) return setF(std::fmax(f(0), f(1)));
  if (llvm::isa<arith::MinNumFOp>(op)) return setF(std::fmin(f(0), f(1)));
  if (llvm::isa<arith::AddIOp>(op)) return setI(int64_t(u(0) + u(1)));
  if (llvm::isa<arith::SubIOp>(op)) return setI(int64_t(u(0) - u(1)));
  if (llvm::isa<arith::MulIOp>(op)) return setI(int64_t(u(0) * u(1)));
  if (llvm::isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                arith::FloorDivSIOp>(op)) {
    if (i(1) == 0)
      return fail(op, "integer division by zero");
    ElementType element = resultElement();
    int64_t minimum = element == ElementType::I32 ? INT32_MIN : INT64_MIN;
    if (i(0) == minimum && i(1) == -1)
      return fail(op, "integer division overflows (minimum / -1)");
    int64_t q = i(0) / i(1), r = i(0) % i(1);
    if (llvm::isa<arith::DivSIOp>(op)) return setI(q);
    if (llvm::isa<arith::RemSIOp>(op)) return setI(r);
    bool inexact = r != 0;
    bool negative = (i(0) < 0) != (i(1) < 0);
    if (llvm::isa<arith::CeilDivSIOp>(op))
      return setI(q + (inexact && !negative));
    return setI(q - (inexact && negative));
  }
  if (llvm::isa<arith::MaxSIOp>(op)) return setI(std::max(i(0), i(1)));
  if (llvm::isa<arith::MinSIOp>(op)) return setI(std::min(i(0), i(1)));
  if (llvm::isa<arith::AndIOp>(op)) return setI(i(0) & i(1));
  if (llvm::isa<arith::OrIOp>(op)) return setI(i(0) | i(1));
  if (llvm::isa<arith::XOrIOp>(op)) return setI(i(0) ^ i(1));
  if (auto cmp = llvm::dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    int64_t a = i(0), b = i(1);
    uint64_t ua = u(0), ub = u(1);
    switch (cmp.getPredicate()) {
    case P::eq: return setI(a == b);
    case P::ne: return setI(a != b);
    case P::slt: return setI(a < b);
    case P::sle: return setI(a <= b);
    case P::sgt: return setI(a > b);
    case P::sge: return setI(a >= b);
    case P::ult: return setI(ua < ub);
    case P::ule: return setI(ua <= ub);
    case P::ugt: return setI(ua > ub);
    case P::uge: return setI(ua >= ub);
    }
  }
  if (auto cmp = llvm::dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    double a = f(0), b = f(1);
    bool unordered = std::isnan(a) || std::isnan(b);
    switch (cmp.getPredicate()) {
    case P::AlwaysFalse: return setI(0);
    case P::AlwaysTrue: return setI(1);
    case P::OEQ: return setI(!unordered && a == b);
    case P::OGT: return setI(!unordered && a > b);
    case P::OGE: return setI(!unordered && a >= b);
    case P::OLT: return setI(!unordered && a < b);
    case P::OLE: return setI(!unordered && a <= b);
    case P::ONE: return setI(!unordered && a != b);
    case P::ORD: return setI(!unordered);
    case P::UEQ: return setI(unordered || a == b);
    case P::UGT: return setI(unordered || a > b);
    case P::UGE: return setI(unordered || a >= b);
    case P::ULT: return setI(unordered || a < b);
    case P::ULE: return setI(unordered || a <= b);
    case P::UNE: return setI(unordered || a != b);
    case P::UNO: return setI(unordered);
    }
  }
  if (auto select = llvm::dyn_cast<arith::SelectOp>(op)) {
    set(op->getResult(0), get(op->getOperand(i(0) != 0 ? 1 : 2)));
    return true;
  }
  if (llvm::isa<arith::ExtFOp, arith::TruncFOp>(op)) return setF(f(0));
  if (llvm::isa<arith::SIToFPOp>(op)) {
    // One rounding from the exact integer.
    if (resultElement() == ElementType::F32)
      return setF(static_cast<float>(i(0)));
    return setF(double(i(0)));
  }
  if (llvm::isa<arith::UIToFPOp>(op)) {
    unsigned width = op->getOperand(0).getType().getIntOrFloatBitWidth();
    uint64_t value = width >= 64 ? u(0) : u(0) & ((uint64_t(1) << width) - 1);
    return setF(double(value));
  }
  if (llvm::isa<arith::FPToSIOp>(op)) return setI(floatToInt(resultElement(), f(0)));
  if (llvm::isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return setI(i(0));
  if (llvm::isa<arith::ExtUIOp>(op)) {
    unsigned width = op->getOperand(0).getType().getIntOrFloatBitWidth();
    return setI(width >= 64 ? i(0) : int64_t(u(0) & ((uint64_t(1) << width) - 1)));
  }
  if (llvm::isa<math::ExpOp>(op)) return setF(flushedExp(resultElement(), f(0)));
  if (llvm::isa<math::Exp2Op>(op)) return setF(flushedExp2(resultElement(), f(0)));
  if (llvm::isa<math::LogOp>(op)) return setF(std::log(f(0)));
  if (llvm::isa<math::Log2Op>(op)) return setF(std::log2(f(0)));
  if (llvm::isa<math::SqrtOp>(op)) return setF(std::sqrt(f(0)));
  if (llvm::isa<math::RsqrtOp>(op)) return setF(1.0 / std::sqrt(f(0)));
  if (llvm::isa<math::TanhOp>(op)) return setF(std::tanh(f(0)));
  if (llvm::isa<math::AbsFOp>(op)) return setF(std::fabs(f(0)));
  if (llvm::isa<math::AbsIOp>(op))
    return setI(i(0) < 0 ? int64_t(0 - u(0)) : i(0));
  if (llvm::isa<math::FmaOp>(op)) return setF(std::fma(f(0), f(1), f(2)));
  return fail(op, "the interpreter does not support '" +
                      op->getName().getStringRef() + "'");
}
