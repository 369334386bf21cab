//===- ExampleReferences.cpp - The catalog of the examples' references ----===//
//
// Which references there are, by name, and which example kernels compute
// each. The references themselves are in files of their own, named after
// what they compute (Saxpy.cpp, Add.cpp, Gemm.cpp with gemm_gelu, Attention.cpp,
// GatedLinearAttention.cpp, Softmax.cpp, LayerNorm.cpp, OuterUpdate.cpp):
// each reads its inputs by the parameter names of the example kernel it
// stands for and computes in float64, straight from the math in the
// example's header comment (examples/*.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferences.h"
#include "ExampleReferencesInternal.h"

#include "llvm/ADT/StringSwitch.h"

using namespace phobos::examples;
using namespace phobos::reference;

namespace {

/// The examples' references by name, and the kernels that compute each.
class ExampleCatalog : public Catalog {
public:
  std::unique_ptr<Reference> make(llvm::StringRef name) const override {
    if (name == "saxpy") return makeSaxpy();
    if (name == "add") return makeAdd();
    if (name == "gemm") return makeGemm();
    if (name == "gemm_gelu") return makeGemmGelu();
    if (name == "attention") return makeAttention();
    if (name == "gla") return makeGatedLinearAttention();
    if (name == "softmax") return makeSoftmax();
    if (name == "layernorm") return makeLayerNorm();
    if (name == "outer_update") return makeOuterUpdate();
    return nullptr;
  }

  std::vector<std::string> names() const override {
    return {"saxpy", "add",     "gemm",      "gemm_gelu",   "attention",
            "gla",   "softmax", "layernorm", "outer_update"};
  }

  llvm::StringRef defaultFor(llvm::StringRef kernel) const override {
    return llvm::StringSwitch<llvm::StringRef>(kernel)
        .Case("saxpy", "saxpy")
        .Case("add", "add")
        .Cases({"sgemm", "hgemm", "bgemm", "sgemm_tc", "matmul"}, "gemm")
        .Case("hgemm_gelu", "gemm_gelu")
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
