//===- Plot.cpp - The autotuner's table as a PNG bar chart ----------------===//
//
// One horizontal bar per timed variant (fastest first, the best in green),
// its time and ratio to the best beside it, and every dropped variant with
// the reason, under a title naming the kernel, the device, the problem and
// the date. Drawn into an RGB raster with a built-in 5x8 font and written
// as a PNG of uncompressed (stored) deflate blocks, so that it needs no
// library and works on any machine the tools run on.
//
//===----------------------------------------------------------------------===//

#include "Phobos/Tune/Tuner.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace phobos;
using namespace phobos::tune;

namespace {

/// ASCII 0x20..0x7e, five columns each, bit 0 the top row; rows 0-6 hold
/// the letters, row 7 the descenders.
constexpr uint8_t kFont[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00}, {0x00, 0x00, 0x5f, 0x00, 0x00},
    {0x00, 0x07, 0x00, 0x07, 0x00}, {0x14, 0x7f, 0x14, 0x7f, 0x14},
    {0x24, 0x2a, 0x7f, 0x2a, 0x12}, {0x23, 0x13, 0x08, 0x64, 0x62},
    {0x36, 0x49, 0x55, 0x22, 0x50}, {0x00, 0x05, 0x03, 0x00, 0x00},
    {0x00, 0x1c, 0x22, 0x41, 0x00}, {0x00, 0x41, 0x22, 0x1c, 0x00},
    {0x14, 0x08, 0x3e, 0x08, 0x14}, {0x08, 0x08, 0x3e, 0x08, 0x08},
    {0x00, 0x80, 0x60, 0x60, 0x00}, {0x08, 0x08, 0x08, 0x08, 0x08},
    {0x00, 0x60, 0x60, 0x00, 0x00}, {0x20, 0x10, 0x08, 0x04, 0x02},
    {0x3e, 0x51, 0x49, 0x45, 0x3e}, {0x00, 0x42, 0x7f, 0x40, 0x00},
    {0x42, 0x61, 0x51, 0x49, 0x46}, {0x21, 0x41, 0x45, 0x4b, 0x31},
    {0x18, 0x14, 0x12, 0x7f, 0x10}, {0x27, 0x45, 0x45, 0x45, 0x39},
    {0x3c, 0x4a, 0x49, 0x49, 0x30}, {0x01, 0x71, 0x09, 0x05, 0x03},
    {0x36, 0x49, 0x49, 0x49, 0x36}, {0x06, 0x49, 0x49, 0x29, 0x1e},
    {0x00, 0x36, 0x36, 0x00, 0x00}, {0x00, 0x80, 0x6c, 0x6c, 0x00},
    {0x08, 0x14, 0x22, 0x41, 0x00}, {0x14, 0x14, 0x14, 0x14, 0x14},
    {0x00, 0x41, 0x22, 0x14, 0x08}, {0x02, 0x01, 0x51, 0x09, 0x06},
    {0x32, 0x49, 0x79, 0x41, 0x3e}, {0x7e, 0x11, 0x11, 0x11, 0x7e},
    {0x7f, 0x49, 0x49, 0x49, 0x36}, {0x3e, 0x41, 0x41, 0x41, 0x22},
    {0x7f, 0x41, 0x41, 0x22, 0x1c}, {0x7f, 0x49, 0x49, 0x49, 0x41},
    {0x7f, 0x09, 0x09, 0x09, 0x01}, {0x3e, 0x41, 0x49, 0x49, 0x7a},
    {0x7f, 0x08, 0x08, 0x08, 0x7f}, {0x00, 0x41, 0x7f, 0x41, 0x00},
    {0x20, 0x40, 0x41, 0x3f, 0x01}, {0x7f, 0x08, 0x14, 0x22, 0x41},
    {0x7f, 0x40, 0x40, 0x40, 0x40}, {0x7f, 0x02, 0x0c, 0x02, 0x7f},
    {0x7f, 0x04, 0x08, 0x10, 0x7f}, {0x3e, 0x41, 0x41, 0x41, 0x3e},
    {0x7f, 0x09, 0x09, 0x09, 0x06}, {0x3e, 0x41, 0x51, 0x21, 0x5e},
    {0x7f, 0x09, 0x19, 0x29, 0x46}, {0x46, 0x49, 0x49, 0x49, 0x31},
    {0x01, 0x01, 0x7f, 0x01, 0x01}, {0x3f, 0x40, 0x40, 0x40, 0x3f},
    {0x1f, 0x20, 0x40, 0x20, 0x1f}, {0x3f, 0x40, 0x38, 0x40, 0x3f},
    {0x63, 0x14, 0x08, 0x14, 0x63}, {0x07, 0x08, 0x70, 0x08, 0x07},
    {0x61, 0x51, 0x49, 0x45, 0x43}, {0x00, 0x7f, 0x41, 0x41, 0x00},
    {0x02, 0x04, 0x08, 0x10, 0x20}, {0x00, 0x41, 0x41, 0x7f, 0x00},
    {0x04, 0x02, 0x01, 0x02, 0x04}, {0x40, 0x40, 0x40, 0x40, 0x40},
    {0x00, 0x01, 0x02, 0x04, 0x00}, {0x20, 0x54, 0x54, 0x54, 0x78},
    {0x7f, 0x48, 0x44, 0x44, 0x38}, {0x38, 0x44, 0x44, 0x44, 0x20},
    {0x38, 0x44, 0x44, 0x48, 0x7f}, {0x38, 0x54, 0x54, 0x54, 0x18},
    {0x08, 0x7e, 0x09, 0x01, 0x02}, {0x18, 0xa4, 0xa4, 0xa4, 0x7c},
    {0x7f, 0x08, 0x04, 0x04, 0x78}, {0x00, 0x44, 0x7d, 0x40, 0x00},
    {0x80, 0x80, 0x04, 0x7d, 0x00}, {0x7f, 0x10, 0x28, 0x44, 0x00},
    {0x00, 0x41, 0x7f, 0x40, 0x00}, {0x7c, 0x04, 0x18, 0x04, 0x78},
    {0x7c, 0x08, 0x04, 0x04, 0x78}, {0x38, 0x44, 0x44, 0x44, 0x38},
    {0xfc, 0x24, 0x24, 0x24, 0x18}, {0x18, 0x24, 0x24, 0x24, 0xfc},
    {0x7c, 0x08, 0x04, 0x04, 0x08}, {0x48, 0x54, 0x54, 0x54, 0x20},
    {0x04, 0x3f, 0x44, 0x40, 0x20}, {0x3c, 0x40, 0x40, 0x20, 0x7c},
    {0x1c, 0x20, 0x40, 0x20, 0x1c}, {0x3c, 0x40, 0x30, 0x40, 0x3c},
    {0x44, 0x28, 0x10, 0x28, 0x44}, {0x1c, 0xa0, 0xa0, 0xa0, 0x7c},
    {0x44, 0x64, 0x54, 0x4c, 0x44}, {0x00, 0x08, 0x36, 0x41, 0x00},
    {0x00, 0x00, 0x7f, 0x00, 0x00}, {0x00, 0x41, 0x36, 0x08, 0x00},
    {0x08, 0x04, 0x08, 0x10, 0x08},
};

