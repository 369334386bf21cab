//===- ExampleReferences.h - Float64 references of the examples -*- C++ -*-===//
//
// The float64 references of the example kernels (examples/*.ph), for the
// tools that check them (phobos-run --check, phobos-tune) and the unit
// tests. A library of its own, which no production library links: what
// libphobos.so and the Python package check against is what their callers
// give (expected outputs), not a kernel of ours known by name.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCES_H
#define PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCES_H

#include "Phobos/Reference/Reference.h"

namespace phobos::examples {

/// saxpy, add, gemm, gemm_gelu, attention, gla, softmax, layernorm and
/// outer_update, each chosen by default for the example kernels that
/// compute it (sgemm, hgemm, bgemm, sgemm_tc and matmul compute gemm;
/// hgemm_gelu, gemm_gelu; flash_attention, attention; gla_chunk, gla; the
/// others their own name).
const reference::Catalog &exampleReferences();

} // namespace phobos::examples

#endif // PHOBOS_EXAMPLES_REFERENCES_EXAMPLEREFERENCES_H
