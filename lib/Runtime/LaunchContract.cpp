//===- LaunchContract.cpp - What a launch of a kernel must agree to -------===//

#include "Phobos/Runtime/LaunchContract.h"

using namespace phobos;

const ParamSlot *LaunchContract::findParam(llvm::StringRef name) const {
  for (const ParamSlot &slot : params)
    if (slot.name == name)
      return &slot;
  return nullptr;
}

std::vector<std::string> LaunchContract::dynamicDims() const {
  std::vector<std::string> names;
  for (const ParamSlot &slot : params)
    for (auto [name, extent] : llvm::zip(slot.dims, slot.staticShape))
      if (extent < 0 && !llvm::is_contained(names, name))
        names.push_back(name);
  return names;
}

/// The value of dim `name`: a launch-bound dim, or a static extent.
static std::optional<int64_t> dimValue(const LaunchContract &contract,
                                       llvm::StringRef name,
                                       const LaunchContract::DimValues &dims) {
  auto it = dims.find(name);
  if (it != dims.end())
    return it->second;
  for (const ParamSlot &slot : contract.params)
    for (auto [dim, extent] : llvm::zip(slot.dims, slot.staticShape))
      if (dim == name && extent >= 0)
        return extent;
  return std::nullopt;
}

llvm::Expected<std::array<int64_t, 3>>
LaunchContract::gridFor(const DimValues &dims) const {
  std::array<int64_t, 3> result = {1, 1, 1};
  static const char axisNames[] = "xyz";
  for (int axis = 0; axis < 3; ++axis) {
    if (grid[axis].needsExplicitGrid)
      return llvm::createStringError(
          "the grid's %c axis cannot be inferred from the kernel's slices; "
          "give the grid explicitly",
          axisNames[axis]);
    for (const GridTerm &term : grid[axis].terms) {
      std::optional<int64_t> extent = dimValue(*this, term.dim, dims);
      if (!extent)
        return llvm::createStringError("the grid needs dim '%s'",
                                       term.dim.c_str());
      result[axis] = std::max(result[axis],
                              (*extent + term.divisor - 1) / term.divisor);
    }
  }
  return result;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

llvm::json::Value LaunchContract::toJSON() const {
  llvm::json::Array paramArray;
  for (const ParamSlot &slot : params) {
    llvm::json::Object object{
        {"name", slot.name},
        {"kind", slot.kind == ParamSlot::Kind::Tensor ? "tensor" : "scalar"},
        {"dtype", name(slot.element).str()}};
    if (slot.kind == ParamSlot::Kind::Tensor) {
      object["dims"] = llvm::json::Array(slot.dims);
      object["static_shape"] = llvm::json::Array(slot.staticShape);
      object["read"] = slot.read;
      object["written"] = slot.written;
    }
    paramArray.push_back(std::move(object));
  }
  llvm::json::Object gridObject;
  static const char *axisNames[] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    llvm::json::Array terms;
    for (const GridTerm &term : grid[axis].terms)
      terms.push_back(llvm::json::Object{{"dim", term.dim},
                                         {"divisor", term.divisor}});
    gridObject[axisNames[axis]] =
        llvm::json::Object{{"ceil_div_max", std::move(terms)},
                           {"explicit", grid[axis].needsExplicitGrid}};
  }
  llvm::json::Object variantObject, alignedObject;
  llvm::json::Array variantOrder;
  for (auto &[name, value] : variant) {
    variantObject[name] = value;
    variantOrder.push_back(name);
  }
  for (auto &[name, value] : aligned)
    alignedObject[name] = value;
  llvm::json::Array mapArray;
  for (const TensorMapSlot &map : tensorMaps)
    mapArray.push_back(llvm::json::Object{
        {"param", map.param},
        {"box", llvm::json::Array{map.boxRows, map.boxCols}},
        {"swizzle_bytes", map.swizzleBytes}});
  llvm::json::Object contract{{"kernel", kernel},
                              {"variant", std::move(variantObject)},
                              {"variant_order", std::move(variantOrder)},
                              {"params", std::move(paramArray)},
                              {"index_bits", indexBits},
                              {"cta_threads", ctaThreads},
                              {"shared_memory_bytes", sharedMemoryBytes},
                              {"aligned", std::move(alignedObject)},
                              {"tensor_maps", std::move(mapArray)},
                              {"grid", std::move(gridObject)},
                              {"persistent", persistent}};
  // Only where the source promised something, so that other contracts read
  // as they did.
  if (!alignedAt.empty()) {
    llvm::json::Object places;
    for (auto &[name, place] : alignedAt)
      places[name] = place;
    contract["aligned_at"] = std::move(places);
  }
  return contract;
}

