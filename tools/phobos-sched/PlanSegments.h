//===- PlanSegments.h - Plans as the pods get them --------------*- C++ -*-===//
//
// Private to phobos-sched. A plan comes from the planner as JSON
// (planToJSON); a pod gets its node's program as a segment of the wire
// protocol, with the job's tensors, scalars and leaves in its StartJob.
// These functions turn the one into the other, for the first plan and for
// the re-plan of a lost node's work, and find an output super-tile's place
// in a plan (for the journal of stored tiles).
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_TOOLS_PHOBOS_SCHED_PLANSEGMENTS_H
#define PHOBOS_TOOLS_PHOBOS_SCHED_PLANSEGMENTS_H

#include "ClusterRun.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace phobos::cluster::wire {
class Join;
class Segment;
class StartJob;
} // namespace phobos::cluster::wire

namespace phobos::storage {
struct JournalTile;
} // namespace phobos::storage

namespace phobos::cluster::runtime::sched {

/// A JSON integer; 0 when `value` is missing or not an integer.
int64_t integer(const llvm::json::Value *value);

/// A string member of `object`; "" when missing.
std::string text(const llvm::json::Object &object, llvm::StringRef key);

/// Tensors, leaves and scalars by name: the plan's order is the wire's.
struct PlanTables {
  std::map<std::string, uint32_t> tensors, leaves, scalars;

  explicit PlanTables(const llvm::json::Object &plan) {
    auto index = [](const llvm::json::Array *array,
                    std::map<std::string, uint32_t> &out) {
      if (!array)
        return;
      for (const llvm::json::Value &item : *array)
        if (const llvm::json::Object *object = item.getAsObject())
          out.emplace(text(*object, "name"), static_cast<uint32_t>(out.size()));
    };
    index(plan.getArray("tensors"), tensors);
    index(plan.getArray("leaves"), leaves);
    index(plan.getArray("scalars"), scalars);
  }
};

/// One node program of a plan as a segment numbered `id` (0: the node's
/// first; a re-plan's get the next numbers). `tables` are of the job's
/// first plan: a re-plan numbers tensors, leaves and scalars as it did.
wire::Segment toSegment(const llvm::json::Object &program,
                        const PlanTables &tables, uint32_t id);

/// Where the plan puts output super-tile `id`: its tensor, offsets and
/// shape (tile ids number each tensor's super-tiles row-major, from its
/// `first_tile`). False when no tensor of the plan has that tile.
bool planGeometry(const llvm::json::Object &plan, int64_t id,
                  storage::JournalTile &out);

/// The node programs of a plan, by node.
std::vector<const llvm::json::Object *>
nodePrograms(const llvm::json::Object &plan);

/// Adds the plan's tensors and scalars to the StartJob every node gets: a
/// tensor with where it is loaded from (`tensors`) and where its output
/// goes (`partials`, the partial output file by tensor name).
void addTensorsAndScalars(wire::StartJob &start,
                          const llvm::json::Object &plan,
                          const std::vector<StorageTensor> &tensors,
                          const std::map<std::string, std::string> &partials);

/// Adds the plan's leaves to a node's StartJob as the pod that joined with
/// `pod` runs them: tile-dialect MLIR for an interpreter pod, the PTX,
/// cubin and launch contract of its chip for a GPU pod.
void addLeaves(wire::StartJob &start, const llvm::json::Object &plan,
               const std::vector<LeafBuild> &builds, const wire::Join &pod);

} // namespace phobos::cluster::runtime::sched

#endif // PHOBOS_TOOLS_PHOBOS_SCHED_PLANSEGMENTS_H
