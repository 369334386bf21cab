//===- Add.cpp - Float64 reference: add -----------------------------------===//
//
// The reference "add", of the add kernel (examples/vector_add.ph).
//
//===----------------------------------------------------------------------===//

#include "ExampleReferencesInternal.h"

using namespace phobos::examples;
using namespace phobos::reference;

namespace {

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

} // namespace

std::unique_ptr<Reference> phobos::examples::makeAdd() {
  return std::make_unique<Add>();
}
