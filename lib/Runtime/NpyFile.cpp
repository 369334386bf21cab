//===- NpyFile.cpp - Reading NumPy .npy files into host tensors -----------===//

#include "Phobos/Runtime/NpyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace phobos;

static llvm::Error bad(const llvm::Twine &why) {
  return llvm::createStringError("not a .npy file Phobos reads: " + why.str());
}

/// The value of `'key':` in the header dictionary, up to the next top-level
/// ',' or '}' (a shape's tuple stays whole).
static std::optional<llvm::StringRef> field(llvm::StringRef header,
                                            llvm::StringRef key) {
  for (char quote : {'\'', '"'}) {
    std::string pattern = std::string(1, quote) + key.str() + quote;
    size_t at = header.find(pattern);
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef rest = header.drop_front(at + pattern.size()).ltrim();
    if (!rest.consume_front(":"))
      return std::nullopt;
    rest = rest.ltrim();
    int depth = 0;
    size_t end = 0;
    for (; end < rest.size(); ++end) {
      char c = rest[end];
      if (c == '(' || c == '[')
        ++depth;
      else if (c == ')' || c == ']')
        --depth;
      else if ((c == ',' || c == '}') && depth == 0)
        break;
    }
    return rest.take_front(end).trim();
  }
  return std::nullopt;
}

llvm::Expected<HostTensor> phobos::parseNpy(llvm::StringRef bytes) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return bad("the magic string is missing");
  unsigned major = static_cast<uint8_t>(bytes[6]);
  size_t headerLength, offset;
  if (major == 1) {
    headerLength = static_cast<uint8_t>(bytes[8]) |
                   (static_cast<uint8_t>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return bad("the header is cut short");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return bad("format version " + llvm::Twine(major));
  }
  if (bytes.size() < offset + headerLength)
    return bad("the header is cut short");
  llvm::StringRef header = bytes.substr(offset, headerLength);
  std::optional<llvm::StringRef> descr = field(header, "descr");
  std::optional<llvm::StringRef> fortran = field(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = field(header, "shape");
  if (!descr || !fortran || !shapeText)
    return bad("the header lacks descr, fortran_order or shape");
  if (*fortran != "False")
    return bad("the array is in Fortran order; save a C-ordered array");
  llvm::StringRef type = descr->trim("'\"");
  ElementType element;
  if (type == "<f2") element = ElementType::F16;
  else if (type == "<f4") element = ElementType::F32;
  else if (type == "<f8") element = ElementType::F64;
  else if (type == "<i4") element = ElementType::I32;
  else if (type == "<i8") element = ElementType::I64;
  else if (type == "|b1") element = ElementType::Bool;
  else
    return bad("element type '" + type + "' (Phobos reads f2, f4, f8, i4, i8 "
               "and b1, little-endian)");
  llvm::StringRef tuple = *shapeText;
  if (!tuple.consume_front("(") || !tuple.consume_back(")"))
    return bad("the shape is not a tuple");
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<llvm::StringRef, 4> parts;
  tuple.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t extent;
    if (part.getAsInteger(10, extent) || extent < 0)
      return bad("the shape holds '" + part + "'");
    shape.push_back(extent);
  }
  // The size the header claims is checked against the bytes that follow it
  // before anything is allocated: a header may claim 2^40 elements.
  llvm::StringRef data = bytes.drop_front(offset + headerLength);
  std::optional<int64_t> needed = int64_t(byteWidth(element));
  for (int64_t extent : shape)
    needed = needed ? llvm::checkedMul(*needed, extent) : std::nullopt;
  if (!needed)
    return bad("the shape's size does not fit in 64 bits");
  if (static_cast<uint64_t>(*needed) != data.size())
    return bad("the data is " + llvm::Twine(data.size()) + " bytes but the "
               "shape and type need " + llvm::Twine(*needed));
  HostTensor tensor(element, shape);
  if (!data.empty())
    std::memcpy(tensor.data(), data.data(), data.size());
  return tensor;
}

llvm::Expected<HostTensor> phobos::readNpy(llvm::StringRef path) {
  // A FIFO or a device would block or never end.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      status.type() != llvm::sys::fs::file_type::regular_file)
    return llvm::createStringError("cannot read '%s': not a regular file",
                                   path.str().c_str());
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read '%s': %s",
                                   path.str().c_str(),
                                   buffer.getError().message().c_str());
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer());
  if (!tensor)
    return llvm::createStringError("'" + path.str() + "': " +
                                   llvm::toString(tensor.takeError()));
  return tensor;
}
