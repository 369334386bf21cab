//===- Attention.cpp - Float64 reference: attention -----------------------===//
//
// The reference "attention", of the flash_attention kernels
// (examples/flash_attention_*.ph, cluster_flash_attention.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace phobos;
using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// O[..., i, :] = softmax(scale * Q[..., i, :] @ K[...]^T) @ V[...], for
/// rank-2 tensors or rank-3 ones with a leading batch*head axis.
class Attention : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"Q", {"Nq", "D"}}, {"K", {"Nk", "D"}}, {"V", {"Nk", "D"}}, {"O", {"Nq", "D"}}},
            {{"Q", {"BH", "Nq", "D"}}, {"K", {"BH", "Nk", "D"}},
             {"V", {"BH", "Nk", "D"}}, {"O", {"BH", "Nq", "D"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"Q", "K", "V", "O"}; }
  std::vector<std::string> scalarNames() const override { return {"scale"}; }
  std::vector<std::string> outputNames() const override { return {"O"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &q = tensor(p, "Q"), &k = tensor(p, "K"), &v = tensor(p, "V");
    bool batched = q.getShape().size() == 3;
    int64_t batch = batched ? index[0] : 0;
    int64_t i = index[index.size() - 2], d = index.back();
    int64_t nq = q.getShape()[batched], nk = k.getShape()[batched];
    int64_t dim = q.getShape().back();
    std::vector<double> &weights = rows[{batch, i}];
    if (weights.empty()) {
      // Softmax weights of query row i over all keys.
      weights.resize(nk);
      double scale = p.scalars.lookup("scale"), best = -INFINITY;
      for (int64_t j = 0; j < nk; ++j) {
        double s = 0;
        for (int64_t e = 0; e < dim; ++e)
          s += q.get((batch * nq + i) * dim + e) * k.get((batch * nk + j) * dim + e);
        weights[j] = scale * s;
        best = std::max(best, weights[j]);
      }
      double total = 0;
      for (double &w : weights)
        total += (w = std::exp(w - best));
      for (double &w : weights)
        w /= total;
    }
    double out = 0;
    for (int64_t j = 0; j < nk; ++j)
      out += weights[j] * v.get((batch * nk + j) * dim + d);
    return out;
  }

private:
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> rows;
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeAttention() {
  return std::make_unique<Attention>();
}
