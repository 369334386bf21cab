//===- OuterUpdate.cpp - Float64 reference: outer_update ------------------===//
//
// The reference "outer_update", of the outer_update kernel
// (examples/outer_update.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

using namespace phobos;
using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// C[i, j] + alpha * x[i] * y[j] where j <= i, else C[i, j]
class OuterUpdate : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"x", {"M"}}, {"y", {"N"}}, {"C", {"M", "N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"x", "y", "C"}; }
  std::vector<std::string> scalarNames() const override { return {"alpha"}; }
  std::vector<std::string> outputNames() const override { return {"C"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &c = tensor(p, "C");
    int64_t n = c.getShape()[1], i = index[0], j = index[1];
    double old = c.get(i * n + j);
    if (j > i)
      return old;
    return old + p.scalars.lookup("alpha") * tensor(p, "x").get(i) *
                     tensor(p, "y").get(j);
  }
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeOuterUpdate() {
  return std::make_unique<OuterUpdate>();
}