llvm::Expected<LaunchContract>
LaunchContract::fromJSON(const llvm::json::Value &json) {
  auto fail = [](const char *what) {
    return llvm::createStringError("launch contract: %s", what);
  };
  const llvm::json::Object *object = json.getAsObject();
  if (!object)
    return fail("not a JSON object");
  LaunchContract contract;
  if (auto kernel = object->getString("kernel"))
    contract.kernel = kernel->str();
  else
    return fail("missing 'kernel'");
  const llvm::json::Object *variant = object->getObject("variant");
  if (const llvm::json::Array *order = object->getArray("variant_order"))
    for (const llvm::json::Value &name : *order)
      if (auto text = name.getAsString())
        if (auto value = variant ? variant->getInteger(*text) : std::nullopt)
          contract.variant.emplace_back(text->str(), *value);
  const llvm::json::Array *params = object->getArray("params");
  if (!params)
    return fail("missing 'params'");
  for (const llvm::json::Value &value : *params) {
    const llvm::json::Object *param = value.getAsObject();
    if (!param)
      return fail("a parameter is not an object");
    ParamSlot slot;
    auto name = param->getString("name");
    auto kind = param->getString("kind");
    auto dtype = param->getString("dtype");
    if (!name || !kind || !dtype)
      return fail("a parameter lacks name, kind or dtype");
    slot.name = name->str();
    slot.kind = *kind == "tensor" ? ParamSlot::Kind::Tensor
                                  : ParamSlot::Kind::Scalar;
    std::optional<ElementType> element = parseElementType(*dtype);
    if (!element)
      return fail("a parameter has an unknown dtype");
    slot.element = *element;
    if (const llvm::json::Array *dims = param->getArray("dims"))
      for (const llvm::json::Value &dim : *dims)
        slot.dims.push_back(dim.getAsString().value_or("").str());
    if (const llvm::json::Array *shape = param->getArray("static_shape"))
      for (const llvm::json::Value &extent : *shape)
        slot.staticShape.push_back(extent.getAsInteger().value_or(-1));
    slot.read = param->getBoolean("read").value_or(false);
    slot.written = param->getBoolean("written").value_or(false);
    contract.params.push_back(std::move(slot));
  }
  contract.indexBits = object->getInteger("index_bits").value_or(32);
  contract.ctaThreads = object->getInteger("cta_threads").value_or(256);
  contract.sharedMemoryBytes =
      object->getInteger("shared_memory_bytes").value_or(0);
  if (const llvm::json::Object *aligned = object->getObject("aligned"))
    for (const auto &entry : *aligned)
      contract.aligned.emplace_back(entry.first.str(),
                                    entry.second.getAsInteger().value_or(1));
  if (const llvm::json::Object *places = object->getObject("aligned_at"))
    for (const auto &entry : *places)
      if (std::optional<llvm::StringRef> place = entry.second.getAsString())
        contract.alignedAt.emplace_back(entry.first.str(), place->str());
  if (const llvm::json::Array *maps = object->getArray("tensor_maps"))
    for (const llvm::json::Value &value : *maps) {
      const llvm::json::Object *map = value.getAsObject();
      const llvm::json::Array *box = map ? map->getArray("box") : nullptr;
      std::optional<llvm::StringRef> param =
          map ? map->getString("param") : std::nullopt;
      if (!box || box->size() != 2 || !param || !contract.findParam(*param))
        return fail("a tensor map lacks its param or its 2-D box");
      TensorMapSlot slot;
      slot.param = param->str();
      slot.boxRows = (*box)[0].getAsInteger().value_or(0);
      slot.boxCols = (*box)[1].getAsInteger().value_or(0);
      slot.swizzleBytes = map->getInteger("swizzle_bytes").value_or(0);
      contract.tensorMaps.push_back(std::move(slot));
    }
  contract.persistent = object->getBoolean("persistent").value_or(false);
  if (const llvm::json::Object *grid = object->getObject("grid")) {
    static const char *axisNames[] = {"x", "y", "z"};
    for (int axis = 0; axis < 3; ++axis) {
      const llvm::json::Object *entry = grid->getObject(axisNames[axis]);
      if (!entry)
        continue;
      contract.grid[axis].needsExplicitGrid =
          entry->getBoolean("explicit").value_or(false);
      if (const llvm::json::Array *terms = entry->getArray("ceil_div_max"))
        for (const llvm::json::Value &term : *terms)
          if (const llvm::json::Object *t = term.getAsObject())
            contract.grid[axis].terms.push_back(
                {t->getString("dim").value_or("").str(),
                 t->getInteger("divisor").value_or(1)});
    }
  }
  return contract;
}
