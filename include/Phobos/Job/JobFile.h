//===- JobFile.h - Cluster job files ----------------------------*- C++ -*-===//
//
// The job a cluster runs: the kernel source, a value for every dim, the
// tensors in storage and the scalars. One parser, shared by the scheduler
// and the runtime, that reports mistakes at file:line:col. No MLIR.
//
//   source = examples/cluster_matmul.ph
//   kernel = matmul                               (optional)
//   dim M = 8192
//   tensor A = read  f32 8192x8192 file:///tmp/a.tensor
//   tensor C = write f32 8192x8192 file:///tmp/c.tensor
//   scalar alpha = f32 1.0
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_JOB_JOBFILE_H
#define PHOBOS_JOB_JOBFILE_H

#include "Phobos/Support/Numerics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace phobos::job {

/// What the job does with a tensor in storage.
enum class Mode { Read, Write, Rmw };

llvm::StringRef spelling(Mode mode);

/// `dim NAME = VALUE`
struct Dim {
  std::string name;
  int64_t value = 0;
  llvm::SMLoc loc;
};

/// `tensor NAME = MODE TYPE SHAPE URI`
struct Tensor {
  std::string name;
  Mode mode = Mode::Read;
  ElementType element = ElementType::F32;
  std::vector<int64_t> shape;
  std::string uri;
  llvm::SMLoc loc, modeLoc, elementLoc, shapeLoc, uriLoc;
};

/// `scalar NAME = TYPE VALUE`
struct Scalar {
  std::string name;
  ElementType type = ElementType::F32;
  /// The value; integers and booleans are exact in a double up to 2^53.
  double value = 0;
  llvm::SMLoc loc, typeLoc, valueLoc;
};

struct Job {
  /// `source =` as written, and where.
  std::string source;
  llvm::SMLoc sourceLoc;
  /// `kernel =`, empty when absent.
  std::string kernel;
  llvm::SMLoc kernelLoc;
  std::vector<Dim> dims;
  std::vector<Tensor> tensors;
  std::vector<Scalar> scalars;

  const Dim *findDim(llvm::StringRef name) const;
  const Tensor *findTensor(llvm::StringRef name) const;
  const Scalar *findScalar(llvm::StringRef name) const;
};

/// Parses the main buffer of `sourceMgr`. Every mistake is printed to `os`
/// at its file:line:col with the line and a caret; returns nullopt after
/// one.
std::optional<Job> parseJob(llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);

/// Checks what the cluster runtime can store and move: `file://` URIs,
/// tensors of rank 1 or 2, f32 elements. Reports like parseJob.
bool checkStorage(const Job &job, llvm::SourceMgr &sourceMgr,
                  llvm::raw_ostream &os);

/// Prints an error at `loc` of the job, as parseJob does.
void reportError(llvm::SourceMgr &sourceMgr, llvm::SMLoc loc,
                 const llvm::Twine &message, llvm::raw_ostream &os);

/// The source file `job.source` names: as written when absolute or when it
/// exists relative to the current directory, else next to the job file
/// (`jobPath`). Empty when neither exists.
std::string resolveSource(const Job &job, llvm::StringRef jobPath);

} // namespace phobos::job

#endif // PHOBOS_JOB_JOBFILE_H
