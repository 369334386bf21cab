//===- PlanSegments.cpp - Plans as the pods get them ----------------------===//
//
// See PlanSegments.h.
//
//===----------------------------------------------------------------------===//

#include "PlanSegments.h"

#include "Phobos/ClusterRuntime/OutputJournal.h"
#include "phobos_cluster.pb.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <optional>
#include <set>

using namespace phobos;
using namespace phobos::cluster::runtime;
using namespace phobos::cluster::runtime::sched;
namespace wire = phobos::cluster::wire;
namespace json = llvm::json;

namespace {

/// `C[0,1]`, or `K` for a tensor read whole.
std::string tileLabel(const json::Object &tile) {
  std::string label = text(tile, "tensor");
  const json::Array *coords = tile.getArray("coords");
  if (!coords || coords->empty())
    return label;
  std::vector<int64_t> values;
  for (const json::Value &coord : *coords)
    values.push_back(integer(&coord));
  return absl::StrCat(label, "[", absl::StrJoin(values, ","), "]");
}

} // namespace

int64_t sched::integer(const json::Value *value) {
  if (!value)
    return 0;
  if (std::optional<int64_t> i = value->getAsInteger())
    return *i;
  return 0;
}

std::string sched::text(const json::Object &object, llvm::StringRef key) {
  if (std::optional<llvm::StringRef> value = object.getString(key))
    return value->str();
  return "";
}

wire::Segment sched::toSegment(const json::Object &program,
                               const PlanTables &tables, uint32_t id) {
  wire::Segment segment;
  segment.set_id(id);
  segment.set_peak_bytes(integer(program.get("peak_bytes")));
  std::set<uint32_t> tiles;
  auto addTile = [&](const json::Object &tile) {
    uint32_t tileId = static_cast<uint32_t>(integer(tile.get("id")));
    if (!tiles.insert(tileId).second)
      return tileId;
    wire::TileSpec *spec = segment.add_tiles();
    spec->set_id(tileId);
    auto tensor = tables.tensors.find(text(tile, "tensor"));
    spec->set_tensor(tensor == tables.tensors.end() ? 0 : tensor->second);
    if (const json::Array *offsets = tile.getArray("offsets"))
      for (const json::Value &offset : *offsets)
        spec->add_offsets(integer(&offset));
    if (const json::Array *shape = tile.getArray("shape"))
      for (const json::Value &extent : *shape)
        spec->add_shape(integer(&extent));
    spec->set_bytes(integer(tile.get("bytes")));
    spec->set_label(tileLabel(tile));
    return tileId;
  };
  const json::Array *instructions = program.getArray("instructions");
  if (!instructions)
    return segment;
  for (const json::Value &item : *instructions) {
    const json::Object *object = item.getAsObject();
    if (!object)
      continue;
    wire::Instruction *instruction = segment.add_instructions();
    instruction->set_id(static_cast<uint64_t>(integer(object->get("id"))));
    if (const json::Array *deps = object->getArray("deps"))
      for (const json::Value &dep : *deps)
        instruction->add_deps(static_cast<uint64_t>(integer(&dep)));
    std::string kind = text(*object, "kind");
    static const std::map<std::string, wire::Instruction::Kind> kinds = {
        {"allocate", wire::Instruction::ALLOCATE},
        {"load", wire::Instruction::LOAD},
        {"fetch", wire::Instruction::FETCH},
        {"compute", wire::Instruction::COMPUTE},
        {"store", wire::Instruction::STORE},
        {"free", wire::Instruction::FREE}};
    instruction->set_kind(kinds.at(kind));
    if (kind == "compute") {
      auto leaf = tables.leaves.find(text(*object, "leaf"));
      instruction->set_leaf(leaf == tables.leaves.end() ? 0 : leaf->second);
      if (const json::Array *list = object->getArray("tiles"))
        for (const json::Value &tile : *list)
          if (const json::Object *tileObject = tile.getAsObject())
            instruction->add_tiles(addTile(*tileObject));
      if (const json::Array *list = object->getArray("scalars"))
        for (const json::Value &scalar : *list)
          if (std::optional<llvm::StringRef> name = scalar.getAsString()) {
            auto found = tables.scalars.find(name->str());
            instruction->add_scalars(found == tables.scalars.end() ? 0
                                                                   : found->second);
          }
      continue;
    }
    if (const json::Object *tile = object->getObject("tile"))
      instruction->set_tile(addTile(*tile));
    if (kind == "allocate")
      instruction->set_zero(object->getBoolean("zero").value_or(false));
    if (kind == "fetch")
      instruction->set_from(static_cast<uint32_t>(integer(object->get("from"))));
  }
  return segment;
}