using Color = std::array<uint8_t, 3>;
constexpr Color kWhite = {255, 255, 255}, kBlack = {20, 20, 20},
                kGray = {120, 120, 120}, kBlue = {31, 119, 180},
                kGreen = {44, 160, 44}, kRed = {200, 40, 40},
                kLight = {225, 225, 225};

class Canvas {
public:
  Canvas(int width, int height)
      : width(width), height(height), pixels(size_t(width) * height, kWhite) {}

  void fill(int x0, int y0, int x1, int y1, Color color) {
    for (int y = std::max(0, y0); y < std::min(height, y1); ++y)
      for (int x = std::max(0, x0); x < std::min(width, x1); ++x)
        pixels[size_t(y) * width + x] = color;
  }
  /// Text with its top-left corner at (x, y), each font pixel `scale` wide.
  void text(int x, int y, llvm::StringRef line, Color color, int scale = 2) {
    for (char c : line) {
      unsigned code = static_cast<unsigned char>(c);
      if (code < 0x20 || code > 0x7e)
        code = '?';
      for (int column = 0; column < 5; ++column)
        for (int row = 0; row < 8; ++row)
          if (kFont[code - 0x20][column] >> row & 1)
            fill(x + column * scale, y + row * scale, x + (column + 1) * scale,
                 y + (row + 1) * scale, color);
      x += 6 * scale;
    }
  }
  static int textWidth(llvm::StringRef line, int scale = 2) {
    return static_cast<int>(line.size()) * 6 * scale;
  }

  /// The PNG: 8-bit RGB, filter 0 on every row, stored deflate blocks.
  std::string png() const {
    std::string raw;
    raw.reserve(size_t(height) * (1 + 3 * width));
    for (int y = 0; y < height; ++y) {
      raw.push_back(0);
      for (int x = 0; x < width; ++x)
        for (uint8_t channel : pixels[size_t(y) * width + x])
          raw.push_back(static_cast<char>(channel));
    }
    std::string zlib = {'\x78', '\x01'};
    uint32_t a = 1, b = 0;
    for (unsigned char byte : raw) {
      a = (a + byte) % 65521;
      b = (b + a) % 65521;
    }
    for (size_t at = 0; at < raw.size() || at == 0;) {
      size_t length = std::min<size_t>(65535, raw.size() - at);
      bool last = at + length >= raw.size();
      zlib.push_back(last ? 1 : 0);
      zlib.push_back(static_cast<char>(length & 0xff));
      zlib.push_back(static_cast<char>(length >> 8));
      zlib.push_back(static_cast<char>(~length & 0xff));
      zlib.push_back(static_cast<char>((~length >> 8) & 0xff));
      zlib.append(raw, at, length);
      at += length;
      if (last)
        break;
    }
    appendBigEndian(zlib, (b << 16) | a);
    std::string header;
    appendBigEndian(header, width);
    appendBigEndian(header, height);
    header += std::string("\x08\x02\x00\x00\x00", 5); // 8-bit RGB
    std::string file = "\x89PNG\r\n\x1a\n";
    chunk(file, "IHDR", header);
    chunk(file, "IDAT", zlib);
    chunk(file, "IEND", "");
    return file;
  }

private:
  static void appendBigEndian(std::string &out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
  static void chunk(std::string &file, llvm::StringRef type,
                    llvm::StringRef data) {
    appendBigEndian(file, static_cast<uint32_t>(data.size()));
    std::string body = (type + data).str();
    file += body;
    appendBigEndian(file, llvm::crc32(llvm::arrayRefFromStringRef(body)));
  }

  int width, height;
  std::vector<Color> pixels;
};

} // namespace

