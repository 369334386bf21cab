//===- Types.cpp - Types of Phobos values in the front end ----------------===//

#include "Phobos/Frontend/Types.h"

#include "llvm/Support/raw_ostream.h"

using namespace phobos::frontend;

bool phobos::frontend::isInteger(ScalarKind kind) {
  return kind == ScalarKind::I32 || kind == ScalarKind::I64;
}

unsigned phobos::frontend::bitWidth(ScalarKind kind) {
  switch (kind) {
  case ScalarKind::Bool: return 1;
  case ScalarKind::F16:
  case ScalarKind::BF16: return 16;
  case ScalarKind::I32:
  case ScalarKind::F32: return 32;
  case ScalarKind::I64:
  case ScalarKind::F64: return 64;
  }
  return 0;
}


std::optional<ScalarKind> phobos::frontend::parseScalarKind(llvm::StringRef name) {
  if (name == "i1")
    return std::nullopt;
  return phobos::parseElementType(name);
}

std::optional<ScalarKind> phobos::frontend::promote(ScalarKind lhs,
                                                    ScalarKind rhs) {
  if (lhs == rhs)
    return lhs;
  if (lhs == ScalarKind::Bool || rhs == ScalarKind::Bool)
    return std::nullopt;
  if (isFloat(lhs) && isFloat(rhs)) {
    if (lhs == ScalarKind::F64 || rhs == ScalarKind::F64)
      return ScalarKind::F64;
    // f16 with bf16, or either with f32: neither half type holds the other.
    return ScalarKind::F32;
  }
  if (isFloat(lhs))
    return lhs;
  if (isFloat(rhs))
    return rhs;
  return ScalarKind::I64; // i32 with i64
}

bool phobos::frontend::isImplicitlyConvertible(ScalarKind from, ScalarKind to) {
  if (from == to)
    return true;
  if (from == ScalarKind::Bool || to == ScalarKind::Bool)
    return false;
  if (isFloat(from) && isInteger(to))
    return false;
  if (isInteger(from) && isInteger(to))
    return bitWidth(to) >= bitWidth(from); // no silent narrowing
  return true;
}

Type Type::scalar(ScalarKind element) {
  Type type;
  type.kind = Kind::Scalar;
  type.element = element;
  return type;
}

Type Type::tile(ScalarKind element, llvm::ArrayRef<int64_t> shape) {
  Type type;
  type.kind = Kind::Tile;
  type.element = element;
  type.shape.assign(shape.begin(), shape.end());
  return type;
}

Type Type::tensor(ScalarKind element, llvm::ArrayRef<int64_t> shape) {
  Type type = tile(element, shape);
  type.kind = Kind::Tensor;
  return type;
}

int64_t Type::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

Type Type::withElement(ScalarKind newElement) const {
  Type type = *this;
  type.element = newElement;
  return type;
}

std::string Type::str() const {
  switch (kind) {
  case Kind::Invalid:
    return "<invalid>";
  case Kind::Scalar:
    return spelling(element).str();
  case Kind::Tile:
  case Kind::Tensor: {
    std::string text = kind == Kind::Tile ? "tile<" : "tensor<";
    text += spelling(element).str();
    text += ">";
    llvm::raw_string_ostream os(text);
    os << "[";
    for (size_t i = 0; i < shape.size(); ++i) {
      if (i)
        os << ", ";
      if (shape[i] == kDynamic)
        os << "?";
      else
        os << shape[i];
    }
    os << "]";
    return text;
  }
  }
  return "?";
}

std::string phobos::frontend::shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}
