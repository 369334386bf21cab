//===- Softmax.cpp - Float64 reference: softmax ---------------------------===//
//
// The reference "softmax", of the softmax kernel (examples/softmax.ph).
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

/// Y[i, :] = softmax(X[i, :])
class Softmax : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"X", {"M", "N"}}, {"Y", {"M", "N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"X", "Y"}; }
  std::vector<std::string> outputNames() const override { return {"Y"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    const HostTensor &x = tensor(p, "X");
    int64_t n = x.getShape()[1], i = index[0];
    auto [it, fresh] = rows.try_emplace(i);
    if (fresh) {
      double best = -INFINITY, total = 0;
      for (int64_t j = 0; j < n; ++j)
        best = std::max(best, x.get(i * n + j));
      for (int64_t j = 0; j < n; ++j)
        total += std::exp(x.get(i * n + j) - best);
      it->second = {best, total};
    }
    return std::exp(x.get(i * n + index[1]) - it->second.first) / it->second.second;
  }

private:
  std::map<int64_t, std::pair<double, double>> rows;
};

} // namespace

std::unique_ptr<Reference> phobos::examples::makeSoftmax() {
  return std::make_unique<Softmax>();
}