llvm::Error phobos::tune::writePlot(const Report &report, llvm::StringRef path) {
  std::vector<size_t> timed, dropped;
  for (auto [index, result] : llvm::enumerate(report.results))
    (result.timeMs >= 0 ? timed : dropped).push_back(index);
  llvm::sort(timed, [&](size_t a, size_t b) {
    return report.results[a].timeMs < report.results[b].timeMs;
  });
  double worst = 0;
  for (size_t index : timed)
    worst = std::max(worst, report.results[index].timeMs);
  double bestMs = report.best >= 0 ? report.results[report.best].timeMs : 0;

  int labelWidth = 0;
  for (const VariantResult &result : report.results)
    labelWidth = std::max(labelWidth, Canvas::textWidth(variantText(result.variant)));
  constexpr int kMargin = 16, kRow = 22, kBarWidth = 560, kValueWidth = 300;
  int barX = kMargin + labelWidth + 12;
  int width = std::max(barX + kBarWidth + kValueWidth, 900);
  std::string dimsText;
  for (auto &entry : report.dims)
    dimsText += (dimsText.empty() ? "" : " ") + entry.getKey().str() + "=" +
                std::to_string(entry.getValue());
  std::vector<std::string> title = {
      "phobos-tune " + report.kernel + " on " + report.device,
      (dimsText.empty() ? "" : dimsText + "   ") + report.date,
      "checked with " + report.checkedWith,
  };
  int top = kMargin + static_cast<int>(title.size()) * 20 + 26;
  int height = top + static_cast<int>(timed.size() + dropped.size()) * kRow +
               (dropped.empty() ? 0 : 10) + kMargin + 20;
  Canvas canvas(width, height);
  for (auto [line, text] : llvm::enumerate(title))
    canvas.text(kMargin, kMargin + static_cast<int>(line) * 20, text,
                line ? kGray : kBlack, 2);
  canvas.text(barX, top - 20,
              "time (ms), the median of CUDA-event timings; shorter is faster",
              kGray, 1);

  int y = top;
  for (size_t index : timed) {
    const VariantResult &result = report.results[index];
    bool isBest = static_cast<int>(index) == report.best;
    canvas.text(kMargin, y + 4, variantText(result.variant), kBlack);
    int length = worst > 0
                     ? std::max(1, static_cast<int>(std::lround(
                                       kBarWidth * result.timeMs / worst)))
                     : 1;
    canvas.fill(barX, y + 2, barX + kBarWidth, y + kRow - 2, kLight);
    canvas.fill(barX, y + 2, barX + length, y + kRow - 2,
                isBest ? kGreen : kBlue);
    std::string value = llvm::formatv("{0:f4} ms", result.timeMs).str();
    if (bestMs > 0)
      value += llvm::formatv("  {0:f2}x", result.timeMs / bestMs).str();
    canvas.text(barX + kBarWidth + 10, y + 4, value, isBest ? kGreen : kBlack);
    y += kRow;
  }
  if (!dropped.empty())
    y += 10;
  for (size_t index : dropped) {
    const VariantResult &result = report.results[index];
    canvas.text(kMargin, y + 4, variantText(result.variant), kGray);
    std::string reason =
        (result.status == VariantResult::Status::Pruned ? "pruned: "
         : result.status == VariantResult::Status::Wrong ? "wrong: "
         : result.status == VariantResult::Status::CompileError
             ? "compile error: "
             : "failed: ") +
        llvm::StringRef(result.reason).split('\n').first.str();
    int room = (width - barX - kMargin) / 12;
    if (static_cast<int>(reason.size()) > room)
      reason = reason.substr(0, std::max(0, room - 3)) + "...";
    canvas.text(barX, y + 4, reason,
                result.status == VariantResult::Status::Pruned ? kGray : kRed);
    y += kRow;
  }

  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write '%s': %s",
                                   path.str().c_str(), error.message().c_str());
  os << canvas.png();
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '%s'",
                                   path.str().c_str());
  return llvm::Error::success();
}
