//===- Saxpy.cpp - Float64 reference: saxpy -------------------------------===//
//
// The reference "saxpy", of the saxpy kernel (examples/saxpy_fp32.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// out = alpha * x + y
class Saxpy : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"x", {"N"}}, {"y", {"N"}}, {"out", {"N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"x", "y", "out"}; }
  std::vector<std::string> scalarNames() const override { return {"alpha"}; }
  std::vector<std::string> outputNames() const override { return {"out"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    return p.scalars.lookup("alpha") * tensor(p, "x").get(index[0]) +
           tensor(p, "y").get(index[0]);
  }
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeSaxpy() {
  return std::make_unique<Saxpy>();
}
