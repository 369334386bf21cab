//===- ExampleReferencesInternal.h - What the references share --*- C++ -*-===//
//
// Private to examples/references: the factory of each reference, defined
// in the file named after what it computes (Gemm.cpp, Attention.cpp, ...)
// and called by the catalog (ExampleReferences.cpp), and the tensor lookup
// every reference reads its inputs with.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCESINTERNAL_H
#define PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCESINTERNAL_H

#include "Phobos/Reference/Reference.h"

#include <memory>

namespace phobos::examples {

/// The tensor parameter `name` of `problem`, which Reference::validate
/// checked is there.
inline const HostTensor &tensor(const reference::Problem &problem,
                                llvm::StringRef name) {
  return *problem.tensors.lookup(name);
}

/// A fresh reference each: the catalog's "saxpy", "add", "gemm",
/// "gemm_gelu", "attention", "gla", "softmax", "layernorm" and
/// "outer_update".
std::unique_ptr<reference::Reference> makeSaxpy();
std::unique_ptr<reference::Reference> makeAdd();
std::unique_ptr<reference::Reference> makeGemm();
std::unique_ptr<reference::Reference> makeGemmGelu();
std::unique_ptr<reference::Reference> makeAttention();
std::unique_ptr<reference::Reference> makeGatedLinearAttention();
std::unique_ptr<reference::Reference> makeSoftmax();
std::unique_ptr<reference::Reference> makeLayerNorm();
std::unique_ptr<reference::Reference> makeOuterUpdate();

} // namespace phobos::examples

#endif // PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCESINTERNAL_H