bool sched::planGeometry(const json::Object &plan, int64_t id,
                         storage::JournalTile &out) {
  const json::Array *list = plan.getArray("tensors");
  for (size_t t = 0; list && t < list->size(); ++t) {
    const json::Object *tensor = (*list)[t].getAsObject();
    const json::Array *grid = tensor ? tensor->getArray("grid") : nullptr;
    const json::Array *split = tensor ? tensor->getArray("split") : nullptr;
    const json::Array *super = tensor ? tensor->getArray("super_shape") : nullptr;
    if (!grid || !split || !super || split->size() != super->size())
      continue;
    int64_t first = integer(tensor->get("first_tile")), count = 1;
    for (const json::Value &extent : *grid)
      count *= integer(&extent);
    if (id < first || id >= first + count)
      continue;
    // Row-major coordinates over the split axes, last fastest.
    std::vector<int64_t> coords(grid->size());
    int64_t linear = id - first;
    for (size_t axis = grid->size(); axis-- > 0;) {
      int64_t extent = std::max<int64_t>(1, integer(&(*grid)[axis]));
      coords[axis] = linear % extent;
      linear /= extent;
    }
    out.id = static_cast<uint32_t>(id);
    out.tensor = text(*tensor, "name");
    out.offsets.clear();
    out.shape.clear();
    size_t next = 0;
    for (size_t axis = 0; axis < super->size(); ++axis) {
      int64_t extent = integer(&(*super)[axis]);
      bool cut = (*split)[axis].getAsString().value_or("") != "";
      out.offsets.push_back(cut && next < coords.size() ? coords[next++] * extent
                                                        : 0);
      out.shape.push_back(extent);
    }
    return true;
  }
  return false;
}

std::vector<const json::Object *>
sched::nodePrograms(const json::Object &plan) {
  std::vector<const json::Object *> programs;
  if (const json::Array *array = plan.getArray("node_programs"))
    for (const json::Value &item : *array)
      programs.push_back(item.getAsObject());
  return programs;
}

void sched::addTensorsAndScalars(
    wire::StartJob &start, const json::Object &plan,
    const std::vector<StorageTensor> &tensors,
    const std::map<std::string, std::string> &partials) {
  if (const json::Array *list = plan.getArray("tensors"))
    for (const json::Value &item : *list) {
      const json::Object &object = *item.getAsObject();
      wire::TensorSpec *spec = start.add_tensors();
      spec->set_name(text(object, "name"));
      spec->set_uri(text(object, "uri"));
      spec->set_element(text(object, "element"));
      if (const json::Array *shape = object.getArray("shape"))
        for (const json::Value &extent : *shape)
          spec->add_shape(integer(&extent));
      for (const StorageTensor &tensor : tensors) {
        if (tensor.name != spec->name())
          continue;
        if (tensor.mode != StorageTensor::Mode::Write) {
          spec->set_load_path(tensor.path);
          spec->set_load_offset(tensor.layout.dataOffset);
        }
        if (tensor.mode != StorageTensor::Mode::Read) {
          auto partial = partials.find(tensor.name);
          spec->set_store_path(partial == partials.end() ? ""
                                                         : partial->second);
          spec->set_store_offset(
              tensor.layout.format == storage::Format::Header
                  ? static_cast<int64_t>(
                        storage::headerText(tensor.layout.element,
                                            tensor.layout.shape)
                            .size())
                  : 0);
        }
      }
    }
  if (const json::Array *list = plan.getArray("scalars"))
    for (const json::Value &item : *list) {
      const json::Object &object = *item.getAsObject();
      wire::ScalarValue *scalar = start.add_scalars();
      scalar->set_name(text(object, "name"));
      scalar->set_type(text(object, "type"));
      if (const json::Value *value = object.get("value"))
        scalar->set_value(value->getAsNumber().value_or(0));
    }
}

void sched::addLeaves(wire::StartJob &start, const json::Object &plan,
                      const std::vector<LeafBuild> &builds,
                      const wire::Join &pod) {
  const json::Array *leaves = plan.getArray("leaves");
  for (size_t i = 0; leaves && i < leaves->size(); ++i) {
    const json::Object &object = *(*leaves)[i].getAsObject();
    wire::LeafSpec *leaf = start.add_leaves();
    leaf->set_name(text(object, "name"));
    if (const json::Array *params = object.getArray("params"))
      for (const json::Value &param : *params) {
        const json::Object &p = *param.getAsObject();
        leaf->add_param_names(text(p, "name"));
        leaf->add_tensor_params(text(p, "kind") == "tensor");
      }
    if (const json::Array *grid = object.getArray("grid"))
      for (const json::Value &extent : *grid)
        leaf->add_grid(integer(&extent));
    leaf->set_cta_threads(integer(object.get("cta_threads")));
    for (const LeafBuild &build : builds) {
      if (build.name != leaf->name())
        continue;
      if (pod.backend() == "gpu") {
        auto compiled = build.byChip.find(pod.chip());
        if (compiled != build.byChip.end()) {
          leaf->set_ptx(compiled->second.ptx);
          leaf->set_cubin(compiled->second.cubin);
          leaf->set_contract(compiled->second.contract);
          leaf->set_chip(pod.chip());
        }
      } else {
        leaf->set_mlir(build.mlir);
      }
    }
  }
}
