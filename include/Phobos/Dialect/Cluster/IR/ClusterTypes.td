//===- ClusterTypes.td - Types of the phobos_cluster dialect -*- tablegen -*-===//
//
// Super-tile references of the cluster program, the buffers and tokens of
// the per-node programs, and the access modes of tensors in storage.
//
//===----------------------------------------------------------------------===//

#ifndef PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_TD
#define PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_TD

include "Phobos/Dialect/Cluster/IR/ClusterDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Cluster_AccessModeAttr : I32EnumAttr<"AccessMode",
    "what is done with a tensor in storage, or a super-tile in a unit of work", [
    I32EnumAttrCase<"read", 0>, I32EnumAttrCase<"write", 1>,
    I32EnumAttrCase<"rmw", 2>
  ]> {
  let cppNamespace = "::phobos::cluster";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

class Cluster_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Cluster_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Cluster_SuperTileType : Cluster_Type<"SuperTile", "super_tile"> {
  let summary = "one super-tile of a tensor, named in a unit of work";
  let description = [{
    The value of a `phobos_cluster.ref`: the super-tile of a tensor at the
    coordinates the unit of work (and its cluster loop) is at. Its extents
    follow from the tensor's split once the `@cluster` sizes are bound.
  }];
}

def Cluster_TokenType : Cluster_Type<"Token", "token"> {
  let summary = "the completion of one instruction of a per-node program";
  let description = [{
    Every per-node instruction yields a token; an instruction runs once
    the tokens it lists after `after` are complete.
  }];
}

def Cluster_BufferType : Cluster_Type<"Buffer", "buffer"> {
  let summary = "a node's memory holding one super-tile";
  let description = [{
    The buffer a `phobos_cluster.allocate` makes on a node: room for one
    super-tile of the given static shape and element type, row-major.

    Example: `!phobos_cluster.buffer<4096x4096xf32>`
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of elements.
    int64_t getNumElements() const;
    /// The bytes the buffer takes.
    int64_t getSizeInBytes() const;
  }];
}

#endif // PHOBOS_DIALECT_CLUSTER_IR_CLUSTERTYPES_TD
