//===- Gemm.cpp - Float64 reference: gemm ---------------------------------===//
//
// The reference "gemm", of sgemm, hgemm, bgemm, sgemm_tc and matmul
// (examples/sgemm_fp32.ph, gemm_*_tc.ph, cluster_matmul.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

using namespace phobos;
using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// C = alpha * A @ B + beta * C
class Gemm : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"A", {"M", "K"}}, {"B", {"K", "N"}}, {"C", {"M", "N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"A", "B", "C"}; }
  std::vector<std::string> scalarNames() const override { return {"alpha", "beta"}; }
  std::vector<std::string> outputNames() const override { return {"C"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &a = tensor(p, "A"), &b = tensor(p, "B"), &c = tensor(p, "C");
    int64_t k = a.getShape()[1], n = b.getShape()[1];
    int64_t i = index[0], j = index[1];
    double sum = 0;
    for (int64_t r = 0; r < k; ++r)
      sum += a.get(i * k + r) * b.get(r * n + j);
    double beta = p.scalars.lookup("beta");
    double old = beta == 0 ? 0 : beta * c.get(i * n + j);
    return p.scalars.lookup("alpha") * sum + old;
  }
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeGemm() {
  return std::make_unique<Gemm>();
}
