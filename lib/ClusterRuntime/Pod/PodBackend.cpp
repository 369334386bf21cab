//===- PodBackend.cpp - Where a pod keeps tiles and runs leaves -----------===//

#include "Phobos/ClusterRuntime/PodBackend.h"

#include "absl/strings/str_cat.h"

#include <cstdint>
#include <cstring>

using namespace phobos::cluster::runtime;

TileBuffer::~TileBuffer() = default;
Staging::~Staging() = default;
Backend::~Backend() = default;

namespace {
class HeapStaging : public Staging {
public:
  explicit HeapStaging(int64_t bytes)
      : storage(new uint8_t[static_cast<size_t>(bytes)]) {}
  void *data() override { return storage.get(); }

private:
  std::unique_ptr<uint8_t[]> storage;
};
} // namespace

absl::StatusOr<std::unique_ptr<Staging>> Backend::staging(int64_t bytes) {
  return std::unique_ptr<Staging>(new HeapStaging(bytes));
}

absl::Status Backend::compute(unsigned leaf,
                              const std::vector<TileBuffer *> &tensors,
                              const std::vector<std::vector<int64_t>> &shapes,
                              const std::vector<LeafScalar> &scalars) {
  if (leaf >= numLeaves())
    return absl::InvalidArgumentError(
        absl::StrCat("no leaf #", leaf, " in this job"));
  return computeLeaf(leaf, tensors, shapes, scalars);
}

absl::Status Backend::zero(TileBuffer &buffer) {
  void *host = buffer.host();
  if (!host)
    return absl::UnimplementedError(
        absl::StrCat("the ", kind(), " backend cannot zero a device tile"));
  std::memset(host, 0, static_cast<size_t>(buffer.bytes()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> Backend::exportBuffer(TileBuffer &) {
  return absl::UnimplementedError(
      absl::StrCat("the ", kind(), " backend shares no device memory"));
}

absl::Status Backend::copyFromExported(const std::string &, int64_t,
                                       TileBuffer &) {
  return absl::UnimplementedError(
      absl::StrCat("the ", kind(), " backend shares no device memory"));
}

