//===- GatedLinearAttention.cpp - Float64 reference: gla ------------------===//
//
// The reference "gla", of the gla_chunk kernel (examples/kda_chunk.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

#include <cmath>
#include <map>

using namespace phobos;
using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// Gated linear attention with per-channel log-gates G (the gating of Kimi
/// Delta Attention without the delta rule), per batch*head b:
///   S_t = diag(exp(G[t])) S_{t-1} + K[t]^T V[t],   O[t] = Q[t] S_t
/// i.e. O[t, e] = sum_{s <= t} sum_d Q[t,d] exp(C[t,d] - C[s,d]) K[s,d] V[s,e]
/// with C the inclusive cumulative sum of G over time.
class GatedLinearAttention : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"Q", {"BH", "T", "DK"}}, {"K", {"BH", "T", "DK"}}, {"V", {"BH", "T", "DV"}},
             {"G", {"BH", "T", "DK"}}, {"O", {"BH", "T", "DV"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"Q", "K", "V", "G", "O"}; }
  std::vector<std::string> outputNames() const override { return {"O"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &q = tensor(p, "Q"), &k = tensor(p, "K"), &v = tensor(p, "V"),
                     &g = tensor(p, "G");
    int64_t b = index[0], t = index[1], e = index[2];
    int64_t steps = q.getShape()[1], dk = q.getShape()[2], dv = v.getShape()[2];
    std::vector<double> &cum = cumulative[b];
    if (cum.empty()) {
      cum.assign(steps * dk, 0);
      for (int64_t s = 0; s < steps; ++s)
        for (int64_t d = 0; d < dk; ++d)
          cum[s * dk + d] = (s ? cum[(s - 1) * dk + d] : 0) +
                            g.get((b * steps + s) * dk + d);
    }
    std::vector<double> &w = weights[{b, t}];
    if (w.empty()) {
      w.assign(t + 1, 0);
      for (int64_t s = 0; s <= t; ++s)
        for (int64_t d = 0; d < dk; ++d)
          w[s] += q.get((b * steps + t) * dk + d) *
                  std::exp(cum[t * dk + d] - cum[s * dk + d]) *
                  k.get((b * steps + s) * dk + d);
    }
    double out = 0;
    for (int64_t s = 0; s <= t; ++s)
      out += w[s] * v.get((b * steps + s) * dv + e);
    return out;
  }

private:
  std::map<int64_t, std::vector<double>> cumulative;
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> weights;
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeGatedLinearAttention() {
  return std::make_unique<GatedLinearAttention>();
}
