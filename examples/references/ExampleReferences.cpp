//===- ExampleReferences.cpp - Float64 references of the examples ---------===//
//
// Each reference reads its inputs by the parameter names of the example
// kernel it stands for and computes in float64, straight from the math in
// the example's header comment (examples/*.ph). Kept beside the examples,
// out of the production libraries: only the tools that check the examples
// (phobos-run --check, phobos-tune) and the unit tests link it.
//
//===----------------------------------------------------------------------===//

#include "ExampleReferences.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <map>

using namespace phobos;
using namespace phobos::reference;

namespace {

const HostTensor &tensor(const Problem &problem, llvm::StringRef name) {
  return *problem.tensors.lookup(name);
}

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

/// c = a + b
class Add : public Reference {
public:
  std::vector<Signature> signatures() const override {
    return {{{"a", {"N"}}, {"b", {"N"}}, {"c", {"N"}}}};
  }
  std::vector<std::string> tensorNames() const override { return {"a", "b", "c"}; }
  std::vector<std::string> outputNames() const override { return {"c"}; }
  double element(const Problem &p, llvm::StringRef, llvm::ArrayRef<int64_t> index) override {
    return tensor(p, "a").get(index[0]) + tensor(p, "b").get(index[0]);
  }
};

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

/// The examples' references by name, and the kernels that compute each.
class ExampleCatalog : public Catalog {
public:
  std::unique_ptr<Reference> make(llvm::StringRef name) const override {
    if (name == "saxpy") return std::make_unique<Saxpy>();
    if (name == "add") return std::make_unique<Add>();
    if (name == "gemm") return std::make_unique<Gemm>();
    if (name == "attention") return std::make_unique<Attention>();
    if (name == "gla") return std::make_unique<GatedLinearAttention>();
    if (name == "softmax") return std::make_unique<Softmax>();
    if (name == "layernorm") return std::make_unique<LayerNorm>();
    if (name == "outer_update") return std::make_unique<OuterUpdate>();
    return nullptr;
  }

  std::vector<std::string> names() const override {
    return {"saxpy",   "add",       "gemm",        "attention",
            "gla",     "softmax",   "layernorm",   "outer_update"};
  }

  llvm::StringRef defaultFor(llvm::StringRef kernel) const override {
    return llvm::StringSwitch<llvm::StringRef>(kernel)
        .Case("saxpy", "saxpy")
        .Case("add", "add")
        .Cases({"sgemm", "hgemm", "bgemm", "sgemm_tc", "matmul"}, "gemm")
        .Case("flash_attention", "attention")
        .Case("gla_chunk", "gla")
        .Case("softmax", "softmax")
        .Case("layernorm", "layernorm")
        .Case("outer_update", "outer_update")
        .Default("");
  }
};

} // namespace

const Catalog &phobos::examples::exampleReferences() {
  static const ExampleCatalog catalog;
  return catalog;
}
