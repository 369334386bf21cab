//===- LayerNorm.cpp - Float64 reference: layernorm -----------------------===//
//
// The reference "layernorm", of the layernorm kernel
// (examples/layernorm.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

#include <cmath>
#include <map>

using namespace phobos;
using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// Y[i, :] = (X[i, :] - mean) / sqrt(var + eps) * W + B, with the mean and
/// the (population) variance of row i.
class LayerNorm : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"X", {"M", "N"}}, {"W", {"N"}}, {"B", {"N"}}, {"Y", {"M", "N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"X", "W", "B", "Y"}; }
  std::vector<std::string> scalarNames() const override { return {"eps"}; }
  std::vector<std::string> outputNames() const override { return {"Y"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &x = tensor(p, "X");
    int64_t n = x.getShape()[1], i = index[0], j = index[1];
    auto [it, fresh] = rows.try_emplace(i);
    if (fresh) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < n; ++c)
        mean += x.get(i * n + c);
      mean /= n;
      for (int64_t c = 0; c < n; ++c)
        var += (x.get(i * n + c) - mean) * (x.get(i * n + c) - mean);
      var /= n;
      it->second = {mean, 1.0 / std::sqrt(var + p.scalars.lookup("eps"))};
    }
    auto [mean, rstd] = it->second;
    return (x.get(i * n + j) - mean) * rstd * tensor(p, "W").get(j) +
           tensor(p, "B").get(j);
  }

private:
  std::map<int64_t, std::pair<double, double>> rows;
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeLayerNorm() {
  return std::make_unique<LayerNorm>();
}
