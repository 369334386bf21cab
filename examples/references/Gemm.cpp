//===- Gemm.cpp - Float64 reference: gemm ---------------------------------===//
//
// The reference "gemm", of sgemm, hgemm, bgemm, sgemm_tc and matmul
// (examples/sgemm_fp32.ph, gemm_*_tc.ph, cluster_matmul.ph), and
// "gemm_gelu", of hgemm_gelu (examples/gemm_gelu_f16.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

#include <cmath>

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

/// C = gelu_tanh(alpha * A @ B + bias) + R
class GemmGelu : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"A", {"M", "K"}},
             {"B", {"K", "N"}},
             {"bias", {"N"}},
             {"R", {"M", "N"}},
             {"C", {"M", "N"}}}};
  }
  std::vector<std::string> tensorNames() const override {
    return {"A", "B", "bias", "R", "C"};
  }
  std::vector<std::string> scalarNames() const override { return {"alpha"}; }
  std::vector<std::string> outputNames() const override { return {"C"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &a = tensor(p, "A"), &b = tensor(p, "B");
    int64_t k = a.getShape()[1], n = b.getShape()[1];
    int64_t i = index[0], j = index[1];
    double sum = 0;
    for (int64_t r = 0; r < k; ++r)
      sum += a.get(i * k + r) * b.get(r * n + j);
    double x = p.scalars.lookup("alpha") * sum + tensor(p, "bias").get(j);
    // PyTorch's gelu(approximate="tanh").
    double gelu = 0.5 * x *
                  (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    return gelu + tensor(p, "R").get(i * n + j);
  }
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeGemm() {
  return std::make_unique<Gemm>();
}

std::unique_ptr<Reference> phobos::examples::makeGemmGelu() {
  return std::make_unique<GemmGelu>();
}
