//===- HostTensor.cpp - Dense tensors in host memory ----------------------===//

#include "Phobos/Runtime/HostTensor.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace phobos;

HostTensor::HostTensor(ElementType element, llvm::ArrayRef<int64_t> shape)
    : element(element), shape(shape.begin(), shape.end()) {
  bytes.assign(static_cast<size_t>(numElements()) * byteWidth(element), 0);
}

int64_t HostTensor::numElements() const {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  return count;
}

double HostTensor::get(int64_t index) const {
  return isFloat(element) ? loadFloat(element, data(), index)
                          : static_cast<double>(loadInt(element, data(), index));
}

void HostTensor::set(int64_t index, double value) {
  if (isFloat(element))
    storeFloat(element, data(), index, value);
  else
    storeInt(element, data(), index, static_cast<int64_t>(value));
}

void HostTensor::fillRandom(std::mt19937_64 &rng) {
  int64_t count = numElements();
  if (isFloat(element)) {
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (int64_t i = 0; i < count; ++i)
      storeFloat(element, data(), i, uniform(rng));
    return;
  }
  int64_t low = element == ElementType::Bool ? 0 : -8;
  int64_t high = element == ElementType::Bool ? 1 : 8;
  std::uniform_int_distribution<int64_t> uniform(low, high);
  for (int64_t i = 0; i < count; ++i)
    storeInt(element, data(), i, uniform(rng));
}

void HostTensor::fillRandom(std::mt19937_64 &rng, double low, double high) {
  std::uniform_real_distribution<double> uniform(low, high);
  for (int64_t i = 0, count = numElements(); i < count; ++i)
    set(i, uniform(rng));
}

void HostTensor::fillIota() {
  for (int64_t i = 0, count = numElements(); i < count; ++i)
    set(i, static_cast<double>(i));
}

void HostTensor::fill(double value) {
  for (int64_t i = 0, count = numElements(); i < count; ++i)
    set(i, value);
}

void HostTensor::fill(const ElementValue &value) {
  for (int64_t i = 0, count = numElements(); i < count; ++i)
    if (isFloat(element))
      storeFloat(element, data(), i, value.f);
    else
      storeInt(element, data(), i, value.i);
}

llvm::Error HostTensor::fill(llvm::StringRef how, std::mt19937_64 &rng) {
  if (how == "iota") {
    fillIota();
  } else if (how.starts_with("uniform:")) {
    llvm::SmallVector<llvm::StringRef> parts;
    how.split(parts, ':');
    double low, high;
    if (parts.size() != 3 || parts[1].getAsDouble(low) ||
        parts[2].getAsDouble(high) || !(low < high) || !std::isfinite(low) ||
        !std::isfinite(high))
      return llvm::createStringError(
          "expected uniform:LO:HI with finite LO < HI");
    fillRandom(rng, low, high);
  } else if (how == "random" || how.empty()) {
    fillRandom(rng);
  } else {
    llvm::APFloat number(0.0);
    llvm::Expected<llvm::APFloat::opStatus> isNumber =
        number.convertFromString(how, llvm::APFloat::rmNearestTiesToEven);
    if (!isNumber) {
      llvm::consumeError(isNumber.takeError());
      return llvm::createStringError(
          "expected random, iota, uniform:LO:HI or a number, got '" + how +
          "'");
    }
    llvm::Expected<ElementValue> value = parseElementValue(element, how);
    if (!value)
      return value.takeError();
    fill(*value);
  }
  return llvm::Error::success();
}

void HostTensor::poison() {
  int64_t count = numElements();
  for (int64_t i = 0; i < count; ++i) {
    if (isFloat(element))
      storeFloat(element, data(), i, std::numeric_limits<double>::quiet_NaN());
    else if (element != ElementType::Bool)
      storeInt(element, data(), i, kIntPoison);
    else
      static_cast<uint8_t *>(data())[i] = 0xA5; // neither 0 nor 1
  }
}

bool HostTensor::isPoisoned(int64_t index) const {
  if (element == ElementType::Bool)
    return false;
  double value = get(index);
  return isFloat(element) ? std::isnan(value)
                          : value == static_cast<double>(kIntPoison);
}

llvm::Error HostTensor::writeNpy(llvm::StringRef path) const {
  const char *descr = "<f4";
  switch (element) {
  case ElementType::Bool: descr = "|b1"; break;
  case ElementType::I32: descr = "<i4"; break;
  case ElementType::I64: descr = "<i8"; break;
  case ElementType::F16: descr = "<f2"; break;
  case ElementType::BF16:
  case ElementType::F32: descr = "<f4"; break;
  case ElementType::F64: descr = "<f8"; break;
  }
  std::string header = "{'descr': '";
  header += descr;
  header += "', 'fortran_order': False, 'shape': (";
  for (int64_t extent : shape)
    header += std::to_string(extent) + ", ";
  header += "), }";
  // Magic (6) + version (2) + length (2) + header, padded to 64 with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write '%s'",
                                   path.str().c_str());
  os << "\x93NUMPY";
  os << char(1) << char(0);
  uint16_t length = static_cast<uint16_t>(header.size());
  os << char(length & 0xff) << char(length >> 8);
  os << header;
  if (element == ElementType::BF16) {
    for (int64_t i = 0, count = numElements(); i < count; ++i) {
      float value = static_cast<float>(get(i));
      os.write(reinterpret_cast<const char *>(&value), sizeof value);
    }
  } else {
    os.write(reinterpret_cast<const char *>(data()), bytes.size());
  }
  return llvm::Error::success();
}
